//! Nondecreasing pointer arrays: over the sort's or the scatter's key, the
//! prefix sums the object already has (`rowptr(g + 1) = P.start(g + 1)`,
//! no fix-up); over an ordered set of the sort's first key component, the
//! end of each value's entries (`rp(x + 1) = P.start(S.value(x) + 1)`, no
//! fix-up); computed by `max=` at the entries' rows, Algorithm 3's
//! fix-up `f(x + 1) max= f(x)` for the rows without entries.

use iegen::computation::{Access, BinOp, Body, UpdateOp, ValueExpr};
use iegen::{Atom, Expr, Monotonicity, Var};

use crate::candidate::{Candidate, Relation as CandRelation};
use crate::order::KeyComponent;

use super::contexts::Ctx;
#[cfg(test)]
use super::faults;
use super::ranks::PermMode;
use super::refusal::Refusal;
use super::scalars::Prologue;
use super::{call, phase, update, Lowering, Pending};
use crate::descriptor::Construct;
use crate::synthesized::Side;

impl Lowering<'_> {
    /// `f(key + 1) max= q + 1` with `q` the position a scatter places or a
    /// counting sort sorts by `key`, and `f` nondecreasing (CSR's `rowptr`,
    /// CSC's `colptr`): `f(g + 1) = P.start(g + 1)` over the keys `g` — the
    /// prefix sums the object already has, with no per-entry update and no
    /// fix-up (`f(0)` stays 0). Read off the candidate before translation.
    pub(super) fn pointers_from_order(&self, c: &Candidate) -> Option<(Expr, Body)> {
        let perm = self.perm.as_ref()?;
        if !perm.order.group.is_empty() || perm.distinct.is_some() {
            return None;
        }
        let KeyComponent::Value(key) = perm.order.key.first()? else {
            return None;
        };
        let extent = match &perm.mode {
            PermMode::Streaming { extent, key, .. } => match (extent.as_slice(), key.as_slice()) {
                ([extent], [_]) => extent.clone(),
                _ => return None,
            },
            PermMode::Sorted => match key.as_var()? {
                Var::Tuple(t) => Expr::sym(self.dense_extent(t)?),
                Var::Exist(_) => return None,
            },
            _ => return None,
        };
        let decl = self.conv.dst.uf(&c.unknown)?;
        if c.relation != CandRelation::Ge
            || !decl.monotonicity.contains(&Monotonicity::Nondecreasing)
        {
            return None;
        }
        let n = self.n_in;
        let key = self.over_source(key)?;
        let one = Expr::constant(1);
        let position = Expr::var(Var::Tuple(n + perm.position));
        // `f(key + 1) max= q + 1 + c`: pointers offset by a constant `c`
        // (1 when they count from 1).
        let offset = c.value.minus(&position.plus(&one));
        if c.args != [key.plus(&one)] || !offset.is_constant() {
            return None;
        }
        let next = Expr::var(Var::Tuple(0)).plus(&one);
        let start = call(&perm.object, "start", vec![ValueExpr::Index(next.clone())]);
        let body = update(
            Access {
                space: c.unknown.clone(),
                index: vec![next],
            },
            UpdateOp::Assign,
            match offset.constant_term() {
                0 => start,
                k => ValueExpr::Binary(BinOp::Add, Box::new(start), Box::new(ValueExpr::Int(k))),
            },
        );
        Some((extent, body))
    }

    /// `f(q + 1) max= p + 1 + c` with `q` the position an ordered set gives
    /// to the sort's first key component and `p` the sorted position
    /// (DCSR's `rp` over its stored rows): the end of each set value's
    /// entries, `f(x + 1) = P.start(S.value(x) + 1) + c` over the set's
    /// positions `x` — one store per value instead of one per entry, and no
    /// fix-up (every position holds a value with entries; `f(0)` keeps its
    /// start). Returns the set's position and the body.
    pub(super) fn pointers_from_set_order(&self, c: &Candidate) -> Option<(usize, Body)> {
        let perm = self.perm.as_ref()?;
        if !perm.order.group.is_empty()
            || perm.distinct.is_some()
            || !matches!(perm.mode, PermMode::Sorted)
        {
            return None;
        }
        let KeyComponent::Value(key) = perm.order.key.first()? else {
            return None;
        };
        let decl = self.conv.dst.uf(&c.unknown)?;
        if c.relation != CandRelation::Ge
            || !decl.monotonicity.contains(&Monotonicity::Nondecreasing)
        {
            return None;
        }
        let one = Expr::constant(1);
        let [arg] = c.args.as_slice() else {
            return None;
        };
        let q = match arg.minus(&one).as_var()? {
            Var::Tuple(t) => t.checked_sub(self.n_in)?,
            Var::Exist(_) => return None,
        };
        let set = self.sets.get(&q)?;
        if self.over_source(key)? != set.value {
            return None;
        }
        let position = Expr::var(Var::Tuple(self.n_in + perm.position));
        let offset = c.value.minus(&position.plus(&one));
        if !offset.is_constant() {
            return None;
        }
        let x = Expr::var(Var::Tuple(0));
        let value = call(&set.object, "value", vec![ValueExpr::Index(x.clone())]);
        let next = ValueExpr::Binary(BinOp::Add, Box::new(value), Box::new(ValueExpr::Int(1)));
        let start = call(&perm.object, "start", vec![next]);
        let body = update(
            Access {
                space: c.unknown.clone(),
                index: vec![x.plus(&one)],
            },
            UpdateOp::Assign,
            match offset.constant_term() {
                0 => start,
                k => ValueExpr::Binary(BinOp::Add, Box::new(start), Box::new(ValueExpr::Int(k))),
            },
        );
        Some((q, body))
    }

    /// A profile `f(a) >= f(a - 1) + e` ([`SynthesisCase::Profile`]): the
    /// increments `f(a) max= e` over the source entries (with the inserts,
    /// before anything reads `f`), then, once per array, their prefix sums
    /// `f(x + 1) += f(x)` in increasing `x`: the least nondecreasing `f`
    /// from 0 with every bound. Increments that read positions a sort or
    /// a ranking gives (JAD's `jd(d + 1) max= r + 1`) run with the index
    /// arrays (over the sorted positions, or the source once the objects
    /// are sorted), and their prefix sums with the fix-ups: the profile is
    /// then *late* (what reads it comes after).
    ///
    /// [`SynthesisCase::Profile`]: crate::candidate::SynthesisCase::Profile
    pub(super) fn profile_statements(&mut self, c: &Candidate) -> Result<(), Refusal> {
        let [a] = c.args.as_slice() else {
            return Err(Refusal::about(
                Side::Destination,
                Construct::Uf(c.unknown.clone()),
                format!("the profile of `{}` has several arguments", c.unknown),
            ));
        };
        let previous = Atom::Uf(c.unknown.clone(), vec![a.plus(&Expr::constant(-1))]);
        let mut increment = c.value.clone();
        increment.add_term(previous, -1);
        let ctx = self.context_of(&[a, &increment]);
        let mut pro = Prologue::new();
        let index = self.translate(a, &ctx, &mut pro)?;
        let value = self.translate(&increment, &ctx, &mut pro)?;
        let body = update(
            Access {
                space: c.unknown.clone(),
                index: vec![index],
            },
            UpdateOp::Max,
            ValueExpr::Index(value),
        );
        // Positions are ranked by objects sorted after the inserts.
        let mut late = false;
        for e in [a, &increment] {
            e.for_each_var(&mut |v| late |= matches!(v, Var::Tuple(t) if t >= self.n_in));
        }
        let (increments, sums) = if late {
            self.late_profiles.insert(c.unknown.clone());
            (phase::ARRAYS, phase::FIXUP)
        } else {
            (phase::INSERT, phase::PREFIX_SUMS)
        };
        self.push(increments, ctx, pro, body);
        if !self.profiles.insert(c.unknown.clone()) {
            return Ok(());
        }
        let x = Expr::var(Var::Tuple(0));
        self.pending.push(Pending {
            phase: sums,
            ctx: Ctx::Fixup(c.unknown.clone()),
            guard: Vec::new(),
            body: update(
                Access {
                    space: c.unknown.clone(),
                    index: vec![x.plus(&Expr::constant(1))],
                },
                UpdateOp::Add,
                ValueExpr::Read(Access {
                    space: c.unknown.clone(),
                    index: vec![x],
                }),
            ),
        });
        Ok(())
    }

    /// The least and the greatest index of the one-dimensional index array
    /// `f` (its domain `lo <= x <= hi`, one bound of each kind).
    fn index_bounds(&self, f: &str) -> Result<(Expr, Expr), Refusal> {
        let decl = self
            .conv
            .dst
            .uf(f)
            .ok_or_else(|| format!("`{f}` is not an index array"))?;
        let x = Var::Tuple(0);
        let bound = |sign: i64| -> Vec<Expr> {
            decl.domain
                .conjunctions()
                .iter()
                .flat_map(|c| c.constraints())
                .filter(|k| k.expr().coefficient_of_var(x) == sign)
                .map(|k| {
                    // `x + e >= 0`: x >= -e; `e - x >= 0`: x <= e.
                    let mut e = k.expr().clone();
                    e.add_term(Atom::Var(x), -sign);
                    if sign == 1 {
                        e.scale(-1)
                    } else {
                        e
                    }
                })
                .collect()
        };
        match (&bound(1)[..], &bound(-1)[..]) {
            ([lo], [hi]) if decl.domain.conjunctions().len() == 1 => Ok((lo.clone(), hi.clone())),
            _ => Err(Refusal::about(
                Side::Destination,
                Construct::Uf(f.to_string()),
                format!(
                    "`{f}` would be fixed up from its last index down, and its domain is not \
                     one range `lo <= x <= hi`"
                ),
            )),
        }
    }

    /// Algorithm 3: `f(x + 1) max= f(x)` in increasing `x`, so that a
    /// nondecreasing pointer array computed by `max=` at the entries' rows
    /// also holds at the rows without entries; for one computed by `min=`
    /// (started at its range's upper bound), `f(x) min= f(x + 1)` in
    /// decreasing `x`.
    pub(super) fn fixup_statement(&mut self, f: &str) -> Result<(), Refusal> {
        let decl = self
            .conv
            .dst
            .uf(f)
            .ok_or_else(|| format!("`{f}` is not an index array"))?;
        if !decl.monotonicity.contains(&Monotonicity::Nondecreasing) {
            return Ok(());
        }
        let x = Expr::var(Var::Tuple(0));
        let one = Expr::constant(1);
        let body = if self.minimized.contains(f) {
            // `f(x) min= f(x + 1)` from the last x down: the loop runs t
            // over the same pairs, x = lo + hi - 1 - t.
            let (lo, hi) = self.index_bounds(f)?;
            let down = lo.plus(&hi).minus(&one).minus(&x);
            update(
                Access {
                    space: f.to_string(),
                    index: vec![down.clone()],
                },
                UpdateOp::Min,
                ValueExpr::Read(Access {
                    space: f.to_string(),
                    index: vec![down.plus(&one)],
                }),
            )
        } else {
            update(
                Access {
                    space: f.to_string(),
                    index: vec![x.plus(&one)],
                },
                UpdateOp::Max,
                ValueExpr::Read(Access {
                    space: f.to_string(),
                    index: vec![x],
                }),
            )
        };
        #[cfg(test)]
        let body = if faults::injected(faults::Fault::FixupOffByOne) {
            faults::off_by_one(body)
        } else {
            body
        };
        self.pending.push(Pending {
            phase: phase::FIXUP,
            ctx: Ctx::Fixup(f.to_string()),
            guard: Vec::new(),
            body,
        });
        Ok(())
    }
}
