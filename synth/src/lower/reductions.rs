//! `max=` candidates that need no per-entry update: a max of the loop
//! variable over its range is its last value (`NNZ_out max= NP`), a max of
//! a rank within groups the largest group (ELL's `W`), and a value that
//! grows along the loop order is a `rise=`.

use iegen::computation::{BinOp, ValueExpr};
use iegen::{Atom, Expr, Var};

use super::bounds::mentions_any_var;
use super::contexts::Ctx;
use super::ranks::PermMode;
use super::{call, Lowering};

impl Lowering<'_> {
    /// Whether `value` strictly increases in the order `ctx` visits its
    /// instances: the sorted position `p` plus a constant, or the direct
    /// source variable (the only free one) plus a constant.
    pub(super) fn increases_along(&self, ctx: &Ctx, value: &Expr) -> bool {
        let var = match (ctx, self.perm.as_ref().map(|p| &p.mode)) {
            (Ctx::Sorted, Some(_)) => 0,
            (Ctx::Source, Some(PermMode::Direct { var, .. })) => *var,
            _ => return false,
        };
        let mut rest = value.clone();
        rest.add_term(Atom::Var(Var::Tuple(var)), -1);
        value.coefficient_of_var(Var::Tuple(var)) == 1 && rest.is_constant()
    }

    /// For `value = w + c` with `w` a placed entry's rank within its group
    /// (ELL's slot): over the groups `g` (context `Groups`), `start(g + 1) -
    /// start(g) - 1 + c`, the largest rank plus `c` (`W max= w + 1` is the
    /// longest row).
    pub(super) fn reduction_over_groups(
        &self,
        ctx: &Ctx,
        value: &Expr,
    ) -> Option<(Expr, ValueExpr)> {
        let perm = self.perm.as_ref()?;
        if let (
            Ctx::Source,
            [g],
            PermMode::Offset {
                outer,
                inner,
                lo,
                hi,
            },
        ) = (ctx, perm.order.group.as_slice(), &perm.mode)
        {
            // value = (inner - lo) + c: over the groups, hi - lo - 1 + c.
            let rank = Expr::var(Var::Tuple(*inner)).minus(lo);
            let rest = value.minus(&rank);
            if !rest.is_constant() {
                return None;
            }
            let at_group =
                |e: &Expr| e.substitute_var(Var::Tuple(*outer), &Expr::var(Var::Tuple(0)));
            let longest = at_group(hi)
                .minus(&at_group(lo))
                .plus(&Expr::constant(rest.constant_term() - 1));
            return Some((Expr::sym(self.dense_extent(*g)?), ValueExpr::Index(longest)));
        }
        // One group position: the groups are the scatter's keys (a group of
        // several has no `start`, and its sizes are bounded by constants).
        let (Ctx::Placed, [_], PermMode::Streaming { extent, .. }) =
            (ctx, perm.order.group.as_slice(), &perm.mode)
        else {
            return None;
        };
        let [extent] = extent.as_slice() else {
            return None;
        };
        let rank = self.scalars.get(&format!("rank {}", perm.position))?;
        let atom = Atom::Sym(rank.clone());
        if value.coefficient(&atom) != 1 {
            return None;
        }
        let mut rest = value.clone();
        rest.add_term(atom, -1);
        if !rest.is_constant() {
            return None;
        }
        let it = Expr::var(Var::Tuple(0));
        let start = |e: Expr| call(&perm.object, "start", vec![ValueExpr::Index(e)]);
        // The group's entries: the scatter's count when it counts the groups
        // themselves (no prefix sums needed), else the difference of starts.
        let size = if self.ranks_by_slot() {
            call(&perm.object, "count", vec![ValueExpr::Index(it)])
        } else {
            ValueExpr::Binary(
                BinOp::Sub,
                Box::new(start(it.plus(&Expr::constant(1)))),
                Box::new(start(it)),
            )
        };
        let value = match rest.constant_term() - 1 {
            0 => size,
            c => ValueExpr::Binary(BinOp::Add, Box::new(size), Box::new(ValueExpr::Int(c))),
        };
        Some((extent.clone(), value))
    }

    /// For `value = v + c` with `v` the only loop variable of `ctx`, ranging
    /// over `[lo, hi)`: the value at `v = hi - 1` and the guard `hi > lo`.
    pub(super) fn reduction_of_range(&self, ctx: &Ctx, value: &Expr) -> Option<(Expr, Expr)> {
        if let (Ctx::Placed, Some(p)) = (ctx, self.perm.as_ref()) {
            // The placed position ranges over 0..NP.
            let PermMode::Streaming { scalar, .. } = &p.mode else {
                return None;
            };
            let pos = Atom::Sym(scalar.clone());
            if value.coefficient(&pos) != 1 {
                return None;
            }
            let mut rest = value.clone();
            rest.add_term(pos, -1);
            let mut scalars = false;
            rest.for_each_sym(&mut |s| {
                scalars |= self.scalars.values().any(|x| x == s) || s == scalar
            });
            if mentions_any_var(&rest) || scalars {
                return None;
            }
            let hi = Expr::sym(p.size.clone());
            return Some((
                hi.plus(&Expr::constant(-1)).plus(&rest),
                hi.plus(&Expr::constant(-1)),
            ));
        }
        if let (Ctx::Sorted, Some(p)) = (ctx, self.perm.as_ref()) {
            if let Some(ranks) = &p.distinct {
                // `f max= rank + c` over sorted positions: the last rank, `ranks - 1`.
                let rank = Atom::Sym(self.scalars.get(&format!("rank {}", p.position))?.clone());
                if value.coefficient(&rank) != 1 {
                    return None;
                }
                let mut rest = value.clone();
                rest.add_term(rank, -1);
                if mentions_any_var(&rest) || !rest.is_constant() {
                    return None;
                }
                let last = Expr::sym(ranks.clone()).plus(&Expr::constant(-1));
                return Some((last.plus(&rest), last));
            }
        }
        let (v, lo, hi) = match ctx {
            Ctx::Sorted => {
                let p = self.perm.as_ref()?;
                (0, Expr::constant(0), Expr::sym(p.size.clone()))
            }
            Ctx::Set(q) => (0, Expr::constant(0), Expr::sym(self.sets[q].size.clone())),
            Ctx::Source => match &self.perm.as_ref()?.mode {
                PermMode::Direct { var, lo, hi } => (*var, lo.clone(), hi.clone()),
                _ => return None,
            },
            _ => return None,
        };
        if value.coefficient_of_var(Var::Tuple(v)) != 1 {
            return None;
        }
        let mut rest = value.clone();
        rest.add_term(Atom::Var(Var::Tuple(v)), -1);
        if mentions_any_var(&rest) {
            return None;
        }
        let last = hi.plus(&Expr::constant(-1)).plus(&rest);
        Some((last, hi.minus(&lo).plus(&Expr::constant(-1))))
    }
}
