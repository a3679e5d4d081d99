//! Depth and length: deep nesting is an error rather than a stack overflow,
//! flat sums of any length parse and lower, and the deepest accepted trees
//! are usable on a test thread.

use crate::syntax::ast::*;
use crate::syntax::{parse_calc_expr, parse_formula, parse_program};

use super::{f, formula_err, p, program_err};

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let message = format!(
        "expression nested too deeply (more than {} levels)",
        crate::syntax::MAX_NESTING
    );
    // A long product nests; a sum does not.
    let long_product = format!("{{[] : {}i = 0}}", "i*".repeat(100_000));
    assert_eq!(formula_err(&long_product).message, message);
    let after_error = format!("{{[] : {}i $ 0}}", "i*".repeat(100_000));
    assert_eq!(formula_err(&after_error).message, message);
    let quotients = format!("{{[] : floor(i{}) = 0}}", " / i".repeat(100_000));
    assert_eq!(formula_err(&quotients).message, message);
    let right_nested = format!(
        "{{[] : {}i{} = 0}}",
        "2*(".repeat(100_000),
        ")".repeat(100_000)
    );
    assert_eq!(formula_err(&right_nested).message, message);
    // Minus signs after an operator are prefix, and nest.
    let negated_terms = format!("{{[] : i + {}i = 0}}", "-".repeat(100_000));
    assert_eq!(formula_err(&negated_terms).message, message);
    let spaced = format!("{{[] : {}i = 0}}", "- ".repeat(100_000));
    assert_eq!(formula_err(&spaced).message, message);
    let negations = format!("{{[] : {}i = 0}}", "-".repeat(100_000));
    assert_eq!(formula_err(&negations).message, message);
    let parens = format!(
        "{{[] : {}i{} = 0}}",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    assert_eq!(formula_err(&parens).message, message);
    let calls = format!("{}S{};", "f(".repeat(100_000), ")".repeat(100_000));
    let err = program_err(&calls);
    assert_eq!(err.message, message);
    assert_eq!(err.line, 1);
    let unclosed = "(".repeat(100_000);
    assert_eq!(program_err(&unclosed).message, message);
}

/// `{[i] : TERMS = 0}` with `n` terms `i`, `-i`, `+1`, ... in turn.
fn long_sum_set(n: usize) -> (String, i64, i64) {
    let mut text = String::from("i");
    let (mut coefficient, mut constant) = (1_i64, 0_i64);
    for k in 1..n {
        match k % 3 {
            0 => {
                text.push_str(" + i");
                coefficient += 1;
            }
            1 => {
                text.push_str(" - i");
                coefficient -= 1;
            }
            _ => {
                text.push_str(" + 1");
                constant += 1;
            }
        }
    }
    (format!("{{[i] : {text} = 0}}"), coefficient, constant)
}

#[test]
fn a_flat_sum_of_any_length_parses_and_lowers() {
    for n in [1001, 100_000] {
        let (src, coefficient, constant) = long_sum_set(n);
        let formula = parse_formula(&src).unwrap_or_else(|e| panic!("{n}: {e}"));
        let AstConstraint::Chain { exprs, .. } = &formula.terms[0].body[0].constraints[0] else {
            panic!("{n}: not a chain")
        };
        let AstExpr::Sum(terms, _) = &exprs[0] else {
            panic!("{n}: not a sum")
        };
        assert_eq!(terms.len(), n);
        // Drop, clone and compare a copy on this test thread's small stack.
        assert_eq!(formula.clone(), formula);
        let got: crate::set::Set = src.parse().unwrap_or_else(|e| panic!("{n}: {e}"));
        let want: crate::set::Set = format!("{{[i] : {coefficient}i + {constant} = 0}}")
            .parse()
            .unwrap();
        assert_eq!(got, want, "{n}");
    }
    // 1001 terms `i` are 1001i = 0, which is i = 0.
    let src = format!("{{[i] : i{} = 0}}", " + i".repeat(1000));
    let got: crate::set::Set = src.parse().unwrap();
    assert_eq!(got, "{[i] : i = 0}".parse().unwrap());
    let subtracted = format!("{{[i] : 1000 = i{}}}", " - i + 2".repeat(500));
    let got: crate::set::Set = subtracted.parse().unwrap();
    assert_eq!(got, "{[i] : i = 0}".parse().unwrap());
    // Sums inside calls, inside parentheses, and 450 nested groups of ten
    // terms each (a group and its sum are two levels).
    let src = format!("{{[i] : f({}i) = 0}}", "i + 2 - (i - 1) + ".repeat(30_000));
    assert!(parse_formula(&src).is_ok());
    let nested = format!(
        "{{[i] : {}i{} = 0}}",
        "(i + i + i + i + i + i + i + i + i + ".repeat(450),
        ")".repeat(450)
    );
    let got: crate::set::Set = nested.parse().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got, "{[i] : i = 0}".parse().unwrap());
}

#[test]
fn calc_reads_a_long_sum() {
    let (set, coefficient, constant) = long_sum_set(100_000);
    let program = format!("S := {set};\nS;\n");
    let statements = parse_program(&program).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(statements.len(), 2);
    let expr = parse_calc_expr(&format!("intersection({set}, {set})")).unwrap();
    assert!(matches!(expr, CalcExpr::Call(..)));
    let sum = crate::syntax::parse_index_expr(&format!("1{}", " + N - 1".repeat(50_000))).unwrap();
    let lowered = crate::lower::lower_expr("", &sum, &|_| None).unwrap();
    let n = crate::expr::Expr::sym("N");
    assert_eq!(
        lowered,
        n.scale(50_000).plus(&crate::expr::Expr::constant(-49_999))
    );
    // The set of the program equals the canonical one.
    let want: crate::set::Set = format!("{{[i] : {coefficient}i + {constant} = 0}}")
        .parse()
        .unwrap();
    let Statement::Assign(_, CalcExpr::Literal(formula), _) = &statements[0] else {
        panic!("not an assignment")
    };
    let got = crate::lower::lower_formula(&program, formula).unwrap();
    assert_eq!(got, crate::value::Value::Set(want));
}

#[test]
fn wide_input_is_not_deep() {
    let tuple = format!("{{[{}]}}", vec!["0"; 5000].join(", "));
    assert_eq!(f(&tuple).terms[0].input.len(), 5000);
    let conjunction = format!("{{[i] : {}}}", vec!["0 <= i + 1"; 5000].join(" && "));
    assert_eq!(f(&conjunction).terms[0].body[0].constraints.len(), 5000);
    let terms = vec!["{[i] -> [i + 1] : (i) >= 0}"; 2000].join(" union ");
    assert_eq!(f(&terms).terms.len(), 2000);
    let args = format!("{{[] : f({}) = 0}}", vec!["2i - 1"; 5000].join(", "));
    assert!(parse_formula(&args).is_ok());
    let program = "S := compose(R, inverse(R));\n".repeat(5000);
    assert_eq!(p(&program).len(), 5000);
}

#[test]
fn the_deepest_accepted_trees_can_be_used_on_a_test_thread() {
    // Test threads have 2 MiB stacks; the trees' derives recurse.
    let depth = crate::syntax::MAX_NESTING - 10;
    let product = format!("{{[] : {}i = 0}}", "i*".repeat(depth));
    let negations = format!("{{[] : {}i = 0}}", "-".repeat(depth));
    let sums = format!(
        "{{[] : {}i{} = 0}}",
        "(i + i + i + ".repeat(depth / 2),
        ")".repeat(depth / 2)
    );
    for src in [product, negations, sums] {
        let parsed = parse_formula(&src).unwrap_or_else(|e| panic!("{e}"));
        let copy = parsed.clone();
        assert_eq!(copy, parsed);
        assert!(format!("{copy:?}").len() > depth);
    }
    let calls = format!("{}S{};", "f(".repeat(depth / 2), ")".repeat(depth / 2));
    let parsed = parse_program(&calls).unwrap_or_else(|e| panic!("{e}"));
    let copy = parsed.clone();
    assert_eq!(copy, parsed);
    assert!(format!("{copy:?}").len() > depth);
}
