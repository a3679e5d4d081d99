//! Tests of the surface syntax: exact trees for every construct, exact error
//! positions and messages, and properties over arbitrary input.

use proptest::prelude::*;

use super::ast::*;
use super::{line_col, parse_calc_expr, parse_formula, parse_program, SyntaxError};

// ------------------------------------------------------------------ helpers

/// Sets every span to `Span::default()`, so trees can be compared by shape.
trait Unspan {
    fn unspan(self) -> Self;
}

impl Unspan for Span {
    fn unspan(self) -> Self {
        Span::default()
    }
}

impl Unspan for Ident {
    fn unspan(self) -> Self {
        Ident {
            name: self.name,
            span: Span::default(),
        }
    }
}

impl<T: Unspan> Unspan for Vec<T> {
    fn unspan(self) -> Self {
        self.into_iter().map(Unspan::unspan).collect()
    }
}

impl<T: Unspan> Unspan for Option<T> {
    fn unspan(self) -> Self {
        self.map(Unspan::unspan)
    }
}

impl<T: Unspan> Unspan for Box<T> {
    fn unspan(self) -> Self {
        Box::new((*self).unspan())
    }
}

impl Unspan for AstExpr {
    fn unspan(self) -> Self {
        let d = Span::default();
        match self {
            AstExpr::Num(n, _) => AstExpr::Num(n, d),
            AstExpr::Name(id) => AstExpr::Name(id.unspan()),
            AstExpr::Call(f, args, _) => AstExpr::Call(f.unspan(), args.unspan(), d),
            AstExpr::Sum(terms, _) => AstExpr::Sum(
                terms
                    .into_iter()
                    .map(|(sign, t)| (sign, t.unspan()))
                    .collect(),
                d,
            ),
            AstExpr::Mul(a, b, _) => AstExpr::Mul(a.unspan(), b.unspan(), d),
            AstExpr::Div(a, b, _) => AstExpr::Div(a.unspan(), b.unspan(), d),
            AstExpr::Neg(a, _) => AstExpr::Neg(a.unspan(), d),
        }
    }
}

impl Unspan for AstConstraint {
    fn unspan(self) -> Self {
        let d = Span::default();
        match self {
            AstConstraint::Chain { exprs, ops, .. } => AstConstraint::Chain {
                exprs: exprs.unspan(),
                ops,
                span: d,
            },
            AstConstraint::True(_) => AstConstraint::True(d),
            AstConstraint::False(_) => AstConstraint::False(d),
        }
    }
}

impl Unspan for AstConjunction {
    fn unspan(self) -> Self {
        AstConjunction {
            exists: self.exists.unspan(),
            constraints: self.constraints.unspan(),
        }
    }
}

impl Unspan for TupleElem {
    fn unspan(self) -> Self {
        match self {
            TupleElem::Var(id) => TupleElem::Var(id.unspan()),
            TupleElem::Expr(e) => TupleElem::Expr(e.unspan()),
        }
    }
}

impl Unspan for AstTerm {
    fn unspan(self) -> Self {
        AstTerm {
            input: self.input.unspan(),
            output: self.output.unspan(),
            body: self.body.unspan(),
            span: Span::default(),
        }
    }
}

impl Unspan for AstFormula {
    fn unspan(self) -> Self {
        AstFormula {
            terms: self.terms.unspan(),
            span: Span::default(),
        }
    }
}

impl Unspan for CalcExpr {
    fn unspan(self) -> Self {
        match self {
            CalcExpr::Literal(f) => CalcExpr::Literal(f.unspan()),
            CalcExpr::Var(id) => CalcExpr::Var(id.unspan()),
            CalcExpr::Call(f, args, _) => {
                CalcExpr::Call(f.unspan(), args.unspan(), Span::default())
            }
        }
    }
}

impl Unspan for CalcArg {
    fn unspan(self) -> Self {
        match self {
            CalcArg::Expr(e) => CalcArg::Expr(e.unspan()),
            CalcArg::Int(n, _) => CalcArg::Int(n, Span::default()),
        }
    }
}

impl Unspan for Statement {
    fn unspan(self) -> Self {
        let d = Span::default();
        match self {
            Statement::Uf {
                name,
                domain,
                range,
                props,
                ..
            } => Statement::Uf {
                name: name.unspan(),
                domain: domain.unspan(),
                range: range.unspan(),
                props: props.into_iter().map(|(p, _)| (p, d)).collect(),
                span: d,
            },
            Statement::Forall {
                vars,
                premise,
                arrow,
                conclusion,
                ..
            } => Statement::Forall {
                vars: vars.unspan(),
                premise: premise.unspan(),
                arrow,
                conclusion: conclusion.unspan(),
                span: d,
            },
            Statement::Assign(name, e, _) => Statement::Assign(name.unspan(), e.unspan(), d),
            Statement::Print(e, _) => Statement::Print(e.unspan(), d),
        }
    }
}

// Builders of span-less trees.

fn id(name: &str) -> Ident {
    Ident {
        name: name.to_string(),
        span: Span::default(),
    }
}

fn num(n: i64) -> AstExpr {
    AstExpr::Num(n, Span::default())
}

fn v(name: &str) -> AstExpr {
    AstExpr::Name(id(name))
}

fn call(f: &str, args: Vec<AstExpr>) -> AstExpr {
    AstExpr::Call(id(f), args, Span::default())
}

/// `a + b` or `a - b` as the parser builds it: a sum `a` (not in
/// parentheses) gets one more term.
fn sum_with(a: AstExpr, sign: Sign, b: AstExpr) -> AstExpr {
    match a {
        AstExpr::Sum(mut terms, _) => {
            terms.push((sign, b));
            AstExpr::Sum(terms, Span::default())
        }
        a => AstExpr::Sum(vec![(Sign::Plus, a), (sign, b)], Span::default()),
    }
}

fn add(a: AstExpr, b: AstExpr) -> AstExpr {
    sum_with(a, Sign::Plus, b)
}

fn sub(a: AstExpr, b: AstExpr) -> AstExpr {
    sum_with(a, Sign::Minus, b)
}

fn mul(a: AstExpr, b: AstExpr) -> AstExpr {
    AstExpr::Mul(Box::new(a), Box::new(b), Span::default())
}

fn neg(a: AstExpr) -> AstExpr {
    AstExpr::Neg(Box::new(a), Span::default())
}

fn chain(exprs: Vec<AstExpr>, ops: Vec<CmpOp>) -> AstConstraint {
    AstConstraint::Chain {
        exprs,
        ops,
        span: Span::default(),
    }
}

fn cmp(a: AstExpr, op: CmpOp, b: AstExpr) -> AstConstraint {
    chain(vec![a, b], vec![op])
}

fn conj(constraints: Vec<AstConstraint>) -> AstConjunction {
    AstConjunction {
        exists: Vec::new(),
        constraints,
    }
}

fn exists(vars: &[&str], constraints: Vec<AstConstraint>) -> AstConjunction {
    AstConjunction {
        exists: vars.iter().map(|name| id(name)).collect(),
        constraints,
    }
}

fn tvar(name: &str) -> TupleElem {
    TupleElem::Var(id(name))
}

fn texpr(e: AstExpr) -> TupleElem {
    TupleElem::Expr(e)
}

fn vars(names: &[&str]) -> Vec<TupleElem> {
    names.iter().map(|name| tvar(name)).collect()
}

fn set(input: Vec<TupleElem>, body: Vec<AstConjunction>) -> AstTerm {
    AstTerm {
        input,
        output: None,
        body,
        span: Span::default(),
    }
}

fn rel(input: Vec<TupleElem>, output: Vec<TupleElem>, body: Vec<AstConjunction>) -> AstTerm {
    AstTerm {
        input,
        output: Some(output),
        body,
        span: Span::default(),
    }
}

fn formula(terms: Vec<AstTerm>) -> AstFormula {
    AstFormula {
        terms,
        span: Span::default(),
    }
}

/// The body of a term written without `:`.
fn no_body() -> Vec<AstConjunction> {
    vec![conj(Vec::new())]
}

/// Parses a formula, panicking with the error if it does not parse.
fn f(src: &str) -> AstFormula {
    parse_formula(src)
        .unwrap_or_else(|e| panic!("`{src}` should parse: {e}"))
        .unspan()
}

/// Parses a program, panicking with the error if it does not parse.
fn p(src: &str) -> Vec<Statement> {
    parse_program(src)
        .unwrap_or_else(|e| panic!("`{src}` should parse: {e}"))
        .unspan()
}

/// The single expression `E` of `{[] : E = 0}`.
fn e(src: &str) -> AstExpr {
    let text = format!("{{[] : {src} = 0}}");
    let mut formula = f(&text);
    let mut conj = formula.terms.remove(0).body.remove(0);
    match conj.constraints.remove(0) {
        AstConstraint::Chain { mut exprs, .. } => exprs.remove(0),
        other => panic!("not a chain: {other:?}"),
    }
}

/// The error of a program that must not parse.
fn program_err(src: &str) -> SyntaxError {
    match parse_program(src) {
        Ok(ast) => panic!("`{src}` should not parse, got {ast:?}"),
        Err(e) => e,
    }
}

/// The error of a formula that must not parse.
fn formula_err(src: &str) -> SyntaxError {
    match parse_formula(src) {
        Ok(ast) => panic!("`{src}` should not parse, got {ast:?}"),
        Err(e) => e,
    }
}

// -------------------------------------------------------------- expressions

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

// -------------------------------------------------------------- constraints

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

// ---------------------------------------------------------------- formulas

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

// ------------------------------------------------------------- statements

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

// ------------------------------------------------------------------ errors

#[test]
fn invalid_character_on_a_later_line() {
    let src = "S := {[i]};\nT := S;\nf(T,$);\n";
    let err = program_err(src);
    assert_eq!((err.line, err.column), (3, 5));
    assert_eq!(err.span, Span::new(24, 25));
    assert_eq!(err.message, "unexpected character `$`");
    assert_eq!(err.to_string(), "3:5: unexpected character `$`");
}

#[test]
fn invalid_character_on_the_first_line() {
    let err = formula_err("{[i] : i $ 0}");
    assert_eq!(err.to_string(), "1:10: unexpected character `$`");
    let err = formula_err("{[i] : i = 0} @");
    assert_eq!(err.to_string(), "1:15: unexpected character `@`");
    let err = program_err("\u{0}");
    assert_eq!(err.to_string(), "1:1: unexpected character `\\0`");
}

#[test]
fn multibyte_characters_count_as_one_column() {
    // An invalid two-byte character after a comment full of multi-byte ones.
    let src = "# ∀ ünïcödé\n{[i] : i = ü}";
    let err = formula_err(src);
    assert_eq!((err.line, err.column), (2, 12));
    assert_eq!(&src[err.span.start..err.span.end], "ü");
    assert_eq!(err.span, Span::new(src.len() - 3, src.len() - 1));
    assert_eq!(err.message, "unexpected character `ü`");
    // The error's column is in characters even after multi-byte ones on the
    // same line: they can only be the offending character itself.
    let err = formula_err("{[i] : i = 😀}");
    assert_eq!(err.to_string(), "1:12: unexpected character `😀`");
    assert_eq!(err.span.end - err.span.start, 4);
    // A token after a line full of multi-byte characters.
    let err = program_err("# ∀∀∀\nS := {[i]}\n  ∀");
    assert_eq!(err.to_string(), "3:3: unexpected character `∀`");
}

#[test]
fn missing_semicolon_before_the_next_statement() {
    let src = "S := {[i]};\nT := S\nproject_out(T, i);";
    let err = program_err(src);
    assert_eq!((err.line, err.column), (3, 1));
    assert_eq!(err.span, Span::new(19, 30));
    assert_eq!(
        err.message,
        "unexpected `project_out`, expected one of: `(`, `;`"
    );
}

#[test]
fn missing_semicolon_at_the_end() {
    let err = program_err("S := {[i]};\nS");
    assert_eq!(
        err.to_string(),
        "2:2: unexpected end of input, expected one of: `(`, `:=`, `;`"
    );
    assert_eq!(err.span, Span::new(13, 13));
}

#[test]
fn unterminated_brace() {
    let err = formula_err("{[i] : 0 <= i\n");
    assert_eq!((err.line, err.column), (1, 14));
    assert!(
        err.message
            .starts_with("unexpected end of input, expected one of: "),
        "{err}"
    );
    assert!(err.message.contains("`}`"), "{err}");
    assert!(err.message.contains("`&&`"), "{err}");
    let err = program_err("S := {[i]\n\n");
    assert_eq!(
        err.to_string(),
        "1:10: unexpected end of input, expected one of: `->`, `:`, `}`"
    );
    let err = formula_err("{");
    assert_eq!(
        err.to_string(),
        "1:2: unexpected end of input, expected `[`"
    );
}

#[test]
fn overflowing_integer() {
    let src = "S := {[i] : i < 9223372036854775807};\nT := {[i] : i < 9223372036854775808};";
    let err = program_err(src);
    assert_eq!((err.line, err.column), (2, 17));
    assert_eq!(err.span, Span::new(54, 73));
    assert_eq!(
        err.message,
        "integer literal `9223372036854775808` does not fit in 64 bits"
    );
    let err = program_err("project_out(S, 99999999999999999999999);");
    assert_eq!(
        err.to_string(),
        "1:16: integer literal `99999999999999999999999` does not fit in 64 bits"
    );
}

#[test]
fn unknown_uf_property() {
    let src = "S := {[i]};\nuf f : {[i]} -> {[j]} nondecreasing monotone;";
    let err = program_err(src);
    assert_eq!((err.line, err.column), (2, 37));
    assert_eq!(&src[err.span.start..err.span.end], "monotone");
    assert_eq!(
        err.message,
        "unknown UF property `monotone`; expected nondecreasing, increasing, nonincreasing or decreasing"
    );
}

#[test]
fn unexpected_tokens_list_what_was_expected() {
    assert_eq!(
        formula_err("{[i] : i < }").to_string(),
        "1:12: unexpected `}`, expected one of: name, integer, `(`, `-`"
    );
    assert_eq!(
        formula_err("{[union]}").to_string(),
        "1:3: unexpected `union`, expected one of: name, integer, `(`, `-`, `]`"
    );
    assert_eq!(
        formula_err("{[i,]}").to_string(),
        "1:5: unexpected `]`, expected one of: name, integer, `(`, `-`"
    );
    assert_eq!(
        formula_err("{[i] : f() = 0}").to_string(),
        "1:10: unexpected `)`, expected one of: name, integer, `(`, `-`"
    );
    assert_eq!(
        formula_err("{[i] : exists : i = 0}").to_string(),
        "1:15: unexpected `:`, expected name"
    );
    assert_eq!(
        formula_err("{[i] : 2 3 = 0}").to_string(),
        "1:10: unexpected `3`, expected one of: name, `(`, `*`, `+`, `-`, `/`, `<`, `<=`, `=`, `==`, `>`, `>=`"
    );
    assert_eq!(
        program_err("x := 1;").to_string(),
        "1:6: unexpected `1`, expected one of: name, `union`, `{`"
    );
    assert_eq!(
        program_err("forall e : exists k : e = k => e = 0;").to_string(),
        "1:12: unexpected `exists`, expected one of: name, integer, `(`, `-`, `false`, `true`"
    );
    assert_eq!(
        program_err("S := {[i]}; )").to_string(),
        "1:13: unexpected `)`, expected one of: name, `forall`, `uf`, `union`, `{`, end of input"
    );
}

#[test]
fn a_formula_must_be_the_whole_input() {
    assert_eq!(
        formula_err("{[i]} ;").to_string(),
        "1:7: unexpected `;`, expected one of: `union`, end of input"
    );
    assert_eq!(
        formula_err("").to_string(),
        "1:1: unexpected end of input, expected `{`"
    );
    assert_eq!(
        formula_err("  # nothing\n").to_string(),
        "1:1: unexpected end of input, expected `{`"
    );
    assert_eq!(
        formula_err("{[i]} union").to_string(),
        "1:12: unexpected end of input, expected `{`"
    );
}

#[test]
fn reserved_words_are_not_names() {
    for word in [
        "union", "exists", "and", "or", "true", "false", "forall", "uf",
    ] {
        let src = format!("{{[{word}]}}");
        let err = formula_err(&src);
        assert_eq!((err.line, err.column), (1, 3), "{src}: {err}");
        assert!(
            err.message.starts_with(&format!("unexpected `{word}`")),
            "{err}"
        );
    }
}

#[test]
fn line_col_counts_lines_and_characters() {
    let src = "aé\nüb c\n\nd";
    assert_eq!(line_col(src, 0), (1, 1));
    assert_eq!(line_col(src, 1), (1, 2));
    assert_eq!(line_col(src, 3), (1, 3)); // the `\n` after `é`
    assert_eq!(line_col(src, 4), (2, 1));
    assert_eq!(line_col(src, 6), (2, 2)); // `b`, after the two-byte `ü`
    assert_eq!(line_col(src, 8), (2, 4));
    assert_eq!(line_col(src, 10), (3, 1));
    assert_eq!(line_col(src, 11), (4, 1));
    assert_eq!(line_col(src, 12), (4, 2)); // the end
                                           // Offsets past the end or inside a character do not panic.
    assert_eq!(line_col(src, 1000), (4, 2));
    assert_eq!(line_col(src, 2), (1, 2)); // inside `é`: its start
    assert_eq!(line_col("", 0), (1, 1));
    assert_eq!(line_col("", 5), (1, 1));
    assert_eq!(line_col("a\r\nb", 3), (2, 1));
}

#[test]
fn syntax_error_at_locates_a_span() {
    let err = SyntaxError::at("ab\ncd", Span::new(4, 5), "bad");
    assert_eq!(err.to_string(), "2:2: bad");
    assert_eq!(err.span, Span::new(4, 5));
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let message = format!(
        "expression nested too deeply (more than {} levels)",
        super::MAX_NESTING
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
    let sum = super::parse_index_expr(&format!("1{}", " + N - 1".repeat(50_000))).unwrap();
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
    let depth = super::MAX_NESTING - 10;
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

// -------------------------------------------------------------- properties

/// Checks that an error lies inside `src`, or exactly at its end.
fn assert_located(src: &str, err: &SyntaxError) {
    assert!(err.line >= 1 && err.column >= 1, "{err:?}");
    assert!(err.span.start <= err.span.end, "{err:?}");
    assert!(err.span.end <= src.len(), "{err:?}");
    assert!(src.is_char_boundary(err.span.start), "{err:?}");
    assert!(src.is_char_boundary(err.span.end), "{err:?}");
    let lines: Vec<&str> = src.split('\n').collect();
    assert!(err.line <= lines.len(), "{err:?} in {src:?}");
    let line_chars = lines[err.line - 1].chars().count();
    assert!(err.column <= line_chars + 1, "{err:?} in {src:?}");
    assert_eq!(line_col(src, err.span.start), (err.line, err.column));
    assert!(!err.message.is_empty());
}

fn check_all_parsers(src: &str) {
    for result in [
        parse_program(src).err(),
        parse_formula(src).err(),
        parse_calc_expr(src).err(),
    ]
    .into_iter()
    .flatten()
    {
        assert_located(src, &result);
    }
}

/// Tokens of the language, names that look like keywords, and odd integers.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ",",
    ":",
    ";",
    ":=",
    "->",
    "=>",
    "<=>",
    "=",
    "==",
    "<",
    "<=",
    ">",
    ">=",
    "+",
    "-",
    "*",
    "&&",
    "||",
    "union",
    "exists",
    "and",
    "or",
    "true",
    "false",
    "forall",
    "uf",
    "i",
    "j'",
    "N",
    "f",
    "rowptr",
    "nondecreasing",
    "increasing",
    "monotone",
    "0",
    "1",
    "2",
    "42",
    "9223372036854775807",
    "9223372036854775808",
    "2i",
    "# comment\n",
];

/// An expression printed with as few parentheses as precedence allows.
fn show(e: &AstExpr, needed: u8, juxt: bool) -> String {
    // Levels: 0 sum, 1 product, 2 unary, 3 juxtaposition, 4 atom.
    let (level, text) = match e {
        AstExpr::Num(n, _) => (4, n.to_string()),
        AstExpr::Name(id) => (4, id.name.clone()),
        AstExpr::Call(f, args, _) => {
            let args: Vec<String> = args.iter().map(|a| show(a, 0, juxt)).collect();
            (4, format!("{}({})", f.name, args.join(", ")))
        }
        AstExpr::Sum(terms, _) => {
            let mut text = String::new();
            for (i, (sign, t)) in terms.iter().enumerate() {
                match (i, sign) {
                    (0, Sign::Plus) => {}
                    (0, Sign::Minus) => text.push('-'),
                    (_, Sign::Plus) => text.push_str(" + "),
                    (_, Sign::Minus) => text.push_str(" - "),
                }
                let needed = if i == 0 && *sign == Sign::Minus { 2 } else { 1 };
                text.push_str(&show(t, needed, juxt));
            }
            (0, text)
        }
        AstExpr::Mul(a, b, _) => match (&**a, &**b) {
            (AstExpr::Num(n, _), AstExpr::Name(_) | AstExpr::Call(..)) if juxt => {
                (3, format!("{n}{}", show(b, 4, juxt)))
            }
            (AstExpr::Num(n, _), AstExpr::Sum(..)) if juxt => {
                (3, format!("{n}({})", show(b, 0, juxt)))
            }
            _ => (1, format!("{} * {}", show(a, 1, juxt), show(b, 2, juxt))),
        },
        AstExpr::Div(a, b, _) => (1, format!("{} / {}", show(a, 1, juxt), show(b, 2, juxt))),
        AstExpr::Neg(a, _) => (2, format!("-{}", show(a, 2, juxt))),
    };
    if level < needed {
        format!("({text})")
    } else {
        text
    }
}

fn arb_expr() -> impl Strategy<Value = AstExpr> {
    let leaf = prop_oneof![
        (0i64..1000).prop_map(num),
        prop::sample::select(vec!["i", "j", "N", "k'"]).prop_map(v),
    ];
    leaf.prop_recursive(5, 40, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| add(a, b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| sub(a, b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| mul(a, b)),
            inner.clone().prop_map(neg),
            (
                prop::sample::select(vec!["f", "rowptr"]),
                prop::collection::vec(inner, 1..3)
            )
                .prop_map(|(name, args)| call(name, args)),
        ]
    })
}

proptest! {
    #[test]
    fn arbitrary_strings_never_panic(src in any::<String>()) {
        check_all_parsers(&src);
    }

    #[test]
    fn arbitrary_printable_text_never_panics(src in "\\PC{0,60}") {
        check_all_parsers(&src);
    }

    #[test]
    fn almost_valid_text_never_panics(src in "[{}\\[\\]():;,=<>+*&|# a-z0-9\n-]{0,60}") {
        check_all_parsers(&src);
    }

    #[test]
    fn token_sequences_report_errors_inside_the_input(
        tokens in prop::collection::vec(prop::sample::select(TOKENS), 0..40),
        newlines in prop::collection::vec(any::<bool>(), 40),
    ) {
        let mut src = String::new();
        for (k, token) in tokens.iter().enumerate() {
            src.push_str(token);
            src.push(if newlines[k] { '\n' } else { ' ' });
        }
        check_all_parsers(&src);
        check_all_parsers(src.trim_end());
    }

    #[test]
    fn printed_expressions_parse_back(expr in arb_expr(), juxt in any::<bool>()) {
        let text = show(&expr, 0, juxt);
        let src = format!("{{[] : {text} = 0}}");
        let parsed = parse_formula(&src).map_err(|err| TestCaseError::fail(format!("{src}: {err}")))?;
        let AstConstraint::Chain { exprs, .. } = &parsed.terms[0].body[0].constraints[0] else {
            return Err(TestCaseError::fail(format!("{parsed:?}")));
        };
        let span = exprs[0].span();
        prop_assert_eq!(&src[span.start..span.end], text.as_str());
        prop_assert_eq!(exprs[0].clone().unspan(), expr);
    }
}

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
