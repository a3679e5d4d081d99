//! Lowering of computation files (`.comp`) to [`Computation`] values, with
//! located validation errors.
//!
//! The grammar is in `syntax/grammar.lalrpop` (start symbol
//! `ComputationFile`), the surface tree in
//! [`syntax::computation_ast`](crate::syntax::computation_ast); this module
//! resolves names, checks the declarations, and builds the typed IR. The
//! format is documented in `docs/computations.md`.
//!
//! # Canonical values
//!
//! Several IR values denote the same computation; the parser always builds
//! one of them, and the printer ([`Display`](std::fmt::Display) for
//! [`Computation`]) writes text that parses back to an equal value:
//!
//! - `-` directly applied to a literal folds into it: `-3` is `Int(-3)`;
//! - `+`, `-` and `*` between integer index values (iterators, symbols, and
//!   integer literals, at least one of them not a literal) fold into one
//!   affine [`ValueExpr::Index`]: `i + 1` is `Index(i + 1)`, `2 * i` is
//!   `Index(2i)`; an index value that folds to a constant is an `Int`;
//! - a sum of up to [`CHAIN_TERMS`](crate::syntax::ast::CHAIN_TERMS) terms is
//!   the left-nested tree of its binary `+` and `-` (`a + b - c` is
//!   `Binary(Sub, Binary(Add, a, b), c)`), folded as above step by step; a
//!   longer one is a balanced tree ([`fold_sum`]), so that no value is deeper
//!   than its text's nesting allows; the printer puts no more terms than
//!   that in one flat sum, with parentheses where the tree needs them;
//! - a call of a data space in a value is a [`ValueExpr::Read`], never a UF
//!   call inside an `Index`.
//!
//! The domain's tuple names are the iterators of the body; the parser gives
//! every conjunction of the domain the names of the first term as written.

use std::collections::{HashMap, HashSet};
use std::str::FromStr;

use crate::computation::{
    schedule_dims, Access, BinOp, Body, Computation, Condition, DataSpace, ElemType, Role,
    RuntimeObject, Stmt, UpdateOp, ValueExpr,
};
use crate::conjunction::Conjunction;
use crate::error::Error;
use crate::expr::{Expr, Var};
use crate::formula::Formula;
use crate::lower::{lower_formula, Scope};
use crate::set::Set;
use crate::syntax::ast::{
    fold_sum, AstConstraint, AstExpr, AstFormula, Ident, Sign, Span, TupleElem,
};
use crate::syntax::computation_ast::{
    parse_computation_file, AstBody, AstComputation, AstCondOp, AstElemType, AstItem, AstRole,
    AstStmt, AstTarget, AstUpdateOp, AstValue, AstValueOp,
};
use crate::syntax::{line_col, SyntaxError};
use crate::value::Value;

/// Names that no symbol, data space or runtime object may take: `if` starts
/// a conditional body, `min` and `max` are the value functions.
pub(crate) const RESERVED_NAMES: &[&str] = &["if", "min", "max", "floor"];

/// Parses and validates a computation file.
///
/// # Errors
///
/// A [`SyntaxError`] with line and column: a syntax error, or a violation of
/// the rules of `docs/computations.md` (undeclared or duplicate names, wrong
/// number of indices, a `real` data space or a scalar called in an index
/// expression or a set, a write to an `in` data space, a schedule that is
/// not of the form `[i] -> [0, i, 0]`, ...).
///
/// ```
/// use iegen::computation::parse_computation;
/// let src = "computation scale(N) {
///     inout real y[N];
///     S0: y(i) *= 2.0 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
/// }";
/// let c = parse_computation(src).unwrap();
/// assert_eq!(c.stmts[0].writes()[0].space, "y");
/// assert_eq!(c.to_string().parse::<iegen::computation::Computation>().unwrap(), c);
///
/// let err = parse_computation("computation c() { in real A; S0: A = 1 domain {[]} schedule {[] -> []}; }").unwrap_err();
/// assert_eq!(err.to_string(), "1:34: `A` is declared `in` and cannot be written");
/// ```
pub fn parse_computation(src: &str) -> Result<Computation, SyntaxError> {
    let ast = parse_computation_file(src)?;
    Lowerer::new(src).computation(&ast)
}

impl FromStr for Computation {
    type Err = Error;

    /// Parses a computation file (see [`parse_computation`]).
    fn from_str(src: &str) -> Result<Computation, Error> {
        Ok(parse_computation(src)?)
    }
}

/// What a declared name is.
#[derive(Clone, Copy)]
enum Decl {
    Symbol,
    Space {
        elem: ElemType,
        dims: usize,
        role: Role,
    },
    Object,
}

/// Where an expression stands, for the message about a name that is not declared.
#[derive(Clone, Copy)]
enum Place<'a> {
    /// The extent of a data space.
    Extent,
    /// A domain.
    Domain,
    /// A schedule.
    Schedule,
    /// An index expression in the body of a statement.
    Body(&'a StmtScope),
}

/// The iterators of one statement: the names of its domain's first term.
struct StmtScope {
    name: String,
    iterators: Vec<Option<String>>,
    by_name: HashMap<String, usize>,
}

impl StmtScope {
    fn describe_tuple(&self) -> String {
        let names: Vec<&str> = self
            .iterators
            .iter()
            .map(|n| n.as_deref().unwrap_or("_"))
            .collect();
        format!("[{}]", names.join(", "))
    }
}

struct Lowerer<'a> {
    src: &'a str,
    decls: HashMap<String, (Decl, Span)>,
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl<'a> Lowerer<'a> {
    fn new(src: &'a str) -> Self {
        Lowerer {
            src,
            decls: HashMap::new(),
        }
    }

    fn err(&self, span: Span, message: impl Into<String>) -> SyntaxError {
        SyntaxError::at(self.src, span, message)
    }

    fn at(&self, span: Span) -> String {
        let (line, column) = line_col(self.src, span.start);
        format!("{line}:{column}")
    }

    fn computation(&mut self, ast: &AstComputation) -> Result<Computation, SyntaxError> {
        let mut out = Computation {
            name: ast.name.name.clone(),
            ..Computation::default()
        };
        for s in &ast.symbols {
            self.declare(s, Decl::Symbol, "symbol")?;
            out.symbols.push(s.name.clone());
        }
        for item in &ast.items {
            match item {
                AstItem::Space(d) => {
                    let elem = match d.elem {
                        AstElemType::Int => ElemType::Int,
                        AstElemType::Real => ElemType::Real,
                    };
                    let role = match d.role {
                        AstRole::In => Role::In,
                        AstRole::Out => Role::Out,
                        AstRole::InOut => Role::InOut,
                        AstRole::Temp => Role::Temp,
                    };
                    let decl = Decl::Space {
                        elem,
                        dims: d.extents.len(),
                        role,
                    };
                    self.declare(&d.name, decl, "data space")?;
                }
                AstItem::Object(o) => {
                    self.declare(&o.name, Decl::Object, "runtime object")?;
                    out.objects.push(RuntimeObject {
                        name: o.name.name.clone(),
                        kind: o.kind.name.clone(),
                        args: o.args.iter().map(|(a, _)| a.clone()).collect(),
                    });
                }
                AstItem::Stmt(_) => {}
            }
        }
        for item in &ast.items {
            if let AstItem::Space(d) = item {
                let scope = Scope {
                    src: self.src,
                    vars: HashMap::new(),
                };
                let mut extents = Vec::with_capacity(d.extents.len());
                // An `out` or `temp` array may be sized by a size space: a
                // scalar `int` data space of role `out` or `temp` that the
                // computation computes (docs/computations.md).
                let dynamic = matches!(d.role, AstRole::Out | AstRole::Temp);
                for e in &d.extents {
                    let size_space = |n: &str| dynamic && self.is_size_space(n);
                    self.check_expr(e, &size_space, Place::Extent)?;
                    extents.push(scope.expr(e)?);
                }
                let Some((Decl::Space { elem, role, .. }, _)) = self.decls.get(&d.name.name) else {
                    continue;
                };
                out.spaces.push(DataSpace {
                    name: d.name.name.clone(),
                    elem: *elem,
                    extents,
                    role: *role,
                });
            }
        }
        let mut stmt_names: HashMap<&str, Span> = HashMap::new();
        for item in &ast.items {
            if let AstItem::Stmt(s) = item {
                if let Some(first) = stmt_names.insert(&s.name.name, s.name.span) {
                    return Err(self.err(
                        s.name.span,
                        format!(
                            "statement `{}` is declared twice (first at {})",
                            s.name.name,
                            self.at(first)
                        ),
                    ));
                }
                out.stmts.push(self.stmt(s)?);
            }
        }
        Ok(out)
    }

    /// Records a declaration, rejecting reserved and duplicate names.
    fn declare(&mut self, id: &Ident, decl: Decl, what: &str) -> Result<(), SyntaxError> {
        if RESERVED_NAMES.contains(&id.name.as_str()) {
            return Err(self.err(
                id.span,
                format!("`{}` is reserved and cannot name a {what}", id.name),
            ));
        }
        if let Some((old, span)) = self.decls.get(&id.name) {
            let old_what = match old {
                Decl::Symbol => "symbol",
                Decl::Space { .. } => "data space",
                Decl::Object => "runtime object",
            };
            let message = if old_what == what {
                format!(
                    "{what} `{}` is declared twice (first at {})",
                    id.name,
                    self.at(*span)
                )
            } else {
                format!(
                    "{what} `{}` has the name of the {old_what} declared at {}",
                    id.name,
                    self.at(*span)
                )
            };
            return Err(self.err(id.span, message));
        }
        self.decls.insert(id.name.clone(), (decl, id.span));
        Ok(())
    }

    /// Whether `name` is a size space: a scalar `int` data space of role
    /// `out` or `temp`, which may size `out` and `temp` arrays.
    fn is_size_space(&self, name: &str) -> bool {
        matches!(
            self.decl(name),
            Some(Decl::Space {
                elem: ElemType::Int,
                dims: 0,
                role: Role::Out | Role::Temp,
            })
        )
    }

    fn decl(&self, name: &str) -> Option<Decl> {
        self.decls.get(name).map(|(d, _)| *d)
    }

    /// Checks the names and calls of an index expression (or of a set's
    /// constraint): bound names, declared symbols, and calls of declared
    /// `int` data spaces with one argument per dimension.
    fn check_expr(
        &self,
        e: &AstExpr,
        bound: &dyn Fn(&str) -> bool,
        place: Place<'_>,
    ) -> Result<(), SyntaxError> {
        match e {
            AstExpr::Num(..) => Ok(()),
            AstExpr::Name(id) => {
                if bound(&id.name) {
                    return Ok(());
                }
                // A size space stands for its current value in a domain or
                // an index expression, like a symbol (docs/computations.md).
                let size_space = self.is_size_space(&id.name);
                match self.decl(&id.name) {
                    Some(Decl::Symbol) => Ok(()),
                    Some(Decl::Space { .. })
                        if size_space && matches!(place, Place::Domain | Place::Body(_)) =>
                    {
                        Ok(())
                    }
                    Some(Decl::Space { .. }) if size_space && matches!(place, Place::Schedule) => Err(self.err(
                        id.span,
                        format!(
                            "`{}` is a size space; domains and index expressions may use it, schedules may not",
                            id.name
                        ),
                    )),
                    Some(Decl::Space { dims: 0, .. }) if matches!(place, Place::Extent) => Err(self.err(
                        id.span,
                        format!(
                            "`{}` is a scalar data space; an extent may use a scalar only when it is an `out` or `temp` `int` (a size space) and the array is `out` or `temp`",
                            id.name
                        ),
                    )),
                    Some(Decl::Space { dims: 0, .. }) => Err(self.err(
                        id.span,
                        format!(
                            "`{}` is a scalar data space; index expressions and sets may use only iterators, symbols, size spaces (`out` or `temp` `int` scalars) and calls of `int` data spaces",
                            id.name
                        ),
                    )),
                    Some(Decl::Space { dims, .. }) => Err(self.err(
                        id.span,
                        format!(
                            "`{}` is a data space with {}, not a symbol",
                            id.name,
                            count(dims, "dimension", "dimensions")
                        ),
                    )),
                    Some(Decl::Object) => Err(self.err(
                        id.span,
                        format!("`{}` is a runtime object, not a symbol", id.name),
                    )),
                    None => Err(self.err(
                        id.span,
                        match place {
                            Place::Extent => format!(
                                "undeclared symbol `{}` in an extent; declare it in the header `computation NAME(..., {})`",
                                id.name, id.name
                            ),
                            Place::Domain | Place::Schedule => format!(
                                "undeclared symbol `{}`; declare it in the header `computation NAME(..., {})`",
                                id.name, id.name
                            ),
                            Place::Body(s) => format!(
                                "`{}` is neither an iterator of `{}` (its domain tuple is {}) nor a declared symbol",
                                id.name,
                                s.name,
                                s.describe_tuple()
                            ),
                        },
                    )),
                }
            }
            AstExpr::Call(f, args, _) if f.name == "floor" => args
                .iter()
                .try_for_each(|a| self.check_expr(a, bound, place)),
            AstExpr::Call(f, args, _) => {
                self.check_uf(f, args.len(), place)?;
                args.iter()
                    .try_for_each(|a| self.check_expr(a, bound, place))
            }
            AstExpr::Sum(terms, _) => terms
                .iter()
                .try_for_each(|(_, t)| self.check_expr(t, bound, place)),
            AstExpr::Mul(a, b, _) | AstExpr::Div(a, b, _) => {
                self.check_expr(a, bound, place)?;
                self.check_expr(b, bound, place)
            }
            AstExpr::Neg(a, _) => self.check_expr(a, bound, place),
        }
    }

    /// Checks a UF call `f(...)` with `n` arguments in an index expression or a set.
    fn check_uf(&self, f: &Ident, n: usize, place: Place<'_>) -> Result<(), SyntaxError> {
        let name = &f.name;
        let message = match self.decl(name) {
            Some(Decl::Space {
                elem: ElemType::Int,
                dims,
                ..
            }) if dims > 0 => {
                if dims == n {
                    return Ok(());
                }
                format!(
                    "data space `{name}` has {} but is called with {}",
                    count(dims, "dimension", "dimensions"),
                    count(n, "argument", "arguments")
                )
            }
            Some(Decl::Space { dims: 0, .. }) => format!(
                "`{name}` is a scalar data space and cannot be called; index expressions and sets may call only `int` data spaces with dimensions"
            ),
            Some(Decl::Space { .. }) => format!(
                "`{name}` is a `real` data space; index expressions and sets may call only `int` data spaces"
            ),
            Some(Decl::Symbol) => format!("`{name}` is a symbol, not a data space: it cannot be called"),
            Some(Decl::Object) => format!(
                "`{name}` is a runtime object; call its methods as `{name}.method(...)` in a statement body"
            ),
            None if RESERVED_NAMES.contains(&name.as_str()) => format!(
                "`{name}` cannot be used in an index expression or a set (they are affine)"
            ),
            None => match place {
                Place::Body(s) if s.by_name.contains_key(name) => {
                    format!("`{name}` is an iterator, not a data space: it cannot be called")
                }
                _ => format!("`{name}` is not a declared data space"),
            },
        };
        Err(self.err(f.span, message))
    }

    /// Checks the names of a domain or schedule literal (`place`).
    fn check_formula(&self, f: &AstFormula, place: Place<'_>) -> Result<(), SyntaxError> {
        for t in &f.terms {
            let elems: Vec<&TupleElem> = t.input.iter().chain(t.output.iter().flatten()).collect();
            let tuple: HashSet<&str> = elems
                .iter()
                .filter_map(|e| match e {
                    TupleElem::Var(id) => Some(id.name.as_str()),
                    TupleElem::Expr(_) => None,
                })
                .collect();
            for e in &elems {
                if let TupleElem::Expr(e) = e {
                    self.check_expr(e, &|n| tuple.contains(n), place)?;
                }
            }
            for conj in &t.body {
                let mut bound = tuple.clone();
                bound.extend(conj.exists.iter().map(|id| id.name.as_str()));
                for c in &conj.constraints {
                    if let AstConstraint::Chain { exprs, .. } = c {
                        for e in exprs {
                            self.check_expr(e, &|n| bound.contains(n), place)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn stmt(&self, s: &AstStmt) -> Result<Stmt, SyntaxError> {
        // The domain, and the iterators its first term names.
        self.check_formula(&s.domain, Place::Domain)?;
        let domain = match lower_formula(self.src, &s.domain)? {
            Value::Set(d) => d,
            Value::Relation(_) => {
                return Err(self.err(
                    s.domain.span,
                    "the domain must be a set `{[i, ...] : ...}`, not a relation",
                ))
            }
        };
        let first = &s.domain.terms[0];
        let mut scope = StmtScope {
            name: s.name.name.clone(),
            iterators: Vec::with_capacity(first.input.len()),
            by_name: HashMap::new(),
        };
        for (p, elem) in first.input.iter().enumerate() {
            match elem {
                TupleElem::Var(id) if !scope.by_name.contains_key(&id.name) => {
                    if let Some(decl) = self.decl(&id.name) {
                        let what = match decl {
                            Decl::Symbol => "symbol",
                            Decl::Space { .. } => "data space",
                            Decl::Object => "runtime object",
                        };
                        return Err(self.err(
                            id.span,
                            format!(
                                "iterator `{}` of `{}` has the name of a {what}; rename the iterator",
                                id.name, s.name.name
                            ),
                        ));
                    }
                    scope.by_name.insert(id.name.clone(), p);
                    scope.iterators.push(Some(id.name.clone()));
                }
                _ => scope.iterators.push(None),
            }
        }
        let domain = rename_tuple(&domain, &scope.iterators);

        // The schedule.
        self.check_formula(&s.schedule, Place::Schedule)?;
        let schedule = match lower_formula(self.src, &s.schedule)? {
            Value::Relation(r) => r,
            Value::Set(_) => {
                return Err(self.err(
                    s.schedule.span,
                    "the schedule must be a relation `{[i, ...] -> [...]}`, not a set",
                ))
            }
        };
        schedule_dims(&schedule, domain.arity())
            .map_err(|e| self.err(s.schedule.span, e.to_string()))?;

        let body = self.body(&s.body, &scope)?;
        Ok(Stmt {
            name: s.name.name.clone(),
            body,
            domain,
            schedule,
        })
    }

    fn body(&self, b: &AstBody, scope: &StmtScope) -> Result<Body, SyntaxError> {
        Ok(match b {
            AstBody::Update {
                target, op, value, ..
            } => Body::Update {
                target: self.target(target, scope)?,
                op: match op.0 {
                    AstUpdateOp::Assign => UpdateOp::Assign,
                    AstUpdateOp::Add => UpdateOp::Add,
                    AstUpdateOp::Sub => UpdateOp::Sub,
                    AstUpdateOp::Mul => UpdateOp::Mul,
                    AstUpdateOp::Min => UpdateOp::Min,
                    AstUpdateOp::Max => UpdateOp::Max,
                    AstUpdateOp::Rise => UpdateOp::Rise,
                },
                value: self.value(value, scope)?,
            },
            AstBody::If {
                conditions, then, ..
            } => {
                let mut lowered = Vec::with_capacity(conditions.len());
                for c in conditions {
                    lowered.push(Condition {
                        lhs: self.value(&c.lhs, scope)?,
                        op: match c.op {
                            AstCondOp::Eq => "==",
                            AstCondOp::Ne => "!=",
                            AstCondOp::Lt => "<",
                            AstCondOp::Le => "<=",
                            AstCondOp::Gt => ">",
                            AstCondOp::Ge => ">=",
                        },
                        rhs: self.value(&c.rhs, scope)?,
                    });
                }
                Body::If {
                    conditions: lowered,
                    then: Box::new(self.body(then, scope)?),
                }
            }
            AstBody::Call {
                object,
                method,
                args,
                ..
            } => {
                self.check_object(object, scope)?;
                Body::Call {
                    object: object.name.clone(),
                    method: method.name.clone(),
                    args: self.values(args, scope)?,
                }
            }
            AstBody::Seq(items, _) => Body::Seq(
                items
                    .iter()
                    .map(|b| self.body(b, scope))
                    .collect::<Result<_, _>>()?,
            ),
        })
    }

    fn values(&self, vs: &[AstValue], scope: &StmtScope) -> Result<Vec<ValueExpr>, SyntaxError> {
        vs.iter().map(|v| self.value(v, scope)).collect()
    }

    fn check_object(&self, object: &Ident, scope: &StmtScope) -> Result<(), SyntaxError> {
        let name = &object.name;
        let message = match self.decl(name) {
            Some(Decl::Object) => return Ok(()),
            Some(Decl::Space { .. }) => format!("`{name}` is a data space, not a runtime object"),
            Some(Decl::Symbol) => format!("`{name}` is a symbol, not a runtime object"),
            None if scope.by_name.contains_key(name) => {
                format!("`{name}` is an iterator, not a runtime object")
            }
            None => format!(
                "undeclared runtime object `{name}`; declare it with `object {name} : KIND(...);`"
            ),
        };
        Err(self.err(object.span, message))
    }

    /// The element a statement writes.
    fn target(&self, t: &AstTarget, scope: &StmtScope) -> Result<Access, SyntaxError> {
        let name = &t.name.name;
        let args: &[AstValue] = t.index.as_deref().unwrap_or(&[]);
        match self.decl(name) {
            Some(Decl::Space { role: Role::In, .. }) => Err(self.err(
                t.name.span,
                format!("`{name}` is declared `in` and cannot be written"),
            )),
            Some(Decl::Space { dims, .. }) => self.access(&t.name, dims, args, t.span, scope),
            other => Err(self.err(t.name.span, self.not_a_space(name, other, scope))),
        }
    }

    /// Why `name` (declared as `decl`, if at all) is not a data space.
    fn not_a_space(&self, name: &str, decl: Option<Decl>, scope: &StmtScope) -> String {
        match decl {
            Some(Decl::Symbol) => format!("`{name}` is a symbol, not a data space"),
            Some(Decl::Object) => format!(
                "`{name}` is a runtime object, not a data space; call its methods as `{name}.method(...)`"
            ),
            _ if scope.by_name.contains_key(name) => {
                format!("`{name}` is an iterator, not a data space")
            }
            _ => format!("undeclared data space `{name}`"),
        }
    }

    /// An access of a data space with `dims` dimensions.
    fn access(
        &self,
        name: &Ident,
        dims: usize,
        args: &[AstValue],
        span: Span,
        scope: &StmtScope,
    ) -> Result<Access, SyntaxError> {
        if args.len() != dims {
            let hint = if dims == 0 {
                format!("; write `{}` without parentheses", name.name)
            } else if args.is_empty() {
                format!("; write `{}(...)`", name.name)
            } else {
                String::new()
            };
            return Err(self.err(
                span,
                format!(
                    "data space `{}` has {} but is accessed with {}{hint}",
                    name.name,
                    count(dims, "dimension", "dimensions"),
                    count(args.len(), "index", "indices"),
                ),
            ));
        }
        let index = args
            .iter()
            .map(|a| self.index(a, scope))
            .collect::<Result<_, _>>()?;
        Ok(Access {
            space: name.name.clone(),
            index,
        })
    }

    /// An index expression: affine over iterators, symbols and UF calls.
    fn index(&self, v: &AstValue, scope: &StmtScope) -> Result<Expr, SyntaxError> {
        let e = self.to_index_ast(v)?;
        self.check_expr(&e, &|n| scope.by_name.contains_key(n), Place::Body(scope))?;
        let vars = scope
            .by_name
            .iter()
            .map(|(n, p)| (n.clone(), Var::Tuple(*p)))
            .collect();
        Scope {
            src: self.src,
            vars,
        }
        .expr(&e)
    }

    /// Reads a value written where an index expression is expected as one.
    fn to_index_ast(&self, v: &AstValue) -> Result<AstExpr, SyntaxError> {
        Ok(match v {
            AstValue::Int(text, span) => AstExpr::Num(self.int(text, false, *span)?, *span),
            AstValue::Neg(a, span) => match &**a {
                AstValue::Int(text, _) => AstExpr::Num(self.int(text, true, *span)?, *span),
                _ => AstExpr::Neg(Box::new(self.to_index_ast(a)?), *span),
            },
            AstValue::Real(text, span) => {
                return Err(self.err(
                    *span,
                    format!("the real literal `{text}` cannot appear in an index expression"),
                ))
            }
            AstValue::Name(id) => AstExpr::Name(id.clone()),
            AstValue::Call(f, args, span) => {
                if RESERVED_NAMES.contains(&f.name.as_str()) && f.name != "floor" {
                    return Err(self.err(
                        f.span,
                        format!(
                            "`{}` cannot be used in an index expression (index expressions are affine)",
                            f.name
                        ),
                    ));
                }
                let args = args
                    .iter()
                    .map(|a| self.to_index_ast(a))
                    .collect::<Result<_, _>>()?;
                AstExpr::Call(f.clone(), args, *span)
            }
            AstValue::Method { span, .. } => {
                return Err(self.err(*span, "a method call cannot appear in an index expression"))
            }
            AstValue::Sum(terms, span) => AstExpr::Sum(
                terms
                    .iter()
                    .map(|(sign, t)| Ok((*sign, self.to_index_ast(t)?)))
                    .collect::<Result<_, SyntaxError>>()?,
                *span,
            ),
            AstValue::Binary(op, a, b, span) => {
                let (a, b) = (
                    Box::new(self.to_index_ast(a)?),
                    Box::new(self.to_index_ast(b)?),
                );
                match op {
                    AstValueOp::Mul => AstExpr::Mul(a, b, *span),
                    // Only `floor(e / m)` is an index expression; lowering
                    // rejects a bare division.
                    AstValueOp::Div => AstExpr::Div(a, b, *span),
                }
            }
        })
    }

    /// An integer literal, negated when `negative`.
    fn int(&self, text: &str, negative: bool, span: Span) -> Result<i64, SyntaxError> {
        let signed = if negative {
            format!("-{text}")
        } else {
            text.to_string()
        };
        signed.parse::<i64>().map_err(|_| {
            self.err(
                span,
                format!("integer literal `{signed}` does not fit in 64 bits"),
            )
        })
    }

    fn real(&self, text: &str, span: Span) -> Result<f64, SyntaxError> {
        text.parse::<f64>()
            .map_err(|_| self.err(span, format!("malformed real literal `{text}`")))
    }

    /// A value expression, in canonical form (see the module documentation).
    fn value(&self, v: &AstValue, scope: &StmtScope) -> Result<ValueExpr, SyntaxError> {
        Ok(match v {
            AstValue::Int(text, span) => ValueExpr::Int(self.int(text, false, *span)?),
            AstValue::Real(text, span) => ValueExpr::Real(self.real(text, *span)?),
            AstValue::Name(id) => {
                let name = &id.name;
                if let Some(p) = scope.by_name.get(name) {
                    return Ok(ValueExpr::Index(Expr::var(Var::Tuple(*p))));
                }
                match self.decl(name) {
                    Some(Decl::Symbol) => ValueExpr::Index(Expr::sym(name.clone())),
                    Some(Decl::Space { dims: 0, .. }) => ValueExpr::Read(Access {
                        space: name.clone(),
                        index: Vec::new(),
                    }),
                    Some(Decl::Space { dims, .. }) => {
                        return Err(self.err(
                            id.span,
                            format!(
                                "data space `{name}` has {} but is accessed with 0 indices; write `{name}(...)`",
                                count(dims, "dimension", "dimensions")
                            ),
                        ))
                    }
                    Some(Decl::Object) => {
                        return Err(self.err(
                            id.span,
                            format!(
                                "`{name}` is a runtime object; call its methods as `{name}.method(...)`"
                            ),
                        ))
                    }
                    None => {
                        return Err(self.err(
                            id.span,
                            format!(
                                "`{name}` is neither an iterator of `{}` (its domain tuple is {}) nor a declared symbol or data space",
                                scope.name,
                                scope.describe_tuple()
                            ),
                        ))
                    }
                }
            }
            AstValue::Call(f, args, span) => {
                let name = f.name.as_str();
                match self.decl(name) {
                    Some(Decl::Space { dims, .. }) => {
                        ValueExpr::Read(self.access(f, dims, args, *span, scope)?)
                    }
                    // `floor(e / m)` is an index expression, as in an access.
                    None if name == "floor" => ValueExpr::Index(self.index(v, scope)?),
                    None if name == "min" || name == "max" => {
                        let [a, b] = args.as_slice() else {
                            return Err(self.err(
                                *span,
                                format!("`{name}` takes 2 arguments, found {}", args.len()),
                            ));
                        };
                        let op = if name == "min" {
                            BinOp::Min
                        } else {
                            BinOp::Max
                        };
                        ValueExpr::Binary(
                            op,
                            Box::new(self.value(a, scope)?),
                            Box::new(self.value(b, scope)?),
                        )
                    }
                    other => return Err(self.err(f.span, self.not_a_space(name, other, scope))),
                }
            }
            AstValue::Method {
                object,
                method,
                args,
                ..
            } => {
                self.check_object(object, scope)?;
                ValueExpr::Call {
                    object: object.name.clone(),
                    method: method.name.clone(),
                    args: self.values(args, scope)?,
                }
            }
            AstValue::Neg(a, span) => match &**a {
                AstValue::Int(text, _) => ValueExpr::Int(self.int(text, true, *span)?),
                _ => negate(self.value(a, scope)?),
            },
            AstValue::Binary(op, a, b, _) => {
                let (a, b) = (self.value(a, scope)?, self.value(b, scope)?);
                let op = match op {
                    AstValueOp::Mul => BinOp::Mul,
                    AstValueOp::Div => BinOp::Div,
                };
                fold_binary(op, a, b)
            }
            AstValue::Sum(terms, _) => {
                // The terms in a loop, then one tree of bounded depth.
                let terms = terms
                    .iter()
                    .map(|(sign, t)| Ok((*sign, self.value(t, scope)?)))
                    .collect::<Result<Vec<_>, SyntaxError>>()?;
                fold_sum(terms, &mut negate, &mut |sign, a, b| {
                    let op = match sign {
                        Sign::Plus => BinOp::Add,
                        Sign::Minus => BinOp::Sub,
                    };
                    fold_binary(op, a, b)
                })
                .unwrap_or(ValueExpr::Int(0))
            }
        })
    }
}

/// `-v`, folded into literals and index values.
fn negate(v: ValueExpr) -> ValueExpr {
    match v {
        ValueExpr::Int(k) => match k.checked_neg() {
            Some(n) => ValueExpr::Int(n),
            None => ValueExpr::Neg(Box::new(ValueExpr::Int(k))),
        },
        ValueExpr::Real(x) => ValueExpr::Real(-x),
        ValueExpr::Index(e) => ValueExpr::Index(e.negate()),
        v => ValueExpr::Neg(Box::new(v)),
    }
}

/// An integer index value as an expression: `Index(e)` or `Int(k)`.
fn as_index(v: &ValueExpr) -> Option<Expr> {
    match v {
        ValueExpr::Int(k) => Some(Expr::constant(*k)),
        ValueExpr::Index(e) => Some(e.clone()),
        _ => None,
    }
}

/// An index value: `Int` when constant.
fn index_value(e: Expr) -> ValueExpr {
    match e.as_constant() {
        Some(k) => ValueExpr::Int(k),
        None => ValueExpr::Index(e),
    }
}

/// `a op b`, with `+`, `-` and `*` between index values (at least one of
/// them not a literal) folded into one affine index value.
fn fold_binary(op: BinOp, a: ValueExpr, b: ValueExpr) -> ValueExpr {
    let literal_only = matches!(a, ValueExpr::Int(_)) && matches!(b, ValueExpr::Int(_));
    if !literal_only {
        if let (Some(x), Some(y)) = (as_index(&a), as_index(&b)) {
            match op {
                BinOp::Add => return index_value(x.plus(&y)),
                BinOp::Sub => return index_value(x.minus(&y)),
                BinOp::Mul => match (x.as_constant(), y.as_constant()) {
                    (Some(k), _) => return index_value(y.scale(k)),
                    (_, Some(k)) => return index_value(x.scale(k)),
                    _ => {}
                },
                _ => {}
            }
        }
    }
    ValueExpr::Binary(op, Box::new(a), Box::new(b))
}

/// `domain` with the tuple names of every conjunction replaced by `names`
/// where they are given.
fn rename_tuple(domain: &Set, names: &[Option<String>]) -> Set {
    let conjuncts: Vec<Conjunction> = domain
        .conjunctions()
        .iter()
        .map(|c| {
            let mut c = c.clone();
            let renamed = c
                .tuple_names()
                .iter()
                .enumerate()
                .map(|(p, old)| match names.get(p) {
                    Some(Some(n)) => n.clone(),
                    _ => old.clone(),
                })
                .collect();
            c.set_tuple_names(renamed);
            c
        })
        .collect();
    Set::from_formula(Formula::from_conjunctions(domain.arity(), conjuncts))
}
