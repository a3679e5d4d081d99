//! The copy of the values, `A_out(dst index) = A(src index)` (Algorithm 4),
//! in the context its indices need; after the fix-ups when its index reads
//! a fixed-up array.

use std::collections::BTreeSet;

use iegen::computation::{Access, UpdateOp, ValueExpr};
use iegen::Expr;

use super::refusal::Refusal;
use super::scalars::Prologue;
use super::{phase, update, Lowering};

impl Lowering<'_> {
    /// `A_out(dst index) = A(src index)` (Algorithm 4).
    pub(super) fn copy_statement(&mut self, fixups: &BTreeSet<String>) -> Result<(), Refusal> {
        let dst_index: Vec<Expr> = self
            .conv
            .dst
            .data_index()
            .ok_or("the destination's data access is not a function of its tuple")?
            .into_iter()
            .map(|e| self.over_relation(&e))
            .collect();
        let src_index = self
            .conv
            .src
            .data_index()
            .ok_or("the source's data access is not a function of its tuple")?;
        let mut all: Vec<&Expr> = dst_index.iter().collect();
        all.extend(src_index.iter());
        let ctx = self.context_of(&all);
        let mut pro = Prologue::new();
        let target = dst_index
            .iter()
            .map(|e| self.translate(e, &ctx, &mut pro))
            .collect::<Result<Vec<_>, _>>()?;
        let source = src_index
            .iter()
            .map(|e| self.translate(e, &ctx, &mut pro))
            .collect::<Result<Vec<_>, _>>()?;
        let mut reads_fixed = false;
        for e in &target {
            e.for_each_call(&mut |f, _| reads_fixed |= fixups.contains(f));
        }
        let body = update(
            Access {
                space: self.conv.dst.data_name.clone(),
                index: target,
            },
            UpdateOp::Assign,
            ValueExpr::Read(Access {
                space: self.conv.src.data_name.clone(),
                index: source,
            }),
        );
        let at = if reads_fixed {
            phase::AFTER_FIXUP
        } else {
            phase::ARRAYS
        };
        self.push(at, ctx, pro, body);
        Ok(())
    }
}
