//! Visitors over the lowered tree: what a node reads, counts of the actions
//! of a kind, and the shapes of loops and statements the plans look for
//! (a loop from zero, an `insert` run once an iteration, a call that hands
//! out a scatter's positions).

use iegen::computation::UpdateOp;

use super::{Action, Code, LNode};
use crate::runtime::Method;

/// Calls `visit` on every data space `node` reads: everything in its bounds,
/// values, guards, call arguments and target indices, and the targets of
/// updates other than `=`.
pub(crate) fn reads_in_node(node: &LNode, visit: &mut impl FnMut(usize)) {
    let (codes, body): (Vec<&Code>, &[LNode]) = match node {
        LNode::For {
            lower, upper, body, ..
        } => (vec![lower, upper], body),
        LNode::Let { value, body, .. } => (vec![value], body),
        LNode::If { guards, body } => {
            (guards.iter().flat_map(|g| [&g.lhs, &g.rhs]).collect(), body)
        }
        LNode::Stmt { actions, .. } => {
            actions.iter().for_each(|a| reads_in_action(a, visit));
            (Vec::new(), &[])
        }
    };
    codes.into_iter().for_each(|c| c.for_each_elem(visit));
    body.iter().for_each(|n| reads_in_node(n, visit));
}

fn reads_in_action(action: &Action, visit: &mut impl FnMut(usize)) {
    match action {
        Action::Update { target, op, value } => {
            match target {
                Code::Elem { space, index, .. } => {
                    if op.reads_target() {
                        visit(*space);
                    }
                    if let Some(i) = index {
                        i.for_each_elem(visit);
                    }
                }
                other => other.for_each_elem(visit),
            }
            value.for_each_elem(visit);
        }
        Action::If { conds, then } => {
            for c in conds {
                c.lhs.for_each_elem(visit);
                c.rhs.for_each_elem(visit);
            }
            then.iter().for_each(|a| reads_in_action(a, visit));
        }
        Action::Call { args, .. } => args.iter().for_each(|a| a.for_each_elem(visit)),
    }
}

/// `t = B.m(args)` for a method `m` that places (`place`,
/// `place_inserted`): the scalar `t`, the scatter `B`, `m` and the
/// arguments.
pub(super) fn placement(action: &Action) -> Option<(usize, usize, Method, &[Code])> {
    handout(action).filter(|(_, _, method, _)| method.places())
}

/// `t = B.m(args)` for a method `m` that hands out (`place`,
/// `place_inserted`, `slot`): the scalar `t`, the scatter `B`, `m` and the
/// arguments.
pub(super) fn handout(action: &Action) -> Option<(usize, usize, Method, &[Code])> {
    match action {
        Action::Update {
            target: Code::Elem {
                space, index: None, ..
            },
            op: UpdateOp::Assign,
            value:
                Code::Call {
                    object,
                    method,
                    args,
                },
        } if method.hands_out() => Some((*space, *object, *method, args)),
        _ => None,
    }
}

/// Whether `actions` place anything or write `space`.
pub(super) fn mentions_place_or_write(actions: &[Action], space: usize) -> bool {
    actions.iter().any(|a| match a {
        Action::Update { target, value, .. } => {
            matches!(target, Code::Elem { space: s, .. } if *s == space)
                || matches!(value, Code::Call { method, .. } if method.places())
        }
        Action::If { then, .. } => mentions_place_or_write(then, space),
        Action::Call { .. } => false,
    })
}

/// Whether running `body` once assigns an element of `space` whose
/// (linearized) index `at` accepts, for sure: a statement reached through
/// `let`s only whose unconditional actions include `space[i] = ...`.
pub(super) fn assigns_every_iteration(
    body: &[LNode],
    space: usize,
    at: &impl Fn(&Code) -> bool,
) -> bool {
    body.iter().any(|node| match node {
        LNode::Let { body, .. } => assigns_every_iteration(body, space, at),
        LNode::Stmt { actions, .. } => actions.iter().any(|a| {
            matches!(a, Action::Update {
                target: Code::Elem { space: s, index: Some(i), .. },
                op: UpdateOp::Assign,
                ..
            } if *s == space && at(i))
        }),
        LNode::For { .. } | LNode::If { .. } => false,
    })
}

/// `node` as a loop `for var in 0..upper`: its variable, upper bound and
/// body.
pub(crate) fn loop_from_zero(node: &LNode) -> Option<(&String, &Code, &Vec<LNode>)> {
    match node {
        LNode::For {
            var,
            lower: Code::Int(0),
            upper,
            body,
            ..
        } => Some((var, upper, body)),
        _ => None,
    }
}

/// The arguments of `object`'s only `insert` when every iteration of the
/// loop over `var` whose body is `nodes` runs it once: the node of `nodes`
/// that holds it is a statement with the call among its actions (not under
/// an `if`), or a `let` (not of `var`) whose body holds it so; the `let`s
/// on the way are pushed on `lets`, outermost first.
pub(crate) fn insert_once<'n>(
    nodes: &'n [LNode],
    var: &str,
    object: usize,
    lets: &mut Vec<(&'n str, &'n Code)>,
) -> Option<&'n [Code]> {
    let node = nodes
        .iter()
        .find(|n| count_calls(std::slice::from_ref(*n), object, Method::Insert) > 0)?;
    match node {
        LNode::Let {
            var: name,
            value,
            body,
            ..
        } if name != var => {
            lets.push((name, value));
            insert_once(body, var, object, lets)
        }
        LNode::Stmt { actions, .. } => actions.iter().find_map(|a| match a {
            Action::Call {
                object: o,
                method: Method::Insert,
                args,
            } if *o == object => Some(args.as_slice()),
            _ => None,
        }),
        _ => None,
    }
}

/// Finds the first node of `nodes`, or of the bodies of their `let`s, that
/// `found` accepts: the node and its path of child indices.
pub(super) fn find_through_lets<'n>(
    nodes: &'n [LNode],
    found: &impl Fn(&LNode) -> bool,
) -> Option<(&'n LNode, Vec<usize>)> {
    nodes.iter().enumerate().find_map(|(i, node)| {
        if found(node) {
            return Some((node, vec![i]));
        }
        let LNode::Let { body, .. } = node else {
            return None;
        };
        let (hit, mut path) = find_through_lets(body, found)?;
        path.insert(0, i);
        Some((hit, path))
    })
}

/// Counts the actions `matches` accepts in `nodes` (conditional ones
/// included), at any depth or, without `through_loops`, outside the loops
/// nested in `nodes`.
fn count_actions(
    nodes: &[LNode],
    through_loops: bool,
    matches: &impl Fn(&Action) -> bool,
) -> usize {
    fn in_actions(actions: &[Action], matches: &impl Fn(&Action) -> bool) -> usize {
        actions
            .iter()
            .map(|a| match a {
                Action::If { then, .. } => in_actions(then, matches),
                _ => usize::from(matches(a)),
            })
            .sum()
    }
    nodes
        .iter()
        .map(|node| match node {
            LNode::Stmt { actions, .. } => in_actions(actions, matches),
            LNode::For { .. } if !through_loops => 0,
            LNode::For { body, .. } | LNode::Let { body, .. } | LNode::If { body, .. } => {
                count_actions(body, through_loops, matches)
            }
        })
        .sum()
}

/// Counts the values of `nodes` that hand out positions (`place`,
/// `place_inserted`, `slot`), at any depth, under conditions too: the
/// updates whose target or value is such a call.
pub(super) fn count_places(nodes: &[LNode]) -> usize {
    let hands_out = |c: &Code| matches!(c, Code::Call { method, .. } if method.hands_out());
    count_actions(
        nodes,
        true,
        &|a| matches!(a, Action::Update { target, value, .. } if hands_out(target) || hands_out(value)),
    )
}

/// Counts the writes of data space `space` in `nodes`, at any depth.
pub(super) fn count_writes(nodes: &[LNode], space: usize) -> usize {
    count_actions(
        nodes,
        true,
        &|a| matches!(a, Action::Update { target: Code::Elem { space: s, .. }, .. } if *s == space),
    )
}

/// Counts the `method` calls of runtime object `object` in `nodes` (as
/// statements: `insert`, `sort`, `reserve`), at any depth.
pub(crate) fn count_calls(nodes: &[LNode], object: usize, method: Method) -> usize {
    count_actions(
        nodes,
        true,
        &|a| matches!(a, Action::Call { object: o, method: m, .. } if *o == object && *m == method),
    )
}

/// Whether `nodes` store with `rise=` (at any depth, or outside the loops
/// nested in them): several iterations of a loop around such a store write
/// one element (docs/computations.md, "Stores that collide").
pub(crate) fn stores_rising(nodes: &[LNode], through_loops: bool) -> bool {
    count_actions(nodes, through_loops, &|a| {
        matches!(
            a,
            Action::Update {
                op: UpdateOp::Rise,
                ..
            }
        )
    }) > 0
}

/// Calls `visit(object, method)` for every call in `node`: statements'
/// calls, and value calls in bounds, `let`s, guards and updates.
pub(crate) fn calls_in_node(node: &LNode, visit: &mut impl FnMut(usize, Method)) {
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

/// `calls_in_node` for one action.
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

/// `calls_in_node` for one value.
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
