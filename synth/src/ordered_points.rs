//! Enumeration of the points of one conjunction in the order of its tuple.
//!
//! [`iegen::eval`] assigns next the variable with the *smallest* finite
//! range. On a sparse-to-dense map that is the wrong choice: in COO's
//! `{[n, ii, jj] -> [i, j] : ii = row(n) && ... && 0 <= i < NR && 0 <= j < NC}`
//! it tries every `i` and every `j` before `n` (NR · NC · NNZ steps for NNZ
//! points), and in CSR with more rows than nonzeros it tries every row for
//! every position. The tuple of a descriptor's sparse iteration space is
//! written in loop order (`[ii, k, jj]`: rows, then positions, then the
//! column they define), and so are the variables of its rules, so this
//! search assigns next the *first* variable in tuple order that has finite
//! bounds from the constraints whose other atoms are known (falling back to
//! later variables, then to existentials, which are searched for one
//! witness per tuple). The values come from the same [`Interpretation`](iegen::eval::Interpretation) as
//! `iegen::eval`'s, and the result is the same set of points, sorted.

use std::ops::ControlFlow;

use iegen::{Atom, Conjunction, ConstraintKind, EvalError, Expr, Var};

use crate::compiled_expr::{CExpr, Env, Slot};

/// Limits of a search.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// At most this many points; one more is `TooManyPoints`.
    pub max_points: usize,
    /// At most this many values tried; one more is `TooManySteps`.
    pub max_steps: u64,
    /// About how many points to expect (room is made for them at
    /// once, when the allocator gives it, instead of growing by
    /// copies); 0 when unknown.
    pub expected: usize,
}

impl From<iegen::Bounds> for Limits {
    fn from(b: iegen::Bounds) -> Self {
        Limits {
            max_points: b.max_points,
            max_steps: b.max_steps,
            expected: 0,
        }
    }
}

/// Points of one arity, flat: point `k` is `data[k * arity ..][.. arity]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Points {
    pub arity: usize,
    pub data: Vec<i64>,
    /// The number of points (also right when `arity` is 0).
    pub len: usize,
}

impl Points {
    pub(crate) fn new(arity: usize) -> Points {
        Points {
            arity,
            data: Vec::new(),
            len: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn get(&self, k: usize) -> &[i64] {
        &self.data[k * self.arity..(k + 1) * self.arity]
    }

    pub(crate) fn push(&mut self, p: &[i64]) {
        debug_assert_eq!(p.len(), self.arity);
        self.data.extend_from_slice(p);
        self.len += 1;
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &[i64]> + '_ {
        (0..self.len).map(move |k| self.get(k))
    }

    /// Appends the points of `other` (of the same arity).
    pub(crate) fn append(&mut self, other: &Points) {
        self.data.extend_from_slice(&other.data);
        self.len += other.len;
    }

    /// Sorts lexicographically and removes repeated points (a no-op,
    /// after one pass, when they already are).
    pub(crate) fn sort_dedup(&mut self) {
        let n = self.arity;
        if n == 0 {
            self.len = self.len.min(1);
            return;
        }
        if (1..self.len).all(|k| self.get(k - 1) < self.get(k)) {
            return;
        }
        let mut order: Vec<usize> = (0..self.len).collect();
        order.sort_unstable_by(|&a, &b| self.get(a).cmp(self.get(b)));
        order.dedup_by(|a, b| self.get(*a) == self.get(*b));
        let mut data = Vec::with_capacity(order.len() * n);
        for &k in &order {
            data.extend_from_slice(self.get(k));
        }
        self.data = data;
        self.len = order.len();
    }

    /// The points as vectors (tests).
    #[cfg(test)]
    pub(crate) fn to_vecs(&self) -> Vec<Vec<i64>> {
        self.iter().map(|p| p.to_vec()).collect()
    }
}

/// A constraint, and for each variable it bounds: the coefficient and
/// the rest of the expression.
struct Bound {
    kind: ConstraintKind,
    coefficient: i64,
    rest: CExpr,
    /// The slots `rest` mentions.
    needs: Vec<usize>,
}

/// What a streamed enumeration ([`points_in_order`]) did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Streamed {
    /// Every point was handed over, in increasing order, once.
    Done,
    /// The visitor asked to stop.
    Stopped,
    /// A point came that was not greater than the one before (the
    /// search order is not the points' order here): the caller
    /// enumerates with [`points`] instead.
    Unordered,
}

/// Why a search ended early.
enum Abort {
    Eval(EvalError),
    Stream(Streamed),
}

impl From<EvalError> for Abort {
    fn from(e: EvalError) -> Abort {
        Abort::Eval(e)
    }
}

/// A visitor of streamed points.
type Visitor<'v> = &'v mut dyn FnMut(&[i64]) -> ControlFlow<()>;

struct Search<'a, 'v> {
    env: &'a Env<'a>,
    limits: Limits,
    n_tuple: usize,
    values: Vec<Option<i64>>,
    /// Slots defined by an equality and substituted away, with their
    /// definition over the remaining slots.
    defined: Vec<Option<CExpr>>,
    /// Constraints, with the slots each mentions.
    constraints: Vec<(ConstraintKind, CExpr, Vec<usize>)>,
    /// For each slot, the constraints that mention it other than as
    /// one of its bounds.
    by_slot: Vec<Vec<usize>>,
    bounds: Vec<Vec<Bound>>,
    steps: u64,
    /// The points found (collected, or handed to `visit` in order).
    out: Points,
    /// Where points go when streamed, with the last one and the count.
    visit: Option<Visitor<'v>>,
    last: Vec<i64>,
    current: Vec<i64>,
    count: usize,
}

fn slot(n_tuple: usize, v: Var) -> usize {
    match v {
        Var::Tuple(i) => i,
        Var::Exist(j) => n_tuple + j,
    }
}

fn var(n_tuple: usize, s: usize) -> Var {
    if s < n_tuple {
        Var::Tuple(s)
    } else {
        Var::Exist(s - n_tuple)
    }
}

fn slots_of(n_tuple: usize, e: &Expr) -> Vec<usize> {
    let mut s = Vec::new();
    e.for_each_var(&mut |v| s.push(slot(n_tuple, v)));
    s.sort_unstable();
    s.dedup();
    s
}

impl Search<'_, '_> {
    fn eval(&self, e: &CExpr) -> Result<i64, EvalError> {
        e.eval(self.env, &self.values[..])
    }

    fn holds(&self, i: usize) -> Result<bool, EvalError> {
        let (kind, e, _) = &self.constraints[i];
        let x = self.eval(e)?;
        Ok(match kind {
            ConstraintKind::Eq => x == 0,
            ConstraintKind::Geq => x >= 0,
        })
    }

    /// Whether every constraint mentioning `s` whose slots are all
    /// assigned holds. The constraints that bound `s` are not
    /// evaluated: `s` takes the values of [`Search::range`] only, which
    /// applied every bound whose other slots were assigned, exactly
    /// (a constraint whose only unassigned slot is `s` holds exactly at
    /// the values in its bound), and the other slots do not change
    /// while `s` runs through its range.
    fn consistent(&self, s: usize) -> Result<bool, EvalError> {
        for &i in &self.by_slot[s] {
            if self.constraints[i]
                .2
                .iter()
                .all(|&t| self.values[t].is_some())
                && !self.holds(i)?
            {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The range of slot `s` given the assigned slots: `None` when
    /// unbounded, `Some(None)` when empty.
    fn range(&self, s: usize) -> Result<Option<Option<(i64, i64)>>, EvalError> {
        let (mut lo, mut hi): (Option<i128>, Option<i128>) = (None, None);
        for b in &self.bounds[s] {
            if !b.needs.iter().all(|&t| self.values[t].is_some()) {
                continue;
            }
            let r = i128::from(self.eval(&b.rest)?);
            let a = i128::from(b.coefficient);
            match b.kind {
                ConstraintKind::Eq => {
                    if r % a != 0 {
                        return Ok(Some(None));
                    }
                    let x = -r / a;
                    lo = Some(lo.map_or(x, |l| l.max(x)));
                    hi = Some(hi.map_or(x, |h| h.min(x)));
                }
                ConstraintKind::Geq if a > 0 => {
                    let x = -(r.div_euclid(a));
                    lo = Some(lo.map_or(x, |l| l.max(x)));
                }
                ConstraintKind::Geq => {
                    let x = r.div_euclid(-a);
                    hi = Some(hi.map_or(x, |h| h.min(x)));
                }
            }
        }
        Ok(match (lo, hi) {
            (Some(l), Some(h)) if l > h => Some(None),
            (Some(l), Some(h)) => match (i64::try_from(l), i64::try_from(h)) {
                (Ok(l), Ok(h)) => Some(Some((l, h))),
                _ => return Err(EvalError::Overflow),
            },
            _ => None,
        })
    }

    fn free(&self, s: usize) -> bool {
        self.values[s].is_none() && self.defined[s].is_none()
    }

    /// Appends the current tuple, defined slots computed, or hands it
    /// to the visitor.
    fn push_tuple(&mut self) -> Result<(), Abort> {
        self.current.clear();
        for s in 0..self.n_tuple {
            let x = match (&self.defined[s], self.values[s]) {
                (Some(def), _) => self.eval(def)?,
                (None, Some(x)) => x,
                (None, None) => {
                    return Err(EvalError::UnassignedVariable(format!(
                        "tuple variable at position {s}"
                    ))
                    .into())
                }
            };
            self.current.push(x);
        }
        self.count += 1;
        match &mut self.visit {
            None => {
                self.out.data.extend_from_slice(&self.current);
                self.out.len += 1;
            }
            Some(visit) => {
                if self.count > 1 && self.current <= self.last {
                    return Err(Abort::Stream(Streamed::Unordered));
                }
                if visit(&self.current).is_break() {
                    return Err(Abort::Stream(Streamed::Stopped));
                }
                std::mem::swap(&mut self.last, &mut self.current);
            }
        }
        Ok(())
    }

    /// Assigns the remaining slots; in witness mode stops at the first
    /// complete assignment. Returns whether one was found.
    fn search(&mut self, witness: bool) -> Result<bool, Abort> {
        let tuple_done = (0..self.n_tuple).all(|s| !self.free(s));
        if tuple_done && !witness {
            // Existentials left: one witness is searched for.
            let found =
                (self.n_tuple..self.values.len()).all(|s| !self.free(s)) || self.search(true)?;
            if found {
                self.push_tuple()?;
                if self.count > self.limits.max_points {
                    return Err(EvalError::TooManyPoints {
                        limit: self.limits.max_points,
                    }
                    .into());
                }
            }
            return Ok(found);
        }
        // The first free slot (tuple first) with finite bounds.
        let mut choice = None;
        let mut unbounded = None;
        for s in 0..self.values.len() {
            if !self.free(s) {
                continue;
            }
            match self.range(s)? {
                Some(None) => return Ok(false),
                Some(Some((l, h))) => {
                    choice = Some((s, l, h));
                    break;
                }
                None => {
                    unbounded.get_or_insert(s);
                }
            }
        }
        let Some((s, lo, hi)) = choice else {
            return match unbounded {
                None => Ok(true),
                Some(s) => Err(EvalError::Unbounded {
                    var: if s < self.n_tuple {
                        format!("tuple variable at position {s}")
                    } else {
                        "an existential variable".to_string()
                    },
                }
                .into()),
            };
        };
        let mut any = false;
        let mut x = lo;
        loop {
            self.steps += 1;
            if self.steps > self.limits.max_steps {
                return Err(EvalError::TooManySteps {
                    limit: self.limits.max_steps,
                }
                .into());
            }
            self.values[s] = Some(x);
            if self.consistent(s)? && self.search(witness)? {
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
        self.values[s] = None;
        Ok(any)
    }
}

/// Substitutes away every slot that an equality defines with a unit
/// coefficient (outside UF arguments), last slots first, so that the
/// loop-order variables remain: `k2 = k1 + 1` keeps `k1` and gives its
/// upper bound through `k2 < rowptr(i + 1)`. A tuple slot is only
/// defined by an expression without existentials, so that its value is
/// known once the remaining tuple slots are.
fn eliminate(
    n_tuple: usize,
    n_slots: usize,
    constraints: &mut Vec<(ConstraintKind, Expr)>,
) -> Vec<Option<Expr>> {
    let mut defined: Vec<Option<Expr>> = vec![None; n_slots];
    loop {
        let mut changed = false;
        for s in (0..n_slots).rev() {
            if defined[s].is_some() {
                continue;
            }
            let v = var(n_tuple, s);
            let found = constraints.iter().position(|(kind, e)| {
                let a = e.coefficient_of_var(v);
                if *kind != ConstraintKind::Eq || a.abs() != 1 || e.mentions_in_uf_args(v) {
                    return false;
                }
                let mut existential = false;
                e.for_each_var(&mut |w| existential |= matches!(w, Var::Exist(_)) && w != v);
                s >= n_tuple || !existential
            });
            let Some(i) = found else { continue };
            let (_, e) = constraints.remove(i);
            let a = e.coefficient_of_var(v);
            let mut rest = e;
            rest.add_term(Atom::Var(v), -a);
            // a·v + rest = 0  =>  v = -a·rest  (a = ±1)
            let def = rest.scale(-a);
            for (_, c) in constraints.iter_mut() {
                *c = c.substitute_var(v, &def);
            }
            for d in defined.iter_mut().flatten() {
                *d = d.substitute_var(v, &def);
            }
            defined[s] = Some(def);
            changed = true;
        }
        if !changed {
            return defined;
        }
    }
}

/// The points of `conj` (tuples with some witness for the
/// existentials), sorted.
pub(crate) fn points(conj: &Conjunction, env: &Env, limits: Limits) -> Result<Points, EvalError> {
    let n_tuple = conj.arity();
    let Some(mut search) = prepared(conj, env, limits, None)? else {
        return Ok(Points::new(n_tuple));
    };
    let room = limits
        .expected
        .min(limits.max_points)
        .saturating_mul(n_tuple);
    // Only room: a failed reservation leaves the points to grow.
    let _ = search.out.data.try_reserve_exact(room);
    match search.search(false) {
        Ok(_) => {}
        Err(Abort::Eval(e)) => return Err(e),
        Err(Abort::Stream(_)) => unreachable!("points are collected, not streamed"),
    }
    let mut out = search.out;
    out.sort_dedup();
    Ok(out)
}

/// The points of `conj`, handed to `visit` one at a time as the search
/// finds them, without collecting them, as long as they come in
/// increasing order (as [`points`] would give them): then
/// [`Streamed::Done`]. [`Streamed::Unordered`] when one does not (the
/// points after it are not visited), [`Streamed::Stopped`] when `visit`
/// breaks. Limits and errors are [`points`]'.
pub(crate) fn points_in_order(
    conj: &Conjunction,
    env: &Env,
    limits: Limits,
    visit: &mut dyn FnMut(&[i64]) -> ControlFlow<()>,
) -> Result<Streamed, EvalError> {
    let Some(mut search) = prepared(conj, env, limits, Some(visit))? else {
        return Ok(Streamed::Done);
    };
    match search.search(false) {
        Ok(_) => Ok(Streamed::Done),
        Err(Abort::Eval(e)) => Err(e),
        Err(Abort::Stream(how)) => Ok(how),
    }
}

/// The search of `conj`'s points; `None` when a constraint without
/// variables fails (no point).
fn prepared<'a, 'v>(
    conj: &Conjunction,
    env: &'a Env<'a>,
    limits: Limits,
    visit: Option<Visitor<'v>>,
) -> Result<Option<Search<'a, 'v>>, EvalError> {
    let n_tuple = conj.arity();
    let n_slots = n_tuple + conj.num_exists();
    let mut work: Vec<(ConstraintKind, Expr)> = conj
        .constraints()
        .map(|c| (c.kind(), c.expr().clone()))
        .collect();
    for (_, e) in &work {
        if slots_of(n_tuple, e).iter().any(|&s| s >= n_slots) {
            return Err(EvalError::UnassignedVariable(format!("{e}")));
        }
    }
    let defined = eliminate(n_tuple, n_slots, &mut work);
    let compile = |e: &Expr| CExpr::compile(e, env, &mut |v| Slot::At(slot(n_tuple, v)));
    let mut constraints = Vec::new();
    let mut by_slot = vec![Vec::new(); n_slots];
    let mut bounds: Vec<Vec<Bound>> = (0..n_slots).map(|_| Vec::new()).collect();
    for (i, (kind, e)) in work.into_iter().enumerate() {
        let slots = slots_of(n_tuple, &e);
        for &s in &slots {
            let v = var(n_tuple, s);
            let a = e.coefficient_of_var(v);
            if a == 0 || e.mentions_in_uf_args(v) {
                // Checked once `s` is assigned; a bound of `s` holds
                // at every value of its range (`Search::consistent`).
                by_slot[s].push(i);
            } else {
                let mut rest = e.clone();
                rest.add_term(Atom::Var(v), -a);
                let needs = slots_of(n_tuple, &rest);
                bounds[s].push(Bound {
                    kind,
                    coefficient: a,
                    rest: compile(&rest),
                    needs,
                });
            }
        }
        constraints.push((kind, compile(&e), slots));
    }
    let search = Search {
        env,
        limits,
        n_tuple,
        values: vec![None; n_slots],
        defined: defined.iter().map(|d| d.as_ref().map(compile)).collect(),
        constraints,
        by_slot,
        bounds,
        steps: 0,
        out: Points::new(n_tuple),
        visit,
        last: Vec::with_capacity(n_tuple),
        current: Vec::with_capacity(n_tuple),
        count: 0,
    };
    for i in 0..search.constraints.len() {
        if search.constraints[i].2.is_empty() && !search.holds(i)? {
            return Ok(None);
        }
    }
    Ok(Some(search))
}

#[cfg(test)]
mod tests {
    use super::{Limits, Points, Streamed};
    use crate::compiled_expr::Env;
    use iegen::eval::{enumerate_conjunction, Bounds, Interpretation, UfTable};
    use iegen::Set;
    use proptest::prelude::*;

    const SHAPES: &[&str] = &[
        // CSR rows and the column order rule (k2 is defined by k1).
        "{[i, k, j] : 0 <= i < N && f(i) <= k < f(i + 1) && j = g(k)}",
        "{[i, k1, k2] : 0 <= i < N && f(i) <= k1 < 10 && k2 = k1 + 1 && k2 < f(i + 1)}",
        // COO with bounds on the defined variables.
        "{[n, a, b, i, j] : i = a && j = b && a = f(n) && b = g(n) && 0 <= n < N \
         && 0 <= i < M && 0 <= j < M}",
        // Existentials, a divisibility, a defined variable after a free one.
        "{[x, y] : exists e : 0 <= x < N && y = 2e && 0 <= e < M && y <= x + f(x)}",
        "{[x, y] : exists e : 0 <= x < N && x = y + e && 0 <= e <= 2 && 0 <= y}",
        "{[d, j] : 0 <= d < N && j = d + g(d) && 0 <= j < M}",
        "{[a, b] : 0 <= a < N && 0 <= b < N && f(a) = g(b)}",
        "{[a] : 2a = f(1) + 1 && 0 <= a < N}",
        "{[a, b] : M <= 2 && 0 <= a < N && b = a - 1 && b >= 0}",
    ];

    fn points(
        c: &iegen::Conjunction,
        interp: &Interpretation,
        limits: Limits,
    ) -> Result<Points, iegen::EvalError> {
        super::points(c, &Env::from_interpretation(interp), limits)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The ordered search finds exactly the points of `iegen::eval`.
        #[test]
        fn ordered_enumeration_matches_iegen(
            f in proptest::collection::vec(-2i64..8, 10),
            g in proptest::collection::vec(-2i64..8, 10),
            n in 0i64..6,
            m in 0i64..6,
            shape in 0..SHAPES.len(),
        ) {
            let mut sorted_f = f.clone();
            if shape <= 1 {
                sorted_f.sort_unstable(); // a row pointer
            }
            let interp = Interpretation::new()
                .with_symbol("N", n)
                .with_symbol("M", m)
                .with_uf("f", UfTable::from_array(&sorted_f, 0))
                .with_uf("g", UfTable::from_array(&g, 0));
            let s: Set = SHAPES[shape].parse().unwrap();
            for c in s.conjunctions() {
                let expected: Vec<Vec<i64>> =
                    enumerate_conjunction(c, &interp, &Bounds::unboxed()).unwrap().into_iter().collect();

                let limits = Limits { max_points: 10_000, max_steps: 1_000_000, expected: 0 };
                prop_assert_eq!(&points(c, &interp, limits).unwrap().to_vecs(), &expected);
                // Streamed: the same points when they come in order; a
                // strictly increasing prefix of them otherwise.
                let mut streamed: Vec<Vec<i64>> = Vec::new();
                let how = super::points_in_order(
                    c,
                    &Env::from_interpretation(&interp),
                    limits,
                    &mut |p| {
                        streamed.push(p.to_vec());
                        std::ops::ControlFlow::Continue(())
                    },
                )
                .unwrap();
                match how {
                    Streamed::Done => prop_assert_eq!(&streamed, &expected),
                    Streamed::Unordered => {
                        prop_assert!(streamed.windows(2).all(|w| w[0] < w[1]));
                    }
                    Streamed::Stopped => prop_assert!(false, "the visitor never stops"),
                }
            }
        }
    }

    #[test]
    fn ordered_enumeration_limits_and_errors() {
        let interp = Interpretation::new().with_symbol("N", 100);
        let s: Set = "{[i, j] : 0 <= i < N && 0 <= j < N}".parse().unwrap();
        let c = &s.conjunctions()[0];
        let few = Limits {
            max_points: 10,
            max_steps: 1_000_000,
            expected: 100,
        };
        assert!(matches!(
            points(c, &interp, few),
            Err(iegen::EvalError::TooManyPoints { limit: 10 })
        ));
        let short = Limits {
            max_points: 1_000_000,
            max_steps: 50,
            expected: 0,
        };
        assert!(matches!(
            points(c, &interp, short),
            Err(iegen::EvalError::TooManySteps { limit: 50 })
        ));
        let open: Set = "{[i] : i >= 0}".parse().unwrap();
        assert!(matches!(
            points(&open.conjunctions()[0], &interp, few),
            Err(iegen::EvalError::Unbounded { .. })
        ));
        let adjacent: Set = "{[i, k1, k2] : 0 <= i < N && k1 >= 3i && k2 = k1 + 1 && k2 < 3i + 3}"
            .parse()
            .unwrap();
        let p = points(
            &adjacent.conjunctions()[0],
            &Interpretation::new().with_symbol("N", 2),
            few,
        );
        assert_eq!(
            p.unwrap().to_vecs(),
            vec![vec![0, 0, 1], vec![0, 1, 2], vec![1, 3, 4], vec![1, 4, 5]]
        );
        let unknown: Set = "{[i] : 0 <= i < K}".parse().unwrap();
        assert!(matches!(
            points(&unknown.conjunctions()[0], &interp, few),
            Err(iegen::EvalError::UnknownSymbol(_))
        ));
    }
}
