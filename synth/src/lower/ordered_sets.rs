//! Positions given by an ordered set of distinct values (Case 5 on a
//! strictly increasing index array, DIA's `off`): an `OrderedSet` bounded
//! by the array's range, whose `index` is the position and whose `value`s
//! fill the array.

use iegen::computation::{Access, RuntimeObject, UpdateOp, ValueExpr};
use iegen::{Atom, Expr, Set, Var};

use crate::candidate::Candidate;

use super::contexts::Ctx;
use super::ranks::order_refusal;
use super::refusal::Refusal;
use super::{call, phase, update, Lowering, Pending};
use crate::descriptor::Construct;
use crate::synthesized::Side;

/// The ordered set that gives one destination position.
pub(super) struct OrderedSet {
    pub(super) object: String,
    pub(super) uf: String,
    /// The inserted value, over the composed relation's variables.
    pub(super) value: Expr,
    pub(super) size: String,
    pub(super) iterator: String,
    /// How many values the set can hold, over the source's symbols (`hi -
    /// lo + 1` of the array's range), when known: its positions lie in
    /// `0..extent`, so a sort key holding one is bounded (DCSR's stored
    /// rows: at most `NR`).
    pub(super) extent: Option<Expr>,
}

impl Lowering<'_> {
    pub(super) fn plan_ordered_set(&mut self, uf: &str, c: &Candidate) -> Result<(), Refusal> {
        let q = match c.args.as_slice() {
            [a] => match a.as_var() {
                Some(Var::Tuple(t)) if t >= self.n_in => t - self.n_in,
                _ => {
                    return Err(Refusal::about(
                        Side::Destination,
                        Construct::Uf(uf.to_string()),
                        format!("`{uf}` is inserted at `{a}`, not at a position"),
                    ))
                }
            },
            _ => {
                return Err(Refusal::about(
                    Side::Destination,
                    Construct::Uf(uf.to_string()),
                    format!("`{uf}` takes several arguments; an ordered set gives one"),
                ))
            }
        };
        // The offset of jagged segments is ranked by a count, which no
        // ordered set gives.
        if let Some(j) = crate::order::jagged_segments(&self.conv.dst).filter(|j| j.offset == q) {
            return Err(order_refusal(j.ranking_error(&self.conv.dst)));
        }
        let decl = self
            .conv
            .dst
            .uf(uf)
            .ok_or_else(|| format!("`{uf}` is not an index array"))?;
        if !crate::candidate::distinct_values(&self.conv.dst, uf) {
            return Err(Refusal::about(
                Side::Destination,
                Construct::Uf(uf.to_string()),
                format!(
                    "`{uf}` is neither declared `increasing` nor distinct by a rule; an ordered \
                     set of distinct values needs one"
                ),
            ));
        }
        let (lo, hi) = range_bounds(&decl.range);
        let known = |e: &Expr| {
            let mut ok = true;
            e.for_each_sym(&mut |s| ok &= self.conv.src.symbols.iter().any(|x| x == s));
            ok
        };
        let (args, extent) = match (lo, hi) {
            (Some(lo), Some(hi)) if known(&lo) && known(&hi) => (
                vec![lo.to_string(), hi.to_string()],
                Some(hi.minus(&lo).plus(&Expr::constant(1))),
            ),
            _ => (Vec::new(), None),
        };
        let object = self.fresh("S");
        let size = self.fresh(&format!("N{}", self.dst_tuple[q].to_uppercase()));
        let iterator = self.fresh(&self.dst_tuple[q].clone());
        self.comp.objects.push(RuntimeObject {
            name: object.clone(),
            kind: "OrderedSet".into(),
            args,
        });
        self.declare_scalar(&size);
        self.sets.insert(
            q,
            OrderedSet {
                object,
                uf: uf.to_string(),
                value: c.value.clone(),
                size,
                iterator,
                extent,
            },
        );
        Ok(())
    }

    /// `f(d) = S.value(d)` over each ordered set's values: the index array
    /// the set gives (DIA's `off`).
    pub(super) fn set_value_statements(&mut self) {
        for (&q, set) in &self.sets {
            let body = update(
                Access {
                    space: set.uf.clone(),
                    index: vec![Expr::var(Var::Tuple(0))],
                },
                UpdateOp::Assign,
                call(
                    &set.object,
                    "value",
                    vec![ValueExpr::Index(Expr::var(Var::Tuple(0)))],
                ),
            );
            self.pending.push(Pending {
                phase: phase::ARRAYS,
                ctx: Ctx::Set(q),
                guard: Vec::new(),
                body,
            });
        }
    }
}

/// The bounds `lo <= y <= hi` of a range `{[y] : ...}`.
fn range_bounds(range: &Set) -> (Option<Expr>, Option<Expr>) {
    let [conj] = range.conjunctions() else {
        return (None, None);
    };
    let v = Var::Tuple(0);
    let (mut lo, mut hi) = (None, None);
    for c in conj.constraints().filter(|c| !c.is_eq()) {
        let e = c.expr();
        let coef = e.coefficient_of_var(v);
        let mut rest = e.clone();
        rest.add_term(Atom::Var(v), -coef);
        match coef {
            1 => lo = Some(rest.negate()),
            -1 => hi = Some(rest),
            _ => {}
        }
    }
    (lo, hi)
}
