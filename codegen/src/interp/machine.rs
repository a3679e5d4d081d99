//! Execution: the machine that runs a resolved program over the memory,
//! checking bounds, overflow and the runtime objects' use.

use std::fmt;

use iegen::computation::{BinOp, Computation, Role, UpdateOp};

use crate::ast::GuardOp;
use crate::emit::CmpOp;
use crate::runtime::objects::Object;
use crate::runtime::{Method, ObjectFault};

use super::resolve::*;
use super::*;

/// What went wrong in an expression, before the site is known.
pub(super) enum Fault {
    OutOfBounds {
        space: usize,
        index: Vec<i64>,
    },
    Overflow,
    DivisionByZero,
    SizeChanged {
        size_space: usize,
        array: usize,
        old: i64,
        new: i64,
    },
    Object {
        object: usize,
        method: Method,
        fault: ObjectFault,
    },
    NotRising {
        space: usize,
        index: Vec<i64>,
        old: Number,
        new: Number,
    },
}

/// A number an error reports: an element's value. Reals compare by their
/// bits, so that a report equals itself even when it holds a NaN.
#[derive(Clone, Copy, Debug)]
pub enum Number {
    /// Of an `int` data space.
    Int(i64),
    /// Of a `real` data space.
    Real(f64),
}

impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => a == b,
            (Number::Real(a), Number::Real(b)) => a.to_bits() == b.to_bits(),
            _ => false,
        }
    }
}

impl Eq for Number {}

impl Number {
    /// Whether `self` is above `other` of the same type: where `max=`
    /// (`max`, `max_f64`) would keep `self`. A NaN is above nothing.
    pub(super) fn above(self, other: Number) -> bool {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => a > b,
            (a, b) => a.real() > b.real(),
        }
    }

    pub(super) fn real(self) -> f64 {
        match self {
            Number::Int(k) => k as f64,
            Number::Real(x) => x,
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Int(k) => write!(f, "{k}"),
            Number::Real(x) => write!(f, "{x:?}"),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) enum Val {
    Int(i64),
    Real(f64),
}

impl Val {
    pub(super) fn int(self) -> i64 {
        match self {
            Val::Int(k) => k,
            // Unreachable after type checking; truncation is C's conversion.
            Val::Real(x) => x as i64,
        }
    }

    pub(super) fn real(self) -> f64 {
        match self {
            Val::Int(k) => k as f64,
            Val::Real(x) => x,
        }
    }
}

pub(super) fn min_f64(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

pub(super) fn max_f64(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

pub(super) struct Machine<'a, 't> {
    pub(super) comp: &'a Computation,
    pub(super) spaces: &'a [SpaceInfo],
    pub(super) store: Vec<Array>,
    pub(super) slots: Vec<i64>,
    pub(super) trace: Option<&'t mut Trace>,
    /// The runtime objects, by index in the computation's objects.
    pub(super) objects: Vec<Object>,
    /// Per data space sized by the computation: the top-level node it is
    /// allocated before.
    pub(super) alloc_at: &'a [Option<usize>],
    /// Per size space, once an array it sizes is allocated: its value then
    /// and that array.
    pub(super) frozen: Vec<Option<(i64, usize)>>,
    /// The type the `real` data spaces hold their values at.
    pub(super) values: ValueType,
}

/// `old op v` of integers (`min=`, `max=` and the others), overflow
/// checked.
fn int_update(op: UpdateOp, old: i64, v: i64) -> Result<i64, Fault> {
    Ok(match op {
        UpdateOp::Assign | UpdateOp::Rise => v,
        UpdateOp::Add => old.checked_add(v).ok_or(Fault::Overflow)?,
        UpdateOp::Sub => old.checked_sub(v).ok_or(Fault::Overflow)?,
        UpdateOp::Mul => old.checked_mul(v).ok_or(Fault::Overflow)?,
        UpdateOp::Min => old.min(v),
        UpdateOp::Max => old.max(v),
    })
}

/// `old op v` of reals.
fn real_update(op: UpdateOp, old: f64, v: f64) -> f64 {
    match op {
        UpdateOp::Assign | UpdateOp::Rise => v,
        UpdateOp::Add => old + v,
        UpdateOp::Sub => old - v,
        UpdateOp::Mul => old * v,
        UpdateOp::Min => min_f64(old, v),
        UpdateOp::Max => max_f64(old, v),
    }
}

/// `a op b` of integers, overflow and division by zero checked.
fn int_bin(op: BinOp, a: i64, b: i64) -> Result<i64, Fault> {
    Ok(match op {
        BinOp::Add => a.checked_add(b).ok_or(Fault::Overflow)?,
        BinOp::Sub => a.checked_sub(b).ok_or(Fault::Overflow)?,
        BinOp::Mul => a.checked_mul(b).ok_or(Fault::Overflow)?,
        BinOp::Div if b == 0 => return Err(Fault::DivisionByZero),
        BinOp::Div => a.checked_div(b).ok_or(Fault::Overflow)?,
        BinOp::Min => a.min(b),
        BinOp::Max => a.max(b),
    })
}

impl Machine<'_, '_> {
    /// The real `x` at the run's value type: rounded to `f32`, or an
    /// integer (converted as C converts it).
    fn real(&self, x: f64) -> Val {
        match self.values {
            ValueType::F64 => Val::Real(x),
            ValueType::F32 => Val::Real(f64::from(x as f32)),
            ValueType::I64 | ValueType::I32 => Val::Int(x as i64),
        }
    }

    /// `v` as a real of the run's value type.
    fn to_real(&self, v: Val) -> Val {
        match (v, self.values) {
            (Val::Int(k), ValueType::I64 | ValueType::I32) => Val::Int(k),
            (Val::Int(k), ValueType::F32) => Val::Real(f64::from(k as f32)),
            (Val::Int(k), ValueType::F64) => Val::Real(k as f64),
            (Val::Real(x), _) => self.real(x),
        }
    }

    pub(super) fn fail(&self, f: Fault, site: Site) -> RunError {
        match f {
            Fault::OutOfBounds { space, index } => RunError::OutOfBounds {
                space: self.comp.spaces[space].name.clone(),
                index,
                len: self.store[space].len(),
                site,
            },
            Fault::Overflow => RunError::Overflow { site },
            Fault::SizeChanged {
                size_space,
                array,
                old,
                new,
            } => RunError::SizeChanged {
                size_space: self.comp.spaces[size_space].name.clone(),
                array: self.comp.spaces[array].name.clone(),
                old,
                new,
                site,
            },
            Fault::DivisionByZero => RunError::DivisionByZero { site },
            Fault::NotRising {
                space,
                index,
                old,
                new,
            } => RunError::NotRising {
                element: match index.as_slice() {
                    [] => self.comp.spaces[space].name.clone(),
                    _ => format!(
                        "{}[{}]",
                        self.comp.spaces[space].name,
                        index
                            .iter()
                            .map(i64::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                },
                old,
                new,
                site,
            },
            Fault::Object {
                object,
                method,
                fault,
            } => RunError::ObjectFault {
                site,
                call: format!("{}.{}", self.comp.objects[object].name, method.name()),
                fault,
            },
        }
    }

    /// Runs the top-level nodes, allocating the arrays sized by the
    /// computation before the node `alloc_at` gives.
    pub(super) fn top_level(&mut self, body: &[CNode]) -> Result<(), RunError> {
        for t in 0..=body.len() {
            for s in 0..self.comp.spaces.len() {
                if self.alloc_at[s] == Some(t) {
                    self.allocate(s)?;
                }
            }
            if let Some(node) = body.get(t) {
                self.node(node)?;
            }
        }
        Ok(())
    }

    /// The length of data space `s` by its extents, evaluated now.
    pub(super) fn length(&self, s: usize) -> Result<usize, RunError> {
        let d = &self.comp.spaces[s];
        let site = Site::Extent(d.name.clone());
        let mut len: i64 = 1;
        for e in &self.spaces[s].extents {
            let k = match e {
                Ext::Static(k) => *k,
                Ext::Dynamic(ie) => self.ie(ie, &[]).map_err(|f| self.fail(f, site.clone()))?,
            };
            if k < 0 {
                return Err(RunError::NegativeExtent {
                    space: d.name.clone(),
                    extent: k,
                });
            }
            len = len
                .checked_mul(k)
                .ok_or_else(|| RunError::Overflow { site: site.clone() })?;
        }
        usize::try_from(len).map_err(|_| RunError::Overflow { site })
    }

    /// Allocates (zeroed) data space `s`, sized by the computation, and
    /// freezes its size spaces.
    pub(super) fn allocate(&mut self, s: usize) -> Result<(), RunError> {
        let len = self.length(s)?;
        let d = &self.comp.spaces[s];
        self.store[s] = Array::try_zeros(d.elem, self.values, len, &d.name)?;
        for k in crate::dynamic::size_spaces(self.comp, s) {
            if self.frozen[k].is_none() {
                let v = match &self.store[k] {
                    Array::Int(xs) => xs.first().copied().unwrap_or(0),
                    _ => 0,
                };
                self.frozen[k] = Some((v, s));
            }
        }
        Ok(())
    }

    pub(super) fn setup_temps(&mut self) -> Result<(), RunError> {
        for (s, d) in self.comp.spaces.iter().enumerate() {
            if d.role != Role::Temp || self.alloc_at[s].is_some() {
                continue;
            }
            let len = self.length(s)?;
            self.store[s] = Array::try_zeros(d.elem, self.values, len, &d.name)?;
        }
        Ok(())
    }

    pub(super) fn nodes(&mut self, nodes: &[CNode]) -> Result<(), RunError> {
        for n in nodes {
            self.node(n)?;
        }
        Ok(())
    }

    pub(super) fn node(&mut self, node: &CNode) -> Result<(), RunError> {
        match node {
            CNode::For {
                var,
                slot,
                lower,
                upper,
                body,
            } => {
                let bounds = self
                    .ie(lower, &[])
                    .and_then(|lo| Ok((lo, self.ie(upper, &[])?)));
                let (lo, hi) = bounds.map_err(|f| self.fail(f, Site::Loop(var.clone())))?;
                for v in lo..hi {
                    self.slots[*slot] = v;
                    self.nodes(body)?;
                }
            }
            CNode::Let {
                var,
                slot,
                value,
                body,
            } => {
                let v = self
                    .ie(value, &[])
                    .map_err(|f| self.fail(f, Site::Let(var.clone())))?;
                self.slots[*slot] = v;
                self.nodes(body)?;
            }
            CNode::If { guards, body } => {
                for (l, op, r) in guards {
                    let holds = self
                        .ie(l, &[])
                        .and_then(|l| Ok((l, self.ie(r, &[])?)))
                        .map(|(l, r)| match op {
                            GuardOp::Eq => l == r,
                            GuardOp::Le => l <= r,
                        })
                        .map_err(|f| self.fail(f, Site::Guard))?;
                    if !holds {
                        return Ok(());
                    }
                }
                self.nodes(body)?;
            }
            CNode::Stmt { index, iters, acts } => {
                let mut point = Vec::with_capacity(iters.len());
                for e in iters {
                    let v = self.ie(e, &[]).map_err(|f| {
                        self.fail(
                            f,
                            Site::Statement {
                                name: self.comp.stmts[*index].name.clone(),
                                point: Vec::new(),
                            },
                        )
                    })?;
                    point.push(v);
                }
                if let Some(t) = self.trace.as_deref_mut() {
                    t.instances.push((*index, point.clone()));
                }
                if let Err(f) = self.acts(acts, &point) {
                    let site = Site::Statement {
                        name: self.comp.stmts[*index].name.clone(),
                        point,
                    };
                    return Err(self.fail(f, site));
                }
            }
        }
        Ok(())
    }

    pub(super) fn acts(&mut self, acts: &[Act], point: &[i64]) -> Result<(), Fault> {
        for a in acts {
            match a {
                Act::Update { target, op, value } => {
                    let v = self.val(value, point)?;
                    let at = self.locate(target, point)?;
                    if *op == UpdateOp::Rise {
                        let (old, new) = match &self.store[target.space] {
                            Array::Int(xs) | Array::RealInt(xs) => {
                                (Number::Int(xs[at]), Number::Int(v.int()))
                            }
                            Array::RealInt32(xs) => {
                                (Number::Int(i64::from(xs[at])), Number::Int(v.int()))
                            }
                            Array::Real(xs) => (Number::Real(xs[at]), Number::Real(v.real())),
                            Array::Real32(xs) => {
                                (Number::Real(f64::from(xs[at])), Number::Real(v.real()))
                            }
                        };
                        if old.above(new) {
                            return Err(self.not_rising(target, point, old, new));
                        }
                    }
                    let frozen = self.frozen[target.space];
                    // A write copies an array the caller shares first (an
                    // input is never written: its role is `in`).
                    match &mut self.store[target.space] {
                        Array::Int(xs) => {
                            let new = int_update(*op, xs[at], v.int())?;
                            if let Some((was, array)) = frozen {
                                if new != was {
                                    return Err(Fault::SizeChanged {
                                        size_space: target.space,
                                        array,
                                        old: was,
                                        new,
                                    });
                                }
                            }
                            xs.to_mut()[at] = new;
                        }
                        Array::Real(xs) => xs.to_mut()[at] = real_update(*op, xs[at], v.real()),
                        // One operation of `f32`s in `f64`, rounded once:
                        // the `f32` operation's result.
                        Array::Real32(xs) => {
                            xs.to_mut()[at] = real_update(*op, f64::from(xs[at]), v.real()) as f32;
                        }
                        Array::RealInt(xs) => xs.to_mut()[at] = int_update(*op, xs[at], v.int())?,
                        Array::RealInt32(xs) => {
                            let new = int_update(*op, i64::from(xs[at]), v.int())?;
                            xs.to_mut()[at] = i32::try_from(new).map_err(|_| Fault::Overflow)?;
                        }
                    }
                }
                Act::If { conds, then } => {
                    let mut holds = true;
                    for (l, op, r) in conds {
                        let (l, r) = (self.val(l, point)?, self.val(r, point)?);
                        let ok = match (l, r) {
                            (Val::Int(a), Val::Int(b)) => compare(a.cmp(&b), *op),
                            (a, b) => compare_f64(a.real(), b.real(), *op),
                        };
                        if !ok {
                            holds = false;
                            break;
                        }
                    }
                    if holds {
                        self.acts(then, point)?;
                    }
                }
                Act::Call(o, m, args) => {
                    let values = self.args(args, point)?;
                    self.objects[*o]
                        .act(*m, &values)
                        .map_err(|fault| Fault::Object {
                            object: *o,
                            method: *m,
                            fault,
                        })?;
                }
            }
        }
        Ok(())
    }

    /// The values of a call's (integer) arguments.
    pub(super) fn args(&self, args: &[VE], point: &[i64]) -> Result<Vec<i64>, Fault> {
        args.iter().map(|a| Ok(self.val(a, point)?.int())).collect()
    }

    pub(super) fn val(&self, v: &VE, point: &[i64]) -> Result<Val, Fault> {
        Ok(match v {
            VE::Int(k) => Val::Int(*k),
            VE::Real(x) => self.real(*x),
            VE::Index(e) => Val::Int(self.ie(e, point)?),
            VE::Read(r) => {
                let at = self.locate(r, point)?;
                match &self.store[r.space] {
                    Array::Int(xs) | Array::RealInt(xs) => Val::Int(xs[at]),
                    Array::RealInt32(xs) => Val::Int(i64::from(xs[at])),
                    Array::Real(xs) => Val::Real(xs[at]),
                    Array::Real32(xs) => Val::Real(f64::from(xs[at])),
                }
            }
            VE::Neg(a) => match self.val(a, point)? {
                Val::Int(k) => Val::Int(k.checked_neg().ok_or(Fault::Overflow)?),
                Val::Real(x) => Val::Real(-x),
            },
            VE::ToReal(a) => self.to_real(self.val(a, point)?),
            VE::Call(o, m, args) => {
                let values = self.args(args, point)?;
                let v = self.objects[*o]
                    .value(*m, &values)
                    .map_err(|fault| Fault::Object {
                        object: *o,
                        method: *m,
                        fault,
                    })?;
                Val::Int(v)
            }
            VE::Bin(op, Ty::Int, a, b) => {
                let (a, b) = (self.val(a, point)?.int(), self.val(b, point)?.int());
                Val::Int(int_bin(*op, a, b)?)
            }
            // Integer values: integer arithmetic.
            VE::Bin(op, Ty::Real, a, b) if self.values.is_integer() => {
                let (a, b) = (self.val(a, point)?.int(), self.val(b, point)?.int());
                Val::Int(int_bin(*op, a, b)?)
            }
            VE::Bin(op, Ty::Real, a, b) => {
                let (a, b) = (self.val(a, point)?.real(), self.val(b, point)?.real());
                // At `f32`, each operation rounded to `f32` (one in `f64`,
                // rounded once, is the `f32` operation).
                self.real(match op {
                    BinOp::Add => a + b,
                    BinOp::Sub => a - b,
                    BinOp::Mul => a * b,
                    BinOp::Div => a / b,
                    BinOp::Min => min_f64(a, b),
                    BinOp::Max => max_f64(a, b),
                })
            }
        })
    }

    /// A `rise=` of `target` from `old` down to `new` at `point`.
    pub(super) fn not_rising(
        &self,
        target: &Ref,
        point: &[i64],
        old: Number,
        new: Number,
    ) -> Fault {
        let index = match target.index.iter().map(|e| self.ie(e, point)).collect() {
            Ok(index) => index,
            Err(fault) => return fault,
        };
        Fault::NotRising {
            space: target.space,
            index,
            old,
            new,
        }
    }

    /// The linear position of an element, every index checked.
    pub(super) fn locate(&self, r: &Ref, point: &[i64]) -> Result<usize, Fault> {
        let len = self.store[r.space].len();
        let oob = |index: Vec<i64>| Fault::OutOfBounds {
            space: r.space,
            index,
        };
        let linear = match r.index.as_slice() {
            [] => 0,
            [i] => self.ie(i, point)?,
            idx => {
                let extents = &self.spaces[r.space].extents;
                let mut values = Vec::with_capacity(idx.len());
                for e in idx {
                    values.push(self.ie(e, point)?);
                }
                let mut linear: i64 = 0;
                for (d, (&v, ext)) in values.iter().zip(extents).enumerate() {
                    let extent = match ext {
                        Ext::Static(k) => *k,
                        Ext::Dynamic(ie) => self.ie(ie, &[])?,
                    };
                    if v < 0 || v >= extent {
                        return Err(oob(values));
                    }
                    linear = if d == 0 {
                        v
                    } else {
                        linear
                            .checked_mul(extent)
                            .and_then(|x| x.checked_add(v))
                            .ok_or(Fault::Overflow)?
                    };
                }
                match usize::try_from(linear) {
                    Ok(at) if at < len => return Ok(at),
                    _ => return Err(oob(values)),
                }
            }
        };
        match usize::try_from(linear) {
            Ok(at) if at < len => Ok(at),
            _ => Err(oob(if r.index.is_empty() {
                Vec::new()
            } else {
                vec![linear]
            })),
        }
    }

    pub(super) fn ie(&self, e: &IE, point: &[i64]) -> Result<i64, Fault> {
        Ok(match e {
            IE::Const(k) => *k,
            IE::Slot(s) => self.slots[*s],
            IE::It(p) => point[*p],
            IE::Sum(terms, k) => {
                let mut acc = *k;
                for (c, t) in terms {
                    let v = self.ie(t, point)?;
                    acc = c
                        .checked_mul(v)
                        .and_then(|p| acc.checked_add(p))
                        .ok_or(Fault::Overflow)?;
                }
                acc
            }
            IE::Read(r) => {
                let at = self.locate(r, point)?;
                match &self.store[r.space] {
                    Array::Int(xs) => xs[at],
                    // Rejected when resolving; reals are never index arrays.
                    _ => 0,
                }
            }
            IE::Min(es) | IE::Max(es) => {
                let mut acc: Option<i64> = None;
                for x in es {
                    let v = self.ie(x, point)?;
                    acc = Some(match (acc, e) {
                        (None, _) => v,
                        (Some(a), IE::Min(_)) => a.min(v),
                        (Some(a), _) => a.max(v),
                    });
                }
                acc.unwrap_or(0)
            }
            IE::FloorDiv(a, d) => {
                let a = self.ie(a, point)?;
                a.checked_div_euclid(*d).ok_or(Fault::Overflow)?
            }
            IE::CeilDiv(a, d) => {
                let a = self.ie(a, point)?;
                let q = a.checked_div(*d).ok_or(Fault::Overflow)?;
                if a % d > 0 {
                    q + 1
                } else {
                    q
                }
            }
        })
    }
}

pub(super) fn compare(o: std::cmp::Ordering, op: CmpOp) -> bool {
    use std::cmp::Ordering::*;
    match op {
        CmpOp::Eq => o == Equal,
        CmpOp::Ne => o != Equal,
        CmpOp::Lt => o == Less,
        CmpOp::Le => o != Greater,
        CmpOp::Gt => o == Greater,
        CmpOp::Ge => o != Less,
    }
}

pub(super) fn compare_f64(a: f64, b: f64, op: CmpOp) -> bool {
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
    }
}
