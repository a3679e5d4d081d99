//! A descriptor evaluated on an instance's values: the instance's symbols
//! and arrays prepared for evaluation (`prepare`, `Concrete`: tables,
//! the domains of the index arrays, the work an enumeration may spend),
//! the guards that keep index-array calls inside their domains, constraint
//! checks at a point, comparator keys, and the texts errors quote. The
//! oracle ([`crate::oracle`]) and validation
//! ([`crate::instance_validation`]) both stand on it.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::BTreeSet;

use iegen::constraint::Normalized;

use iegen::eval::enumerate_set;
use iegen::print::expr_with_names;
use iegen::{
    Atom, Bounds, Constraint, ConstraintKind, EvalError, Expr, Interpretation, Set, UfRule, Var,
};

use crate::compiled_expr::{CExpr, Env, Slot, Table};
use crate::descriptor::{Comparator, Descriptor, KeyExpr};
use crate::instance::{Instance, InstanceError, Values};
use crate::ordered_points::Points;

// ---------------------------------------------------------------------------
// Comparator keys

/// The key of `comparator` at `args`: one value per key component,
/// compared lexicographically.
///
/// Arithmetic is exact in `i128` (overflow is an error); `/` rounds toward
/// negative infinity and `%` takes the sign of the divisor; `interleave`
/// needs non-negative arguments and computes the Morton code in `u128`
/// (bit `b` of argument `k` of `n` goes to bit `b·n + k`), which must fit
/// in 127 bits.
///
/// ```
/// use synth::concrete::comparator_key;
/// use synth::{Comparator, KeyExpr};
/// let morton = Comparator {
///     name: "MORTON".into(),
///     params: vec!["i".into(), "j".into()],
///     key: vec![KeyExpr::Interleave(vec![KeyExpr::Param(0), KeyExpr::Param(1)])],
/// };
/// // i = 0b11, j = 0b01: bits i0 j0 i1 j1 = 1 1 1 0 -> 0b0111
/// assert_eq!(comparator_key(&morton, &[3, 1]).unwrap(), vec![7]);
/// assert!(comparator_key(&morton, &[-1, 0]).is_err());
/// ```
pub fn comparator_key(c: &Comparator, args: &[i64]) -> Result<Vec<i128>, InstanceError> {
    let fail = |message: String| InstanceError::Key {
        comparator: c.name.clone(),
        message,
    };
    if args.len() != c.params.len() {
        return Err(fail(format!(
            "takes {} argument(s) but is called with {}",
            c.params.len(),
            args.len()
        )));
    }
    c.key
        .iter()
        .map(|k| eval_key(k, args).map_err(&fail))
        .collect()
}

/// [`comparator_key`] into `out` (cleared first).
fn comparator_key_into(
    c: &Comparator,
    args: &[i64],
    out: &mut Vec<i128>,
) -> Result<(), InstanceError> {
    out.clear();
    if args.len() != c.params.len() {
        return Err(comparator_key(c, args).expect_err("an arity error"));
    }
    for k in &c.key {
        match eval_key(k, args) {
            Ok(x) => out.push(x),
            Err(message) => {
                return Err(InstanceError::Key {
                    comparator: c.name.clone(),
                    message,
                })
            }
        }
    }
    Ok(())
}

fn eval_key(k: &KeyExpr, args: &[i64]) -> Result<i128, String> {
    let overflow = || "arithmetic overflow in the key".to_string();
    Ok(match k {
        KeyExpr::Int(n) => i128::from(*n),
        KeyExpr::Param(p) => i128::from(
            *args
                .get(*p)
                .ok_or_else(|| format!("the key uses parameter {p}, which does not exist"))?,
        ),
        KeyExpr::Neg(a) => eval_key(a, args)?.checked_neg().ok_or_else(overflow)?,
        KeyExpr::Add(a, b) => eval_key(a, args)?
            .checked_add(eval_key(b, args)?)
            .ok_or_else(overflow)?,
        KeyExpr::Sub(a, b) => eval_key(a, args)?
            .checked_sub(eval_key(b, args)?)
            .ok_or_else(overflow)?,
        KeyExpr::Mul(a, b) => eval_key(a, args)?
            .checked_mul(eval_key(b, args)?)
            .ok_or_else(overflow)?,
        KeyExpr::Div(a, b) | KeyExpr::Rem(a, b) => {
            let (x, y) = (eval_key(a, args)?, eval_key(b, args)?);
            if y == 0 {
                return Err("division by zero in the key".into());
            }
            let mut q = x.checked_div(y).ok_or_else(overflow)?;
            if x % y != 0 && ((x < 0) != (y < 0)) {
                q = q.checked_sub(1).ok_or_else(overflow)?;
            }
            if matches!(k, KeyExpr::Div(..)) {
                q
            } else {
                y.checked_mul(q)
                    .and_then(|p| x.checked_sub(p))
                    .ok_or_else(overflow)?
            }
        }
        KeyExpr::Interleave(parts) => {
            let n = parts.len() as u64;
            let mut out: u128 = 0;
            for (i, p) in parts.iter().enumerate() {
                let x = eval_key(p, args)?;
                if x < 0 {
                    return Err(format!(
                        "interleave needs non-negative values, but argument {} is {x}",
                        i + 1
                    ));
                }
                let x = x as u128;
                let bits = 128 - u64::from(x.leading_zeros());
                for b in 0..bits {
                    if x >> b & 1 == 1 {
                        let at = b * n + i as u64;
                        if at >= 127 {
                            return Err(format!(
                                "interleave of {n} values does not fit in 127 bits (argument {} is {x})",
                                i + 1
                            ));
                        }
                        out |= 1u128 << at;
                    }
                }
            }
            out as i128
        }
    })
}

// ---------------------------------------------------------------------------
// Evaluation helpers

pub(crate) fn eval_error(what: impl FnOnce() -> String) -> impl FnOnce(EvalError) -> InstanceError {
    move |error| InstanceError::Eval {
        what: what(),
        error,
    }
}

/// Evaluates `e` at `point` (tuple variables) without comparators.
pub(crate) fn eval_plain(env: &Env, e: &Expr, point: &[i64]) -> Result<i64, EvalError> {
    env.evaluate(e, &mut |v| match v {
        Var::Tuple(i) => point.get(i).copied(),
        Var::Exist(_) => None,
    })
}

/// `e` compiled for [`eval_plain`]'s evaluation: tuple variable `i` is
/// position `i` of the point, existentials are never known.
pub(crate) fn compile_plain(env: &Env, e: &Expr) -> CExpr {
    CExpr::compile(e, env, &mut |v| match v {
        Var::Tuple(i) => Slot::At(i),
        Var::Exist(_) => Slot::Unknown(v),
    })
}

/// A constraint compiled for evaluation at many points: exactly what
/// [`constraint_holds`] decides (errors included), without recompiling or
/// allocating at each point.
pub(crate) struct Holds<'a> {
    constraint: &'a Constraint,
    how: How<'a>,
    args: Vec<i64>,
    keys: Vec<Vec<i128>>,
}

enum How<'a> {
    /// No comparator.
    Plain(CExpr),
    /// Comparator calls (none nested) and the rest.
    Keys {
        calls: Vec<(&'a Comparator, i64, Vec<CExpr>)>,
        others: CExpr,
        others_constant: bool,
    },
    /// Anything else: [`constraint_holds`] at each point.
    Generic,
}

impl<'a> Holds<'a> {
    pub(crate) fn new(d: &'a Descriptor, env: &Env, c: &'a Constraint) -> Holds<'a> {
        let e = c.expr();
        let how = if !d.mentions_comparator(e) {
            How::Plain(compile_plain(env, e))
        } else {
            let mut calls = Vec::new();
            let mut others = Expr::constant(e.constant_term());
            let mut nested = false;
            for (atom, coef) in e.terms() {
                match d.comparator_call(atom) {
                    Some((cmp, args)) => {
                        nested |= args.iter().any(|a| d.mentions_comparator(a));
                        let args = args.iter().map(|a| compile_plain(env, a)).collect();
                        calls.push((cmp, coef, args));
                    }
                    None => {
                        if let Atom::Uf(_, args) = atom {
                            nested |= args.iter().any(|a| d.mentions_comparator(a));
                        }
                        others.add_term(atom.clone(), coef);
                    }
                }
            }
            if nested {
                How::Generic
            } else {
                How::Keys {
                    calls,
                    others_constant: others.is_constant(),
                    others: compile_plain(env, &others),
                }
            }
        };
        Holds {
            constraint: c,
            how,
            args: Vec::new(),
            keys: Vec::new(),
        }
    }

    pub(crate) fn holds(
        &mut self,
        d: &Descriptor,
        env: &Env,
        point: &[i64],
        what: &dyn Fn() -> String,
    ) -> Result<bool, InstanceError> {
        let c = self.constraint;
        let decide = |x: i128| match c.kind() {
            ConstraintKind::Eq => x == 0,
            ConstraintKind::Geq => x >= 0,
        };
        let (calls, others, others_constant) = match &self.how {
            How::Plain(e) => {
                let x = e.eval(env, point).map_err(eval_error(what))?;
                return Ok(decide(i128::from(x)));
            }
            How::Generic => return constraint_holds(d, env, c, point, what),
            How::Keys {
                calls,
                others,
                others_constant,
            } => (calls, others, *others_constant),
        };
        if self.keys.len() < calls.len() {
            self.keys.resize(calls.len(), Vec::new());
        }
        for ((cmp, _, args), key) in calls.iter().zip(&mut self.keys) {
            self.args.clear();
            for a in args {
                self.args
                    .push(a.eval(env, point).map_err(eval_error(what))?);
            }
            comparator_key_into(cmp, &self.args, key)?;
        }
        // Two calls of one comparator, compared by keys.
        if let [(c1, a, _), (c2, b, _)] = &calls[..] {
            let constant = c.expr().constant_term();
            if c1.name == c2.name && others_constant {
                if let Some(ok) =
                    compare_keys(c.kind(), constant, *a, *b, &self.keys[0], &self.keys[1])
                {
                    return Ok(ok);
                }
            }
        }
        // Otherwise only one-component keys take part in arithmetic.
        let acc = i128::from(others.eval(env, point).map_err(eval_error(what))?);
        let terms = calls
            .iter()
            .zip(&self.keys)
            .map(|((cmp, coef, _), key)| (*cmp, *coef, &key[..]));
        Ok(decide(sum_one_component_keys(acc, terms, what)?))
    }
}

/// `a F(..) + b F(..) + constant (op) 0` with two calls of one comparator
/// (`a = -b = ±1`), decided by comparing their keys; `None` for another
/// shape (left to arithmetic).
fn compare_keys(
    kind: ConstraintKind,
    constant: i64,
    a: i64,
    b: i64,
    k1: &[i128],
    k2: &[i128],
) -> Option<bool> {
    if a != -b || a.abs() != 1 {
        return None;
    }
    let (plus, minus) = if a == 1 { (k1, k2) } else { (k2, k1) };
    let ord = plus.cmp(minus);
    match (kind, constant) {
        (ConstraintKind::Eq, 0) => Some(ord.is_eq()),
        (ConstraintKind::Geq, 0) => Some(ord.is_ge()),
        (ConstraintKind::Geq, -1) => Some(ord.is_gt()),
        _ => None,
    }
}

/// `acc + Σ coef · key` over comparator calls whose keys have one
/// component (a longer key can only be compared with another call).
fn sum_one_component_keys<'a>(
    mut acc: i128,
    terms: impl Iterator<Item = (&'a Comparator, i64, &'a [i128])>,
    what: &dyn Fn() -> String,
) -> Result<i128, InstanceError> {
    for (cmp, coef, key) in terms {
        let [x] = key[..] else {
            return Err(InstanceError::Key {
                comparator: cmp.name.clone(),
                message: format!(
                    "its key has {} components, so a call can only be compared with another call of {}",
                    key.len(),
                    cmp.name
                ),
            });
        };
        acc = i128::from(coef)
            .checked_mul(x)
            .and_then(|t| acc.checked_add(t))
            .ok_or_else(|| InstanceError::Eval {
                what: what(),
                error: EvalError::Overflow,
            })?;
    }
    Ok(acc)
}

/// Evaluates a constraint at `point`, comparators included.
pub(crate) fn constraint_holds(
    d: &Descriptor,
    env: &Env,
    c: &Constraint,
    point: &[i64],
    what: &dyn Fn() -> String,
) -> Result<bool, InstanceError> {
    let e = c.expr();
    let decide = |x: i128| match c.kind() {
        ConstraintKind::Eq => x == 0,
        ConstraintKind::Geq => x >= 0,
    };
    if !d.mentions_comparator(e) {
        let x = eval_plain(env, e, point).map_err(eval_error(what))?;
        return Ok(decide(i128::from(x)));
    }
    let mut calls = Vec::new();
    let mut others = Expr::constant(e.constant_term());
    for (atom, coef) in e.terms() {
        match d.comparator_call(atom) {
            Some((cmp, args)) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    if d.mentions_comparator(a) {
                        return Err(InstanceError::Key {
                            comparator: cmp.name.clone(),
                            message: "a comparator call cannot be an argument of another call"
                                .into(),
                        });
                    }
                    vals.push(eval_plain(env, a, point).map_err(eval_error(what))?);
                }
                calls.push((cmp, coef, comparator_key(cmp, &vals)?));
            }
            None => {
                if let Atom::Uf(_, args) = atom {
                    if args.iter().any(|a| d.mentions_comparator(a)) {
                        return Err(InstanceError::Eval {
                            what: what(),
                            error: EvalError::UnknownUf(
                                "a comparator used inside an index array's argument".into(),
                            ),
                        });
                    }
                }
                others.add_term(atom.clone(), coef);
            }
        }
    }
    // Two calls of one comparator, compared by keys.
    if let [(c1, a, k1), (c2, b, k2)] = &calls[..] {
        let constant = e.constant_term();
        if c1.name == c2.name && others.is_constant() {
            if let Some(ok) = compare_keys(c.kind(), constant, *a, *b, k1, k2) {
                return Ok(ok);
            }
        }
    }
    // Otherwise only one-component keys take part in arithmetic.
    let acc = i128::from(eval_plain(env, &others, point).map_err(eval_error(what))?);
    let terms = calls.iter().map(|(cmp, coef, key)| (*cmp, *coef, &key[..]));
    Ok(decide(sum_one_component_keys(acc, terms, what)?))
}

/// The constraints stating that every UF call in `exprs` has its
/// arguments inside its domain: one list of constraints per combination of
/// the domains' conjunctions (usually exactly one).
pub fn domain_guards<'a>(
    d: &Descriptor,
    exprs: impl IntoIterator<Item = &'a Expr>,
) -> Result<Vec<Vec<Normalized>>, InstanceError> {
    let mut calls: BTreeSet<(String, Vec<Expr>)> = BTreeSet::new();
    for e in exprs {
        e.for_each_call(&mut |name, args| {
            if d.uf(name).is_some() {
                calls.insert((name.to_string(), args.to_vec()));
            }
        });
    }
    let mut alternatives: Vec<Vec<Normalized>> = vec![Vec::new()];
    for (name, args) in calls {
        let Some(decl) = d.uf(&name) else { continue };
        let mut next = Vec::new();
        for conj in decl.domain.conjunctions() {
            if conj.num_exists() > 0 {
                return Err(InstanceError::Eval {
                    what: format!("the domain of {name}"),
                    error: EvalError::UnassignedVariable(
                        "an existential variable in a UF domain".into(),
                    ),
                });
            }
            let guard: Vec<Normalized> = conj
                .constraints()
                .map(|k| {
                    k.map_expr(|e| {
                        e.substitute(&mut |v| match v {
                            Var::Tuple(i) => args.get(i).cloned(),
                            Var::Exist(_) => None,
                        })
                    })
                })
                .collect();
            for alt in &alternatives {
                let mut a = alt.clone();
                a.extend(guard.iter().cloned());
                next.push(a);
            }
        }
        if next.len() > 256 {
            return Err(InstanceError::Eval {
                what: "the domains of the index arrays".into(),
                error: EvalError::TooManyPoints { limit: 256 },
            });
        }
        alternatives = next;
    }
    Ok(alternatives)
}

pub(crate) fn tuple_text(point: &[i64]) -> String {
    point
        .iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `0 <= y < NC` from `{[y] : 0 <= y < NC}`.
pub(crate) fn set_body(s: &Set) -> String {
    let text = s.to_string();
    match (text.find(" : "), text.strip_suffix('}')) {
        (Some(at), Some(_)) if s.conjunctions().len() == 1 => {
            text[at + 3..text.len() - 1].to_string()
        }
        _ => text,
    }
}

/// ` (NC = 4, NNZ = 5)` for the symbols of `s`, or nothing.
pub(crate) fn symbol_values(symbols: &BTreeSet<String>, interp: &Interpretation) -> String {
    let parts: Vec<String> = symbols
        .iter()
        .filter_map(|s| interp.symbols.get(s).map(|v| format!("{s} = {v}")))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

pub(crate) fn set_symbols(s: &Set) -> BTreeSet<String> {
    s.conjunctions().iter().flat_map(|c| c.symbols()).collect()
}

fn expr_symbols(e: &Expr) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    e.for_each_sym(&mut |s| {
        out.insert(s.to_string());
    });
    out
}

/// Prints a constraint with the rule's names: `n1 < n2`, `row(n1) <= row(n2)`.
pub(crate) fn constraint_text(c: &Constraint, names: &dyn Fn(Var) -> String) -> String {
    let e = c.expr();
    let mut pos = Expr::constant(0);
    let mut neg = Expr::constant(0);
    for (atom, coef) in e.terms() {
        if coef > 0 {
            pos.add_term(atom.clone(), coef);
        } else {
            neg.add_term(atom.clone(), -coef);
        }
    }
    let k = e.constant_term();
    let strict = c.kind() == ConstraintKind::Geq && k == -1;
    if !strict {
        if k > 0 {
            pos.add_constant(k);
        } else {
            neg.add_constant(k.saturating_neg());
        }
    }
    let (pos, neg) = (expr_with_names(&pos, names), expr_with_names(&neg, names));
    match c.kind() {
        // An equality reads better with its positive side first: `j = ii + off(d)`.
        ConstraintKind::Eq => format!("{pos} = {neg}"),
        ConstraintKind::Geq if strict => format!("{neg} < {pos}"),
        ConstraintKind::Geq => format!("{neg} <= {pos}"),
    }
}

fn rule_names(rule: &UfRule) -> impl Fn(Var) -> String + '_ {
    move |v| match v {
        Var::Tuple(i) => rule.vars.get(i).cloned().unwrap_or_else(|| format!("v{i}")),
        Var::Exist(j) => format!("e{j}"),
    }
}

/// The rule, printed: `forall n1, n2 : n1 < n2 => row(n1) <= row(n2)`.
pub fn rule_text(rule: &UfRule) -> String {
    let names = rule_names(rule);
    let side = |cs: &[Constraint]| {
        if cs.is_empty() {
            "true".to_string()
        } else {
            cs.iter()
                .map(|c| constraint_text(c, &names))
                .collect::<Vec<_>>()
                .join(" && ")
        }
    };
    format!(
        "forall {} : {} => {}",
        rule.vars.join(", "),
        side(&rule.premise),
        side(&rule.conclusion)
    )
}

// ---------------------------------------------------------------------------
// Shape: symbols, arrays, lengths

/// The points of an index array's domain, in increasing order.
pub(crate) enum Domain {
    /// Every point of a box `lo ..= hi` (not empty).
    Box { lo: Vec<i64>, hi: Vec<i64> },
    /// Listed points.
    Points(Points),
}

impl Domain {
    /// Calls `f` on every point, in increasing order.
    pub(crate) fn for_each<E>(&self, mut f: impl FnMut(&[i64]) -> Result<(), E>) -> Result<(), E> {
        match self {
            Domain::Points(ps) => ps.iter().try_for_each(f),
            Domain::Box { lo, hi } => {
                let mut p = lo.clone();
                loop {
                    f(&p)?;
                    // The next point, last coordinate fastest.
                    let mut k = p.len();
                    loop {
                        if k == 0 {
                            return Ok(());
                        }
                        k -= 1;
                        if p[k] < hi[k] {
                            p[k] += 1;
                            break;
                        }
                        p[k] = lo[k];
                    }
                }
            }
        }
    }
}

/// An instance checked for shape, ready for evaluation: the symbols and
/// index arrays (as dense tables), the value array, and each UF's domain
/// points.
pub(crate) struct Concrete<'a> {
    pub env: Env<'a>,
    /// The value array (borrowed when it holds reals).
    pub values: Cow<'a, [f64]>,
    pub data_extents: Vec<i64>,
    /// The number of values of the instance, plus one (see [`work_bounds`]).
    pub work: u64,
    /// The domain of each index array, in the order of the descriptor's.
    pub domains: Vec<Domain>,
    /// The same values as an interpretation, built when first needed.
    interp: OnceCell<Interpretation>,
}

impl Concrete<'_> {
    /// The symbols and index arrays as an [`Interpretation`] (for the
    /// paths that enumerate with `iegen::eval`).
    pub fn interp(&self) -> &Interpretation {
        self.interp.get_or_init(|| self.env.to_interpretation())
    }
}

/// The number of domain points always enumerated, whatever the array's length.
const DOMAIN_POINTS: u64 = 100_000;

/// Limits of an enumeration whose size is proportional to `work` (the
/// number of values of an instance, plus one): at most `work` points, and
/// 64 tries per point plus a constant. A well-formed instance has no more
/// domain points, sparse points or adjacent pairs than values, so the
/// limits only stop instances whose symbols promise far more than their
/// arrays hold.
pub(crate) fn work_bounds(work: u64) -> Bounds {
    Bounds {
        box_: None,
        max_points: usize::try_from(work).unwrap_or(usize::MAX),
        max_steps: work.saturating_mul(64).saturating_add(100_000),
    }
}

fn names_list(names: impl IntoIterator<Item = impl AsRef<str>>) -> String {
    names
        .into_iter()
        .map(|n| n.as_ref().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The bounds `lo ..= hi` of a domain that is a non-empty box: one
/// conjunction without existentials whose every constraint bounds one
/// variable by an expression of symbols, every variable bounded on both
/// sides. `None` for any other domain (which is then enumerated): the box
/// holds exactly the points the enumeration finds, in the same order.
fn box_domain(s: &Set, interp: &Interpretation) -> Option<(Vec<i64>, Vec<i64>)> {
    let [conj] = s.conjunctions() else {
        return None;
    };
    if conj.num_exists() > 0 {
        return None;
    }
    let n = conj.arity();
    let mut lo: Vec<Option<i128>> = vec![None; n];
    let mut hi: Vec<Option<i128>> = vec![None; n];
    for c in conj.constraints() {
        let mut var = None;
        let mut rest = i128::from(c.expr().constant_term());
        for (atom, coef) in c.expr().terms() {
            match atom {
                Atom::Var(Var::Tuple(k)) if var.is_none() && *k < n => var = Some((*k, coef)),
                Atom::Sym(name) => {
                    rest += i128::from(coef) * i128::from(*interp.symbols.get(name)?);
                }
                _ => return None,
            }
        }
        // a·x + rest >= 0 (or = 0)
        let (k, a) = var?;
        let a = i128::from(a);
        let (l, h) = match c.kind() {
            ConstraintKind::Eq if rest % a == 0 => (Some(-rest / a), Some(-rest / a)),
            ConstraintKind::Eq => return None,
            ConstraintKind::Geq if a > 0 => (Some(-(rest.div_euclid(a))), None),
            ConstraintKind::Geq => (None, Some(rest.div_euclid(-a))),
        };
        if let Some(l) = l {
            lo[k] = Some(lo[k].map_or(l, |x| x.max(l)));
        }
        if let Some(h) = h {
            hi[k] = Some(hi[k].map_or(h, |x| x.min(h)));
        }
    }
    let mut out = (Vec::with_capacity(n), Vec::with_capacity(n));
    for (l, h) in lo.into_iter().zip(hi) {
        let (l, h) = (i64::try_from(l?).ok()?, i64::try_from(h?).ok()?);
        if l > h || h == i64::MAX {
            return None;
        }
        out.0.push(l);
        out.1.push(h);
    }
    Some(out)
}

/// Refuses a value of `inst`'s value array that is not finite (NaN, an
/// infinity): part of validation unless the caller accepts them, not of
/// [`prepare`], since the oracle enumerates such values as any other.
pub(crate) fn check_finite(d: &Descriptor, inst: &Instance) -> Result<(), InstanceError> {
    let Some(data) = inst.arrays.get(&d.data_name) else {
        return Ok(());
    };
    let values = match data {
        Values::Real(v) => Cow::Borrowed(&v[..]),
        Values::Real32(_) => Cow::Owned(data.to_reals()),
        Values::Int(_) | Values::Int32(_) => return Ok(()),
    };
    if let Some((index, value)) = values.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        return Err(InstanceError::NonFinite {
            array: d.data_name.clone(),
            index,
            value: *value,
        });
    }
    Ok(())
}

/// Checks names, types and lengths, and builds the interpretation.
pub(crate) fn prepare<'a>(
    d: &Descriptor,
    inst: &'a Instance,
) -> Result<Concrete<'a>, InstanceError> {
    if !inst.format.eq_ignore_ascii_case(&d.name) {
        return Err(InstanceError::Format {
            instance: inst.format.clone(),
            descriptor: d.name.clone(),
        });
    }
    let all_symbols = names_list(&d.symbols);
    for s in &d.symbols {
        if !inst.symbols.contains_key(s) {
            let unknown = inst.symbols.keys().filter(|k| !d.symbols.contains(k));
            return Err(InstanceError::MissingSymbol {
                name: s.clone(),
                all: all_symbols,
                hint: misspelling_hint(s, unknown),
            });
        }
    }
    for s in inst.symbols.keys() {
        if !d.symbols.contains(s) {
            return Err(InstanceError::UnknownSymbol {
                name: s.clone(),
                format: d.name.clone(),
                all: all_symbols,
            });
        }
    }
    // A dense extent is a size.
    for s in &d.dense {
        let v = inst.symbols[s];
        if v < 0 {
            return Err(InstanceError::NegativeExtent {
                name: s.clone(),
                value: v,
            });
        }
    }
    let array_names: Vec<&str> = d
        .ufs
        .iter()
        .map(|u| u.name.as_str())
        .chain([d.data_name.as_str()])
        .collect();
    let all_arrays = names_list(&array_names);
    for a in &array_names {
        if !inst.arrays.contains_key(*a) {
            let unknown = inst
                .arrays
                .keys()
                .filter(|k| !array_names.contains(&k.as_str()));
            return Err(InstanceError::MissingArray {
                name: a.to_string(),
                all: all_arrays,
                hint: misspelling_hint(a, unknown),
            });
        }
    }
    for a in inst.arrays.keys() {
        if !array_names.contains(&a.as_str()) {
            return Err(InstanceError::UnknownArray {
                name: a.clone(),
                format: d.name.clone(),
                all: all_arrays,
            });
        }
    }
    // The symbols only: the domains and sizes are evaluated without the
    // index arrays.
    let mut interp = Interpretation::new();
    for (k, v) in &inst.symbols {
        interp.symbols.insert(k.clone(), *v);
    }
    let mut tables = Vec::new();
    let mut domains = Vec::new();
    for u in &d.ufs {
        let what = format!("the domain of {}", u.name);
        let Some(ints) = inst.arrays[&u.name].as_ints() else {
            return Err(InstanceError::NotIntegers {
                array: u.name.clone(),
            });
        };
        let arity = u.domain.arity();
        let domain_text = || {
            format!(
                "its domain {}{}",
                set_body(&u.domain),
                symbol_values(&set_symbols(&u.domain), &interp)
            )
        };
        // A domain has at most as many points as its array has values; the
        // bound keeps the work proportional to the instance (with a floor,
        // so that a short array of a small domain says what it needs).
        let limit = (ints.len() as u64 + 1).max(DOMAIN_POINTS);
        let too_many = || InstanceError::Length {
            array: u.name.clone(),
            found: ints.len(),
            why: format!("{} has more points than that", domain_text()),
        };
        let negative = |p: &[i64]| InstanceError::Eval {
            what: what.clone(),
            error: EvalError::UnassignedVariable(format!(
                "its point ({}) has a negative index, which no array can store",
                tuple_text(p)
            )),
        };
        let (domain, extents, lo, count) = match box_domain(&u.domain, &interp) {
            Some((lo, hi)) => {
                let count = lo.iter().zip(&hi).try_fold(1u128, |acc, (&l, &h)| {
                    acc.checked_mul(u128::try_from(i128::from(h) - i128::from(l) + 1).ok()?)
                });
                if count.is_none_or(|n| n > u128::from(work_bounds(limit).max_points as u64)) {
                    return Err(too_many());
                }
                if lo.iter().any(|&x| x < 0) {
                    return Err(negative(&lo));
                }
                let extents: Vec<i64> = hi.iter().map(|h| h + 1).collect();
                let count = count.unwrap_or(0) as usize;
                (Domain::Box { lo: lo.clone(), hi }, extents, lo, count)
            }
            None => {
                let set = match enumerate_set(&u.domain, &interp, &work_bounds(limit)) {
                    Ok(points) => points,
                    Err(EvalError::TooManyPoints { .. } | EvalError::TooManySteps { .. }) => {
                        return Err(too_many())
                    }
                    Err(e) => return Err(eval_error(|| what.clone())(e)),
                };
                let mut points = Points::new(arity);
                let mut extents = vec![0i64; arity];
                for p in &set {
                    for (k, &x) in p.iter().enumerate() {
                        if x < 0 {
                            return Err(negative(p));
                        }
                        extents[k] = extents[k].max(x + 1);
                    }
                    points.push(p);
                }
                let count = points.len();
                (Domain::Points(points), extents, vec![0; arity], count)
            }
        };
        let expected = if count == 0 {
            Some(0usize)
        } else {
            extents
                .iter()
                .try_fold(1usize, |acc, &e| acc.checked_mul(usize::try_from(e).ok()?))
        };
        // A domain emptied by a negative symbol: the symbol, not the
        // array, is what is wrong.
        let negative: Vec<String> = set_symbols(&u.domain)
            .iter()
            .filter_map(|s| interp.symbols.get(s).filter(|&&v| v < 0).map(|v| (s, v)))
            .map(|(s, v)| format!("{s} is {v}, and a size cannot be negative"))
            .collect();
        if expected != Some(ints.len()) {
            let needs = match expected {
                Some(n) => n.to_string(),
                None => "more than can be stored".to_string(),
            };
            let shape = if arity > 1 {
                format!(
                    " ({}, row-major)",
                    extents
                        .iter()
                        .map(|e| e.to_string())
                        .collect::<Vec<_>>()
                        .join(" × ")
                )
            } else {
                String::new()
            };
            let negative = if count == 0 && !negative.is_empty() {
                format!(": {}", negative.join("; "))
            } else {
                String::new()
            };
            return Err(InstanceError::Length {
                array: u.name.clone(),
                found: ints.len(),
                why: format!("{} needs {needs}{shape}{negative}", domain_text()),
            });
        }
        // Empty as it must then be, the array is refused all the same: a
        // conversion would size a space by the symbol.
        if count == 0 && !negative.is_empty() {
            return Err(InstanceError::Length {
                array: u.name.clone(),
                found: ints.len(),
                why: format!(
                    "{} is empty only because {}",
                    domain_text(),
                    negative.join("; ")
                ),
            });
        }
        // Listed points that do not fill their extents leave holes.
        let mask = match &domain {
            Domain::Points(ps) if ps.len() != ints.len() => {
                let mut mask = vec![false; ints.len()];
                for p in ps.iter() {
                    mask[linear(p, &extents)] = true;
                }
                Some(mask)
            }
            _ => None,
        };
        tables.push((
            u.name.clone(),
            Table::Dense {
                extents,
                lo,
                values: ints,
                mask,
            },
        ));
        domains.push(domain);
    }
    // The value array's length: the product of its extents (row-major).
    let mut data_extents = Vec::with_capacity(d.data_size.len());
    let mut size: Option<i64> = Some(1);
    for extent in &d.data_size {
        let n = interp
            .evaluate(extent, &mut |_| None)
            .map_err(eval_error(|| format!("the size of {}", d.data_name)))?;
        data_extents.push(n);
        size = size.and_then(|s| if n < 0 { None } else { s.checked_mul(n) });
    }
    let data = &inst.arrays[&d.data_name];
    if size.and_then(|s| usize::try_from(s).ok()) != Some(data.len()) {
        let syms: BTreeSet<String> = d.data_size.iter().flat_map(expr_symbols).collect();
        let texts: Vec<String> = d.data_size.iter().map(|e| e.to_string()).collect();
        let why = match &texts[..] {
            [one] if syms.len() == 1 && syms.contains(one) => {
                format!("the descriptor's size {one} is {}", data_extents[0])
            }
            [one] => format!(
                "the descriptor's size {one} is {}{}",
                data_extents[0],
                symbol_values(&syms, &interp)
            ),
            _ => {
                let product =
                    size.map_or_else(|| "not a valid size".to_string(), |s| s.to_string());
                format!(
                    "the descriptor's size [{}] is {} = {product}{}",
                    texts.join(", "),
                    data_extents
                        .iter()
                        .map(|e| e.to_string())
                        .collect::<Vec<_>>()
                        .join(" × "),
                    symbol_values(&syms, &interp)
                )
            }
        };
        return Err(InstanceError::Length {
            array: d.data_name.clone(),
            found: data.len(),
            why,
        });
    }
    if let Some((index, message)) = data.value_type_error(inst.value_type) {
        return Err(InstanceError::ValueType {
            array: d.data_name.clone(),
            index,
            message,
        });
    }
    let values = match data {
        Values::Real(v) => Cow::Borrowed(&v[..]),
        other => Cow::Owned(other.to_reals()),
    };
    let mut env = Env::default();
    env.symbols = interp.symbols;
    for (name, table) in tables {
        env.insert(name, table);
    }
    let work = inst
        .arrays
        .values()
        .map(|v| v.len() as u64)
        .sum::<u64>()
        .saturating_add(1);
    Ok(Concrete {
        env,
        values,
        data_extents,
        work,
        domains,
        interp: OnceCell::new(),
    })
}

/// The row-major position of `p` in an array of the given extents.
fn linear(p: &[i64], extents: &[i64]) -> usize {
    let mut at: i64 = 0;
    for (x, e) in p.iter().zip(extents) {
        at = at * e + x;
    }
    at as usize
}

/// `; "colx" is given: did you mean "col"?` when one of the names `given`
/// (that the format does not declare) is within two edits of `wanted`,
/// the nearest first; else empty.
fn misspelling_hint<'a>(wanted: &str, given: impl Iterator<Item = &'a String>) -> String {
    given
        .map(|g| (strsim::damerau_levenshtein(g, wanted), g))
        .filter(|&(d, g)| d <= 2 && d < wanted.len().max(g.len()))
        .min_by_key(|&(d, _)| d)
        .map(|(_, g)| format!("; \"{g}\" is given: did you mean \"{wanted}\"?"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(e: KeyExpr) -> i128 {
        eval_key(&e, &[7, -3]).unwrap()
    }

    #[test]
    fn key_arithmetic_rounds_toward_negative_infinity() {
        use KeyExpr::*;
        let p = |i| Box::new(Param(i));
        let n = |x| Box::new(Int(x));
        assert_eq!(k(Div(p(0), n(2))), 3);
        assert_eq!(k(Div(p(1), n(2))), -2);
        assert_eq!(k(Rem(p(1), n(2))), 1);
        assert_eq!(k(Rem(p(0), n(-2))), -1);
        assert_eq!(k(Div(p(0), n(-2))), -4);
        assert_eq!(k(Sub(p(0), Box::new(Mul(p(1), n(2))))), 13);
        assert_eq!(k(Neg(p(1))), 3);
        assert!(eval_key(&Div(p(0), n(0)), &[1, 1]).is_err());
        assert_eq!(k(Interleave(vec![Int(0b101), Int(0b011)])), 0b011011);
        assert!(eval_key(&Interleave(vec![Param(1)]), &[7, -3]).is_err());
        // Three 63-bit values do not fit.
        assert!(eval_key(
            &Interleave(vec![Int(i64::MAX), Int(i64::MAX), Int(i64::MAX)]),
            &[]
        )
        .is_err());
        assert!(eval_key(
            &Mul(n(i64::MAX), Box::new(Mul(n(i64::MAX), n(i64::MAX)))),
            &[]
        )
        .is_err());
    }
}
