//! Sets of integer tuples described by constraints with uninterpreted functions.

use crate::conjunction::Conjunction;
use crate::formula::Formula;

/// A set of integer tuples `{[i, j] : constraints}`, possibly a union.
///
/// Values are canonical: two sets that print the same are equal, and
/// alpha-renaming does not change a set. Semantic comparisons (emptiness,
/// subset, equality for all values of the UFs and symbols) go through
/// [`Prover`](crate::Prover).
///
/// ```
/// use iegen::Set;
/// let s: Set = "{[i,j] : 0 <= i < N && j = col(i)}".parse().unwrap();
/// assert_eq!(s.arity(), 2);
/// assert_eq!(s.to_string(), "{[i, j] : j = col(i) && 0 <= i < N}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Set {
    formula: Formula,
}

impl Set {
    /// Wraps a formula as a set.
    pub fn from_formula(formula: Formula) -> Self {
        Set { formula }
    }

    /// The empty set of `arity`-tuples.
    pub fn empty(arity: usize) -> Self {
        Set::from_formula(Formula::empty(arity))
    }

    /// All `arity`-tuples.
    pub fn universe(arity: usize) -> Self {
        Set::from_formula(Formula::universe(arity))
    }

    /// The underlying union of conjunctions.
    pub fn formula(&self) -> &Formula {
        &self.formula
    }

    /// The tuple arity.
    pub fn arity(&self) -> usize {
        self.formula.arity()
    }

    /// The conjunctions of the union.
    pub fn conjunctions(&self) -> &[Conjunction] {
        self.formula.conjunctions()
    }

    /// `self ∪ other`; both must have the same arity.
    pub fn union(&self, other: &Set) -> Result<Set, crate::Error> {
        crate::error::check_arity("union", self.arity(), other.arity())?;
        Ok(Set::from_formula(self.formula.union(&other.formula)))
    }

    /// `self ∩ other`; both must have the same arity.
    pub fn intersect(&self, other: &Set) -> Result<Set, crate::Error> {
        crate::error::check_arity("intersect", self.arity(), other.arity())?;
        Ok(Set::from_formula(self.formula.intersect(&other.formula)))
    }

    /// Exact syntactic simplification (see [`crate::simplify`]).
    pub fn simplify(&self) -> Set {
        Set::from_formula(self.formula.simplify())
    }

    /// Removes tuple position `position`, existentially quantifying it. The
    /// result is exact: where the variable cannot be eliminated (a UF argument
    /// needs it, or Fourier–Motzkin would be inexact) it stays as an
    /// existential.
    pub fn project_out(&self, position: usize) -> Result<Set, crate::Error> {
        crate::error::check_position(position, self.arity())?;
        Ok(Set::from_formula(
            self.formula.project_positions(&|i| i == position),
        ))
    }

    /// The tuple position named `name` in every conjunction, if it is the same everywhere.
    pub fn position_of(&self, name: &str) -> Option<usize> {
        self.formula.position_of(name)
    }

    /// Rewrites every constraint's expression with `f` (see [`Formula::map_exprs`]).
    pub fn map_exprs(&self, f: &dyn Fn(&crate::Expr) -> crate::Expr) -> Set {
        Set::from_formula(self.formula.map_exprs(f))
    }
}
