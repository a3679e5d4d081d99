//! The statement of one chosen candidate (Cases 1, 3 and 4: `f(args) =
//! e`, `max= e` or `min= e`, the last from a start at the range's upper
//! bound): a pointer array from prefix sums ([`super::pointers`]),
//! a reduction to one statement ([`super::reductions`]), or an update in
//! the context its expressions need, with `max=` turned into `rise=` when
//! the value grows along the loop.

use iegen::computation::{Access, UpdateOp, ValueExpr};
use iegen::Expr;

use crate::candidate::{Candidate, Relation as CandRelation, SynthesisCase};
use crate::descriptor::Construct;
use crate::synthesized::Side;

use super::bounds::mentions_any_var;
use super::contexts::Ctx;
use super::refusal::Refusal;
use super::scalars::Prologue;
use super::{update, Lowering, Pending};

impl Lowering<'_> {
    /// `f(args) op value` for one candidate.
    /// Returns whether the statement leaves a monotone array to fix up
    /// (a `max=` at the entries' rows, not at every row).
    pub(super) fn candidate_statement(
        &mut self,
        c: &Candidate,
        phase: u32,
    ) -> Result<bool, Refusal> {
        if c.case == Some(SynthesisCase::Profile) {
            self.profile_statements(c)?;
            return Ok(false);
        }
        let mut all: Vec<&Expr> = c.args.iter().collect();
        all.push(&c.value);
        let ctx = self.context_of(&all);
        let op = match c.relation {
            CandRelation::Eq => UpdateOp::Assign,
            CandRelation::Ge => {
                self.maximum_start(c)?;
                UpdateOp::Max
            }
            CandRelation::Le => {
                self.minimum_start(c)?;
                UpdateOp::Min
            }
        };
        // A pointer array over the sort's or the scatter's key: its prefix
        // sums; over an ordered set of the sort's first key component: the
        // set's values' ends.
        let from_order = self
            .pointers_from_order(c)
            .map(|(extent, body)| (Ctx::Groups(extent), body))
            .or_else(|| {
                self.pointers_from_set_order(c)
                    .map(|(q, body)| (Ctx::Set(q), body))
            });
        if let Some((ctx, body)) = from_order.filter(|_| op == UpdateOp::Max) {
            self.pending.push(Pending {
                phase,
                ctx,
                guard: Vec::new(),
                body,
            });
            return Ok(false);
        }
        let mut pro = Prologue::new();
        let args = c
            .args
            .iter()
            .map(|a| self.translate(a, &ctx, &mut pro))
            .collect::<Result<Vec<_>, _>>()?;
        let args_need_scalars = !pro.is_empty();
        let value = self.translate(&c.value, &ctx, &mut pro)?;
        // A max of a rank within groups: the largest group's size.
        if op == UpdateOp::Max && !args_need_scalars && args.iter().all(|a| !mentions_any_var(a)) {
            if let Some((g, body_value)) = self.reduction_over_groups(&ctx, &value) {
                let body = update(
                    Access {
                        space: c.unknown.clone(),
                        index: args,
                    },
                    op,
                    body_value,
                );
                self.pending.push(Pending {
                    phase,
                    ctx: Ctx::Groups(g),
                    guard: Vec::new(),
                    body,
                });
                return Ok(false);
            }
        }
        // A max of the loop variable itself over its range: its last value.
        if op == UpdateOp::Max && !args_need_scalars && args.iter().all(|a| !mentions_any_var(a)) {
            if let Some((hi, guard)) = self.reduction_of_range(&ctx, &value) {
                self.pending.push(Pending {
                    phase,
                    ctx: Ctx::Once,
                    guard: vec![guard],
                    body: update(
                        Access {
                            space: c.unknown.clone(),
                            index: args,
                        },
                        op,
                        ValueExpr::Index(hi),
                    ),
                });
                return Ok(false);
            }
        }
        // A max of a value that grows with the loop order, by the only
        // statement writing the array: the last write is the largest, so
        // `rise=` does (SCOO -> CSR's `rowptr(ii + 1) rise= n + 1`: no read
        // of the target, no dependence chain through it; the interpreter
        // checks the rise, and C keeps the loop's colliding stores scalar).
        let increasing =
            self.increases_along(&ctx, &value) && self.writers.get(&c.unknown).copied() == Some(1);
        let body = update(
            Access {
                space: c.unknown.clone(),
                index: args,
            },
            if op == UpdateOp::Max && increasing {
                UpdateOp::Rise
            } else {
                op
            },
            ValueExpr::Index(value),
        );
        self.push(phase, ctx, pro, body);
        Ok(matches!(op, UpdateOp::Max | UpdateOp::Min))
    }

    /// The start of an index array `f` computed by `min=` (`lo(ii) <= k`
    /// over the entries: a loose compressed level's begin pointers): every
    /// element set to the upper bound of `f`'s range first, once the sizes
    /// are known, so that the minimum over the entries is the least
    /// element and the indices no entry writes keep the bound until the
    /// fix-up ([`Lowering::fixup_statement`]) lowers them. A symbol has no
    /// such start: refused.
    fn minimum_start(&mut self, c: &Candidate) -> Result<(), Refusal> {
        self.range_start(c, true)?;
        self.minimized.insert(c.unknown.clone());
        Ok(())
    }

    /// The start of an index array `f` computed by `max=` whose range has
    /// a lower bound other than 0 (pointers that count from 1: `1 <= y`):
    /// every element set to it first, so that the indices no entry writes
    /// (`rowptr(0)`, an empty matrix's) hold the least value the range
    /// allows. Arrays (and symbols) whose range starts at 0 need none.
    fn maximum_start(&mut self, c: &Candidate) -> Result<(), Refusal> {
        let starts_at_zero = self.conv.dst.uf(&c.unknown).is_none_or(|decl| {
            let y = iegen::Var::Tuple(0);
            decl.range.conjunctions().iter().all(|range| {
                range
                    .constraints()
                    .filter(|k| k.expr().coefficient_of_var(y) == 1)
                    .all(|k| k.expr().constant_term() == 0 && k.expr().num_terms() == 1)
            })
        });
        if starts_at_zero {
            return Ok(());
        }
        self.range_start(c, false)
    }

    /// Every element of `c`'s index array set to the upper (`upper`) or
    /// lower bound of its range, once per array.
    fn range_start(&mut self, c: &Candidate, upper: bool) -> Result<(), Refusal> {
        let (op, end) = if upper {
            ("min=", "upper")
        } else {
            ("max=", "lower")
        };
        let refuse = |why: String| {
            Refusal::about(
                Side::Destination,
                Construct::Uf(c.unknown.clone()),
                format!("`{}` would be computed by `{op}`, {why}", c.unknown),
            )
        };
        if self.started.contains(&c.unknown) {
            return Ok(());
        }
        let decl =
            self.conv.dst.uf(&c.unknown).ok_or_else(|| {
                refuse("which starts from a bound only an index array has".into())
            })?;
        let y = iegen::Var::Tuple(0);
        let [range] = decl.range.conjunctions() else {
            return Err(refuse("and its range is not one conjunction".into()));
        };
        // `e - y >= 0` (`y - e >= 0`): the range's upper (lower) bounds;
        // one is needed.
        let sign = if upper { -1 } else { 1 };
        let bounds: Vec<Expr> = range
            .constraints()
            .filter(|k| k.expr().coefficient_of_var(y) == sign)
            .map(|k| {
                let mut e = k.expr().clone();
                e.add_term(iegen::Atom::Var(y), -sign);
                if upper {
                    e
                } else {
                    e.negate()
                }
            })
            .collect();
        let [bound] = &bounds[..] else {
            return Err(refuse(format!(
                "which starts from the {end} bound of its range, and it has {}",
                bounds.len()
            )));
        };
        let upper = bound;
        let ctx = Ctx::Whole(c.unknown.clone());
        let mut pro = Prologue::new();
        let value = self.translate(upper, &ctx, &mut pro)?;
        let body = update(
            Access {
                space: c.unknown.clone(),
                index: (0..decl.domain.arity())
                    .map(|k| Expr::var(iegen::Var::Tuple(k)))
                    .collect(),
            },
            UpdateOp::Assign,
            ValueExpr::Index(value),
        );
        self.push(super::phase::STARTS, ctx, pro, body);
        self.started.insert(c.unknown.clone());
        Ok(())
    }
}
