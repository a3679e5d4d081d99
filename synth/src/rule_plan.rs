//! How each rule of a descriptor is checked on an instance: the plan that
//! [`crate::instance::validate`] runs and that `spf build`'s programs print
//! as C, so that both check exactly the same way.
//!
//! Each constraint `q` of a rule's conclusion gets a [`RuleCheck`]: adjacent
//! pairs (directly or through the contrapositive), a join on keys, or full
//! enumeration. [`crate::instance`]'s module documentation states when each
//! applies and proves the adjacent-pair shortcut.

use iegen::constraint::Normalized;
use iegen::{Atom, Constraint, ConstraintKind, Expr, UfRule, Var};

use crate::descriptor::Descriptor;

/// How one conclusion constraint of a rule is checked.
#[derive(Clone, Debug)]
pub enum RuleCheck {
    /// Enumerations of points (one or two [`Check`]s).
    Points(Vec<Check>),
    /// A join on keys.
    Join(Join),
}

/// The plan for each constraint of `rule`'s conclusion, in order.
pub fn rule_checks(d: &Descriptor, rule: &UfRule) -> Vec<RuleCheck> {
    rule.conclusion
        .iter()
        .map(|q| {
            if let Some(checks) = plan(d, &rule.premise, q) {
                RuleCheck::Points(checks)
            } else if let Some(join) = join_plan(d, rule, q) {
                RuleCheck::Join(join)
            } else {
                RuleCheck::Points(vec![Check {
                    premise: rule
                        .premise
                        .iter()
                        .cloned()
                        .map(Normalized::Constraint)
                        .collect(),
                    conclusion: q.clone(),
                    adjacent: false,
                }])
            }
        })
        .collect()
}

/// One enumeration of a rule check: the premise to enumerate (plus the
/// domain guards) and the conclusion to test at each point.
#[derive(Clone, Debug)]
pub struct Check {
    /// The premise's constraints, enumerated over the rule's variables.
    pub premise: Vec<Normalized>,
    /// The constraint tested at each point.
    pub conclusion: Constraint,
    /// Whether this check came from the adjacent-pair shortcut.
    pub adjacent: bool,
}

/// `(v1, v2, strict)` when `c` is `v1 < v2` (strict) or `v1 <= v2`.
fn order_constraint(c: &Constraint) -> Option<(Var, Var, bool)> {
    if c.kind() != ConstraintKind::Geq || c.expr().num_terms() != 2 {
        return None;
    }
    let strict = match c.expr().constant_term() {
        0 => false,
        -1 => true,
        _ => return None,
    };
    let mut lo = None;
    let mut hi = None;
    for (atom, coef) in c.expr().terms() {
        match (atom, coef) {
            (Atom::Var(v @ Var::Tuple(_)), 1) => hi = Some(*v),
            (Atom::Var(v @ Var::Tuple(_)), -1) => lo = Some(*v),
            _ => return None,
        }
    }
    Some((lo?, hi?, strict))
}

/// Whether `q` is `g(v2) - g(v1) >= m` (`m >= 0`), `g(v1) = g(v2)`, or a key
/// comparison of two calls of one comparator, `g` the same on both sides.
fn transitive(d: &Descriptor, q: &Constraint, v1: Var, v2: Var) -> bool {
    let e = q.expr();
    let constant = e.constant_term();
    let mut g1 = Expr::constant(0);
    let mut g2 = Expr::constant(0);
    let mut comparators = 0;
    for (atom, coef) in e.terms() {
        match (atom.mentions(v1), atom.mentions(v2)) {
            (true, false) => g1.add_term(atom.clone(), coef),
            (false, true) => g2.add_term(atom.clone(), coef),
            _ => return false,
        }
        if d.comparator_call(atom).is_some() {
            comparators += 1;
        }
    }
    if g2.is_constant() || g2.substitute_var(v2, &Expr::var(v1)).negate() != g1 {
        return false;
    }
    if comparators > 0 {
        let unit = g2.num_terms() == 1 && g2.terms().all(|(_, c)| c.abs() == 1);
        return unit
            && match q.kind() {
                ConstraintKind::Eq => constant == 0,
                ConstraintKind::Geq => constant == 0 || constant == -1,
            };
    }
    match q.kind() {
        ConstraintKind::Eq => constant == 0,
        ConstraintKind::Geq => constant <= 0,
    }
}

/// Whether the rest of the premise is closed under stepping (see the
/// module documentation).
fn rest_steps(rest: &[Constraint], v1: Var, v2: Var) -> bool {
    for r in rest {
        let (m1, m2) = (r.mentions(v1), r.mentions(v2));
        let v = match (m1, m2) {
            (false, false) => continue,
            (true, true) => return false,
            (true, false) => v1,
            (false, true) => v2,
        };
        if r.expr().mentions_in_uf_args(v) || r.is_eq() {
            return false;
        }
        let lower = r.expr().coefficient_of_var(v) > 0;
        let mirrored_needed = (v == v1 && !lower) || (v == v2 && lower);
        if mirrored_needed {
            let other = if v == v1 { v2 } else { v1 };
            match r.substitute_var(v, &Expr::var(other)) {
                Normalized::Constraint(m) if rest.contains(&m) => {}
                Normalized::True => {}
                _ => return false,
            }
        }
    }
    true
}

/// Whether every UF call mentioning `v1` or `v2` does so only at the top
/// level of its arguments, never both, with a convex domain.
fn calls_step(d: &Descriptor, constraints: &[&Constraint], v1: Var, v2: Var) -> bool {
    let mut ok = true;
    for c in constraints {
        c.expr().for_each_call(&mut |name, args| {
            let Some(decl) = d.uf(name) else { return };
            let m1 = args.iter().any(|a| a.mentions(v1));
            let m2 = args.iter().any(|a| a.mentions(v2));
            if !(m1 || m2) {
                return;
            }
            if (m1 && m2)
                || decl.domain.conjunctions().len() > 1
                || args
                    .iter()
                    .any(|a| a.mentions_in_uf_args(v1) || a.mentions_in_uf_args(v2))
            {
                ok = false;
            }
        });
    }
    ok
}

/// The adjacent-pair checks of `premise => q`, when the shortcut applies.
fn adjacent_checks(d: &Descriptor, premise: &[Constraint], q: &Constraint) -> Option<Vec<Check>> {
    for (k, c) in premise.iter().enumerate() {
        let Some((v1, v2, strict)) = order_constraint(c) else {
            continue;
        };
        let rest: Vec<Constraint> = premise
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != k)
            .map(|(_, c)| c.clone())
            .collect();
        let mut all: Vec<&Constraint> = rest.iter().collect();
        all.push(q);
        if !(transitive(d, q, v1, v2) && rest_steps(&rest, v1, v2) && calls_step(d, &all, v1, v2)) {
            continue;
        }
        let base: Vec<Normalized> = rest.into_iter().map(Normalized::Constraint).collect();
        let step = |delta: i64| {
            let mut p = base.clone();
            p.push(Constraint::equal(
                &Expr::var(v2),
                &Expr::var(v1).plus(&Expr::constant(delta)),
            ));
            Check {
                premise: p,
                conclusion: q.clone(),
                adjacent: true,
            }
        };
        let mut checks = vec![step(1)];
        if !strict {
            checks.push(step(0));
        }
        return Some(checks);
    }
    None
}

/// How to check `premise => q`: adjacent pairs (directly or through the
/// contrapositive), or full enumeration.
fn plan(d: &Descriptor, premise: &[Constraint], q: &Constraint) -> Option<Vec<Check>> {
    if let Some(checks) = adjacent_checks(d, premise, q) {
        return Some(checks);
    }
    let Some(Normalized::Constraint(not_q)) = q.negated_inequality() else {
        return None;
    };
    for (k, p) in premise.iter().enumerate() {
        let Some(Normalized::Constraint(not_p)) = p.negated_inequality() else {
            continue;
        };
        let mut flipped: Vec<Constraint> = premise
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != k)
            .map(|(_, c)| c.clone())
            .collect();
        flipped.push(not_q.clone());
        if let Some(checks) = adjacent_checks(d, &flipped, &not_p) {
            return Some(checks);
        }
    }
    None
}

/// A rule of two variables whose premise relates them only by equalities
/// `k1(v1) = k2(v2)`: checked by a join on the keys (one side sorted by
/// key, the other looked up in it), in time `n log n` in the two sides plus
/// the number of pairs with equal keys.
#[derive(Clone, Debug)]
pub struct Join {
    /// The conclusion tested on each pair with equal keys.
    pub conclusion: Constraint,
    /// The constraints on each side, over the one variable `Tuple(0)`.
    pub sides: [Vec<Normalized>; 2],
    /// The expressions whose UF calls need domain guards, on each side.
    pub guarded: [Vec<Expr>; 2],
    /// The key expressions of each side, over `Tuple(0)`.
    pub keys: [Vec<Expr>; 2],
    /// The premise also orders the pair (`v1 < v2`) and the conclusion is a
    /// transitive order `g(v2) - g(v1) >= m >= 0`: within a group of equal
    /// keys, adjacent points suffice (SCOO's `n1 < n2 && row(n1) = row(n2)
    /// => col(n1) < col(n2)`).
    pub ordered: bool,
}

/// Whether `q` is `g(v2) - g(v1) - m >= 0` with `m >= 0`: a transitive order.
fn is_transitive_order(q: &Constraint) -> bool {
    let (v1, v2) = (Var::Tuple(0), Var::Tuple(1));
    if q.is_eq() || q.expr().constant_term() > 0 {
        return false;
    }
    let mut g1 = Expr::constant(0);
    let mut g2 = Expr::constant(0);
    for (atom, coef) in q.expr().terms() {
        match (atom.mentions(v1), atom.mentions(v2)) {
            (true, false) => g1.add_term(atom.clone(), -coef),
            (false, true) => g2.add_term(atom.clone(), coef),
            _ => return false,
        }
    }
    g2.rename_vars(&mut |v| if v == v2 { v1 } else { v }) == g1 && g1.num_terms() > 0
}

fn join_plan(d: &Descriptor, rule: &UfRule, q: &Constraint) -> Option<Join> {
    if rule.vars.len() != 2 {
        return None;
    }
    let (v1, v2) = (Var::Tuple(0), Var::Tuple(1));
    let to_first = |e: &Expr| e.rename_vars(&mut |v| if v == v2 { v1 } else { v });
    let mut join = Join {
        conclusion: q.clone(),
        sides: [Vec::new(), Vec::new()],
        guarded: [Vec::new(), Vec::new()],
        keys: [Vec::new(), Vec::new()],
        ordered: false,
    };
    for c in &rule.premise {
        if d.mentions_comparator(c.expr()) {
            return None;
        }
        let e = c.expr();
        if !c.is_eq()
            && e.num_terms() == 2
            && e.constant_term() == -1
            && e.coefficient_of_var(v2) == 1
            && e.coefficient_of_var(v1) == -1
            && is_transitive_order(q)
        {
            join.ordered = true;
            continue;
        }
        match (c.mentions(v1), c.mentions(v2)) {
            (false, false) => {
                for side in &mut join.sides {
                    side.push(Normalized::Constraint(c.clone()));
                }
            }
            (true, false) => join.sides[0].push(Normalized::Constraint(c.clone())),
            (false, true) => join.sides[1].push(c.map_expr(to_first)),
            (true, true) => {
                if !c.is_eq() {
                    return None;
                }
                let mut k1 = Expr::constant(c.expr().constant_term());
                let mut k2 = Expr::constant(0);
                for (atom, coef) in c.expr().terms() {
                    match (atom.mentions(v1), atom.mentions(v2)) {
                        (true, true) => return None,
                        (false, true) => k2.add_term(atom.clone(), -coef),
                        _ => k1.add_term(atom.clone(), coef),
                    }
                }
                join.keys[0].push(k1);
                join.keys[1].push(to_first(&k2));
            }
        }
    }
    if join.keys[0].is_empty() {
        return None;
    }
    if join.ordered {
        // `lo <= v1 < v2 < hi`: for a pair with `a < b`, `a` meets the second
        // side's upper bounds and `b` the first side's lower bounds, so both
        // sides may take both (and the adjacent check is exact).
        let bound_sign = |n: &Normalized, v: Var| match n {
            Normalized::Constraint(c) => {
                let mut calls = false;
                c.expr().for_each_call(&mut |_, _| calls = true);
                if c.is_eq() || calls {
                    0
                } else {
                    c.expr().coefficient_of_var(v).signum()
                }
            }
            _ => 0,
        };
        let lower_only = join.sides[0].iter().all(|n| bound_sign(n, v1) >= 0);
        let upper_only = join.sides[1].iter().all(|n| bound_sign(n, v1) <= 0);
        if lower_only && upper_only {
            let both: Vec<Normalized> = join.sides[0]
                .iter()
                .chain(&join.sides[1])
                .cloned()
                .collect();
            join.sides = [both.clone(), both];
        }
    }
    // The conclusion's index-array calls must each belong to one side.
    let mut split = true;
    q.expr().for_each_call(&mut |name, args| {
        if d.uf(name).is_none() {
            return;
        }
        let call = Expr::call(name, args.to_vec());
        match (call.mentions(v1), call.mentions(v2)) {
            (true, true) => split = false,
            (true, false) => join.guarded[0].push(call),
            (false, true) => join.guarded[1].push(to_first(&call)),
            (false, false) => {
                join.guarded[0].push(call.clone());
                join.guarded[1].push(call);
            }
        }
    });
    if !split {
        return None;
    }
    for k in 0..2 {
        let more: Vec<Expr> = join.sides[k]
            .iter()
            .filter_map(|n| match n {
                Normalized::Constraint(c) => Some(c.expr().clone()),
                _ => None,
            })
            .chain(join.keys[k].iter().cloned())
            .collect();
        join.guarded[k].extend(more);
    }
    Some(join)
}
