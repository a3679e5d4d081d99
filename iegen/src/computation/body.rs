//! Typed statement bodies.

use crate::conjunction::Conjunction;
use crate::constraint::{Constraint, Normalized};
use crate::expr::{Expr, Var};
use crate::formula::Formula;
use crate::relation::Relation;
use crate::set::Set;

/// An element of a data space: `A(k)`, `y(i)`, a scalar `t()`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    /// The data space.
    pub space: String,
    /// One index expression per dimension, over the statement's iterators.
    pub index: Vec<Expr>,
}

/// How a statement updates its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UpdateOp {
    /// `=`
    Assign,
    /// `+=`
    Add,
    /// `-=`
    Sub,
    /// `*=`
    Mul,
    /// `min=`: target = min(target, value)
    Min,
    /// `max=`: target = max(target, value)
    Max,
    /// `rise=`: target = value, with the statement that the value is never
    /// below the target (so it equals `max=`): the values written to an
    /// element rise in execution order, and the last one stays. Backends
    /// store without reading the target; the interpreter checks the
    /// statement. Synthesis writes it for a pointer array whose `max=`
    /// values grow with the loop (SCOO -> CSR's `rowptr(row(n) + 1) rise=
    /// n + 1`), where several instances write one element.
    Rise,
}

impl UpdateOp {
    /// The operator as written in computation files.
    pub fn symbol(self) -> &'static str {
        match self {
            UpdateOp::Assign => "=",
            UpdateOp::Add => "+=",
            UpdateOp::Sub => "-=",
            UpdateOp::Mul => "*=",
            UpdateOp::Min => "min=",
            UpdateOp::Max => "max=",
            UpdateOp::Rise => "rise=",
        }
    }

    /// Whether the update reads its target before writing it (`rise=`
    /// does not: its value is never below the target's).
    pub fn reads_target(self) -> bool {
        !matches!(self, UpdateOp::Assign | UpdateOp::Rise)
    }
}

/// A binary arithmetic operator of value expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (integer division truncates toward zero, as in C)
    Div,
    /// `min(a, b)`
    Min,
    /// `max(a, b)`
    Max,
}

/// A value computed by a statement.
#[derive(Clone, Debug, PartialEq)]
pub enum ValueExpr {
    /// An integer literal.
    Int(i64),
    /// A real literal.
    Real(f64),
    /// An integer index expression: iterators, symbols, UF (index array) calls.
    Index(Expr),
    /// A read of a data space element.
    Read(Access),
    /// `-v`
    Neg(Box<ValueExpr>),
    /// `a op b`
    Binary(BinOp, Box<ValueExpr>, Box<ValueExpr>),
    /// A method call on a runtime object that returns a value: `P.get(i, j)`.
    Call {
        /// The runtime object.
        object: String,
        /// The method.
        method: String,
        /// The arguments.
        args: Vec<ValueExpr>,
    },
}

/// A guard of a conditional body: a constraint over value expressions.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    /// Left operand.
    pub lhs: ValueExpr,
    /// One of `==`, `!=`, `<`, `<=`, `>`, `>=`.
    pub op: &'static str,
    /// Right operand.
    pub rhs: ValueExpr,
}

/// What one statement instance does.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// `target op value`
    Update {
        /// The element written.
        target: Access,
        /// How it is updated.
        op: UpdateOp,
        /// The value combined into it.
        value: ValueExpr,
    },
    /// `if (c1 && c2 ...) body`
    If {
        /// All must hold.
        conditions: Vec<Condition>,
        /// Executed when they do.
        then: Box<Body>,
    },
    /// `P.insert(a, b)`, `P.sort()`: a method call for its effect.
    Call {
        /// The runtime object.
        object: String,
        /// The method.
        method: String,
        /// The arguments.
        args: Vec<ValueExpr>,
    },
    /// Several bodies in order (one basic block).
    Seq(Vec<Body>),
}

impl ValueExpr {
    /// Calls `visit` on every data space read inside the value.
    pub fn for_each_read<'a>(&'a self, visit: &mut dyn FnMut(&'a Access)) {
        match self {
            ValueExpr::Int(_) | ValueExpr::Real(_) | ValueExpr::Index(_) => {}
            ValueExpr::Read(a) => visit(a),
            ValueExpr::Neg(v) => v.for_each_read(visit),
            ValueExpr::Binary(_, a, b) => {
                a.for_each_read(visit);
                b.for_each_read(visit);
            }
            ValueExpr::Call { args, .. } => args.iter().for_each(|a| a.for_each_read(visit)),
        }
    }

    /// Calls `visit` on every index expression (inside reads too).
    pub fn for_each_expr<'a>(&'a self, visit: &mut dyn FnMut(&'a Expr)) {
        match self {
            ValueExpr::Int(_) | ValueExpr::Real(_) => {}
            ValueExpr::Index(e) => visit(e),
            ValueExpr::Read(a) => a.index.iter().for_each(&mut *visit),
            ValueExpr::Neg(v) => v.for_each_expr(visit),
            ValueExpr::Binary(_, a, b) => {
                a.for_each_expr(visit);
                b.for_each_expr(visit);
            }
            ValueExpr::Call { args, .. } => args.iter().for_each(|a| a.for_each_expr(visit)),
        }
    }

    /// Rewrites every index expression (inside reads too) with `f`.
    pub fn map_exprs(&self, f: &mut dyn FnMut(&Expr) -> Expr) -> ValueExpr {
        match self {
            ValueExpr::Int(_) | ValueExpr::Real(_) => self.clone(),
            ValueExpr::Index(e) => ValueExpr::Index(f(e)),
            ValueExpr::Read(a) => ValueExpr::Read(a.map_exprs(f)),
            ValueExpr::Neg(v) => ValueExpr::Neg(Box::new(v.map_exprs(f))),
            ValueExpr::Binary(op, a, b) => {
                ValueExpr::Binary(*op, Box::new(a.map_exprs(f)), Box::new(b.map_exprs(f)))
            }
            ValueExpr::Call {
                object,
                method,
                args,
            } => ValueExpr::Call {
                object: object.clone(),
                method: method.clone(),
                args: args.iter().map(|a| a.map_exprs(f)).collect(),
            },
        }
    }
}

impl Access {
    /// Rewrites the index expressions with `f`.
    pub fn map_exprs(&self, f: &mut dyn FnMut(&Expr) -> Expr) -> Access {
        Access {
            space: self.space.clone(),
            index: self.index.iter().map(&mut *f).collect(),
        }
    }
}

impl Body {
    /// Calls `visit` on every data space element read (an update other than
    /// `=` reads its target too).
    pub fn for_each_read<'a>(&'a self, visit: &mut dyn FnMut(&'a Access)) {
        match self {
            Body::Update { target, op, value } => {
                if op.reads_target() {
                    visit(target);
                }
                value.for_each_read(visit);
            }
            Body::If { conditions, then } => {
                for c in conditions {
                    c.lhs.for_each_read(visit);
                    c.rhs.for_each_read(visit);
                }
                then.for_each_read(visit);
            }
            Body::Call { args, .. } => args.iter().for_each(|a| a.for_each_read(visit)),
            Body::Seq(bs) => bs.iter().for_each(|b| b.for_each_read(visit)),
        }
    }

    /// Calls `visit` on every data space element written.
    pub fn for_each_write<'a>(&'a self, visit: &mut dyn FnMut(&'a Access)) {
        match self {
            Body::Update { target, .. } => visit(target),
            Body::If { then, .. } => then.for_each_write(visit),
            Body::Call { .. } => {}
            Body::Seq(bs) => bs.iter().for_each(|b| b.for_each_write(visit)),
        }
    }

    /// Calls `visit` on every runtime object a call in the body uses.
    pub fn for_each_object<'a>(&'a self, visit: &mut dyn FnMut(&'a str)) {
        self.for_each_call(&mut |object, _| visit(object));
    }

    /// Calls `visit(object, method)` on every runtime-object call in the
    /// body: statement calls and value calls, nested ones too.
    pub fn for_each_call<'a>(&'a self, visit: &mut dyn FnMut(&'a str, &'a str)) {
        fn value<'a>(v: &'a ValueExpr, visit: &mut dyn FnMut(&'a str, &'a str)) {
            match v {
                ValueExpr::Call {
                    object,
                    method,
                    args,
                } => {
                    visit(object, method);
                    args.iter().for_each(|a| value(a, visit));
                }
                ValueExpr::Neg(v) => value(v, visit),
                ValueExpr::Binary(_, a, b) => {
                    value(a, visit);
                    value(b, visit);
                }
                _ => {}
            }
        }
        match self {
            Body::Update { value: v, .. } => value(v, visit),
            Body::If { conditions, then } => {
                for c in conditions {
                    value(&c.lhs, visit);
                    value(&c.rhs, visit);
                }
                then.for_each_call(visit);
            }
            Body::Call {
                object,
                method,
                args,
            } => {
                visit(object, method);
                args.iter().for_each(|a| value(a, visit));
            }
            Body::Seq(bs) => bs.iter().for_each(|b| b.for_each_call(visit)),
        }
    }

    /// Calls `visit` on every index expression of the body (the ones
    /// [`Body::map_exprs`] rewrites).
    pub fn for_each_expr<'a>(&'a self, visit: &mut dyn FnMut(&'a Expr)) {
        match self {
            Body::Update { target, value, .. } => {
                target.index.iter().for_each(&mut *visit);
                value.for_each_expr(visit);
            }
            Body::If { conditions, then } => {
                for c in conditions {
                    c.lhs.for_each_expr(visit);
                    c.rhs.for_each_expr(visit);
                }
                then.for_each_expr(visit);
            }
            Body::Call { args, .. } => args.iter().for_each(|a| a.for_each_expr(visit)),
            Body::Seq(bs) => bs.iter().for_each(|b| b.for_each_expr(visit)),
        }
    }

    /// Rewrites every index expression of the body with `f` (used to rename
    /// or substitute iterators).
    pub fn map_exprs(&self, f: &mut dyn FnMut(&Expr) -> Expr) -> Body {
        match self {
            Body::Update { target, op, value } => Body::Update {
                target: target.map_exprs(f),
                op: *op,
                value: value.map_exprs(f),
            },
            Body::If { conditions, then } => Body::If {
                conditions: conditions
                    .iter()
                    .map(|c| Condition {
                        lhs: c.lhs.map_exprs(f),
                        op: c.op,
                        rhs: c.rhs.map_exprs(f),
                    })
                    .collect(),
                then: Box::new(then.map_exprs(f)),
            },
            Body::Call {
                object,
                method,
                args,
            } => Body::Call {
                object: object.clone(),
                method: method.clone(),
                args: args.iter().map(|a| a.map_exprs(f)).collect(),
            },
            Body::Seq(bs) => Body::Seq(bs.iter().map(|b| b.map_exprs(f)).collect()),
        }
    }
}

/// `{[iterators] -> [index] : index = ... && domain}` for an access of a
/// statement with domain `domain`.
pub(crate) fn access_relation(domain: &Set, index: &[Expr]) -> Relation {
    let n = domain.arity();
    let m = index.len();
    let conjuncts = domain
        .conjunctions()
        .iter()
        .filter_map(|c| {
            let mut names = c.tuple_names().to_vec();
            names.extend((0..m).map(|d| format!("a{d}")));
            let mut constraints: Vec<Normalized> =
                c.embedded_constraints(&Var::Tuple, 0).into_iter().collect();
            for (d, e) in index.iter().enumerate() {
                constraints.push(Constraint::equal(&Expr::var(Var::Tuple(n + d)), e));
            }
            Conjunction::from_parts(names, c.exist_names().to_vec(), constraints)
        })
        .collect();
    Relation::from_formula(n, Formula::from_conjunctions(n + m, conjuncts))
}
