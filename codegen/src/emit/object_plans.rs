//! Plans for runtime objects that let the C backend do less: a scatter's
//! prefix sums sorted straight into the `out` array a loop would copy them
//! to ([`Lowered::scatter_starts_into`]), and a permutation's keys read
//! from the `in` arrays that hold them ([`Lowered::perm_views`]).

use iegen::computation::{ElemType, Role, UpdateOp};

use super::walk::{count_calls, count_writes, insert_once, loop_from_zero};
use super::{lin, Action, Code, LNode, Lowered, Ty};
use crate::runtime::{Method, ObjectKind};

/// The constant `c` of an index `var + c` (`var` itself: 0).
fn offset_from(index: &Code, var: &str) -> Option<i64> {
    match index {
        Code::Var(v) if v == var => Some(0),
        Code::Lin(terms, c) => match terms.as_slice() {
            [(1, Code::Var(v))] if v == var => Some(*c),
            _ => None,
        },
        _ => None,
    }
}

impl Lowered<'_> {
    /// For a scatter over the keys `0..extent` (`extent` lowered from its
    /// declaration), the `out` array its prefix sums can be computed in,
    /// and the top-level node that copies them there: `(array, node)` when
    /// the node is the loop `for v in 0..extent: a[v + 1] = B.start(v + 1)`
    /// (or `for v in 0..extent + 1: a[v] = B.start(v)`), that statement is
    /// the only write of `a` (one-dimensional, passed in, zero-filled at the
    /// start) and nothing reads `a`, and an unconditional top-level
    /// statement before the loop sorts `B`. Sorting into `a` then gives `a`
    /// the values the loop would (`a[0] = start(0) = 0`, its zero fill),
    /// and the loop is left out: the hand-written transpose's prefix sums
    /// in the destination's pointer array, without a second array and a
    /// copy.
    pub(crate) fn scatter_starts_into(
        &self,
        object: usize,
        extent: &Code,
    ) -> Option<(usize, usize)> {
        if !matches!(self.specs[object].kind, ObjectKind::Scatter { .. }) {
            return None;
        }
        let sorts = |node: &LNode| {
            matches!(node, LNode::Stmt { actions, .. } if actions.iter().any(|a| matches!(a,
                Action::Call { object: o, method: Method::Sort, .. } if *o == object)))
        };
        let first_sort = self.body.iter().position(sorts)?;
        self.body
            .iter()
            .enumerate()
            .skip(first_sort + 1)
            .find_map(|(t, node)| {
                let (var, upper, body) = loop_from_zero(node)?;
                let [LNode::Stmt { actions, .. }] = body.as_slice() else {
                    return None;
                };
                let [Action::Update {
                    target:
                        Code::Elem {
                            space,
                            index: Some(index),
                            ..
                        },
                    op: UpdateOp::Assign,
                    value:
                        Code::Call {
                            object: o,
                            method: Method::Start,
                            args,
                        },
                }] = actions.as_slice()
                else {
                    return None;
                };
                let whole = match offset_from(index, var)? {
                    1 => upper == extent,
                    0 => *upper == lin(vec![(1, extent.clone())], 1),
                    _ => false,
                };
                let a = &self.comp.spaces[*space];
                let only_write = a.role == Role::Out
                    && a.extents.len() == 1
                    && self.alloc_at[*space].is_none()
                    && !self.read[*space]
                    && count_writes(&self.body, *space) == 1;
                (*o == object && args.as_slice() == [(**index).clone()] && whole && only_write)
                    .then_some((*space, t))
            })
    }

    /// For a permutation, the `in` arrays that hold its stored key
    /// components, so that C need not store them (`spf_perm_view`,
    /// docs/runtime.md): `Some(arrays)` when array `arrays[d]` at `e` is
    /// component `d` of the entry inserted as number `e`, for every entry.
    /// That holds when the permutation's only `insert` is an action (not
    /// under an `if`) of a statement in the body of a top-level loop `for v
    /// in 0..u`, reached through `let`s only (no guard, no inner loop;
    /// other statements and actions beside it do not matter, as none
    /// inserts), so that it runs once in every iteration and the entry
    /// number is `v`, and
    /// each viewed component is a read `a[v]` of an `in` array of `int`s
    /// indexed by exactly the loop variable, directly or through a `let`
    /// bound to that read (the array is `const`: nothing changes it while
    /// the permutation lives). The views cover every component, or all but
    /// the last when that one is a payload (the runtime then stores it only
    /// from the first entry where it is not the entry number). `None`
    /// otherwise: the runtime stores the keys.
    pub(crate) fn perm_views(&self, object: usize) -> Option<Vec<usize>> {
        let ObjectKind::Permutation {
            arity, compared, ..
        } = self.specs[object].kind
        else {
            return None;
        };
        if count_calls(&self.body, object, Method::Insert) != 1 {
            return None;
        }
        self.body.iter().find_map(|node| {
            let (var, _, body) = loop_from_zero(node)?;
            // The `let`s down to the statement, innermost last.
            let mut lets: Vec<(&str, &Code)> = Vec::new();
            let args = insert_once(body, var, object, &mut lets)?;
            // The `in` array a component reads at the loop variable.
            let read = |c: &Code| -> Option<usize> {
                let c = match c {
                    Code::Var(x) => lets.iter().rev().find(|(n, _)| n == x)?.1,
                    other => other,
                };
                let Code::Elem {
                    space,
                    index: Some(index),
                    ty: Ty::Int,
                } = c
                else {
                    return None;
                };
                let d = &self.comp.spaces[*space];
                let plain = matches!(&**index, Code::Var(v) if v == var)
                    && d.role == Role::In
                    && d.elem == ElemType::Int
                    && !d.extents.is_empty()
                    && self.alloc_at[*space].is_none();
                plain.then_some(*space)
            };
            let arrays: Vec<usize> = args.iter().map_while(read).collect();
            // Every component, or all but a payload (stored by the runtime
            // only where it is not the entry number).
            let covered = arrays.len() == arity || (compared < arity && arrays.len() + 1 == arity);
            covered.then_some(arrays)
        })
    }
}
