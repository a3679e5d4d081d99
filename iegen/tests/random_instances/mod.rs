//! Random small sets, relations and interpretations, built directly from the
//! core types (no parser), for the property tests.
//!
//! Every tuple and existential variable of every generated conjunction is
//! boxed by `-B <= v <= B`, so every set is finite and every existential an
//! operation introduces (which is always one of these variables) is bounded
//! too: enumerating inside [`enum_bounds`] is exact.

#![allow(dead_code)]

use iegen::constraint::Normalized;
use iegen::eval::{enumerate_relation, enumerate_set, Bounds, Interpretation, Pairs, UfTable};
use iegen::{Conjunction, Constraint, Expr, Formula, Relation, Set, Var};
use proptest::prelude::*;
use proptest::sample::select;
use std::collections::BTreeSet;

/// The box every variable is constrained to inside each conjunction.
pub const B: i64 = 3;

/// The enumeration box: wider than `B`, so that a result that lost a bound
/// shows extra points instead of being clipped back into shape.
pub fn enum_bounds() -> Bounds {
    Bounds {
        box_: Some((-B - 2, B + 2)),
        max_points: 100_000,
        max_steps: 20_000_000,
    }
}

/// UF tables are given explicitly on these arguments, the default elsewhere.
const TABLE_ARGS: std::ops::RangeInclusive<i64> = -6..=6;

fn var_strategy(n: usize, m: usize) -> BoxedStrategy<Var> {
    (0..n + m)
        .prop_map(move |i| {
            if i < n {
                Var::Tuple(i)
            } else {
                Var::Exist(i - n)
            }
        })
        .boxed()
}

fn uf_name() -> impl Strategy<Value = &'static str> {
    select(vec!["f", "g"])
}

fn sym_name() -> impl Strategy<Value = &'static str> {
    select(vec!["N", "M"])
}

/// A small affine expression for a UF argument, possibly a nested call.
fn uf_arg(n: usize, m: usize) -> BoxedStrategy<Expr> {
    let v = || var_strategy(n, m);
    prop_oneof![
        4 => (v(), select(vec![-1i64, 1]), -2i64..=2)
            .prop_map(|(x, c, k)| Expr::var(x).scale(c).plus(&Expr::constant(k))),
        1 => (v(), v(), -1i64..=1)
            .prop_map(|(x, y, k)| Expr::var(x).plus(&Expr::var(y)).plus(&Expr::constant(k))),
        2 => (uf_name(), v(), -1i64..=1, -1i64..=1).prop_map(|(f, x, k1, k2)| {
            Expr::call(f, vec![Expr::var(x).plus(&Expr::constant(k1))])
                .plus(&Expr::constant(k2))
        }),
        1 => (-2i64..=2).prop_map(Expr::constant),
        1 => (sym_name(), -1i64..=0).prop_map(|(s, k)| Expr::sym(s).plus(&Expr::constant(k))),
    ]
    .boxed()
}

/// One atom of a top-level affine expression.
fn term(n: usize, m: usize) -> BoxedStrategy<Expr> {
    prop_oneof![
        4 => var_strategy(n, m).prop_map(Expr::var),
        1 => sym_name().prop_map(Expr::sym),
        3 => (uf_name(), uf_arg(n, m)).prop_map(|(f, a)| Expr::call(f, vec![a])),
    ]
    .boxed()
}

/// `Σ ci·ti + k` with 1 to 3 terms, `ci` in -2..=2 and `k` in -3..=3.
fn affine(n: usize, m: usize) -> BoxedStrategy<Expr> {
    (
        prop::collection::vec((term(n, m), -2i64..=2), 1..=3),
        -3i64..=3,
    )
        .prop_map(|(terms, k)| {
            terms
                .iter()
                .fold(Expr::constant(k), |acc, (t, c)| acc.add_scaled(t, *c))
        })
        .boxed()
}

/// A group of constraints following one of a few patterns that exercise
/// substitution, Fourier–Motzkin and bound merging.
fn constraint_group(n: usize, m: usize) -> BoxedStrategy<Vec<Normalized>> {
    let v = || var_strategy(n, m);
    prop_oneof![
        // A random inequality or equality.
        3 => affine(n, m).prop_map(|e| vec![Constraint::geq(e)]),
        1 => affine(n, m).prop_map(|e| vec![Constraint::eq(e)]),
        // A definition `±v = e`, the form substitution uses.
        2 => (v(), select(vec![-1i64, 1]), affine(n, m))
            .prop_map(|(x, c, e)| vec![Constraint::equal(&Expr::var(x).scale(c), &e)]),
        // UF bounds `f(a) <= v < f(a + 1)`, as in CSR.
        2 => (uf_name(), v(), uf_arg(n, m)).prop_map(|(f, x, a)| {
            let lo = Expr::call(f, vec![a.clone()]);
            let hi = Expr::call(f, vec![a.plus(&Expr::constant(1))]);
            vec![
                Constraint::le(&lo, &Expr::var(x)),
                Constraint::lt(&Expr::var(x), &hi),
            ]
        }),
        // A stride `x + c <= k·y <= x + c + d`: with `y` existential,
        // projecting it is exact only with care (`k` is not a unit).
        1 => (v(), v(), select(vec![2i64, 3, -2, -3]), -2i64..=2, 0i64..=1).prop_map(
            |(x, y, k, c, d)| {
                let ky = Expr::var(y).scale(k);
                let lo = Expr::var(x).plus(&Expr::constant(c));
                vec![
                    Constraint::le(&lo, &ky),
                    Constraint::le(&ky, &lo.plus(&Expr::constant(d))),
                ]
            }
        ),
        // Two bounds on one linear form (merging, meeting bounds, contradictions).
        1 => (affine(n, m), -3i64..=3, -3i64..=3).prop_map(|(e, lo, hi)| {
            let mut form = e.clone();
            form.add_constant(-e.constant_term());
            vec![
                Constraint::le(&Expr::constant(lo), &form),
                Constraint::le(&form, &Expr::constant(hi)),
            ]
        }),
    ]
    .boxed()
}

/// A conjunction over `n` tuple variables and 0 to `max_exists`
/// existentials, every variable boxed by `-B..=B`. `None` when some
/// constraint is trivially false.
pub fn conjunction(n: usize, max_exists: usize) -> BoxedStrategy<Option<Conjunction>> {
    (0..=max_exists)
        .prop_flat_map(move |m| {
            prop::collection::vec(constraint_group(n, m), 0..=3).prop_map(move |groups| {
                let mut cs: Vec<Normalized> = groups.into_iter().flatten().collect();
                let vars = (0..n).map(Var::Tuple).chain((0..m).map(Var::Exist));
                for v in vars {
                    cs.push(Constraint::le(&Expr::constant(-B), &Expr::var(v)));
                    cs.push(Constraint::le(&Expr::var(v), &Expr::constant(B)));
                }
                Conjunction::from_parts(
                    (0..n).map(|i| format!("t{i}")).collect(),
                    (0..m).map(|j| format!("e{j}")).collect(),
                    cs,
                )
            })
        })
        .boxed()
}

/// A union of 1 or 2 conjunctions over `n` tuple variables.
pub fn formula(n: usize, max_exists: usize) -> BoxedStrategy<Formula> {
    prop::collection::vec(conjunction(n, max_exists), 1..=2)
        .prop_map(move |cs| Formula::from_conjunctions(n, cs.into_iter().flatten().collect()))
        .boxed()
}

/// A set of arity `n`.
pub fn set(n: usize, max_exists: usize) -> BoxedStrategy<Set> {
    formula(n, max_exists).prop_map(Set::from_formula).boxed()
}

/// A relation `n_in -> n_out`.
pub fn relation(n_in: usize, n_out: usize, max_exists: usize) -> BoxedStrategy<Relation> {
    formula(n_in + n_out, max_exists)
        .prop_map(move |f| Relation::from_formula(n_in, f))
        .boxed()
}

fn uf_table() -> impl Strategy<Value = UfTable> {
    (
        prop::collection::vec(-4i64..=4, TABLE_ARGS.count()),
        -4i64..=4,
    )
        .prop_map(|(values, default)| {
            let mut t = UfTable::new(1, default);
            for (x, v) in TABLE_ARGS.zip(values) {
                t.insert(vec![x], v);
            }
            t
        })
}

/// Values for `N`, `M` (0..=4) and tables for `f`, `g`.
pub fn interpretation() -> impl Strategy<Value = Interpretation> {
    (0i64..=4, 0i64..=4, uf_table(), uf_table()).prop_map(|(n, m, f, g)| {
        Interpretation::new()
            .with_symbol("N", n)
            .with_symbol("M", m)
            .with_uf("f", f)
            .with_uf("g", g)
    })
}

/// The points of a set, failing the test case on an enumeration error.
pub fn points(s: &Set, i: &Interpretation) -> Result<BTreeSet<Vec<i64>>, TestCaseError> {
    enumerate_set(s, i, &enum_bounds())
        .map_err(|e| TestCaseError::fail(format!("enumerating {s}: {e}")))
}

/// The pairs of a relation, failing the test case on an enumeration error.
pub fn pairs(r: &Relation, i: &Interpretation) -> Result<Pairs, TestCaseError> {
    enumerate_relation(r, i, &enum_bounds())
        .map_err(|e| TestCaseError::fail(format!("enumerating {r}: {e}")))
}
