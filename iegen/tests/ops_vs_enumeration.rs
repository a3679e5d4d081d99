//! The relation operations agree exactly with brute-force set semantics.
//!
//! Each property builds small random sets or relations with uninterpreted
//! functions (see `random_instances`), picks a random interpretation of the
//! symbols and UFs as total functions, and checks that the points of the
//! operation's result are exactly the points the operation's definition
//! predicts from the points of its operands.

mod random_instances;

use std::collections::BTreeSet;

use iegen::eval::{set_contains, Interpretation, Pairs};
use iegen::{Relation, Set, Var};
use proptest::prelude::*;
use random_instances::{enum_bounds, interpretation, pairs, points, relation, set, B};

/// Relation shapes `(in, out)` with at most three tuple variables.
fn shape() -> impl Strategy<Value = (usize, usize)> {
    prop::sample::select(vec![(1, 1), (1, 2), (2, 1)])
}

/// `(nx, m, nz)` for `R1: m -> nz` composed after `R2: nx -> m`.
fn compose_shape() -> impl Strategy<Value = (usize, usize, usize)> {
    prop::sample::select(vec![(1, 1, 1), (1, 1, 2), (2, 1, 1), (1, 2, 1), (2, 1, 2)])
}

fn sets_of_equal_arity() -> impl Strategy<Value = (Set, Set)> {
    (1usize..=3).prop_flat_map(|n| (set(n, 2), set(n, 2)))
}

fn relations_of_equal_shape() -> impl Strategy<Value = (Relation, Relation)> {
    shape().prop_flat_map(|(a, b)| (relation(a, b, 2), relation(a, b, 2)))
}

fn a_relation() -> impl Strategy<Value = Relation> {
    shape().prop_flat_map(|(a, b)| relation(a, b, 2))
}

fn flatten(p: &Pairs) -> BTreeSet<Vec<i64>> {
    p.iter()
        .map(|(x, y)| x.iter().chain(y).copied().collect())
        .collect()
}

/// Every tuple of `lo..=hi` to the power `n`.
fn all_tuples(n: usize, lo: i64, hi: i64) -> Vec<Vec<i64>> {
    let mut out = vec![Vec::new()];
    for _ in 0..n {
        out = out
            .into_iter()
            .flat_map(|t| {
                (lo..=hi).map(move |x| {
                    let mut t = t.clone();
                    t.push(x);
                    t
                })
            })
            .collect();
    }
    out
}

/// The points of a set by scanning every tuple and every existential
/// value in `-B..=B` (exact, as every variable is boxed there).
fn naive_points(s: &Set, i: &Interpretation) -> Result<BTreeSet<Vec<i64>>, TestCaseError> {
    let mut out = BTreeSet::new();
    for c in s.conjunctions() {
        let witnesses = all_tuples(c.num_exists(), -B, B);
        for t in all_tuples(c.arity(), -B, B) {
            for w in &witnesses {
                let mut holds = true;
                for k in c.constraints() {
                    let value = i
                        .evaluate(k.expr(), &mut |v| match v {
                            Var::Tuple(p) => t.get(p).copied(),
                            Var::Exist(q) => w.get(q).copied(),
                        })
                        .map_err(|e| TestCaseError::fail(e.to_string()))?;
                    holds &= if k.is_eq() { value == 0 } else { value >= 0 };
                }
                if holds {
                    out.insert(t.clone());
                    break;
                }
            }
        }
    }
    Ok(out)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The oracle itself: enumeration and membership agree with a naive
    /// scan of the box.
    #[test]
    fn enumeration_matches_a_naive_scan(
        s in (1usize..=3).prop_flat_map(|n| set(n, 2)),
        i in interpretation(),
    ) {
        let fast = points(&s, &i)?;
        prop_assert_eq!(&fast, &naive_points(&s, &i)?, "enumerating {}", s);
        let (lo, hi) = enum_bounds().box_.unwrap_or((-B, B));
        for t in all_tuples(s.arity(), lo, hi) {
            let member = set_contains(&s, &t, &i, &enum_bounds())
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(member, fast.contains(&t), "{:?} in {}", t, s);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Simplification (substitution, Fourier–Motzkin, bound merging) keeps
    /// exactly the points.
    #[test]
    fn simplify_keeps_the_points(
        s in (1usize..=3).prop_flat_map(|n| set(n, 2)),
        i in interpretation(),
    ) {
        let simple = s.simplify();
        prop_assert_eq!(points(&simple, &i)?, points(&s, &i)?, "simplify({}) = {}", s, simple);
        let r = Relation::from_formula(1.min(s.arity()), s.formula().clone());
        prop_assert_eq!(pairs(&r.simplify(), &i)?, pairs(&r, &i)?);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    /// Union and intersection of sets are the set-theoretic ones.
    #[test]
    fn set_union_and_intersection((a, b) in sets_of_equal_arity(), i in interpretation()) {
        let (pa, pb) = (points(&a, &i)?, points(&b, &i)?);
        let u = a.union(&b).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(points(&u, &i)?, &pa | &pb);
        let n = a.intersect(&b).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(points(&n, &i)?, &pa & &pb, "{} ∩ {} = {}", a, b, n);
    }

    /// Union and intersection of relations are the set-theoretic ones.
    #[test]
    fn relation_union_and_intersection(
        (a, b) in relations_of_equal_shape(),
        i in interpretation(),
    ) {
        let (pa, pb) = (pairs(&a, &i)?, pairs(&b, &i)?);
        let u = a.union(&b).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(pairs(&u, &i)?, &pa | &pb);
        let n = a.intersect(&b).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(pairs(&n, &i)?, &pa & &pb, "{} ∩ {} = {}", a, b, n);
    }

    /// The inverse swaps every pair.
    #[test]
    fn inverse_swaps_pairs(r in a_relation(), i in interpretation()) {
        let inv = r.inverse();
        prop_assert_eq!(inv.in_arity(), r.out_arity());
        let expected: Pairs = pairs(&r, &i)?.into_iter().map(|(x, y)| (y, x)).collect();
        prop_assert_eq!(pairs(&inv, &i)?, expected, "inverse({}) = {}", r, inv);
    }

    /// `R1 ∘ R2 = {(x, z) : exists y, (x, y) ∈ R2 && (y, z) ∈ R1}`.
    #[test]
    fn compose_joins_through_the_middle(
        (r1, r2) in compose_shape().prop_flat_map(|(nx, m, nz)| (relation(m, nz, 2), relation(nx, m, 2))),
        i in interpretation(),
    ) {
        let c = r1.compose(&r2).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(c.in_arity(), r2.in_arity());
        prop_assert_eq!(c.out_arity(), r1.out_arity());
        let (p1, p2) = (pairs(&r1, &i)?, pairs(&r2, &i)?);
        let expected: Pairs = p2
            .iter()
            .flat_map(|(x, y)| {
                p1.iter()
                    .filter(move |(y1, _)| y1 == y)
                    .map(move |(_, z)| (x.clone(), z.clone()))
            })
            .collect();
        prop_assert_eq!(pairs(&c, &i)?, expected, "{} ∘ {} = {}", r1, r2, c);
    }

    /// `R(S) = {y : exists x ∈ S, (x, y) ∈ R}`.
    #[test]
    fn apply_is_the_image(
        (r, s) in shape().prop_flat_map(|(a, b)| (relation(a, b, 2), set(a, 2))),
        i in interpretation(),
    ) {
        let img = r.apply(&s).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let ps = points(&s, &i)?;
        let expected: BTreeSet<Vec<i64>> = pairs(&r, &i)?
            .into_iter()
            .filter(|(x, _)| ps.contains(x))
            .map(|(_, y)| y)
            .collect();
        prop_assert_eq!(points(&img, &i)?, expected, "{}({}) = {}", r, s, img);
    }

    /// Domain and range are the projections on the input and output tuples.
    #[test]
    fn domain_and_range_project(r in a_relation(), i in interpretation()) {
        let p = pairs(&r, &i)?;
        let dom = r.domain();
        let ran = r.range();
        prop_assert_eq!(dom.arity(), r.in_arity());
        prop_assert_eq!(ran.arity(), r.out_arity());
        let expected_dom: BTreeSet<Vec<i64>> = p.iter().map(|(x, _)| x.clone()).collect();
        let expected_ran: BTreeSet<Vec<i64>> = p.iter().map(|(_, y)| y.clone()).collect();
        prop_assert_eq!(points(&dom, &i)?, expected_dom, "domain({}) = {}", r, dom);
        prop_assert_eq!(points(&ran, &i)?, expected_ran, "range({}) = {}", r, ran);
    }

    /// Projecting out position `p` of a set drops that coordinate of every point.
    #[test]
    fn set_project_out_each_position(
        s in (1usize..=3).prop_flat_map(|n| set(n, 2)),
        i in interpretation(),
    ) {
        let ps = points(&s, &i)?;
        for p in 0..s.arity() {
            let proj = s.project_out(p).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(proj.arity(), s.arity() - 1);
            let expected: BTreeSet<Vec<i64>> = ps
                .iter()
                .map(|t| {
                    let mut t = t.clone();
                    t.remove(p);
                    t
                })
                .collect();
            prop_assert_eq!(points(&proj, &i)?, expected, "project_out({}, {}) = {}", s, p, proj);
        }
        prop_assert!(s.project_out(s.arity()).is_err());
    }

    /// Projecting out position `p` of a relation (over input ++ output).
    #[test]
    fn relation_project_out_each_position(r in a_relation(), i in interpretation()) {
        let flat = flatten(&pairs(&r, &i)?);
        let n = r.in_arity() + r.out_arity();
        for p in 0..n {
            let proj = r.project_out(p).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let expected_in = if p < r.in_arity() { r.in_arity() - 1 } else { r.in_arity() };
            prop_assert_eq!(proj.in_arity(), expected_in);
            let expected: BTreeSet<Vec<i64>> = flat
                .iter()
                .map(|t| {
                    let mut t = t.clone();
                    t.remove(p);
                    t
                })
                .collect();
            prop_assert_eq!(flatten(&pairs(&proj, &i)?), expected, "project_out({}, {}) = {}", r, p, proj);
        }
    }
}

/// The COO map enumerates in time linear in its entries: `n` determines
/// `ii = row(n)` and `i = ii`, so no `(i, n)` pairs are tried. With the old
/// "smallest range first" order this exceeded the step budget.
#[test]
fn coo_map_enumeration_is_linear() {
    let coo: Relation = "{[n, ii, jj] -> [i, j] : i = ii && j = jj && ii = row(n) && jj = col(n) \
                         && 0 <= n < NNZ && 0 <= i < NR && 0 <= j < NC}"
        .parse()
        .expect("parses");
    let nnz = 3000usize;
    let rows: Vec<i64> = (0..nnz as i64).map(|n| (n * 7) % 500).collect();
    let cols: Vec<i64> = (0..nnz as i64).map(|n| (n * 13) % 500).collect();
    let interp = Interpretation::new()
        .with_symbol("NNZ", nnz as i64)
        .with_symbol("NR", 500)
        .with_symbol("NC", 500)
        .with_uf("row", iegen::eval::UfTable::from_array(&rows, 0))
        .with_uf("col", iegen::eval::UfTable::from_array(&cols, 0));
    let bounds = iegen::eval::Bounds {
        box_: None,
        max_points: 1_000_000,
        max_steps: 200_000,
    };
    let pairs =
        iegen::eval::enumerate_relation(&coo, &interp, &bounds).expect("linear enumeration");
    assert_eq!(pairs.len(), nnz);
}
