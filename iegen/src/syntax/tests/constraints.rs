//! Constraints: comparison operators and chains, conjunctions and
//! disjunctions, `true`/`false`, and `exists`.

use crate::syntax::ast::*;
use crate::syntax::parse_formula;

use super::{add, call, chain, cmp, conj, exists, f, formula, mul, neg, num, set, v, vars};

#[test]
fn every_comparison_operator() {
    let cases = [
        ("=", CmpOp::Eq),
        ("==", CmpOp::Eq),
        ("<", CmpOp::Lt),
        ("<=", CmpOp::Le),
        (">", CmpOp::Gt),
        (">=", CmpOp::Ge),
    ];
    for (text, op) in cases {
        let src = format!("{{[i] : i {text} 0}}");
        assert_eq!(
            f(&src),
            formula(vec![set(
                vars(&["i"]),
                vec![conj(vec![cmp(v("i"), op, num(0))])]
            )]),
            "{src}"
        );
    }
    // Without spaces the lexer still takes the longest operator.
    assert_eq!(
        f("{[i]:i>=-1}"),
        formula(vec![set(
            vars(&["i"]),
            vec![conj(vec![cmp(v("i"), CmpOp::Ge, neg(num(1)))])]
        )])
    );
}

#[test]
fn a_chain_is_one_constraint() {
    assert_eq!(
        f("{[i,k] : rowptr(i) <= k < rowptr(i+1)}"),
        formula(vec![set(
            vars(&["i", "k"]),
            vec![conj(vec![chain(
                vec![
                    call("rowptr", vec![v("i")]),
                    v("k"),
                    call("rowptr", vec![add(v("i"), num(1))]),
                ],
                vec![CmpOp::Le, CmpOp::Lt],
            )])]
        )])
    );
    assert_eq!(
        f("{[i] : 0 <= i < N = M >= 1}"),
        formula(vec![set(
            vars(&["i"]),
            vec![conj(vec![chain(
                vec![num(0), v("i"), v("N"), v("M"), num(1)],
                vec![CmpOp::Le, CmpOp::Lt, CmpOp::Eq, CmpOp::Ge],
            )])]
        )])
    );
}

#[test]
fn and_and_ampersands_build_one_conjunction() {
    let expected = formula(vec![set(
        vars(&["i", "j"]),
        vec![conj(vec![
            cmp(num(0), CmpOp::Le, v("i")),
            cmp(v("i"), CmpOp::Lt, v("N")),
            cmp(v("j"), CmpOp::Eq, mul(num(2), v("i"))),
        ])],
    )]);
    assert_eq!(f("{[i,j] : 0 <= i && i < N && j = 2i}"), expected);
    assert_eq!(f("{[i,j] : 0 <= i and i < N and j = 2i}"), expected);
    assert_eq!(f("{[i,j] : 0 <= i and i < N && j = 2i}"), expected);
}

#[test]
fn or_and_pipes_separate_conjunctions() {
    let expected = formula(vec![set(
        vars(&["i"]),
        vec![
            conj(vec![
                cmp(v("i"), CmpOp::Eq, num(0)),
                cmp(v("N"), CmpOp::Gt, num(0)),
            ]),
            conj(vec![cmp(v("i"), CmpOp::Eq, num(1))]),
            conj(vec![cmp(v("i"), CmpOp::Eq, num(2))]),
        ],
    )]);
    assert_eq!(f("{[i] : i = 0 && N > 0 || i = 1 || i = 2}"), expected);
    assert_eq!(f("{[i] : i = 0 and N > 0 or i = 1 or i = 2}"), expected);
    assert_eq!(f("{[i] : i = 0 && N > 0 or i = 1 || i = 2}"), expected);
}

#[test]
fn true_and_false_constraints() {
    let formula_ = f("{[i] : true && false || true}");
    assert_eq!(
        formula_,
        formula(vec![set(
            vars(&["i"]),
            vec![
                conj(vec![
                    AstConstraint::True(Span::default()),
                    AstConstraint::False(Span::default()),
                ]),
                conj(vec![AstConstraint::True(Span::default())]),
            ]
        )])
    );
    let exact = parse_formula("{[] : false}").unwrap();
    assert_eq!(
        exact.terms[0].body[0].constraints,
        vec![AstConstraint::False(Span::new(6, 11))]
    );
}

#[test]
fn exists_binds_within_one_conjunction() {
    assert_eq!(
        f("{[i] : exists j, k : i = 2j + k && k >= 0 || i = 0}"),
        formula(vec![set(
            vars(&["i"]),
            vec![
                exists(
                    &["j", "k"],
                    vec![
                        cmp(v("i"), CmpOp::Eq, add(mul(num(2), v("j")), v("k"))),
                        cmp(v("k"), CmpOp::Ge, num(0)),
                    ]
                ),
                conj(vec![cmp(v("i"), CmpOp::Eq, num(0))]),
            ]
        )])
    );
    assert_eq!(
        f("{[i] : i = 0 or exists j : i = 2j}"),
        formula(vec![set(
            vars(&["i"]),
            vec![
                conj(vec![cmp(v("i"), CmpOp::Eq, num(0))]),
                exists(&["j"], vec![cmp(v("i"), CmpOp::Eq, mul(num(2), v("j")))]),
            ]
        )])
    );
    let exact = parse_formula("{[i] : exists jj : i = jj}").unwrap();
    assert_eq!(
        exact.terms[0].body[0].exists,
        vec![Ident {
            name: "jj".into(),
            span: Span::new(14, 16)
        }]
    );
}
