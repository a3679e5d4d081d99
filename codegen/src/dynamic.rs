//! Arrays sized by the computation: `out` and `temp` data spaces whose
//! extents use *size spaces* (scalar `int` data spaces of role `out` or
//! `temp` that statements compute, `out int K; out int kept[K];`).
//!
//! Every backend allocates such an array (zero-filled) at the top level of
//! the loop program, immediately before the first top-level node that
//! contains a statement reading or writing it (as a data space or as an
//! index array), or a loop bound, `let` or guard calling it; an array that
//! nothing touches is allocated after the last node. Its size spaces must not
//! change afterwards (the interpreter checks it; C and Rust assume it).

use iegen::computation::{Body, Computation, ElemType, Role, ValueExpr};
use iegen::{Atom, Expr};

use crate::ast::{IndexExpr, LoopProgram, Node};

/// Whether data space `name` of `comp` is a size space: a scalar `int` data
/// space of role `out` or `temp` (and not a symbol).
pub fn is_size_space(comp: &Computation, name: &str) -> bool {
    !comp.symbols.iter().any(|s| s == name)
        && comp.space(name).is_some_and(|d| {
            d.extents.is_empty()
                && d.elem == ElemType::Int
                && matches!(d.role, Role::Out | Role::Temp)
        })
}

/// The size spaces the extents of data space `space` use, by index, in order
/// of first use.
pub fn size_spaces(comp: &Computation, space: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let d = &comp.spaces[space];
    if !matches!(d.role, Role::Out | Role::Temp) {
        return out;
    }
    for e in &d.extents {
        for (atom, _) in e.terms() {
            if let Atom::Sym(s) = atom {
                if is_size_space(comp, s) {
                    if let Some(k) = comp.spaces.iter().position(|x| x.name == *s) {
                        if !out.contains(&k) {
                            out.push(k);
                        }
                    }
                }
            }
        }
    }
    out
}

/// Whether data space `space` is sized by the computation (its extents use
/// a size space).
pub fn is_dynamic(comp: &Computation, space: usize) -> bool {
    !size_spaces(comp, space).is_empty()
}

/// Per data space: `Some(t)` for a dynamically sized one, allocated before
/// top-level node `t` of `program.body` (`t == body.len()`: after the last
/// node); `None` for the others.
pub fn allocation_points(program: &LoopProgram) -> Vec<Option<usize>> {
    let comp = &program.computation;
    (0..comp.spaces.len())
        .map(|s| {
            if !is_dynamic(comp, s) {
                return None;
            }
            let name = comp.spaces[s].name.as_str();
            Some(
                program
                    .body
                    .iter()
                    .position(|n| node_touches(comp, n, name))
                    .unwrap_or(program.body.len()),
            )
        })
        .collect()
}

fn node_touches(comp: &Computation, node: &Node, name: &str) -> bool {
    match node {
        Node::For {
            lower, upper, body, ..
        } => {
            index_calls(lower, name)
                || index_calls(upper, name)
                || body.iter().any(|n| node_touches(comp, n, name))
        }
        Node::Let { value, body, .. } => {
            index_calls(value, name) || body.iter().any(|n| node_touches(comp, n, name))
        }
        Node::If { guards, body } => {
            guards
                .iter()
                .any(|g| index_calls(&g.lhs, name) || index_calls(&g.rhs, name))
                || body.iter().any(|n| node_touches(comp, n, name))
        }
        Node::Stmt { stmt, iterators } => {
            iterators.iter().any(|e| index_calls(e, name))
                || comp
                    .stmts
                    .get(*stmt)
                    .is_some_and(|s| body_touches(&s.body, name))
        }
    }
}

fn index_calls(e: &IndexExpr, name: &str) -> bool {
    match e {
        IndexExpr::Const(_) | IndexExpr::Var(_) | IndexExpr::Sym(_) => false,
        IndexExpr::Call(f, args) => f == name || args.iter().any(|a| index_calls(a, name)),
        IndexExpr::Sum(ts, _) => ts.iter().any(|(_, t)| index_calls(t, name)),
        IndexExpr::Min(es) | IndexExpr::Max(es) => es.iter().any(|x| index_calls(x, name)),
        IndexExpr::FloorDiv(a, _) | IndexExpr::CeilDiv(a, _) => index_calls(a, name),
    }
}

fn expr_calls(e: &Expr, name: &str) -> bool {
    let mut hit = false;
    e.for_each_call(&mut |f, args| {
        hit |= f == name || args.iter().any(|a| expr_calls(a, name));
    });
    hit
}

fn body_touches(b: &Body, name: &str) -> bool {
    match b {
        Body::Update { target, value, .. } => {
            target.space == name
                || target.index.iter().any(|e| expr_calls(e, name))
                || value_touches(value, name)
        }
        Body::If { conditions, then } => {
            conditions
                .iter()
                .any(|c| value_touches(&c.lhs, name) || value_touches(&c.rhs, name))
                || body_touches(then, name)
        }
        Body::Call { args, .. } => args.iter().any(|a| value_touches(a, name)),
        Body::Seq(bs) => bs.iter().any(|x| body_touches(x, name)),
    }
}

fn value_touches(v: &ValueExpr, name: &str) -> bool {
    match v {
        ValueExpr::Int(_) | ValueExpr::Real(_) => false,
        ValueExpr::Index(e) => expr_calls(e, name),
        ValueExpr::Read(a) => a.space == name || a.index.iter().any(|e| expr_calls(e, name)),
        ValueExpr::Neg(a) => value_touches(a, name),
        ValueExpr::Binary(_, a, b) => value_touches(a, name) || value_touches(b, name),
        ValueExpr::Call { args, .. } => args.iter().any(|a| value_touches(a, name)),
    }
}
