//! Schedules in the dissertation's form: each time dimension is a constant
//! or one of the statement's iterators (`{[i,j] -> [0,i,0,j,0]}`).

use crate::conjunction::Conjunction;
use crate::constraint::Constraint;
use crate::expr::{Atom, Expr, Var};
use crate::formula::Formula;
use crate::relation::Relation;
use crate::set::Set;

/// One dimension of a statement's time tuple.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScheduleDim {
    /// A fixed position among siblings.
    Const(i64),
    /// A loop over the iterator at this position of the domain tuple.
    Iter(usize),
}

/// Why a schedule is not of the supported form.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// The schedule's input arity differs from the domain's.
    #[error("the schedule takes {schedule} iterators but the domain has {domain}")]
    Arity {
        /// Schedule input arity.
        schedule: usize,
        /// Domain arity.
        domain: usize,
    },
    /// A union or an existential: not a single function.
    #[error("the schedule must be one conjunction without existential variables")]
    NotSimple,
    /// A time dimension that is neither a constant nor an iterator.
    #[error("time dimension {0} must equal a constant or one iterator")]
    Dimension(usize),
}

/// Reads the time dimensions of `schedule` for a domain of arity `domain_arity`.
pub fn schedule_dims(
    schedule: &Relation,
    domain_arity: usize,
) -> Result<Vec<ScheduleDim>, ScheduleError> {
    if schedule.in_arity() != domain_arity {
        return Err(ScheduleError::Arity {
            schedule: schedule.in_arity(),
            domain: domain_arity,
        });
    }
    let s = schedule.simplify();
    let [c] = s.conjunctions() else {
        return Err(ScheduleError::NotSimple);
    };
    if c.num_exists() > 0 {
        return Err(ScheduleError::NotSimple);
    }
    let n = domain_arity;
    (0..schedule.out_arity())
        .map(|d| {
            let out = Var::Tuple(n + d);
            c.constraints()
                .filter(|k| k.is_eq() && k.coefficient(&Atom::Var(out)).abs() == 1)
                .find_map(|k| {
                    let coef = k.coefficient(&Atom::Var(out));
                    let mut rest = k.expr().clone();
                    rest.add_term(Atom::Var(out), -coef);
                    let value = rest.scale(-coef);
                    if let Some(v) = value.as_constant() {
                        return Some(ScheduleDim::Const(v));
                    }
                    match value.as_var() {
                        Some(Var::Tuple(p)) if p < n => Some(ScheduleDim::Iter(p)),
                        _ => None,
                    }
                })
                .ok_or(ScheduleError::Dimension(d))
        })
        .collect()
}

/// The schedule `{[names] -> [dims]}` of a statement over `domain` (whose
/// arity is `names.len()`): each time dimension a constant or one iterator,
/// the 2d+1 form that `schedule_dims` reads back.
pub fn schedule_relation(domain: &Set, names: &[String], dims: &[ScheduleDim]) -> Relation {
    let n = domain.arity();
    let mut tuple = names.to_vec();
    tuple.extend((0..dims.len()).map(|d| format!("c{d}")));
    let constraints = dims.iter().enumerate().map(|(d, dim)| {
        let out = Expr::var(Var::Tuple(n + d));
        match dim {
            ScheduleDim::Const(c) => Constraint::equal(&out, &Expr::constant(*c)),
            ScheduleDim::Iter(p) => Constraint::equal(&out, &Expr::var(Var::Tuple(*p))),
        }
    });
    let conj = Conjunction::from_parts(tuple, Vec::new(), constraints)
        .expect("schedule equalities are satisfiable");
    Relation::from_formula(n, Formula::from_conjunctions(n + dims.len(), vec![conj]))
}
