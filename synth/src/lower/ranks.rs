//! How a destination position that no equality resolves is numbered: its
//! rank among the entries in the destination's order ([`PermMode`]), the
//! cheapest way that applies first: the source variable itself, its offset
//! within a group, Gustavson's scatter (a counted key, or a running count),
//! or a permutation sorted by the key, with distinct ranks when entries
//! share keys (BCSR's blocks). The z3 questions that choose among them are in
//! [`super::entry_pairs`].

use std::collections::{BTreeMap, BTreeSet};

use iegen::{Expr, Var};

use crate::order::{position_order, KeyComponent, PositionOrder};

use super::bounds::{definition, unit_range};
#[cfg(test)]
use super::faults;
use super::refusal::Refusal;
use super::Lowering;
use crate::descriptor::Construct;
use crate::synthesized::Side;

/// How the permutation of a position is realized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum PermMode {
    /// Insert, sort by the key, read positions in sorted order.
    Sorted,
    /// Insert in source order and read it back (no order required, or the
    /// source's order is the destination's).
    Unsorted,
    /// No object: the position is the source variable `var` minus `lo`.
    Direct { var: usize, lo: Expr, hi: Expr },
    /// No object, a rank within groups: the source's outer variable is the
    /// group and its inner variable runs over `lo(outer) .. hi(outer)` in
    /// the destination's order, so the rank is `inner - lo` (CSR -> ELL:
    /// `w = k - rowptr(ii)`, and the longest row is the largest `hi - lo`).
    Offset {
        outer: usize,
        inner: usize,
        lo: Expr,
        hi: Expr,
    },
    /// One counted key and the rest in source order: count the keys, then
    /// place each entry in a second pass over the source (Gustavson's
    /// algorithm; the `Scatter` runtime object, no per-entry storage).
    /// `scalar` holds the entry's position. The key has one component per
    /// extent, most significant first (a group of several positions, as a
    /// 2:4 format's row and block, is counted by its row-major linear
    /// index). Without a `key` (a source already in the destination's order
    /// that no single variable numbers: a padded source, CSR's two loops)
    /// one key `0` of extent 1: a running count.
    Streaming {
        extent: Vec<Expr>,
        scalar: String,
        key: Vec<Expr>,
    },
}

/// The permutation that gives one destination position: its runtime
/// object, the order it realizes, and how.
pub(super) struct Permutation {
    pub(super) object: String,
    pub(super) position: usize,
    pub(super) order: PositionOrder,
    pub(super) mode: PermMode,
    /// Source tuple variables carried as payload, in order.
    pub(super) payload: Vec<usize>,
    /// The temp scalar holding the number of entries.
    pub(super) size: String,
    /// How many leading key components the sort compares: the others the
    /// source's iteration order already provides.
    pub(super) compared: usize,
    /// Entries with equal keys share the position (BCSR's `kb` numbers
    /// blocks): the position is the key's *distinct* rank, `P.rank(p)`,
    /// and this temp scalar holds the number of distinct keys, `P.ranks()`.
    pub(super) distinct: Option<String>,
}

/// A position numbered by the permutation of a deeper one (CSF's fiber
/// `p1` under the entries' `p2`): the distinct rank of the first `len`
/// components of that permutation's key, `P.prefix_rank(len, p)`.
pub(super) struct PrefixRank {
    pub(super) len: usize,
}

impl Lowering<'_> {
    /// Plans the positions that need a permutation. One is planned alone.
    /// Several (nested compressed levels) share one permutation when their
    /// orders nest: each order, with every position it mentions replaced
    /// by that position's own order, is a prefix of the next, so one sort
    /// by the longest key gives the deepest position and each shallower
    /// one is the distinct rank of its prefix ([`PrefixRank`]).
    pub(super) fn plan_permutations(&mut self, positions: &[usize]) -> Result<(), Refusal> {
        match positions {
            [] => return Ok(()),
            [q] => return self.plan_permutation(*q),
            _ => {}
        }
        let mut orders = BTreeMap::new();
        for &q in positions {
            orders.insert(q, position_order(&self.conv.dst, q).map_err(order_refusal)?);
        }
        let refuse = |a: usize, b: usize, why: &str| {
            Refusal::about(
                Side::Destination,
                Construct::Map,
                format!(
                    "positions `{}` and `{}` both need a permutation, and {why}",
                    self.dst_tuple[a], self.dst_tuple[b]
                ),
            )
        };
        let mut expanded: Vec<(usize, Vec<KeyComponent>)> = Vec::new();
        for &q in positions {
            if !orders[&q].group.is_empty() {
                return Err(refuse(
                    positions[0],
                    positions[1],
                    "one is ranked within groups",
                ));
            }
            let key = expand_key(q, &orders, &mut Vec::new()).ok_or_else(|| {
                refuse(
                    positions[0],
                    positions[1],
                    "their orders refer to each other",
                )
            })?;
            expanded.push((q, key));
        }
        expanded.sort_by_key(|(_, key)| key.len());
        for w in expanded.windows(2) {
            let ((a, short), (b, long)) = (&w[0], &w[1]);
            if short.len() == long.len() || long[..short.len()] != short[..] {
                return Err(refuse(
                    *a,
                    *b,
                    "neither order is a prefix of the other's, so one sort cannot give both",
                ));
            }
        }
        let (deepest, key) = expanded.pop().expect("two or more");
        for (q, short) in expanded {
            self.prefix_ranks.insert(q, PrefixRank { len: short.len() });
        }
        let order = PositionOrder {
            position: deepest,
            group: Vec::new(),
            key,
        };
        self.plan_permutation_with(deepest, order, true)
    }

    /// The destination position whose value an ordered set at position
    /// `v` holds, when it is one (DCSR's `rowidx(p) = ii`: `ii`'s).
    fn set_value_position(&self, v: Var) -> Option<usize> {
        let Var::Tuple(q) = v else { return None };
        let value = self.sets.get(&q)?.value.as_var()?;
        self.value_position(q, value)
    }

    /// The destination position other than `q` that the composed
    /// relation's variable `value` is (a destination position itself, or
    /// the one a source variable resolves).
    pub(super) fn value_position(&self, q: usize, value: Var) -> Option<usize> {
        match value {
            Var::Tuple(t) if t >= self.n_in => Some(t - self.n_in),
            source => (0..self.n_out).find(|&r| {
                r != q && self.conv.resolved[r].as_ref().and_then(Expr::as_var) == Some(source)
            }),
        }
    }

    pub(super) fn plan_permutation(&mut self, q: usize) -> Result<(), Refusal> {
        let order = position_order(&self.conv.dst, q).map_err(order_refusal)?;
        self.plan_permutation_with(q, order, false)
    }

    /// Plans the permutation of position `q` in `order`; `sorted` asks for
    /// a sort by the whole key (shallower positions read their prefix
    /// ranks off it).
    fn plan_permutation_with(
        &mut self,
        q: usize,
        #[allow(unused_mut)] mut order: PositionOrder,
        sorted: bool,
    ) -> Result<(), Refusal> {
        #[cfg(test)]
        if faults::injected(faults::Fault::DropLastKeyComponent) && order.key.len() > 1 {
            order.key.pop();
        }
        // A key component that is an ordered set's position sorts as the
        // set's value, which its index rises with (DCSR's stored row `p` as
        // the row `ii`): the inserts then need not wait for the set, and
        // the key's extent is the value's.
        for k in &mut order.key {
            if let KeyComponent::Value(e) = k {
                if let Some(r) = e.as_var().and_then(|v| self.set_value_position(v)) {
                    *e = Expr::var(Var::Tuple(r));
                }
            }
        }
        // Likewise a group: the entries sharing a set's position are those
        // sharing its value (JAD's diagonal `d` is a rank within the row
        // `ii = perm(r)` of its rank `r`).
        for g in &mut order.group {
            if let Some(r) = self.set_value_position(Var::Tuple(*g)) {
                *g = r;
            }
        }
        let object = self.fresh("P");
        let size = self.fresh("NP");
        if sorted || self.keys_shared(&order) {
            // Sort by the whole key; with shared keys, number its distinct
            // values (a nested level's own sort needs no numbering: its
            // shallower levels read prefix ranks).
            let distinct =
                (!sorted).then(|| self.fresh(&format!("N{}", self.dst_tuple[q].to_uppercase())));
            self.perm = Some(Permutation {
                object,
                position: q,
                compared: order.key.len(),
                order,
                mode: PermMode::Sorted,
                payload: Vec::new(),
                size,
                distinct,
            });
            return Ok(());
        }
        // The key components the source's own order does not provide.
        let compared = self.compared_components(&order);
        let grouped = !order.group.is_empty();
        let streaming = match order.key.first() {
            // The source's order is the destination's and no single source
            // variable numbers the entries: a running count, no storage.
            _ if compared == 0 && !grouped && self.single_source_variable().is_none() => {
                Some((vec![Expr::constant(1)], Vec::new()))
            }
            // Counted by the group (the source's order gives the rest), or
            // by the one compared component.
            _ if grouped && compared <= order.group.len() => order
                .group
                .iter()
                .map(|&g| Some((self.position_extent(g)?, Expr::var(Var::Tuple(g)))))
                .collect::<Option<(Vec<_>, Vec<_>)>>(),
            Some(KeyComponent::Value(e)) if compared == 1 && !grouped => e
                .as_var()
                .and_then(|v| match v {
                    Var::Tuple(t) => self.dense_extent(t),
                    _ => None,
                })
                .map(|x| (vec![Expr::sym(x)], vec![e.clone()])),
            _ => None,
        };
        let offset = match (order.group.as_slice(), compared) {
            ([g], 0) => self.group_offsets(*g),
            _ => None,
        };
        let mode = if let Some(mode) = offset {
            mode
        } else if let (Some((extent, key)), true) = (streaming, self.allow_streaming) {
            // The placed position: the position itself, or (within groups)
            // the entry's slot in the grouped order.
            let base = if grouped {
                "pos".to_string()
            } else {
                self.dst_tuple[q].clone()
            };
            let scalar = self.fresh(&base);
            // Not needed when the scatter counts the groups themselves
            // (`ranks_by_slot`): ranks are slots, no position is placed.
            let counts_groups = counts_the_group(&key, &order.group);
            if !counts_groups {
                self.declare_scalar(&scalar);
            }
            PermMode::Streaming {
                extent,
                scalar,
                key,
            }
        } else if order.group.len() > 1 {
            // A rank within a group of several positions is the group's
            // slot in a scatter over the groups; the sort's `start` takes
            // one group position.
            return Err(Refusal::about(
                Side::Destination,
                Construct::Map,
                format!(
                    "position `{}` is a rank within groups of {} positions ({}), which only a \
                     scatter over the groups numbers, and no scatter applies here (every group \
                     position needs a bound over the symbols, and the source's order must give \
                     the rest of the order)",
                    self.dst_tuple[q],
                    order.group.len(),
                    order
                        .group
                        .iter()
                        .map(|&g| format!("`{}`", self.dst_tuple[g]))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        } else if grouped || compared > 0 {
            PermMode::Sorted
        } else if let Some((var, lo, hi)) = self.single_source_variable() {
            PermMode::Direct { var, lo, hi }
        } else {
            PermMode::Unsorted
        };
        self.perm = Some(Permutation {
            object,
            position: q,
            order,
            mode,
            payload: Vec::new(),
            size,
            compared: compared.max(1),
            distinct: None,
        });
        Ok(())
    }

    /// The source's one free tuple variable and its range `[lo, hi)`, when
    /// every other source variable is an expression of it.
    fn single_source_variable(&self) -> Option<(usize, Expr, Expr)> {
        if self.conv.src.padding {
            return None;
        }
        let conj = &self.source_domain.conjunctions()[0];
        let determined: BTreeSet<usize> = (0..self.n_in)
            .filter(|&i| definition(conj, i, self.n_in).is_some())
            .collect();
        let free: Vec<usize> = (0..self.n_in).filter(|i| !determined.contains(i)).collect();
        let [v] = free.as_slice() else { return None };
        let (lo, hi) = unit_range(conj, *v, &|rest| {
            let mut only_symbols = true;
            rest.for_each_var(&mut |_| only_symbols = false);
            rest.for_each_call(&mut |_, _| only_symbols = false);
            only_symbols
        })?;
        Some((*v, lo, hi))
    }

    /// [`PermMode::Offset`] for a group position `g`: the source (not
    /// padded) has two free variables, the outer one is `g`'s value, and
    /// the inner one ranges over `lo(outer) <= inner < hi(outer)`.
    fn group_offsets(&self, g: usize) -> Option<PermMode> {
        if self.conv.src.padding {
            return None;
        }
        let conj = &self.source_domain.conjunctions()[0];
        let n = self.n_in;
        let free: Vec<usize> = (0..n)
            .filter(|&i| definition(conj, i, n).is_none())
            .collect();
        let [outer, inner] = free.as_slice() else {
            return None;
        };
        let (outer, inner) = (*outer, *inner);
        if self.conv.resolved[g].as_ref().and_then(Expr::as_var) != Some(Var::Tuple(outer)) {
            return None;
        }
        let (lo, hi) = unit_range(conj, inner, &|rest| {
            let mut only_outer = true;
            rest.for_each_var(&mut |v| only_outer &= v == Var::Tuple(outer));
            only_outer
        })?;
        Some(PermMode::Offset {
            outer,
            inner,
            lo,
            hi,
        })
    }

    /// Whether a streaming scatter counts the destination's groups
    /// themselves (CSC -> ELL: `Scatter(NR)` over the rows, the position a
    /// slot within the row): an entry's rank in its group is then the
    /// group's next `slot`, and no global position is placed.
    pub(super) fn ranks_by_slot(&self) -> bool {
        let Some(perm) = &self.perm else {
            return false;
        };
        match &perm.mode {
            PermMode::Streaming { key, .. } => counts_the_group(key, &perm.order.group),
            _ => false,
        }
    }
}

/// Whether a scatter's `key` is the group's positions themselves, so that
/// it counts the groups (not with no group).
fn counts_the_group(key: &[Expr], group: &[usize]) -> bool {
    !group.is_empty()
        && key.len() == group.len()
        && key
            .iter()
            .zip(group)
            .all(|(k, &g)| k.as_var() == Some(Var::Tuple(g)))
}

/// `q`'s order key with every component that is another position with an
/// order replaced by that position's expanded key; `None` on a cycle.
fn expand_key(
    q: usize,
    orders: &BTreeMap<usize, PositionOrder>,
    seen: &mut Vec<usize>,
) -> Option<Vec<KeyComponent>> {
    if seen.contains(&q) {
        return None;
    }
    seen.push(q);
    let mut out = Vec::new();
    for k in &orders[&q].key {
        let inner = match k {
            KeyComponent::Value(e) => match e.as_var() {
                Some(Var::Tuple(r)) if r != q && orders.contains_key(&r) => Some(r),
                _ => None,
            },
            KeyComponent::Comparator { .. } => None,
        };
        match inner {
            Some(r) => out.extend(expand_key(r, orders, seen)?),
            None => out.push(k.clone()),
        }
    }
    seen.pop();
    Some(out)
}

/// An order the descriptor's rules do not give, about the rule when one is
/// named, else the map.
fn order_refusal(e: crate::order::OrderError) -> Refusal {
    let construct = e.rule.map_or(Construct::Map, Construct::Rule);
    Refusal::about(Side::Destination, construct, e.to_string())
}
