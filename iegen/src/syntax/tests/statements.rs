//! Statements: UF declarations, `forall` rules, assignments and prints,
//! their spans, whole programs, and calc expressions alone.

use crate::syntax::ast::*;
use crate::syntax::{parse_calc_expr, parse_program};

use super::{call, chain, cmp, conj, formula, id, no_body, num, p, set, v, vars, Unspan};

#[test]
fn uf_declarations() {
    let domain = formula(vec![set(
        vars(&["i"]),
        vec![conj(vec![chain(
            vec![num(0), v("i"), v("N")],
            vec![CmpOp::Le, CmpOp::Le],
        )])],
    )]);
    let range = formula(vec![set(
        vars(&["j"]),
        vec![conj(vec![chain(
            vec![num(0), v("j"), v("NNZ")],
            vec![CmpOp::Le, CmpOp::Le],
        )])],
    )]);
    let d = Span::default();
    assert_eq!(
        p("uf rowptr : {[i] : 0 <= i <= N} -> {[j] : 0 <= j <= NNZ} nondecreasing;"),
        vec![Statement::Uf {
            name: id("rowptr"),
            domain: domain.clone(),
            range: range.clone(),
            props: vec![(AstMonotonicity::Nondecreasing, d)],
            span: d,
        }]
    );
    assert_eq!(
        p("uf rowptr : {[i] : 0 <= i <= N} -> {[j] : 0 <= j <= NNZ};"),
        vec![Statement::Uf {
            name: id("rowptr"),
            domain: domain.clone(),
            range: range.clone(),
            props: Vec::new(),
            span: d,
        }]
    );
    assert_eq!(
        p("uf f : {[i]} union {[i] : i < 0} -> {[j]} increasing nonincreasing decreasing;"),
        vec![Statement::Uf {
            name: id("f"),
            domain: formula(vec![
                set(vars(&["i"]), no_body()),
                set(
                    vars(&["i"]),
                    vec![conj(vec![cmp(v("i"), CmpOp::Lt, num(0))])]
                ),
            ]),
            range: formula(vec![set(vars(&["j"]), no_body())]),
            props: vec![
                (AstMonotonicity::Increasing, d),
                (AstMonotonicity::Nonincreasing, d),
                (AstMonotonicity::Decreasing, d),
            ],
            span: d,
        }]
    );
    // Exact spans: the statement includes its `;`, each property its word.
    let src = "uf f : {[i]} -> {[j]} increasing;";
    let [Statement::Uf {
        name, props, span, ..
    }] = &parse_program(src).unwrap()[..]
    else {
        panic!()
    };
    assert_eq!(name.span, Span::new(3, 4));
    assert_eq!(
        props,
        &vec![(AstMonotonicity::Increasing, Span::new(22, 32))]
    );
    assert_eq!(*span, Span::new(0, src.len()));
}

#[test]
fn forall_rules() {
    let d = Span::default();
    assert_eq!(
        p("forall e1, e2 : e1 < e2 && 0 <= e1 => f(e1) <= f(e2);"),
        vec![Statement::Forall {
            vars: vec![id("e1"), id("e2")],
            premise: conj(vec![
                cmp(v("e1"), CmpOp::Lt, v("e2")),
                cmp(num(0), CmpOp::Le, v("e1")),
            ]),
            arrow: RuleArrow::Implies,
            conclusion: conj(vec![cmp(
                call("f", vec![v("e1")]),
                CmpOp::Le,
                call("f", vec![v("e2")])
            )]),
            span: d,
        }]
    );
    assert_eq!(
        p("forall e : f(e) = 0 and g(e) = 1 <=> e = 0;"),
        vec![Statement::Forall {
            vars: vec![id("e")],
            premise: conj(vec![
                cmp(call("f", vec![v("e")]), CmpOp::Eq, num(0)),
                cmp(call("g", vec![v("e")]), CmpOp::Eq, num(1)),
            ]),
            arrow: RuleArrow::Iff,
            conclusion: conj(vec![cmp(v("e"), CmpOp::Eq, num(0))]),
            span: d,
        }]
    );
    // `=>` right after a literal still lexes as the arrow.
    assert_eq!(
        p("forall e : e>=0=>f(e)>=0;"),
        vec![Statement::Forall {
            vars: vec![id("e")],
            premise: conj(vec![cmp(v("e"), CmpOp::Ge, num(0))]),
            arrow: RuleArrow::Implies,
            conclusion: conj(vec![cmp(call("f", vec![v("e")]), CmpOp::Ge, num(0))]),
            span: d,
        }]
    );
}

#[test]
fn assignments_and_prints() {
    let d = Span::default();
    let var = |name: &str| CalcExpr::Var(id(name));
    let calc = |name: &str, args: Vec<CalcArg>| CalcExpr::Call(id(name), args, d);
    let arg = CalcArg::Expr;
    assert_eq!(
        p("S := {[i] : 0 <= i < N};
           project_out(S, j);
           project_out(S, 1);
           T := compose(R1, inverse(R2));
           is_equal(domain(CSR), {[i] : 0 <= i < N});
           S;"),
        vec![
            Statement::Assign(
                id("S"),
                CalcExpr::Literal(formula(vec![set(
                    vars(&["i"]),
                    vec![conj(vec![chain(
                        vec![num(0), v("i"), v("N")],
                        vec![CmpOp::Le, CmpOp::Lt]
                    )])]
                )])),
                d
            ),
            Statement::Print(calc("project_out", vec![arg(var("S")), arg(var("j"))]), d),
            Statement::Print(
                calc("project_out", vec![arg(var("S")), CalcArg::Int(1, d)]),
                d
            ),
            Statement::Assign(
                id("T"),
                calc(
                    "compose",
                    vec![arg(var("R1")), arg(calc("inverse", vec![arg(var("R2"))]))]
                ),
                d
            ),
            Statement::Print(
                calc(
                    "is_equal",
                    vec![
                        arg(calc("domain", vec![arg(var("CSR"))])),
                        arg(CalcExpr::Literal(formula(vec![set(
                            vars(&["i"]),
                            vec![conj(vec![chain(
                                vec![num(0), v("i"), v("N")],
                                vec![CmpOp::Le, CmpOp::Lt]
                            )])]
                        )]))),
                    ]
                ),
                d
            ),
            Statement::Print(var("S"), d),
        ]
    );
    assert_eq!(
        p("U := {[i]} union {[j]};"),
        vec![Statement::Assign(
            id("U"),
            CalcExpr::Literal(formula(vec![
                set(vars(&["i"]), no_body()),
                set(vars(&["j"]), no_body()),
            ])),
            d
        )]
    );
}

#[test]
fn statement_spans() {
    let src = "S := {[i]};\n  project_out(S, 12);";
    let statements = parse_program(src).unwrap();
    let Statement::Assign(name, value, span) = &statements[0] else {
        panic!("{statements:?}")
    };
    assert_eq!(name.span, Span::new(0, 1));
    assert_eq!(value.span(), Span::new(5, 10));
    assert_eq!(*span, Span::new(0, 11));
    let Statement::Print(CalcExpr::Call(f, args, call_span), span) = &statements[1] else {
        panic!("{statements:?}")
    };
    assert_eq!(f.span, Span::new(14, 25));
    assert_eq!(args[1], CalcArg::Int(12, Span::new(29, 31)));
    assert_eq!(*call_span, Span::new(14, 32));
    assert_eq!(*span, Span::new(14, 33));
}

#[test]
fn a_whole_program_with_comments() {
    let src = "\
# CSR to COO
uf rowptr : {[i] : 0 <= i <= N} -> {[j] : 0 <= j <= NNZ} nondecreasing; # monotone
forall e1, e2 : e1 < e2 => rowptr(e1) <= rowptr(e2);
CSR := {[i, k] : 0 <= i < N and rowptr(i) <= k < rowptr(i+1)};
project_out(CSR, k);   # prints the result
";
    let statements = p(src);
    assert_eq!(statements.len(), 4);
    assert!(matches!(statements[0], Statement::Uf { .. }));
    assert!(matches!(statements[1], Statement::Forall { .. }));
    assert!(matches!(statements[2], Statement::Assign(..)));
    assert!(matches!(statements[3], Statement::Print(..)));
}

#[test]
fn empty_programs() {
    assert_eq!(p(""), Vec::new());
    assert_eq!(p("   \n\t "), Vec::new());
    assert_eq!(p("# only a comment\n# and another"), Vec::new());
}

#[test]
fn calc_expressions_parse_alone() {
    let d = Span::default();
    assert_eq!(
        parse_calc_expr("inverse(R)").unwrap().unspan(),
        CalcExpr::Call(
            id("inverse"),
            vec![CalcArg::Expr(CalcExpr::Var(id("R")))],
            d
        )
    );
    assert_eq!(
        parse_calc_expr(" R ").unwrap(),
        CalcExpr::Var(Ident {
            name: "R".into(),
            span: Span::new(1, 2)
        })
    );
    assert_eq!(
        parse_calc_expr("{[i]}").unwrap().unspan(),
        CalcExpr::Literal(formula(vec![set(vars(&["i"]), no_body())]))
    );
    let err = parse_calc_expr("R;").unwrap_err();
    assert_eq!(
        err.to_string(),
        "1:2: unexpected `;`, expected one of: `(`, end of input"
    );
}
