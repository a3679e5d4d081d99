//! Lowering a [`LoopProgram`] into the typed tree ([`super::tree`]):
//! names, types, linearized accesses and the checks the printers rely on.

use std::collections::HashMap;

use iegen::computation::{
    Access, BinOp, Body, Computation, Condition, ElemType, Role, Stmt, UpdateOp, ValueExpr,
};
use iegen::{Atom, Expr, Var};

use super::names::{function_name, Lang, Namer};
use super::tree::row_start;
use super::{
    lin, Action, CmpOp, Code, Cond, EmitError, InitOrder, LNode, ObjectInit, ParamKind, Parameter,
    Site, Ty,
};
use crate::ast::{Guard, GuardOp, IndexExpr, LoopProgram, Node};
use crate::runtime::{check_call_at, CallError, CallSite, Method, ObjectKind, ObjectSpec, Order};
use crate::width::{Elem, IndexWidth, ValueType, Widths};

/// A whole lowered program, with what the printers need to know about the
/// names and the use of each parameter.
#[derive(Debug)]
pub(crate) struct Lowered<'a> {
    /// The computation lowered.
    pub comp: &'a Computation,
    /// The names handed out so far (printers take more from it).
    pub namer: Namer,
    /// The generated function's name.
    pub function: String,
    /// Generated names of the symbols, in order.
    pub symbols: Vec<String>,
    /// Generated names of the data spaces, in order.
    pub spaces: Vec<String>,
    /// The lowered loop AST.
    pub body: Vec<LNode>,
    /// Per data space: read anywhere (as an index array too).
    pub read: Vec<bool>,
    /// Per data space: written anywhere.
    pub written: Vec<bool>,
    /// Per symbol: mentioned by the body.
    pub sym_used: Vec<bool>,
    /// Generated names of the runtime objects, in order.
    pub objects: Vec<String>,
    /// The runtime objects' declarations, understood.
    pub specs: Vec<ObjectSpec>,
    /// Per runtime object: called anywhere.
    pub object_used: Vec<bool>,
    /// Per runtime object: called with a method that changes it
    /// (`insert`, `sort`, `place`).
    pub object_mutated: Vec<bool>,
    /// Per data space: for one sized by the computation, the top-level node
    /// before which it is allocated ([`crate::dynamic::allocation_points`]).
    pub alloc_at: Vec<Option<usize>>,
    /// Per data space: the width its elements are stored at (64 but for an
    /// index array the function takes or returns, [`Widths`]).
    pub widths: Vec<IndexWidth>,
    /// The type of the values (every `real` data space's elements).
    pub values: ValueType,
}

impl Lowered<'_> {
    /// The parameters of the generated function, in order.
    pub(crate) fn parameters(&self) -> Vec<Parameter> {
        let mut out: Vec<Parameter> = self
            .comp
            .symbols
            .iter()
            .zip(&self.symbols)
            .map(|(s, n)| Parameter {
                source: s.clone(),
                name: n.clone(),
                kind: ParamKind::Symbol,
            })
            .collect();
        for (s, (d, n)) in self.comp.spaces.iter().zip(&self.spaces).enumerate() {
            if d.role == Role::Temp {
                continue;
            }
            let kind = if d.extents.is_empty() {
                ParamKind::Scalar {
                    elem: d.elem,
                    role: d.role,
                }
            } else if self.alloc_at[s].is_some() {
                ParamKind::DynArray { elem: self.elem(s) }
            } else if d.extents.is_empty() {
                ParamKind::Scalar {
                    elem: d.elem,
                    role: d.role,
                }
            } else {
                ParamKind::Array {
                    elem: self.elem(s),
                    role: d.role,
                }
            };
            out.push(Parameter {
                source: d.name.clone(),
                name: n.clone(),
                kind,
            });
        }
        out
    }

    /// How data space `space`'s elements are stored.
    pub(crate) fn elem(&self, space: usize) -> Elem {
        Elem::of(
            self.comp.spaces[space].elem,
            self.widths[space],
            self.values,
        )
    }

    /// Whether data space `space` is stored 32 bits an element: its reads
    /// are widened and its stores narrowed.
    pub(crate) fn narrow(&self, space: usize) -> bool {
        self.widths[space] == IndexWidth::W32
    }

    /// Whether any data space is stored 32 bits an element: the function
    /// checks its sizes ([`crate::width`]).
    pub(crate) fn any_narrow(&self) -> bool {
        self.widths.contains(&IndexWidth::W32)
    }

    /// Lowers the extents of data space `space` (they may use symbols and
    /// index arrays, no variables).
    pub(crate) fn extents(&mut self, space: usize) -> Result<Vec<Code>, EmitError> {
        let comp = self.comp;
        let d = &comp.spaces[space];
        let site = Site::Extent(d.name.clone());
        let mut cx = Lowerer::for_extents(self, site);
        d.extents.iter().map(|e| cx.expr(e, &[])).collect()
    }

    /// Lowers the constructor arguments of runtime object `object` (they use
    /// symbols only), marking their symbols as used.
    pub(crate) fn object_init(&mut self, object: usize) -> Result<ObjectInit, EmitError> {
        let spec = self.specs[object].clone();
        let mut cx = Lowerer::for_extents(self, Site::Object(spec.name.clone()));
        Ok(match &spec.kind {
            ObjectKind::Permutation {
                arity,
                compared,
                order,
            } => ObjectInit::Permutation {
                arity: *arity,
                compared: *compared,
                order: match order {
                    Order::Lex => InitOrder::Lex,
                    Order::Morton => InitOrder::Morton,
                    Order::Counting(es) => InitOrder::Counting(
                        es.iter()
                            .map(|e| cx.expr(e, &[]))
                            .collect::<Result<_, _>>()?,
                    ),
                },
            },
            ObjectKind::OrderedSet { bounds } => ObjectInit::OrderedSet {
                bounds: match bounds {
                    Some((lo, hi)) => Some((cx.expr(lo, &[])?, cx.expr(hi, &[])?)),
                    None => None,
                },
            },
            ObjectKind::Scatter { extents } => {
                // Several extents: the product, the number of linear keys.
                let mut codes = extents.iter().map(|e| cx.expr(e, &[]));
                let first = codes.next().expect("a scatter has an extent")?;
                ObjectInit::Scatter {
                    extent: codes.try_fold(first, |acc, e| {
                        Ok::<_, EmitError>(Code::Bin(
                            BinOp::Mul,
                            Ty::Int,
                            Box::new(acc),
                            Box::new(e?),
                        ))
                    })?,
                }
            }
        })
    }

    /// The runtime objects the program calls, in declaration order.
    pub(crate) fn used_objects(&self) -> Vec<usize> {
        (0..self.objects.len())
            .filter(|&o| self.object_used[o])
            .collect()
    }

    /// Whether the extents of data space `space` use only symbols and constants.
    pub(crate) fn static_extents(&self, space: usize) -> bool {
        self.alloc_at[space].is_none()
            && self.comp.spaces[space].extents.iter().all(|e| {
                let mut calls = false;
                e.for_each_call(&mut |_, _| calls = true);
                !calls
            })
    }
}

/// Lowers `program` for `lang`: names every symbol, data space and variable,
/// and checks everything the printers rely on.
pub(crate) fn lower<'p>(
    program: &'p LoopProgram,
    lang: Lang,
    widths: &Widths,
) -> Result<Lowered<'p>, EmitError> {
    let comp = &program.computation;
    // Index arrays the function takes or returns, at their width.
    let space_widths = comp
        .spaces
        .iter()
        .map(|d| {
            let array = !d.extents.is_empty() && d.role != Role::Temp && d.elem == ElemType::Int;
            if array {
                widths.of(&d.name)
            } else {
                IndexWidth::W64
            }
        })
        .collect();
    let function = function_name(comp, lang)?;
    let mut namer = Namer::new(lang);
    let symbols: Vec<String> = comp.symbols.iter().map(|s| namer.fresh(s)).collect();
    let spaces: Vec<String> = comp.spaces.iter().map(|d| namer.fresh(&d.name)).collect();
    let objects: Vec<String> = comp.objects.iter().map(|o| namer.fresh(&o.name)).collect();
    let specs = comp
        .objects
        .iter()
        .map(|o| {
            ObjectSpec::parse(o, &comp.symbols).map_err(|error| EmitError::Object {
                object: o.name.clone(),
                error,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut lowered = Lowered {
        comp,
        namer,
        function,
        symbols,
        spaces,
        body: Vec::new(),
        read: vec![false; comp.spaces.len()],
        written: vec![false; comp.spaces.len()],
        sym_used: vec![false; comp.symbols.len()],
        object_used: vec![false; objects.len()],
        object_mutated: vec![false; objects.len()],
        objects,
        specs,
        alloc_at: crate::dynamic::allocation_points(program),
        widths: space_widths,
        values: widths.values(),
    };
    // Variables: one generated name per distinct source name.
    let mut vars = HashMap::new();
    collect_vars(&program.body, &mut |v| {
        if !vars.contains_key(v) {
            let n = lowered.namer.fresh(v);
            vars.insert(v.to_string(), n);
        }
    });
    let mut cx = Lowerer {
        out: &mut lowered,
        vars,
        scope: Vec::new(),
        site: Site::Guard,
    };
    let body = cx.nodes(&program.body)?;
    lowered.body = body;
    // Every extent must be valid, even where the printed code needs none;
    // checking them does not count as a use.
    let (sym_used, read) = (lowered.sym_used.clone(), lowered.read.clone());
    for s in 0..comp.spaces.len() {
        lowered.extents(s)?;
    }
    lowered.sym_used = sym_used;
    lowered.read = read;
    Ok(lowered)
}

fn collect_vars<'a>(nodes: &'a [Node], visit: &mut impl FnMut(&'a str)) {
    for n in nodes {
        match n {
            Node::For { var, body, .. } | Node::Let { var, body, .. } => {
                visit(var);
                collect_vars(body, visit);
            }
            Node::If { body, .. } => collect_vars(body, visit),
            Node::Stmt { .. } => {}
        }
    }
}

struct Lowerer<'l, 'a> {
    out: &'l mut Lowered<'a>,
    vars: HashMap<String, String>,
    /// Source name and use flag of each variable in scope, innermost last.
    scope: Vec<(String, bool)>,
    site: Site,
}

impl<'l, 'a> Lowerer<'l, 'a> {
    fn for_extents(out: &'l mut Lowered<'a>, site: Site) -> Self {
        Lowerer {
            out,
            vars: HashMap::new(),
            scope: Vec::new(),
            site,
        }
    }

    fn nodes(&mut self, nodes: &[Node]) -> Result<Vec<LNode>, EmitError> {
        nodes.iter().map(|n| self.node(n)).collect()
    }

    fn scoped(&mut self, var: &str, body: &[Node]) -> Result<(Vec<LNode>, bool), EmitError> {
        self.scope.push((var.to_string(), false));
        let body = self.nodes(body);
        let (_, used) = self.scope.pop().unwrap_or_default();
        Ok((body?, used))
    }

    fn node(&mut self, node: &Node) -> Result<LNode, EmitError> {
        match node {
            Node::For {
                var,
                lower,
                upper,
                body,
            } => {
                self.site = Site::Loop(var.clone());
                let lower = self.index(lower)?;
                let upper = self.index(upper)?;
                let (body, used) = self.scoped(var, body)?;
                Ok(LNode::For {
                    var: self.vars[var].clone(),
                    used,
                    lower,
                    upper,
                    body,
                })
            }
            Node::Let { var, value, body } => {
                self.site = Site::Let(var.clone());
                let value = self.index(value)?;
                let (body, used) = self.scoped(var, body)?;
                Ok(LNode::Let {
                    var: self.vars[var].clone(),
                    used,
                    value,
                    body,
                })
            }
            Node::If { guards, body } => {
                self.site = Site::Guard;
                let guards = guards
                    .iter()
                    .map(|g| self.guard(g))
                    .collect::<Result<_, _>>()?;
                let body = self.nodes(body)?;
                Ok(LNode::If { guards, body })
            }
            Node::Stmt { stmt, iterators } => self.stmt(*stmt, iterators),
        }
    }

    fn guard(&mut self, g: &Guard) -> Result<Cond, EmitError> {
        Ok(Cond {
            lhs: self.index(&g.lhs)?,
            op: match g.op {
                GuardOp::Eq => CmpOp::Eq,
                GuardOp::Le => CmpOp::Le,
            },
            rhs: self.index(&g.rhs)?,
        })
    }

    fn stmt(&mut self, index: usize, iterators: &[IndexExpr]) -> Result<LNode, EmitError> {
        let comp = self.out.comp;
        let stmt = comp.stmts.get(index).ok_or(EmitError::NoSuchStatement {
            index,
            count: comp.stmts.len(),
        })?;
        self.site = Site::Statement(stmt.name.clone());
        let arity = stmt.domain.arity();
        if iterators.len() != arity {
            return Err(EmitError::IteratorCount {
                stmt: stmt.name.clone(),
                expected: arity,
                found: iterators.len(),
            });
        }
        // An iterator value uses its variables only where the body uses the
        // iterator (a loop whose variable only feeds unused iterators must
        // not leave an unused variable in the Rust output).
        let saved: Vec<bool> = self.scope.iter().map(|(_, used)| *used).collect();
        let iters = iterators
            .iter()
            .map(|e| self.index(e))
            .collect::<Result<Vec<_>, _>>();
        for ((_, used), was) in self.scope.iter_mut().zip(saved) {
            *used = was;
        }
        let iters = iters?;
        let mut actions = Vec::new();
        self.body(stmt, &stmt.body, &iters, &mut actions)?;
        Ok(LNode::Stmt {
            name: stmt.name.clone(),
            actions,
        })
    }

    fn body(
        &mut self,
        stmt: &Stmt,
        body: &Body,
        iters: &[Code],
        out: &mut Vec<Action>,
    ) -> Result<(), EmitError> {
        match body {
            Body::Update { target, op, value } => {
                let value = match (op, value) {
                    // The whole value of an assignment: where `place` may stand.
                    (
                        UpdateOp::Assign,
                        ValueExpr::Call {
                            object,
                            method,
                            args,
                        },
                    ) => {
                        let (object, method, args) =
                            self.call(stmt, object, method, args, iters, CallSite::Assigned)?;
                        Code::Call {
                            object,
                            method,
                            args,
                        }
                    }
                    _ => self.value(stmt, value, iters)?,
                };
                let t = self.access(target, iters)?;
                let space = &self.out.comp.spaces[t.0];
                if space.role == Role::In {
                    return Err(EmitError::WriteToInput {
                        stmt: stmt.name.clone(),
                        space: space.name.clone(),
                    });
                }
                self.out.written[t.0] = true;
                if op.reads_target() {
                    self.out.read[t.0] = true;
                }
                let value = match (t.1.ty(), value.ty()) {
                    (Ty::Int, Ty::Real) => {
                        return Err(EmitError::RealToInt {
                            stmt: stmt.name.clone(),
                            space: space.name.clone(),
                        })
                    }
                    (Ty::Real, Ty::Int) => to_real(value),
                    _ => value,
                };
                out.push(Action::Update {
                    target: t.1,
                    op: *op,
                    value,
                });
            }
            Body::If { conditions, then } => {
                let conds = conditions
                    .iter()
                    .map(|c| self.condition(stmt, c, iters))
                    .collect::<Result<_, _>>()?;
                let mut inner = Vec::new();
                self.body(stmt, then, iters, &mut inner)?;
                out.push(Action::If { conds, then: inner });
            }
            Body::Call {
                object,
                method,
                args,
            } => {
                let (object, method, args) =
                    self.call(stmt, object, method, args, iters, CallSite::Statement)?;
                out.push(Action::Call {
                    object,
                    method,
                    args,
                });
            }
            Body::Seq(bs) => {
                for b in bs {
                    self.body(stmt, b, iters, out)?;
                }
            }
        }
        Ok(())
    }

    /// A call of a runtime object, checked, its arguments lowered.
    fn call(
        &mut self,
        stmt: &Stmt,
        object: &str,
        method: &str,
        args: &[ValueExpr],
        iters: &[Code],
        site: CallSite,
    ) -> Result<(usize, Method, Vec<Code>), EmitError> {
        let err = |error| EmitError::Call {
            stmt: stmt.name.clone(),
            error,
        };
        let comp = self.out.comp;
        let o = comp
            .objects
            .iter()
            .position(|x| x.name == object)
            .ok_or_else(|| {
                err(CallError::UnknownObject {
                    object: object.to_string(),
                })
            })?;
        let m = check_call_at(&self.out.specs[o], method, args, site).map_err(err)?;
        let mut lowered = Vec::with_capacity(args.len());
        for (p, a) in args.iter().enumerate() {
            let c = self.value(stmt, a, iters)?;
            if c.ty() == Ty::Real {
                return Err(err(CallError::RealArgument {
                    call: format!("{object}.{method}"),
                    position: p + 1,
                }));
            }
            lowered.push(c);
        }
        self.out.object_used[o] = true;
        if m.changes_object() {
            self.out.object_mutated[o] = true;
        }
        Ok((o, m, lowered))
    }

    fn condition(&mut self, stmt: &Stmt, c: &Condition, iters: &[Code]) -> Result<Cond, EmitError> {
        let op = CmpOp::parse(c.op).ok_or_else(|| EmitError::Comparison {
            stmt: stmt.name.clone(),
            op: c.op.to_string(),
        })?;
        let lhs = self.value(stmt, &c.lhs, iters)?;
        let rhs = self.value(stmt, &c.rhs, iters)?;
        let (lhs, rhs) = promote(lhs, rhs);
        Ok(Cond { lhs, op, rhs })
    }

    fn value(&mut self, stmt: &Stmt, v: &ValueExpr, iters: &[Code]) -> Result<Code, EmitError> {
        Ok(match v {
            ValueExpr::Int(k) => Code::Int(*k),
            ValueExpr::Real(x) => Code::Real(*x),
            ValueExpr::Index(e) => self.expr(e, iters)?,
            ValueExpr::Read(a) => {
                let (space, code) = self.access(a, iters)?;
                self.out.read[space] = true;
                code
            }
            ValueExpr::Neg(a) => {
                let a = self.value(stmt, a, iters)?;
                match a {
                    Code::Int(k) if k != i64::MIN => Code::Int(-k),
                    Code::Real(x) => Code::Real(-x),
                    a => {
                        let ty = a.ty();
                        Code::Neg(Box::new(a), ty)
                    }
                }
            }
            ValueExpr::Binary(op, a, b) => {
                let a = self.value(stmt, a, iters)?;
                let b = self.value(stmt, b, iters)?;
                let (a, b) = promote(a, b);
                if let (Code::Int(x), Code::Int(y)) = (&a, &b) {
                    if let Some(k) = fold(*op, *x, *y) {
                        return Ok(Code::Int(k));
                    }
                }
                let ty = a.ty();
                Code::Bin(*op, ty, Box::new(a), Box::new(b))
            }
            ValueExpr::Call {
                object,
                method,
                args,
            } => {
                let (object, method, args) =
                    self.call(stmt, object, method, args, iters, CallSite::Value)?;
                Code::Call {
                    object,
                    method,
                    args,
                }
            }
        })
    }

    /// A data space element of a statement body: (space, element).
    fn access(&mut self, a: &Access, iters: &[Code]) -> Result<(usize, Code), EmitError> {
        let index = a
            .index
            .iter()
            .map(|e| self.expr(e, iters))
            .collect::<Result<Vec<_>, _>>()?;
        self.elem(&a.space, index, false)
    }

    /// The element `name(index...)`, linearized; `index_array` requires an
    /// integer data space (a UF call).
    fn elem(
        &mut self,
        name: &str,
        index: Vec<Code>,
        index_array: bool,
    ) -> Result<(usize, Code), EmitError> {
        let comp = self.out.comp;
        let space = comp
            .spaces
            .iter()
            .position(|d| d.name == name)
            .ok_or_else(|| EmitError::UnknownSpace {
                site: self.site.clone(),
                name: name.to_string(),
            })?;
        let d = &comp.spaces[space];
        if index_array && d.elem != ElemType::Int {
            return Err(EmitError::NotIndexArray {
                site: self.site.clone(),
                name: name.to_string(),
            });
        }
        if index.len() != d.extents.len() {
            return Err(EmitError::Arity {
                site: self.site.clone(),
                space: name.to_string(),
                expected: d.extents.len(),
                found: index.len(),
            });
        }
        let mut linear: Option<Code> = None;
        for (dim, i) in index.into_iter().enumerate() {
            linear = Some(match linear {
                None => i,
                Some(acc) => {
                    let site = std::mem::replace(&mut self.site, Site::Extent(d.name.clone()));
                    let extent = self.expr(&d.extents[dim], &[]);
                    self.site = site;
                    let extent = extent?;
                    lin(vec![(1, row_start(acc, &extent)), (1, i)], 0)
                }
            });
        }
        Ok((
            space,
            Code::Elem {
                space,
                index: linear.map(Box::new),
                ty: Ty::of(d.elem),
            },
        ))
    }

    /// An affine expression of a statement body (or an extent), with the
    /// statement's iterators replaced by `iters`.
    fn expr(&mut self, e: &Expr, iters: &[Code]) -> Result<Code, EmitError> {
        let mut terms = Vec::with_capacity(e.num_terms());
        for (atom, c) in e.terms() {
            let t = match atom {
                Atom::Var(v) => match (v, &self.site) {
                    (Var::Tuple(p), _) if *p < iters.len() => {
                        self.mark_used(&iters[*p]);
                        iters[*p].clone()
                    }
                    (_, Site::Statement(stmt)) => {
                        return Err(EmitError::BadIterator {
                            stmt: stmt.clone(),
                            var: v.to_string(),
                        })
                    }
                    _ => {
                        return Err(EmitError::UnboundVariable {
                            site: self.site.clone(),
                            name: v.to_string(),
                        })
                    }
                },
                Atom::Sym(s) => self.sym(s)?,
                Atom::Uf(name, args) => {
                    let args = args
                        .iter()
                        .map(|a| self.expr(a, iters))
                        .collect::<Result<Vec<_>, _>>()?;
                    let (space, code) = self.elem(name, args, true)?;
                    self.out.read[space] = true;
                    code
                }
                Atom::Div(x, m) => Code::FloorDiv(Box::new(self.expr(x, iters)?), *m),
            };
            terms.push((c, t));
        }
        Ok(lin(terms, e.constant_term()))
    }

    /// Marks the loop and let variables of `c` as used.
    fn mark_used(&mut self, c: &Code) {
        let mut names = Vec::new();
        c.for_each_var(&mut |n| names.push(n.to_string()));
        for n in names {
            let vars = &self.vars;
            if let Some(slot) = self
                .scope
                .iter_mut()
                .rev()
                .find(|(src, _)| vars.get(src) == Some(&n))
            {
                slot.1 = true;
            }
        }
    }

    fn sym(&mut self, s: &str) -> Result<Code, EmitError> {
        let comp = self.out.comp;
        if crate::dynamic::is_size_space(comp, s) {
            // A size space in an extent, a bound, a guard or an index
            // expression: the scalar's value where it is evaluated.
            if let Some(k) = comp.spaces.iter().position(|d| d.name == s) {
                self.out.read[k] = true;
                return Ok(Code::Elem {
                    space: k,
                    index: None,
                    ty: Ty::Int,
                });
            }
        }
        let k =
            comp.symbols
                .iter()
                .position(|x| x == s)
                .ok_or_else(|| EmitError::UnknownSymbol {
                    site: self.site.clone(),
                    name: s.to_string(),
                })?;
        self.out.sym_used[k] = true;
        Ok(Code::Sym(self.out.symbols[k].clone()))
    }

    /// An index expression of the loop AST.
    fn index(&mut self, e: &IndexExpr) -> Result<Code, EmitError> {
        Ok(match e {
            IndexExpr::Const(k) => Code::Int(*k),
            IndexExpr::Var(v) => {
                let slot = self.scope.iter_mut().rev().find(|(n, _)| n == v);
                match slot {
                    Some(slot) => {
                        slot.1 = true;
                        Code::Var(self.vars[v].clone())
                    }
                    None => {
                        return Err(EmitError::UnboundVariable {
                            site: self.site.clone(),
                            name: v.clone(),
                        })
                    }
                }
            }
            IndexExpr::Sym(s) => self.sym(s)?,
            IndexExpr::Call(name, args) => {
                let args = args
                    .iter()
                    .map(|a| self.index(a))
                    .collect::<Result<Vec<_>, _>>()?;
                let (space, code) = self.elem(name, args, true)?;
                self.out.read[space] = true;
                code
            }
            IndexExpr::Sum(terms, k) => {
                let terms = terms
                    .iter()
                    .map(|(c, t)| Ok((*c, self.index(t)?)))
                    .collect::<Result<Vec<_>, EmitError>>()?;
                lin(terms, *k)
            }
            IndexExpr::Min(es) | IndexExpr::Max(es) => {
                let op = if matches!(e, IndexExpr::Min(_)) {
                    BinOp::Min
                } else {
                    BinOp::Max
                };
                let codes = es
                    .iter()
                    .map(|x| self.index(x))
                    .collect::<Result<Vec<_>, _>>()?;
                let mut codes = codes.into_iter();
                let mut acc = codes.next().ok_or_else(|| EmitError::EmptyMinMax {
                    site: self.site.clone(),
                })?;
                for c in codes {
                    acc = Code::Bin(op, Ty::Int, Box::new(acc), Box::new(c));
                }
                acc
            }
            IndexExpr::FloorDiv(a, d) | IndexExpr::CeilDiv(a, d) => {
                if *d <= 0 {
                    return Err(EmitError::Divisor {
                        site: self.site.clone(),
                        divisor: *d,
                    });
                }
                let a = self.index(a)?;
                match (matches!(e, IndexExpr::FloorDiv(..)), *d) {
                    (_, 1) => a,
                    (true, d) => Code::FloorDiv(Box::new(a), d),
                    (false, d) => Code::CeilDiv(Box::new(a), d),
                }
            }
        })
    }
}

fn to_real(c: Code) -> Code {
    match c {
        Code::Int(k) => Code::Real(k as f64),
        c if c.ty() == Ty::Real => c,
        c => Code::ToReal(Box::new(c)),
    }
}

/// Both operands as reals when either is one.
fn promote(a: Code, b: Code) -> (Code, Code) {
    match (a.ty(), b.ty()) {
        (Ty::Int, Ty::Real) => (to_real(a), b),
        (Ty::Real, Ty::Int) => (a, to_real(b)),
        _ => (a, b),
    }
}

/// `x op y` on integer literals with C semantics, when defined.
fn fold(op: BinOp, x: i64, y: i64) -> Option<i64> {
    match op {
        BinOp::Add => x.checked_add(y),
        BinOp::Sub => x.checked_sub(y),
        BinOp::Mul => x.checked_mul(y),
        BinOp::Div => x.checked_div(y),
        BinOp::Min => Some(x.min(y)),
        BinOp::Max => Some(x.max(y)),
    }
}
