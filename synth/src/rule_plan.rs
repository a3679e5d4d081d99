//! How each rule of a descriptor is checked on an instance: the plan that
//! [`crate::instance_validation::validate`] runs and that `spf build`'s programs print
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
    Join(Box<Join>),
}

/// The plan for each constraint of `rule`'s conclusion, in order.
pub fn rule_checks(d: &Descriptor, rule: &UfRule) -> Vec<RuleCheck> {
    rule.conclusion
        .iter()
        .map(|q| {
            if let Some(checks) = plan(d, &rule.premise, q) {
                RuleCheck::Points(checks)
            } else if let Some(join) = join_plan(d, rule, q) {
                RuleCheck::Join(Box::new(join))
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

/// A rule whose premise relates two of its variables, `a` and `b`, only by
/// equalities `k1(a, s) = k2(b, s)` (the other variables `s` shared by
/// both sides): checked by a join on the keys `(s, k1)` = `(s, k2)` (one
/// side sorted by key, the other looked up in it), in time `n log n` in
/// the two sides plus the number of pairs with equal keys. COO's "two
/// entries with the same row and column are the same entry" joins `n1`
/// and `n2` on `(row, col)`; UCSR's "within row `i`, equal columns mean
/// the same position" joins `k1` and `k2` on `(i, col)`. A side may hold
/// further variables tied to its own by a range over an index array at it
/// (JAD's `jd(d1) <= k1 < jd(d1 + 1)`: the side of `d1` is an entry `(d1,
/// k1)`), so that "within a row, the columns rise with the diagonal" joins
/// the entries `(d1, k1)` and `(d2, k2)` on their row `k - jd(d)`.
#[derive(Clone, Debug)]
pub struct Join {
    /// The conclusion tested on each pair with equal keys.
    pub conclusion: Constraint,
    /// The rule variables of the two sides, `a` and `b`.
    pub pair: (usize, usize),
    /// Further variables of the two sides, tied to `a` and to `b`.
    pub tied: Vec<(usize, usize)>,
    /// The shared rule variables, in order.
    pub shared: Vec<usize>,
    /// The constraints on each side, over its tuple: the shared variables
    /// (`Tuple(0..m)`), then its own (`Tuple(m)`), then its tied ones.
    pub sides: [Vec<Normalized>; 2],
    /// The expressions whose UF calls need domain guards, on each side.
    pub guarded: [Vec<Expr>; 2],
    /// The key expressions of each side, over its tuple: the shared
    /// variables first, then the equalities' sides.
    pub keys: [Vec<Expr>; 2],
    /// The premise also orders the pair (`a < b`) and the conclusion is a
    /// transitive order `g(b) - g(a) >= m >= 0`: within a group of equal
    /// keys, adjacent points suffice (SCOO's `n1 < n2 && row(n1) = row(n2)
    /// => col(n1) < col(n2)`).
    pub ordered: bool,
}

impl Join {
    /// The names of side `k`'s tuple: the shared variables, then its own,
    /// then its tied ones.
    pub fn side_names(&self, rule: &UfRule, k: usize) -> Vec<String> {
        self.shared
            .iter()
            .copied()
            .chain(self.own(k))
            .map(|i| rule.vars[i].clone())
            .collect()
    }

    /// Side `k`'s own variable, then its tied ones.
    fn own(&self, k: usize) -> Vec<usize> {
        let pick = |p: (usize, usize)| if k == 0 { p.0 } else { p.1 };
        std::iter::once(pick(self.pair))
            .chain(self.tied.iter().map(|&p| pick(p)))
            .collect()
    }

    /// The rule's point for a pair of side points (each the shared
    /// variables, then its own and its tied ones).
    pub fn rule_point(&self, arity: usize, a: &[i64], b: &[i64]) -> Vec<i64> {
        let m = self.shared.len();
        let (own_a, own_b) = (self.own(0), self.own(1));
        (0..arity)
            .map(|i| {
                if let Some(j) = own_a.iter().position(|&x| x == i) {
                    a[m + j]
                } else if let Some(j) = own_b.iter().position(|&x| x == i) {
                    b[m + j]
                } else {
                    let j = self.shared.iter().position(|&s| s == i);
                    let j = j.expect("every other variable is shared");
                    a[j]
                }
            })
            .collect()
    }
}

/// The variables tied to `a` and to `b` ([`Join`]), paired: `(x_a, x_b)`
/// where a premise inequality relates `x_a` to a call of some index array
/// at `a` alone (`jd(d1) <= k1`), and another `x_b` to a call of the same
/// array at `b`.
pub(crate) fn tied_pairs(premise: &[Constraint], a: usize, b: usize) -> Vec<(usize, usize)> {
    let mut tied: Vec<(usize, String, usize)> = Vec::new();
    for c in premise.iter().filter(|c| !c.is_eq()) {
        let e = c.expr();
        if e.num_terms() != 2 {
            continue;
        }
        let mut var = None;
        let mut call = None;
        for (atom, _) in e.terms() {
            match atom {
                Atom::Var(Var::Tuple(x)) if *x != a && *x != b => var = Some(*x),
                Atom::Uf(f, args) => {
                    let only = |s: usize| {
                        args.iter().all(|arg| {
                            let mut ok = true;
                            arg.for_each_var(&mut |v| ok &= v == Var::Tuple(s));
                            ok && arg.mentions(Var::Tuple(s))
                        })
                    };
                    call = [a, b]
                        .into_iter()
                        .find(|&s| only(s))
                        .map(|s| (f.clone(), s));
                }
                _ => {}
            }
        }
        if let (Some(x), Some((f, s))) = (var, call) {
            tied.push((x, f, s));
        }
    }
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for (xa, f, _) in tied.iter().filter(|(_, _, s)| *s == a) {
        let xb = tied
            .iter()
            .find(|(x, g, s)| *s == b && g == f && x != xa)
            .map(|(x, _, _)| *x);
        if let Some(xb) = xb {
            if !pairs.iter().any(|&(p, q)| p == *xa || q == xb) {
                pairs.push((*xa, xb));
            }
        }
    }
    pairs
}

/// Whether `q` is `g(b) - g(a) - m >= 0` with `m >= 0`: a transitive order
/// (`g` over a side's own variable and its `tied` ones).
fn is_transitive_order(q: &Constraint, a: Var, b: Var, tied: &[(usize, usize)]) -> bool {
    if q.is_eq() || q.expr().constant_term() > 0 {
        return false;
    }
    let side_a =
        |atom: &Atom| atom.mentions(a) || tied.iter().any(|&(x, _)| atom.mentions(Var::Tuple(x)));
    let side_b =
        |atom: &Atom| atom.mentions(b) || tied.iter().any(|&(_, x)| atom.mentions(Var::Tuple(x)));
    let mut g1 = Expr::constant(0);
    let mut g2 = Expr::constant(0);
    for (atom, coef) in q.expr().terms() {
        match (side_a(atom), side_b(atom)) {
            (true, false) => g1.add_term(atom.clone(), -coef),
            (false, true) => g2.add_term(atom.clone(), coef),
            _ => return false,
        }
    }
    let b_at_a = g2.rename_vars(&mut |v| {
        if v == b {
            return a;
        }
        match v {
            Var::Tuple(t) => tied
                .iter()
                .find(|&&(_, x)| x == t)
                .map_or(v, |&(x, _)| Var::Tuple(x)),
            other => other,
        }
    });
    b_at_a == g1 && g1.num_terms() > 0
}

/// The join of the first pair of `rule`'s variables that equalities relate.
fn join_plan(d: &Descriptor, rule: &UfRule, q: &Constraint) -> Option<Join> {
    let n = rule.vars.len();
    (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .find_map(|(a, b)| join_on(d, rule, q, a, b))
}

fn join_on(d: &Descriptor, rule: &UfRule, q: &Constraint, a: usize, b: usize) -> Option<Join> {
    let n = rule.vars.len();
    let (va, vb) = (Var::Tuple(a), Var::Tuple(b));
    let tied = tied_pairs(&rule.premise, a, b);
    let owned = |i: usize| i == a || i == b || tied.iter().any(|&(x, y)| i == x || i == y);
    let shared: Vec<usize> = (0..n).filter(|&i| !owned(i)).collect();
    let m = shared.len();
    // Each side's variables: its own, then its tied ones.
    let own: [Vec<usize>; 2] = [
        std::iter::once(a).chain(tied.iter().map(|p| p.0)).collect(),
        std::iter::once(b).chain(tied.iter().map(|p| p.1)).collect(),
    ];
    let mentions_side =
        |k: usize, e: &dyn Fn(Var) -> bool| own[k].iter().any(|&i| e(Var::Tuple(i)));
    // A rule expression in side `k`'s tuple (`None` when it mentions the
    // other side's variables).
    let to_side = |k: usize, e: &Expr| -> Option<Expr> {
        if mentions_side(1 - k, &|v| e.mentions(v)) {
            return None;
        }
        Some(e.rename_vars(&mut |v| match v {
            Var::Tuple(i) => match own[k].iter().position(|&x| x == i) {
                Some(j) => Var::Tuple(m + j),
                None => Var::Tuple(shared.iter().position(|&s| s == i).unwrap_or(i)),
            },
            other => other,
        }))
    };
    let side_constraint = |k: usize, c: &Constraint| -> Option<Normalized> {
        let e = to_side(k, c.expr())?;
        Some(c.map_expr(|_| e.clone()))
    };
    let mut join = Join {
        conclusion: q.clone(),
        pair: (a, b),
        tied: tied.clone(),
        shared: shared.clone(),
        sides: [Vec::new(), Vec::new()],
        guarded: [Vec::new(), Vec::new()],
        keys: [
            (0..m).map(|j| Expr::var(Var::Tuple(j))).collect(),
            (0..m).map(|j| Expr::var(Var::Tuple(j))).collect(),
        ],
        ordered: false,
    };
    let mut cross = 0;
    for c in &rule.premise {
        if d.mentions_comparator(c.expr()) {
            return None;
        }
        let e = c.expr();
        if !c.is_eq()
            && e.num_terms() == 2
            && e.constant_term() == -1
            && e.coefficient_of_var(vb) == 1
            && e.coefficient_of_var(va) == -1
            && is_transitive_order(q, va, vb, &tied)
        {
            join.ordered = true;
            continue;
        }
        let on = |k: usize| mentions_side(k, &|v| c.mentions(v));
        match (on(0), on(1)) {
            (false, false) => {
                for k in 0..2 {
                    join.sides[k].push(side_constraint(k, c)?);
                }
            }
            (true, false) => join.sides[0].push(side_constraint(0, c)?),
            (false, true) => join.sides[1].push(side_constraint(1, c)?),
            (true, true) => {
                if !c.is_eq() {
                    return None;
                }
                let mut k1 = Expr::constant(c.expr().constant_term());
                let mut k2 = Expr::constant(0);
                for (atom, coef) in c.expr().terms() {
                    let atom_on = |k: usize| mentions_side(k, &|v| atom.mentions(v));
                    match (atom_on(0), atom_on(1)) {
                        (true, true) => return None,
                        (false, true) => k2.add_term(atom.clone(), -coef),
                        _ => k1.add_term(atom.clone(), coef),
                    }
                }
                join.keys[0].push(to_side(0, &k1)?);
                join.keys[1].push(to_side(1, &k2)?);
                cross += 1;
            }
        }
    }
    if cross == 0 {
        return None;
    }
    if join.ordered {
        // `lo <= a < b < hi`: for a pair with `a < b`, `a` meets the second
        // side's upper bounds and `b` the first side's lower bounds, so both
        // sides may take both (and the adjacent check is exact).
        let own = Var::Tuple(m);
        let bound_sign = |n: &Normalized| match n {
            Normalized::Constraint(c) => {
                let mut calls = false;
                c.expr().for_each_call(&mut |_, _| calls = true);
                if c.is_eq() || calls {
                    0
                } else {
                    c.expr().coefficient_of_var(own).signum()
                }
            }
            _ => 0,
        };
        let lower_only = join.sides[0].iter().all(|n| bound_sign(n) >= 0);
        let upper_only = join.sides[1].iter().all(|n| bound_sign(n) <= 0);
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
        match (
            mentions_side(0, &|v| call.mentions(v)),
            mentions_side(1, &|v| call.mentions(v)),
        ) {
            (true, true) => split = false,
            (true, false) => join.guarded[0].extend(to_side(0, &call)),
            (false, true) => join.guarded[1].extend(to_side(1, &call)),
            (false, false) => {
                join.guarded[0].extend(to_side(0, &call));
                join.guarded[1].extend(to_side(1, &call));
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
