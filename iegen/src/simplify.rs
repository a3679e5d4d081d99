//! Syntactic simplification of a conjunction, exact over the integers.
//!
//! Existential variables are eliminated where that can be done without
//! changing the set of integer points:
//! - by substitution, when an equality gives the variable with a unit
//!   coefficient (this is Strout's composition theorem: `y = F2(x)` is
//!   substituted into `F1(y)`, even inside UF arguments);
//! - by Fourier–Motzkin, when the variable occurs only in inequalities,
//!   never inside a UF argument, and every lower/upper pair has a unit
//!   coefficient on one side (then the rational shadow is the integer one);
//! - by dropping its constraints, when it is bounded on one side only.
//!
//! A variable that none of these apply to stays existential: the result is
//! always equivalent to the input, never an approximation. Afterwards
//! duplicate and implied bounds over the same linear form are merged, and
//! contradictory ones detected.

use std::collections::BTreeMap;

use crate::conjunction::{Conjunction, Contradiction};
use crate::constraint::{Constraint, ConstraintKind, Normalized};
use crate::expr::{mul_checked, neg_checked, Atom, Expr, Var};

/// Largest number of inequalities one Fourier–Motzkin step may create; a
/// variable whose elimination would create more stays existential.
const FM_LIMIT: usize = 64;

/// Simplifies a conjunction; `None` when it is found unsatisfiable.
pub fn simplify_conjunction(mut c: Conjunction) -> Option<Conjunction> {
    loop {
        let mut changed = false;
        changed |= substitute_existentials(&mut c).ok()?;
        changed |= unify_equal_tuple_variables(&mut c).ok()?;
        changed |= eliminate_by_fourier_motzkin(&mut c).ok()?;
        changed |= merge_bounds(&mut c).ok()?;
        drop_unused_existentials(&mut c);
        if !changed {
            return Some(c);
        }
    }
}

/// Substitutes existentials defined by an equality with a unit coefficient.
/// Returns whether anything changed.
fn substitute_existentials(c: &mut Conjunction) -> Result<bool, Contradiction> {
    let mut changed = false;
    'search: loop {
        for j in 0..c.num_exists() {
            let v = Var::Exist(j);
            let definition = c.constraints().find_map(|k| {
                if !k.is_eq() || k.expr().mentions_in_uf_args(v) {
                    return None;
                }
                let coef = k.expr().coefficient_of_var(v);
                if coef.abs() != 1 {
                    return None;
                }
                // coef*v + rest = 0  =>  v = -rest/coef = -coef*rest
                let mut rest = k.expr().clone();
                rest.add_term(Atom::Var(v), -coef);
                Some((k.clone(), rest.scale(-coef)))
            });
            if let Some((k, by)) = definition {
                c.remove(&k);
                c.substitute(v, &by)?;
                changed = true;
                continue 'search;
            }
        }
        return Ok(changed);
    }
}

/// Where `t_p = t_q` with `q < p`, rewrites every other constraint on `t_p`
/// onto `t_q`. This is a canonical form: it makes equal tuple variables
/// interchangeable in print (`[i] -> [i]`) without changing any point.
fn unify_equal_tuple_variables(c: &mut Conjunction) -> Result<bool, Contradiction> {
    let mut changed = false;
    loop {
        let found = c.constraints().find_map(|k| {
            if !k.is_eq() || k.expr().constant_term() != 0 {
                return None;
            }
            let terms: Vec<(&Atom, i64)> = k.expr().terms().collect();
            match terms.as_slice() {
                [(Atom::Var(Var::Tuple(q)), 1), (Atom::Var(Var::Tuple(p)), -1)] => {
                    let p = Var::Tuple(*p);
                    let elsewhere = c.constraints().any(|o| o != k && o.mentions(p));
                    elsewhere.then(|| (k.clone(), p, Expr::var(Var::Tuple(*q))))
                }
                _ => None,
            }
        });
        let Some((k, p, q)) = found else {
            return Ok(changed);
        };
        c.remove(&k);
        c.substitute(p, &q)?;
        c.add(Normalized::Constraint(k))?;
        changed = true;
    }
}

/// Eliminates existentials that occur only in inequalities, when exact.
fn eliminate_by_fourier_motzkin(c: &mut Conjunction) -> Result<bool, Contradiction> {
    let mut changed = false;
    'search: loop {
        for j in 0..c.num_exists() {
            let v = Var::Exist(j);
            if let Some(replacement) = fourier_motzkin_step(c, v) {
                let involved: Vec<Constraint> =
                    c.constraints().filter(|k| k.mentions(v)).cloned().collect();
                for k in &involved {
                    c.remove(k);
                }
                for n in replacement {
                    c.add(n)?;
                }
                changed = true;
                continue 'search;
            }
        }
        return Ok(changed);
    }
}

/// The constraints that replace those mentioning `v` when `v` can be
/// eliminated exactly by Fourier–Motzkin; `None` when it cannot.
fn fourier_motzkin_step(c: &Conjunction, v: Var) -> Option<Vec<Normalized>> {
    let mut lower = Vec::new();
    let mut upper = Vec::new();
    for k in c.constraints().filter(|k| k.mentions(v)) {
        if k.is_eq() || k.expr().mentions_in_uf_args(v) {
            return None;
        }
        let coef = k.expr().coefficient_of_var(v);
        if coef > 0 {
            lower.push((coef, k.expr()));
        } else {
            upper.push((-coef, k.expr()));
        }
    }
    if lower.is_empty() && upper.is_empty() {
        return None;
    }
    if lower.len() * upper.len() > FM_LIMIT {
        return None;
    }
    let mut out = Vec::with_capacity(lower.len() * upper.len());
    for (a, lo) in &lower {
        for (b, up) in &upper {
            if *a != 1 && *b != 1 {
                return None;
            }
            // a*v + L >= 0 and -b*v + U >= 0  =>  b*L + a*U >= 0 (v cancels)
            out.push(Constraint::geq(lo.scale(*b).plus(&up.scale(*a))));
        }
    }
    Some(out)
}

/// Merges constraints over the same linear form: keeps the tightest bound of
/// each direction, turns opposite bounds that meet into an equality, and
/// detects contradictions. Returns whether anything changed.
fn merge_bounds(c: &mut Conjunction) -> Result<bool, Contradiction> {
    // For each linear form f (without constant, leading coefficient positive),
    // collect: equalities f = -k, lower bounds f >= -k, upper bounds f <= k.
    #[derive(Default)]
    struct Bounds {
        eq: Option<i64>,
        lo: Option<i64>,
        hi: Option<i64>,
        count: usize,
    }
    let mut forms: BTreeMap<Expr, Bounds> = BTreeMap::new();
    for k in c.constraints() {
        let e = k.expr();
        let mut form = e.clone();
        form.add_constant(neg_checked(e.constant_term()));
        let positive = e.terms().next().map(|(_, lead)| lead > 0).unwrap_or(true);
        let (form, sign) = if positive {
            (form, 1)
        } else {
            (form.negate(), -1)
        };
        let b = forms.entry(form).or_default();
        b.count += 1;
        // sign*form + constant (op) 0
        let value = mul_checked(neg_checked(e.constant_term()), sign); // the bound on `form`
        match (k.kind(), sign) {
            (ConstraintKind::Eq, _) => {
                if b.eq.is_some_and(|x| x != value) {
                    return Err(Contradiction);
                }
                b.eq = Some(value);
            }
            // form + c >= 0  =>  form >= -c
            (ConstraintKind::Geq, 1) => b.lo = Some(b.lo.map_or(value, |x| x.max(value))),
            // -form + c >= 0  =>  form <= c
            (ConstraintKind::Geq, _) => b.hi = Some(b.hi.map_or(value, |x| x.min(value))),
        }
    }
    let mut rebuilt = Vec::new();
    for (form, b) in &forms {
        let with_const = |k: i64| {
            let mut e = form.clone();
            e.add_constant(k);
            e
        };
        if let Some(x) = b.eq {
            if b.lo.is_some_and(|lo| x < lo) || b.hi.is_some_and(|hi| x > hi) {
                return Err(Contradiction);
            }
            rebuilt.push(Constraint::eq(with_const(neg_checked(x))));
        } else {
            match (b.lo, b.hi) {
                (Some(lo), Some(hi)) if lo > hi => return Err(Contradiction),
                (Some(lo), Some(hi)) if lo == hi => {
                    rebuilt.push(Constraint::eq(with_const(neg_checked(lo))));
                }
                (lo, hi) => {
                    if let Some(lo) = lo {
                        rebuilt.push(Constraint::geq(with_const(neg_checked(lo))));
                    }
                    if let Some(hi) = hi {
                        rebuilt.push(Constraint::geq(with_const(neg_checked(hi)).negate()));
                    }
                }
            }
        }
    }
    let before: Vec<Constraint> = c.constraints().cloned().collect();
    let mut fresh = c.clone();
    fresh.map_constraints(|_| Normalized::True)?;
    for n in rebuilt {
        fresh.add(n)?;
    }
    let after: Vec<Constraint> = fresh.constraints().cloned().collect();
    let changed = before != after;
    *c = fresh;
    Ok(changed)
}

/// Removes existentials no constraint mentions.
fn drop_unused_existentials(c: &mut Conjunction) {
    let mut j = c.num_exists();
    while j > 0 {
        j -= 1;
        if !c.mentions(Var::Exist(j)) {
            c.remove_unused_exist(j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::expr::shorthand::{e, n, t};

    #[test]
    fn substitution_goes_inside_uf_arguments() {
        // {[x] -> [t] : exists y : y = x + 2 && t = f(y)}
        let c = Conjunction::from_parts(
            vec!["x".into(), "t".into()],
            vec!["y".into()],
            [
                Constraint::equal(&e(0), &t(0).plus(&n(2))),
                Constraint::equal(&t(1), &Expr::call("f", vec![e(0)])),
            ],
        )
        .unwrap();
        let s = simplify_conjunction(c).unwrap();
        assert_eq!(s.num_exists(), 0);
        let expected = Conjunction::from_parts(
            vec!["x".into(), "t".into()],
            vec![],
            [Constraint::equal(
                &t(1),
                &Expr::call("f", vec![t(0).plus(&n(2))]),
            )],
        )
        .unwrap();
        assert_eq!(s, expected);
    }

    #[test]
    fn fourier_motzkin_with_unit_coefficients() {
        // {[i] : exists k : i <= k < 10}  ==  {[i] : i < 10}
        let c = Conjunction::from_parts(
            vec!["i".into()],
            vec!["k".into()],
            [Constraint::le(&t(0), &e(0)), Constraint::lt(&e(0), &n(10))],
        )
        .unwrap();
        let s = simplify_conjunction(c).unwrap();
        assert_eq!(s.num_exists(), 0);
        let expected =
            Conjunction::from_parts(vec!["i".into()], vec![], [Constraint::lt(&t(0), &n(10))])
                .unwrap();
        assert_eq!(s, expected);
    }

    #[test]
    fn inexact_projection_keeps_the_existential() {
        // {[i] : exists k : i = 2k} must keep k: parity is not affine.
        let c = Conjunction::from_parts(
            vec!["i".into()],
            vec!["k".into()],
            [Constraint::equal(&t(0), &e(0).scale(2))],
        )
        .unwrap();
        let s = simplify_conjunction(c).unwrap();
        assert_eq!(s.num_exists(), 1);
    }

    #[test]
    fn existential_inside_uf_argument_is_kept() {
        // {[i] : exists k : 0 <= k < 5 && i = f(k)}
        let c = Conjunction::from_parts(
            vec!["i".into()],
            vec!["k".into()],
            [
                Constraint::le(&n(0), &e(0)),
                Constraint::lt(&e(0), &n(5)),
                Constraint::equal(&t(0), &Expr::call("f", vec![e(0)])),
            ],
        )
        .unwrap();
        let s = simplify_conjunction(c).unwrap();
        assert_eq!(s.num_exists(), 1);
        assert_eq!(s.num_constraints(), 3);
    }

    #[test]
    fn contradictory_bounds_are_detected() {
        let c = Conjunction::from_parts(
            vec!["i".into()],
            vec![],
            [Constraint::lt(&t(0), &n(3)), Constraint::le(&n(3), &t(0))],
        )
        .unwrap();
        assert!(simplify_conjunction(c).is_none());
    }

    #[test]
    fn meeting_bounds_become_an_equality_and_duplicates_merge() {
        let c = Conjunction::from_parts(
            vec!["i".into()],
            vec![],
            [
                Constraint::le(&t(0), &n(3)),
                Constraint::le(&t(0), &n(7)),
                Constraint::le(&n(3), &t(0)),
            ],
        )
        .unwrap();
        let s = simplify_conjunction(c).unwrap();
        let expected =
            Conjunction::from_parts(vec!["i".into()], vec![], [Constraint::equal(&t(0), &n(3))])
                .unwrap();
        assert_eq!(s, expected);
    }
}
