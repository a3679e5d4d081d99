//! Looking ahead in a placing loop: the keys of the entries a scatter
//! places some iterations on, for the C backend's prefetches
//! ([`Lowered::scatter_lookahead`], docs/runtime.md).

use iegen::computation::{ElemType, Role, UpdateOp};

use super::walk::{count_places, handout};
use super::{Action, Code, LNode, Lowered};
use crate::runtime::{Method, ObjectKind};

/// A placing loop a backend can look ahead in ([`Lowered::scatter_lookahead`]).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Lookahead {
    /// The scatter (by index in the objects).
    pub object: usize,
    /// `place_inserted` (each entry's position) or `slot` (its rank among
    /// its key's entries).
    pub method: Method,
    /// The innermost loop's variable, at which `keys` holds the key.
    pub var: String,
    /// The `in` array of the keys (by index in the data spaces).
    pub keys: usize,
    /// The call's argument: `keys[var]`, or a `let` variable bound to it.
    pub key: Code,
    /// The scalar assigned the position or the slot.
    pub scalar: usize,
    /// The arrays assigned at an index that uses the scalar, each with that
    /// index, in order of appearance.
    pub targets: Vec<(usize, Code)>,
}

/// Collects, in `nodes`, every unconditional `t = B.place_inserted(v)` and
/// `t = B.slot(v)` as a [`Lookahead`]; one whose key has another shape is
/// collected with no array (`keys` is `usize::MAX`), so that the caller
/// sees it and gives up. `lets`: the `let`s in scope, innermost last;
/// `var`: the innermost loop's variable (`None` once a `let` shadows it).
fn lookahead_in(
    nodes: &[LNode],
    var: Option<&str>,
    lets: &mut Vec<(String, Code)>,
    found: &mut Vec<Lookahead>,
) {
    for (i, node) in nodes.iter().enumerate() {
        match node {
            LNode::For { var: v, body, .. } => lookahead_in(body, Some(v), lets, found),
            LNode::Let {
                var: v,
                value,
                body,
                ..
            } => {
                lets.push((v.clone(), value.clone()));
                let inner = var.filter(|k| k != v);
                lookahead_in(body, inner, lets, found);
                lets.pop();
            }
            LNode::If { body, .. } => lookahead_in(body, var, lets, found),
            LNode::Stmt { actions, .. } => {
                for (a, action) in actions.iter().enumerate() {
                    let Some((t, object, method, [key])) = handout(action) else {
                        continue;
                    };
                    if !(method == Method::PlaceInserted || method.slots()) {
                        continue;
                    }
                    let read = match key {
                        Code::Var(name) => lets
                            .iter()
                            .rev()
                            .find(|(n, _)| n == name)
                            .map(|(_, value)| value),
                        key => Some(key),
                    };
                    let keys = match (read, var) {
                        (
                            Some(Code::Elem {
                                space,
                                index: Some(index),
                                ..
                            }),
                            Some(k),
                        ) if matches!(&**index, Code::Var(i) if i == k) => *space,
                        _ => usize::MAX,
                    };
                    let mut targets: Vec<(usize, Code)> = Vec::new();
                    let mut assigned = |actions: &[Action]| {
                        for action in actions {
                            if let Action::Update {
                                target:
                                    Code::Elem {
                                        space,
                                        index: Some(index),
                                        ..
                                    },
                                op: UpdateOp::Assign,
                                ..
                            } = action
                            {
                                let mut uses = false;
                                index.for_each_elem(&mut |s| uses |= s == t);
                                if uses && targets.iter().all(|(s, _)| s != space) {
                                    targets.push((*space, (**index).clone()));
                                }
                            }
                        }
                    };
                    assigned(&actions[a + 1..]);
                    for next in &nodes[i + 1..] {
                        match next {
                            LNode::Stmt { actions, .. } => assigned(actions),
                            _ => break,
                        }
                    }
                    found.push(Lookahead {
                        object,
                        method,
                        var: var.unwrap_or_default().to_string(),
                        keys,
                        key: key.clone(),
                        scalar: t,
                        targets,
                    });
                }
            }
        }
    }
}

impl Lowered<'_> {
    /// For top-level node `at`, the loop that places entries with a scatter
    /// in the shape a backend can look ahead in (the C backend's prefetches,
    /// docs/runtime.md): the node holds one call that hands out, `t =
    /// B.place_inserted(v)` or `t = B.slot(v)`, in a statement whose
    /// innermost enclosing loop has variable `k`, where `v` is `keys[k]`
    /// (directly or through a `let`) for a one-dimensional `in` array of
    /// integers `keys`; the targets are the arrays that statement and the
    /// statements after it in the same body assign at an index using `t`.
    /// The keys `keys[k + d]` are then those of the entries placed `d`
    /// iterations on, as far as the loop walks `keys` in order (a
    /// transposition's, whose rows are consecutive): a hint, which needs
    /// nothing more to be safe, as the backend reads ahead in bounds.
    pub(crate) fn scatter_lookahead(&self, at: usize) -> Option<Lookahead> {
        let node = self.body.get(at)?;
        if count_places(std::slice::from_ref(node)) != 1 {
            return None;
        }
        let mut found = Vec::new();
        lookahead_in(
            std::slice::from_ref(node),
            None,
            &mut Vec::new(),
            &mut found,
        );
        let [plan] = <[_; 1]>::try_from(found).ok()?;
        let d = self.comp.spaces.get(plan.keys)?;
        let keyed = d.role == Role::In && d.elem == ElemType::Int && d.extents.len() == 1;
        let scattered = matches!(self.specs[plan.object].kind, ObjectKind::Scatter { .. });
        (keyed && scattered && !plan.targets.is_empty()).then_some(plan)
    }
}
