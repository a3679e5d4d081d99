//! Choosing the synthesis plan: which candidates compute each unknown, and
//! in which order, by estimated cost with an integer linear program.
//!
//! The ILP (good_lp with the pure-Rust microlp solver) has a binary variable
//! per usable candidate and per permutation (one for each destination
//! position that no ordered UF defines), and an integer time slot per
//! unknown. Constraints:
//! - every unknown is computed by at least one chosen candidate;
//! - a chosen candidate runs after every unknown it reads and after the
//!   permutation or ordered UF that gives the positions it needs.
//!
//! The objective is the estimated cost of the chosen statements.
//!
//! A candidate is *usable* when it fits a case and, for a bound (Cases 2
//! and 3), when its value ranges over a destination position: then the
//! extreme over all entries is attained, so `max` gives the value itself
//! (`NNZ_out >= k + 1` over every entry is `NNZ_out`), while a bound such as
//! `NNZ_out >= rowptr(ii) + 1` only follows from the others and would
//! compute a wrong value.

use std::collections::{BTreeMap, BTreeSet};

use good_lp::{
    constraint, default_solver, variable, Expression, ProblemVariables, Solution, SolverModel,
    Variable,
};

use crate::candidate::{Candidate, Candidates, SynthesisCase};
use crate::conversion::Conversion;

/// What the plan computes in one step.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Sort the source entries into destination order for a position.
    Permutation {
        /// The destination tuple position the permutation gives.
        position: usize,
    },
    /// Compute an unknown UF or symbol with these candidates.
    Unknown {
        /// The unknown.
        name: String,
        /// The chosen candidates (one statement each).
        chosen: Vec<Candidate>,
    },
}

/// The chosen candidates, in an order that respects their dependences.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The steps in execution order.
    pub steps: Vec<Step>,
    /// The ILP's objective value (the estimated cost).
    pub cost: f64,
}

/// Why no plan exists.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// An unknown with no usable candidate.
    #[error("cannot synthesize `{unknown}`: {reason}")]
    Unsolvable {
        /// The unknown UF or symbol.
        unknown: String,
        /// What it lacks, with the constraints that mention it.
        reason: String,
    },
    /// The dependences are circular, or the solver failed.
    #[error("no order computes every unknown: {0}")]
    NoSchedule(String),
}

/// Rough sizes used by the cost estimate: source entries dominate.
const ENTRY_COST: f64 = 1000.0;
/// A sort of the entries (comparison sort; counting sort is cheaper but
/// the plan's choice does not depend on it).
const PERMUTATION_COST: f64 = 3000.0;

/// Whether a candidate can be a statement of the plan (see the module docs).
/// A min or max must be over the entries' positions, and its value must
/// vary with them: `rp(p) >= 0` at DCSR's row positions `p` bounds `rp` by
/// a constant and would define nothing.
pub fn usable(c: &Candidate) -> bool {
    match c.case {
        None => false,
        Some(SynthesisCase::Min | SynthesisCase::Max) => {
            let mut varies = false;
            c.value.for_each_var(&mut |_| varies = true);
            (!c.needs_positions.is_empty() && varies) || bound_by_array(c)
        }
        Some(_) => true,
    }
}

/// A max of another unknown array at the entries (`NNZ_out >= sky(ii +
/// 1)`): where the array is a profile's prefix sums, the last entry's
/// attains its total. Usable, at a higher cost than a max over positions,
/// for a size no position gives.
fn bound_by_array(c: &Candidate) -> bool {
    let mut terms = c.value.terms();
    let bare = match (terms.next(), terms.next()) {
        (Some((iegen::Atom::Uf(name, _), 1)), None) => c.reads_unknowns.contains(name),
        _ => false,
    };
    c.case == Some(SynthesisCase::Max)
        && c.needs_positions.is_empty()
        && bare
        && c.value.constant_term() == 0
}

/// The estimated cost of running one candidate's statement.
fn cost(c: &Candidate) -> f64 {
    let case = match c.case {
        // Prefer equalities (they cover the UF), then max over min
        // (a max needs no initial infinity).
        Some(SynthesisCase::Assign) => 0.0,
        Some(SynthesisCase::InsertFromInput) => 1.0,
        Some(SynthesisCase::InsertOrdered) => 2.0,
        Some(SynthesisCase::Max) if bound_by_array(c) => 5.0,
        Some(SynthesisCase::Max | SynthesisCase::Profile) => 3.0,
        Some(SynthesisCase::Min) => 4.0,
        None => 1e6,
    };
    // Every statement visits the source entries once; reads of other
    // unknowns and positions cost a little more, and a call a little
    // (`col_out(k) = jj` over `= col(n)`: the loop has `jj` at hand).
    let mut calls = 0;
    c.value.for_each_call(&mut |_, _| calls += 1);
    ENTRY_COST
        + case
        + 0.5 * (c.reads_unknowns.len() + c.needs_positions.len()) as f64
        + 0.1 * f64::from(calls)
}

/// Chooses a plan for `conv` from its candidates.
pub fn choose(conv: &Conversion, cands: &Candidates) -> Result<Plan, PlanError> {
    choose_excluding(conv, cands, &[])
}

/// Chooses the cheapest plan for `conv` that contains none of `refuted`:
/// each refuted plan's choices (its candidates and permutations) may not
/// all be chosen again. Synthesis calls it with the plans that lowering
/// refused or validation refuted, so that plans are tried in order of cost
/// until one is correct.
pub fn choose_excluding(
    conv: &Conversion,
    cands: &Candidates,
    refuted: &[Plan],
) -> Result<Plan, PlanError> {
    let unknowns: Vec<String> = cands.by_unknown.keys().cloned().collect();
    // Usable candidates of each unknown.
    let mut usable_by: BTreeMap<&str, Vec<&Candidate>> = BTreeMap::new();
    for (u, list) in &cands.by_unknown {
        let ok: Vec<&Candidate> = list.iter().filter(|c| usable(c)).collect();
        if ok.is_empty() {
            let names = crate::candidate::display_names(conv);
            let mentioned: Vec<String> = list.iter().map(|c| c.describe(&names)).collect();
            let reason = if mentioned.is_empty() {
                "no constraint of the composed relation mentions it".to_string()
            } else {
                format!(
                    "none of its constraints defines it ({})",
                    mentioned.join("; ")
                )
            };
            return Err(PlanError::Unsolvable {
                unknown: u.clone(),
                reason,
            });
        }
        usable_by.insert(u.as_str(), ok);
    }
    // Positions an ordered UF (Case 5) defines; the others need a permutation.
    let mut ordered_defines: BTreeMap<usize, Vec<(&str, usize)>> = BTreeMap::new();
    for (u, list) in &usable_by {
        for (i, c) in list.iter().enumerate() {
            if c.case == Some(SynthesisCase::InsertOrdered) {
                for p in &c.needs_positions {
                    ordered_defines.entry(*p).or_default().push((u, i));
                }
            }
        }
    }
    let positions: BTreeSet<usize> = usable_by
        .values()
        .flatten()
        .flat_map(|c| c.needs_positions.iter().copied())
        .collect();

    let mut vars = ProblemVariables::new();
    let n_slots = (unknowns.len() + positions.len() + 1) as f64;
    let pick: BTreeMap<(&str, usize), Variable> = usable_by
        .iter()
        .flat_map(|(u, list)| (0..list.len()).map(move |i| (*u, i)))
        .map(|key| (key, vars.add(variable().binary())))
        .collect();
    let perm: BTreeMap<usize, Variable> = positions
        .iter()
        .map(|p| (*p, vars.add(variable().binary())))
        .collect();
    let slot: BTreeMap<&str, Variable> = unknowns
        .iter()
        .map(|u| {
            (
                u.as_str(),
                vars.add(variable().integer().min(0).max(n_slots)),
            )
        })
        .collect();
    let perm_slot: BTreeMap<usize, Variable> = positions
        .iter()
        .map(|p| (*p, vars.add(variable().integer().min(0).max(n_slots))))
        .collect();

    let mut objective = Expression::from(0.0);
    for ((u, i), v) in &pick {
        objective += cost(usable_by[u][*i]) * *v;
    }
    for v in perm.values() {
        objective += PERMUTATION_COST * *v;
    }
    let mut model = vars.minimise(objective).using(default_solver);
    let big = n_slots + 1.0;
    for (u, list) in &usable_by {
        let cover: Expression = (0..list.len()).map(|i| pick[&(*u, i)]).sum();
        model = model.with(constraint!(cover >= 1.0));
        for (i, c) in list.iter().enumerate() {
            let x = pick[&(*u, i)];
            // After every unknown it reads.
            for r in &c.reads_unknowns {
                if let (Some(tu), Some(tr)) = (slot.get(u), slot.get(r.as_str())) {
                    model = model.with(constraint!(*tu >= *tr + 1.0 - big * (1.0 - x)));
                }
            }
            // After what gives its positions.
            for p in &c.needs_positions {
                let definers: Vec<&(&str, usize)> = ordered_defines
                    .get(p)
                    .map(|d| d.iter().filter(|(du, di)| !(du == u && *di == i)).collect())
                    .unwrap_or_default();
                let defines_itself = c.case == Some(SynthesisCase::InsertOrdered);
                if defines_itself {
                    continue;
                }
                // x <= perm_p + sum of the ordered definers of p
                let mut given: Expression = perm[p].into();
                for (du, di) in &definers {
                    given += pick[&(*du, *di)];
                }
                model = model.with(constraint!(x <= given));
                let tu = slot[u];
                model = model.with(constraint!(tu >= perm_slot[p] + 1.0 - big * (1.0 - x)));
                for (du, _) in &definers {
                    if du != u {
                        model = model.with(constraint!(tu >= slot[du] + 1.0 - big * (1.0 - x)));
                    }
                }
            }
        }
    }
    for plan in refuted {
        // Σ (its choices) <= (how many) - 1: not all of them again.
        let mut chosen = Expression::from(0.0);
        let mut count = 0.0;
        for step in &plan.steps {
            match step {
                Step::Permutation { position } => {
                    if let Some(v) = perm.get(position) {
                        chosen += *v;
                        count += 1.0;
                    }
                }
                Step::Unknown { name, chosen: cs } => {
                    for c in cs {
                        let i = usable_by
                            .get(name.as_str())
                            .and_then(|list| list.iter().position(|x| *x == c));
                        if let Some(i) = i {
                            chosen += pick[&(name.as_str(), i)];
                            count += 1.0;
                        }
                    }
                }
            }
        }
        if count > 0.0 {
            model = model.with(constraint!(chosen <= count - 1.0));
        }
    }
    let solution = model
        .solve()
        .map_err(|e| PlanError::NoSchedule(e.to_string()))?;

    // Read the plan back, ordered by time slot.
    let mut steps: Vec<(f64, usize, Step)> = Vec::new();
    for (p, v) in &perm {
        if solution.value(*v) > 0.5 {
            steps.push((
                solution.value(perm_slot[p]),
                0,
                Step::Permutation { position: *p },
            ));
        }
    }
    let mut cost_total = 0.0;
    for (u, list) in &usable_by {
        let mut chosen: Vec<Candidate> = (0..list.len())
            .filter(|i| solution.value(pick[&(*u, *i)]) > 0.5)
            .map(|i| list[i].clone())
            .collect();
        // A profile's increment is the largest of every lower bound the
        // closure derives for it (`ii - jj + 1`, but also `1` and weaker
        // ones): all of them, so that their maximum is the tight one.
        if chosen
            .iter()
            .any(|c| c.case == Some(SynthesisCase::Profile))
        {
            for c in list {
                if c.case == Some(SynthesisCase::Profile) && !chosen.contains(c) {
                    chosen.push((*c).clone());
                }
            }
        }
        cost_total += chosen.iter().map(cost).sum::<f64>();
        steps.push((
            solution.value(slot[u]),
            1,
            Step::Unknown {
                name: u.to_string(),
                chosen,
            },
        ));
    }
    cost_total +=
        perm.values().filter(|v| solution.value(**v) > 0.5).count() as f64 * PERMUTATION_COST;
    steps.sort_by(|a, b| {
        a.0.partial_cmp(&b.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.1.cmp(&b.1))
    });
    Ok(Plan {
        steps: steps.into_iter().map(|(_, _, s)| s).collect(),
        cost: cost_total,
    })
}
