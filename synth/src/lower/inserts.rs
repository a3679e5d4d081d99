//! Filling the runtime objects: inserts into the permutation, the scatter
//! and the ordered sets over the source, their sorts and sizes, the
//! reservation of the permutation's key store, the scatter's placing pass,
//! and the second insert pass of a key that reads an ordered set's index.

use iegen::computation::{Access, BinOp, Body, RuntimeObject, UpdateOp, ValueExpr};
use iegen::{Expr, Var};

use crate::order::KeyComponent;

use super::contexts::Ctx;
use super::ranks::PermMode;
use super::refusal::Refusal;
use super::scalars::Prologue;
use super::{call, phase, update, Lowering, Pending};

impl Lowering<'_> {
    /// The inserts into the permutation and the ordered sets, their sorts
    /// and sizes (phases 0 and 1).
    pub(super) fn insert_statements(&mut self) -> Result<(), Refusal> {
        let mut sets: Vec<(usize, String, Expr, String)> = self
            .sets
            .iter()
            .map(|(&q, s)| (q, s.object.clone(), s.value.clone(), s.size.clone()))
            .collect();
        for (q, object, value, size) in sets.drain(..) {
            let mut pro = Prologue::new();
            let v = self.translate(&value, &Ctx::Source, &mut pro)?;
            if self.sets[&q].ranking.is_some() {
                self.ranked_set_statements(q, v, pro);
                continue;
            }
            self.fill_object(
                &object,
                &size,
                vec![ValueExpr::Index(v)],
                pro,
                true,
                phase::INSERT,
            );
        }
        let Some(perm) = &self.perm else {
            return Ok(());
        };
        if matches!(perm.mode, PermMode::Direct { .. } | PermMode::Offset { .. }) {
            return Ok(());
        }
        if let PermMode::Streaming {
            extent,
            scalar,
            key,
        } = &perm.mode
        {
            let (object, size) = (perm.object.clone(), perm.size.clone());
            let (extent, scalar, key) = (extent.clone(), scalar.clone(), key.clone());
            // The counted key (none: one key, a running count), its
            // components linearized row-major over their extents.
            let mut v: Option<ValueExpr> = None;
            for (k, e) in key.iter().zip(&extent) {
                let k = self.over_relation(k);
                let mut pro = Prologue::new();
                let k = ValueExpr::Index(self.translate(&k, &Ctx::Source, &mut pro)?);
                if !pro.is_empty() {
                    return Err("the scatter's key needs scalars".into());
                }
                v = Some(match v {
                    None => k,
                    Some(outer) => ValueExpr::Binary(
                        BinOp::Add,
                        Box::new(ValueExpr::Binary(
                            BinOp::Mul,
                            Box::new(outer),
                            Box::new(ValueExpr::Index(e.clone())),
                        )),
                        Box::new(k),
                    ),
                });
            }
            let v = v.unwrap_or(ValueExpr::Int(0));
            let pro = Prologue::new();
            self.comp.objects.push(RuntimeObject {
                name: object.clone(),
                kind: "Scatter".into(),
                args: extent.iter().map(Expr::to_string).collect(),
            });
            self.declare_scalar(&size);
            self.fill_object(&object, &size, vec![v.clone()], pro, true, phase::INSERT);
            // Each entry's position (or, when the scatter counts the
            // groups, its slot in its group), first in the second pass.
            // The placing pass runs over the entries the counting pass
            // inserted (both over the source's domain, under the same
            // nonzero guard when the source is padded), with the same key:
            // no key is placed (given a slot) more often than it was
            // inserted, which `place_inserted` (`slot_inserted`) states,
            // so that the compiled runtimes need not check it (the
            // interpreter does).
            let (target, method) = if self.ranks_by_slot() {
                let q = self.perm.as_ref().expect("a scatter").position;
                let rank = self.scalar(&format!("rank {q}"), &self.dst_tuple[q].clone());
                (rank, "slot_inserted")
            } else {
                (scalar, "place_inserted")
            };
            let mut place = update(
                Access {
                    space: target,
                    index: Vec::new(),
                },
                UpdateOp::Assign,
                call(&object, method, vec![v]),
            );
            if self.conv.src.padding {
                place = self.nonzero_guard(place);
            }
            self.pending.insert(
                0,
                Pending {
                    phase: phase::ARRAYS,
                    ctx: Ctx::Placed,
                    guard: Vec::new(),
                    body: place,
                },
            );
            return Ok(());
        }
        let (object, size, mode, payload) = (
            perm.object.clone(),
            perm.size.clone(),
            perm.mode.clone(),
            perm.payload.clone(),
        );
        let key = perm.order.key.clone();
        let compared = perm.compared;
        let order_arg = self.sort_order(&key[..compared.min(key.len())], &mode)?;
        let mut values = Vec::new();
        let mut pro = Prologue::new();
        for k in &key {
            let exprs = match k {
                KeyComponent::Value(e) => vec![e.clone()],
                KeyComponent::Comparator { args, .. } => args.clone(),
            };
            for e in exprs {
                let e = self.over_relation(&e);
                values.push(ValueExpr::Index(self.translate(
                    &e,
                    &Ctx::Source,
                    &mut pro,
                )?));
            }
        }
        for &i in &payload {
            values.push(ValueExpr::Index(Expr::var(Var::Tuple(i))));
        }
        let k_total = values.len().max(1);
        if values.is_empty() {
            values.push(ValueExpr::Int(0));
        }
        self.comp.objects.push(RuntimeObject {
            name: object.clone(),
            kind: "Permutation".into(),
            args: vec![k_total.to_string(), order_arg],
        });
        self.declare_scalar(&size);
        // Room for every entry up front: the inserts then never regrow (and
        // copy) the key store. The source's value slots bound the entries.
        self.pending.push(Pending {
            phase: phase::INSERT,
            ctx: Ctx::Once,
            guard: Vec::new(),
            body: Body::Call {
                object: object.clone(),
                method: "reserve".into(),
                args: vec![self.source_slots()],
            },
        });
        // A key that reads an ordered set's index (DCSR's row number `p`,
        // the rank of the entry's row among the stored rows) is inserted in
        // a second pass, after the set is sorted (phases 0 and 1).
        let sets: Vec<&str> = self.sets.values().map(|s| s.object.as_str()).collect();
        let reads_sets = pro.iter().any(|(_, v)| calls_any(v, &sets));
        let first = if reads_sets {
            phase::INSERT_AFTER_SETS
        } else {
            phase::INSERT
        };
        self.fill_object(&object, &size, values, pro, mode == PermMode::Sorted, first);
        if let Some(ranks) = self.perm.as_ref().and_then(|p| p.distinct.clone()) {
            self.declare_scalar(&ranks);
            self.pending.push(Pending {
                phase: first + 1,
                ctx: Ctx::Once,
                guard: Vec::new(),
                body: update(
                    Access {
                        space: ranks,
                        index: Vec::new(),
                    },
                    UpdateOp::Assign,
                    call(&object, "ranks", Vec::new()),
                ),
            });
        }
        Ok(())
    }

    /// A set ranked by counts ([`CountRanking`]): `C.insert(v - lo)` over
    /// the source; over the values `g`, in increasing order once the counts
    /// are known, `R.insert(bound - C.count(g), g)`; then `R.sort()` and
    /// the size (phases 0, 1 and 2).
    ///
    /// [`CountRanking`]: super::ordered_sets::CountRanking
    fn ranked_set_statements(&mut self, q: usize, v: Expr, pro: Prologue) {
        let set = &self.sets[&q];
        let ranking = set.ranking.as_ref().expect("a ranked set");
        let (object, size) = (set.object.clone(), set.size.clone());
        let (counts, lo, bound) = (
            ranking.counts.clone(),
            ranking.lo.clone(),
            ranking.bound.clone(),
        );
        let values = set.extent.clone().expect("a ranked set's range is bounded");
        self.comp.objects.push(RuntimeObject {
            name: object.clone(),
            kind: "Permutation".into(),
            args: vec![
                "2".into(),
                format!("counting({})", bound.plus(&Expr::constant(1))),
            ],
        });
        let method = |object: &str, m: &str, args| Body::Call {
            object: object.to_string(),
            method: m.to_string(),
            args,
        };
        self.push(
            phase::INSERT,
            Ctx::Source,
            pro,
            method(&counts, "insert", vec![ValueExpr::Index(v.minus(&lo))]),
        );
        let g = Expr::var(Var::Tuple(0));
        let count = call(&counts, "count", vec![ValueExpr::Index(g.clone())]);
        let key = ValueExpr::Binary(
            BinOp::Sub,
            Box::new(ValueExpr::Index(bound)),
            Box::new(count),
        );
        self.pending.push(Pending {
            phase: phase::INSERT + 1,
            ctx: Ctx::Groups(values),
            guard: Vec::new(),
            body: method(&object, "insert", vec![key, ValueExpr::Index(g)]),
        });
        let once = |body| Pending {
            phase: phase::INSERT_AFTER_SETS,
            ctx: Ctx::Once,
            guard: Vec::new(),
            body,
        };
        self.pending.push(once(method(&object, "sort", Vec::new())));
        self.pending.push(once(update(
            Access {
                space: size,
                index: Vec::new(),
            },
            UpdateOp::Assign,
            call(&object, "size", Vec::new()),
        )));
    }

    /// `object.insert(values)` over the source (phase `first`), then
    /// `object.sort()` when `sort`, and `size = object.size()` (phase
    /// `first + 1`).
    fn fill_object(
        &mut self,
        object: &str,
        size: &str,
        values: Vec<ValueExpr>,
        pro: Prologue,
        sort: bool,
        first: u32,
    ) {
        let method = |m: &str, args| Body::Call {
            object: object.to_string(),
            method: m.to_string(),
            args,
        };
        self.push(first, Ctx::Source, pro, method("insert", values));
        let once = |body| Pending {
            phase: first + 1,
            ctx: Ctx::Once,
            guard: Vec::new(),
            body,
        };
        if sort {
            self.pending.push(once(method("sort", Vec::new())));
        }
        let count = update(
            Access {
                space: size.to_string(),
                index: Vec::new(),
            },
            UpdateOp::Assign,
            call(object, "size", Vec::new()),
        );
        self.pending.push(once(count));
    }

    /// The number of value slots the source stores (the product of its
    /// value array's extents): a bound on the entries any pass over the
    /// source visits.
    fn source_slots(&self) -> ValueExpr {
        let mut extents = self
            .conv
            .src
            .data_size
            .iter()
            .map(|e| ValueExpr::Index(e.clone()));
        let first = extents.next().unwrap_or(ValueExpr::Int(1));
        extents.fold(first, |acc, e| {
            ValueExpr::Binary(BinOp::Mul, Box::new(acc), Box::new(e))
        })
    }
}

/// Whether `v` calls a method of one of `objects`.
fn calls_any(v: &ValueExpr, objects: &[&str]) -> bool {
    match v {
        ValueExpr::Call { object, args, .. } => {
            objects.contains(&object.as_str()) || args.iter().any(|a| calls_any(a, objects))
        }
        ValueExpr::Neg(a) => calls_any(a, objects),
        ValueExpr::Binary(_, a, b) => calls_any(a, objects) || calls_any(b, objects),
        ValueExpr::Int(_) | ValueExpr::Real(_) | ValueExpr::Index(_) | ValueExpr::Read(_) => false,
    }
}
