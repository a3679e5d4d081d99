//! Concrete evaluation: the integer points of a set or relation once the
//! symbolic constants and uninterpreted functions have values.
//!
//! This is the correctness oracle of the library. The algebra treats every
//! UF as an arbitrary *total* function, so an [`Interpretation`] gives each
//! UF a value everywhere: a finite table plus a default ([`UfTable`]). Under
//! any interpretation, every exact operation (simplification, composition,
//! projection, ...) must yield exactly the points that brute force predicts.
//!
//! Enumeration assigns the tuple and existential variables one at a time.
//! At each step it picks an unassigned variable with a finite lower and upper
//! bound, derived from the constraints in which it occurs with a non-zero
//! top-level coefficient (never inside a UF argument) and whose other atoms
//! are already known, intersected with the optional box of [`Bounds`]. Every
//! constraint is checked as soon as all its leaves are known. Existentials are
//! projected away: once the tuple is fixed, one witness suffices.

use std::collections::{BTreeSet, HashMap};

use crate::conjunction::Conjunction;
use crate::constraint::ConstraintKind;
use crate::expr::{Atom, Expr, Var};
use crate::formula::Formula;
use crate::relation::Relation;
use crate::set::Set;

/// A total uninterpreted function: a table on finitely many argument tuples,
/// and a default value everywhere else.
///
/// Keys whose length differs from `arity` are never looked up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UfTable {
    /// The number of arguments.
    pub arity: usize,
    /// The explicitly given values, by argument tuple.
    pub values: HashMap<Vec<i64>, i64>,
    /// The value outside the table.
    pub default: i64,
}

impl UfTable {
    /// The function of `arity` arguments that is `default` everywhere.
    pub fn new(arity: usize, default: i64) -> Self {
        UfTable {
            arity,
            values: HashMap::new(),
            default,
        }
    }

    /// The unary function `f(i) = a[i]` for `0 <= i < a.len()`, `default` elsewhere.
    ///
    /// ```
    /// use iegen::eval::UfTable;
    /// let f = UfTable::from_array(&[0, 2, 5], -1);
    /// assert_eq!(f.get(&[1]), 2);
    /// assert_eq!(f.get(&[3]), -1);
    /// assert_eq!(f.get(&[-1]), -1);
    /// ```
    pub fn from_array(a: &[i64], default: i64) -> Self {
        let mut t = UfTable::new(1, default);
        for (i, v) in (0i64..).zip(a) {
            t.values.insert(vec![i], *v);
        }
        t
    }

    /// Sets the value at `args` (builder style).
    pub fn with_value(mut self, args: Vec<i64>, value: i64) -> Self {
        self.insert(args, value);
        self
    }

    /// Sets the value at `args`.
    pub fn insert(&mut self, args: Vec<i64>, value: i64) {
        self.values.insert(args, value);
    }

    /// The value at `args`: the table entry, or the default.
    pub fn get(&self, args: &[i64]) -> i64 {
        self.values.get(args).copied().unwrap_or(self.default)
    }
}

/// Values for the symbolic constants and the uninterpreted functions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interpretation {
    /// The value of each symbolic constant, by name.
    pub symbols: HashMap<String, i64>,
    /// The table of each uninterpreted function, by name.
    pub ufs: HashMap<String, UfTable>,
}

impl Interpretation {
    /// The empty interpretation (no symbols, no functions).
    pub fn new() -> Self {
        Self::default()
    }

    /// Gives the symbolic constant `name` the value `value` (builder style).
    pub fn with_symbol(mut self, name: impl Into<String>, value: i64) -> Self {
        self.symbols.insert(name.into(), value);
        self
    }

    /// Gives the uninterpreted function `name` the table `table` (builder style).
    pub fn with_uf(mut self, name: impl Into<String>, table: UfTable) -> Self {
        self.ufs.insert(name.into(), table);
        self
    }

    /// The value of the symbolic constant `name`.
    pub fn symbol(&self, name: &str) -> Result<i64, EvalError> {
        self.symbols
            .get(name)
            .copied()
            .ok_or_else(|| EvalError::UnknownSymbol(name.to_string()))
    }

    /// The value of `name(args...)`.
    pub fn call(&self, name: &str, args: &[i64]) -> Result<i64, EvalError> {
        let table = self
            .ufs
            .get(name)
            .ok_or_else(|| EvalError::UnknownUf(name.to_string()))?;
        if table.arity != args.len() {
            return Err(EvalError::UfArity {
                name: name.to_string(),
                expected: table.arity,
                found: args.len(),
            });
        }
        Ok(table.get(args))
    }

    /// Evaluates `e`, with `var` giving the value of each variable.
    ///
    /// Fails on an unknown symbol or UF, a UF called with the wrong number
    /// of arguments, a variable `var` does not know
    /// ([`EvalError::UnassignedVariable`]), or overflow.
    pub fn evaluate(
        &self,
        e: &Expr,
        var: &mut impl FnMut(Var) -> Option<i64>,
    ) -> Result<i64, EvalError> {
        let mut unknown = None;
        match self.try_evaluate(e, &mut |v| {
            let x = var(v);
            if x.is_none() {
                unknown = Some(v);
            }
            x
        })? {
            Some(x) => Ok(x),
            None => Err(EvalError::UnassignedVariable(
                unknown.map(|v| v.to_string()).unwrap_or_default(),
            )),
        }
    }

    /// Evaluates `e`; `Ok(None)` when `var` does not know some variable.
    fn try_evaluate(
        &self,
        e: &Expr,
        var: &mut impl FnMut(Var) -> Option<i64>,
    ) -> Result<Option<i64>, EvalError> {
        let mut unknown_var = false;
        let mut sym_error = None;
        let mut call_error = None;
        let value = e.evaluate(
            &mut |v| {
                let x = var(v);
                if x.is_none() {
                    unknown_var = true;
                }
                x
            },
            &mut |s| match self.symbol(s) {
                Ok(x) => Some(x),
                Err(err) => {
                    sym_error = Some(err);
                    None
                }
            },
            &mut |name, args| match self.call(name, args) {
                Ok(x) => Some(x),
                Err(err) => {
                    call_error = Some(err);
                    None
                }
            },
        );
        match (value, sym_error.or(call_error)) {
            (Some(x), _) => Ok(Some(x)),
            (None, Some(err)) => Err(err),
            (None, None) if unknown_var => Ok(None),
            (None, None) => Err(EvalError::Overflow),
        }
    }

    /// Checks that every symbol and UF of `c` is known, with the right arity.
    fn check_conjunction(&self, c: &Conjunction) -> Result<(), EvalError> {
        for k in c.constraints() {
            let mut error = None;
            k.expr().for_each_sym(&mut |s| {
                if error.is_none() {
                    error = self.symbol(s).err();
                }
            });
            k.expr().for_each_call(&mut |name, args| {
                if error.is_some() {
                    return;
                }
                match self.ufs.get(name) {
                    None => error = Some(EvalError::UnknownUf(name.to_string())),
                    Some(t) if t.arity != args.len() => {
                        error = Some(EvalError::UfArity {
                            name: name.to_string(),
                            expected: t.arity,
                            found: args.len(),
                        })
                    }
                    Some(_) => {}
                }
            });
            if let Some(err) = error {
                return Err(err);
            }
        }
        Ok(())
    }
}

/// Limits of an enumeration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// When set, every tuple and existential variable ranges over
    /// `lo..=hi` only. Without it, each variable needs finite bounds from
    /// the constraints.
    pub box_: Option<(i64, i64)>,
    /// The largest number of distinct points (tuples) a result may have;
    /// one more is [`EvalError::TooManyPoints`].
    pub max_points: usize,
    /// The largest number of values tried for variables during the search;
    /// one more is [`EvalError::TooManySteps`]. Guards against searches
    /// that would take too long although they find few points.
    pub max_steps: u64,
}

impl Default for Bounds {
    /// No box, at most a million points and a hundred million steps.
    fn default() -> Self {
        Bounds {
            box_: None,
            max_points: 1_000_000,
            max_steps: 100_000_000,
        }
    }
}

impl Bounds {
    /// Default limits, with every variable restricted to `lo..=hi`.
    pub fn boxed(lo: i64, hi: i64) -> Self {
        Bounds {
            box_: Some((lo, hi)),
            ..Bounds::default()
        }
    }

    /// Default limits and no box: every variable must be bounded by the constraints.
    pub fn unboxed() -> Self {
        Bounds::default()
    }
}

/// Why an enumeration failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// A variable has no finite lower or upper bound and no box was given.
    #[error("{var} has no finite bound; give the enumeration a box")]
    Unbounded {
        /// Which variable, e.g. "tuple variable `i` (position 0)".
        var: String,
    },
    /// An intermediate value does not fit in an `i64`.
    #[error("integer overflow during evaluation")]
    Overflow,
    /// A symbolic constant the interpretation does not define.
    #[error("unknown symbolic constant `{0}`")]
    UnknownSymbol(String),
    /// An uninterpreted function the interpretation does not define.
    #[error("unknown uninterpreted function `{0}`")]
    UnknownUf(String),
    /// An uninterpreted function called with the wrong number of arguments.
    #[error("`{name}` takes {expected} argument(s) but is called with {found}")]
    UfArity {
        /// The function.
        name: String,
        /// Its arity in the interpretation.
        expected: usize,
        /// The number of arguments of the call.
        found: usize,
    },
    /// The result has more than [`Bounds::max_points`] points.
    #[error("more than {limit} points")]
    TooManyPoints {
        /// The limit that was exceeded.
        limit: usize,
    },
    /// The search tried more than [`Bounds::max_steps`] values.
    #[error("the search tried more than {limit} values")]
    TooManySteps {
        /// The limit that was exceeded.
        limit: u64,
    },
    /// A point whose length is not the tuple arity.
    #[error("a point of {found} coordinate(s) given for a tuple of arity {expected}")]
    PointArity {
        /// The tuple arity.
        expected: usize,
        /// The length of the point.
        found: usize,
    },
    /// An expression mentions a variable that has no value (or, in a
    /// conjunction, a variable beyond its tuple and existentials).
    #[error("variable {0} has no value")]
    UnassignedVariable(String),
}

/// How early a variable is assigned: (not forced, not a generator, range size).
type Rank = (bool, bool, u128);

/// The range of values a variable may take at some point of the search.
enum Range {
    /// No value works.
    Empty,
    /// `lo..=hi`.
    Finite(i64, i64),
    /// Some side has no bound.
    Unbounded,
}

/// What the search does next.
enum Choice {
    /// Every variable is assigned (and every constraint holds).
    Complete,
    /// Some variable has no possible value: backtrack.
    Dead,
    /// Try each value `lo..=hi` for the variable in `slot`.
    Assign(usize, i64, i64),
}

/// The backtracking search over the variables of one conjunction.
struct Search<'a> {
    conj: &'a Conjunction,
    interp: &'a Interpretation,
    bounds: &'a Bounds,
    /// Number of tuple variables; slots `0..n_tuple` are the tuple, the rest existentials.
    n_tuple: usize,
    /// The current partial assignment, by slot.
    values: Vec<Option<i64>>,
    /// For each slot, the indices of the constraints mentioning it.
    by_slot: Vec<Vec<usize>>,
    /// The constraints, indexed.
    constraints: Vec<(ConstraintKind, &'a Expr)>,
    /// Values tried so far, shared by all conjunctions of one enumeration.
    steps: &'a mut u64,
}

impl<'a> Search<'a> {
    fn new(
        conj: &'a Conjunction,
        interp: &'a Interpretation,
        bounds: &'a Bounds,
        steps: &'a mut u64,
    ) -> Result<Self, EvalError> {
        interp.check_conjunction(conj)?;
        let n_tuple = conj.arity();
        let n_slots = n_tuple + conj.num_exists();
        let mut by_slot = vec![Vec::new(); n_slots];
        let mut constraints = Vec::new();
        for (i, k) in conj.constraints().enumerate() {
            let mut slots = Vec::new();
            let mut bad = None;
            k.expr()
                .for_each_var(&mut |v| match slot_of(n_tuple, n_slots, v) {
                    Some(s) => slots.push(s),
                    None => bad = Some(v),
                });
            if let Some(v) = bad {
                return Err(EvalError::UnassignedVariable(v.to_string()));
            }
            slots.sort_unstable();
            slots.dedup();
            for s in slots {
                by_slot[s].push(i);
            }
            constraints.push((k.kind(), k.expr()));
        }
        Ok(Search {
            conj,
            interp,
            bounds,
            n_tuple,
            values: vec![None; n_slots],
            by_slot,
            constraints,
            steps,
        })
    }

    fn var_of(&self, slot: usize) -> Var {
        if slot < self.n_tuple {
            Var::Tuple(slot)
        } else {
            Var::Exist(slot - self.n_tuple)
        }
    }

    fn describe(&self, slot: usize) -> String {
        if slot < self.n_tuple {
            let name = self
                .conj
                .tuple_names()
                .get(slot)
                .map_or("?", |s| s.as_str());
            format!("tuple variable `{name}` (position {slot})")
        } else {
            let j = slot - self.n_tuple;
            let name = self.conj.exist_names().get(j).map_or("?", |s| s.as_str());
            format!("existential variable `{name}`")
        }
    }

    /// Evaluates a UF argument under the current assignment (in `i64`, as
    /// UF arguments are machine integers); `Ok(None)` when some variable is
    /// unassigned.
    fn eval_arg(&self, e: &Expr) -> Result<Option<i64>, EvalError> {
        let (n_tuple, n_slots) = (self.n_tuple, self.values.len());
        self.interp
            .try_evaluate(e, &mut |v| self.values[slot_of(n_tuple, n_slots, v)?])
    }

    /// The exact value of the top level of `e` under the current assignment,
    /// with the top-level occurrence of `skip` left out; `Ok(None)` when some
    /// variable is unassigned. The top-level sum is computed in `i128`, so
    /// it is exact even where an `i64` would overflow.
    fn eval_top(&self, e: &Expr, skip: Option<Var>) -> Result<Option<i128>, EvalError> {
        let (n_tuple, n_slots) = (self.n_tuple, self.values.len());
        let mut acc = i128::from(e.constant_term());
        for (atom, c) in e.terms() {
            let x = match atom {
                Atom::Var(v) if Some(*v) == skip => continue,
                Atom::Var(v) => match slot_of(n_tuple, n_slots, *v).and_then(|s| self.values[s]) {
                    Some(x) => x,
                    None => return Ok(None),
                },
                Atom::Sym(name) => self.interp.symbol(name)?,
                Atom::Uf(name, args) => {
                    let mut vals = Vec::with_capacity(args.len());
                    for a in args {
                        match self.eval_arg(a)? {
                            Some(x) => vals.push(x),
                            None => return Ok(None),
                        }
                    }
                    self.interp.call(name, &vals)?
                }
                Atom::Div(x, m) => match self.eval_arg(x)? {
                    Some(x) => x.div_euclid(*m),
                    None => return Ok(None),
                },
            };
            acc = acc
                .checked_add(i128::from(c) * i128::from(x))
                .ok_or(EvalError::Overflow)?;
        }
        Ok(Some(acc))
    }

    /// Whether constraint `i` is known to be violated.
    fn violated(&self, i: usize) -> Result<bool, EvalError> {
        let (kind, e) = self.constraints[i];
        Ok(match self.eval_top(e, None)? {
            None => false,
            Some(x) => match kind {
                ConstraintKind::Eq => x != 0,
                ConstraintKind::Geq => x < 0,
            },
        })
    }

    /// Whether every constraint mentioning `slot` that is now fully known holds.
    fn consistent_after(&self, slot: usize) -> Result<bool, EvalError> {
        for &i in &self.by_slot[slot] {
            if self.violated(i)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether every constraint that is already fully known holds.
    fn consistent_now(&self) -> Result<bool, EvalError> {
        for i in 0..self.constraints.len() {
            if self.violated(i)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The values `slot` may take given the known atoms and the box.
    fn range(&self, slot: usize) -> Result<Range, EvalError> {
        let v = self.var_of(slot);
        let (mut lo, mut hi): (Option<i128>, Option<i128>) = match self.bounds.box_ {
            Some((l, h)) => (Some(l.into()), Some(h.into())),
            None => (None, None),
        };
        for &i in &self.by_slot[slot] {
            let (kind, e) = self.constraints[i];
            let a = i128::from(e.coefficient_of_var(v));
            if a == 0 || e.mentions_in_uf_args(v) {
                continue;
            }
            // a·v + r (op) 0, with r the rest of the expression.
            let Some(r) = self.eval_top(e, Some(v))? else {
                continue;
            };
            match kind {
                ConstraintKind::Eq => {
                    if r % a != 0 {
                        return Ok(Range::Empty);
                    }
                    let x = -r / a;
                    lo = Some(lo.map_or(x, |l| l.max(x)));
                    hi = Some(hi.map_or(x, |h| h.min(x)));
                }
                ConstraintKind::Geq if a > 0 => {
                    // v >= ceil(-r / a)
                    let x = -(r.div_euclid(a));
                    lo = Some(lo.map_or(x, |l| l.max(x)));
                }
                ConstraintKind::Geq => {
                    // (-a)·v <= r  =>  v <= floor(r / -a)
                    let x = r.div_euclid(-a);
                    hi = Some(hi.map_or(x, |h| h.min(x)));
                }
            }
        }
        Ok(match (lo, hi) {
            (Some(l), Some(h)) => {
                if l > h {
                    Range::Empty
                } else {
                    // Without a box, the bounds may leave the `i64` range.
                    match (i64::try_from(l), i64::try_from(h)) {
                        (Ok(l), Ok(h)) => Range::Finite(l, h),
                        _ => return Err(EvalError::Overflow),
                    }
                }
            }
            _ => Range::Unbounded,
        })
    }

    /// Whether assigning `slot` determines another unassigned variable: some
    /// equality passes `slot` to a UF and has the other variable at its top
    /// level (`ii = row(n)` makes `n` a generator of `ii`).
    fn generates(&self, slot: usize) -> bool {
        let v = self.var_of(slot);
        self.by_slot[slot].iter().any(|&i| {
            let (kind, e) = self.constraints[i];
            kind == ConstraintKind::Eq
                && e.mentions_in_uf_args(v)
                && (0..self.values.len()).any(|w| {
                    w != slot
                        && self.values[w].is_none()
                        && e.coefficient_of_var(self.var_of(w)) != 0
                })
        })
    }

    /// The next variable to assign: a forced one (a single value) first,
    /// then one that determines others through a UF equality (so that
    /// `{[n, i] : i = row(n) && 0 <= i < NR && 0 <= n < NNZ}` enumerates `n`
    /// and reads `i` off it instead of trying every `(i, n)` pair), then the
    /// one with the smallest finite range.
    fn choose(&self) -> Result<Choice, EvalError> {
        // (rank, slot, lo, hi); lower ranks first: forced, generators, size.
        let mut best: Option<(Rank, usize, i64, i64)> = None;
        let mut unbounded = None;
        for slot in 0..self.values.len() {
            if self.values[slot].is_some() {
                continue;
            }
            match self.range(slot)? {
                Range::Empty => return Ok(Choice::Dead),
                Range::Unbounded => {
                    unbounded.get_or_insert(slot);
                }
                Range::Finite(l, h) => {
                    let size = (i128::from(h) - i128::from(l)).unsigned_abs();
                    // Lower ranks first: forced, then generators, then size.
                    let rank = (size != 0, !self.generates(slot), size);
                    if best.is_none_or(|(b, ..)| rank < b) {
                        best = Some((rank, slot, l, h));
                    }
                }
            }
        }
        match (best, unbounded) {
            (Some((_, slot, l, h)), _) => Ok(Choice::Assign(slot, l, h)),
            (None, Some(slot)) => Err(EvalError::Unbounded {
                var: self.describe(slot),
            }),
            (None, None) => Ok(Choice::Complete),
        }
    }

    fn tuple_if_assigned(&self) -> Option<Vec<i64>> {
        self.values[..self.n_tuple].iter().copied().collect()
    }

    /// Searches the assignments extending the current one. In witness mode
    /// (the tuple is fixed) it stops at the first complete assignment;
    /// otherwise it adds every tuple that has a witness to `out`. Returns
    /// whether some complete assignment was found.
    fn search(&mut self, witness: bool, out: &mut BTreeSet<Vec<i64>>) -> Result<bool, EvalError> {
        if !witness {
            if let Some(tuple) = self.tuple_if_assigned() {
                if out.contains(&tuple) {
                    return Ok(true);
                }
                let found = self.search(true, out)?;
                if found {
                    out.insert(tuple);
                    if out.len() > self.bounds.max_points {
                        return Err(EvalError::TooManyPoints {
                            limit: self.bounds.max_points,
                        });
                    }
                }
                return Ok(found);
            }
        }
        let (slot, lo, hi) = match self.choose()? {
            Choice::Complete => return Ok(true),
            Choice::Dead => return Ok(false),
            Choice::Assign(slot, lo, hi) => (slot, lo, hi),
        };
        let mut any = false;
        let mut x = lo;
        loop {
            *self.steps += 1;
            if *self.steps > self.bounds.max_steps {
                return Err(EvalError::TooManySteps {
                    limit: self.bounds.max_steps,
                });
            }
            self.values[slot] = Some(x);
            if self.consistent_after(slot)? && self.search(witness, out)? {
                any = true;
                if witness {
                    break;
                }
            }
            if x == hi {
                break;
            }
            x += 1;
        }
        self.values[slot] = None;
        Ok(any)
    }
}

fn slot_of(n_tuple: usize, n_slots: usize, v: Var) -> Option<usize> {
    let s = match v {
        Var::Tuple(i) if i < n_tuple => i,
        Var::Tuple(_) => return None,
        Var::Exist(j) => n_tuple.checked_add(j)?,
    };
    (s < n_slots).then_some(s)
}

/// Adds the points of one conjunction to `out`.
fn enumerate_into(
    c: &Conjunction,
    interp: &Interpretation,
    bounds: &Bounds,
    steps: &mut u64,
    out: &mut BTreeSet<Vec<i64>>,
) -> Result<(), EvalError> {
    let mut search = Search::new(c, interp, bounds, steps)?;
    if search.consistent_now()? {
        search.search(false, out)?;
    }
    Ok(())
}

/// The points of one conjunction: the tuples for which some integer values
/// of the existentials satisfy every constraint.
pub fn enumerate_conjunction(
    c: &Conjunction,
    interp: &Interpretation,
    bounds: &Bounds,
) -> Result<BTreeSet<Vec<i64>>, EvalError> {
    let mut out = BTreeSet::new();
    let mut steps = 0;
    enumerate_into(c, interp, bounds, &mut steps, &mut out)?;
    Ok(out)
}

/// The points of a union of conjunctions (the limits of `bounds` apply to
/// the whole union).
pub fn enumerate_formula(
    f: &Formula,
    interp: &Interpretation,
    bounds: &Bounds,
) -> Result<BTreeSet<Vec<i64>>, EvalError> {
    let mut out = BTreeSet::new();
    let mut steps = 0;
    for c in f.conjunctions() {
        enumerate_into(c, interp, bounds, &mut steps, &mut out)?;
    }
    Ok(out)
}

/// The points of a set under an interpretation.
///
/// ```
/// use iegen::eval::{enumerate_set, Bounds, Interpretation, UfTable};
/// use iegen::Set;
///
/// // CSR rows: k ranges over rowptr(i)..rowptr(i+1); the column is col(k).
/// let s: Set = "{[i, j] : exists k : 0 <= i < N && rowptr(i) <= k < rowptr(i + 1) \
///                && j = col(k)}"
///     .parse()
///     .unwrap();
/// let interp = Interpretation::new()
///     .with_symbol("N", 3)
///     .with_uf("rowptr", UfTable::from_array(&[0, 2, 2, 3], 0))
///     .with_uf("col", UfTable::from_array(&[1, 4, 0], 0));
/// let points = enumerate_set(&s, &interp, &Bounds::unboxed()).unwrap();
/// let expected: Vec<Vec<i64>> = vec![vec![0, 1], vec![0, 4], vec![2, 0]];
/// assert_eq!(points.into_iter().collect::<Vec<_>>(), expected);
///
/// // Without the bound on i, enumeration needs a box.
/// let open: Set = "{[i] : i >= 0}".parse().unwrap();
/// assert!(enumerate_set(&open, &interp, &Bounds::unboxed()).is_err());
/// assert_eq!(enumerate_set(&open, &interp, &Bounds::boxed(-5, 2)).unwrap().len(), 3);
/// ```
pub fn enumerate_set(
    s: &Set,
    interp: &Interpretation,
    bounds: &Bounds,
) -> Result<BTreeSet<Vec<i64>>, EvalError> {
    enumerate_formula(s.formula(), interp, bounds)
}

/// The points of a relation: `(input, output)` pairs, in order.
pub type Pairs = BTreeSet<(Vec<i64>, Vec<i64>)>;

/// The pairs `(input, output)` of a relation under an interpretation.
pub fn enumerate_relation(
    r: &Relation,
    interp: &Interpretation,
    bounds: &Bounds,
) -> Result<Pairs, EvalError> {
    let n = r.in_arity();
    Ok(enumerate_formula(r.formula(), interp, bounds)?
        .into_iter()
        .map(|mut t| {
            let out = t.split_off(n);
            (t, out)
        })
        .collect())
}

/// Whether `point` belongs to the union `f` under the interpretation (some
/// values of the existentials of some conjunction satisfy its constraints).
pub fn formula_contains(
    f: &Formula,
    point: &[i64],
    interp: &Interpretation,
    bounds: &Bounds,
) -> Result<bool, EvalError> {
    if point.len() != f.arity() {
        return Err(EvalError::PointArity {
            expected: f.arity(),
            found: point.len(),
        });
    }
    let mut steps = 0;
    let mut scratch = BTreeSet::new();
    for c in f.conjunctions() {
        let mut search = Search::new(c, interp, bounds, &mut steps)?;
        for (slot, x) in point.iter().enumerate() {
            search.values[slot] = Some(*x);
        }
        if search.consistent_now()? && search.search(true, &mut scratch)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether `point` belongs to the set under the interpretation.
pub fn set_contains(
    s: &Set,
    point: &[i64],
    interp: &Interpretation,
    bounds: &Bounds,
) -> Result<bool, EvalError> {
    formula_contains(s.formula(), point, interp, bounds)
}

/// Whether `input -> output` belongs to the relation under the interpretation.
pub fn relation_contains(
    r: &Relation,
    input: &[i64],
    output: &[i64],
    interp: &Interpretation,
    bounds: &Bounds,
) -> Result<bool, EvalError> {
    if input.len() != r.in_arity() {
        return Err(EvalError::PointArity {
            expected: r.in_arity(),
            found: input.len(),
        });
    }
    let point: Vec<i64> = input.iter().chain(output).copied().collect();
    formula_contains(r.formula(), &point, interp, bounds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraint::{Constraint, Normalized};

    use crate::expr::shorthand::{e, n, t};

    fn conj(arity: usize, exists: usize, cs: Vec<Normalized>) -> Conjunction {
        Conjunction::from_parts(
            (0..arity).map(|i| format!("t{i}")).collect(),
            (0..exists).map(|i| format!("e{i}")).collect(),
            cs,
        )
        .expect("satisfiable constraints")
    }

    fn set(arity: usize, conjs: Vec<Conjunction>) -> Set {
        Set::from_formula(Formula::from_conjunctions(arity, conjs))
    }

    fn points(v: &[&[i64]]) -> BTreeSet<Vec<i64>> {
        v.iter().map(|p| p.to_vec()).collect()
    }

    #[test]
    fn eval_bounds_from_symbols() {
        // {[i] : 0 <= i < N}
        let s = set(
            1,
            vec![conj(
                1,
                0,
                vec![
                    Constraint::le(&n(0), &t(0)),
                    Constraint::lt(&t(0), &Expr::sym("N")),
                ],
            )],
        );
        let i = Interpretation::new().with_symbol("N", 4);
        let p = enumerate_set(&s, &i, &Bounds::unboxed()).unwrap();
        assert_eq!(p, points(&[&[0], &[1], &[2], &[3]]));
    }

    #[test]
    fn eval_existentials_are_projected_and_divisibility_respected() {
        // {[i] : exists k : i = 2k && 0 <= k <= 3 && 0 <= i <= 4}
        let s = set(
            1,
            vec![conj(
                1,
                1,
                vec![
                    Constraint::equal(&t(0), &e(0).scale(2)),
                    Constraint::le(&n(0), &e(0)),
                    Constraint::le(&e(0), &n(3)),
                    Constraint::le(&n(0), &t(0)),
                    Constraint::le(&t(0), &n(4)),
                ],
            )],
        );
        let p = enumerate_set(&s, &Interpretation::new(), &Bounds::unboxed()).unwrap();
        assert_eq!(p, points(&[&[0], &[2], &[4]]));
        // {[i] : exists k, m : i = k + m && 0 <= k,m <= 1}: 1 has two witnesses.
        let s = set(
            1,
            vec![conj(
                1,
                2,
                vec![
                    Constraint::equal(&t(0), &e(0).plus(&e(1))),
                    Constraint::le(&n(0), &e(0)),
                    Constraint::le(&e(0), &n(1)),
                    Constraint::le(&n(0), &e(1)),
                    Constraint::le(&e(1), &n(1)),
                ],
            )],
        );
        let p = enumerate_set(&s, &Interpretation::new(), &Bounds::unboxed()).unwrap();
        assert_eq!(p, points(&[&[0], &[1], &[2]]));
    }

    #[test]
    fn eval_csr_rows_with_uf_bounds() {
        // {[i, k] : 0 <= i < N && rowptr(i) <= k < rowptr(i + 1)}
        let rowptr = |x: Expr| Expr::call("rowptr", vec![x]);
        let s = set(
            2,
            vec![conj(
                2,
                0,
                vec![
                    Constraint::le(&n(0), &t(0)),
                    Constraint::lt(&t(0), &Expr::sym("N")),
                    Constraint::le(&rowptr(t(0)), &t(1)),
                    Constraint::lt(&t(1), &rowptr(t(0).plus(&n(1)))),
                ],
            )],
        );
        let i = Interpretation::new()
            .with_symbol("N", 3)
            .with_uf("rowptr", UfTable::from_array(&[0, 2, 2, 3], 0));
        let p = enumerate_set(&s, &i, &Bounds::unboxed()).unwrap();
        assert_eq!(p, points(&[&[0, 0], &[0, 1], &[2, 2]]));
        assert!(set_contains(&s, &[0, 1], &i, &Bounds::unboxed()).unwrap());
        assert!(!set_contains(&s, &[1, 2], &i, &Bounds::unboxed()).unwrap());
    }

    #[test]
    fn eval_nested_calls_and_existential_inside_uf_argument() {
        // {[j] : exists k : 0 <= k < 3 && j = f(g(k) + 1)}
        let s = set(
            1,
            vec![conj(
                1,
                1,
                vec![
                    Constraint::le(&n(0), &e(0)),
                    Constraint::lt(&e(0), &n(3)),
                    Constraint::equal(
                        &t(0),
                        &Expr::call("f", vec![Expr::call("g", vec![e(0)]).plus(&n(1))]),
                    ),
                ],
            )],
        );
        let i = Interpretation::new()
            .with_uf("g", UfTable::from_array(&[2, 0, 2], 5))
            .with_uf("f", UfTable::from_array(&[10, 11, 12, 13], -1));
        let p = enumerate_set(&s, &i, &Bounds::unboxed()).unwrap();
        assert_eq!(p, points(&[&[11], &[13]]));
    }

    #[test]
    fn eval_unbounded_needs_a_box() {
        // {[i] : i >= 0}
        let s = set(1, vec![conj(1, 0, vec![Constraint::le(&n(0), &t(0))])]);
        let err = enumerate_set(&s, &Interpretation::new(), &Bounds::unboxed()).unwrap_err();
        assert!(matches!(err, EvalError::Unbounded { ref var } if var.contains("`t0`")));
        let p = enumerate_set(&s, &Interpretation::new(), &Bounds::boxed(-2, 2)).unwrap();
        assert_eq!(p, points(&[&[0], &[1], &[2]]));
    }

    #[test]
    fn eval_relation_pairs() {
        // {[i] -> [j] : j = i + 1 && 0 <= i < 2}
        let c = conj(
            2,
            0,
            vec![
                Constraint::equal(&t(1), &t(0).plus(&n(1))),
                Constraint::le(&n(0), &t(0)),
                Constraint::lt(&t(0), &n(2)),
            ],
        );
        let r = Relation::from_formula(1, Formula::from_conjunctions(2, vec![c]));
        let p = enumerate_relation(&r, &Interpretation::new(), &Bounds::unboxed()).unwrap();
        let expected: BTreeSet<_> = [(vec![0], vec![1]), (vec![1], vec![2])].into();
        assert_eq!(p, expected);
        let i = Interpretation::new();
        assert!(relation_contains(&r, &[1], &[2], &i, &Bounds::unboxed()).unwrap());
        assert!(!relation_contains(&r, &[1], &[1], &i, &Bounds::unboxed()).unwrap());
    }

    #[test]
    fn eval_errors() {
        let s = set(
            1,
            vec![conj(
                1,
                0,
                vec![Constraint::equal(
                    &t(0),
                    &Expr::call("f", vec![Expr::sym("N")]),
                )],
            )],
        );
        let b = Bounds::boxed(-5, 5);
        assert_eq!(
            enumerate_set(&s, &Interpretation::new(), &b),
            Err(EvalError::UnknownSymbol("N".into()))
        );
        let i = Interpretation::new().with_symbol("N", 0);
        assert_eq!(
            enumerate_set(&s, &i, &b),
            Err(EvalError::UnknownUf("f".into()))
        );
        let i = i.with_uf("f", UfTable::new(2, 0));
        assert!(matches!(
            enumerate_set(&s, &i, &b),
            Err(EvalError::UfArity {
                expected: 2,
                found: 1,
                ..
            })
        ));
        // Overflow: {[i] : i = 2 * BIG} with BIG = i64::MAX has its point
        // beyond i64; inside a box it is simply outside.
        let s = set(
            1,
            vec![conj(
                1,
                0,
                vec![Constraint::equal(&t(0), &Expr::sym("BIG").scale(2))],
            )],
        );
        let big = Interpretation::new().with_symbol("BIG", i64::MAX);
        assert_eq!(
            enumerate_set(&s, &big, &Bounds::unboxed()),
            Err(EvalError::Overflow)
        );
        assert!(enumerate_set(&s, &big, &b).unwrap().is_empty());
        // A UF argument that does not fit: {[i] : i = f(2 * BIG)}.
        let s = set(
            1,
            vec![conj(
                1,
                0,
                vec![Constraint::equal(
                    &t(0),
                    &Expr::call("f", vec![Expr::sym("BIG").scale(2)]),
                )],
            )],
        );
        let big = big.with_uf("f", UfTable::new(1, 0));
        assert_eq!(enumerate_set(&s, &big, &b), Err(EvalError::Overflow));
        // Too many points.
        let s = Set::universe(2);
        let limited = Bounds {
            max_points: 10,
            ..Bounds::boxed(0, 9)
        };
        assert_eq!(
            enumerate_set(&s, &Interpretation::new(), &limited),
            Err(EvalError::TooManyPoints { limit: 10 })
        );
        let limited = Bounds {
            max_steps: 50,
            ..Bounds::boxed(0, 9)
        };
        assert_eq!(
            enumerate_set(&s, &Interpretation::new(), &limited),
            Err(EvalError::TooManySteps { limit: 50 })
        );
        assert_eq!(
            set_contains(&s, &[1], &Interpretation::new(), &Bounds::boxed(0, 1)),
            Err(EvalError::PointArity {
                expected: 2,
                found: 1
            })
        );
    }

    #[test]
    fn eval_extreme_values_do_not_panic() {
        // {[i] : i >= BIG} boxed at the top of the i64 range.
        let s = set(
            1,
            vec![conj(1, 0, vec![Constraint::le(&Expr::sym("BIG"), &t(0))])],
        );
        let i = Interpretation::new().with_symbol("BIG", i64::MAX);
        let p = enumerate_set(&s, &i, &Bounds::boxed(i64::MAX - 1, i64::MAX)).unwrap();
        assert_eq!(p, points(&[&[i64::MAX]]));
        let i = Interpretation::new().with_symbol("BIG", i64::MIN + 1);
        let p = enumerate_set(&s, &i, &Bounds::boxed(i64::MIN, i64::MIN + 2)).unwrap();
        assert_eq!(p, points(&[&[i64::MIN + 1], &[i64::MIN + 2]]));
        // -BIG does not fit in an i64, but the top-level sum is exact.
        let i = Interpretation::new().with_symbol("BIG", i64::MIN);
        let p = enumerate_set(&s, &i, &Bounds::boxed(0, 1)).unwrap();
        assert_eq!(p, points(&[&[0], &[1]]));
        // An empty box.
        let p = enumerate_set(&s, &i, &Bounds::boxed(1, 0)).unwrap();
        assert!(p.is_empty());
    }

    #[test]
    fn eval_constant_constraints_and_empty_union() {
        // {[i] : N >= 2 && 0 <= i <= 1}
        let s = set(
            1,
            vec![conj(
                1,
                0,
                vec![
                    Constraint::le(&n(2), &Expr::sym("N")),
                    Constraint::le(&n(0), &t(0)),
                    Constraint::le(&t(0), &n(1)),
                ],
            )],
        );
        let b = Bounds::unboxed();
        let p = enumerate_set(&s, &Interpretation::new().with_symbol("N", 1), &b).unwrap();
        assert!(p.is_empty());
        let p = enumerate_set(&s, &Interpretation::new().with_symbol("N", 2), &b).unwrap();
        assert_eq!(p, points(&[&[0], &[1]]));
        assert!(enumerate_set(&Set::empty(3), &Interpretation::new(), &b)
            .unwrap()
            .is_empty());
        // The universe of arity 0 has exactly one point, the empty tuple.
        assert_eq!(
            enumerate_set(&Set::universe(0), &Interpretation::new(), &b).unwrap(),
            points(&[&[]])
        );
    }
}
