//! A union of conjunctions over one tuple: the body shared by sets and relations.

use crate::conjunction::Conjunction;
use crate::constraint::Normalized;
use crate::expr::{Expr, Var};
use crate::simplify::simplify_conjunction;

/// A finite union of [`Conjunction`]s over tuples of one arity.
///
/// The conjunctions are kept sorted and free of duplicates, so that equal
/// unions compare equal structurally. An empty union is the empty set.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Formula {
    arity: usize,
    conjuncts: Vec<Conjunction>,
}

/// Where a part's variables go when conjunctions are combined into a new layout.
pub(crate) struct Part<'a> {
    /// The conjunction to embed.
    pub conj: &'a Conjunction,
    /// Where each of its tuple positions goes.
    pub tuple_map: &'a dyn Fn(usize) -> Var,
}

/// Builds one conjunction over `tuple_names` whose existentials are
/// `shared_exists` followed by every part's own existentials, with each
/// part's constraints rewritten into that layout. `None` when a constraint
/// becomes trivially false.
pub(crate) fn combine(
    tuple_names: Vec<String>,
    shared_exists: Vec<String>,
    parts: &[Part<'_>],
) -> Option<Conjunction> {
    let mut exist_names = shared_exists;
    let mut constraints: Vec<Normalized> = Vec::new();
    for p in parts {
        let offset = exist_names.len();
        constraints.extend(p.conj.embedded_constraints(p.tuple_map, offset));
        exist_names.extend(p.conj.exist_names().iter().cloned());
    }
    Conjunction::from_parts(tuple_names, exist_names, constraints)
}

impl Formula {
    /// The empty union over `arity` tuple variables.
    pub fn empty(arity: usize) -> Self {
        Formula {
            arity,
            conjuncts: Vec::new(),
        }
    }

    /// The whole space of `arity`-tuples.
    pub fn universe(arity: usize) -> Self {
        Formula::from_conjunctions(arity, vec![Conjunction::universe_of_arity(arity)])
    }

    /// A union of conjunctions (sorted and deduplicated here).
    ///
    /// # Panics
    /// When a conjunction's arity differs from `arity`: that is a bug in the
    /// caller, not a user error.
    pub fn from_conjunctions(arity: usize, mut conjuncts: Vec<Conjunction>) -> Self {
        assert!(
            conjuncts.iter().all(|c| c.arity() == arity),
            "conjunction arity differs from the formula's"
        );
        conjuncts.sort();
        conjuncts.dedup();
        Formula { arity, conjuncts }
    }

    /// The number of tuple variables.
    pub fn arity(&self) -> usize {
        self.arity
    }

    /// The conjunctions, in canonical order.
    pub fn conjunctions(&self) -> &[Conjunction] {
        &self.conjuncts
    }

    /// Whether the union has no conjunction at all (syntactically empty).
    pub fn has_no_conjunctions(&self) -> bool {
        self.conjuncts.is_empty()
    }

    /// The union of two formulas of the same arity.
    pub fn union(&self, other: &Formula) -> Formula {
        debug_assert_eq!(self.arity, other.arity);
        let mut all = self.conjuncts.clone();
        all.extend(other.conjuncts.iter().cloned());
        Formula::from_conjunctions(self.arity, all)
    }

    /// The intersection of two formulas of the same arity, conjunction by conjunction.
    pub fn intersect(&self, other: &Formula) -> Formula {
        debug_assert_eq!(self.arity, other.arity);
        let identity = |i: usize| Var::Tuple(i);
        let mut out = Vec::new();
        for a in &self.conjuncts {
            for b in &other.conjuncts {
                let parts = [
                    Part {
                        conj: a,
                        tuple_map: &identity,
                    },
                    Part {
                        conj: b,
                        tuple_map: &identity,
                    },
                ];
                if let Some(c) = combine(a.tuple_names().to_vec(), Vec::new(), &parts) {
                    out.push(c);
                }
            }
        }
        Formula::from_conjunctions(self.arity, out).simplify()
    }

    /// Simplifies every conjunction and drops those found unsatisfiable.
    pub fn simplify(&self) -> Formula {
        let out = self
            .conjuncts
            .iter()
            .filter_map(|c| simplify_conjunction(c.clone()))
            .collect();
        Formula::from_conjunctions(self.arity, out)
    }

    /// Existentially quantifies the tuple positions for which `drop` is true
    /// and simplifies; the remaining positions keep their order.
    pub fn project_positions(&self, drop: &dyn Fn(usize) -> bool) -> Formula {
        let kept = (0..self.arity).filter(|&i| !drop(i)).count();
        let out = self
            .conjuncts
            .iter()
            .map(|c| {
                let mut c = c.clone();
                // Highest position first so that lower positions stay put.
                for i in (0..self.arity).rev().filter(|&i| drop(i)) {
                    c.tuple_to_exist(i);
                }
                c
            })
            .collect();
        Formula::from_conjunctions(kept, out).simplify()
    }

    /// Reorders the tuple: position `i` moves to `perm(i)`, which must be a
    /// permutation of `0..arity`.
    pub fn permute(&self, perm: &dyn Fn(usize) -> usize) -> Formula {
        let out = self
            .conjuncts
            .iter()
            .filter_map(|c| {
                let mut names = vec![String::new(); self.arity];
                for (i, n) in c.tuple_names().iter().enumerate() {
                    names[perm(i)] = n.clone();
                }
                let map = |i: usize| Var::Tuple(perm(i));
                combine(
                    names,
                    Vec::new(),
                    &[Part {
                        conj: c,
                        tuple_map: &map,
                    }],
                )
            })
            .collect();
        Formula::from_conjunctions(self.arity, out)
    }
}

impl Formula {
    /// The tuple position called `name`, when every conjunction agrees on it.
    pub fn position_of(&self, name: &str) -> Option<usize> {
        let mut found = None;
        for c in &self.conjuncts {
            let p = c.tuple_names().iter().position(|n| n == name)?;
            if found.is_some_and(|f| f != p) {
                return None;
            }
            found = Some(p);
        }
        found
    }
}

impl Formula {
    /// Rewrites every constraint's expression with `f` (variables keep their
    /// meaning; use it to rename symbols and UFs). Conjunctions that become
    /// trivially false are dropped.
    pub fn map_exprs(&self, f: &dyn Fn(&Expr) -> Expr) -> Formula {
        let out = self
            .conjuncts
            .iter()
            .filter_map(|c| {
                let mut c = c.clone();
                c.map_constraints(|k| k.map_expr(f)).ok()?;
                Some(c)
            })
            .collect();
        Formula::from_conjunctions(self.arity, out)
    }
}
