//! Propositional formulas over atomic constraints.
//!
//! The facts that a [`UfEnvironment`](crate::UfEnvironment) contributes to a
//! query (domain ⇒ range, monotonicity, user rules) are implications between
//! conjunctions and unions of constraints; this is their common shape before
//! the solver bridge translates them.

use crate::constraint::{Constraint, Normalized};
use crate::expr::{Expr, Var};

/// A boolean combination of constraints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prop {
    /// One atomic constraint.
    Atom(Constraint),
    /// All of them (`And(vec![])` is true).
    And(Vec<Prop>),
    /// One of them (`Or(vec![])` is false).
    Or(Vec<Prop>),
    /// The negation.
    Not(Box<Prop>),
    /// The implication.
    Implies(Box<Prop>, Box<Prop>),
}

impl Prop {
    /// The constant true.
    pub fn truth() -> Prop {
        Prop::And(Vec::new())
    }

    /// The constant false.
    pub fn falsity() -> Prop {
        Prop::Or(Vec::new())
    }

    /// A normalized constraint as a proposition.
    pub fn from_normalized(n: Normalized) -> Prop {
        match n {
            Normalized::True => Prop::truth(),
            Normalized::False => Prop::falsity(),
            Normalized::Constraint(c) => Prop::Atom(c),
        }
    }

    /// `premise ⇒ conclusion`.
    pub fn implies(premise: Prop, conclusion: Prop) -> Prop {
        Prop::Implies(Box::new(premise), Box::new(conclusion))
    }

    /// Replaces variables by expressions (`f` returns `None` to keep one).
    pub fn substitute(&self, f: &mut impl FnMut(Var) -> Option<Expr>) -> Prop {
        match self {
            Prop::Atom(c) => Prop::from_normalized(c.map_expr(|e| e.substitute(f))),
            Prop::And(ps) => Prop::And(ps.iter().map(|p| p.substitute(f)).collect()),
            Prop::Or(ps) => Prop::Or(ps.iter().map(|p| p.substitute(f)).collect()),
            Prop::Not(p) => Prop::Not(Box::new(p.substitute(f))),
            Prop::Implies(a, b) => Prop::implies(a.substitute(f), b.substitute(f)),
        }
    }

    /// Calls `visit` on every atomic constraint.
    pub fn for_each_constraint<'a>(&'a self, visit: &mut impl FnMut(&'a Constraint)) {
        match self {
            Prop::Atom(c) => visit(c),
            Prop::And(ps) | Prop::Or(ps) => ps.iter().for_each(|p| p.for_each_constraint(visit)),
            Prop::Not(p) => p.for_each_constraint(visit),
            Prop::Implies(a, b) => {
                a.for_each_constraint(visit);
                b.for_each_constraint(visit);
            }
        }
    }
}
