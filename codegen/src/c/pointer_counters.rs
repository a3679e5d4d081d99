//! Scatters that count in their pointer array.
//!
//! A scatter sorted into a 32-bit `out` pointer array
//! (`spf_scatter_sort_into_i32`) keeps, besides that array, counters of its
//! own: counted into, turned into each key's next position by the sort,
//! advanced by every `place`. Where one loop places every inserted entry
//! and nothing reads the starts before it ends, C counts into the pointer
//! array itself (`spf_scatter_new_in_i32`): the sort turns the counts into
//! each key's first position in place, the placing loop advances them, and
//! `spf_scatter_placed`, printed after that loop, shifts them back into the
//! starts: no counter array to allocate, zero and free, and no second
//! array written by the sort (docs/runtime.md, "Counting in the pointer
//! array").

use super::counted::resolve_let;
use super::{Action, Code, LNode, Method, ObjectKind};
use crate::emit::{calls_in_node, insert_once, loop_from_zero, Lowered};

/// For a scatter sorted into a 32-bit `out` array whose copy loop
/// (`Lowered::scatter_starts_into`) is top-level node `copy`: the
/// top-level node of the loop that places its entries, when the scatter may
/// count in the array. That holds when
///
/// - the scatter's calls are one `insert`, one `sort`, one
///   `place_inserted`, `size` anywhere and `start` only in `copy`, in
///   that order of nodes (the starts are read once every entry is placed);
/// - `insert` and `place_inserted` each run once in every iteration of a
///   top-level loop `for v in 0..u` (the same `v` and `u`), reached through
///   `let`s only, with the same key: every inserted entry is placed, in
///   the loop placing it, so that the counters are the starts again once
///   it ends.
pub(super) fn placing_loop(low: &Lowered<'_>, object: usize, copy: usize) -> Option<usize> {
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
    // Exactly one `place_inserted` in the loop, the value of an update,
    // with the inserted key.
    let mut placed = 0;
    for node in pbody {
        calls_in_node(node, &mut |o, m| {
            placed += usize::from(o == object && m == Method::PlaceInserted)
        });
    }
    let with_key = actions.iter().any(|action| {
        matches!(action, Action::Update {
            value: Code::Call { object: o, method: Method::PlaceInserted, args },
            ..
        } if *o == object
            && matches!(args.as_slice(), [arg] if resolve_let(arg, &plets) == key))
    });
    (placed == 1 && with_key).then_some(places)
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
