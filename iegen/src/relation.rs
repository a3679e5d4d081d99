//! Relations between integer tuples, with inverse, composition and application.

use crate::conjunction::Conjunction;
use crate::error::{check_arity, check_position, Error};
use crate::expr::Var;
use crate::formula::{combine, Formula, Part};
use crate::set::Set;

/// A relation `{[x] -> [y] : constraints}` between integer tuples, possibly a union.
///
/// Internally a [`Formula`] over the concatenated tuple (inputs first).
///
/// ```
/// use iegen::Relation;
/// let r1: Relation = "{[v,s] -> [w,t] : w = v + 2 && t = f(s)}".parse().unwrap();
/// let r2: Relation = "{[x,z,r] -> [y,i] : y = x + z - r - 7 && i = r + 2}".parse().unwrap();
/// let c = r1.compose(&r2).unwrap();
/// assert_eq!(c.to_string(), "{[x, z, r] -> [w, t] : w = x + z - r - 5 && t = f(r + 2)}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Relation {
    in_arity: usize,
    formula: Formula,
}

impl Relation {
    /// Wraps a formula whose first `in_arity` positions are the input tuple.
    pub fn from_formula(in_arity: usize, formula: Formula) -> Self {
        assert!(
            in_arity <= formula.arity(),
            "input arity exceeds formula arity"
        );
        Relation { in_arity, formula }
    }

    /// The empty relation.
    pub fn empty(in_arity: usize, out_arity: usize) -> Self {
        Relation::from_formula(in_arity, Formula::empty(in_arity + out_arity))
    }

    /// The underlying union of conjunctions over (input ++ output).
    pub fn formula(&self) -> &Formula {
        &self.formula
    }

    /// The conjunctions of the union.
    pub fn conjunctions(&self) -> &[Conjunction] {
        self.formula.conjunctions()
    }

    /// Arity of the input tuple.
    pub fn in_arity(&self) -> usize {
        self.in_arity
    }

    /// Arity of the output tuple.
    pub fn out_arity(&self) -> usize {
        self.formula.arity() - self.in_arity
    }

    /// `{[y] -> [x] : [x] -> [y] ∈ self}`.
    pub fn inverse(&self) -> Relation {
        let (n_in, n_out) = (self.in_arity, self.out_arity());
        let perm = move |i: usize| if i < n_in { i + n_out } else { i - n_in };
        Relation::from_formula(n_out, self.formula.permute(&perm).simplify())
    }

    /// `self ∘ inner`: apply `inner` first, then `self`. The intermediate
    /// tuple becomes existential and is substituted away wherever `inner`
    /// defines it by an equality (Strout's composition theorem), inside UF
    /// arguments too; otherwise it is kept as an existential.
    pub fn compose(&self, inner: &Relation) -> Result<Relation, Error> {
        check_arity("compose", inner.out_arity(), self.in_arity)?;
        let (nx, m, nz) = (inner.in_arity, self.in_arity, self.out_arity());
        let mut out = Vec::new();
        for c2 in inner.conjunctions() {
            for c1 in self.conjunctions() {
                let names: Vec<String> = c2.tuple_names()[..nx]
                    .iter()
                    .chain(&c1.tuple_names()[m..])
                    .cloned()
                    .collect();
                let shared = c2.tuple_names()[nx..].to_vec();
                let inner_map = move |i: usize| {
                    if i < nx {
                        Var::Tuple(i)
                    } else {
                        Var::Exist(i - nx)
                    }
                };
                let outer_map = move |i: usize| {
                    if i < m {
                        Var::Exist(i)
                    } else {
                        Var::Tuple(nx + i - m)
                    }
                };
                let parts = [
                    Part {
                        conj: c2,
                        tuple_map: &inner_map,
                    },
                    Part {
                        conj: c1,
                        tuple_map: &outer_map,
                    },
                ];
                out.extend(combine(names, shared, &parts));
            }
        }
        Ok(Relation::from_formula(
            nx,
            Formula::from_conjunctions(nx + nz, out).simplify(),
        ))
    }

    /// The image of `set` under the relation: `{[y] : exists x in set, [x] -> [y]}`.
    pub fn apply(&self, set: &Set) -> Result<Set, Error> {
        check_arity("apply", set.arity(), self.in_arity)?;
        let (n, ny) = (self.in_arity, self.out_arity());
        let mut out = Vec::new();
        for s in set.conjunctions() {
            for r in self.conjunctions() {
                let names = r.tuple_names()[n..].to_vec();
                let shared = r.tuple_names()[..n].to_vec();
                let set_map = |i: usize| Var::Exist(i);
                let rel_map = move |i: usize| {
                    if i < n {
                        Var::Exist(i)
                    } else {
                        Var::Tuple(i - n)
                    }
                };
                let parts = [
                    Part {
                        conj: s,
                        tuple_map: &set_map,
                    },
                    Part {
                        conj: r,
                        tuple_map: &rel_map,
                    },
                ];
                out.extend(combine(names, shared, &parts));
            }
        }
        Ok(Set::from_formula(
            Formula::from_conjunctions(ny, out).simplify(),
        ))
    }

    /// `{[x] : exists y, [x] -> [y]}`.
    pub fn domain(&self) -> Set {
        let n = self.in_arity;
        Set::from_formula(self.formula.project_positions(&|i| i >= n))
    }

    /// `{[y] : exists x, [x] -> [y]}`.
    pub fn range(&self) -> Set {
        let n = self.in_arity;
        Set::from_formula(self.formula.project_positions(&|i| i < n))
    }

    /// `self ∪ other`; both must have the same input and output arities.
    pub fn union(&self, other: &Relation) -> Result<Relation, Error> {
        check_arity("union", self.in_arity, other.in_arity)?;
        check_arity("union", self.out_arity(), other.out_arity())?;
        Ok(Relation::from_formula(
            self.in_arity,
            self.formula.union(&other.formula),
        ))
    }

    /// `self ∩ other`; both must have the same input and output arities.
    pub fn intersect(&self, other: &Relation) -> Result<Relation, Error> {
        check_arity("intersect", self.in_arity, other.in_arity)?;
        check_arity("intersect", self.out_arity(), other.out_arity())?;
        Ok(Relation::from_formula(
            self.in_arity,
            self.formula.intersect(&other.formula),
        ))
    }

    /// Exact syntactic simplification (see [`crate::simplify`]).
    pub fn simplify(&self) -> Relation {
        Relation::from_formula(self.in_arity, self.formula.simplify())
    }

    /// Removes tuple position `position` of (input ++ output), existentially
    /// quantifying it; the position is counted over the concatenated tuple.
    pub fn project_out(&self, position: usize) -> Result<Relation, Error> {
        check_position(position, self.formula.arity())?;
        let in_arity = if position < self.in_arity {
            self.in_arity - 1
        } else {
            self.in_arity
        };
        Ok(Relation::from_formula(
            in_arity,
            self.formula.project_positions(&|i| i == position),
        ))
    }

    /// The position named `name` in the concatenated tuple of every conjunction, if unique.
    pub fn position_of(&self, name: &str) -> Option<usize> {
        self.formula.position_of(name)
    }

    /// The relation's constraints read as a set over (input ++ output).
    pub fn as_set(&self) -> Set {
        Set::from_formula(self.formula.clone())
    }

    /// Rewrites every constraint's expression with `f` (see [`Formula::map_exprs`]).
    pub fn map_exprs(&self, f: &dyn Fn(&crate::Expr) -> crate::Expr) -> Relation {
        Relation::from_formula(self.in_arity, self.formula.map_exprs(f))
    }
}
