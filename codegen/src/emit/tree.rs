//! The lowered tree: a small typed, target-neutral IR ([`LNode`],
//! [`Action`], [`Code`]) with names already the generated ones, and the
//! constructors that fold while building it ([`lin`], [`row_start`]).

use iegen::computation::{BinOp, ElemType, UpdateOp};

use crate::runtime::Method;

/// The type of a value: integers are 64-bit signed, reals are doubles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    /// `int`: a 64-bit signed integer.
    Int,
    /// `real`: a double.
    Real,
}

impl Ty {
    /// The type of a data space's elements.
    pub(super) fn of(e: ElemType) -> Ty {
        match e {
            ElemType::Int => Ty::Int,
            ElemType::Real => Ty::Real,
        }
    }
}

/// A comparison in a lowered guard or condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// The operator spelled `op` (`==`, `<=`, ...), if any.
    pub(crate) fn parse(op: &str) -> Option<CmpOp> {
        Some(match op {
            "==" => CmpOp::Eq,
            "!=" => CmpOp::Ne,
            "<" => CmpOp::Lt,
            "<=" => CmpOp::Le,
            ">" => CmpOp::Gt,
            ">=" => CmpOp::Ge,
            _ => return None,
        })
    }

    /// How C and Rust spell the operator.
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// A target-neutral expression; names are already the generated ones.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Code {
    /// An integer literal.
    Int(i64),
    /// A real literal.
    Real(f64),
    /// A loop or let variable.
    Var(String),
    /// A symbol parameter.
    Sym(String),
    /// An element of a data space (by index in the computation's spaces);
    /// `index` is the linearized index, `None` for a scalar.
    Elem {
        space: usize,
        index: Option<Box<Code>>,
        ty: Ty,
    },
    /// `Σ c·t + k` over integers, flattened.
    Lin(Vec<(i64, Code)>, i64),
    /// Negation of an operand of type `Ty`.
    Neg(Box<Code>, Ty),
    /// Binary arithmetic (including min and max) of two operands of type `Ty`.
    Bin(BinOp, Ty, Box<Code>, Box<Code>),
    /// Floor division by a positive constant.
    FloorDiv(Box<Code>, i64),
    /// Ceiling division by a positive constant.
    CeilDiv(Box<Code>, i64),
    /// An integer used as a real.
    ToReal(Box<Code>),
    /// A value method of a runtime object (by index in the computation's
    /// objects); always an integer.
    Call {
        object: usize,
        method: Method,
        args: Vec<Code>,
    },
}

impl Code {
    /// The type of the value.
    pub(crate) fn ty(&self) -> Ty {
        match self {
            Code::Real(_) | Code::ToReal(_) => Ty::Real,
            Code::Elem { ty, .. } | Code::Neg(_, ty) | Code::Bin(_, ty, _, _) => *ty,
            _ => Ty::Int,
        }
    }

    /// Calls `visit` on every loop or let variable inside.
    pub(crate) fn for_each_var(&self, visit: &mut impl FnMut(&str)) {
        match self {
            Code::Var(n) => visit(n),
            Code::Elem { index, .. } => {
                if let Some(i) = index {
                    i.for_each_var(visit);
                }
            }
            Code::Lin(ts, _) => ts.iter().for_each(|(_, t)| t.for_each_var(visit)),
            Code::Neg(a, _) | Code::FloorDiv(a, _) | Code::CeilDiv(a, _) | Code::ToReal(a) => {
                a.for_each_var(visit)
            }
            Code::Bin(_, _, a, b) => {
                a.for_each_var(visit);
                b.for_each_var(visit);
            }
            Code::Call { args, .. } => args.iter().for_each(|a| a.for_each_var(visit)),
            Code::Int(_) | Code::Real(_) | Code::Sym(_) => {}
        }
    }

    /// This expression with every subexpression `f` maps to `Some(c)`
    /// replaced by `c` (outermost first).
    pub(crate) fn replaced(&self, f: &impl Fn(&Code) -> Option<Code>) -> Code {
        if let Some(c) = f(self) {
            return c;
        }
        let boxed = |a: &Code| Box::new(a.replaced(f));
        match self {
            Code::Elem { space, index, ty } => Code::Elem {
                space: *space,
                index: index.as_deref().map(boxed),
                ty: *ty,
            },
            Code::Lin(ts, k) => {
                Code::Lin(ts.iter().map(|(c, t)| (*c, t.replaced(f))).collect(), *k)
            }
            Code::Neg(a, ty) => Code::Neg(boxed(a), *ty),
            Code::Bin(op, ty, a, b) => Code::Bin(*op, *ty, boxed(a), boxed(b)),
            Code::FloorDiv(a, d) => Code::FloorDiv(boxed(a), *d),
            Code::CeilDiv(a, d) => Code::CeilDiv(boxed(a), *d),
            Code::ToReal(a) => Code::ToReal(boxed(a)),
            Code::Call {
                object,
                method,
                args,
            } => Code::Call {
                object: *object,
                method: *method,
                args: args.iter().map(|a| a.replaced(f)).collect(),
            },
            Code::Int(_) | Code::Real(_) | Code::Var(_) | Code::Sym(_) => self.clone(),
        }
    }

    /// Whether a runtime object's method is called inside.
    pub(crate) fn calls_object(&self) -> bool {
        match self {
            Code::Call { .. } => true,
            Code::Elem { index, .. } => index.as_deref().is_some_and(Code::calls_object),
            Code::Lin(ts, _) => ts.iter().any(|(_, t)| t.calls_object()),
            Code::Neg(a, _) | Code::FloorDiv(a, _) | Code::CeilDiv(a, _) | Code::ToReal(a) => {
                a.calls_object()
            }
            Code::Bin(_, _, a, b) => a.calls_object() || b.calls_object(),
            Code::Int(_) | Code::Real(_) | Code::Var(_) | Code::Sym(_) => false,
        }
    }

    /// Calls `visit` on every data space element inside (index arrays too).
    pub(crate) fn for_each_elem(&self, visit: &mut impl FnMut(usize)) {
        match self {
            Code::Elem { space, index, .. } => {
                visit(*space);
                if let Some(i) = index {
                    i.for_each_elem(visit);
                }
            }
            Code::Lin(ts, _) => ts.iter().for_each(|(_, t)| t.for_each_elem(visit)),
            Code::Neg(a, _) | Code::FloorDiv(a, _) | Code::CeilDiv(a, _) | Code::ToReal(a) => {
                a.for_each_elem(visit)
            }
            Code::Bin(_, _, a, b) => {
                a.for_each_elem(visit);
                b.for_each_elem(visit);
            }
            Code::Call { args, .. } => args.iter().for_each(|a| a.for_each_elem(visit)),
            Code::Int(_) | Code::Real(_) | Code::Var(_) | Code::Sym(_) => {}
        }
    }
}

/// `Σ c·t + k`, flattened: nested sums are merged, constants folded, equal
/// terms combined; a single `1·t` is `t` itself.
pub(crate) fn lin(terms: Vec<(i64, Code)>, k: i64) -> Code {
    let mut out: Vec<(i64, Code)> = Vec::new();
    let mut constant = k;
    let mut pending: Vec<(i64, Code)> = terms;
    pending.reverse();
    while let Some((c, t)) = pending.pop() {
        match t {
            Code::Int(v) => match c.checked_mul(v).and_then(|p| constant.checked_add(p)) {
                Some(s) => constant = s,
                None => out.push((c, Code::Int(v))),
            },
            Code::Lin(ts, k2) => {
                let scaled: Option<Vec<(i64, Code)>> = ts
                    .iter()
                    .map(|(c2, t2)| c.checked_mul(*c2).map(|p| (p, t2.clone())))
                    .collect();
                match (
                    scaled,
                    c.checked_mul(k2).and_then(|p| constant.checked_add(p)),
                ) {
                    (Some(mut s), Some(k3)) => {
                        constant = k3;
                        s.reverse();
                        pending.extend(s);
                    }
                    _ => out.push((c, Code::Lin(ts, k2))),
                }
            }
            t => match out.iter_mut().find(|(_, u)| *u == t) {
                Some(slot) => match slot.0.checked_add(c) {
                    Some(s) => slot.0 = s,
                    None => out.push((c, t)),
                },
                None => out.push((c, t)),
            },
        }
    }
    out.retain(|(c, _)| *c != 0);
    match (out.len(), constant) {
        (0, k) => Code::Int(k),
        (1, 0) if out[0].0 == 1 => out.pop().map(|(_, t)| t).unwrap_or(Code::Int(0)),
        _ => Code::Lin(out, constant),
    }
}

/// A comparison of two lowered values (of the same type).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Cond {
    /// The left operand.
    pub lhs: Code,
    /// The comparison.
    pub op: CmpOp,
    /// The right operand.
    pub rhs: Code,
}

/// One update of a statement body.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Action {
    /// `target op value` (`=`, `+=`, `rise=`, ...).
    Update {
        target: Code,
        op: UpdateOp,
        value: Code,
    },
    /// The actions `then`, run when every condition holds.
    If { conds: Vec<Cond>, then: Vec<Action> },
    /// `insert` or `sort` of a runtime object.
    Call {
        object: usize,
        method: Method,
        args: Vec<Code>,
    },
}

/// How a runtime object is created, its arguments lowered.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ObjectInit {
    /// A permutation of keys of `arity` components, the first `compared`
    /// of which order it.
    Permutation {
        arity: usize,
        compared: usize,
        order: InitOrder,
    },
    /// An ordered set, with its bounds when declared.
    OrderedSet { bounds: Option<(Code, Code)> },
    /// A scatter over the keys `0..extent`.
    Scatter { extent: Code },
}

/// The order of a permutation, its extents lowered.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum InitOrder {
    /// Lexicographic, by sorting.
    Lex,
    /// Counting sort, with each compared component's extent.
    Counting(Vec<Code>),
    /// Morton (Z) order.
    Morton,
}

/// A lowered loop-AST node.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum LNode {
    /// `for var in lower..upper`; `used`: the body mentions `var`.
    For {
        var: String,
        used: bool,
        lower: Code,
        upper: Code,
        body: Vec<LNode>,
    },
    /// `let var = value`; `used`: the body mentions `var`.
    Let {
        var: String,
        used: bool,
        value: Code,
        body: Vec<LNode>,
    },
    /// The body, run when every guard holds.
    If { guards: Vec<Cond>, body: Vec<LNode> },
    /// An instance of the named statement: its body's actions.
    Stmt { name: String, actions: Vec<Action> },
}

/// The first element of row `row` of a row-major array whose rows hold
/// `width` elements: `row * width`, as lowering linearizes an access.
pub(super) fn row_start(row: Code, width: &Code) -> Code {
    match (&row, width) {
        (Code::Int(0), _) | (_, Code::Int(0)) => Code::Int(0),
        (_, Code::Int(1)) => row,
        _ => Code::Bin(BinOp::Mul, Ty::Int, Box::new(row), Box::new(width.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lin_flattens_and_folds() {
        let i = Code::Var("i".into());
        let inner = lin(vec![(1, i.clone())], 1);
        assert_eq!(
            lin(vec![(1, inner.clone()), (1, Code::Int(2))], 0),
            Code::Lin(vec![(1, i.clone())], 3)
        );
        assert_eq!(lin(vec![(1, inner), (-1, i.clone())], -1), Code::Int(0));
        assert_eq!(lin(vec![(1, i.clone())], 0), i);
    }
}
