//! The `spf calc` language: statements over sets, relations and UF declarations.
//!
//! ```text
//! uf rowptr : {[x] : 0 <= x <= NR} -> {[y] : 0 <= y <= NNZ} nondecreasing;
//! forall e1, e2 : e1 < e2 => off(e1) < off(e2);
//! R := {[i] -> [j] : j = i + 1};
//! compose(R, inverse(R));          # prints the value
//! is_empty({[i] : i < 0 && i > 0}); # prints true or false
//! ```
//!
//! A program is parsed whole, then run statement by statement. The first
//! failing statement stops the run with a located [`CalcError`]; what earlier
//! statements printed has been handed to the output callback already, the
//! failing one prints nothing.

use std::collections::HashMap;

use crate::constraint::Normalized;
use crate::error::Error;
use crate::expr::Var;
use crate::lower::{lower_formula, Scope};
use crate::relation::Relation;
use crate::set::Set;
use crate::solver::Prover;
use crate::syntax::ast::{
    AstFormula, AstMonotonicity, CalcArg, CalcExpr, Ident, RuleArrow, Span, Statement,
};
use crate::syntax::{parse_program, SyntaxError};
use crate::uf_env::{Monotonicity, UfDecl, UfEnvironment, UfRule};
use crate::value::Value;

/// An error of a calculator program, at a line and column of its text.
pub type CalcError = SyntaxError;

/// The result of evaluating a calculator expression.
enum Outcome {
    Value(Value),
    Truth(bool),
}

/// The builtin functions, for messages.
const FUNCTIONS: &[&str] = &[
    "inverse",
    "compose",
    "apply",
    "union",
    "intersect",
    "project_out",
    "simplify",
    "domain",
    "range",
    "is_empty",
    "is_subset",
    "is_equal",
];

/// A calculator session: bindings and the UF environment persist across runs.
#[derive(Default)]
pub struct Calculator {
    env: UfEnvironment,
    vars: HashMap<String, Value>,
}

impl Calculator {
    /// A fresh session with no bindings and no declarations.
    pub fn new() -> Self {
        Self::default()
    }

    /// The UF environment built by the `uf` and `forall` statements so far.
    pub fn env(&self) -> &UfEnvironment {
        &self.env
    }

    /// The value bound to `name`, if any.
    pub fn binding(&self, name: &str) -> Option<&Value> {
        self.vars.get(name)
    }

    /// Runs a program, handing each printed line to `print`.
    ///
    /// ```
    /// let mut calc = iegen::calc::Calculator::new();
    /// let mut lines = Vec::new();
    /// calc.run("R := {[i] -> [j] : j = i + 2}; compose(R, R);", &mut |l| lines.push(l))
    ///     .unwrap();
    /// assert_eq!(lines, ["{[i] -> [j] : j = i + 4}"]);
    /// ```
    pub fn run(&mut self, src: &str, print: &mut dyn FnMut(String)) -> Result<(), CalcError> {
        let program = parse_program(src)?;
        for stmt in &program {
            // A statement prints only once it is known to be exact.
            crate::expr::take_overflow();
            crate::solver::take_gave_up();
            let mut lines = Vec::new();
            let result = self.statement(src, stmt, &mut |line| lines.push(line));
            if let Some(why) = crate::solver::take_gave_up() {
                // A `false` or an unsimplified value would pass off a
                // give-up as an answer.
                return Err(SyntaxError::at(
                    src,
                    statement_span(stmt),
                    format!("gave up: {why}"),
                ));
            }
            if crate::expr::take_overflow() {
                return Err(SyntaxError::at(
                    src,
                    statement_span(stmt),
                    "integer overflow: a coefficient or constant leaves the 64-bit range, so \
                     the result would not be exact",
                ));
            }
            result?;
            for line in lines {
                print(line);
            }
        }
        Ok(())
    }

    fn statement(
        &mut self,
        src: &str,
        stmt: &Statement,
        print: &mut dyn FnMut(String),
    ) -> Result<(), CalcError> {
        match stmt {
            Statement::Uf {
                name,
                domain,
                range,
                props,
                span,
            } => {
                let domain = self.set_literal(src, domain, "domain")?;
                let range = self.set_literal(src, range, "range")?;
                let monotonicity = props
                    .iter()
                    .map(|(p, _)| match p {
                        AstMonotonicity::Nondecreasing => Monotonicity::Nondecreasing,
                        AstMonotonicity::Increasing => Monotonicity::Increasing,
                        AstMonotonicity::Nonincreasing => Monotonicity::Nonincreasing,
                        AstMonotonicity::Decreasing => Monotonicity::Decreasing,
                    })
                    .collect();
                self.env
                    .declare(UfDecl {
                        name: name.name.clone(),
                        domain,
                        range,
                        monotonicity,
                    })
                    .map_err(|e| SyntaxError::at(src, *span, e.to_string()))
            }
            Statement::Forall {
                vars,
                premise,
                arrow,
                conclusion,
                span,
            } => {
                let mut scope = Scope {
                    src,
                    vars: HashMap::new(),
                };
                for (i, v) in vars.iter().enumerate() {
                    if scope.vars.insert(v.name.clone(), Var::Tuple(i)).is_some() {
                        return Err(SyntaxError::at(
                            src,
                            v.span,
                            format!("`{}` is quantified twice", v.name),
                        ));
                    }
                }
                let side = |c: &crate::syntax::ast::AstConjunction| -> Result<_, CalcError> {
                    let mut out = Vec::new();
                    for n in scope.constraints(&c.constraints)? {
                        match n {
                            Normalized::True => {}
                            Normalized::False => {
                                return Err(SyntaxError::at(
                                    src,
                                    *span,
                                    "a rule side is trivially false",
                                ))
                            }
                            Normalized::Constraint(k) => out.push(k),
                        }
                    }
                    Ok(out)
                };
                let (p, q) = (side(premise)?, side(conclusion)?);
                let names: Vec<String> = vars.iter().map(|v| v.name.clone()).collect();
                let mut rules = vec![UfRule {
                    vars: names.clone(),
                    premise: p.clone(),
                    conclusion: q.clone(),
                }];
                if *arrow == RuleArrow::Iff {
                    rules.push(UfRule {
                        vars: names,
                        premise: q,
                        conclusion: p,
                    });
                }
                for r in rules {
                    self.env
                        .add_rule(r)
                        .map_err(|e| SyntaxError::at(src, *span, e.to_string()))?;
                }
                Ok(())
            }
            Statement::Assign(name, expr, _) => match self.eval(src, expr)? {
                Outcome::Value(v) => {
                    self.vars.insert(name.name.clone(), v);
                    Ok(())
                }
                Outcome::Truth(_) => Err(SyntaxError::at(
                    src,
                    expr.span(),
                    format!(
                        "`{}` would be bound to a truth value; only sets and relations can be bound",
                        name.name
                    ),
                )),
            },
            Statement::Print(expr, _) => {
                let line = match self.eval(src, expr)? {
                    Outcome::Value(v) => v.to_string(),
                    Outcome::Truth(b) => b.to_string(),
                };
                print(line);
                Ok(())
            }
        }
    }

    fn set_literal(&self, src: &str, f: &AstFormula, what: &str) -> Result<Set, CalcError> {
        match lower_formula(src, f)? {
            Value::Set(s) => Ok(s),
            Value::Relation(_) => Err(SyntaxError::at(
                src,
                f.span,
                format!("the {what} of a UF must be a set, not a relation"),
            )),
        }
    }

    fn eval(&self, src: &str, e: &CalcExpr) -> Result<Outcome, CalcError> {
        match e {
            CalcExpr::Literal(f) => {
                let v = lower_formula(src, f)?;
                self.check_calls(src, f.span, &v)?;
                Ok(Outcome::Value(v))
            }
            CalcExpr::Var(id) => self.lookup(src, id).map(|v| Outcome::Value(v.clone())),
            CalcExpr::Call(name, args, span) => self.call(src, name, args, *span),
        }
    }

    fn lookup(&self, src: &str, id: &Ident) -> Result<&Value, CalcError> {
        self.vars.get(&id.name).ok_or_else(|| {
            SyntaxError::at(
                src,
                id.span,
                format!(
                    "`{}` is not bound; bind it first with `{} := ...;`",
                    id.name, id.name
                ),
            )
        })
    }

    /// Rejects calls of declared UFs with the wrong number of arguments.
    fn check_calls(&self, src: &str, span: Span, v: &Value) -> Result<(), CalcError> {
        let formula = match v {
            Value::Set(s) => s.formula(),
            Value::Relation(r) => r.formula(),
        };
        let mut calls = Vec::new();
        for c in formula.conjunctions() {
            for k in c.constraints() {
                k.expr()
                    .for_each_call(&mut |name, args| calls.push((name.to_string(), args.len())));
            }
        }
        self.env
            .check_calls(calls.iter().map(|(n, a)| (n.as_str(), *a)))
            .map_err(|e| SyntaxError::at(src, span, e.to_string()))
    }

    fn value_arg(&self, src: &str, arg: &CalcArg) -> Result<(Value, Span), CalcError> {
        match arg {
            CalcArg::Expr(e) => match self.eval(src, e)? {
                Outcome::Value(v) => Ok((v, e.span())),
                Outcome::Truth(_) => Err(SyntaxError::at(
                    src,
                    e.span(),
                    "expected a set or relation, found a truth value",
                )),
            },
            CalcArg::Int(_, span) => Err(SyntaxError::at(
                src,
                *span,
                "expected a set or relation, found an integer",
            )),
        }
    }

    fn call(
        &self,
        src: &str,
        name: &Ident,
        args: &[CalcArg],
        span: Span,
    ) -> Result<Outcome, CalcError> {
        let f = name.name.as_str();
        if !FUNCTIONS.contains(&f) {
            return Err(SyntaxError::at(
                src,
                name.span,
                format!(
                    "unknown function `{f}`; the functions are {}",
                    FUNCTIONS.join(", ")
                ),
            ));
        }
        let expected = match f {
            "compose" | "apply" | "union" | "intersect" | "project_out" | "is_subset"
            | "is_equal" => 2,
            _ => 1,
        };
        if args.len() != expected {
            return Err(SyntaxError::at(
                src,
                span,
                format!(
                    "`{f}` takes {expected} argument{}, {} given",
                    if expected == 1 { "" } else { "s" },
                    args.len()
                ),
            ));
        }
        let op_err = |e: Error| SyntaxError::at(src, span, e.to_string());
        if f == "project_out" {
            let (v, _) = self.value_arg(src, &args[0])?;
            let position = self.position_arg(src, &v, &args[1])?;
            return Ok(Outcome::Value(match v {
                Value::Set(s) => Value::Set(s.project_out(position).map_err(op_err)?),
                Value::Relation(r) => Value::Relation(r.project_out(position).map_err(op_err)?),
            }));
        }
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.value_arg(src, a)?);
        }
        let relation = |i: usize| -> Result<&Relation, CalcError> {
            match &vals[i].0 {
                Value::Relation(r) => Ok(r),
                Value::Set(_) => Err(SyntaxError::at(
                    src,
                    vals[i].1,
                    format!("`{f}` expects a relation here, found a set"),
                )),
            }
        };
        let set = |i: usize| -> Result<&Set, CalcError> {
            match &vals[i].0 {
                Value::Set(s) => Ok(s),
                Value::Relation(_) => Err(SyntaxError::at(
                    src,
                    vals[i].1,
                    format!("`{f}` expects a set here, found a relation"),
                )),
            }
        };
        let same_kind = || -> Result<(), CalcError> {
            if vals[0].0.kind() == vals[1].0.kind() {
                Ok(())
            } else {
                Err(SyntaxError::at(
                    src,
                    vals[1].1,
                    format!(
                        "`{f}` needs two sets or two relations, found a {} and a {}",
                        vals[0].0.kind(),
                        vals[1].0.kind()
                    ),
                ))
            }
        };
        let prover = Prover::new(&self.env);
        let value = |v| Ok(Outcome::Value(v));
        match f {
            "inverse" => value(Value::Relation(relation(0)?.inverse())),
            "compose" => value(Value::Relation(
                relation(0)?.compose(relation(1)?).map_err(op_err)?,
            )),
            "apply" => value(Value::Set(relation(0)?.apply(set(1)?).map_err(op_err)?)),
            "domain" => value(Value::Set(relation(0)?.domain())),
            "range" => value(Value::Set(relation(0)?.range())),
            "union" | "intersect" => {
                same_kind()?;
                let union = f == "union";
                value(match (&vals[0].0, &vals[1].0) {
                    (Value::Set(a), Value::Set(b)) => {
                        Value::Set(if union { a.union(b) } else { a.intersect(b) }.map_err(op_err)?)
                    }
                    (Value::Relation(a), Value::Relation(b)) => Value::Relation(
                        if union { a.union(b) } else { a.intersect(b) }.map_err(op_err)?,
                    ),
                    _ => unreachable!("same_kind checked"),
                })
            }
            "simplify" => value(match &vals[0].0 {
                Value::Set(s) => Value::Set(Set::from_formula(prover.simplify(s.formula()))),
                Value::Relation(r) => Value::Relation(Relation::from_formula(
                    r.in_arity(),
                    prover.simplify(r.formula()),
                )),
            }),
            "is_empty" => Ok(Outcome::Truth(
                match &vals[0].0 {
                    Value::Set(s) => prover.is_empty(s),
                    Value::Relation(r) => prover.relation_is_empty(r),
                }
                .holds(),
            )),
            "is_subset" | "is_equal" => {
                same_kind()?;
                let subset = f == "is_subset";
                let verdict = match (&vals[0].0, &vals[1].0) {
                    (Value::Set(a), Value::Set(b)) => {
                        if subset {
                            prover.is_subset(a, b)
                        } else {
                            prover.is_equal(a, b)
                        }
                    }
                    (Value::Relation(a), Value::Relation(b)) => {
                        if subset {
                            prover.relation_is_subset(a, b)
                        } else {
                            prover.relation_is_equal(a, b)
                        }
                    }
                    _ => unreachable!("same_kind checked"),
                }
                .map_err(op_err)?;
                Ok(Outcome::Truth(verdict.holds()))
            }
            _ => unreachable!("every name in FUNCTIONS is handled"),
        }
    }

    /// The tuple position named by the second argument of `project_out`: a
    /// tuple variable name or a 0-based position.
    fn position_arg(&self, src: &str, v: &Value, arg: &CalcArg) -> Result<usize, CalcError> {
        let arity = match v {
            Value::Set(s) => s.arity(),
            Value::Relation(r) => r.in_arity() + r.out_arity(),
        };
        match arg {
            CalcArg::Int(n, span) => {
                usize::try_from(*n)
                    .ok()
                    .filter(|p| *p < arity)
                    .ok_or_else(|| {
                        SyntaxError::at(
                            src,
                            *span,
                            format!(
                                "position {n} is out of range: the tuple has {arity} variables"
                            ),
                        )
                    })
            }
            CalcArg::Expr(CalcExpr::Var(id)) => {
                let found = match v {
                    Value::Set(s) => s.position_of(&id.name),
                    Value::Relation(r) => r.position_of(&id.name),
                };
                found.ok_or_else(|| {
                    SyntaxError::at(
                        src,
                        id.span,
                        format!("`{}` is not a tuple variable of this {}", id.name, v.kind()),
                    )
                })
            }
            CalcArg::Expr(e) => Err(SyntaxError::at(
                src,
                e.span(),
                "expected a tuple variable name or a position",
            )),
        }
    }
}

/// Where a statement is, for errors about the whole of it.
fn statement_span(stmt: &Statement) -> crate::syntax::ast::Span {
    match stmt {
        Statement::Uf { span, .. } | Statement::Forall { span, .. } => *span,
        Statement::Assign(_, _, span) | Statement::Print(_, span) => *span,
    }
}
