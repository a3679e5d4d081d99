//! Arrays sized by the computation that need no zero fill, or only part
//! of one: a loop that assigns a prefix of the array before anything reads
//! it ([`Lowered::written_prefix`]), or one that writes it at the
//! positions a scatter hands out ([`Lowered::placed_by`]).

use iegen::computation::UpdateOp;

use super::walk::{
    assigns_every_iteration, loop_from_zero, mentions_place_or_write, placement, reads_in_node,
};
use super::{Action, Code, LNode, Lowered};

/// Checks [`Lowered::placed_by`]'s pattern in `nodes` (one loop body):
/// `Err(())` when it does not hold; `object` collects the scatter.
fn placed_writes(nodes: &[LNode], space: usize, object: &mut Option<usize>) -> Result<(), ()> {
    // The scalar of a `place` whose position `space` has not been written at.
    let mut pending: Option<usize> = None;
    for node in nodes {
        let actions = match node {
            LNode::Stmt { actions, .. } => actions,
            LNode::For { body, .. } | LNode::Let { body, .. } | LNode::If { body, .. } => {
                if pending.is_some() {
                    return Err(());
                }
                placed_writes(body, space, object)?;
                continue;
            }
        };
        for a in actions {
            if let Some((t, o, _, _)) = placement(a) {
                if pending.is_some() || object.is_some_and(|b| b != o) {
                    return Err(());
                }
                *object = Some(o);
                pending = Some(t);
                continue;
            }
            match a {
                Action::Update {
                    target:
                        Code::Elem {
                            space: s, index, ..
                        },
                    op,
                    ..
                } if *s == space => {
                    let at_pending = matches!((index.as_deref(), pending), (
                        Some(Code::Elem { space: t, index: None, .. }),
                        Some(p),
                    ) if *t == p);
                    if *op != UpdateOp::Assign || !at_pending {
                        return Err(());
                    }
                    pending = None;
                }
                Action::Update {
                    target: Code::Elem { space: s, .. },
                    ..
                } if Some(*s) == pending => return Err(()),
                Action::Update { .. } => {}
                Action::If { then, .. } => {
                    if mentions_place_or_write(then, space) {
                        return Err(());
                    }
                }
                Action::Call { .. } => {}
            }
        }
    }
    if pending.is_some() {
        return Err(());
    }
    Ok(())
}

impl Lowered<'_> {
    /// For an array sized by the computation, `Some(u)` when the top-level
    /// node it is allocated before assigns every element below `u` before
    /// anything can read it, so that only the elements from `u` on need the
    /// zero fill (a copy loop over a permutation's positions writes its
    /// whole destination). The node must be a loop `for v in 0..u` (`u`
    /// evaluated once, before the loop, as every backend does) in which
    /// nothing reads the array, and every iteration must assign (`=`) the
    /// element `v`: a statement reached through `let`s only, the assignment
    /// not under an `if`. One-dimensional arrays only.
    pub(crate) fn written_prefix(&self, space: usize) -> Option<&Code> {
        let at = self.alloc_at[space]?;
        if self.comp.spaces[space].extents.len() != 1 {
            return None;
        }
        let (var, upper, body) = loop_from_zero(self.body.get(at)?)?;
        let mut reads = false;
        let mut visit = |s: usize| reads |= s == space;
        upper.for_each_elem(&mut visit);
        for node in body {
            reads_in_node(node, &mut visit);
        }
        let at_var = |i: &Code| matches!(i, Code::Var(v) if v == var);
        (!reads && assigns_every_iteration(body, space, &at_var)).then_some(upper)
    }

    /// For an array sized by the computation, the scatter (by index in the
    /// objects) whose positions the top-level node it is allocated before
    /// writes it at: every `t = B.place(v)` of the node is followed, in the
    /// same statement or the next statements of its loop body and with no
    /// condition in between, by `a[t] = ...`, the array is written nowhere
    /// else and read nowhere in the node. After the node, every position
    /// `B` handed out is written, and `spf_scatter_zero_unplaced` zeroes
    /// the others (and the elements past the scatter's entries): the zero
    /// fill of the whole array is not needed. One-dimensional arrays only.
    pub(crate) fn placed_by(&self, space: usize) -> Option<usize> {
        let at = self.alloc_at[space]?;
        if self.comp.spaces[space].extents.len() != 1 {
            return None;
        }
        let node = self.body.get(at)?;
        let mut reads = false;
        reads_in_node(node, &mut |s| reads |= s == space);
        if reads {
            return None;
        }
        let mut object = None;
        placed_writes(std::slice::from_ref(node), space, &mut object).ok()?;
        object
    }
}
