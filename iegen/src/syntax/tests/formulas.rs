//! Formulas: tuples, relations' output tuples, empty tuples and missing
//! bodies, unions, comments and whitespace.

use crate::syntax::ast::*;
use crate::syntax::parse_formula;

use super::{
    add, call, chain, cmp, conj, f, formula, mul, neg, no_body, num, rel, set, texpr, tvar, v, vars,
};

#[test]
fn tuple_elements_are_variables_or_expressions() {
    assert_eq!(
        f("{[0,i,0]}"),
        formula(vec![set(
            vec![texpr(num(0)), tvar("i"), texpr(num(0))],
            no_body()
        )])
    );
    assert_eq!(
        f("{[i+1, -1, 2i, f(i), (j), i']}"),
        formula(vec![set(
            vec![
                texpr(add(v("i"), num(1))),
                texpr(neg(num(1))),
                texpr(mul(num(2), v("i"))),
                texpr(call("f", vec![v("i")])),
                texpr(v("j")),
                tvar("i'"),
            ],
            no_body()
        )])
    );
}

#[test]
fn relations_have_an_output_tuple() {
    assert_eq!(
        f("{[i, j] -> [0, i, 1, j] : 0 <= i < N}"),
        formula(vec![rel(
            vars(&["i", "j"]),
            vec![texpr(num(0)), tvar("i"), texpr(num(1)), tvar("j")],
            vec![conj(vec![chain(
                vec![num(0), v("i"), v("N")],
                vec![CmpOp::Le, CmpOp::Lt]
            )])]
        )])
    );
    assert_eq!(
        f("{[i]->[i']}"),
        formula(vec![rel(vars(&["i"]), vars(&["i'"]), no_body())])
    );
}

#[test]
fn empty_tuples_and_missing_bodies() {
    assert_eq!(f("{[]}"), formula(vec![set(Vec::new(), no_body())]));
    assert_eq!(
        f("{[] -> []}"),
        formula(vec![rel(Vec::new(), Vec::new(), no_body())])
    );
    assert_eq!(
        f("{[] -> [i]}"),
        formula(vec![rel(Vec::new(), vars(&["i"]), no_body())])
    );
    assert_eq!(
        f("{[] : N > 0}"),
        formula(vec![set(
            Vec::new(),
            vec![conj(vec![cmp(v("N"), CmpOp::Gt, num(0))])]
        )])
    );
}

#[test]
fn union_joins_terms() {
    assert_eq!(
        f("{[i] : i = 0} union {[i] -> [j]} union {[]}"),
        formula(vec![
            set(
                vars(&["i"]),
                vec![conj(vec![cmp(v("i"), CmpOp::Eq, num(0))])]
            ),
            rel(vars(&["i"]), vars(&["j"]), no_body()),
            set(Vec::new(), no_body()),
        ])
    );
    let src = "{[i]} union {[j]}";
    let exact = parse_formula(src).unwrap();
    assert_eq!(exact.span, Span::new(0, src.len()));
    assert_eq!(exact.terms[0].span, Span::new(0, 5));
    assert_eq!(exact.terms[1].span, Span::new(12, 17));
}

#[test]
fn comments_and_whitespace_are_skipped() {
    let src = "# a comment\n{[i, j] # the tuple\n  : i < j # done\n}\t# last, no newline";
    assert_eq!(
        f(src),
        formula(vec![set(
            vars(&["i", "j"]),
            vec![conj(vec![cmp(v("i"), CmpOp::Lt, v("j"))])]
        )])
    );
    // Comments may hold any character.
    assert_eq!(
        f("{[]} # ∀ ünïcödé ✓ $ {"),
        formula(vec![set(Vec::new(), no_body())])
    );
    assert_eq!(
        f("{[]}\r\n# crlf\r\n"),
        formula(vec![set(Vec::new(), no_body())])
    );
    // The formula's span does not include trailing comments.
    assert_eq!(parse_formula("  {[]}  # x").unwrap().span, Span::new(2, 6));
}
