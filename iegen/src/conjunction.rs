//! A conjunction of constraints over a tuple and existential variables.

use std::cmp::Ordering;
use std::collections::BTreeSet;

use crate::constraint::{Constraint, Normalized};
use crate::expr::{Expr, Var};

/// The conjunction became unsatisfiable while being built (a constraint
/// normalized to `false`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contradiction;

/// `{ [t0, ..., tn-1] : exists e0, ..., em-1 : c1 && c2 && ... }`.
///
/// Tuple variables are positions `0..arity`; for a relation the input tuple
/// comes first. The names are kept for printing only: equality and ordering
/// ignore them, so alpha-equivalent conjunctions are equal.
#[derive(Clone, Debug)]
pub struct Conjunction {
    tuple_names: Vec<String>,
    exist_names: Vec<String>,
    constraints: BTreeSet<Constraint>,
}

impl PartialEq for Conjunction {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Conjunction {}

impl PartialOrd for Conjunction {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Conjunction {
    fn cmp(&self, other: &Self) -> Ordering {
        (
            self.tuple_names.len(),
            self.exist_names.len(),
            &self.constraints,
        )
            .cmp(&(
                other.tuple_names.len(),
                other.exist_names.len(),
                &other.constraints,
            ))
    }
}

impl Conjunction {
    /// The unconstrained conjunction over a tuple with these names.
    pub fn universe(tuple_names: Vec<String>) -> Self {
        Conjunction {
            tuple_names,
            exist_names: Vec::new(),
            constraints: BTreeSet::new(),
        }
    }

    /// The unconstrained conjunction over `arity` tuple variables named `t0`, `t1`, ...
    pub fn universe_of_arity(arity: usize) -> Self {
        Self::universe((0..arity).map(|i| format!("t{i}")).collect())
    }

    /// Builds a conjunction; `None` when one of the constraints is trivially false.
    pub fn from_parts(
        tuple_names: Vec<String>,
        exist_names: Vec<String>,
        constraints: impl IntoIterator<Item = Normalized>,
    ) -> Option<Self> {
        let mut c = Conjunction {
            tuple_names,
            exist_names,
            constraints: BTreeSet::new(),
        };
        for n in constraints {
            c.add(n).ok()?;
        }
        Some(c)
    }

    /// Number of tuple variables.
    pub fn arity(&self) -> usize {
        self.tuple_names.len()
    }

    /// Number of existential variables.
    pub fn num_exists(&self) -> usize {
        self.exist_names.len()
    }

    /// Printing names of the tuple variables.
    pub fn tuple_names(&self) -> &[String] {
        &self.tuple_names
    }

    /// Printing names of the existential variables.
    pub fn exist_names(&self) -> &[String] {
        &self.exist_names
    }

    /// Replaces the printing names of the tuple variables (same length).
    pub fn set_tuple_names(&mut self, names: Vec<String>) {
        debug_assert_eq!(names.len(), self.tuple_names.len());
        self.tuple_names = names;
    }

    /// The constraints, in canonical order.
    pub fn constraints(&self) -> impl Iterator<Item = &Constraint> + '_ {
        self.constraints.iter()
    }

    /// Number of constraints.
    pub fn num_constraints(&self) -> usize {
        self.constraints.len()
    }

    /// Adds a normalized constraint; trivially true ones are dropped.
    pub fn add(&mut self, n: Normalized) -> Result<(), Contradiction> {
        match n {
            Normalized::True => Ok(()),
            Normalized::False => Err(Contradiction),
            Normalized::Constraint(c) => {
                self.constraints.insert(c);
                Ok(())
            }
        }
    }

    /// Removes one constraint (no-op when absent).
    pub fn remove(&mut self, c: &Constraint) {
        self.constraints.remove(c);
    }

    /// Whether the conjunction contains exactly this constraint.
    pub fn contains(&self, c: &Constraint) -> bool {
        self.constraints.contains(c)
    }

    /// Adds a fresh existential variable and returns it.
    pub fn push_exist(&mut self, name: impl Into<String>) -> Var {
        self.exist_names.push(name.into());
        Var::Exist(self.exist_names.len() - 1)
    }

    /// Rewrites every constraint with `f`; `Err` when one becomes false.
    pub fn map_constraints(
        &mut self,
        mut f: impl FnMut(&Constraint) -> Normalized,
    ) -> Result<(), Contradiction> {
        let old = std::mem::take(&mut self.constraints);
        for c in &old {
            self.add(f(c))?;
        }
        Ok(())
    }

    /// Replaces variable `v` by `by` in every constraint.
    pub fn substitute(&mut self, v: Var, by: &Expr) -> Result<(), Contradiction> {
        self.map_constraints(|c| {
            if c.mentions(v) {
                c.substitute_var(v, by)
            } else {
                Normalized::Constraint(c.clone())
            }
        })
    }

    /// Whether `v` occurs in any constraint.
    pub fn mentions(&self, v: Var) -> bool {
        self.constraints.iter().any(|c| c.mentions(v))
    }

    /// Removes an existential variable that no constraint mentions any more,
    /// renumbering the later ones.
    pub fn remove_unused_exist(&mut self, index: usize) {
        debug_assert!(!self.mentions(Var::Exist(index)));
        self.exist_names.remove(index);
        let old = std::mem::take(&mut self.constraints);
        for c in &old {
            let n = c.map_expr(|e| {
                e.rename_vars(&mut |v| match v {
                    Var::Exist(j) if j > index => Var::Exist(j - 1),
                    v => v,
                })
            });
            if let Normalized::Constraint(c) = n {
                self.constraints.insert(c);
            }
        }
    }

    /// Moves tuple variable `position` into the existentials (it is projected
    /// out of the tuple); later tuple positions shift down by one. Returns the
    /// new existential.
    pub fn tuple_to_exist(&mut self, position: usize) -> Var {
        let name = self.tuple_names.remove(position);
        let new = Var::Exist(self.exist_names.len());
        self.exist_names.push(name);
        let old = std::mem::take(&mut self.constraints);
        for c in &old {
            let n = c.map_expr(|e| {
                e.rename_vars(&mut |v| match v {
                    Var::Tuple(j) if j == position => new,
                    Var::Tuple(j) if j > position => Var::Tuple(j - 1),
                    v => v,
                })
            });
            if let Normalized::Constraint(c) = n {
                self.constraints.insert(c);
            }
        }
        new
    }

    /// Embeds this conjunction into a larger variable layout: tuple position
    /// `i` becomes `tuple_map(i)`, existential `j` becomes `Exist(exist_offset + j)`.
    /// Returns the rewritten constraints.
    pub fn embedded_constraints(
        &self,
        tuple_map: &dyn Fn(usize) -> Var,
        exist_offset: usize,
    ) -> Vec<Normalized> {
        self.constraints
            .iter()
            .map(|c| {
                c.map_expr(|e| {
                    e.rename_vars(&mut |v| match v {
                        Var::Tuple(i) => tuple_map(i),
                        Var::Exist(j) => Var::Exist(exist_offset + j),
                    })
                })
            })
            .collect()
    }

    /// The symbolic constants mentioned, sorted and deduplicated.
    pub fn symbols(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for c in &self.constraints {
            c.expr().for_each_sym(&mut |s| {
                out.insert(s.to_string());
            });
        }
        out
    }

    /// The names of the UFs called, sorted and deduplicated.
    pub fn uf_names(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for c in &self.constraints {
            c.expr().for_each_call(&mut |name, _| {
                out.insert(name.to_string());
            });
        }
        out
    }
}
