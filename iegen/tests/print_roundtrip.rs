//! The printer's contract: parsing what it prints gives back an equal value,
//! structurally (variable names aside).
//!
//! Instances are random small sets and relations with uninterpreted
//! functions (see `random_instances`), printed as generated, simplified, and
//! (for relations) inverted.

mod random_instances;

use iegen::{Conjunction, Constraint, Expr, Formula, Relation, Set, Var};
use proptest::prelude::*;
use random_instances::{relation, set};

fn a_relation() -> impl Strategy<Value = Relation> {
    prop::sample::select(vec![(1usize, 1usize), (1, 2), (2, 1)])
        .prop_flat_map(|(a, b)| relation(a, b, 2))
}

/// `{[i, j] : i = j && 0 <= j}`: the printer shows `[i, i]` and must not
/// turn the bound on `j` into a bound on `i`.
#[test]
fn aliased_tuple_position_keeps_its_own_constraints() {
    let (i, j) = (Expr::var(Var::Tuple(0)), Expr::var(Var::Tuple(1)));
    let c = Conjunction::from_parts(
        vec!["i".into(), "j".into()],
        vec![],
        [
            Constraint::equal(&i, &j),
            Constraint::le(&Expr::constant(0), &j),
        ],
    )
    .expect("satisfiable");
    let s = Set::from_formula(Formula::from_conjunctions(2, vec![c]));
    let text = s.to_string();
    let back: Set = text.parse().expect("the printer's output parses");
    assert_eq!(back, s, "{text} parsed back as {back}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Printing then parsing gives back the same set.
    #[test]
    fn set_print_parse_round_trip(s in (1usize..=3).prop_flat_map(|n| set(n, 2))) {
        for s in [s.clone(), s.simplify()] {
            let text = s.to_string();
            let back: Set = text
                .parse()
                .map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
            prop_assert_eq!(&back, &s, "{} parsed back as {}", text, back);
        }
    }

    /// Printing then parsing gives back the same relation.
    #[test]
    fn relation_print_parse_round_trip(r in a_relation()) {
        for r in [r.clone(), r.simplify(), r.inverse()] {
            let text = r.to_string();
            let back: Relation = text
                .parse()
                .map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
            prop_assert_eq!(&back, &r, "{} parsed back as {}", text, back);
        }
    }
}
