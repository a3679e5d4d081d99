//! Scatters that count into their pointer array and may place from the
//! end.
//!
//! A scatter sorted into a 32-bit `out` pointer array
//! (`spf_scatter_sort_into_i32`) keeps, besides that array, counters of its
//! own: counted into, turned into each key's next position by the sort,
//! advanced by every `place`. Where one loop places every inserted entry
//! and nothing reads the starts before it ends, C counts into the pointer
//! array itself (`spf_scatter_new_back_i32`) and the sort leaves each
//! key's end there. Where the runtime says so (few entries a key, in
//! cache: `spf_scatter_back`), the placing loop runs backward, handing out
//! each key's positions from its last down
//! (`spf_scatter_place_inserted_back`): the entries land where the forward
//! loop puts them and the array ends up holding the starts, with no array
//! of counters, no second array written by the sort, and the keys the
//! counting loop read last still in cache. Otherwise it runs forward after
//! `spf_scatter_forward`, and `spf_scatter_placed` shifts the counters back
//! into the starts (docs/runtime.md, "Placing from the end").

use super::counted::resolve_let;
use super::{Action, Code, LNode, Method, ObjectKind};
use crate::emit::{insert_once, loop_from_zero, reads_in_node, Lowered};
use iegen::computation::UpdateOp;

/// For a scatter sorted into a 32-bit `out` array whose copy loop
/// (`Lowered::scatter_starts_into`) is top-level node `copy`: the
/// top-level node of the loop that places its entries, when the scatter may
/// count into the array and that loop run backward, placing from the end.
/// That holds when
///
/// - the scatter's calls are one `insert`, one `sort`, one
///   `place_inserted`, `size` anywhere and `start` only in `copy`, in
///   that order of nodes (the starts are read once every entry is placed);
/// - `insert` and `place_inserted` each run once in every iteration of a
///   top-level loop `for v in 0..u` (the same `v` and `u`), reached through
///   `let`s only, with the same key: every inserted entry is placed, in
///   the loop placing it;
/// - the placing loop's body is `let`s and statements only, whose actions
///   are the `k = place_inserted(key)` and, after it, stores `a(k) = e` to
///   arrays at exactly the position `k` (distinct in every iteration), no
///   value or `let` reading a stored array or calling an object: the
///   iterations are independent but for the positions the scatter hands
///   out, so that running them backward writes the same;
/// - no node after the placing loop reads `k`.
pub(super) fn placing_back(low: &Lowered<'_>, object: usize, copy: usize) -> Option<usize> {
    if !matches!(low.specs[object].kind, ObjectKind::Scatter { .. }) {
        return None;
    }
    let mut calls: Vec<(usize, Method)> = Vec::new();
    for (t, node) in low.body.iter().enumerate() {
        calls_in_node(node, &mut |o, m| {
            if o == object {
                calls.push((t, m));
            }
        });
    }
    let only = |method: Method| {
        let at: Vec<usize> = calls
            .iter()
            .filter(|(_, m)| *m == method)
            .map(|(t, _)| *t)
            .collect();
        <[usize; 1]>::try_from(at).ok().map(|[t]| t)
    };
    let (inserts, sorts, places) = (
        only(Method::Insert)?,
        only(Method::Sort)?,
        only(Method::PlaceInserted)?,
    );
    let allowed = calls.iter().all(|&(t, m)| match m {
        Method::Insert | Method::Sort | Method::PlaceInserted | Method::Size => true,
        Method::Start => t == copy,
        _ => false,
    });
    if !(allowed && inserts < sorts && sorts < places && places < copy) {
        return None;
    }
    // The inserting loop and its key.
    let (var, upper, body) = loop_from_zero(&low.body[inserts])?;
    let mut lets = Vec::new();
    let [key] = insert_once(body, var, object, &mut lets)? else {
        return None;
    };
    let key = resolve_let(key, &lets);
    // The placing loop: the same iterations, the same key.
    let (pvar, pupper, pbody) = loop_from_zero(&low.body[places])?;
    if pvar != var || pupper != upper {
        return None;
    }
    let mut plets = Vec::new();
    let mut actions = Vec::new();
    if !straight(pbody, var, &mut plets, &mut actions) {
        return None;
    }
    let mut scalar = None;
    let mut stored: Vec<usize> = Vec::new();
    let mut values: Vec<&Code> = plets.iter().map(|(_, v)| *v).collect();
    for action in actions {
        match (action, scalar) {
            (
                Action::Update {
                    target:
                        Code::Elem {
                            space, index: None, ..
                        },
                    op: UpdateOp::Assign,
                    value:
                        Code::Call {
                            object: o,
                            method: Method::PlaceInserted,
                            args,
                        },
                },
                None,
            ) if *o == object => {
                let [arg] = args.as_slice() else {
                    return None;
                };
                if resolve_let(arg, &plets) != key {
                    return None;
                }
                scalar = Some(*space);
            }
            (
                Action::Update {
                    target:
                        Code::Elem {
                            space,
                            index: Some(index),
                            ..
                        },
                    op: UpdateOp::Assign,
                    value,
                },
                Some(k),
            ) if matches!(&**index, Code::Elem { space: s, index: None, .. } if *s == k)
                && *space != k =>
            {
                stored.push(*space);
                values.push(value);
            }
            _ => return None,
        }
    }
    let k = scalar?;
    let mut independent = true;
    for value in values {
        value.for_each_elem(&mut |s| independent &= !stored.contains(&s));
        calls_in_code(value, &mut |_, _| independent = false);
    }
    let mut k_read_after = false;
    for node in &low.body[places + 1..] {
        reads_in_node(node, &mut |s| k_read_after |= s == k);
    }
    (independent && !k_read_after).then_some(places)
}

/// Collects, in `nodes`, the `let`s (in order) and the actions of the
/// statements, through `let`s only (no loop, no guard, no `let` that
/// shadows `var`): false when something else is there.
fn straight<'n>(
    nodes: &'n [LNode],
    var: &str,
    lets: &mut Vec<(&'n str, &'n Code)>,
    actions: &mut Vec<&'n Action>,
) -> bool {
    nodes.iter().all(|node| match node {
        LNode::Let {
            var: name,
            value,
            body,
            ..
        } if name != var => {
            lets.push((name, value));
            straight(body, var, lets, actions)
        }
        LNode::Stmt { actions: a, .. } => {
            actions.extend(a.iter());
            true
        }
        _ => false,
    })
}

/// Calls `visit(object, method)` for every call in `node`: statements'
/// calls, and value calls in bounds, `let`s, guards and updates.
fn calls_in_node(node: &LNode, visit: &mut impl FnMut(usize, Method)) {
    match node {
        LNode::For {
            lower, upper, body, ..
        } => {
            calls_in_code(lower, visit);
            calls_in_code(upper, visit);
            body.iter().for_each(|n| calls_in_node(n, visit));
        }
        LNode::Let { value, body, .. } => {
            calls_in_code(value, visit);
            body.iter().for_each(|n| calls_in_node(n, visit));
        }
        LNode::If { guards, body } => {
            for g in guards {
                calls_in_code(&g.lhs, visit);
                calls_in_code(&g.rhs, visit);
            }
            body.iter().for_each(|n| calls_in_node(n, visit));
        }
        LNode::Stmt { actions, .. } => actions.iter().for_each(|a| calls_in_action(a, visit)),
    }
}

fn calls_in_action(action: &Action, visit: &mut impl FnMut(usize, Method)) {
    match action {
        Action::Update { target, value, .. } => {
            calls_in_code(target, visit);
            calls_in_code(value, visit);
        }
        Action::If { conds, then } => {
            for c in conds {
                calls_in_code(&c.lhs, visit);
                calls_in_code(&c.rhs, visit);
            }
            then.iter().for_each(|a| calls_in_action(a, visit));
        }
        Action::Call {
            object,
            method,
            args,
        } => {
            visit(*object, *method);
            args.iter().for_each(|a| calls_in_code(a, visit));
        }
    }
}

fn calls_in_code(code: &Code, visit: &mut impl FnMut(usize, Method)) {
    match code {
        Code::Call {
            object,
            method,
            args,
        } => {
            visit(*object, *method);
            args.iter().for_each(|a| calls_in_code(a, visit));
        }
        Code::Elem { index, .. } => {
            if let Some(i) = index {
                calls_in_code(i, visit);
            }
        }
        Code::Lin(ts, _) => ts.iter().for_each(|(_, t)| calls_in_code(t, visit)),
        Code::Neg(a, _) | Code::FloorDiv(a, _) | Code::CeilDiv(a, _) | Code::ToReal(a) => {
            calls_in_code(a, visit)
        }
        Code::Bin(_, _, a, b) => {
            calls_in_code(a, visit);
            calls_in_code(b, visit);
        }
        Code::Int(_) | Code::Real(_) | Code::Var(_) | Code::Sym(_) => {}
    }
}
