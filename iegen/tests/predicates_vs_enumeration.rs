//! The z3-backed predicates agree with brute-force enumeration.
//!
//! Soundness everywhere: a predicate the prover proves must hold on every
//! random interpretation (of the UFs as total functions, and of the symbols)
//! that satisfies the environment. Completeness where z3 decides: on
//! instances without UFs and symbols every variable is boxed, so enumeration
//! is exact and the prover's answer must match it.

mod random_instances;

use std::collections::BTreeSet;

use iegen::calc::Calculator;
use iegen::eval::{Interpretation, UfTable};
use iegen::{Prover, Set, UfEnvironment, Verdict};
use proptest::collection::vec;
use proptest::prelude::*;
use random_instances::{interpretation, points, set};

/// Whether the set mentions no UF and no symbolic constant.
fn is_closed(s: &Set) -> bool {
    s.conjunctions()
        .iter()
        .all(|c| c.uf_names().is_empty() && c.symbols().is_empty())
}

fn sets_of_equal_arity() -> impl Strategy<Value = (Set, Set)> {
    (1usize..=2).prop_flat_map(|n| (set(n, 1), set(n, 1)))
}

fn union_of_points(
    s: &Set,
    interps: &[Interpretation],
) -> Result<Vec<BTreeSet<Vec<i64>>>, TestCaseError> {
    interps.iter().map(|i| points(s, i)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn emptiness_agrees_with_enumeration(
        s in (1usize..=3).prop_flat_map(|n| set(n, 2)),
        interps in vec(interpretation(), 3),
    ) {
        let env = UfEnvironment::new();
        let verdict = Prover::new(&env).is_empty(&s);
        let found = union_of_points(&s, &interps)?;
        let has_points = found.iter().any(|p| !p.is_empty());
        if verdict.holds() {
            prop_assert!(!has_points, "proved empty but has points: {}", s);
        }
        if is_closed(&s) && verdict != Verdict::Unknown {
            prop_assert_eq!(verdict.holds(), !has_points, "z3 must decide {}", s);
        }
    }

    #[test]
    fn subset_and_equality_agree_with_enumeration(
        (a, b) in sets_of_equal_arity(),
        interps in vec(interpretation(), 3),
    ) {
        let env = UfEnvironment::new();
        let prover = Prover::new(&env);
        let subset = prover.is_subset(&a, &b).expect("same arity");
        let equal = prover.is_equal(&a, &b).expect("same arity");
        let pa = union_of_points(&a, &interps)?;
        let pb = union_of_points(&b, &interps)?;
        let really_subset = pa.iter().zip(&pb).all(|(x, y)| x.is_subset(y));
        let really_equal = pa == pb;
        if subset.holds() {
            prop_assert!(really_subset, "proved {} ⊆ {} but it is not", a, b);
        }
        if equal.holds() {
            prop_assert!(really_equal, "proved {} = {} but it is not", a, b);
        }
        if is_closed(&a) && is_closed(&b) {
            if subset != Verdict::Unknown {
                prop_assert_eq!(subset.holds(), really_subset, "{} ⊆ {}", a, b);
            }
            if equal != Verdict::Unknown {
                prop_assert_eq!(equal.holds(), really_equal, "{} = {}", a, b);
            }
        }
    }

    /// With an environment, the facts must only be used where they hold:
    /// `f` is declared nondecreasing with a range on a domain, and every
    /// interpretation satisfies that declaration (and nothing more: `f` is
    /// arbitrary outside its domain).
    #[test]
    fn environment_facts_are_sound(
        s in (1usize..=2).prop_flat_map(|n| set(n, 1)),
        mut inside in vec(0i64..=2, 4),
        outside in -6i64..=6,
        base in interpretation(),
    ) {
        let mut calc = Calculator::new();
        calc.run(
            "uf f : {[x] : 0 <= x <= 3} -> {[y] : 0 <= y <= 2} nondecreasing;",
            &mut |_| {},
        )
        .expect("declaration is valid");
        inside.sort_unstable();
        let interp = base.with_uf("f", UfTable::from_array(&inside, outside));
        let verdict = Prover::new(calc.env()).is_empty(&s);
        if verdict.holds() {
            prop_assert!(points(&s, &interp)?.is_empty(), "proved empty under the environment: {}", s);
        }
    }

    /// Sets that probe the declaration's edges: calls of `f` inside and
    /// outside its domain, compared with constants and with each other.
    #[test]
    fn environment_facts_hold_at_the_domain_edges(
        lo in -2i64..=5,
        width in 0i64..=3,
        k in -3i64..=4,
        op in prop::sample::select(vec!["<", "<=", "=", ">=", ">"]),
        pair in any::<bool>(),
        mut inside in vec(0i64..=2, 4),
        outside in -6i64..=6,
        base in interpretation(),
    ) {
        let mut calc = Calculator::new();
        calc.run(
            "uf f : {[x] : 0 <= x <= 3} -> {[y] : 0 <= y <= 2} nondecreasing;",
            &mut |_| {},
        )
        .expect("declaration is valid");
        let hi = lo + width;
        let text = if pair {
            format!("{{[i, j] : {lo} <= i < j <= {hi} && f(i) {op} f(j) + {k}}}")
        } else {
            format!("{{[i] : {lo} <= i <= {hi} && f(i) {op} {k}}}")
        };
        let s: Set = text.parse().expect("generated text parses");
        inside.sort_unstable();
        let interp = base.with_uf("f", UfTable::from_array(&inside, outside));
        if Prover::new(calc.env()).is_empty(&s).holds() {
            prop_assert!(points(&s, &interp)?.is_empty(), "proved empty under the environment: {}", s);
        }
    }
}

#[test]
fn environment_proves_what_enumeration_cannot_refute() {
    // A case the environment decides and no environment-free reasoning can:
    // f nondecreasing on 0..=3, so f(0) <= f(3).
    let mut calc = Calculator::new();
    calc.run(
        "uf f : {[x] : 0 <= x <= 3} -> {[y] : 0 <= y <= 2} nondecreasing;",
        &mut |_| {},
    )
    .expect("declaration is valid");
    let s: Set = "{[i] : i = 0 && f(i) > f(3)}".parse().expect("parses");
    assert!(Prover::new(calc.env()).is_empty(&s).holds());
    let bare = UfEnvironment::new();
    assert!(!Prover::new(&bare).is_empty(&s).holds());
}
