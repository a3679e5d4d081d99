//! What each statement reads and writes: the accesses of its body, the
//! calls on runtime objects, and the index arrays and scalars that its
//! domain (loop bounds, `let`s, guards) and its index expressions read;
//! and which scalars are local to one statement.

use std::collections::{HashMap, HashSet};

use crate::computation::{Access, Body, Computation, Role, Stmt, ValueExpr};
use crate::expr::{Expr, Var};

use super::text::Namer;
use super::PdfgError;

/// How a statement uses a data node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum UseKind {
    /// An element access in the body (`A(n)`, `tmp(i)`).
    Access,
    /// A method call on a runtime object.
    Call,
    /// An index array or scalar read by an index expression: in the
    /// domain (`row(n)` in `ii = row(n)`, `NP` in `p < NP`) or inside an
    /// access's index (`col(k)` in `x(col(k))`).
    Index { in_domain: bool },
}

/// A use of a data node by a statement, before it becomes an edge.
pub(super) struct Use {
    pub data: String,
    pub label: String,
    /// The element touched, over the statement's tuple, when known (for
    /// the dependence tests); `None` for a method call.
    pub index: Option<Vec<Expr>>,
    pub write: bool,
    pub kind: UseKind,
}

/// The uses of a statement, deduplicated, in order: body reads, body
/// writes, method calls, then index reads (body, then domain). Index reads
/// name only declared data spaces (other UFs and symbols are parameters).
pub(super) fn uses_of(stmt: &Stmt, iterators: &[String], spaces: &HashSet<&str>) -> Vec<Use> {
    let namer = Namer::new(iterators);
    let mut out: Vec<Use> = Vec::new();
    let mut push = |u: Use| {
        if !out
            .iter()
            .any(|o| o.write == u.write && o.data == u.data && o.label == u.label)
        {
            out.push(u);
        }
    };
    let access = |a: &Access, write: bool| Use {
        data: a.space.clone(),
        label: namer.access(a),
        index: Some(a.index.clone()),
        write,
        kind: UseKind::Access,
    };
    let mut reads = Vec::new();
    stmt.body
        .for_each_read(&mut |a| reads.push(access(a, false)));
    let mut writes = Vec::new();
    stmt.body
        .for_each_write(&mut |a| writes.push(access(a, true)));
    reads.into_iter().chain(writes).for_each(&mut push);
    let mut calls = Vec::new();
    body_calls(&stmt.body, &namer, &mut calls);
    calls.into_iter().for_each(&mut push);

    let arity = stmt.domain.arity();
    let index_read = |e: &Expr, in_domain: bool, push: &mut dyn FnMut(Use)| {
        e.for_each_call(&mut |name, args| {
            if spaces.contains(name) {
                let call = Expr::call(name, args.to_vec());
                push(Use {
                    data: name.to_string(),
                    label: namer.expr(&call),
                    index: tuple_only(args, arity).then(|| args.to_vec()),
                    write: false,
                    kind: UseKind::Index { in_domain },
                });
            }
        });
        e.for_each_sym(&mut |name| {
            if spaces.contains(name) {
                push(Use {
                    data: name.to_string(),
                    label: name.to_string(),
                    index: Some(Vec::new()),
                    write: false,
                    kind: UseKind::Index { in_domain },
                });
            }
        });
    };
    stmt.body
        .for_each_expr(&mut |e| index_read(e, false, &mut push));
    for c in stmt.domain.conjunctions() {
        for k in c.constraints() {
            index_read(k.expr(), true, &mut push);
        }
    }
    out
}

/// Whether every variable of `args` is a tuple variable below `arity`.
fn tuple_only(args: &[Expr], arity: usize) -> bool {
    let mut ok = true;
    for e in args {
        e.for_each_var(&mut |v| ok &= matches!(v, Var::Tuple(p) if p < arity));
    }
    ok
}

/// Method calls on runtime objects: a call made for its effect writes the
/// object, a call whose value is used reads it.
fn body_calls(b: &Body, namer: &Namer<'_>, out: &mut Vec<Use>) {
    match b {
        Body::Update { value, .. } => value_calls(value, namer, out),
        Body::If { conditions, then } => {
            for c in conditions {
                value_calls(&c.lhs, namer, out);
                value_calls(&c.rhs, namer, out);
            }
            body_calls(then, namer, out);
        }
        Body::Call {
            object,
            method,
            args,
        } => {
            args.iter().for_each(|a| value_calls(a, namer, out));
            out.push(call_use(object, namer.call(object, method, args), true));
        }
        Body::Seq(bs) => bs.iter().for_each(|b| body_calls(b, namer, out)),
    }
}

fn call_use(object: &str, label: String, write: bool) -> Use {
    Use {
        data: object.to_string(),
        label,
        index: None,
        write,
        kind: UseKind::Call,
    }
}

fn value_calls(v: &ValueExpr, namer: &Namer<'_>, out: &mut Vec<Use>) {
    match v {
        ValueExpr::Int(_) | ValueExpr::Real(_) | ValueExpr::Index(_) | ValueExpr::Read(_) => {}
        ValueExpr::Neg(inner) => value_calls(inner, namer, out),
        ValueExpr::Binary(_, a, b) => {
            value_calls(a, namer, out);
            value_calls(b, namer, out);
        }
        ValueExpr::Call {
            object,
            method,
            args,
        } => {
            args.iter().for_each(|a| value_calls(a, namer, out));
            out.push(call_use(object, namer.call(object, method, args), false));
        }
    }
}

/// Every access names a declared data space with a consistent number of
/// indices over the statement's tuple; every call names a declared object.
/// (Index reads name declared spaces by construction; one whose arguments
/// do not fit is drawn but not analyzed.)
pub(super) fn check_uses(
    stmt: &Stmt,
    uses: &mut [Use],
    spaces: &HashSet<&str>,
    objects: &HashSet<&str>,
    arity: &mut HashMap<String, usize>,
) -> Result<(), PdfgError> {
    for u in uses.iter() {
        match u.kind {
            UseKind::Access => {
                let index = u.index.as_deref().unwrap_or_default();
                if !spaces.contains(u.data.as_str()) {
                    return Err(PdfgError::UnknownSpace {
                        stmt: stmt.name.clone(),
                        space: u.data.clone(),
                    });
                }
                if !tuple_only(index, stmt.domain.arity()) {
                    return Err(PdfgError::IndexVariable {
                        stmt: stmt.name.clone(),
                        space: u.data.clone(),
                    });
                }
                let first = *arity.entry(u.data.clone()).or_insert(index.len());
                if first != index.len() {
                    return Err(PdfgError::AccessArity {
                        space: u.data.clone(),
                        first,
                        second: index.len(),
                        stmt: stmt.name.clone(),
                    });
                }
            }
            UseKind::Call => {
                if !objects.contains(u.data.as_str()) {
                    return Err(PdfgError::UnknownObject {
                        stmt: stmt.name.clone(),
                        object: u.data.clone(),
                    });
                }
            }
            UseKind::Index { .. } => {}
        }
    }
    Ok(())
}

/// Index reads whose number of arguments differs from the data space's
/// accesses are not analyzed for dependences.
pub(super) fn drop_unfit_indices(
    uses: &mut [Use],
    arity: &HashMap<String, usize>,
    comp: &Computation,
) {
    for u in uses.iter_mut() {
        if !matches!(u.kind, UseKind::Index { .. }) {
            continue;
        }
        let dims = arity.get(&u.data).copied().or_else(|| {
            comp.spaces
                .iter()
                .find(|d| d.name == u.data)
                .map(|d| d.extents.len())
        });
        if u.index.as_ref().map(Vec::len) != dims {
            u.index = None;
        }
    }
}

/// The scalars local to one statement: temporaries without dimensions that
/// only that statement uses, writing them before reading them (so each
/// execution has its own value and nothing flows between executions).
/// Returns, for each statement, the names of its locals.
pub(super) fn locals(comp: &Computation, uses: &[Vec<Use>]) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new(); comp.stmts.len()];
    for d in &comp.spaces {
        if d.role != Role::Temp || !d.extents.is_empty() {
            continue;
        }
        let users: Vec<usize> = (0..uses.len())
            .filter(|&s| uses[s].iter().any(|u| u.data == d.name))
            .collect();
        if let [s] = users[..] {
            let in_domain = uses[s]
                .iter()
                .any(|u| u.data == d.name && u.kind == UseKind::Index { in_domain: true });
            if !in_domain && first_touch(&comp.stmts[s].body, &d.name) == Some(true) {
                out[s].push(d.name.clone());
            }
        }
    }
    out
}

/// Whether the first touch of scalar `name` in `b` (in execution order) is
/// a write (`Some(true)`), a read, or none.
pub(super) fn first_touch(b: &Body, name: &str) -> Option<bool> {
    let reads = |v: &ValueExpr| {
        let mut found = false;
        v.for_each_read(&mut |a| found |= a.space == name);
        v.for_each_expr(&mut |e| e.for_each_sym(&mut |s| found |= s == name));
        found
    };
    match b {
        Body::Update { target, op, value } => {
            let target_index_reads = target.index.iter().any(|e| {
                let mut found = false;
                e.for_each_sym(&mut |s| found |= s == name);
                found
            });
            if reads(value) || target_index_reads || (op.reads_target() && target.space == name) {
                Some(false)
            } else if target.space == name {
                Some(true)
            } else {
                None
            }
        }
        Body::If { conditions, then } => {
            if conditions.iter().any(|c| reads(&c.lhs) || reads(&c.rhs)) {
                Some(false)
            } else {
                // A write under a guard may not happen: a later read could
                // see an earlier execution's value.
                first_touch(then, name).map(|_| false)
            }
        }
        Body::Call { args, .. } => args.iter().any(reads).then_some(false),
        Body::Seq(bs) => bs.iter().find_map(|b| first_touch(b, name)),
    }
}
