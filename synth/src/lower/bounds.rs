//! Bounds read off a conjunction's constraints: a variable's unit range, a
//! box's extents, the bounds of an index array's range, the definition of a
//! source variable by an equality.

use iegen::{Atom, Conjunction, Expr, Set, Var};

/// The range `lo <= t_v < hi` that `conj`'s inequalities with a unit
/// coefficient on `t_v` give, taking only bounds whose other terms `known`
/// accepts (and with `t_v` not inside a call or a division).
pub(super) fn unit_range(
    conj: &Conjunction,
    v: usize,
    known: &dyn Fn(&Expr) -> bool,
) -> Option<(Expr, Expr)> {
    let var = Var::Tuple(v);
    let (mut lo, mut hi) = (None, None);
    for c in conj.constraints().filter(|c| !c.is_eq()) {
        let e = c.expr();
        let coef = e.coefficient_of_var(var);
        if coef.abs() != 1 || e.mentions_in_uf_args(var) {
            continue;
        }
        let mut rest = e.clone();
        rest.add_term(Atom::Var(var), -coef);
        if !known(&rest) {
            continue;
        }
        if coef == 1 {
            lo = Some(rest.negate()); // v + rest >= 0
        } else {
            hi = Some(rest.plus(&Expr::constant(1))); // rest - v >= 0
        }
    }
    Some((lo?, hi?))
}

/// The extents of a box domain `{[x, ...] : 0 <= x < E, ...}` (or `x <= E`,
/// or `m x <= E`: extent `floor(E / m) + 1`, BCSR's `2 x <= NR + 1`).
pub(super) fn box_extents(domain: &Set) -> Option<Vec<Expr>> {
    let [conj] = domain.conjunctions() else {
        return None;
    };
    (0..conj.arity())
        .map(|d| box_extent(conj, d, &|_| true))
        .collect()
}

/// The extent `E` of `t_v` from `0 <= t_v` and `m t_v <= B` in `conj`
/// (`floor(B / m) + 1`), taking only bounds `B` without variables that
/// `known` accepts.
pub(super) fn box_extent(
    conj: &Conjunction,
    v: usize,
    known: &dyn Fn(&Expr) -> bool,
) -> Option<Expr> {
    let var = Var::Tuple(v);
    let mut lower_zero = false;
    let mut upper = None;
    for c in conj.constraints().filter(|c| !c.is_eq()) {
        let coef = c.expr().coefficient_of_var(var);
        let mut rest = c.expr().clone();
        rest.add_term(Atom::Var(var), -coef);
        if mentions_any_var(&rest) || !known(&rest) {
            continue;
        }
        match coef {
            1 if rest.is_constant() && rest.constant_term() == 0 => lower_zero = true,
            m if m < 0 => upper = Some(Expr::floor_div(&rest, -m).plus(&Expr::constant(1))),
            _ => {}
        }
    }
    upper.filter(|_| lower_zero)
}

/// The expression an equality of `conj` gives source variable `i` in terms
/// of the variables before it (`ii = row(n)`; the loop nest's order: JAD's
/// `r = k - jd(d)` defines `r`, not `k`), when `i` is not itself free.
pub(super) fn definition(conj: &Conjunction, i: usize, n: usize) -> Option<Expr> {
    let v = Var::Tuple(i);
    conj.constraints().filter(|c| c.is_eq()).find_map(|c| {
        let coef = c.expr().coefficient_of_var(v);
        if coef.abs() != 1 || c.expr().mentions_in_uf_args(v) {
            return None;
        }
        let mut rest = c.expr().clone();
        rest.add_term(Atom::Var(v), -coef);
        let value = rest.scale(-coef);
        // Defined through a UF of another variable, not through a plain
        // variable (which would make the two interchangeable).
        let mut has_call = false;
        value.for_each_call(&mut |_, _| has_call = true);
        let mut ok = true;
        value.for_each_var(&mut |w| ok &= matches!(w, Var::Tuple(t) if t < n && t < i));
        (has_call && ok).then_some(value)
    })
}

pub(super) fn mentions_any_var(e: &Expr) -> bool {
    let mut any = false;
    e.for_each_var(&mut |_| any = true);
    any
}
