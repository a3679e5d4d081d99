//! Expressions over the composed relation's variables rewritten for the
//! context a statement runs in: source variables as loop variables or read
//! from the permutation's key and payload, destination positions as the
//! permutation's or ordered set's positions, ranks or key components, read
//! into temp scalars by the statement's prologue.

use iegen::computation::{BinOp, ValueExpr};
use iegen::{Atom, Expr, Var};

use crate::order::KeyComponent;

use super::contexts::Ctx;
use super::ranks::PermMode;
use super::refusal::Refusal;
use super::scalars::Prologue;
use super::{call, Lowering};
use crate::descriptor::Construct;
use crate::synthesized::Side;

impl Lowering<'_> {
    /// `e` over the composed relation's variables, rewritten for `ctx`;
    /// scalars it needs are appended to `pro`.
    pub(super) fn translate(
        &mut self,
        e: &Expr,
        ctx: &Ctx,
        pro: &mut Prologue,
    ) -> Result<Expr, Refusal> {
        let mut out = Expr::constant(e.constant_term());
        for (atom, coef) in e.terms() {
            let t = match atom {
                Atom::Sym(s) => Expr::sym(s.clone()),
                Atom::Uf(f, args) => {
                    let args = args
                        .iter()
                        .map(|a| self.translate(a, ctx, pro))
                        .collect::<Result<Vec<_>, _>>()?;
                    Expr::call(f.clone(), args)
                }
                Atom::Var(Var::Tuple(i)) if *i < self.n_in => self.source_var(*i, ctx, pro)?,
                Atom::Var(Var::Tuple(t)) => self.destination_var(t - self.n_in, ctx, pro)?,
                Atom::Div(x, m) => Expr::floor_div(&self.translate(x, ctx, pro)?, *m),
                Atom::Var(v) => {
                    return Err(format!("an existential variable {v:?} in a statement").into())
                }
            };
            out = out.add_scaled(&t, coef);
        }
        Ok(out)
    }

    fn source_var(&mut self, i: usize, ctx: &Ctx, pro: &mut Prologue) -> Result<Expr, Refusal> {
        match ctx {
            Ctx::Source | Ctx::Placed => Ok(Expr::var(Var::Tuple(i))),
            Ctx::Sorted => {
                // A source variable equal to a key component is read from the key.
                let key_position = (0..self.n_out).find(|&q| {
                    self.conv.resolved[q].as_ref().and_then(Expr::as_var) == Some(Var::Tuple(i))
                        && self.key_offset(q).is_some()
                });
                if let Some(q) = key_position {
                    return self.destination_var(q, ctx, pro);
                }
                // One the key's components determine is computed from them.
                if let Some(e) = self.source_from_key(i, pro) {
                    return Ok(e);
                }
                let perm = self
                    .perm
                    .as_mut()
                    .expect("a sorted context has a permutation");
                let j = match perm.payload.iter().position(|&x| x == i) {
                    Some(j) => j,
                    None => {
                        perm.payload.push(i);
                        perm.payload.len() - 1
                    }
                };
                let compared = perm
                    .order
                    .key
                    .iter()
                    .map(|k| match k {
                        KeyComponent::Value(_) => 1,
                        KeyComponent::Comparator { args, .. } => args.len(),
                    })
                    .sum::<usize>();
                let object = perm.object.clone();
                let base = format!("{}_src", self.src_tuple[i]);
                let name = self.scalar(&format!("payload {i}"), &base);
                self.read_key(pro, &name, &object, compared + j);
                Ok(Expr::sym(name))
            }
            _ => Err(Refusal::about(
                Side::Source,
                Construct::Map,
                format!(
                    "source variable `{}` is needed where only destination positions are known",
                    self.src_tuple[i]
                ),
            )),
        }
    }

    fn destination_var(
        &mut self,
        q: usize,
        ctx: &Ctx,
        pro: &mut Prologue,
    ) -> Result<Expr, Refusal> {
        if let (Some(prefix), Ctx::Sorted) = (self.prefix_ranks.get(&q), ctx) {
            // A shallower level: the distinct rank of its key prefix.
            let len = prefix.len as i64;
            let object = self
                .perm
                .as_ref()
                .expect("a prefix rank has a permutation")
                .object
                .clone();
            let name = self.scalar(&format!("rank {q}"), &self.dst_tuple[q].clone());
            if pro.iter().all(|(n, _)| *n != name) {
                let p = ValueExpr::Index(Expr::var(Var::Tuple(0)));
                pro.push((
                    name.clone(),
                    call(&object, "prefix_rank", vec![ValueExpr::Int(len), p]),
                ));
            }
            return Ok(Expr::sym(name));
        }
        let is_perm = self.perm.as_ref().is_some_and(|p| p.position == q);
        if is_perm {
            let perm = self.perm.as_ref().expect("checked");
            if let (Some(_), Ctx::Sorted) = (&perm.distinct, ctx) {
                // The distinct rank of the sorted position's key.
                let object = perm.object.clone();
                let name = self.scalar(&format!("rank {q}"), &self.dst_tuple[q].clone());
                if pro.iter().all(|(n, _)| *n != name) {
                    let p = ValueExpr::Index(Expr::var(Var::Tuple(0)));
                    pro.push((name.clone(), call(&object, "rank", vec![p])));
                }
                return Ok(Expr::sym(name));
            }
            // The global position: the placed slot, or the sorted position.
            let global = match (&perm.mode, ctx) {
                (PermMode::Streaming { scalar, .. }, Ctx::Placed) => {
                    Some(Expr::sym(scalar.clone()))
                }
                (PermMode::Sorted | PermMode::Unsorted, Ctx::Sorted) => {
                    Some(Expr::var(Var::Tuple(0)))
                }
                _ => None,
            };
            match (&perm.mode, ctx, global) {
                (_, _, Some(global)) => {
                    let group = perm.order.group.clone();
                    if group.is_empty() {
                        return Ok(global);
                    }
                    // The rank within the group: the group's next slot
                    // when the scatter counts the groups themselves, else
                    // the global position minus the group's start.
                    let object = perm.object.clone();
                    let name = self.scalar(&format!("rank {q}"), &self.dst_tuple[q].clone());
                    if self.ranks_by_slot() && *ctx == Ctx::Placed {
                        // Assigned once per entry, first in the placing
                        // pass (`insert_statements`).
                        return Ok(Expr::sym(name));
                    }
                    let [g] = group.as_slice() else {
                        return Err(Refusal::about(
                            Side::Destination,
                            Construct::Map,
                            format!(
                                "position `{}` is a rank within groups of several positions, \
                                 which only the scatter over the groups gives",
                                self.dst_tuple[q]
                            ),
                        ));
                    };
                    let group = self.destination_var(*g, ctx, pro)?;
                    if pro.iter().all(|(n, _)| *n != name) {
                        let start = call(&object, "start", vec![ValueExpr::Index(group)]);
                        pro.push((
                            name.clone(),
                            ValueExpr::Binary(
                                BinOp::Sub,
                                Box::new(ValueExpr::Index(global)),
                                Box::new(start),
                            ),
                        ));
                    }
                    return Ok(Expr::sym(name));
                }
                (PermMode::Offset { inner, lo, .. }, Ctx::Source, None) => {
                    return Ok(Expr::var(Var::Tuple(*inner)).minus(lo))
                }
                (PermMode::Direct { var, lo, .. }, Ctx::Source, None) => {
                    return Ok(Expr::var(Var::Tuple(*var)).minus(lo))
                }
                _ => {
                    return Err(Refusal::about(
                        Side::Destination,
                        Construct::Map,
                        format!(
                            "position `{}` is needed outside the permutation's loop",
                            self.dst_tuple[q]
                        ),
                    ))
                }
            }
        }
        if let Some(set) = self.sets.get(&q) {
            // Over sorted positions, a set position the permutation sorts
            // by is in its key.
            if *ctx == Ctx::Sorted {
                if let Some(offset) = self.key_offset(q) {
                    let object = self.perm.as_ref().expect("sorted").object.clone();
                    let name = self.scalar(&format!("key {q}"), &self.dst_tuple[q].clone());
                    self.read_key(pro, &name, &object, offset);
                    return Ok(Expr::sym(name));
                }
            }
            return match ctx {
                Ctx::Set(s) if *s == q => Ok(Expr::var(Var::Tuple(0))),
                // Over sorted positions, from the value the key holds.
                Ctx::Source | Ctx::Placed | Ctx::Sorted => {
                    let (object, value) = (set.object.clone(), set.value.clone());
                    // Ranked by counts: the position of the value's entry.
                    let lo = set.ranking.as_ref().map(|r| r.lo.clone());
                    let v = self.translate(&value, ctx, pro)?;
                    let name = self.scalar(&format!("set {q}"), &self.dst_tuple[q].clone());
                    if pro.iter().all(|(n, _)| *n != name) {
                        let found = match lo {
                            Some(lo) => call(&object, "map", vec![ValueExpr::Index(v.minus(&lo))]),
                            None => call(&object, "index", vec![ValueExpr::Index(v)]),
                        };
                        pro.push((name.clone(), found));
                    }
                    Ok(Expr::sym(name))
                }
                _ => Err(Refusal::about(
                    Side::Destination,
                    Construct::Map,
                    format!(
                        "position `{}` of the ordered set is needed outside its loops",
                        self.dst_tuple[q]
                    ),
                )),
            };
        }
        // A resolved coordinate: from the key when it is a component.
        if *ctx == Ctx::Sorted {
            if let Some(offset) = self.key_offset(q) {
                let object = self
                    .perm
                    .as_ref()
                    .expect("a sorted context has a permutation")
                    .object
                    .clone();
                let name = self.scalar(&format!("key {q}"), &self.dst_tuple[q].clone());
                self.read_key(pro, &name, &object, offset);
                return Ok(Expr::sym(name));
            }
        }
        let resolved = self.conv.resolved[q]
            .clone()
            .ok_or_else(|| format!("position `{}` is not known here", self.dst_tuple[q]))?;
        self.translate(&resolved, ctx, pro)
    }

    /// An expression over the destination's tuple as one over the source's,
    /// through the resolved positions; `None` when it needs a position no
    /// equality resolves.
    pub(super) fn over_source(&self, e: &Expr) -> Option<Expr> {
        let n = self.n_in;
        let mut ok = true;
        let e = self.over_relation(e).substitute(&mut |x| match x {
            Var::Tuple(t) if t >= n => {
                let r = self.conv.resolved[t - n].clone();
                ok &= r.is_some();
                r
            }
            _ => None,
        });
        ok.then_some(e)
    }

    /// An expression over the destination's tuple (`Var::Tuple(q)`) as one
    /// over the composed relation's (`Var::Tuple(n_in + q)`).
    pub(super) fn over_relation(&self, e: &Expr) -> Expr {
        e.rename_vars(&mut |x| match x {
            Var::Tuple(q) => Var::Tuple(self.n_in + q),
            other => other,
        })
    }
}
