//! The resolved program: a loop program compiled against its memory
//! (every name resolved to a slot, every expression typed) before it runs.

use std::collections::HashMap;

use iegen::computation::{
    Access, BinOp, Body, Computation, Condition, ElemType, Role, UpdateOp, ValueExpr,
};
use iegen::{Atom, Expr, Var};

use crate::ast::{GuardOp, IndexExpr, Node};
use crate::emit::CmpOp;
use crate::runtime::{check_call_at, CallError, CallSite, Method, ObjectSpec};

use super::*;

/// An integer expression with every name resolved.
#[derive(Clone, Debug)]
pub(super) enum IE {
    Const(i64),
    /// A loop or let variable, by scope depth.
    Slot(usize),
    /// An iterator of the current statement instance, by position.
    It(usize),
    Sum(Vec<(i64, IE)>, i64),
    Read(Box<Ref>),
    Min(Vec<IE>),
    Max(Vec<IE>),
    FloorDiv(Box<IE>, i64),
    CeilDiv(Box<IE>, i64),
}

/// An element of a data space.
#[derive(Clone, Debug)]
pub(super) struct Ref {
    pub(super) space: usize,
    pub(super) index: Vec<IE>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ty {
    Int,
    Real,
}

impl Ty {
    pub(super) fn of(e: ElemType) -> Ty {
        match e {
            ElemType::Int => Ty::Int,
            ElemType::Real => Ty::Real,
        }
    }
}

/// A value expression; operands of `Bin` have the type it carries.
#[derive(Clone, Debug)]
pub(super) enum VE {
    Int(i64),
    Real(f64),
    Index(IE),
    Read(Ref),
    Neg(Box<VE>),
    Bin(BinOp, Ty, Box<VE>, Box<VE>),
    ToReal(Box<VE>),
    /// A value method of a runtime object (by index), integer arguments.
    Call(usize, Method, Vec<VE>),
}

#[derive(Clone, Debug)]
pub(super) enum Act {
    Update {
        target: Ref,
        op: UpdateOp,
        value: VE,
    },
    If {
        conds: Vec<(VE, CmpOp, VE)>,
        then: Vec<Act>,
    },
    /// `insert` or `sort` of a runtime object.
    Call(usize, Method, Vec<VE>),
}

#[derive(Clone, Debug)]
pub(super) enum CNode {
    For {
        var: String,
        slot: usize,
        lower: IE,
        upper: IE,
        body: Vec<CNode>,
    },
    Let {
        var: String,
        slot: usize,
        value: IE,
        body: Vec<CNode>,
    },
    If {
        guards: Vec<(IE, GuardOp, IE)>,
        body: Vec<CNode>,
    },
    Stmt {
        index: usize,
        iters: Vec<IE>,
        acts: Vec<Act>,
    },
}

#[derive(Clone, Debug)]
pub(super) enum Ext {
    Static(i64),
    Dynamic(IE),
}

#[derive(Clone, Debug)]
pub(super) struct SpaceInfo {
    pub(super) extents: Vec<Ext>,
}

impl SpaceInfo {
    /// The product of the extents when they are all static.
    pub(super) fn static_len(&self, name: &str) -> Result<Option<i64>, RunError> {
        let mut len: i64 = 1;
        for e in &self.extents {
            match e {
                Ext::Static(k) => {
                    len = len.checked_mul(*k).ok_or_else(|| RunError::Overflow {
                        site: Site::Extent(name.to_string()),
                    })?
                }
                Ext::Dynamic(_) => return Ok(None),
            }
        }
        Ok(Some(len))
    }
}

pub(super) struct Compiler<'a> {
    pub(super) comp: &'a Computation,
    pub(super) symbols: &'a HashMap<String, i64>,
    /// Variables in scope, innermost last; a variable's slot is its position.
    pub(super) scope: Vec<String>,
    /// The deepest scope seen.
    pub(super) depth: usize,
    pub(super) site: Site,
    /// The runtime objects' declarations.
    pub(super) specs: &'a [ObjectSpec],
    /// Per runtime object: called anywhere.
    pub(super) object_used: Vec<bool>,
}

impl Compiler<'_> {
    pub(super) fn stmt_site(&self, index: usize) -> Site {
        Site::Statement {
            name: self.comp.stmts[index].name.clone(),
            point: Vec::new(),
        }
    }

    pub(super) fn nodes(&mut self, nodes: &[Node]) -> Result<Vec<CNode>, RunError> {
        nodes.iter().map(|n| self.node(n)).collect()
    }

    pub(super) fn scoped(
        &mut self,
        var: &str,
        body: &[Node],
    ) -> Result<(usize, Vec<CNode>), RunError> {
        let slot = self.scope.len();
        self.scope.push(var.to_string());
        self.depth = self.depth.max(self.scope.len());
        let body = self.nodes(body);
        self.scope.pop();
        Ok((slot, body?))
    }

    pub(super) fn node(&mut self, node: &Node) -> Result<CNode, RunError> {
        Ok(match node {
            Node::For {
                var,
                lower,
                upper,
                body,
            } => {
                self.site = Site::Loop(var.clone());
                let lower = self.index(lower)?;
                let upper = self.index(upper)?;
                let (slot, body) = self.scoped(var, body)?;
                CNode::For {
                    var: var.clone(),
                    slot,
                    lower,
                    upper,
                    body,
                }
            }
            Node::Let { var, value, body } => {
                self.site = Site::Let(var.clone());
                let value = self.index(value)?;
                let (slot, body) = self.scoped(var, body)?;
                CNode::Let {
                    var: var.clone(),
                    slot,
                    value,
                    body,
                }
            }
            Node::If { guards, body } => {
                self.site = Site::Guard;
                let guards = guards
                    .iter()
                    .map(|g| Ok((self.index(&g.lhs)?, g.op, self.index(&g.rhs)?)))
                    .collect::<Result<_, RunError>>()?;
                CNode::If {
                    guards,
                    body: self.nodes(body)?,
                }
            }
            Node::Stmt { stmt, iterators } => {
                let comp = self.comp;
                let s = comp.stmts.get(*stmt).ok_or(RunError::NoSuchStatement {
                    index: *stmt,
                    count: comp.stmts.len(),
                })?;
                self.site = self.stmt_site(*stmt);
                let arity = s.domain.arity();
                if iterators.len() != arity {
                    return Err(RunError::IteratorCount {
                        stmt: s.name.clone(),
                        expected: arity,
                        found: iterators.len(),
                    });
                }
                let iters = iterators
                    .iter()
                    .map(|e| self.index(e))
                    .collect::<Result<_, _>>()?;
                let mut acts = Vec::new();
                self.body(&s.name, &s.body, arity, &mut acts)?;
                CNode::Stmt {
                    index: *stmt,
                    iters,
                    acts,
                }
            }
        })
    }

    pub(super) fn body(
        &mut self,
        stmt: &str,
        body: &Body,
        arity: usize,
        out: &mut Vec<Act>,
    ) -> Result<(), RunError> {
        match body {
            Body::Update { target, op, value } => {
                let (value, vt) = match (op, value) {
                    // The whole value of an assignment: where `place` may stand.
                    (
                        UpdateOp::Assign,
                        ValueExpr::Call {
                            object,
                            method,
                            args,
                        },
                    ) => {
                        let (o, m, args) =
                            self.call(stmt, object, method, args, arity, CallSite::Assigned)?;
                        (VE::Call(o, m, args), Ty::Int)
                    }
                    _ => self.value(stmt, value, arity)?,
                };
                let target = self.access(target, arity)?;
                let d = &self.comp.spaces[target.space];
                if d.role == Role::In {
                    return Err(RunError::WriteToInput {
                        stmt: stmt.to_string(),
                        space: d.name.clone(),
                    });
                }
                let value = match (d.elem, vt) {
                    (ElemType::Int, Ty::Real) => {
                        return Err(RunError::RealToInt {
                            stmt: stmt.to_string(),
                            space: d.name.clone(),
                        })
                    }
                    (ElemType::Real, Ty::Int) => VE::ToReal(Box::new(value)),
                    _ => value,
                };
                out.push(Act::Update {
                    target,
                    op: *op,
                    value,
                });
            }
            Body::If { conditions, then } => {
                let conds = conditions
                    .iter()
                    .map(|c| self.condition(stmt, c, arity))
                    .collect::<Result<_, _>>()?;
                let mut inner = Vec::new();
                self.body(stmt, then, arity, &mut inner)?;
                out.push(Act::If { conds, then: inner });
            }
            Body::Call {
                object,
                method,
                args,
            } => {
                let (o, m, args) =
                    self.call(stmt, object, method, args, arity, CallSite::Statement)?;
                out.push(Act::Call(o, m, args));
            }
            Body::Seq(bs) => {
                for b in bs {
                    self.body(stmt, b, arity, out)?;
                }
            }
        }
        Ok(())
    }

    /// A call of a runtime object, checked, its arguments resolved.
    pub(super) fn call(
        &mut self,
        stmt: &str,
        object: &str,
        method: &str,
        args: &[ValueExpr],
        arity: usize,
        site: CallSite,
    ) -> Result<(usize, Method, Vec<VE>), RunError> {
        let err = |error| RunError::Call {
            stmt: stmt.to_string(),
            error,
        };
        let o = self
            .comp
            .objects
            .iter()
            .position(|x| x.name == object)
            .ok_or_else(|| {
                err(CallError::UnknownObject {
                    object: object.to_string(),
                })
            })?;
        let m = check_call_at(&self.specs[o], method, args, site).map_err(err)?;
        let mut resolved = Vec::with_capacity(args.len());
        for (p, a) in args.iter().enumerate() {
            let (v, ty) = self.value(stmt, a, arity)?;
            if ty == Ty::Real {
                return Err(err(CallError::RealArgument {
                    call: format!("{object}.{method}"),
                    position: p + 1,
                }));
            }
            resolved.push(v);
        }
        self.object_used[o] = true;
        Ok((o, m, resolved))
    }

    pub(super) fn condition(
        &mut self,
        stmt: &str,
        c: &Condition,
        arity: usize,
    ) -> Result<(VE, CmpOp, VE), RunError> {
        let op = CmpOp::parse(c.op).ok_or_else(|| RunError::Comparison {
            stmt: stmt.to_string(),
            op: c.op.to_string(),
        })?;
        let l = self.value(stmt, &c.lhs, arity)?;
        let r = self.value(stmt, &c.rhs, arity)?;
        let (l, r, _) = promote(l, r);
        Ok((l, op, r))
    }

    pub(super) fn value(
        &mut self,
        stmt: &str,
        v: &ValueExpr,
        arity: usize,
    ) -> Result<(VE, Ty), RunError> {
        Ok(match v {
            ValueExpr::Int(k) => (VE::Int(*k), Ty::Int),
            ValueExpr::Real(x) => (VE::Real(*x), Ty::Real),
            ValueExpr::Index(e) => (VE::Index(self.expr(e, arity)?), Ty::Int),
            ValueExpr::Read(a) => {
                let r = self.access(a, arity)?;
                let ty = Ty::of(self.comp.spaces[r.space].elem);
                (VE::Read(r), ty)
            }
            ValueExpr::Neg(a) => {
                let (a, ty) = self.value(stmt, a, arity)?;
                (VE::Neg(Box::new(a)), ty)
            }
            ValueExpr::Binary(op, a, b) => {
                let a = self.value(stmt, a, arity)?;
                let b = self.value(stmt, b, arity)?;
                let (a, b, ty) = promote(a, b);
                (VE::Bin(*op, ty, Box::new(a), Box::new(b)), ty)
            }
            ValueExpr::Call {
                object,
                method,
                args,
            } => {
                let (o, m, args) = self.call(stmt, object, method, args, arity, CallSite::Value)?;
                (VE::Call(o, m, args), Ty::Int)
            }
        })
    }

    pub(super) fn access(&mut self, a: &Access, arity: usize) -> Result<Ref, RunError> {
        let index = a
            .index
            .iter()
            .map(|e| self.expr(e, arity))
            .collect::<Result<Vec<_>, _>>()?;
        self.reference(&a.space, index, false)
    }

    pub(super) fn reference(
        &mut self,
        name: &str,
        index: Vec<IE>,
        index_array: bool,
    ) -> Result<Ref, RunError> {
        let space = self
            .comp
            .spaces
            .iter()
            .position(|d| d.name == name)
            .ok_or_else(|| RunError::UnknownSpace {
                name: name.to_string(),
                site: self.site.clone(),
            })?;
        let d = &self.comp.spaces[space];
        if index_array && d.elem != ElemType::Int {
            return Err(RunError::NotIndexArray {
                name: name.to_string(),
                site: self.site.clone(),
            });
        }
        if index.len() != d.extents.len() {
            return Err(RunError::Arity {
                space: name.to_string(),
                expected: d.extents.len(),
                found: index.len(),
                site: self.site.clone(),
            });
        }
        Ok(Ref { space, index })
    }

    /// An affine expression of a body (`arity` iterators) or an extent (0).
    pub(super) fn expr(&mut self, e: &Expr, arity: usize) -> Result<IE, RunError> {
        let mut terms = Vec::new();
        let mut constant = e.constant_term();
        for (atom, c) in e.terms() {
            let t = match atom {
                Atom::Var(Var::Tuple(p)) if *p < arity => IE::It(*p),
                Atom::Var(v) => {
                    return Err(match &self.site {
                        Site::Statement { name, .. } => RunError::BadIterator {
                            stmt: name.clone(),
                            var: v.to_string(),
                        },
                        site => RunError::UnboundVariable {
                            name: v.to_string(),
                            site: site.clone(),
                        },
                    })
                }
                Atom::Sym(s) if crate::dynamic::is_size_space(self.comp, s) => {
                    // A size space in an extent or an index expression: the
                    // scalar's current value.
                    IE::Read(Box::new(self.reference(s, Vec::new(), true)?))
                }
                Atom::Sym(s) => IE::Const(self.symbol(s)?),
                Atom::Uf(name, args) => {
                    let args = args
                        .iter()
                        .map(|a| self.expr(a, arity))
                        .collect::<Result<Vec<_>, _>>()?;
                    IE::Read(Box::new(self.reference(name, args, true)?))
                }
                Atom::Div(x, m) => match self.expr(x, arity)? {
                    IE::Const(k) => IE::Const(k.div_euclid(*m)),
                    inner => IE::FloorDiv(Box::new(inner), *m),
                },
            };
            match t {
                IE::Const(k) => {
                    constant = c
                        .checked_mul(k)
                        .and_then(|p| constant.checked_add(p))
                        .ok_or_else(|| RunError::Overflow {
                            site: self.site.clone(),
                        })?
                }
                t => terms.push((c, t)),
            }
        }
        Ok(if terms.is_empty() {
            IE::Const(constant)
        } else {
            IE::Sum(terms, constant)
        })
    }

    pub(super) fn symbol(&self, s: &str) -> Result<i64, RunError> {
        if !self.comp.symbols.iter().any(|x| x == s) {
            return Err(RunError::UnknownSymbol {
                name: s.to_string(),
                site: self.site.clone(),
            });
        }
        self.symbols
            .get(s)
            .copied()
            .ok_or_else(|| RunError::MissingSymbol {
                name: s.to_string(),
                site: self.site.clone(),
            })
    }

    pub(super) fn index(&mut self, e: &IndexExpr) -> Result<IE, RunError> {
        Ok(match e {
            IndexExpr::Const(k) => IE::Const(*k),
            IndexExpr::Var(v) => match self.scope.iter().rposition(|n| n == v) {
                Some(slot) => IE::Slot(slot),
                None => {
                    return Err(RunError::UnboundVariable {
                        name: v.clone(),
                        site: self.site.clone(),
                    })
                }
            },
            IndexExpr::Sym(s) if crate::dynamic::is_size_space(self.comp, s) => {
                // A size space in a bound or a guard: the scalar's value when
                // the bound or guard is evaluated.
                IE::Read(Box::new(self.reference(s, Vec::new(), true)?))
            }
            IndexExpr::Sym(s) => IE::Const(self.symbol(s)?),
            IndexExpr::Call(name, args) => {
                let args = args
                    .iter()
                    .map(|a| self.index(a))
                    .collect::<Result<Vec<_>, _>>()?;
                IE::Read(Box::new(self.reference(name, args, true)?))
            }
            IndexExpr::Sum(terms, k) => IE::Sum(
                terms
                    .iter()
                    .map(|(c, t)| Ok((*c, self.index(t)?)))
                    .collect::<Result<_, RunError>>()?,
                *k,
            ),
            IndexExpr::Min(es) | IndexExpr::Max(es) => {
                if es.is_empty() {
                    return Err(RunError::EmptyMinMax {
                        site: self.site.clone(),
                    });
                }
                let es = es.iter().map(|x| self.index(x)).collect::<Result<_, _>>()?;
                if matches!(e, IndexExpr::Min(_)) {
                    IE::Min(es)
                } else {
                    IE::Max(es)
                }
            }
            IndexExpr::FloorDiv(a, d) | IndexExpr::CeilDiv(a, d) => {
                if *d <= 0 {
                    return Err(RunError::Divisor {
                        site: self.site.clone(),
                        divisor: *d,
                    });
                }
                let a = Box::new(self.index(a)?);
                if matches!(e, IndexExpr::FloorDiv(..)) {
                    IE::FloorDiv(a, *d)
                } else {
                    IE::CeilDiv(a, *d)
                }
            }
        })
    }
}

/// Both operands as reals when either is one, and the operation's type.
pub(super) fn promote((a, ta): (VE, Ty), (b, tb): (VE, Ty)) -> (VE, VE, Ty) {
    match (ta, tb) {
        (Ty::Int, Ty::Int) => (a, b, Ty::Int),
        (Ty::Int, Ty::Real) => (VE::ToReal(Box::new(a)), b, Ty::Real),
        (Ty::Real, Ty::Int) => (a, VE::ToReal(Box::new(b)), Ty::Real),
        (Ty::Real, Ty::Real) => (a, b, Ty::Real),
    }
}
