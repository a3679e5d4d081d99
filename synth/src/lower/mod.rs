//! Lowering a [`Plan`] into an SPF [`Computation`]: the inspector that
//! computes the destination's index arrays and sizes, and the copy of the
//! values (dissertation Algorithms 2–4).
//!
//! Every statement runs in one of a few *iteration contexts*:
//!
//! - **source**: the source's sparse iteration space (`{[n, ii, jj] : 0 <= n
//!   < NNZ && ii = row(n) && jj = col(n)}`); destination coordinates are the
//!   expressions the composition resolved (`ii`, `jj`), a position given by
//!   an ordered set is looked up (`d = S.index(jj - ii)`);
//! - **sorted**: the positions `p` of the permutation `P` (the streaming map
//!   of Figure 4.5): the key components are read back with `P.key(c, p)`,
//!   and the source variables a statement needs travel with the key as a
//!   payload (`n = P.key(2, p)`), so the copy reads `A(n)`;
//! - **set**: the distinct values of an ordered set (`off(d) = S.value(d)`);
//! - **fix-up**: the domain of a monotone index array (Algorithm 3's
//!   `rowptr(i + 1) max= rowptr(i)`);
//! - **once**: a statement with no loop (`P.sort()`, `NNZ_out max= NP`).
//!
//! Statements are grouped into phases — inserts, sorts, sizes, index
//! arrays and the copy, fix-ups — and the statements of one phase that share
//! a context share its loop: read-reduction and producer–consumer fusion by
//! construction. A max-reduction of the loop variable itself over a range
//! (`NNZ_out max= p + 1` for `p` in `0..NP`) becomes one statement (`NNZ_out
//! max= NP`). A position needs no permutation at all when the source
//! iterates one variable over a range and its order provably (z3, under the
//! source's rules) already is the destination's (SCOO → CSR): the position
//! is that variable.
//!
//! Where each mechanism lives (the files of this module):
//!
//! - `mod.rs`: the entry point [`lower`], the `Lowering` state (the
//!   computation's data spaces and bindings, fresh names), the driver that
//!   queues every statement, and `Pending` statements;
//! - `contexts.rs`: where a statement iterates (`Ctx`) and the domain of
//!   each context;
//! - `phase.rs`: the named phases, in execution order;
//! - `schedule.rs`: pending statements grouped into loops by phase and
//!   context, with names and schedules;
//! - `ranks.rs`: how a position no equality resolves is numbered
//!   (`PermMode`: a source variable, an offset in a group, a scatter, or
//!   a sorted permutation);
//! - `entry_pairs.rs`: what z3 proves about two entries (shared keys, shared
//!   positions, the key components the source's order already provides);
//! - `ordered_sets.rs`: positions given by an ordered set of distinct values
//!   (DIA's `off`), or by values ranked by their number of entries (JAD's
//!   rows);
//! - `sort_keys.rs`: the permutation's sort order (counting, Morton,
//!   lexicographic), key extents, and where a coordinate sits in the key;
//! - `inserts.rs`: filling the runtime objects (inserts, sorts, sizes, the
//!   scatter's placing pass);
//! - `candidates.rs`: the statement of a chosen candidate;
//! - `reductions.rs`: `max=` candidates that become one statement or a
//!   `rise=`;
//! - `pointers.rs`: pointer arrays from prefix sums and Algorithm 3's
//!   fix-ups;
//! - `copy.rs`: the copy of the values (Algorithm 4);
//! - `translate.rs`: expressions over the composed relation rewritten for a
//!   context;
//! - `scalars.rs`: temp scalars and their reuse within a loop;
//! - `bounds.rs`: bounds and extents read off conjunctions.

use std::collections::{BTreeMap, BTreeSet};

use iegen::computation::{
    Access, Body, Computation, Condition, DataSpace, ElemType, Role, UpdateOp, ValueExpr,
};
use iegen::{Expr, Set};

use crate::candidate::{Candidate, SynthesisCase};
use crate::conversion::Conversion;
use crate::descriptor::Construct;
use crate::error::SynthError;
use crate::plan::{Plan, Step};
use crate::synthesized::{Binding, BindingKind, Side};

use self::bounds::box_extents;
use self::contexts::Ctx;
use self::ordered_sets::OrderedSet;
use self::ranks::Permutation;
use self::refusal::Refusal;
use self::scalars::Prologue;

mod bounds;
mod candidates;
mod contexts;
mod copy;
mod entry_pairs;
mod inserts;
mod ordered_sets;
mod phase;
mod pointers;
mod ranks;
mod reductions;
mod refusal;
mod scalars;
mod schedule;
mod sort_keys;
mod translate;

/// Lowers `plan` for `conv` into a computation and the bindings of its names.
///
/// # Errors
///
/// [`SynthError::Lowering`] when the plan needs something this lowering
/// does not provide (two permutations, a comparator that is not a Morton
/// interleaving, an index array whose domain is not a box from 0).
pub fn lower(conv: &Conversion, plan: &Plan) -> Result<(Computation, Vec<Binding>), SynthError> {
    // The message names the descriptor item it is about, with its line.
    let fail = |r: Refusal| SynthError::Lowering {
        src: conv.src.name.clone(),
        dst: conv.dst.name.clone(),
        message: match &r.at {
            Some((side, construct)) => {
                let d = match side {
                    Side::Source => &conv.src,
                    Side::Destination => &conv.dst,
                };
                format!("{} ({})", r.message, d.locate(construct))
            }
            None => r.message,
        },
    };
    // Positions defined through the destination's arrays are computed
    // from them (the plan orders the arrays first).
    let conv = &conv.with_defined_positions();
    // Gustavson's scatter where it applies; the sorted permutation otherwise.
    let mut l = Lowering::new(conv, true).map_err(fail)?;
    if l.lower(plan).is_ok() {
        return Ok((l.comp, l.bindings));
    }
    let mut l = Lowering::new(conv, false).map_err(fail)?;
    l.lower(plan).map_err(fail)?;
    Ok((l.comp, l.bindings))
}

/// A statement before names and schedules are given.
struct Pending {
    phase: u32,
    ctx: Ctx,
    /// Extra constraints on a `Once` statement's (empty) domain.
    guard: Vec<Expr>,
    body: Body,
}

/// One lowering of a conversion's plan: the computation being built, the
/// names it has taken, how its positions are given, and the statements
/// queued so far.
struct Lowering<'a> {
    conv: &'a Conversion,
    n_in: usize,
    n_out: usize,
    comp: Computation,
    bindings: Vec<Binding>,
    src_tuple: Vec<String>,
    dst_tuple: Vec<String>,
    source_domain: Set,
    perm: Option<Permutation>,
    sets: BTreeMap<usize, OrderedSet>,
    /// Positions numbered by a prefix of the permutation's key.
    prefix_ranks: BTreeMap<usize, self::ranks::PrefixRank>,
    pending: Vec<Pending>,
    taken: BTreeSet<String>,
    /// Temp scalars by meaning.
    scalars: BTreeMap<String, String>,
    sorted_iter: String,
    /// Whether the streaming scatter may be used.
    allow_streaming: bool,
    /// The iterator over a scatter's groups.
    group_iter: String,
    /// How many chosen candidates write each unknown.
    writers: BTreeMap<String, usize>,
    /// Arrays computed as profiles, whose prefix sums are queued.
    profiles: BTreeSet<String>,
    /// Profiles whose increments read ranked positions: they run once the
    /// objects are sorted, and what reads them after their prefix sums
    /// (`pointers::profile_statements`).
    late_profiles: BTreeSet<String>,
    /// Arrays computed by `min=` (initialized to their range's upper
    /// bound, fixed up from the last index down).
    minimized: BTreeSet<String>,
    /// Arrays given a start (`min=`'s, or `max=`'s from a lower bound
    /// other than 0).
    started: BTreeSet<String>,
}

impl<'a> Lowering<'a> {
    /// The computation's symbols and data spaces (the source's arrays in,
    /// the destination's out) with their bindings; `allow_streaming` lets
    /// positions be placed by a scatter.
    fn new(conv: &'a Conversion, allow_streaming: bool) -> Result<Self, Refusal> {
        let src = &conv.src;
        let dst = &conv.dst;
        let n_in = src.sparse_arity();
        let n_out = dst.sparse_arity();
        let src_tuple = src.map.conjunctions()[0].tuple_names()[..n_in].to_vec();
        let dst_tuple = dst.map.conjunctions()[0].tuple_names()[..n_out].to_vec();
        let source_domain = src.map.domain().simplify();
        if source_domain.conjunctions().len() != 1 {
            return Err(Refusal::about(
                Side::Source,
                Construct::Map,
                "the source's iteration space is not one conjunction",
            ));
        }
        let name = format!("{}_to_{}", src.name.to_lowercase(), dst.name.to_lowercase());
        let mut comp = Computation {
            name,
            symbols: src.symbols.clone(),
            spaces: Vec::new(),
            objects: Vec::new(),
            stmts: Vec::new(),
        };
        let mut bindings = Vec::new();
        for s in &src.symbols {
            bindings.push(binding(Side::Source, s, s, BindingKind::Symbol));
        }
        for u in &src.ufs {
            comp.spaces.push(DataSpace {
                name: u.name.clone(),
                elem: ElemType::Int,
                extents: box_extents(&u.domain).ok_or_else(|| {
                    Refusal::about(
                        Side::Source,
                        Construct::Uf(u.name.clone()),
                        format!("the domain of `{}` is not a box starting at 0", u.name),
                    )
                })?,
                role: Role::In,
            });
            bindings.push(binding(
                Side::Source,
                &u.name,
                &u.name,
                BindingKind::IndexArray,
            ));
        }
        comp.spaces.push(DataSpace {
            name: src.data_name.clone(),
            elem: ElemType::Real,
            extents: src.data_size.clone(),
            role: Role::In,
        });
        bindings.push(binding(
            Side::Source,
            &src.data_name,
            &src.data_name,
            BindingKind::Values,
        ));
        let original = |renamed: &str| -> String {
            conv.renames
                .iter()
                .find(|(_, new)| new.as_str() == renamed)
                .map(|(old, _)| old.clone())
                .unwrap_or_else(|| renamed.to_string())
        };
        for s in &conv.unknown_symbols {
            comp.spaces.push(DataSpace {
                name: s.clone(),
                elem: ElemType::Int,
                extents: Vec::new(),
                role: Role::Out,
            });
            bindings.push(binding(
                Side::Destination,
                &original(s),
                s,
                BindingKind::Symbol,
            ));
        }
        for u in &dst.ufs {
            comp.spaces.push(DataSpace {
                name: u.name.clone(),
                elem: ElemType::Int,
                extents: box_extents(&u.domain).ok_or_else(|| {
                    Refusal::about(
                        Side::Destination,
                        Construct::Uf(u.name.clone()),
                        format!(
                            "the domain of `{}` is not a box starting at 0",
                            original(&u.name)
                        ),
                    )
                })?,
                role: Role::Out,
            });
            bindings.push(binding(
                Side::Destination,
                &original(&u.name),
                &u.name,
                BindingKind::IndexArray,
            ));
        }
        comp.spaces.push(DataSpace {
            name: dst.data_name.clone(),
            elem: ElemType::Real,
            extents: dst.data_size.clone(),
            role: Role::Out,
        });
        bindings.push(binding(
            Side::Destination,
            &original(&dst.data_name),
            &dst.data_name,
            BindingKind::Values,
        ));
        let mut taken: BTreeSet<String> = comp.symbols.iter().cloned().collect();
        taken.extend(comp.spaces.iter().map(|d| d.name.clone()));
        taken.extend(src_tuple.iter().cloned());
        taken.extend(src.comparators.iter().map(|c| c.name.clone()));
        let mut l = Lowering {
            conv,
            n_in,
            n_out,
            comp,
            bindings,
            src_tuple,
            dst_tuple,
            source_domain,
            perm: None,
            sets: BTreeMap::new(),
            prefix_ranks: BTreeMap::new(),
            pending: Vec::new(),
            taken,
            scalars: BTreeMap::new(),
            sorted_iter: String::new(),
            allow_streaming,
            group_iter: String::new(),
            writers: BTreeMap::new(),
            profiles: BTreeSet::new(),
            late_profiles: BTreeSet::new(),
            minimized: BTreeSet::new(),
            started: BTreeSet::new(),
        };
        l.sorted_iter = l.fresh("p");
        l.group_iter = l.fresh("g");
        Ok(l)
    }

    /// A name no symbol, data space, object or iterator uses.
    fn fresh(&mut self, base: &str) -> String {
        let base: String = base.replace('\'', "_");
        let mut name = base.clone();
        let mut k = 2;
        while self.taken.contains(&name) {
            name = if k == 2 {
                format!("{base}_out")
            } else {
                format!("{base}_{k}")
            };
            k += 1;
        }
        self.taken.insert(name.clone());
        name
    }

    /// Plans the positions, then queues every statement: sizes, index
    /// arrays, the ordered sets' values, the copy, fix-ups and inserts.
    fn lower(&mut self, plan: &Plan) -> Result<(), Refusal> {
        // Positions: permutations and ordered sets.
        let mut unknown_steps = Vec::new();
        let mut permutations = Vec::new();
        for step in &plan.steps {
            match step {
                Step::Permutation { position } => permutations.push(*position),
                Step::Unknown { name, chosen } => {
                    for c in chosen {
                        if c.case == Some(SynthesisCase::InsertOrdered) {
                            self.plan_ordered_set(name, c)?;
                        } else {
                            unknown_steps.push(c.clone());
                        }
                    }
                }
            }
        }
        self.plan_permutations(&permutations)?;
        for q in 0..self.n_out {
            if self.conv.resolved[q].is_none()
                && self.perm.as_ref().is_none_or(|p| p.position != q)
                && !self.prefix_ranks.contains_key(&q)
                && !self.sets.contains_key(&q)
            {
                return Err(Refusal::about(
                    Side::Destination,
                    Construct::Map,
                    format!(
                        "no permutation or ordered set gives position `{}`",
                        self.dst_tuple[q]
                    ),
                ));
            }
        }
        for c in &unknown_steps {
            *self.writers.entry(c.unknown.clone()).or_default() += 1;
        }
        // Sizes first, then index arrays (a size must be known before the
        // arrays it sizes are allocated).
        let (symbols, mut ufs): (Vec<Candidate>, Vec<Candidate>) = unknown_steps
            .into_iter()
            .partition(|c| self.conv.unknown_symbols.contains(&c.unknown));
        // Profiles first: whether one is late decides where what reads it
        // goes (a size or an index array reading a late profile after its
        // prefix sums).
        ufs.sort_by_key(|c| c.case != Some(SynthesisCase::Profile));
        let profiles: BTreeSet<String> = ufs
            .iter()
            .filter(|c| c.case == Some(SynthesisCase::Profile))
            .map(|c| c.unknown.clone())
            .collect();
        let reads_profile = |c: &Candidate| c.reads_unknowns.iter().any(|r| profiles.contains(r));
        let (late_sizes, sizes): (Vec<&Candidate>, Vec<&Candidate>) =
            symbols.iter().partition(|c| reads_profile(c));
        for c in sizes {
            self.candidate_statement(c, phase::SIZES)?;
        }
        let mut fixups = BTreeSet::new();
        for c in &ufs {
            let reads_late = c.case != Some(SynthesisCase::Profile)
                && c.reads_unknowns
                    .iter()
                    .any(|r| self.late_profiles.contains(r));
            if reads_late {
                self.candidate_statement(c, phase::AFTER_FIXUP)?;
                continue;
            }
            if let Some(r) = c
                .reads_unknowns
                .iter()
                .find(|r| !self.conv.unknown_symbols.contains(r))
            {
                return Err(Refusal::about(
                    Side::Destination,
                    Construct::Uf(c.unknown.clone()),
                    format!(
                        "`{}` would be computed from `{r}`, another index array being computed",
                        c.unknown
                    ),
                ));
            }
            if self.candidate_statement(c, phase::ARRAYS)? {
                fixups.insert(c.unknown.clone());
            }
        }
        for c in late_sizes {
            let late = c
                .reads_unknowns
                .iter()
                .any(|r| self.late_profiles.contains(r));
            let at = if late {
                phase::SIZES_AFTER_FIXUP
            } else {
                phase::SIZES
            };
            self.candidate_statement(c, at)?;
        }
        self.set_value_statements();
        let read_late: BTreeSet<String> = fixups.union(&self.late_profiles).cloned().collect();
        self.copy_statement(&read_late)?;
        for f in fixups {
            self.fixup_statement(&f)?;
        }
        self.insert_statements()?;
        self.finish()
    }

    fn push(&mut self, phase: u32, ctx: Ctx, pro: Prologue, body: Body) {
        let mut body = body;
        if !pro.is_empty() {
            let mut seq: Vec<Body> = pro
                .into_iter()
                .map(|(name, v)| {
                    update(
                        Access {
                            space: name,
                            index: Vec::new(),
                        },
                        UpdateOp::Assign,
                        v,
                    )
                })
                .collect();
            seq.push(body);
            body = Body::Seq(seq);
        }
        if matches!(ctx, Ctx::Source | Ctx::Placed) && self.conv.src.padding {
            body = self.nonzero_guard(body);
        }
        self.pending.push(Pending {
            phase,
            ctx,
            guard: Vec::new(),
            body,
        });
    }

    /// `if (A(src) != 0.0) body`: padding slots hold zeros, and a stored
    /// zero of a padded format is not an entry.
    fn nonzero_guard(&self, body: Body) -> Body {
        let index = self.conv.src.data_index().unwrap_or_default();
        Body::If {
            conditions: vec![Condition {
                lhs: ValueExpr::Read(Access {
                    space: self.conv.src.data_name.clone(),
                    index,
                }),
                op: "!=",
                rhs: ValueExpr::Real(0.0),
            }],
            then: Box::new(body),
        }
    }
}

fn binding(side: Side, name: &str, ir: &str, kind: BindingKind) -> Binding {
    Binding {
        side,
        name: name.to_string(),
        ir_name: ir.to_string(),
        kind,
    }
}

fn update(target: Access, op: UpdateOp, value: ValueExpr) -> Body {
    Body::Update { target, op, value }
}

fn call(object: &str, method: &str, args: Vec<ValueExpr>) -> ValueExpr {
    ValueExpr::Call {
        object: object.to_string(),
        method: method.to_string(),
        args,
    }
}

#[cfg(test)]
pub(crate) mod faults;

#[cfg(test)]
mod tests;
