//! Lowering of the surface syntax tree to canonical sets and relations.
//!
//! Names are resolved here: a name in a tuple is a tuple variable (a name
//! repeated in a tuple means equality), a name bound by `exists` is an
//! existential variable, and any other name is a symbolic constant. A name
//! followed by parentheses is an uninterpreted function call.

use std::collections::HashMap;
use std::str::FromStr;

use crate::conjunction::Conjunction;
use crate::constraint::{Constraint, Normalized};
use crate::error::Error;
use crate::expr::{Expr, Var};
use crate::formula::Formula;
use crate::relation::Relation;
use crate::set::Set;
use crate::syntax::ast::{
    AstConjunction, AstConstraint, AstExpr, AstFormula, AstTerm, CmpOp, Sign, Span, TupleElem,
};
use crate::syntax::{parse_formula, SyntaxError};
use crate::value::Value;

/// Resolves names to variables while lowering one conjunction.
pub(crate) struct Scope<'a> {
    /// The source text, for error positions.
    pub src: &'a str,
    /// Variables in scope, by name.
    pub vars: HashMap<String, Var>,
}

impl Scope<'_> {
    /// Lowers an expression; products must have a constant factor.
    pub fn expr(&self, e: &AstExpr) -> Result<Expr, SyntaxError> {
        lower_expr(self.src, e, &|name| self.vars.get(name).copied())
    }

    /// Lowers one written constraint into normalized constraints.
    pub fn constraint(&self, c: &AstConstraint) -> Result<Vec<Normalized>, SyntaxError> {
        match c {
            AstConstraint::True(_) => Ok(vec![Normalized::True]),
            AstConstraint::False(_) => Ok(vec![Normalized::False]),
            AstConstraint::Chain { exprs, ops, .. } => {
                let lowered = exprs
                    .iter()
                    .map(|e| self.expr(e))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(ops
                    .iter()
                    .zip(lowered.windows(2))
                    .map(|(op, pair)| {
                        let (a, b) = (&pair[0], &pair[1]);
                        match op {
                            CmpOp::Eq => Constraint::equal(a, b),
                            CmpOp::Lt => Constraint::lt(a, b),
                            CmpOp::Le => Constraint::le(a, b),
                            CmpOp::Gt => Constraint::lt(b, a),
                            CmpOp::Ge => Constraint::le(b, a),
                        }
                    })
                    .collect())
            }
        }
    }

    /// Lowers a list of constraints (a conjunction without `exists`).
    pub fn constraints(&self, cs: &[AstConstraint]) -> Result<Vec<Normalized>, SyntaxError> {
        let mut out = Vec::new();
        for c in cs {
            out.extend(self.constraint(c)?);
        }
        Ok(out)
    }
}

/// The tuple of one braced term after name resolution.
struct LoweredTuple {
    names: Vec<String>,
    vars: HashMap<String, Var>,
    /// Equalities the tuple itself imposes (`[0, i, i]`).
    constraints: Vec<Normalized>,
}

fn lower_tuple(src: &str, elems: &[&TupleElem]) -> Result<LoweredTuple, SyntaxError> {
    let mut names = Vec::with_capacity(elems.len());
    let mut vars: HashMap<String, Var> = HashMap::new();
    let mut pending = Vec::new();
    let mut constraints = Vec::new();
    for (p, elem) in elems.iter().enumerate() {
        match elem {
            TupleElem::Var(id) => {
                names.push(id.name.clone());
                match vars.get(&id.name) {
                    Some(first) => constraints.push(Constraint::equal(
                        &Expr::var(Var::Tuple(p)),
                        &Expr::var(*first),
                    )),
                    None => {
                        vars.insert(id.name.clone(), Var::Tuple(p));
                    }
                }
            }
            TupleElem::Expr(e) => {
                names.push(format!("t{p}"));
                pending.push((p, e));
            }
        }
    }
    // Expressions may mention any tuple name, also one declared later.
    let scope = Scope {
        src,
        vars: vars.clone(),
    };
    for (p, e) in pending {
        let value = scope.expr(e)?;
        constraints.push(Constraint::equal(&Expr::var(Var::Tuple(p)), &value));
    }
    Ok(LoweredTuple {
        names,
        vars,
        constraints,
    })
}

fn lower_conjunction(
    src: &str,
    tuple: &LoweredTuple,
    conj: &AstConjunction,
) -> Result<Option<Conjunction>, SyntaxError> {
    let mut vars = tuple.vars.clone();
    let mut exist_names = Vec::new();
    for (j, id) in conj.exists.iter().enumerate() {
        if vars.contains_key(&id.name) {
            return Err(SyntaxError::at(
                src,
                id.span,
                format!("existential `{}` is already bound in this term", id.name),
            ));
        }
        vars.insert(id.name.clone(), Var::Exist(j));
        exist_names.push(id.name.clone());
    }
    let scope = Scope { src, vars };
    let mut constraints = tuple.constraints.clone();
    constraints.extend(scope.constraints(&conj.constraints)?);
    Ok(Conjunction::from_parts(
        tuple.names.clone(),
        exist_names,
        constraints,
    ))
}

/// The kind and arities of one braced term.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    Set(usize),
    Relation(usize, usize),
}

impl Shape {
    fn describe(self) -> String {
        match self {
            Shape::Set(n) => format!("a set of arity {n}"),
            Shape::Relation(i, o) => format!("a relation of arity {i} -> {o}"),
        }
    }
}

fn term_shape(t: &AstTerm) -> Shape {
    match &t.output {
        None => Shape::Set(t.input.len()),
        Some(out) => Shape::Relation(t.input.len(), out.len()),
    }
}

/// Lowers a formula literal to a set or relation. All terms of a union must
/// have the same shape.
pub fn lower_formula(src: &str, f: &AstFormula) -> Result<Value, SyntaxError> {
    let first = term_shape(&f.terms[0]);
    let mut conjuncts = Vec::new();
    for t in &f.terms {
        let shape = term_shape(t);
        if shape != first {
            return Err(SyntaxError::at(
                src,
                t.span,
                format!(
                    "every term of a union must have one shape: this is {}, the first is {}",
                    shape.describe(),
                    first.describe()
                ),
            ));
        }
        let elems: Vec<&TupleElem> = t.input.iter().chain(t.output.iter().flatten()).collect();
        let tuple = lower_tuple(src, &elems)?;
        for conj in &t.body {
            conjuncts.extend(lower_conjunction(src, &tuple, conj)?);
        }
    }
    Ok(match first {
        Shape::Set(n) => Value::Set(Set::from_formula(Formula::from_conjunctions(n, conjuncts))),
        Shape::Relation(i, o) => Value::Relation(Relation::from_formula(
            i,
            Formula::from_conjunctions(i + o, conjuncts),
        )),
    })
}

/// Parses and lowers a set or relation literal.
pub fn parse_value(src: &str) -> Result<Value, SyntaxError> {
    let ast = parse_formula(src)?;
    lower_formula(src, &ast)
}

impl FromStr for Set {
    type Err = Error;

    /// Parses `{[i, j] : ...}` (a union of such terms is fine).
    fn from_str(src: &str) -> Result<Set, Error> {
        match parse_value(src)? {
            Value::Set(s) => Ok(s),
            Value::Relation(_) => Err(SyntaxError::at(
                src,
                Span::new(0, src.len()),
                "expected a set, found a relation",
            )
            .into()),
        }
    }
}

impl FromStr for Relation {
    type Err = Error;

    /// Parses `{[i] -> [j] : ...}` (a union of such terms is fine).
    fn from_str(src: &str) -> Result<Relation, Error> {
        match parse_value(src)? {
            Value::Relation(r) => Ok(r),
            Value::Set(_) => Err(SyntaxError::at(
                src,
                Span::new(0, src.len()),
                "expected a relation, found a set",
            )
            .into()),
        }
    }
}

/// Lowers an expression of `src`: `var` resolves the names in scope to
/// variables, other names are symbols. Products need a constant factor and
/// division is only `floor(e / m)` with `m` a positive constant, so the
/// result is quasi-affine.
///
/// # Errors
///
/// A located [`SyntaxError`] for a non-affine product or a bad division.
pub fn lower_expr(
    src: &str,
    e: &AstExpr,
    var: &dyn Fn(&str) -> Option<Var>,
) -> Result<Expr, SyntaxError> {
    let go = |x: &AstExpr| lower_expr(src, x, var);
    Ok(match e {
        AstExpr::Num(n, _) => Expr::constant(*n),
        AstExpr::Name(id) => match var(&id.name) {
            Some(v) => Expr::var(v),
            None => Expr::sym(id.name.clone()),
        },
        AstExpr::Call(name, args, span) if name.name == "floor" => match args.as_slice() {
            [AstExpr::Div(a, b, div_span)] => {
                let (x, m) = (go(a)?, go(b)?);
                match m.as_constant() {
                    Some(m) if m >= 1 => Expr::floor_div(&x, m),
                    _ => {
                        return Err(SyntaxError::at(
                            src,
                            *div_span,
                            "the divisor of `floor(e / m)` must be a positive integer constant",
                        ))
                    }
                }
            }
            _ => {
                return Err(SyntaxError::at(
                    src,
                    *span,
                    "`floor` takes one division: `floor(e / m)`",
                ))
            }
        },
        AstExpr::Div(_, _, span) => {
            return Err(SyntaxError::at(
                src,
                *span,
                "division must be written `floor(e / m)` (index expressions are quasi-affine)",
            ))
        }
        AstExpr::Call(name, args, _) => Expr::call(
            name.name.clone(),
            args.iter().map(go).collect::<Result<Vec<_>, _>>()?,
        ),
        // A loop, not a recursion per term: a flat sum may be very long.
        AstExpr::Sum(terms, _) => {
            let mut sum = Expr::constant(0);
            for (sign, t) in terms {
                let t = go(t)?;
                sum = match sign {
                    Sign::Plus => sum.plus(&t),
                    Sign::Minus => sum.minus(&t),
                };
            }
            sum
        }
        AstExpr::Neg(a, _) => go(a)?.negate(),
        AstExpr::Mul(a, b, span) => {
            let (x, y) = (go(a)?, go(b)?);
            match (x.as_constant(), y.as_constant()) {
                (Some(k), _) => y.scale(k),
                (_, Some(k)) => x.scale(k),
                _ => {
                    return Err(SyntaxError::at(
                        src,
                        *span,
                        "non-affine product: one factor of `*` must be a constant",
                    ))
                }
            }
        }
    })
}
