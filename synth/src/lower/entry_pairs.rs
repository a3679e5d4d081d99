//! What z3 proves, under a format's rules, about two entries at once: two
//! copies of the iteration space ([`second_copy`]) and a question per pair
//! ([`some_pair_may_differ`]). Whether entries with different coordinates
//! share a key (then the position is the key's distinct rank) or a
//! position, and how many leading key components a sort must compare
//! because the source's own order does not provide them.

use iegen::{Conjunction, Constraint, Expr, Formula, Prover, Set, Var};

use crate::order::{KeyComponent, PositionOrder};

use super::bounds::definition;
use super::Lowering;

impl Lowering<'_> {
    /// Whether two source entries with different dense coordinates can have
    /// equal keys (z3, under the source's rules): then the position numbers
    /// the distinct keys (BCSR's key `(floor(ii / 2), floor(jj / 2))` is
    /// shared by the four entries of a block), not the entries (CSR's key
    /// `(ii, jj)` identifies its entry).
    pub(super) fn keys_shared(&self, order: &PositionOrder) -> bool {
        if order.key.is_empty() || !order.group.is_empty() {
            return false;
        }
        // A position the destination gives each entry its own of (UCSR's
        // `k`, whose rule asks only for distinct columns within a row) is
        // ordered by the key, never shared: ranks of distinct keys would
        // put a row's entries on one position.
        if !self.entries_share_position(order.position) {
            return false;
        }
        let n = self.n_in;
        let mut comps = Vec::new();
        for k in &order.key {
            let KeyComponent::Value(e) = k else {
                return false;
            };
            let Some(e) = self.over_source(e) else {
                return false;
            };
            comps.push(e);
        }
        let dense: Vec<Expr> = (0..self.conv.dst.dense_arity())
            .filter_map(|d| {
                self.conv.resolved[self.n_out - self.conv.dst.dense_arity() + d].clone()
            })
            .collect();
        // Every coordinate a key component itself (CSR's `(ii, jj)`): the
        // key identifies its entry, no question for z3.
        if dense.iter().all(|d| comps.contains(d)) {
            return false;
        }
        let second = |e: &Expr| second_copy(e, n);
        let (names, mut cs) = self.two_source_points();
        cs.extend(comps.iter().map(|c| Constraint::equal(c, &second(c))));
        // Equal keys, and some dense coordinate differs. Not proven apart:
        // sharing is the safe answer (distinct ranks of distinct keys are
        // the ranks).
        let env = self.conv.src.env();
        let pairs: Vec<(Expr, Expr)> = dense.iter().map(|d| (d.clone(), second(d))).collect();
        some_pair_may_differ(&Prover::new(&env), &names, &cs, &pairs, 2 * n)
    }

    /// Whether two entries with different dense coordinates may have the
    /// same value at destination tuple position `q`, by the destination's
    /// own map and rules: BCSR's block number `kb`, shared by the entries
    /// of one block. `false` only when z3 proves that equal positions mean
    /// equal coordinates (CSR's or UCSR's `k`: a row's pointer range holds
    /// each entry once).
    fn entries_share_position(&self, q: usize) -> bool {
        let dst = &self.conv.dst;
        let [conj] = dst.map.conjunctions() else {
            return true;
        };
        if conj.num_exists() > 0 {
            return true;
        }
        let n_sparse = dst.map.in_arity();
        let arity = n_sparse + dst.map.out_arity();
        let mut names: Vec<String> = conj.tuple_names().iter().map(|x| format!("{x}1")).collect();
        names.extend(conj.tuple_names().iter().map(|x| format!("{x}2")));
        let mut both: Vec<iegen::constraint::Normalized> = conj
            .constraints()
            .flat_map(|c| {
                [
                    iegen::constraint::Normalized::Constraint(c.clone()),
                    c.map_expr(|e| second_copy(e, arity)),
                ]
            })
            .collect();
        let at = Expr::var(Var::Tuple(q));
        both.push(Constraint::equal(&at, &second_copy(&at, arity)));
        let env = dst.env();
        let pairs: Vec<(Expr, Expr)> = (n_sparse..arity)
            .map(|d| {
                let d1 = Expr::var(Var::Tuple(d));
                let d2 = second_copy(&d1, arity);
                (d1, d2)
            })
            .collect();
        some_pair_may_differ(&Prover::new(&env), &names, &both, &pairs, 2 * arity)
    }

    /// The smallest `j` such that a stable sort by the first `j` key
    /// components gives the whole key's order: for source entries `a`
    /// before `b` in the source's iteration order (lexicographic over its
    /// loop variables) with equal first `j` components, z3 proves the
    /// remaining components lexicographically at most `b`'s under the
    /// source's rules. CSR -> CSC sorts by column only (rows come in order);
    /// SCOO -> CSR by nothing.
    pub(super) fn compared_components(&self, order: &PositionOrder) -> usize {
        let m = order.key.len();
        if m == 0 {
            return 0;
        }
        let n = self.n_in;
        let conj = &self.source_domain.conjunctions()[0];
        let free: Vec<usize> = (0..n)
            .filter(|&i| definition(conj, i, n).is_none())
            .collect();
        // Each compared expression over the source tuple (`None`: unknown).
        let mut comps = Vec::new();
        for k in &order.key {
            let e = match k {
                KeyComponent::Value(e) => e.clone(),
                KeyComponent::Comparator { name, args } => {
                    // Trusted only when the source defines the same comparator.
                    if self.conv.src.comparator(name) != self.conv.dst.comparator(name) {
                        return m;
                    }
                    Expr::call(name.clone(), args.clone())
                }
            };
            let Some(e) = self.over_source(&e) else {
                return m;
            };
            comps.push(e);
        }
        let second = |e: &Expr| second_copy(e, n);
        let (names, both) = self.two_source_points();
        let env = self.conv.src.env();
        let prover = Prover::new(&env);
        // Sorting by all `m` components gives the order: only `j < m` asks z3.
        (0..m)
            .find(|&j| {
                // `a` before `b`, and equal on the first `j` components.
                let mut before = Vec::new();
                for l in 0..free.len() {
                    let mut cs = both.clone();
                    for &f in &free[..l] {
                        let (a, b) = (Expr::var(Var::Tuple(f)), Expr::var(Var::Tuple(n + f)));
                        cs.push(Constraint::equal(&a, &b));
                    }
                    let f = free[l];
                    let (a, b) = (Expr::var(Var::Tuple(f)), Expr::var(Var::Tuple(n + f)));
                    cs.push(Constraint::lt(&a, &b));
                    for c in &comps[..j] {
                        cs.push(Constraint::equal(c, &second(c)));
                    }
                    if let Some(c) = Conjunction::from_parts(names.clone(), Vec::new(), cs) {
                        before.push(c);
                    }
                }
                // The rest lexicographically at most.
                let mut at_most = Vec::new();
                for i in j..=m {
                    let mut cs: Vec<_> = comps[j..i]
                        .iter()
                        .map(|c| Constraint::equal(c, &second(c)))
                        .collect();
                    if i < m {
                        cs.push(Constraint::lt(&comps[i], &second(&comps[i])));
                    }
                    if let Some(c) = Conjunction::from_parts(names.clone(), Vec::new(), cs) {
                        at_most.push(c);
                    }
                }
                if before.is_empty() {
                    return true;
                }
                let a = Set::from_formula(Formula::from_conjunctions(2 * n, before));
                let b = Set::from_formula(Formula::from_conjunctions(2 * n, at_most));
                prover.is_subset(&a, &b).map(|v| v.holds()).unwrap_or(false)
            })
            .unwrap_or(m)
    }

    /// Two points of the source's iteration space, the second's variables
    /// shifted by the source's arity ([`second_copy`]): their names and
    /// constraints, for z3 questions about pairs of entries.
    fn two_source_points(&self) -> (Vec<String>, Vec<iegen::constraint::Normalized>) {
        let n = self.n_in;
        let conj = &self.source_domain.conjunctions()[0];
        let mut names: Vec<String> = self.src_tuple.iter().map(|x| format!("{x}1")).collect();
        names.extend(self.src_tuple.iter().map(|x| format!("{x}2")));
        let both = conj
            .constraints()
            .flat_map(|c| {
                [
                    iegen::constraint::Normalized::Constraint(c.clone()),
                    c.map_expr(|e| second_copy(e, n)),
                ]
            })
            .collect();
        (names, both)
    }
}

/// Whether two points (tuple `names`, of `arity` positions) satisfying
/// `base` may have some pair of `pairs` differ (one z3 query per direction
/// of each pair): `false` only when every such set is proven empty.
fn some_pair_may_differ<C: Clone + Into<iegen::constraint::Normalized>>(
    prover: &Prover<'_>,
    names: &[String],
    base: &[C],
    pairs: &[(Expr, Expr)],
    arity: usize,
) -> bool {
    pairs.iter().any(|(a, b)| {
        [Constraint::lt(a, b), Constraint::lt(b, a)]
            .into_iter()
            .any(|differ| {
                let all: Vec<iegen::constraint::Normalized> = base
                    .iter()
                    .cloned()
                    .map(Into::into)
                    .chain([differ])
                    .collect();
                Conjunction::from_parts(names.to_vec(), Vec::new(), all).is_some_and(|c| {
                    let set = Set::from_formula(Formula::from_conjunctions(arity, vec![c]));
                    !prover.is_empty(&set).holds()
                })
            })
    })
}

/// `e` over the second of two copies of an `n`-variable tuple.
fn second_copy(e: &Expr, n: usize) -> Expr {
    e.rename_vars(&mut |x| match x {
        Var::Tuple(i) => Var::Tuple(n + i),
        other => other,
    })
}
