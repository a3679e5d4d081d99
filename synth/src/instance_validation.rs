//! Checking an instance against its descriptor.
//!
//! # Validation
//!
//! [`validate`] checks, in this order: the format name, every symbol and
//! array present (and nothing else), the arrays' types and lengths, the
//! values finite (unless [`validate_allowing`] accepts NaN and
//! infinities), every UF
//! value inside its declared range at every domain point, the declared
//! monotonicity, every rule of the descriptor, and that every nonzero value
//! is addressed by a stored entry (a value no point of the map reaches, such
//! as one past a CSR's `rowptr(NR)` or in a DIA slot outside the matrix,
//! would be lost by any conversion) and that no two nonzero entries share a
//! coordinate ([`InstanceError::Storage`]).
//!
//! A rule `forall v... : P => Q` must hold at every assignment of its
//! variables for which every UF call in it has its arguments inside the UF's
//! domain (the index arrays are defined nowhere else). A rule with a
//! conclusion of several constraints is checked one constraint at a time,
//! in the first of these ways that applies:
//!
//! 1. **Adjacent pairs** (linear). Most rules are *ordering* rules; they
//!    are checked on pairs `v2 = v1 + 1` only.
//! 2. **The contrapositive**, `P' ∧ ¬Q ⇒ ¬p` for an inequality `p` of the
//!    premise, checked on adjacent pairs: this turns the reverse half of an
//!    `<=>`, `C(x(n1)) < C(x(n2)) => n1 < n2`, or "rows sorted" stated as
//!    `row(n1) < row(n2) => n1 < n2`, into an ordering rule.
//! 3. **A join** (a sort plus the pairs with equal keys). A rule whose
//!    premise relates two variables only by equalities `k1(v1, s) =
//!    k2(v2, s)`, the others `s` shared, such as COO's "two entries with
//!    the same row and column are the same entry" or UCSR's "within a row,
//!    equal columns are the same position", is checked by sorting one
//!    side's keys (the shared variables first). Its pairs count against
//!    the budget below only beyond four per point: a join of linear work
//!    (each point met by itself, groups of a few) runs at any size.
//! 4. **Full enumeration** of every assignment, bounded by the UF domains;
//!    beyond a budget ([`RULE_BUDGET`] evaluations), validation gives up
//!    with [`InstanceError::RuleTooExpensive`] rather than run for hours.
//!
//! **When adjacent pairs suffice.** The premise contains `v1 < v2` (or
//! `v1 <= v2`) for two rule variables; the conclusion is one comparison
//! `g(v2) - g(v1) >= m` with a constant `m >= 0` (so `g(v1) <= g(v2)` or
//! `g(v1) < g(v2)`), or `g(v1) = g(v2)`, or `C(x(v1)) < C(x(v2))` (or `<=`,
//! `=`) between two calls of one comparator, compared by keys, where in
//! each case the `v1` side is the `v2` side with `v2` replaced by `v1`; and
//! the rest `R` of the premise is *closed under stepping*: each of its
//! constraints mentions at most one of `v1`, `v2`, only outside UF
//! arguments, as an inequality; every upper bound on `v1` in `R` is also in
//! `R` as a bound on `v2`, and every lower bound on `v2` also as a bound on
//! `v1`; and every index-array call that mentions `v1` or `v2` mentions only
//! one of them, only as an affine argument (no nested call of it), and has
//! a domain of one conjunction.
//!
//! *Proof.* Fix the other variables; every constraint of `R` on `v1` or `v2`
//! is then a half-line in that variable, and the domain guards of the
//! conclusion's calls restrict `v1` and `v2` to one and the same interval
//! `D` (a polyhedron cut by a line), since both sides make the same calls.
//! Let `a < b` satisfy the premise and the guards, and let `a <= c < b`.
//! The pair `(c, c + 1)` satisfies them too: a lower bound on `v1` holds at
//! `c` as `c >= a`; an upper bound `U` on `v1` bounds `v2` as well, so
//! `c < b <= U`; an upper bound on `v2` holds at `c + 1` as `c + 1 <= b`; a
//! lower bound `L` on `v2` bounds `v1` as well, so `c + 1 > a >= L`;
//! `c < c + 1`; constraints on neither variable do not change; and
//! `c, c + 1` lie between `a` and `b`, both in the interval `D`. So the
//! adjacent checks give `g(c + 1) - g(c) >= m` for every such `c`, and
//! summing the `b - a` of them, `g(b) - g(a) >= (b - a)·m >= m` because
//! `m >= 0`. Key comparisons and equalities chain by transitivity. When the
//! premise is `v1 <= v2`, the pairs `v1 = v2` are checked directly too. ∎
//!
//! The enumerations follow the rule's variables in the order they are
//! written, after substituting away the variables that equalities define
//! (see [`crate::oracle`]), so `forall i, k1, k2 : 0 <= i < NR &&
//! rowptr(i) <= k1 < k2 < rowptr(i + 1) => col(k1) < col(k2)` costs one step
//! per stored entry. Every enumeration is also limited to work proportional
//! to the instance's size, so symbols that promise far more than the arrays
//! hold fail quickly.
//!
//! Comparator calls (functions defined by a descriptor `comparator`) are
//! evaluated through their key definition: two calls compare by keys,
//! lexicographically; a comparator with a one-component key may also appear
//! in ordinary arithmetic.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use iegen::constraint::Normalized;

use iegen::eval::set_contains;
use iegen::{Bounds, Conjunction, ConstraintKind, EvalError, Expr, Monotonicity, UfRule};

use crate::compiled_expr::{CExpr, Env, Table};
use crate::concrete::*;
use crate::coordinate_sort::coordinate_order;
use crate::descriptor::Descriptor;
use crate::instance::{Instance, InstanceError};
use crate::oracle::Entries;
use crate::ordered_points::Points;
use crate::rule_plan::{rule_checks, Check, Join, RuleCheck};

// ---------------------------------------------------------------------------
// Validation

/// The largest number of rule evaluations [`validate`] spends on a rule
/// that needs full enumeration.
pub const RULE_BUDGET: u64 = 4_000_000;

/// Checks an instance against its descriptor: names, lengths, ranges,
/// monotonicity and rules (see the module documentation).
pub fn validate(d: &Descriptor, inst: &Instance) -> Result<(), InstanceError> {
    validate_with_budget(d, inst, RULE_BUDGET)
}

/// [`validate`], with the budget of evaluations for a rule that has to be
/// checked by full enumeration.
pub fn validate_with_budget(
    d: &Descriptor,
    inst: &Instance,
    budget: u64,
) -> Result<(), InstanceError> {
    validate_entries_with_budget(d, inst, budget, false).map(drop)
}

/// [`validate`], accepting values that are not finite (NaN, infinities)
/// when `allow_nonfinite` says so.
pub fn validate_allowing(
    d: &Descriptor,
    inst: &Instance,
    allow_nonfinite: bool,
) -> Result<(), InstanceError> {
    validate_entries_with_budget(d, inst, RULE_BUDGET, allow_nonfinite).map(drop)
}

/// [`validate_entries`], accepting values that are not finite (NaN,
/// infinities) when `allow_nonfinite` says so: the oracle's entries hold
/// them as they are.
pub fn validate_entries_allowing(
    d: &Descriptor,
    inst: &Instance,
    allow_nonfinite: bool,
) -> Result<Entries, InstanceError> {
    validate_entries_with_budget(d, inst, RULE_BUDGET, allow_nonfinite)
}

/// [`validate`], and the instance's entries sorted by coordinate (what
/// [`crate::oracle::sorted_entries`] gives), from the one enumeration of
/// the storage check: a result's check needs both.
pub fn validate_entries(d: &Descriptor, inst: &Instance) -> Result<Entries, InstanceError> {
    validate_entries_with_budget(d, inst, RULE_BUDGET, false)
}

/// An instance that records 32-bit indices holds only what fits them:
/// part of [`validate`], and what a compiled check of the rest (which
/// holds every array at 64 bits) leaves to its caller.
///
/// # Errors
///
/// [`InstanceError::Width`] for the first size that does not fit.
pub fn check_recorded_widths(d: &Descriptor, inst: &Instance) -> Result<(), InstanceError> {
    if let Some(w) = inst.index_width {
        for size in inst.sizes(d) {
            let width = size.kind.map_or(w.narrowest(), |k| w.of(k));
            width
                .check(size.what, size.value)
                .map_err(|e| InstanceError::Width(format!("the instance records {w}, but {e}")))?;
        }
    }
    Ok(())
}

fn validate_entries_with_budget(
    d: &Descriptor,
    inst: &Instance,
    budget: u64,
    allow_nonfinite: bool,
) -> Result<Entries, InstanceError> {
    let c = prepare(d, inst)?;
    if !allow_nonfinite {
        check_finite(d, inst)?;
    }
    check_recorded_widths(d, inst)?;
    for (u, domain) in d.ufs.iter().zip(&c.domains) {
        let table = c.env.table(&u.name).expect("a table per index array");
        check_range(u, table, domain, &c)?;
        if u.domain.arity() == 1 {
            check_monotone(u, table, domain)?;
        }
    }
    for rule in &d.rules {
        check_rule(d, &c, rule, budget, c.work)?;
    }
    crate::oracle::checked_sorted_entries_in(d, &c).map_err(|e| match e {
        crate::oracle::OracleError::Instance(e) => e,
        other => InstanceError::Storage(other.to_string()),
    })
}

fn check_range(
    u: &iegen::UfDecl,
    table: &Table,
    domain: &Domain,
    c: &Concrete,
) -> Result<(), InstanceError> {
    let simple = u.range.conjunctions().iter().all(|c| c.num_exists() == 0);
    let compiled: Vec<Vec<(ConstraintKind, CExpr)>> = u
        .range
        .conjunctions()
        .iter()
        .map(|conj| {
            conj.constraints()
                .map(|k| (k.kind(), compile_plain(&c.env, k.expr())))
                .collect()
        })
        .collect();
    let what = || format!("the range of {}", u.name);
    domain.for_each(|p| {
        let v = table.get(p);
        let inside = if simple {
            let mut any = false;
            for conj in &compiled {
                let mut all = true;
                for (kind, e) in conj {
                    let x = e.eval(&c.env, &[v][..]).map_err(eval_error(what))?;
                    let ok = match kind {
                        ConstraintKind::Eq => x == 0,
                        ConstraintKind::Geq => x >= 0,
                    };
                    if !ok {
                        all = false;
                        break;
                    }
                }
                if all {
                    any = true;
                    break;
                }
            }
            any
        } else {
            set_contains(&u.range, &[v], c.interp(), &Bounds::unboxed())
                .map_err(eval_error(what))?
        };
        if !inside {
            return Err(InstanceError::OutOfRange {
                array: u.name.clone(),
                index: tuple_text(p),
                value: v,
                range: format!(
                    "{}{}",
                    set_body(&u.range),
                    symbol_values(&set_symbols(&u.range), c.interp())
                ),
            });
        }
        Ok(())
    })
}

fn check_monotone(u: &iegen::UfDecl, table: &Table, domain: &Domain) -> Result<(), InstanceError> {
    // Domain points are sorted; adjacent ones suffice by transitivity.
    for m in &u.monotonicity {
        let mut last: Option<(Vec<i64>, i64)> = None;
        domain.for_each(|b| {
            let fb = table.get(b);
            if let Some((a, fa)) = &mut last {
                let fa = *fa;
                let (bad, op) = match m {
                    Monotonicity::Nondecreasing => (fa > fb, ">"),
                    Monotonicity::Increasing => (fa >= fb, ">="),
                    Monotonicity::Nonincreasing => (fa < fb, "<"),
                    Monotonicity::Decreasing => (fa <= fb, "<="),
                };
                if bad {
                    return Err(InstanceError::NotMonotone {
                        array: u.name.clone(),
                        property: m.keyword(),
                        detail: format!(
                            "{n}({}) = {fa} {op} {n}({}) = {fb}",
                            tuple_text(a),
                            tuple_text(b),
                            n = u.name
                        ),
                    });
                }
                a.clear();
                a.extend_from_slice(b);
            }
            match &mut last {
                Some((_, f)) => *f = fb,
                None => last = Some((b.to_vec(), fb)),
            }
            Ok(())
        })?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Rules

/// The keys of `points` (`nk` each, appended by `key`), flat, in order up
/// to the first that fails, and that failure: its error comes after the
/// checks of the points before it.
fn keys_in_order(
    points: &Points,
    nk: usize,
    mut key: impl FnMut(&[i64], &mut Vec<i64>) -> Result<(), InstanceError>,
) -> (Vec<i64>, Option<InstanceError>) {
    let mut all = Vec::with_capacity(points.len() * nk);
    for p in points.iter() {
        let mark = all.len();
        if let Err(e) = key(p, &mut all) {
            all.truncate(mark);
            return (all, Some(e));
        }
    }
    (all, None)
}

/// The indices `0..n` of the keys in `keys` (`nk` components each, flat)
/// sorted by key, ties by index ([`coordinate_order`]: a counting sort
/// when the keys' spans allow).
fn sorted_by_key(keys: &[i64], nk: usize, n: usize) -> Vec<usize> {
    coordinate_order(n, nk, |e, c| keys[e * nk + c])
}

fn run_join(
    d: &Descriptor,
    env: &Env,
    rule: &UfRule,
    join: &Join,
    budget: u64,
    work: u64,
) -> Result<(), InstanceError> {
    let what = || format!("rule `{}`", rule_text(rule));
    let m = join.shared.len();
    // Two sides alike (COO's `row(n1) = row(n2) && col(n1) = col(n2) =>
    // n1 = n2`) have the same points and keys: enumerated and computed once.
    let alike = join.sides[0] == join.sides[1]
        && join.keys[0] == join.keys[1]
        && join.guarded[0] == join.guarded[1];
    // Each side's points: the shared variables, then its own and its tied
    // ones.
    let width = m + 1 + join.tied.len();
    let mut side_points: [Points; 2] = [Points::new(width), Points::new(width)];
    for (k, side) in side_points.iter_mut().enumerate() {
        if alike && k == 0 {
            continue;
        }
        let names = join.side_names(rule, k);
        let mut guards = 0;
        for guard in domain_guards(d, &join.guarded[k])? {
            let mut constraints = join.sides[k].clone();
            constraints.extend(guard);
            let Some(conj) = Conjunction::from_parts(names.clone(), Vec::new(), constraints) else {
                continue;
            };
            let mut limits = crate::ordered_points::Limits::from(work_bounds(work));
            // Each side has about one point per stored entry.
            limits.expected = usize::try_from(work / 2).unwrap_or(0);
            let points =
                crate::ordered_points::points(&conj, env, limits).map_err(eval_error(what))?;
            side.append(&points);
            guards += 1;
        }
        if guards > 1 {
            side.sort_dedup();
        }
    }
    if alike {
        side_points[0] = side_points[1].clone();
    }
    let keys: [Vec<CExpr>; 2] =
        [0, 1].map(|k| join.keys[k].iter().map(|e| compile_plain(env, e)).collect());
    let nk = join.keys[0].len();
    // The keys of side `k` at point `x`, appended to `out`.
    let key = |k: usize, x: &[i64], out: &mut Vec<i64>| -> Result<(), InstanceError> {
        for e in &keys[k] {
            out.push(e.eval(env, x).map_err(eval_error(what))?);
        }
        Ok(())
    };
    let arity = rule.vars.len();
    let mut conclusion = Holds::new(d, env, &join.conclusion);
    let mut check_pair = |a: &[i64], b: &[i64]| -> Result<(), InstanceError> {
        let point = join.rule_point(arity, a, b);
        if !conclusion.holds(d, env, &point, &what)? {
            return Err(rule_violation(d, env, rule, &point));
        }
        Ok(())
    };
    if join.ordered && join.sides[0] == join.sides[1] && join.keys[0] == join.keys[1] {
        // Points are in increasing order; within a group of equal keys (the
        // shared variables among them) the order is transitive, so
        // consecutive members suffice. Keys are computed in order up to the
        // first that fails, whose error comes after the checks of the
        // points before it.
        let side = &side_points[0];
        let (all, key_error) = keys_in_order(side, nk, |p, out| key(0, p, out));
        let n = all.len().checked_div(nk).unwrap_or(side.len());
        let at = |i: usize| &all[i * nk..(i + 1) * nk];
        let order = sorted_by_key(&all, nk, n);
        let mut prev = vec![usize::MAX; n];
        for w in order.windows(2) {
            if at(w[0]) == at(w[1]) {
                prev[w[1]] = w[0];
            }
        }
        for (i, &p) in prev.iter().enumerate() {
            if p != usize::MAX {
                check_pair(side.get(p), side.get(i))?;
            }
        }
        return match key_error {
            Some(e) => Err(e),
            None => Ok(()),
        };
    }
    // Index the second side by key (a sorted list); scanning the first in
    // order finds the smallest violating pair first.
    let side = &side_points[1];
    let mut all = Vec::with_capacity(side.len() * nk);
    for p in side.iter() {
        key(1, p, &mut all)?;
    }
    let at = |i: usize| &all[i * nk..(i + 1) * nk];
    let index = sorted_by_key(&all, nk, side.len());
    // The first side's keys, in order up to the first that fails (whose
    // error comes after the checks of the points before it), and each
    // point's range of equal keys in `index`, found by merging the two
    // sorted lists (no binary search per point: at millions of points,
    // each probe of one is a cache miss). Two sides alike share their keys.
    let first = &side_points[0];
    let (keys_a, key_error) = if alike {
        (Vec::new(), None)
    } else {
        keys_in_order(first, nk, |p, out| key(0, p, out))
    };
    let (keys_a, n_a) = if alike {
        (&all, side.len())
    } else {
        let n = keys_a.len().checked_div(nk).unwrap_or(first.len());
        (&keys_a, n)
    };
    let at_a = |i: usize| &keys_a[i * nk..(i + 1) * nk];
    let order_a = if alike {
        index.clone()
    } else {
        sorted_by_key(keys_a, nk, n_a)
    };
    let mut range = vec![(0usize, 0usize); n_a];
    let mut lo = 0;
    for &x in &order_a {
        let ka = at_a(x);
        while lo < index.len() && at(index[lo]) < ka {
            lo += 1;
        }
        let mut hi = lo;
        while hi < index.len() && at(index[hi]) == ka {
            hi += 1;
        }
        range[x] = (lo, hi);
    }
    // Pairs as many as the points (a point met by itself, groups of a
    // few) are linear work: only pairs beyond them count against the
    // budget, which stops a join that grows with the square of its input
    // (`drv_join` in the compiled checks allows as many).
    let allowed = budget.saturating_add(4 * (n_a as u64 + side.len() as u64));
    let mut pairs: u64 = 0;
    for (x, a) in first.iter().take(n_a).enumerate() {
        let (lo, hi) = range[x];
        for &i in &index[lo..hi] {
            let b = side.get(i);
            if join.ordered && a[m] >= b[m] {
                continue;
            }
            pairs += 1;
            if pairs > allowed {
                return Err(InstanceError::RuleTooExpensive {
                    rule: rule_text(rule),
                    budget: allowed,
                });
            }
            check_pair(a, b)?;
        }
    }
    match key_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn check_rule(
    d: &Descriptor,
    c: &Concrete,
    rule: &UfRule,
    budget: u64,
    work: u64,
) -> Result<(), InstanceError> {
    let env = &c.env;
    for how in rule_checks(d, rule) {
        match how {
            RuleCheck::Points(checks) => {
                for check in checks {
                    run_check(d, env, rule, &check, budget, work)?;
                }
            }
            RuleCheck::Join(join) => run_join(d, env, rule, &join, budget, work)?,
        }
    }
    Ok(())
}

fn run_check(
    d: &Descriptor,
    env: &Env,
    rule: &UfRule,
    check: &Check,
    budget: u64,
    work: u64,
) -> Result<(), InstanceError> {
    let text = || rule_text(rule);
    // Constraints with comparator calls are tested at each point; the rest
    // is enumerated.
    let mut enumerated = Vec::new();
    let mut filters = Vec::new();
    for n in &check.premise {
        match n {
            Normalized::Constraint(c) if d.mentions_comparator(c.expr()) => filters.push(c.clone()),
            other => enumerated.push(other.clone()),
        }
    }
    let exprs: Vec<&Expr> = check
        .premise
        .iter()
        .filter_map(|n| match n {
            Normalized::Constraint(c) => Some(c.expr()),
            _ => None,
        })
        .chain([check.conclusion.expr()])
        .collect();
    let guards = domain_guards(d, exprs)?;
    let bounds = Bounds {
        box_: None,
        max_points: if check.adjacent {
            work_bounds(work).max_points
        } else {
            usize::try_from(budget).unwrap_or(usize::MAX)
        },
        max_steps: if check.adjacent {
            work_bounds(work).max_steps
        } else {
            budget.saturating_mul(8)
        },
    };
    let mut filters: Vec<Holds> = filters.iter().map(|f| Holds::new(d, env, f)).collect();
    let mut conclusion = Holds::new(d, env, &check.conclusion);
    for guard in guards {
        let mut constraints = enumerated.clone();
        constraints.extend(guard);
        let Some(conj) = Conjunction::from_parts(rule.vars.clone(), Vec::new(), constraints) else {
            continue; // trivially false premise
        };
        let mut limits = crate::ordered_points::Limits::from(bounds);
        let too_expensive = || InstanceError::RuleTooExpensive {
            rule: text(),
            budget: bounds.max_points as u64,
        };
        let enumeration_failed = |e: EvalError| match e {
            EvalError::TooManyPoints { .. } | EvalError::TooManySteps { .. } => too_expensive(),
            e => eval_error(|| format!("rule `{}`", text()))(e),
        };
        let what = || format!("rule `{}`", text());
        // Whether the rule holds at point `p`.
        let mut check_point = |p: &[i64]| -> Result<bool, InstanceError> {
            for f in &mut filters {
                if !f.holds(d, env, p, &what)? {
                    return Ok(true);
                }
            }
            conclusion.holds(d, env, p, &what)
        };
        // The points streamed as the search finds them (none kept); when
        // they do not come in order, or the rule fails somewhere, they are
        // collected and checked in order, so that the first failing point
        // (or the enumeration's error) is the one reported.
        let mut failed = false;
        let streamed =
            crate::ordered_points::points_in_order(
                &conj,
                env,
                limits,
                &mut |p| match check_point(p) {
                    Ok(true) => ControlFlow::Continue(()),
                    _ => {
                        failed = true;
                        ControlFlow::Break(())
                    }
                },
            )
            .map_err(enumeration_failed)?;
        if streamed == crate::ordered_points::Streamed::Done && !failed {
            continue;
        }
        if check.adjacent {
            // About one pair per value (`work` counts the index arrays' and
            // the value array's values): room made at once.
            limits.expected = usize::try_from(work / 2).unwrap_or(0);
        }
        let points =
            crate::ordered_points::points(&conj, env, limits).map_err(enumeration_failed)?;
        for p in points.iter() {
            if !check_point(p)? {
                return Err(rule_violation(d, env, rule, p));
            }
        }
    }
    Ok(())
}

/// The error for `rule` failing at `point`, with the values of its calls.
fn rule_violation(d: &Descriptor, env: &Env, rule: &UfRule, point: &[i64]) -> InstanceError {
    let at = rule
        .vars
        .iter()
        .zip(point)
        .map(|(n, v)| format!("{n} = {v}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut shown: BTreeSet<String> = BTreeSet::new();
    let mut parts = Vec::new();
    let mut keys = Vec::new();
    for c in rule.premise.iter().chain(&rule.conclusion) {
        c.expr().for_each_call(&mut |name, args| {
            let vals: Option<Vec<i64>> = args
                .iter()
                .map(|a| eval_plain(env, a, point).ok())
                .collect();
            let Some(vals) = vals else { return };
            let call = format!("{name}({})", tuple_text(&vals));
            if !shown.insert(call.clone()) {
                return;
            }
            if d.uf(name).is_some() {
                if let Ok(v) = env.call(name, &vals) {
                    parts.push(format!("{call} = {v}"));
                }
            } else if let Some(cmp) = d.comparator(name) {
                if let Ok(k) = comparator_key(cmp, &vals) {
                    keys.push(format!(
                        "{call} has key ({})",
                        k.iter()
                            .map(|x| x.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            }
        });
    }
    parts.extend(keys);
    let detail = if parts.is_empty() {
        String::new()
    } else {
        format!(": {}", parts.join(", "))
    };
    InstanceError::Rule {
        rule: rule_text(rule),
        at,
        detail,
    }
}
