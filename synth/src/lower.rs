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

use std::collections::{BTreeMap, BTreeSet};

use iegen::computation::{
    schedule_relation, Access, BinOp, Body, Computation, Condition, DataSpace, ElemType, Role,
    RuntimeObject, ScheduleDim, Stmt, UpdateOp, ValueExpr,
};
use iegen::{Atom, Conjunction, Constraint, Expr, Formula, Monotonicity, Prover, Set, Var};

use crate::candidate::{Candidate, Relation as CandRelation, SynthesisCase};
use crate::conversion::Conversion;
use crate::descriptor::KeyExpr;
use crate::error::SynthError;
use crate::order::{position_order, KeyComponent, PositionOrder};
use crate::plan::{Plan, Step};
use crate::synthesized::{Binding, BindingKind, Side};

/// Lowers `plan` for `conv` into a computation and the bindings of its names.
///
/// # Errors
///
/// [`SynthError::Lowering`] when the plan needs something this lowering
/// does not provide (two permutations, a comparator that is not a Morton
/// interleaving, an index array whose domain is not a box from 0).
pub fn lower(conv: &Conversion, plan: &Plan) -> Result<(Computation, Vec<Binding>), SynthError> {
    let fail = |message: String| SynthError::Lowering {
        src: conv.src.name.clone(),
        dst: conv.dst.name.clone(),
        message,
    };
    // Gustavson's scatter where it applies; the sorted permutation otherwise.
    let mut l = Lowering::new(conv, true).map_err(fail)?;
    if l.lower(plan).is_ok() {
        return Ok((l.comp, l.bindings));
    }
    let mut l = Lowering::new(conv, false).map_err(fail)?;
    l.lower(plan).map_err(fail)?;
    Ok((l.comp, l.bindings))
}

/// Where a statement iterates.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ctx {
    /// No loop.
    Once,
    /// The source's sparse iteration space.
    Source,
    /// The permutation's positions.
    Sorted,
    /// A second pass over the source, each entry placed by a scatter.
    Placed,
    /// The groups `0 <= g < E` of a scatter's key (E, a dense extent).
    Groups(String),
    /// The distinct values of the ordered set of a destination position.
    Set(usize),
    /// The fix-up domain of a monotone index array.
    Fixup(String),
}

/// The phases of a conversion, in execution order; the statements of one
/// phase that share a context share a loop.
mod phase {
    /// Inserts into runtime objects over the source (and reservations);
    /// their sorts and sizes come in the next phase.
    pub const INSERT: u32 = 0;
    /// Inserts whose keys read an ordered set's index, a second pass after
    /// the sets' sorts; their sorts, sizes and ranks come in the next phase.
    pub const INSERT_AFTER_SETS: u32 = 2;
    /// Destination sizes.
    pub const SIZES: u32 = 4;
    /// Index arrays, the placing pass and the copy.
    pub const ARRAYS: u32 = 6;
    /// Fix-ups of monotone index arrays.
    pub const FIXUP: u32 = 7;
    /// A copy that reads a fixed-up array.
    pub const AFTER_FIXUP: u32 = 8;
}

/// A statement before names and schedules are given.
struct Pending {
    phase: u32,
    ctx: Ctx,
    /// Extra constraints on a `Once` statement's (empty) domain.
    guard: Vec<Expr>,
    body: Body,
}

/// How the permutation of a position is realized.
#[derive(Clone, Debug, PartialEq, Eq)]
enum PermMode {
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
    /// One counted key component and the rest in source order: count the
    /// keys, then place each entry in a second pass over the source
    /// (Gustavson's algorithm; the `Scatter` runtime object, no per-entry
    /// storage). `scalar` holds the entry's position. Without a `key` (a
    /// source already in the destination's order that no single variable
    /// numbers: a padded source, CSR's two loops) one key `0` of extent 1:
    /// a running count.
    Streaming {
        extent: String,
        scalar: String,
        key: Option<Expr>,
    },
}

struct Permutation {
    object: String,
    position: usize,
    order: PositionOrder,
    mode: PermMode,
    /// Source tuple variables carried as payload, in order.
    payload: Vec<usize>,
    /// The temp scalar holding the number of entries.
    size: String,
    /// How many leading key components the sort compares: the others the
    /// source's iteration order already provides.
    compared: usize,
    /// Entries with equal keys share the position (BCSR's `kb` numbers
    /// blocks): the position is the key's *distinct* rank, `P.rank(p)`,
    /// and this temp scalar holds the number of distinct keys, `P.ranks()`.
    distinct: Option<String>,
}

struct OrderedSet {
    object: String,
    uf: String,
    /// The inserted value, over the composed relation's variables.
    value: Expr,
    size: String,
    iterator: String,
}

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
}

/// Scalar assignments a statement's body starts with.
type Prologue = Vec<(String, ValueExpr)>;

impl<'a> Lowering<'a> {
    fn new(conv: &'a Conversion, allow_streaming: bool) -> Result<Self, String> {
        let src = &conv.src;
        let dst = &conv.dst;
        let n_in = src.sparse_arity();
        let n_out = dst.sparse_arity();
        let src_tuple = src.map.conjunctions()[0].tuple_names()[..n_in].to_vec();
        let dst_tuple = dst.map.conjunctions()[0].tuple_names()[..n_out].to_vec();
        let source_domain = src.map.domain().simplify();
        if source_domain.conjunctions().len() != 1 {
            return Err("the source's iteration space is not one conjunction".into());
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
                    format!("the domain of `{}` is not a box starting at 0", u.name)
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
                    format!(
                        "the domain of `{}` is not a box starting at 0",
                        original(&u.name)
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
            pending: Vec::new(),
            taken,
            scalars: BTreeMap::new(),
            sorted_iter: String::new(),
            allow_streaming,
            group_iter: String::new(),
            writers: BTreeMap::new(),
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

    /// The temp `int` scalar standing for `meaning`, declared on first use.
    fn scalar(&mut self, meaning: &str, base: &str) -> String {
        if let Some(s) = self.scalars.get(meaning) {
            return s.clone();
        }
        let name = self.fresh(base);
        self.declare_scalar(&name);
        self.scalars.insert(meaning.to_string(), name.clone());
        name
    }

    fn lower(&mut self, plan: &Plan) -> Result<(), String> {
        // Positions: permutations and ordered sets.
        let mut unknown_steps = Vec::new();
        for step in &plan.steps {
            match step {
                Step::Permutation { position } => {
                    let q = *position;
                    if let Some(first) = &self.perm {
                        return Err(format!(
                            "positions `{}` and `{}` both need a permutation; one is supported",
                            self.dst_tuple[first.position], self.dst_tuple[q]
                        ));
                    }
                    self.plan_permutation(q)?;
                }
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
        for q in 0..self.n_out {
            if self.conv.resolved[q].is_none()
                && self.perm.as_ref().is_none_or(|p| p.position != q)
                && !self.sets.contains_key(&q)
            {
                return Err(format!(
                    "no permutation or ordered set gives position `{}`",
                    self.dst_tuple[q]
                ));
            }
        }
        for c in &unknown_steps {
            *self.writers.entry(c.unknown.clone()).or_default() += 1;
        }
        // Sizes first, then index arrays (a size must be known before the
        // arrays it sizes are allocated).
        let (symbols, ufs): (Vec<Candidate>, Vec<Candidate>) = unknown_steps
            .into_iter()
            .partition(|c| self.conv.unknown_symbols.contains(&c.unknown));
        for c in &symbols {
            self.candidate_statement(c, phase::SIZES)?;
        }
        let mut fixups = BTreeSet::new();
        for c in &ufs {
            if let Some(r) = c
                .reads_unknowns
                .iter()
                .find(|r| !self.conv.unknown_symbols.contains(r))
            {
                return Err(format!(
                    "`{}` would be computed from `{r}`, another index array being computed",
                    c.unknown
                ));
            }
            if self.candidate_statement(c, phase::ARRAYS)? {
                fixups.insert(c.unknown.clone());
            }
        }
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
        self.copy_statement(&fixups)?;
        for f in fixups {
            self.fixup_statement(&f)?;
        }
        self.insert_statements()?;
        self.finish()
    }

    fn plan_permutation(&mut self, q: usize) -> Result<(), String> {
        #[allow(unused_mut)]
        let mut order = position_order(&self.conv.dst, q).map_err(|e| e.to_string())?;
        #[cfg(test)]
        if faults::injected(faults::Fault::DropLastKeyComponent) && order.key.len() > 1 {
            order.key.pop();
        }
        let object = self.fresh("P");
        let size = self.fresh("NP");
        if self.keys_shared(&order) {
            // Distinct ranks: sort by the whole key, number its distinct values.
            let ranks = self.fresh(&format!("N{}", self.dst_tuple[q].to_uppercase()));
            self.perm = Some(Permutation {
                object,
                position: q,
                compared: order.key.len(),
                order,
                mode: PermMode::Sorted,
                payload: Vec::new(),
                size,
                distinct: Some(ranks),
            });
            return Ok(());
        }
        // The key components the source's own order does not provide.
        let compared = self.compared_components(&order);
        let streaming = match order.key.first() {
            // The source's order is the destination's and no single source
            // variable numbers the entries: a running count, no storage.
            _ if compared == 0
                && order.group.is_none()
                && self.single_source_variable().is_none() =>
            {
                Some(("1".to_string(), None))
            }
            Some(KeyComponent::Value(e))
                if (compared == 1 && order.group.is_none())
                    || (order.group.is_some() && compared <= 1) =>
            {
                e.as_var()
                    .and_then(|v| match v {
                        Var::Tuple(t) => self.dense_extent(t),
                        _ => None,
                    })
                    .map(|x| (x, Some(e.clone())))
            }
            _ => None,
        };
        let offset = match (order.group, compared) {
            (Some(g), 0) => self.group_offsets(g),
            _ => None,
        };
        let mode = if let Some(mode) = offset {
            mode
        } else if let (Some((extent, key)), true) = (streaming, self.allow_streaming) {
            // The placed position: the position itself, or (within groups)
            // the entry's slot in the grouped order.
            let base = if order.group.is_some() {
                "pos".to_string()
            } else {
                self.dst_tuple[q].clone()
            };
            let scalar = self.fresh(&base);
            // Not needed when the scatter counts the groups themselves
            // (`ranks_by_slot`): ranks are slots, no position is placed.
            let counts_groups = matches!((order.group, &key), (Some(g), Some(k))
                if k.as_var() == Some(Var::Tuple(g)));
            if !counts_groups {
                self.declare_scalar(&scalar);
            }
            PermMode::Streaming {
                extent,
                scalar,
                key,
            }
        } else if order.group.is_some() || compared > 0 {
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

    fn plan_ordered_set(&mut self, uf: &str, c: &Candidate) -> Result<(), String> {
        let q = match c.args.as_slice() {
            [a] => match a.as_var() {
                Some(Var::Tuple(t)) if t >= self.n_in => t - self.n_in,
                _ => return Err(format!("`{uf}` is inserted at `{a}`, not at a position")),
            },
            _ => {
                return Err(format!(
                    "`{uf}` takes several arguments; an ordered set gives one"
                ))
            }
        };
        let decl = self
            .conv
            .dst
            .uf(uf)
            .ok_or_else(|| format!("`{uf}` is not an index array"))?;
        if !decl.monotonicity.contains(&Monotonicity::Increasing) {
            return Err(format!(
                "`{uf}` is not declared `increasing`; an ordered set of distinct values needs it"
            ));
        }
        let (lo, hi) = range_bounds(&decl.range);
        let known = |e: &Expr| {
            let mut ok = true;
            e.for_each_sym(&mut |s| ok &= self.conv.src.symbols.iter().any(|x| x == s));
            ok
        };
        let args = match (lo, hi) {
            (Some(lo), Some(hi)) if known(&lo) && known(&hi) => {
                vec![lo.to_string(), hi.to_string()]
            }
            _ => Vec::new(),
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
            },
        );
        Ok(())
    }

    fn declare_scalar(&mut self, name: &str) {
        self.comp.spaces.push(DataSpace {
            name: name.to_string(),
            elem: ElemType::Int,
            extents: Vec::new(),
            role: Role::Temp,
        });
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

    /// Whether two source entries with different dense coordinates can have
    /// equal keys (z3, under the source's rules): then the position numbers
    /// the distinct keys (BCSR's key `(floor(ii / 2), floor(jj / 2))` is
    /// shared by the four entries of a block), not the entries (CSR's key
    /// `(ii, jj)` identifies its entry).
    fn keys_shared(&self, order: &PositionOrder) -> bool {
        if order.key.is_empty() || order.group.is_some() {
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

    /// The smallest `j` such that a stable sort by the first `j` key
    /// components gives the whole key's order: for source entries `a`
    /// before `b` in the source's iteration order (lexicographic over its
    /// loop variables) with equal first `j` components, z3 proves the
    /// remaining components lexicographically at most `b`'s under the
    /// source's rules. CSR -> CSC sorts by column only (rows come in order);
    /// SCOO -> CSR by nothing.
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

    fn compared_components(&self, order: &PositionOrder) -> usize {
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

    /// The context a candidate's statement runs in.
    fn context_of(&self, exprs: &[&Expr]) -> Ctx {
        let mut uses_perm = false;
        let mut only_set = None;
        let mut other = false;
        for e in exprs {
            e.for_each_var(&mut |v| match v {
                Var::Tuple(t) if t >= self.n_in => {
                    let q = t - self.n_in;
                    if self.perm.as_ref().is_some_and(|p| p.position == q) {
                        uses_perm = true;
                    } else if self.sets.contains_key(&q) {
                        only_set = Some(q);
                    } else {
                        other = true;
                    }
                }
                _ => other = true,
            });
        }
        let direct = self
            .perm
            .as_ref()
            .is_some_and(|p| matches!(p.mode, PermMode::Direct { .. } | PermMode::Offset { .. }));
        let streaming = self
            .perm
            .as_ref()
            .is_some_and(|p| matches!(p.mode, PermMode::Streaming { .. }));
        if uses_perm && streaming {
            Ctx::Placed
        } else if uses_perm && !direct {
            Ctx::Sorted
        } else if let (Some(q), false, false) = (only_set, other, uses_perm) {
            Ctx::Set(q)
        } else {
            Ctx::Source
        }
    }

    /// `f(args) op value` for one candidate.
    /// Returns whether the statement leaves a monotone array to fix up
    /// (a `max=` at the entries' rows, not at every row).
    fn candidate_statement(&mut self, c: &Candidate, phase: u32) -> Result<bool, String> {
        let mut all: Vec<&Expr> = c.args.iter().collect();
        all.push(&c.value);
        let ctx = self.context_of(&all);
        let op = match c.relation {
            CandRelation::Eq => UpdateOp::Assign,
            CandRelation::Ge => UpdateOp::Max,
            CandRelation::Le => {
                return Err(format!(
                "`{}` would be computed by `min=`, which needs an initialization not implemented",
                c.unknown
            ))
            }
        };
        // A pointer array over the sort's or the scatter's key: its prefix sums.
        if let Some((extent, body)) = self.pointers_from_order(c) {
            self.pending.push(Pending {
                phase,
                ctx: Ctx::Groups(extent),
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
        Ok(op == UpdateOp::Max)
    }

    /// Whether `value` strictly increases in the order `ctx` visits its
    /// instances: the sorted position `p` plus a constant, or the direct
    /// source variable (the only free one) plus a constant.
    fn increases_along(&self, ctx: &Ctx, value: &Expr) -> bool {
        let var = match (ctx, self.perm.as_ref().map(|p| &p.mode)) {
            (Ctx::Sorted, Some(_)) => 0,
            (Ctx::Source, Some(PermMode::Direct { var, .. })) => *var,
            _ => return false,
        };
        let mut rest = value.clone();
        rest.add_term(Atom::Var(Var::Tuple(var)), -1);
        value.coefficient_of_var(Var::Tuple(var)) == 1 && rest.is_constant()
    }

    /// `f(key + 1) max= q + 1` with `q` the position a scatter places or a
    /// counting sort sorts by `key`, and `f` nondecreasing (CSR's `rowptr`,
    /// CSC's `colptr`): `f(g + 1) = P.start(g + 1)` over the keys `g` — the
    /// prefix sums the object already has, with no per-entry update and no
    /// fix-up (`f(0)` stays 0). Read off the candidate before translation.
    fn pointers_from_order(&self, c: &Candidate) -> Option<(String, Body)> {
        let perm = self.perm.as_ref()?;
        if perm.order.group.is_some() || perm.distinct.is_some() {
            return None;
        }
        let KeyComponent::Value(key) = perm.order.key.first()? else {
            return None;
        };
        let extent = match &perm.mode {
            PermMode::Streaming {
                extent,
                key: Some(_),
                ..
            } => extent.clone(),
            PermMode::Sorted => match key.as_var()? {
                Var::Tuple(t) => self.dense_extent(t)?,
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
        if c.args != [key.plus(&one)] || c.value != position.plus(&one) {
            return None;
        }
        let next = Expr::var(Var::Tuple(0)).plus(&one);
        let body = update(
            Access {
                space: c.unknown.clone(),
                index: vec![next.clone()],
            },
            UpdateOp::Assign,
            call(&perm.object, "start", vec![ValueExpr::Index(next)]),
        );
        Some((extent, body))
    }

    /// For `value = w + c` with `w` a placed entry's rank within its group
    /// (ELL's slot): over the groups `g` (context `Groups`), `start(g + 1) -
    /// start(g) - 1 + c`, the largest rank plus `c` (`W max= w + 1` is the
    /// longest row).
    fn reduction_over_groups(&self, ctx: &Ctx, value: &Expr) -> Option<(String, ValueExpr)> {
        let perm = self.perm.as_ref()?;
        if let (
            Ctx::Source,
            Some(g),
            PermMode::Offset {
                outer,
                inner,
                lo,
                hi,
            },
        ) = (ctx, perm.order.group, &perm.mode)
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
            return Some((self.dense_extent(g)?, ValueExpr::Index(longest)));
        }
        let (Ctx::Placed, Some(_), PermMode::Streaming { extent, .. }) =
            (ctx, perm.order.group, &perm.mode)
        else {
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
    fn reduction_of_range(&self, ctx: &Ctx, value: &Expr) -> Option<(Expr, Expr)> {
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

    /// `A_out(dst index) = A(src index)` (Algorithm 4).
    fn copy_statement(&mut self, fixups: &BTreeSet<String>) -> Result<(), String> {
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

    /// Algorithm 3: `f(x + 1) max= f(x)` in increasing `x`, so that a
    /// nondecreasing pointer array computed by `max=` at the entries' rows
    /// also holds at the rows without entries.
    fn fixup_statement(&mut self, f: &str) -> Result<(), String> {
        let decl = self
            .conv
            .dst
            .uf(f)
            .ok_or_else(|| format!("`{f}` is not an index array"))?;
        if !decl.monotonicity.contains(&Monotonicity::Nondecreasing) {
            return Ok(());
        }
        let x = Expr::var(Var::Tuple(0));
        let body = update(
            Access {
                space: f.to_string(),
                index: vec![x.plus(&Expr::constant(1))],
            },
            UpdateOp::Max,
            ValueExpr::Read(Access {
                space: f.to_string(),
                index: vec![x],
            }),
        );
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

    /// The inserts into the permutation and the ordered sets, their sorts
    /// and sizes (phases 0 and 1).
    fn insert_statements(&mut self) -> Result<(), String> {
        let mut sets: Vec<(usize, String, Expr, String)> = self
            .sets
            .iter()
            .map(|(&q, s)| (q, s.object.clone(), s.value.clone(), s.size.clone()))
            .collect();
        for (_, object, value, size) in sets.drain(..) {
            let mut pro = Prologue::new();
            let v = self.translate(&value, &Ctx::Source, &mut pro)?;
            self.fill_object(
                &object,
                &size,
                vec![ValueExpr::Index(v)],
                pro,
                true,
                phase::INSERT,
            );
        }
        let Some(perm) = &self.perm else {
            return Ok(());
        };
        if matches!(perm.mode, PermMode::Direct { .. } | PermMode::Offset { .. }) {
            return Ok(());
        }
        if let PermMode::Streaming {
            extent,
            scalar,
            key,
        } = &perm.mode
        {
            let (object, size) = (perm.object.clone(), perm.size.clone());
            let (extent, scalar) = (extent.clone(), scalar.clone());
            // The one counted component (none: one key, a running count).
            let key = key.clone().unwrap_or_else(|| Expr::constant(0));
            let key = self.over_relation(&key);
            let mut pro = Prologue::new();
            let v = self.translate(&key, &Ctx::Source, &mut pro)?;
            if !pro.is_empty() {
                return Err("the scatter's key needs scalars".into());
            }
            self.comp.objects.push(RuntimeObject {
                name: object.clone(),
                kind: "Scatter".into(),
                args: vec![extent],
            });
            self.declare_scalar(&size);
            self.fill_object(
                &object,
                &size,
                vec![ValueExpr::Index(v.clone())],
                pro,
                true,
                phase::INSERT,
            );
            // Each entry's position (or, when the scatter counts the
            // groups, its slot in its group), first in the second pass.
            // The placing pass runs over the entries the counting pass
            // inserted (both over the source's domain, under the same
            // nonzero guard when the source is padded), with the same key:
            // no key is placed (given a slot) more often than it was
            // inserted, which `place_inserted` (`slot_inserted`) states,
            // so that the compiled runtimes need not check it (the
            // interpreter does).
            let (target, method) = if self.ranks_by_slot() {
                let q = self.perm.as_ref().expect("a scatter").position;
                let rank = self.scalar(&format!("rank {q}"), &self.dst_tuple[q].clone());
                (rank, "slot_inserted")
            } else {
                (scalar, "place_inserted")
            };
            let mut place = update(
                Access {
                    space: target,
                    index: Vec::new(),
                },
                UpdateOp::Assign,
                call(&object, method, vec![ValueExpr::Index(v)]),
            );
            if self.conv.src.padding {
                place = self.nonzero_guard(place);
            }
            self.pending.insert(
                0,
                Pending {
                    phase: phase::ARRAYS,
                    ctx: Ctx::Placed,
                    guard: Vec::new(),
                    body: place,
                },
            );
            return Ok(());
        }
        let (object, size, mode, payload) = (
            perm.object.clone(),
            perm.size.clone(),
            perm.mode.clone(),
            perm.payload.clone(),
        );
        let key = perm.order.key.clone();
        let compared = perm.compared;
        let order_arg = self.sort_order(&key[..compared.min(key.len())], &mode)?;
        let mut values = Vec::new();
        let mut pro = Prologue::new();
        for k in &key {
            let exprs = match k {
                KeyComponent::Value(e) => vec![e.clone()],
                KeyComponent::Comparator { args, .. } => args.clone(),
            };
            for e in exprs {
                let e = self.over_relation(&e);
                values.push(ValueExpr::Index(self.translate(
                    &e,
                    &Ctx::Source,
                    &mut pro,
                )?));
            }
        }
        for &i in &payload {
            values.push(ValueExpr::Index(Expr::var(Var::Tuple(i))));
        }
        let k_total = values.len().max(1);
        if values.is_empty() {
            values.push(ValueExpr::Int(0));
        }
        self.comp.objects.push(RuntimeObject {
            name: object.clone(),
            kind: "Permutation".into(),
            args: vec![k_total.to_string(), order_arg],
        });
        self.declare_scalar(&size);
        // Room for every entry up front: the inserts then never regrow (and
        // copy) the key store. The source's value slots bound the entries.
        self.pending.push(Pending {
            phase: phase::INSERT,
            ctx: Ctx::Once,
            guard: Vec::new(),
            body: Body::Call {
                object: object.clone(),
                method: "reserve".into(),
                args: vec![self.source_slots()],
            },
        });
        // A key that reads an ordered set's index (DCSR's row number `p`,
        // the rank of the entry's row among the stored rows) is inserted in
        // a second pass, after the set is sorted (phases 0 and 1).
        let sets: Vec<&str> = self.sets.values().map(|s| s.object.as_str()).collect();
        let reads_sets = pro.iter().any(|(_, v)| calls_any(v, &sets));
        let first = if reads_sets {
            phase::INSERT_AFTER_SETS
        } else {
            phase::INSERT
        };
        self.fill_object(&object, &size, values, pro, mode == PermMode::Sorted, first);
        if let Some(ranks) = self.perm.as_ref().and_then(|p| p.distinct.clone()) {
            self.declare_scalar(&ranks);
            self.pending.push(Pending {
                phase: first + 1,
                ctx: Ctx::Once,
                guard: Vec::new(),
                body: update(
                    Access {
                        space: ranks,
                        index: Vec::new(),
                    },
                    UpdateOp::Assign,
                    call(&object, "ranks", Vec::new()),
                ),
            });
        }
        Ok(())
    }

    /// The number of value slots the source stores (the product of its
    /// value array's extents): a bound on the entries any pass over the
    /// source visits.
    fn source_slots(&self) -> ValueExpr {
        let mut extents = self
            .conv
            .src
            .data_size
            .iter()
            .map(|e| ValueExpr::Index(e.clone()));
        let first = extents.next().unwrap_or(ValueExpr::Int(1));
        extents.fold(first, |acc, e| {
            ValueExpr::Binary(BinOp::Mul, Box::new(acc), Box::new(e))
        })
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

    /// An expression over the destination's tuple as one over the source's,
    /// through the resolved positions; `None` when it needs a position no
    /// equality resolves.
    fn over_source(&self, e: &Expr) -> Option<Expr> {
        let n = self.n_in;
        let mut ok = true;
        let e = self.over_relation(e).substitute(&mut |x| match x {
            Var::Tuple(t) if t >= n => {
                let r = self.conv.resolved[t - n].clone();
                ok &= r.is_some();
                r
            }
            _ => None,
        });
        ok.then_some(e)
    }

    /// An expression over the destination's tuple (`Var::Tuple(q)`) as one
    /// over the composed relation's (`Var::Tuple(n_in + q)`).
    fn over_relation(&self, e: &Expr) -> Expr {
        e.rename_vars(&mut |x| match x {
            Var::Tuple(q) => Var::Tuple(self.n_in + q),
            other => other,
        })
    }

    /// `object.insert(values)` over the source (phase `first`), then
    /// `object.sort()` when `sort`, and `size = object.size()` (phase
    /// `first + 1`).
    fn fill_object(
        &mut self,
        object: &str,
        size: &str,
        values: Vec<ValueExpr>,
        pro: Prologue,
        sort: bool,
        first: u32,
    ) {
        let method = |m: &str, args| Body::Call {
            object: object.to_string(),
            method: m.to_string(),
            args,
        };
        self.push(first, Ctx::Source, pro, method("insert", values));
        let once = |body| Pending {
            phase: first + 1,
            ctx: Ctx::Once,
            guard: Vec::new(),
            body,
        };
        if sort {
            self.pending.push(once(method("sort", Vec::new())));
        }
        let count = update(
            Access {
                space: size.to_string(),
                index: Vec::new(),
            },
            UpdateOp::Assign,
            call(object, "size", Vec::new()),
        );
        self.pending.push(once(count));
    }

    /// The permutation's order argument and its number of compared
    /// components: counting sort when every component is a dense
    /// coordinate (bounded by its extent), Morton for a comparator that
    /// interleaves its parameters, lexicographic otherwise.
    fn sort_order(&self, key: &[KeyComponent], mode: &PermMode) -> Result<String, String> {
        if *mode == PermMode::Unsorted || key.is_empty() {
            return Ok("lex(1)".into());
        }
        if let [KeyComponent::Comparator { name, args }] = key {
            let cmp = self
                .conv
                .dst
                .comparator(name)
                .ok_or_else(|| format!("no comparator `{name}`"))?;
            let interleaves_params = matches!(cmp.key.as_slice(), [KeyExpr::Interleave(xs)]
                if xs.len() == args.len()
                    && xs.iter().enumerate().all(|(i, x)| *x == KeyExpr::Param(i)));
            if interleaves_params {
                return Ok(format!("morton({})", args.len()));
            }
            return Err(format!(
                "comparator `{name}` is not an interleaving of its parameters; only Morton orders are lowered"
            ));
        }
        let mut extents = Vec::new();
        for k in key {
            let KeyComponent::Value(e) = k else {
                return Err("a comparator mixed with other key components".into());
            };
            match self.key_extent(e) {
                Some(x) => extents.push(x.to_string()),
                None => return Ok(format!("lex({})", key.len())),
            }
        }
        Ok(format!("counting({})", extents.join(", ")))
    }

    /// An extent `E` over the source's symbols with `0 <= e < E` for a key
    /// component `e` over the destination's tuple: a dense coordinate's
    /// extent, a tuple variable's box bound in the destination map (BCSR's
    /// `0 <= bi && 2 bi < NR`: `floor((NR - 1) / 2) + 1`), or for `floor(x /
    /// m)` the quotient of `x`'s (`floor((NC + 1) / 2)` for `floor(jj / 2)`).
    fn key_extent(&self, e: &Expr) -> Option<Expr> {
        if let Some(Var::Tuple(q)) = e.as_var() {
            if let Some(x) = self.dense_extent(q) {
                return Some(Expr::sym(x));
            }
            let conj = &self.conv.dst.map.conjunctions()[0];
            return box_extent(conj, q, &|rest| {
                let mut known = true;
                rest.for_each_call(&mut |_, _| known = false);
                rest.for_each_sym(&mut |s| known &= self.conv.src.symbols.iter().any(|x| x == s));
                known
            });
        }
        // `x mod m`, written `x - m floor(x / m)`: in `0..m`.
        let modulo = e.terms().find_map(|(a, k)| match a {
            Atom::Div(x, m) if k == -*m => {
                let rest = e.minus(&Expr::atom(a.clone()).scale(k));
                (rest == **x).then_some(*m)
            }
            _ => None,
        });
        if let Some(m) = modulo {
            return Some(Expr::constant(m));
        }
        let [(Atom::Div(x, m), 1)] = e.terms().collect::<Vec<_>>().as_slice() else {
            return None;
        };
        if e.constant_term() != 0 {
            return None;
        }
        let inner = self.key_extent(x)?;
        Some(Expr::floor_div(&inner.plus(&Expr::constant(m - 1)), *m))
    }

    /// The extent of the dense coordinate destination tuple variable `q` equals.
    fn dense_extent(&self, q: usize) -> Option<String> {
        let conj = &self.conv.dst.map.conjunctions()[0];
        let d = (0..self.conv.dst.dense_arity()).find(|&d| {
            conj.constraints().any(|c| {
                let e = c.expr();
                c.is_eq()
                    && e.num_terms() == 2
                    && e.constant_term() == 0
                    && e.coefficient_of_var(Var::Tuple(q)) != 0
                    && e.coefficient_of_var(Var::Tuple(q))
                        == -e.coefficient_of_var(Var::Tuple(self.n_out + d))
            })
        })?;
        Some(self.conv.src.dense[d].clone())
    }

    /// `e` over the composed relation's variables, rewritten for `ctx`;
    /// scalars it needs are appended to `pro`.
    fn translate(&mut self, e: &Expr, ctx: &Ctx, pro: &mut Prologue) -> Result<Expr, String> {
        let mut out = Expr::constant(e.constant_term());
        for (atom, coef) in e.terms() {
            let t = match atom {
                Atom::Sym(s) => Expr::sym(s.clone()),
                Atom::Uf(f, args) => {
                    let args = args
                        .iter()
                        .map(|a| self.translate(a, ctx, pro))
                        .collect::<Result<Vec<_>, _>>()?;
                    Expr::call(f.clone(), args)
                }
                Atom::Var(Var::Tuple(i)) if *i < self.n_in => self.source_var(*i, ctx, pro)?,
                Atom::Var(Var::Tuple(t)) => self.destination_var(t - self.n_in, ctx, pro)?,
                Atom::Div(x, m) => Expr::floor_div(&self.translate(x, ctx, pro)?, *m),
                Atom::Var(v) => {
                    return Err(format!("an existential variable {v:?} in a statement"))
                }
            };
            out = out.add_scaled(&t, coef);
        }
        Ok(out)
    }

    fn source_var(&mut self, i: usize, ctx: &Ctx, pro: &mut Prologue) -> Result<Expr, String> {
        match ctx {
            Ctx::Source | Ctx::Placed => Ok(Expr::var(Var::Tuple(i))),
            Ctx::Sorted => {
                // A source variable equal to a key component is read from the key.
                let key_position = (0..self.n_out).find(|&q| {
                    self.conv.resolved[q].as_ref().and_then(Expr::as_var) == Some(Var::Tuple(i))
                        && self.key_offset(q).is_some()
                });
                if let Some(q) = key_position {
                    return self.destination_var(q, ctx, pro);
                }
                let perm = self
                    .perm
                    .as_mut()
                    .expect("a sorted context has a permutation");
                let j = match perm.payload.iter().position(|&x| x == i) {
                    Some(j) => j,
                    None => {
                        perm.payload.push(i);
                        perm.payload.len() - 1
                    }
                };
                let compared = perm
                    .order
                    .key
                    .iter()
                    .map(|k| match k {
                        KeyComponent::Value(_) => 1,
                        KeyComponent::Comparator { args, .. } => args.len(),
                    })
                    .sum::<usize>();
                let object = perm.object.clone();
                let base = format!("{}_src", self.src_tuple[i]);
                let name = self.scalar(&format!("payload {i}"), &base);
                self.read_key(pro, &name, &object, compared + j);
                Ok(Expr::sym(name))
            }
            _ => Err(format!(
                "source variable `{}` is needed where only destination positions are known",
                self.src_tuple[i]
            )),
        }
    }

    fn read_key(&self, pro: &mut Prologue, name: &str, object: &str, component: usize) {
        if pro.iter().all(|(n, _)| n != name) {
            let p = ValueExpr::Index(Expr::var(Var::Tuple(0)));
            pro.push((
                name.to_string(),
                call(object, "key", vec![ValueExpr::Int(component as i64), p]),
            ));
        }
    }

    fn destination_var(&mut self, q: usize, ctx: &Ctx, pro: &mut Prologue) -> Result<Expr, String> {
        let is_perm = self.perm.as_ref().is_some_and(|p| p.position == q);
        if is_perm {
            let perm = self.perm.as_ref().expect("checked");
            if let (Some(_), Ctx::Sorted) = (&perm.distinct, ctx) {
                // The distinct rank of the sorted position's key.
                let object = perm.object.clone();
                let name = self.scalar(&format!("rank {q}"), &self.dst_tuple[q].clone());
                if pro.iter().all(|(n, _)| *n != name) {
                    let p = ValueExpr::Index(Expr::var(Var::Tuple(0)));
                    pro.push((name.clone(), call(&object, "rank", vec![p])));
                }
                return Ok(Expr::sym(name));
            }
            // The global position: the placed slot, or the sorted position.
            let global = match (&perm.mode, ctx) {
                (PermMode::Streaming { scalar, .. }, Ctx::Placed) => {
                    Some(Expr::sym(scalar.clone()))
                }
                (PermMode::Sorted | PermMode::Unsorted, Ctx::Sorted) => {
                    Some(Expr::var(Var::Tuple(0)))
                }
                _ => None,
            };
            match (&perm.mode, ctx, global) {
                (_, _, Some(global)) => {
                    let Some(g) = perm.order.group else {
                        return Ok(global);
                    };
                    // The rank within the group: the group's next slot
                    // when the scatter counts the groups themselves, else
                    // the global position minus the group's start.
                    let object = perm.object.clone();
                    let name = self.scalar(&format!("rank {q}"), &self.dst_tuple[q].clone());
                    if self.ranks_by_slot() && *ctx == Ctx::Placed {
                        // Assigned once per entry, first in the placing
                        // pass (`insert_statements`).
                        return Ok(Expr::sym(name));
                    }
                    let group = self.destination_var(g, ctx, pro)?;
                    if pro.iter().all(|(n, _)| *n != name) {
                        let start = call(&object, "start", vec![ValueExpr::Index(group)]);
                        pro.push((
                            name.clone(),
                            ValueExpr::Binary(
                                BinOp::Sub,
                                Box::new(ValueExpr::Index(global)),
                                Box::new(start),
                            ),
                        ));
                    }
                    return Ok(Expr::sym(name));
                }
                (PermMode::Offset { inner, lo, .. }, Ctx::Source, None) => {
                    return Ok(Expr::var(Var::Tuple(*inner)).minus(lo))
                }
                (PermMode::Direct { var, lo, .. }, Ctx::Source, None) => {
                    return Ok(Expr::var(Var::Tuple(*var)).minus(lo))
                }
                _ => {
                    return Err(format!(
                        "position `{}` is needed outside the permutation's loop",
                        self.dst_tuple[q]
                    ))
                }
            }
        }
        if let Some(set) = self.sets.get(&q) {
            // Over sorted positions, a set position the permutation sorts
            // by is in its key.
            if *ctx == Ctx::Sorted {
                if let Some(offset) = self.key_offset(q) {
                    let object = self.perm.as_ref().expect("sorted").object.clone();
                    let name = self.scalar(&format!("key {q}"), &self.dst_tuple[q].clone());
                    self.read_key(pro, &name, &object, offset);
                    return Ok(Expr::sym(name));
                }
            }
            return match ctx {
                Ctx::Set(s) if *s == q => Ok(Expr::var(Var::Tuple(0))),
                Ctx::Source | Ctx::Placed => {
                    let (object, value) = (set.object.clone(), set.value.clone());
                    let v = self.translate(&value, ctx, pro)?;
                    let name = self.scalar(&format!("set {q}"), &self.dst_tuple[q].clone());
                    if pro.iter().all(|(n, _)| *n != name) {
                        pro.push((
                            name.clone(),
                            call(&object, "index", vec![ValueExpr::Index(v)]),
                        ));
                    }
                    Ok(Expr::sym(name))
                }
                _ => Err(format!(
                    "position `{}` of the ordered set is needed outside its loops",
                    self.dst_tuple[q]
                )),
            };
        }
        // A resolved coordinate: from the key when it is a component.
        if *ctx == Ctx::Sorted {
            if let Some(offset) = self.key_offset(q) {
                let object = self
                    .perm
                    .as_ref()
                    .expect("a sorted context has a permutation")
                    .object
                    .clone();
                let name = self.scalar(&format!("key {q}"), &self.dst_tuple[q].clone());
                self.read_key(pro, &name, &object, offset);
                return Ok(Expr::sym(name));
            }
        }
        let resolved = self.conv.resolved[q]
            .clone()
            .ok_or_else(|| format!("position `{}` is not known here", self.dst_tuple[q]))?;
        self.translate(&resolved, ctx, pro)
    }

    /// The key component (its index among the inserted values) that holds
    /// destination coordinate `q`, when the permutation is sorted by it.
    fn key_offset(&self, q: usize) -> Option<usize> {
        let perm = self.perm.as_ref()?;
        if matches!(
            perm.mode,
            PermMode::Direct { .. } | PermMode::Offset { .. } | PermMode::Streaming { .. }
        ) {
            return None;
        }
        let mut offset = 0;
        for k in &perm.order.key {
            match k {
                KeyComponent::Value(e) if e.as_var() == Some(Var::Tuple(q)) => return Some(offset),
                KeyComponent::Value(_) => offset += 1,
                KeyComponent::Comparator { args, .. } => {
                    if let Some(i) = args.iter().position(|a| a.as_var() == Some(Var::Tuple(q))) {
                        return Some(offset + i);
                    }
                    offset += args.len();
                }
            }
        }
        None
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

    /// Names, domains and schedules: one top-level loop per (phase,
    /// context), statements in a loop in creation order.
    fn finish(&mut self) -> Result<(), String> {
        if self
            .pending
            .iter()
            .any(|p| p.ctx == Ctx::Placed && p.phase != phase::ARRAYS)
        {
            return Err("a statement over placed entries outside the placing pass".into());
        }
        let mut pending = std::mem::take(&mut self.pending);
        self.drop_unused_scatter_sorts(&mut pending);
        pending.sort_by_key(|p| p.phase);
        let mut groups: Vec<(u32, Ctx, Vec<Pending>)> = Vec::new();
        for p in pending {
            match groups.last_mut() {
                Some((ph, ctx, v)) if *ph == p.phase && *ctx == p.ctx && p.ctx != Ctx::Once => {
                    v.push(p)
                }
                _ => {
                    if let Some(g) = groups
                        .iter_mut()
                        .find(|(ph, ctx, _)| *ph == p.phase && *ctx == p.ctx && p.ctx != Ctx::Once)
                    {
                        g.2.push(p);
                    } else {
                        groups.push((p.phase, p.ctx.clone(), vec![p]));
                    }
                }
            }
        }
        // Within a phase, `Once` statements (sorts, sizes) keep their order
        // and loops follow in context order.
        groups.sort_by_key(|(ph, ctx, _)| (*ph, ctx.clone()));
        let mut n = 0;
        for (c, (_, ctx, mut stmts)) in groups.into_iter().enumerate() {
            if ctx != Ctx::Once {
                reuse_scalars(&mut stmts);
            }
            let (mut domain, mut iters) = self.domain_of(&ctx)?;
            if matches!(ctx, Ctx::Source | Ctx::Placed) {
                if let Some((flat, v)) = self.flat_source(&stmts) {
                    domain = flat;
                    iters.remove(v);
                    let mut down = |x: Var| match x {
                        Var::Tuple(t) if t > v => Var::Tuple(t - 1),
                        other => other,
                    };
                    for p in &mut stmts {
                        p.body = p.body.map_exprs(&mut |e| e.rename_vars(&mut down));
                    }
                }
            }
            for (idx, p) in stmts.into_iter().enumerate() {
                let mut domain = domain.clone();
                if !p.guard.is_empty() {
                    let conj = Conjunction::from_parts(
                        Vec::new(),
                        Vec::new(),
                        p.guard.iter().map(|g| Constraint::geq(g.clone())),
                    )
                    .ok_or("a statement's guard is never true")?;
                    domain = Set::from_formula(Formula::from_conjunctions(0, vec![conj]));
                }
                let mut dims = vec![ScheduleDim::Const(c as i64)];
                for i in 0..iters.len() {
                    dims.push(ScheduleDim::Iter(i));
                    dims.push(ScheduleDim::Const(if i + 1 == iters.len() {
                        idx as i64
                    } else {
                        0
                    }));
                }
                let schedule = schedule_relation(&domain, &iters, &dims);
                self.comp.stmts.push(Stmt {
                    name: format!("S{n}"),
                    body: p.body,
                    domain,
                    schedule,
                });
                n += 1;
            }
        }
        Ok(())
    }

    /// Drops `B.sort()` of a scatter whose prefix sums nothing reads (no
    /// `start`, no `place`/`place_inserted`): `count`, `slot` and `size` do
    /// without them (CSC -> ELL).
    fn drop_unused_scatter_sorts(&self, pending: &mut Vec<Pending>) {
        for o in self.comp.objects.iter().filter(|o| o.kind == "Scatter") {
            let mut needs_sums = false;
            for p in pending.iter() {
                p.body.for_each_call(&mut |object, method| {
                    needs_sums |=
                        object == o.name && matches!(method, "start" | "place" | "place_inserted");
                });
            }
            if !needs_sums {
                pending.retain(|p| {
                    !matches!(&p.body, Body::Call { object, method, .. }
                        if *object == o.name && method == "sort")
                });
            }
        }
    }

    /// Whether a streaming scatter counts the destination's groups
    /// themselves (CSC -> ELL: `Scatter(NR)` over the rows, the position a
    /// slot within the row): an entry's rank in its group is then the
    /// group's next `slot`, and no global position is placed.
    fn ranks_by_slot(&self) -> bool {
        let Some(perm) = &self.perm else {
            return false;
        };
        match (&perm.mode, perm.order.group) {
            (PermMode::Streaming { key: Some(k), .. }, Some(g)) => {
                k.as_var() == Some(Var::Tuple(g))
            }
            _ => false,
        }
    }

    /// The source's iteration space without a compressed loop's outer
    /// variable that none of `stmts` uses ([`crate::flatten`]): a counting
    /// pass over CSR's columns becomes one flat loop over the entries. The
    /// domain and the dropped variable.
    fn flat_source(&self, stmts: &[Pending]) -> Option<(Set, usize)> {
        let mut used = BTreeSet::new();
        for p in stmts {
            p.body.for_each_expr(&mut |e| {
                e.for_each_var(&mut |x| {
                    used.insert(x);
                })
            });
        }
        if used
            .iter()
            .any(|x| matches!(x, Var::Tuple(t) if *t >= self.n_in))
        {
            return None;
        }
        let nondecreasing = |f: &str| {
            self.conv.src.ufs.iter().any(|d| {
                d.name == f
                    && d.monotonicity.iter().any(|m| {
                        matches!(m, Monotonicity::Nondecreasing | Monotonicity::Increasing)
                    })
            })
        };
        (0..self.n_in)
            .filter(|&v| !used.contains(&Var::Tuple(v)))
            .find_map(|v| {
                crate::flatten::without_outer_variable(&self.source_domain, v, &nondecreasing)
                    .map(|flat| (flat, v))
            })
    }

    fn domain_of(&self, ctx: &Ctx) -> Result<(Set, Vec<String>), String> {
        let range = |name: &str, size: &str| {
            let v = Expr::var(Var::Tuple(0));
            let conj = Conjunction::from_parts(
                vec![name.to_string()],
                Vec::new(),
                [
                    Constraint::geq(v.clone()),
                    Constraint::lt(&v, &Expr::sym(size)),
                ],
            )
            .expect("a range is satisfiable");
            (
                Set::from_formula(Formula::from_conjunctions(1, vec![conj])),
                vec![name.to_string()],
            )
        };
        Ok(match ctx {
            Ctx::Once => (
                Set::from_formula(Formula::from_conjunctions(
                    0,
                    vec![Conjunction::from_parts(Vec::new(), Vec::new(), []).expect("true")],
                )),
                Vec::new(),
            ),
            Ctx::Source | Ctx::Placed => (self.source_domain.clone(), self.src_tuple.clone()),
            Ctx::Sorted => {
                let perm = self
                    .perm
                    .as_ref()
                    .expect("a sorted context has a permutation");
                range(&self.sorted_iter, &perm.size)
            }
            Ctx::Set(q) => range(&self.sets[q].iterator, &self.sets[q].size),
            Ctx::Groups(extent) => range(&self.group_iter, extent),
            Ctx::Fixup(f) => {
                let decl = self.conv.dst.uf(f).ok_or("no such array")?;
                let dom = &decl.domain.conjunctions()[0];
                let x = Var::Tuple(0);
                let shifted = Expr::var(x).plus(&Expr::constant(1));
                let mut cs: Vec<_> = dom
                    .constraints()
                    .cloned()
                    .map(iegen::constraint::Normalized::Constraint)
                    .collect();
                cs.extend(dom.constraints().map(|c| c.substitute_var(x, &shifted)));
                let name = "i".to_string();
                let name = if self.taken.contains(&name) {
                    format!("{f}_i")
                } else {
                    name
                };
                let conj = Conjunction::from_parts(vec![name.clone()], Vec::new(), cs)
                    .ok_or("the fix-up domain is empty")?;
                (
                    Set::from_formula(Formula::from_conjunctions(1, vec![conj])),
                    vec![name],
                )
            }
        })
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

/// The range `lo <= t_v < hi` that `conj`'s inequalities with a unit
/// coefficient on `t_v` give, taking only bounds whose other terms `known`
/// accepts (and with `t_v` not inside a call or a division).
fn unit_range(conj: &Conjunction, v: usize, known: &dyn Fn(&Expr) -> bool) -> Option<(Expr, Expr)> {
    let var = Var::Tuple(v);
    let (mut lo, mut hi) = (None, None);
    for c in conj.constraints().filter(|c| !c.is_eq()) {
        let e = c.expr();
        let coef = e.coefficient_of_var(var);
        if coef.abs() != 1 || e.mentions_in_uf_args(var) {
            continue;
        }
        let mut rest = e.clone();
        rest.add_term(Atom::Var(var), -coef);
        if !known(&rest) {
            continue;
        }
        if coef == 1 {
            lo = Some(rest.negate()); // v + rest >= 0
        } else {
            hi = Some(rest.plus(&Expr::constant(1))); // rest - v >= 0
        }
    }
    Some((lo?, hi?))
}

/// Within one loop's statements (same domain, run in order each
/// iteration), a scalar a statement's prologue assigns again with the value
/// an earlier statement's prologue gave it, under the same guard, keeps
/// that value: the repeated assignment is dropped (CSC -> ELL's slot `w =
/// pos - P.start(ii)` is computed once per entry, not once per array).
/// A write to a scalar by anything but such a prologue forgets what
/// depends on it.
fn reuse_scalars(stmts: &mut [Pending]) {
    // (guard conditions, scalar) -> value, for the current iteration.
    let mut known: Vec<(Vec<Condition>, String, ValueExpr)> = Vec::new();
    for p in stmts.iter_mut() {
        let (conditions, seq) = match &mut p.body {
            Body::If { conditions, then } => match &mut **then {
                Body::Seq(seq) => (conditions.clone(), seq),
                other => {
                    forget_written(&mut known, other);
                    continue;
                }
            },
            Body::Seq(seq) => (Vec::new(), seq),
            other => {
                forget_written(&mut known, other);
                continue;
            }
        };
        let mut kept = Vec::new();
        let mut in_prologue = true;
        for b in seq.drain(..) {
            let assignment = match &b {
                Body::Update {
                    target,
                    op: UpdateOp::Assign,
                    value,
                } if in_prologue && target.index.is_empty() && !changes_object(value) => {
                    Some((target.space.clone(), value.clone()))
                }
                _ => None,
            };
            match assignment {
                Some((name, value)) => {
                    let same = known
                        .iter()
                        .any(|(g, n, v)| *g == conditions && *n == name && *v == value);
                    if !same {
                        forget_written(&mut known, &b);
                        known.push((conditions.clone(), name, value));
                        kept.push(b);
                    }
                }
                None => {
                    in_prologue = false;
                    forget_written(&mut known, &b);
                    kept.push(b);
                }
            }
        }
        *seq = kept;
    }
}

/// Whether evaluating `v` changes a runtime object (`place`,
/// `place_inserted`, `slot`).
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

/// Whether `v` calls a method of one of `objects`.
fn calls_any(v: &ValueExpr, objects: &[&str]) -> bool {
    match v {
        ValueExpr::Call { object, args, .. } => {
            objects.contains(&object.as_str()) || args.iter().any(|a| calls_any(a, objects))
        }
        ValueExpr::Neg(a) => calls_any(a, objects),
        ValueExpr::Binary(_, a, b) => calls_any(a, objects) || calls_any(b, objects),
        ValueExpr::Int(_) | ValueExpr::Real(_) | ValueExpr::Index(_) | ValueExpr::Read(_) => false,
    }
}

fn changes_object(v: &ValueExpr) -> bool {
    match v {
        ValueExpr::Call { method, args, .. } => {
            matches!(
                method.as_str(),
                "place" | "place_inserted" | "slot" | "slot_inserted"
            ) || args.iter().any(changes_object)
        }
        ValueExpr::Neg(a) => changes_object(a),
        ValueExpr::Binary(_, a, b) => changes_object(a) || changes_object(b),
        _ => false,
    }
}

/// Forgets the known scalars `b` writes, and those whose value reads one.
fn forget_written(known: &mut Vec<(Vec<Condition>, String, ValueExpr)>, b: &Body) {
    let mut written = Vec::new();
    b.for_each_write(&mut |a| written.push(a.space.clone()));
    known.retain(|(_, name, value)| {
        let mut reads = false;
        value.for_each_read(&mut |a| reads |= written.contains(&a.space));
        // Scalars in index expressions (`P.start(ii)`, `pos - ...`).
        value.for_each_expr(&mut |e| {
            e.for_each_sym(&mut |s| reads |= written.iter().any(|w| w == s))
        });
        !written.contains(name) && !reads
    });
}

/// `e` over the second of two copies of an `n`-variable tuple.
fn second_copy(e: &Expr, n: usize) -> Expr {
    e.rename_vars(&mut |x| match x {
        Var::Tuple(i) => Var::Tuple(n + i),
        other => other,
    })
}

fn mentions_any_var(e: &Expr) -> bool {
    let mut any = false;
    e.for_each_var(&mut |_| any = true);
    any
}

/// The extents of a box domain `{[x, ...] : 0 <= x < E, ...}` (or `x <= E`,
/// or `m x <= E`: extent `floor(E / m) + 1`, BCSR's `2 x <= NR + 1`).
fn box_extents(domain: &Set) -> Option<Vec<Expr>> {
    let [conj] = domain.conjunctions() else {
        return None;
    };
    (0..conj.arity())
        .map(|d| box_extent(conj, d, &|_| true))
        .collect()
}

/// The extent `E` of `t_v` from `0 <= t_v` and `m t_v <= B` in `conj`
/// (`floor(B / m) + 1`), taking only bounds `B` without variables that
/// `known` accepts.
fn box_extent(conj: &Conjunction, v: usize, known: &dyn Fn(&Expr) -> bool) -> Option<Expr> {
    let var = Var::Tuple(v);
    let mut lower_zero = false;
    let mut upper = None;
    for c in conj.constraints().filter(|c| !c.is_eq()) {
        let coef = c.expr().coefficient_of_var(var);
        let mut rest = c.expr().clone();
        rest.add_term(Atom::Var(var), -coef);
        if mentions_any_var(&rest) || !known(&rest) {
            continue;
        }
        match coef {
            1 if rest.is_constant() && rest.constant_term() == 0 => lower_zero = true,
            m if m < 0 => upper = Some(Expr::floor_div(&rest, -m).plus(&Expr::constant(1))),
            _ => {}
        }
    }
    upper.filter(|_| lower_zero)
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

/// The expression an equality of `conj` gives source variable `i` in terms
/// of the other variables (`ii = row(n)`), when `i` is not itself free.
fn definition(conj: &Conjunction, i: usize, n: usize) -> Option<Expr> {
    let v = Var::Tuple(i);
    conj.constraints().filter(|c| c.is_eq()).find_map(|c| {
        let coef = c.expr().coefficient_of_var(v);
        if coef.abs() != 1 || c.expr().mentions_in_uf_args(v) {
            return None;
        }
        let mut rest = c.expr().clone();
        rest.add_term(Atom::Var(v), -coef);
        let value = rest.scale(-coef);
        // Defined through a UF of another variable, not through a plain
        // variable (which would make the two interchangeable).
        let mut has_call = false;
        value.for_each_call(&mut |_, _| has_call = true);
        let mut ok = true;
        value.for_each_var(&mut |w| ok &= matches!(w, Var::Tuple(t) if t < n && t != i));
        (has_call && ok).then_some(value)
    })
}

/// Deliberate lowering bugs, injected by tests to prove that validation
/// rejects what they break (`validate`'s tests). Test builds only.
#[cfg(test)]
pub(crate) mod faults {
    use std::cell::Cell;

    use iegen::computation::{BinOp, Body, ValueExpr};

    /// A bug to inject.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) enum Fault {
        /// A permutation's sort key loses its least significant component
        /// (CSR from COO sorts by row only).
        DropLastKeyComponent,
        /// A pointer fix-up carries `f(x) + 1` instead of `f(x)` (wrong
        /// where rows are empty).
        FixupOffByOne,
    }

    thread_local! {
        static FAULT: Cell<Option<Fault>> = const { Cell::new(None) };
    }

    /// Injects `fault` into lowerings on this thread until reset with `None`.
    pub(crate) fn inject(fault: Option<Fault>) {
        FAULT.with(|f| f.set(fault));
    }

    pub(super) fn injected(fault: Fault) -> bool {
        FAULT.with(|f| f.get()) == Some(fault)
    }

    /// The fault injected on this thread now.
    pub(crate) fn injected_now() -> Option<Fault> {
        FAULT.with(|f| f.get())
    }

    /// `t max= v` becomes `t max= v + 1`.
    pub(super) fn off_by_one(body: Body) -> Body {
        match body {
            Body::Update { target, op, value } => Body::Update {
                target,
                op,
                value: ValueExpr::Binary(BinOp::Add, Box::new(value), Box::new(ValueExpr::Int(1))),
            },
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::builtin::load_format;
    use crate::synthesize::synthesize;

    /// A streaming scatter's placing pass places the entries its counting
    /// pass inserted, under the same key: the lowering says so with
    /// `place_inserted`, and the C backend then calls the runtime's
    /// unchecked place (no `O(E)` over-placement check when the scatter is
    /// freed). The interpreter still checks the claim: the synthesis tests
    /// run every conversion through it.
    #[test]
    fn streaming_scatters_place_what_they_inserted() {
        for (src, dst) in [
            ("csr", "csc"),
            ("csc", "csr"),
            ("dia", "csr"),
            ("scoo", "csc"),
            ("csr", "coo"),
            ("bcsr", "coo"),
        ] {
            let s = synthesize(&load_format(src).unwrap(), &load_format(dst).unwrap()).unwrap();
            let text = s.computation.to_string();
            assert!(text.contains(".place_inserted("), "{src} -> {dst}:\n{text}");
            assert!(!text.contains(".place("), "{src} -> {dst}:\n{text}");
            let c = codegen::c::emit_c(&s.program().unwrap()).unwrap();
            assert!(
                c.contains("spf_scatter_place_inserted(&"),
                "{src} -> {dst}:\n{c}"
            );
            assert!(!c.contains("spf_scatter_place(&"), "{src} -> {dst}");
        }
    }

    /// The transpositions' placing loops read their keys from the source's
    /// index array at the loop variable, and so does CSC -> ELL's loop that
    /// gives each entry its slot in its row: the C backend prints them
    /// twice, looking ahead when the entries are out of cache
    /// (docs/runtime.md), the prefetches just before the placing statement,
    /// at the targets' indices with the key and position read ahead. A
    /// scatter keyed otherwise (DIA's rows, COO's rows in any order: `ii`
    /// is no array element at the loop variable) is printed once.
    #[test]
    fn transpositions_look_ahead_in_their_placing_loops() {
        for (src, dst, keys, call, prefetch) in [
            (
                "csr",
                "csc",
                "col",
                "spf_scatter_place_inserted(&P, ",
                "spf_prefetch_at(*row, sizeof **row, *NNZ_out, ahead);",
            ),
            (
                "csc",
                "csr",
                "row",
                "spf_scatter_place_inserted(&P, ",
                "spf_prefetch_at(*col, sizeof **col, *NNZ_out, ahead);",
            ),
            (
                "csc",
                "ell",
                "row",
                "spf_scatter_slot_inserted(&P, ",
                "spf_prefetch_in(*col, sizeof **col, NR * *W, ahead_key * *W + ahead);",
            ),
        ] {
            let s = synthesize(&load_format(src).unwrap(), &load_format(dst).unwrap()).unwrap();
            let c = codegen::c::emit_c(&s.program().unwrap()).unwrap();
            let far = "if (SPF_UNLIKELY(spf_scatter_far(&P, sizeof **";
            assert_eq!(c.matches(far).count(), 1, "{src} -> {dst}:\n{c}");
            let ahead = format!("(&P, spf_ahead_key({keys}, NNZ, k + 2 * SPF_LOOKAHEAD));");
            let at = c
                .find(&ahead)
                .unwrap_or_else(|| panic!("{src} -> {dst}:\n{c}"));
            let place = c[at..].find(call).expect("the place after");
            assert!(c[at..at + place].contains(prefetch), "{src} -> {dst}:\n{c}");
            // Both versions place: the one looking ahead and the other.
            assert_eq!(
                c.matches(&format!("= {call}")).count(),
                2,
                "{src} -> {dst}:\n{c}"
            );
        }
        for (src, dst) in [
            ("dia", "csr"),
            ("csr", "coo"),
            ("dia", "ell"),
            ("coo", "csr"),
        ] {
            let s = synthesize(&load_format(src).unwrap(), &load_format(dst).unwrap()).unwrap();
            let c = codegen::c::emit_c(&s.program().unwrap()).unwrap();
            assert!(!c.contains("spf_scatter_far(&"), "{src} -> {dst}:\n{c}");
        }
    }
}
