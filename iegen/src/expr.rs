//! Affine expressions whose atoms may be uninterpreted function calls.
//!
//! An [`Expr`] is `c0 + Σ ci·ai` where each atom `ai` is a tuple variable, an
//! existential variable, a symbolic constant, or a call of an uninterpreted
//! function whose arguments are again expressions. Expressions are kept in a
//! canonical form (atoms sorted, zero coefficients dropped), so structural
//! equality is meaningful and cheap.

use std::collections::BTreeMap;
use std::fmt;

/// The value of a variable position inside one conjunction.
///
/// Tuple variables are numbered by their position in the (input ++ output)
/// tuple; existential variables by their position in the conjunction's list
/// of existentials. Names live beside the conjunction and are only used for
/// printing, so renaming never changes a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Var {
    /// A tuple variable, by position.
    Tuple(usize),
    /// An existentially quantified variable, by index.
    Exist(usize),
}

/// An indivisible term of an affine expression.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    /// A tuple or existential variable.
    Var(Var),
    /// A symbolic constant such as `NR` (free, shared by name).
    Sym(String),
    /// An uninterpreted function call `f(a, b, ...)`.
    Uf(String, Vec<Expr>),
    /// `floor(e / m)` for a constant `m >= 2`: the quasi-affine term that
    /// block formats need (BCSR's block row `floor(i / 2)`). Built with
    /// [`Expr::floor_div`], which keeps it canonical.
    Div(Box<Expr>, i64),
}

impl Atom {
    /// Whether this atom or any UF argument inside it mentions `v`.
    pub fn mentions(&self, v: Var) -> bool {
        match self {
            Atom::Var(w) => *w == v,
            Atom::Sym(_) => false,
            Atom::Uf(_, args) => args.iter().any(|a| a.mentions(v)),
            Atom::Div(e, _) => e.mentions(v),
        }
    }
}

/// An affine combination of [`Atom`]s with integer coefficients.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Expr {
    terms: BTreeMap<Atom, i64>,
    constant: i64,
}

thread_local! {
    /// Set when coefficient arithmetic on this thread left the 64-bit range.
    static OVERFLOWED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether coefficient arithmetic on this thread overflowed the 64-bit
/// range since the last call; clears the record.
///
/// Coefficients and constants are `i64`. An operation whose exact result
/// does not fit saturates (deterministically, never wraps) and records the
/// overflow here, so that a value computed since is known not to be exact:
/// callers that answer questions — the calculator, the descriptor reader —
/// take the record after each statement and report an error instead of a
/// wrong answer.
///
/// ```
/// use iegen::{expr::take_overflow, Expr};
/// take_overflow();
/// let big = Expr::constant(i64::MAX);
/// let _ = big.plus(&Expr::constant(1));
/// assert!(take_overflow());
/// assert!(!take_overflow());
/// ```
pub fn take_overflow() -> bool {
    OVERFLOWED.with(|o| o.replace(false))
}

fn overflowed(saturated: i64) -> i64 {
    OVERFLOWED.with(|o| o.set(true));
    saturated
}

/// `a + b`, saturating and recording an overflow ([`take_overflow`]).
pub(crate) fn add_checked(a: i64, b: i64) -> i64 {
    a.checked_add(b)
        .unwrap_or_else(|| overflowed(a.saturating_add(b)))
}

/// `a · b`, saturating and recording an overflow ([`take_overflow`]).
pub(crate) fn mul_checked(a: i64, b: i64) -> i64 {
    a.checked_mul(b)
        .unwrap_or_else(|| overflowed(a.saturating_mul(b)))
}

/// `-a`, saturating and recording an overflow ([`take_overflow`]).
pub(crate) fn neg_checked(a: i64) -> i64 {
    a.checked_neg().unwrap_or_else(|| overflowed(i64::MAX))
}

impl Expr {
    /// The constant expression `c`.
    pub fn constant(c: i64) -> Self {
        Expr {
            terms: BTreeMap::new(),
            constant: c,
        }
    }

    /// The expression `1·atom`.
    pub fn atom(a: Atom) -> Self {
        let mut e = Expr::default();
        e.terms.insert(a, 1);
        e
    }

    /// The expression `1·v` for a variable.
    pub fn var(v: Var) -> Self {
        Expr::atom(Atom::Var(v))
    }

    /// The symbolic constant `name`.
    pub fn sym(name: impl Into<String>) -> Self {
        Expr::atom(Atom::Sym(name.into()))
    }

    /// The call `name(args...)`.
    pub fn call(name: impl Into<String>, args: Vec<Expr>) -> Self {
        Expr::atom(Atom::Uf(name.into(), args))
    }

    /// `floor(e / m)` for a constant `m >= 1`, simplified: a constant
    /// folds, `m = 1` is `e` itself, and a divisor of every coefficient
    /// divides out of the variable part (`floor((2x + 3) / 2) = x + 1`).
    ///
    /// ```
    /// use iegen::{Expr, Var};
    /// let x = Expr::var(Var::Tuple(0));
    /// assert_eq!(Expr::floor_div(&x.scale(2).plus(&Expr::constant(3)), 2), x.plus(&Expr::constant(1)));
    /// assert_eq!(Expr::floor_div(&Expr::constant(-3), 2), Expr::constant(-2));
    /// ```
    ///
    /// # Panics
    ///
    /// When `m < 1` (callers check divisors from user text first).
    pub fn floor_div(e: &Expr, m: i64) -> Expr {
        assert!(m >= 1, "floor division by {m}");
        if m == 1 {
            return e.clone();
        }
        if e.is_constant() {
            return Expr::constant(e.constant.div_euclid(m));
        }
        // Every coefficient a multiple of m: floor((m*v + c) / m) = v + floor(c / m).
        if e.terms.values().all(|c| c % m == 0) {
            let mut out = Expr::constant(e.constant.div_euclid(m));
            for (a, c) in &e.terms {
                out.add_term(a.clone(), c / m);
            }
            return out;
        }
        Expr::atom(Atom::Div(Box::new(e.clone()), m))
    }

    /// The constant part.
    pub fn constant_term(&self) -> i64 {
        self.constant
    }

    /// The (atom, coefficient) pairs, in canonical order, all coefficients non-zero.
    pub fn terms(&self) -> impl Iterator<Item = (&Atom, i64)> + '_ {
        self.terms.iter().map(|(a, c)| (a, *c))
    }

    /// The number of atoms with a non-zero coefficient.
    pub fn num_terms(&self) -> usize {
        self.terms.len()
    }

    /// The coefficient of `a` (0 when absent).
    pub fn coefficient(&self, a: &Atom) -> i64 {
        self.terms.get(a).copied().unwrap_or(0)
    }

    /// The coefficient of the variable `v` at the top level (not inside UF arguments).
    pub fn coefficient_of_var(&self, v: Var) -> i64 {
        self.coefficient(&Atom::Var(v))
    }

    /// Whether the expression is a constant.
    pub fn is_constant(&self) -> bool {
        self.terms.is_empty()
    }

    /// The constant value, when the expression is one.
    pub fn as_constant(&self) -> Option<i64> {
        self.is_constant().then_some(self.constant)
    }

    /// When the expression is exactly `1·v`, that variable.
    pub fn as_var(&self) -> Option<Var> {
        if self.constant != 0 || self.terms.len() != 1 {
            return None;
        }
        match self.terms.iter().next() {
            Some((Atom::Var(v), 1)) => Some(*v),
            _ => None,
        }
    }

    /// Adds `c·a` in place.
    pub fn add_term(&mut self, a: Atom, c: i64) {
        if c == 0 {
            return;
        }
        let entry = self.terms.entry(a).or_insert(0);
        *entry = add_checked(*entry, c);
        if *entry == 0 {
            self.terms.retain(|_, c| *c != 0);
        }
    }

    /// Adds `c` to the constant in place.
    pub fn add_constant(&mut self, c: i64) {
        self.constant = add_checked(self.constant, c);
    }

    /// `self + k·other`.
    pub fn add_scaled(&self, other: &Expr, k: i64) -> Expr {
        let mut out = self.clone();
        for (a, c) in &other.terms {
            out.add_term(a.clone(), mul_checked(*c, k));
        }
        out.add_constant(mul_checked(other.constant, k));
        out
    }

    /// `k·self`.
    pub fn scale(&self, k: i64) -> Expr {
        if k == 0 {
            return Expr::default();
        }
        Expr {
            terms: self
                .terms
                .iter()
                .map(|(a, c)| (a.clone(), mul_checked(*c, k)))
                .collect(),
            constant: mul_checked(self.constant, k),
        }
    }

    /// `-self`.
    pub fn negate(&self) -> Expr {
        self.scale(-1)
    }

    /// `self + other`.
    pub fn plus(&self, other: &Expr) -> Expr {
        self.add_scaled(other, 1)
    }

    /// `self - other`.
    pub fn minus(&self, other: &Expr) -> Expr {
        self.add_scaled(other, -1)
    }

    /// The largest absolute coefficient or constant, looking inside UF arguments.
    pub fn max_abs_coefficient(&self) -> i64 {
        let mut m = self.constant.saturating_abs();
        for (a, c) in &self.terms {
            m = m.max(c.saturating_abs());
            match a {
                Atom::Uf(_, args) => {
                    for e in args {
                        m = m.max(e.max_abs_coefficient());
                    }
                }
                Atom::Div(e, d) => m = m.max(e.max_abs_coefficient()).max(*d),
                _ => {}
            }
        }
        m
    }

    /// The gcd of the coefficients of the atoms (0 for a constant expression).
    pub fn coefficient_gcd(&self) -> i64 {
        self.terms.values().fold(0, |g, c| gcd(g, *c))
    }

    /// Whether `v` occurs anywhere, including inside UF arguments.
    pub fn mentions(&self, v: Var) -> bool {
        self.terms.keys().any(|a| a.mentions(v))
    }

    /// Whether `v` occurs inside the argument of some UF call or floor
    /// division (where no equality can be solved for it).
    pub fn mentions_in_uf_args(&self, v: Var) -> bool {
        self.terms.keys().any(|a| match a {
            Atom::Uf(_, args) => args.iter().any(|e| e.mentions(v)),
            Atom::Div(e, _) => e.mentions(v),
            _ => false,
        })
    }

    /// Rebuilds the expression with every variable replaced by `f(var)`,
    /// inside UF arguments too. The result is canonical again.
    pub fn substitute(&self, f: &mut impl FnMut(Var) -> Option<Expr>) -> Expr {
        let mut out = Expr::constant(self.constant);
        for (a, c) in &self.terms {
            match a {
                Atom::Var(v) => match f(*v) {
                    Some(e) => out = out.add_scaled(&e, *c),
                    None => out.add_term(a.clone(), *c),
                },
                Atom::Sym(_) => out.add_term(a.clone(), *c),
                Atom::Uf(name, args) => {
                    let args = args.iter().map(|e| e.substitute(f)).collect();
                    out.add_term(Atom::Uf(name.clone(), args), *c);
                }
                Atom::Div(e, m) => {
                    out = out.add_scaled(&Expr::floor_div(&e.substitute(f), *m), *c);
                }
            }
        }
        out
    }

    /// Replaces the variable `v` by `by` everywhere.
    pub fn substitute_var(&self, v: Var, by: &Expr) -> Expr {
        self.substitute(&mut |w| (w == v).then(|| by.clone()))
    }

    /// Renumbers variables: every variable `v` becomes `f(v)`.
    pub fn rename_vars(&self, f: &mut impl FnMut(Var) -> Var) -> Expr {
        self.substitute(&mut |v| Some(Expr::var(f(v))))
    }

    /// Calls `visit` on every variable occurrence, inside UF arguments too.
    pub fn for_each_var(&self, visit: &mut impl FnMut(Var)) {
        for a in self.terms.keys() {
            match a {
                Atom::Var(v) => visit(*v),
                Atom::Sym(_) => {}
                Atom::Uf(_, args) => args.iter().for_each(|e| e.for_each_var(visit)),
                Atom::Div(e, _) => e.for_each_var(visit),
            }
        }
    }

    /// Calls `visit` on every symbolic constant, inside UF arguments too.
    pub fn for_each_sym<'a>(&'a self, visit: &mut impl FnMut(&'a str)) {
        for a in self.terms.keys() {
            match a {
                Atom::Var(_) => {}
                Atom::Sym(s) => visit(s),
                Atom::Uf(_, args) => args.iter().for_each(|e| e.for_each_sym(visit)),
                Atom::Div(e, _) => e.for_each_sym(visit),
            }
        }
    }

    /// Calls `visit` on every UF call (name, arguments), outermost first,
    /// including calls nested inside arguments.
    pub fn for_each_call<'a>(&'a self, visit: &mut impl FnMut(&'a str, &'a [Expr])) {
        for a in self.terms.keys() {
            match a {
                Atom::Uf(name, args) => {
                    visit(name, args);
                    args.iter().for_each(|e| e.for_each_call(visit));
                }
                Atom::Div(e, _) => e.for_each_call(visit),
                _ => {}
            }
        }
    }

    /// Renames symbolic constants and UF names (one map for both, as the two
    /// share a namespace in descriptors); names the map leaves alone stay.
    pub fn rename_names(&self, rename: &dyn Fn(&str) -> Option<String>) -> Expr {
        let mut out = Expr::constant(self.constant);
        for (a, c) in &self.terms {
            let atom = match a {
                Atom::Var(_) => a.clone(),
                Atom::Sym(s) => Atom::Sym(rename(s).unwrap_or_else(|| s.clone())),
                Atom::Uf(name, args) => Atom::Uf(
                    rename(name).unwrap_or_else(|| name.clone()),
                    args.iter().map(|e| e.rename_names(rename)).collect(),
                ),
                Atom::Div(e, m) => Atom::Div(Box::new(e.rename_names(rename)), *m),
            };
            out.add_term(atom, *c);
        }
        out
    }

    /// Evaluates with the given valuation of atoms' leaves. `var` gives
    /// variables, `sym` symbolic constants, `call` UF applications (arguments
    /// already evaluated). Returns `None` when any leaf is unknown or the
    /// arithmetic overflows.
    pub fn evaluate(
        &self,
        var: &mut impl FnMut(Var) -> Option<i64>,
        sym: &mut impl FnMut(&str) -> Option<i64>,
        call: &mut impl FnMut(&str, &[i64]) -> Option<i64>,
    ) -> Option<i64> {
        let mut acc = self.constant;
        for (a, c) in &self.terms {
            let value = match a {
                Atom::Var(v) => var(*v)?,
                Atom::Sym(s) => sym(s)?,
                Atom::Uf(name, args) => {
                    let mut vals = Vec::with_capacity(args.len());
                    for e in args {
                        vals.push(e.evaluate(var, sym, call)?);
                    }
                    call(name, &vals)?
                }
                Atom::Div(e, m) => e.evaluate(var, sym, call)?.div_euclid(*m),
            };
            acc = acc.checked_add(c.checked_mul(value)?)?;
        }
        Some(acc)
    }
}

/// Greatest common divisor, always non-negative; `gcd(0, 0) = 0`.
pub fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    i64::try_from(a).unwrap_or(i64::MAX)
}

impl fmt::Display for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Var::Tuple(i) => write!(f, "$t{i}"),
            Var::Exist(i) => write!(f, "$e{i}"),
        }
    }
}

/// Short constructors for unit tests: tuple variable, existential, constant.
#[cfg(test)]
pub(crate) mod shorthand {
    use super::{Expr, Var};

    /// Tuple variable `i`.
    pub fn t(i: usize) -> Expr {
        Expr::var(Var::Tuple(i))
    }
    /// Existential variable `i`.
    pub fn e(i: usize) -> Expr {
        Expr::var(Var::Exist(i))
    }
    /// The constant `k`.
    pub fn n(k: i64) -> Expr {
        Expr::constant(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_form_drops_zero_terms() {
        let i = Expr::var(Var::Tuple(0));
        let e = i.plus(&Expr::constant(3)).minus(&i);
        assert_eq!(e, Expr::constant(3));
        assert!(e.is_constant());
    }

    #[test]
    fn substitution_reaches_inside_calls() {
        let k = Var::Exist(0);
        let e = Expr::call("f", vec![Expr::var(k).plus(&Expr::constant(1))]);
        let by = Expr::call("g", vec![Expr::var(Var::Tuple(1))]);
        let out = e.substitute_var(k, &by);
        let expected = Expr::call("f", vec![by.plus(&Expr::constant(1))]);
        assert_eq!(out, expected);
        assert!(!out.mentions(k));
        assert!(out.mentions_in_uf_args(Var::Tuple(1)));
    }

    #[test]
    fn evaluation_uses_all_leaves() {
        let e = Expr::var(Var::Tuple(0))
            .scale(2)
            .plus(&Expr::sym("N"))
            .plus(&Expr::call("f", vec![Expr::var(Var::Tuple(0))]));
        let v = e.evaluate(&mut |_| Some(3), &mut |_| Some(10), &mut |_, args| {
            Some(args[0] * 100)
        });
        assert_eq!(v, Some(2 * 3 + 10 + 300));
    }

    #[test]
    fn gcd_is_non_negative() {
        assert_eq!(gcd(-4, 6), 2);
        assert_eq!(gcd(0, 0), 0);
        assert_eq!(gcd(0, -5), 5);
    }
}
