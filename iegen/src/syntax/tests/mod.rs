//! Tests of the surface syntax: exact trees for every construct, exact error
//! positions and messages, and properties over arbitrary input.
//!
//! This module holds the builders of span-less trees and the parsing
//! helpers; each submodule tests one part of the grammar.

mod constraints;
mod errors;
mod expressions;
mod formulas;
mod nesting_and_length;
mod properties;
mod statements;

use super::ast::*;
use super::{parse_formula, parse_program, SyntaxError};

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
