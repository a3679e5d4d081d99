//! Positions given by an ordered set of distinct values (Case 5 on a
//! strictly increasing index array, DIA's `off`): an `OrderedSet` bounded
//! by the array's range, whose `index` is the position and whose `value`s
//! fill the array.
//!
//! The offset of jagged segments (JAD's row rank `r`, `perm(r) = ii`) is a
//! set of every value of the range ranked by its number of entries
//! ([`CountRanking`]): a scatter of counts and a counting sort of the
//! values.

use iegen::computation::{Access, BinOp, RuntimeObject, UpdateOp, ValueExpr};
use iegen::{Atom, Expr, Set, Var};

use crate::candidate::Candidate;

use super::contexts::Ctx;
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
    /// Values ranked by their number of entries rather than by value.
    pub(super) ranking: Option<CountRanking>,
}

/// An ordered set whose positions rank *every* value of its array's range
/// `lo ..= hi` by the number of entries holding it, most first (the
/// offsets of jagged segments, [`crate::order::JaggedSegments`]: JAD's
/// rows by decreasing length). The counts come from a `Scatter` over the
/// values; `object` is then a `Permutation(2, counting(bound + 1))` of the
/// values keyed by `bound - count` (a count is at most `bound`, the extent
/// of the other coordinate), inserted in increasing value, so that a
/// value's position is `P.map(v - lo)` and the value at position `x` is
/// `P.key(1, x) + lo`: a counting pass, `O(entries + values + bound)`.
pub(super) struct CountRanking {
    pub(super) counts: String,
    pub(super) lo: Expr,
    pub(super) bound: Expr,
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
        let ranked = crate::order::jagged_segments(&self.conv.dst).is_some_and(|j| j.offset == q);
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
        let (args, extent) = match (lo.clone(), hi.clone()) {
            (Some(lo), Some(hi)) if known(&lo) && known(&hi) => (
                vec![lo.to_string(), hi.to_string()],
                Some(hi.minus(&lo).plus(&Expr::constant(1))),
            ),
            _ => (Vec::new(), None),
        };
        let size = self.fresh(&format!("N{}", self.dst_tuple[q].to_uppercase()));
        let iterator = self.fresh(&self.dst_tuple[q].clone());
        let (object, ranking) = if ranked {
            let ranking = self.count_ranking(q, uf, c, lo.zip(hi).filter(|_| extent.is_some()))?;
            (self.fresh("R"), Some(ranking))
        } else {
            let object = self.fresh("S");
            self.comp.objects.push(RuntimeObject {
                name: object.clone(),
                kind: "OrderedSet".into(),
                args,
            });
            (object, None)
        };
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
                ranking,
            },
        );
        Ok(())
    }

    /// The [`CountRanking`] of the set at position `q` (filled by `c`,
    /// `uf`'s candidate), given its range `lo ..= hi`: its scatter, and the
    /// bound of a count, the extent of the one dense coordinate other than
    /// the set's value.
    fn count_ranking(
        &mut self,
        q: usize,
        uf: &str,
        c: &Candidate,
        range: Option<(Expr, Expr)>,
    ) -> Result<CountRanking, Refusal> {
        let refuse = |why: &str| {
            Refusal::about(
                Side::Destination,
                Construct::Uf(uf.to_string()),
                format!(
                    "position `{}` ranks the values of `{uf}` by their number of entries, and \
                     {why}",
                    self.dst_tuple[q]
                ),
            )
        };
        let (lo, hi) = range.ok_or_else(|| refuse("its range is not bounded by the symbols"))?;
        let value = c
            .value
            .as_var()
            .and_then(|v| self.value_position(q, v))
            .ok_or_else(|| refuse("its value is no coordinate"))?;
        let others: Vec<String> = (0..self.n_out)
            .filter(|&t| t != value && t != q)
            .filter_map(|t| self.dense_extent(t))
            .collect();
        let [bound] = others.as_slice() else {
            return Err(refuse(
                "a count is bounded by the extent of one other coordinate only",
            ));
        };
        let counts = self.fresh("C");
        let values = hi.minus(&lo).plus(&Expr::constant(1));
        self.comp.objects.push(RuntimeObject {
            name: counts.clone(),
            kind: "Scatter".into(),
            args: vec![values.to_string()],
        });
        Ok(CountRanking {
            counts,
            lo,
            bound: Expr::sym(bound.clone()),
        })
    }

    /// `f(d) = S.value(d)` over each ordered set's values: the index array
    /// the set gives (DIA's `off`).
    pub(super) fn set_value_statements(&mut self) {
        for (&q, set) in &self.sets {
            let x = ValueExpr::Index(Expr::var(Var::Tuple(0)));
            let value = match &set.ranking {
                // The value inserted at the position: its payload.
                Some(r) => {
                    let payload = call(&set.object, "key", vec![ValueExpr::Int(1), x]);
                    if r.lo == Expr::constant(0) {
                        payload
                    } else {
                        ValueExpr::Binary(
                            BinOp::Add,
                            Box::new(payload),
                            Box::new(ValueExpr::Index(r.lo.clone())),
                        )
                    }
                }
                None => call(&set.object, "value", vec![x]),
            };
            let body = update(
                Access {
                    space: set.uf.clone(),
                    index: vec![Expr::var(Var::Tuple(0))],
                },
                UpdateOp::Assign,
                value,
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
