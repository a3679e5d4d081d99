//! Loop-carried and fused dependences between the statements of a PDFG,
//! decided with the [`Prover`].

use std::collections::{HashMap, HashSet};

use petgraph::graph::NodeIndex;

use crate::computation::{Computation, Role};
use crate::conjunction::Conjunction;
use crate::constraint::{Constraint, Normalized};
use crate::expr::{Expr, Var};
use crate::formula::Formula;
use crate::set::Set;
use crate::solver::{Prover, Verdict};

use super::loops::{Level, Step};
use super::uses::{first_touch, Use, UseKind};
use super::{CarriedDependence, DependenceEnds, FusedDependence, Info, Loop};

/// A binding (loop or `let`) shared by two statements: the positions of
/// its iterator in each statement's tuple, and the loop, if it is one.
struct Shared {
    writer_pos: usize,
    reader_pos: usize,
    loop_id: Option<usize>,
}

/// The bindings two statements share, outermost first, and whether the
/// writer comes first after them (in schedule order).
fn shared_levels(w: &[Level], r: &[Level], loop_of_key: &HashMap<Vec<Step>, usize>) -> Vec<Shared> {
    w.iter()
        .zip(r)
        .take_while(|(a, b)| a.key == b.key)
        .map(|(a, b)| Shared {
            writer_pos: a.pos,
            reader_pos: b.pos,
            loop_id: if a.is_loop {
                loop_of_key.get(&a.key).copied()
            } else {
                None
            },
        })
        .collect()
}

/// The dependences found: carried ones (by writer and reader node) and
/// fused ones.
pub(super) struct Found {
    pub carried: Vec<(NodeIndex, NodeIndex, CarriedDependence)>,
    pub fused: Vec<(NodeIndex, NodeIndex, FusedDependence)>,
}

/// The loop-carried dependences with the nodes of their writer and reader
/// (data space by data space, in declaration order, then writer, write,
/// reader, read, and loop, outermost first); and the fused ones: a write
/// and a read of one element by two statements in the same iteration of
/// the loops they share, the writer first.
pub(super) fn dependences(
    comp: &Computation,
    infos: &[Info<'_>],
    loops: &[Loop],
    loop_of_key: &HashMap<Vec<Step>, usize>,
    locals: &HashSet<&str>,
    prover: &Prover<'_>,
) -> Found {
    let mut found = Found {
        carried: Vec::new(),
        fused: Vec::new(),
    };
    let private = iteration_private(comp, infos, prover);
    for space in comp
        .spaces
        .iter()
        .filter(|d| !locals.contains(d.name.as_str()))
    {
        // The element accesses (not method calls) of this space.
        let accesses = |write: bool| {
            infos.iter().flat_map(move |info| {
                info.uses
                    .iter()
                    .filter(move |u| u.write == write && u.data == space.name)
                    .filter(|u| u.kind != UseKind::Call)
                    .filter_map(move |u| Some((info, u, u.index.as_deref()?)))
            })
        };
        for (w, wu, windex) in accesses(true) {
            for (r, ru, rindex) in accesses(false) {
                let shared = shared_levels(&w.nest.levels, &r.nest.levels, loop_of_key);
                let test = |upto: usize| DependenceTest {
                    writer: w,
                    reader: r,
                    windex,
                    rindex,
                    shared: &shared[..upto],
                };
                let carried = if private.contains(space.name.as_str()) {
                    0
                } else {
                    shared.len()
                };
                for (k, level) in shared.iter().enumerate().take(carried) {
                    let Some(l) = level.loop_id.and_then(|id| loops.get(id)) else {
                        continue;
                    };
                    if let Some(dep) = test(k + 1).carried(prover, &space.name, (wu, ru), l) {
                        found.carried.push((w.node, r.node, dep));
                    }
                }
                let innermost = shared.iter().rev().find_map(|s| s.loop_id);
                if let Some(l) = innermost.and_then(|id| loops.get(id)) {
                    if w.stmt.name != r.stmt.name && runs_first(w, r) {
                        if let Some(dep) =
                            test(shared.len()).fused(prover, &space.name, (wu, ru), l)
                        {
                            found.fused.push((w.node, r.node, dep));
                        }
                    }
                }
            }
        }
    }
    found
}

/// The scalars (temporaries without dimensions) that every statement
/// reading them finds written earlier in the same iteration: by itself
/// (its body writes the scalar before reading it, unguarded), or by a
/// statement in the same loops and `let`s that runs before it whenever it
/// runs (its domain contains the reader's, proved) and writes the scalar
/// first thing, unguarded. Each iteration has its own value of such a
/// scalar, so no dependence on it is carried by a loop; the fused
/// dependences show where its values flow.
fn iteration_private<'c>(
    comp: &'c Computation,
    infos: &[Info<'_>],
    prover: &Prover<'_>,
) -> HashSet<&'c str> {
    let writes_first = |i: &Info<'_>, name: &str| first_touch(&i.stmt.body, name) == Some(true);
    let covers = |w: &Info<'_>, r: &Info<'_>| {
        let same_levels = w.nest.levels.len() == r.nest.levels.len()
            && w.nest
                .levels
                .iter()
                .zip(&r.nest.levels)
                .all(|(a, b)| a.key == b.key && a.pos == b.pos);
        same_levels
            && w.stmt.domain.arity() == r.stmt.domain.arity()
            && runs_first(w, r)
            && prover
                .is_subset(&r.stmt.domain, &w.stmt.domain)
                .is_ok_and(|v| v == Verdict::Proved)
    };
    comp.spaces
        .iter()
        .filter(|d| d.role == Role::Temp && d.extents.is_empty())
        .filter(|d| {
            let name = d.name.as_str();
            infos.iter().all(|r| {
                let reads = r.uses.iter().filter(|u| u.data == name && !u.write);
                let in_domain = r
                    .uses
                    .iter()
                    .any(|u| u.data == name && u.kind == UseKind::Index { in_domain: true });
                reads.count() == 0
                    || (!in_domain && writes_first(r, name))
                    || infos.iter().any(|w| {
                        w.stmt.name != r.stmt.name && writes_first(w, name) && covers(w, r)
                    })
            })
        })
        .map(|d| d.name.as_str())
        .collect()
}

/// Whether `w` runs before `r` in an iteration of the loops they share:
/// its time tuple is lexicographically smaller after the shared prefix.
fn runs_first(w: &Info<'_>, r: &Info<'_>) -> bool {
    let steps =
        |i: &Info<'_>| -> Vec<Step> { i.dims.iter().map(|&d| super::loops::step(d)).collect() };
    steps(w) < steps(r)
}

/// How the iterations of the last shared binding relate in a dependence set.
#[derive(Clone, Copy)]
enum Order {
    WriteFirst,
    ReadFirst,
    Same,
}

/// One question about a write and a read of one data space.
struct DependenceTest<'a, 'c> {
    writer: &'a Info<'c>,
    reader: &'a Info<'c>,
    windex: &'a [Expr],
    rindex: &'a [Expr],
    shared: &'a [Shared],
}

impl DependenceTest<'_, '_> {
    /// The pairs `[Iw, Ir]` touching one element with the shared bindings
    /// before the last equal, and the last in `order`.
    fn pairs(&self, order: Order) -> Set {
        let wd = &self.writer.stmt.domain;
        let rd = &self.reader.stmt.domain;
        let (nw, nr) = (wd.arity(), rd.arity());
        let mut names: Vec<String> = (0..nw)
            .map(|p| super::tuple_name(&self.writer.iterators, p))
            .collect();
        names.extend((0..nr).map(|p| format!("{}'", super::tuple_name(&self.reader.iterators, p))));
        let reader_var = |p: usize| Var::Tuple(nw + p);
        let shift = |e: &Expr| {
            e.rename_vars(&mut |v| match v {
                Var::Tuple(p) => reader_var(p),
                other => other,
            })
        };
        let wvar = |p: usize| Expr::var(Var::Tuple(p));
        let rvar = |p: usize| Expr::var(reader_var(p));

        let mut linking: Vec<Normalized> = Vec::new();
        for (a, b) in self.windex.iter().zip(self.rindex) {
            linking.push(Constraint::equal(a, &shift(b)));
        }
        let Some((last, outer)) = self.shared.split_last() else {
            return Set::empty(nw + nr);
        };
        for l in outer {
            linking.push(Constraint::equal(&wvar(l.writer_pos), &rvar(l.reader_pos)));
        }
        let (wi, ri) = (wvar(last.writer_pos), rvar(last.reader_pos));
        linking.push(match order {
            Order::WriteFirst => Constraint::lt(&wi, &ri),
            Order::ReadFirst => Constraint::lt(&ri, &wi),
            Order::Same => Constraint::equal(&wi, &ri),
        });

        let mut conjunctions = Vec::new();
        for cw in wd.conjunctions() {
            for cr in rd.conjunctions() {
                let mut constraints = cw.embedded_constraints(&Var::Tuple, 0);
                constraints.extend(cr.embedded_constraints(&reader_var, cw.num_exists()));
                constraints.extend(linking.iter().cloned());
                let mut exists = cw.exist_names().to_vec();
                exists.extend(cr.exist_names().iter().cloned());
                if let Some(c) = Conjunction::from_parts(names.clone(), exists, constraints) {
                    conjunctions.push(c);
                }
            }
        }
        Set::from_formula(Formula::from_conjunctions(nw + nr, conjunctions))
    }

    /// The dependence carried by `carrier` (the last shared binding),
    /// unless the prover rules it out.
    fn carried(
        &self,
        prover: &Prover<'_>,
        space: &str,
        (wu, ru): (&Use, &Use),
        carrier: &Loop,
    ) -> Option<CarriedDependence> {
        let flow_set = self.pairs(Order::WriteFirst);
        let anti_set = self.pairs(Order::ReadFirst);
        let flow = prover.is_empty(&flow_set);
        let anti = prover.is_empty(&anti_set);
        if flow == Verdict::Proved && anti == Verdict::Proved {
            return None;
        }
        let verdict = if flow == Verdict::NotProved || anti == Verdict::NotProved {
            Verdict::NotProved
        } else {
            Verdict::Unknown
        };
        let pairs = match (flow, anti) {
            (Verdict::Proved, _) => anti_set,
            (_, Verdict::Proved) => flow_set,
            _ => flow_set.union(&anti_set).unwrap_or(flow_set),
        };
        Some(CarriedDependence {
            ends: self.ends(space, (wu, ru), carrier, verdict),
            flow: flow != Verdict::Proved,
            anti: anti != Verdict::Proved,
            pairs,
        })
    }

    /// The dependence within one iteration of every shared binding, unless
    /// the prover rules it out.
    fn fused(
        &self,
        prover: &Prover<'_>,
        space: &str,
        (wu, ru): (&Use, &Use),
        innermost: &Loop,
    ) -> Option<FusedDependence> {
        let set = self.pairs(Order::Same);
        let verdict = prover.is_empty(&set);
        (verdict != Verdict::Proved).then(|| FusedDependence {
            ends: self.ends(space, (wu, ru), innermost, verdict),
        })
    }

    fn ends(
        &self,
        space: &str,
        (wu, ru): (&Use, &Use),
        l: &Loop,
        verdict: Verdict,
    ) -> DependenceEnds {
        DependenceEnds {
            space: space.to_string(),
            writer: self.writer.stmt.name.clone(),
            reader: self.reader.stmt.name.clone(),
            write: wu.label.clone(),
            read: ru.label.clone(),
            loop_id: l.id,
            iterator: l.iterator.clone(),
            verdict,
        }
    }
}
