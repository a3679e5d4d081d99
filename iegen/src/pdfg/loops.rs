//! The loop nest of a computation as polyhedra scanning emits it.
//!
//! Statements whose schedules agree up to an iterator dimension share that
//! dimension (one node of the nest per schedule prefix). Such a node is a
//! `let`, not a loop, when every statement sharing it fixes its iterator by
//! an equality with a unit coefficient over the iterators bound outside it
//! (`ii = row(n)`), all with the same value; otherwise it is a loop.
//! Iterators the schedule leaves out are bound innermost, one statement at
//! a time: first one an equality defines (a `let`), then one with bounds
//! (a loop), in tuple order. A statement whose domain simplifies to the
//! empty set is never executed and has no loops.
//!
//! This is the rule of `codegen`'s scanner (`scan.rs`, `shared_loop` and
//! `finish`), which depends on this crate and so cannot be called from
//! here; the root package's `tests/pdfg_pairs.rs` checks that the two agree
//! on every built-in conversion and example computation.

use std::collections::{BTreeMap, HashMap};

use crate::computation::{ScheduleDim, Stmt};
use crate::constraint::{Constraint, ConstraintKind};
use crate::expr::{Atom, Expr, Var};

use super::text::Namer;
use super::Loop;

/// One step of a loop nest's path, for grouping statements into loops:
/// loops at the same schedule position are the same loop whatever their
/// iterator; a [`Step::Inner`] node belongs to one statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Step {
    Const(i64),
    Loop,
    /// The `k`th iterator the schedule of statement `stmt` leaves out.
    Inner(usize, usize),
}

/// One binding of an iterator around a statement: a loop or a `let`.
#[derive(Clone, Debug)]
pub(super) struct Level {
    /// The path of the node that binds it; statements with equal keys share it.
    pub key: Vec<Step>,
    /// The iterator's position in the statement's tuple.
    pub pos: usize,
    /// Its defining value, over the levels' time positions, when an
    /// equality fixes it given the iterators bound outside.
    definition: Option<Expr>,
    /// The definition's text with the statement's names (`ii = row(n)`).
    definition_text: Option<String>,
    /// Whether the node is a loop (decided over every statement sharing it).
    pub is_loop: bool,
}

/// The bindings around one statement, outermost first (empty for a
/// statement that never runs).
pub(super) struct Nest {
    pub levels: Vec<Level>,
    /// Whether the domain is not empty (the scanner skips empty ones).
    pub runs: bool,
}

impl Nest {
    /// No bindings (a placeholder while the nests are decided together).
    pub fn empty() -> Nest {
        Nest {
            levels: Vec::new(),
            runs: false,
        }
    }

    /// `ii = row(n)` for every binding that is a `let`.
    pub fn lets(&self) -> Vec<String> {
        self.levels
            .iter()
            .filter(|l| !l.is_loop)
            .filter_map(|l| l.definition_text.clone())
            .collect()
    }
}

/// The bindings of every statement (before deciding loops and lets) from
/// its schedule dimensions and its domain.
pub(super) fn nest_of(index: usize, stmt: &Stmt, dims: &[ScheduleDim], names: &[String]) -> Nest {
    let domain = stmt.domain.simplify();
    let constraints: Vec<Constraint> = match domain.conjunctions() {
        [] => {
            return Nest {
                levels: Vec::new(),
                runs: false,
            }
        }
        [c] if c.num_exists() == 0 => c.constraints().cloned().collect(),
        // The scanner rejects these; draw every iterator as a loop.
        _ => Vec::new(),
    };
    let namer = Namer::new(names);
    let mut bound: BTreeMap<usize, usize> = BTreeMap::new();
    let mut levels = Vec::new();
    let mut level = |pos: usize, key: Vec<Step>, bound: &mut BTreeMap<usize, usize>| {
        let definition = definition(&constraints, pos, bound);
        let definition_text = definition.as_ref().map(|(_, own)| {
            format!(
                "{} = {}",
                namer.expr(&Expr::var(Var::Tuple(pos))),
                namer.expr(own)
            )
        });
        let slot = key.len() - 1;
        bound.insert(pos, slot);
        levels.push(Level {
            key,
            pos,
            definition: definition.map(|(d, _)| d),
            definition_text,
            is_loop: true,
        });
    };
    for (t, d) in dims.iter().enumerate() {
        if let ScheduleDim::Iter(p) = d {
            level(
                *p,
                dims[..=t].iter().map(|&d| step(d)).collect(),
                &mut bound,
            );
        }
    }
    // The iterators the schedule leaves out, innermost.
    let prefix: Vec<Step> = dims.iter().map(|&d| step(d)).collect();
    for k in 0..names.len() {
        let free: Vec<usize> = (0..names.len())
            .filter(|q| !bound.contains_key(q))
            .collect();
        let Some(&first) = free.first() else { break };
        let pick = free
            .iter()
            .copied()
            .find(|&q| definition(&constraints, q, &bound).is_some())
            .or_else(|| {
                free.iter()
                    .copied()
                    .find(|&q| has_range(&constraints, q, &bound))
            })
            .unwrap_or(first);
        let mut key = prefix.clone();
        key.push(Step::Inner(index, k));
        level(pick, key, &mut bound);
    }
    Nest { levels, runs: true }
}

/// Decides which shared nodes are loops: a node is a `let` when every
/// statement under it defines its iterator with the same value.
pub(super) fn decide(nests: &mut [Nest]) {
    let mut defs: HashMap<Vec<Step>, Vec<Option<Expr>>> = HashMap::new();
    for n in nests.iter() {
        for l in &n.levels {
            defs.entry(l.key.clone())
                .or_default()
                .push(l.definition.clone());
        }
    }
    for n in nests.iter_mut() {
        for l in &mut n.levels {
            let all = &defs[&l.key];
            l.is_loop = !(all.iter().all(|d| d.is_some()) && all.iter().all(|d| *d == all[0]));
        }
    }
}

/// The loops; the loops around each statement, outermost first; each
/// loop's id by its path.
pub(super) type LoopTree = (Vec<Loop>, Vec<Vec<usize>>, HashMap<Vec<Step>, usize>);

/// The loops (the bindings that are loops), numbered in path order so a
/// loop comes before the loops nested in it; each statement's loops; and
/// each loop's id by its path.
pub(super) fn loop_tree(nests: &[Nest], names: &[Vec<String>], stmts: &[&Stmt]) -> LoopTree {
    let mut iterators: BTreeMap<Vec<Step>, Vec<String>> = BTreeMap::new();
    for (n, names) in nests.iter().zip(names) {
        for l in n.levels.iter().filter(|l| l.is_loop) {
            let name = super::tuple_name(names, l.pos);
            let entry = iterators.entry(l.key.clone()).or_default();
            if !entry.contains(&name) {
                entry.push(name);
            }
        }
    }
    let ids: HashMap<Vec<Step>, usize> = iterators
        .keys()
        .enumerate()
        .map(|(id, k)| (k.clone(), id))
        .collect();
    let mut loops: Vec<Loop> = iterators
        .into_iter()
        .enumerate()
        .map(|(id, (key, iters))| {
            let parent = (0..key.len().saturating_sub(1))
                .rev()
                .find_map(|end| ids.get(&key[..=end]).copied());
            Loop {
                id,
                parent,
                iterator: iters.join("/"),
                time_dim: key.len() - 1,
                depth: 0,
                statements: Vec::new(),
            }
        })
        .collect();
    for id in 0..loops.len() {
        loops[id].depth = loops[id].parent.map_or(0, |p| loops[p].depth + 1);
    }
    let mut around = Vec::with_capacity(nests.len());
    for (n, s) in nests.iter().zip(stmts) {
        let nest: Vec<usize> = n
            .levels
            .iter()
            .filter(|l| l.is_loop)
            .filter_map(|l| ids.get(&l.key).copied())
            .collect();
        if let Some(&inner) = nest.last() {
            loops[inner].statements.push(s.name.clone());
        }
        around.push(nest);
    }
    (loops, around, ids)
}

pub(super) fn step(d: ScheduleDim) -> Step {
    match d {
        ScheduleDim::Const(c) => Step::Const(c),
        ScheduleDim::Iter(_) => Step::Loop,
    }
}

/// The first equality with a unit coefficient on iterator `q` (outside UF
/// arguments) whose other variables are bound: its value over the binding
/// levels' positions (to compare statements), and over the statement's own
/// tuple (to print).
fn definition(
    constraints: &[Constraint],
    q: usize,
    bound: &BTreeMap<usize, usize>,
) -> Option<(Expr, Expr)> {
    constraints.iter().find_map(|k| {
        let rest = rest_if_bound(k, q, bound)?;
        let a = k.expr().coefficient_of_var(Var::Tuple(q));
        if k.kind() != ConstraintKind::Eq || a.abs() != 1 {
            return None;
        }
        let own = rest.scale(-a);
        let shared = own.rename_vars(&mut |v| match v {
            Var::Tuple(p) => Var::Tuple(bound.get(&p).copied().unwrap_or(p)),
            other => other,
        });
        Some((shared, own))
    })
}

/// Whether iterator `q` has a lower and an upper bound over the bound ones.
fn has_range(constraints: &[Constraint], q: usize, bound: &BTreeMap<usize, usize>) -> bool {
    let (mut lower, mut upper) = (false, false);
    for k in constraints {
        if rest_if_bound(k, q, bound).is_none() {
            continue;
        }
        let a = k.expr().coefficient_of_var(Var::Tuple(q));
        match k.kind() {
            ConstraintKind::Eq => return true,
            ConstraintKind::Geq => {
                lower |= a > 0;
                upper |= a < 0;
            }
        }
    }
    lower && upper
}

/// `k`'s expression without its `q` term, when `q` occurs outside UF
/// arguments and every other variable is bound.
fn rest_if_bound(k: &Constraint, q: usize, bound: &BTreeMap<usize, usize>) -> Option<Expr> {
    let v = Var::Tuple(q);
    let e = k.expr();
    let a = e.coefficient_of_var(v);
    if a == 0 || e.mentions_in_uf_args(v) {
        return None;
    }
    let mut rest = e.clone();
    rest.add_term(Atom::Var(v), -a);
    let mut ok = true;
    rest.for_each_var(&mut |w| match w {
        Var::Tuple(p) => ok &= bound.contains_key(&p),
        Var::Exist(_) => ok = false,
    });
    ok.then_some(rest)
}
