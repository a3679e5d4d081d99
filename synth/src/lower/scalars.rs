//! Temp scalars: declared once per meaning (a payload, a rank, a key
//! component), assigned by a statement's prologue, and not assigned again
//! within a loop's iteration when an earlier statement already gave the
//! same value (scalar reuse).

use iegen::computation::{Body, Condition, DataSpace, ElemType, Role, UpdateOp, ValueExpr};

use super::{Lowering, Pending};

/// Scalar assignments a statement's body starts with.
pub(super) type Prologue = Vec<(String, ValueExpr)>;

impl Lowering<'_> {
    /// The temp `int` scalar standing for `meaning`, declared on first use.
    pub(super) fn scalar(&mut self, meaning: &str, base: &str) -> String {
        if let Some(s) = self.scalars.get(meaning) {
            return s.clone();
        }
        let name = self.fresh(base);
        self.declare_scalar(&name);
        self.scalars.insert(meaning.to_string(), name.clone());
        name
    }

    pub(super) fn declare_scalar(&mut self, name: &str) {
        self.comp.spaces.push(DataSpace {
            name: name.to_string(),
            elem: ElemType::Int,
            extents: Vec::new(),
            role: Role::Temp,
        });
    }
}

/// Within one loop's statements (same domain, run in order each
/// iteration), a scalar a statement's prologue assigns again with the value
/// an earlier statement's prologue gave it, under the same guard, keeps
/// that value: the repeated assignment is dropped (CSC -> ELL's slot `w =
/// pos - P.start(ii)` is computed once per entry, not once per array).
/// A write to a scalar by anything but such a prologue forgets what
/// depends on it.
pub(super) fn reuse_scalars(stmts: &mut [Pending]) {
    // (guard conditions, scalar) -> value, for the current iteration.
    let mut known: Vec<(Vec<Condition>, String, ValueExpr)> = Vec::new();
    for p in stmts.iter_mut() {
        let (conditions, seq) = match &mut p.body {
            Body::If { conditions, then } => match &mut **then {
                Body::Seq(seq) => (conditions.clone(), seq),
                other => {
                    forget_written(&mut known, other);
                    continue;
                }
            },
            Body::Seq(seq) => (Vec::new(), seq),
            other => {
                forget_written(&mut known, other);
                continue;
            }
        };
        let mut kept = Vec::new();
        let mut in_prologue = true;
        for b in seq.drain(..) {
            let assignment = match &b {
                Body::Update {
                    target,
                    op: UpdateOp::Assign,
                    value,
                } if in_prologue && target.index.is_empty() && !changes_object(value) => {
                    Some((target.space.clone(), value.clone()))
                }
                _ => None,
            };
            match assignment {
                Some((name, value)) => {
                    let same = known
                        .iter()
                        .any(|(g, n, v)| *g == conditions && *n == name && *v == value);
                    if !same {
                        forget_written(&mut known, &b);
                        known.push((conditions.clone(), name, value));
                        kept.push(b);
                    }
                }
                None => {
                    in_prologue = false;
                    forget_written(&mut known, &b);
                    kept.push(b);
                }
            }
        }
        *seq = kept;
    }
}

/// Whether evaluating `v` changes a runtime object (`place`,
/// `place_inserted`, `slot`).
fn changes_object(v: &ValueExpr) -> bool {
    match v {
        ValueExpr::Call { method, args, .. } => {
            matches!(
                method.as_str(),
                "place" | "place_inserted" | "slot" | "slot_inserted"
            ) || args.iter().any(changes_object)
        }
        ValueExpr::Neg(a) => changes_object(a),
        ValueExpr::Binary(_, a, b) => changes_object(a) || changes_object(b),
        _ => false,
    }
}

/// Forgets the known scalars `b` writes, and those whose value reads one.
fn forget_written(known: &mut Vec<(Vec<Condition>, String, ValueExpr)>, b: &Body) {
    let mut written = Vec::new();
    b.for_each_write(&mut |a| written.push(a.space.clone()));
    known.retain(|(_, name, value)| {
        let mut reads = false;
        value.for_each_read(&mut |a| reads |= written.contains(&a.space));
        // Scalars in index expressions (`P.start(ii)`, `pos - ...`).
        value.for_each_expr(&mut |e| {
            e.for_each_sym(&mut |s| reads |= written.iter().any(|w| w == s))
        });
        !written.contains(name) && !reads
    });
}
