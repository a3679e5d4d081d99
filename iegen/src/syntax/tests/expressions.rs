//! Expressions: names and numbers, precedence, unary minus, juxtaposition,
//! calls, byte-range spans, and floor division.

use crate::syntax::ast::*;
use crate::syntax::parse_formula;

use super::{add, call, e, mul, neg, num, sub, texpr, v, Unspan};

#[test]
fn names_numbers_and_primes() {
    assert_eq!(e("i"), v("i"));
    assert_eq!(e("i'"), v("i'"));
    assert_eq!(e("x_1''"), v("x_1''"));
    assert_eq!(e("_tmp"), v("_tmp"));
    assert_eq!(e("42"), num(42));
    assert_eq!(e("007"), num(7));
    assert_eq!(e("9223372036854775807"), num(i64::MAX));
}

#[test]
fn words_that_are_not_reserved_are_names() {
    for word in [
        "nondecreasing",
        "increasing",
        "nonincreasing",
        "decreasing",
        "union2",
        "order",
        "andy",
        "truex",
        "ufs",
        "exists_",
    ] {
        assert_eq!(e(word), v(word), "{word}");
    }
}

#[test]
fn sums_and_products_follow_the_usual_precedence() {
    assert_eq!(
        e("a + b * c - d"),
        sub(add(v("a"), mul(v("b"), v("c"))), v("d"))
    );
    assert_eq!(e("a - b - c"), sub(sub(v("a"), v("b")), v("c")));
    assert_eq!(e("a * b * c"), mul(mul(v("a"), v("b")), v("c")));
    assert_eq!(e("(a + b) * c"), mul(add(v("a"), v("b")), v("c")));
    assert_eq!(e("a - (b - c)"), sub(v("a"), sub(v("b"), v("c"))));
}

#[test]
fn unary_minus_binds_tighter_than_products() {
    assert_eq!(e("-a * b"), mul(neg(v("a")), v("b")));
    assert_eq!(e("a * -b"), mul(v("a"), neg(v("b"))));
    assert_eq!(e("a - -b"), sub(v("a"), neg(v("b"))));
    assert_eq!(e("--a"), neg(neg(v("a"))));
    assert_eq!(e("-1"), neg(num(1)));
    assert_eq!(e("-(a + b)"), neg(add(v("a"), v("b"))));
}

#[test]
fn juxtaposition_is_a_product_with_a_literal() {
    assert_eq!(e("2i"), mul(num(2), v("i")));
    assert_eq!(e("2 i"), mul(num(2), v("i")));
    assert_eq!(e("2*i"), mul(num(2), v("i")));
    assert_eq!(e("2 f(x)"), mul(num(2), call("f", vec![v("x")])));
    assert_eq!(e("3(i+1)"), mul(num(3), add(v("i"), num(1))));
    // Juxtaposition binds tighter than `*`, unary minus and `+`.
    assert_eq!(e("-2i"), neg(mul(num(2), v("i"))));
    assert_eq!(e("2i * 3j"), mul(mul(num(2), v("i")), mul(num(3), v("j"))));
    assert_eq!(
        e("2i + 3j - 1"),
        sub(add(mul(num(2), v("i")), mul(num(3), v("j"))), num(1))
    );
}

#[test]
fn juxtaposition_spans_cover_literal_and_operand() {
    let formula = parse_formula("{[2i, 3(i+1)]}").unwrap();
    let TupleElem::Expr(AstExpr::Mul(a, b, span)) = &formula.terms[0].input[0] else {
        panic!("{formula:?}")
    };
    assert_eq!(**a, AstExpr::Num(2, Span::new(2, 3)));
    assert_eq!(
        **b,
        AstExpr::Name(Ident {
            name: "i".into(),
            span: Span::new(3, 4)
        })
    );
    assert_eq!(*span, Span::new(2, 4));
    assert_eq!(
        formula.terms[0].input[1].clone().unspan(),
        texpr(e("3(i+1)"))
    );
    let TupleElem::Expr(second) = &formula.terms[0].input[1] else {
        panic!("{formula:?}")
    };
    assert_eq!(second.span(), Span::new(6, 12));
}

#[test]
fn calls_nest_and_take_expressions() {
    assert_eq!(
        e("f(g(k) + 1)"),
        call("f", vec![add(call("g", vec![v("k")]), num(1))])
    );
    assert_eq!(
        e("A(i, j + 1, B(2k))"),
        call(
            "A",
            vec![
                v("i"),
                add(v("j"), num(1)),
                call("B", vec![mul(num(2), v("k"))])
            ]
        )
    );
    assert_eq!(
        e("rowptr(i+1) - rowptr(i)"),
        sub(
            call("rowptr", vec![add(v("i"), num(1))]),
            call("rowptr", vec![v("i")])
        )
    );
}

#[test]
fn expression_spans_are_byte_ranges() {
    //          0123456789012345678901
    let src = "{[] : -a + f(b, 2) * c = 0}";
    let formula = parse_formula(src).unwrap();
    let AstConstraint::Chain { exprs, span, .. } = &formula.terms[0].body[0].constraints[0] else {
        panic!("{formula:?}")
    };
    assert_eq!(*span, Span::new(6, 26));
    let AstExpr::Sum(terms, sum_span) = &exprs[0] else {
        panic!("{exprs:?}")
    };
    assert_eq!(*sum_span, Span::new(6, 22));
    let [(Sign::Plus, lhs), (Sign::Plus, rhs)] = terms.as_slice() else {
        panic!("{terms:?}")
    };
    assert_eq!(lhs.span(), Span::new(6, 8));
    assert_eq!(&src[8 - 1..8], "a");
    let AstExpr::Mul(call_expr, c, mul_span) = rhs else {
        panic!("{rhs:?}")
    };
    assert_eq!(*mul_span, Span::new(11, 22));
    assert_eq!(
        &src[call_expr.span().start..call_expr.span().end],
        "f(b, 2)"
    );
    assert_eq!(&src[c.span().start..c.span().end], "c");
    assert_eq!(exprs[1], AstExpr::Num(0, Span::new(25, 26)));
    assert_eq!(formula.terms[0].span, Span::new(0, src.len()));
    assert_eq!(formula.span, Span::new(0, src.len()));
}

// ---------------------------------------------------------- floor division

#[test]
fn floor_division_parses_prints_and_evaluates() {
    use crate::set::Set;
    let s: Set = "{[i, b] : b = floor(i / 2) && 0 <= i < 5}".parse().unwrap();
    // Printing writes the floor back in a form that parses to the same set.
    let printed = s.to_string();
    assert!(printed.contains("floor(i / 2)"), "{printed}");
    let again: Set = printed.parse().unwrap();
    assert_eq!(again, s);
    // A multiple of the divisor divides out; a constant folds.
    let t: Set = "{[i, b] : b = floor((2i + 3) / 2)}".parse().unwrap();
    assert!(!t.to_string().contains("floor"), "{t}");
    // Bad forms are located errors.
    for (text, message) in [
        ("{[i] : i = 3 / 2}", "floor(e / m)"),
        ("{[i] : i = floor(i / 0)}", "positive integer constant"),
        ("{[i] : i = floor(i / N)}", "positive integer constant"),
        ("{[i] : i = floor(i)}", "one division"),
    ] {
        let err = text.parse::<Set>().unwrap_err().to_string();
        assert!(err.contains(message), "{text}: {err}");
    }
}

#[test]
fn z3_reasons_about_floor_division() {
    use crate::set::Set;
    use crate::solver::Prover;
    use crate::uf_env::UfEnvironment;
    let env = UfEnvironment::default();
    let prover = Prover::new(&env);
    let all: Set = "{[i] : 0 <= i < 100}".parse().unwrap();
    let remainder: Set = "{[i] : 0 <= i - 2 * floor(i / 2) <= 1}".parse().unwrap();
    assert!(prover.is_subset(&all, &remainder).unwrap().holds());
    // Floor, not truncation: -1 / 2 is -1.
    let negative: Set = "{[i] : i = -1 && floor(i / 2) = -1}".parse().unwrap();
    assert!(!prover.is_empty(&negative).holds());
    let wrong: Set = "{[i] : 0 <= i && floor(i / 2) > i}".parse().unwrap();
    assert!(prover.is_empty(&wrong).holds());
}
