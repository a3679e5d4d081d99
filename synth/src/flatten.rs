//! Flattening a compressed loop whose outer variable no statement uses.
//!
//! A pass over a compressed source visits `0 <= ii < NR` and, inside,
//! `rowptr(ii) <= k < rowptr(ii + 1)`. When the statements of the pass only
//! need `k` (a counting pass over CSR's columns: `P.insert(col(k))`), the
//! outer loop is pure overhead: a short, variable-length inner loop per row,
//! whose cost dominates on matrices with a few entries a row. For a
//! nondecreasing `rowptr` the inner ranges tile `rowptr(0) <= k <
//! rowptr(NR)` in increasing order, so one flat loop visits the same
//! entries in the same order — order-dependent bodies (a scatter's `place`)
//! included.

use iegen::constraint::Normalized;
use iegen::{Atom, Conjunction, Constraint, ConstraintKind, Expr, Formula, Set, Var};

/// `domain` (one conjunction) without tuple variable `v`, when `v` is the
/// outer variable of a compressed range: its only constraints are `lo <= v
/// < hi` (bounds free of tuple variables) and `f(v) <= k < f(v + 1)` for a
/// tuple variable `k` and a function `f` that `nondecreasing` accepts. The
/// result bounds `k` by `f(lo) <= k < f(hi)` and renumbers the tuple
/// variables after `v` down by one (names too). `None` when the pattern does
/// not match.
pub(crate) fn without_outer_variable(
    domain: &Set,
    v: usize,
    nondecreasing: &dyn Fn(&str) -> bool,
) -> Option<Set> {
    let [conj] = domain.conjunctions() else {
        return None;
    };
    let var = Var::Tuple(v);
    let mut lo = None;
    let mut hi = None;
    // (f, k) from `k - f(v) >= 0`, and from `f(v + 1) - k - 1 >= 0`.
    let mut below = None;
    let mut above = None;
    let mut kept = Vec::new();
    for c in conj.constraints() {
        if !c.expr().mentions(var) {
            kept.push(Normalized::Constraint(c.clone()));
            continue;
        }
        if c.kind() != ConstraintKind::Geq {
            return None;
        }
        let e = c.expr();
        match e.coefficient_of_var(var) {
            // `v - lo >= 0` or `hi - 1 - v >= 0`, nothing else with tuple
            // variables.
            coef @ (1 | -1) if !e.mentions_in_uf_args(var) => {
                let rest = e.add_scaled(&Expr::var(var), -coef);
                if mentions_tuple(&rest) {
                    return None;
                }
                let slot = if coef == 1 { &mut lo } else { &mut hi };
                if slot.is_some() {
                    return None;
                }
                // v >= -rest, or v <= rest, i.e. v < rest + 1.
                *slot = Some(if coef == 1 {
                    rest.negate()
                } else {
                    rest.plus(&Expr::constant(1))
                });
            }
            0 => {
                let (f, k, shift) = range_end(e, var)?;
                let slot = match shift {
                    0 => &mut below,
                    _ => &mut above,
                };
                if slot.is_some() {
                    return None;
                }
                *slot = Some((f, k));
            }
            _ => return None,
        }
    }
    let (lo, hi) = (lo?, hi?);
    let ((f, k), (g, k2)) = (below?, above?);
    if f != g || k != k2 || k == v || !nondecreasing(&f) {
        return None;
    }
    let kvar = Expr::var(Var::Tuple(k));
    kept.push(Constraint::geq(
        kvar.minus(&Expr::call(f.clone(), vec![lo])),
    ));
    kept.push(Constraint::geq(
        Expr::call(f, vec![hi])
            .minus(&kvar)
            .minus(&Expr::constant(1)),
    ));
    let renumber = |x: Var| match x {
        Var::Tuple(t) if t > v => Var::Tuple(t - 1),
        other => other,
    };
    let kept = kept.into_iter().map(|n| match n {
        Normalized::Constraint(c) => {
            Constraint::normalize(c.kind(), c.expr().rename_vars(&mut |x| renumber(x)))
        }
        other => other,
    });
    let mut names = conj.tuple_names().to_vec();
    names.remove(v);
    let flat = Conjunction::from_parts(names, conj.exist_names().to_vec(), kept)?;
    Some(Set::from_formula(Formula::from_conjunctions(
        conj.arity() - 1,
        vec![flat],
    )))
}

/// Whether `e` mentions a tuple variable (inside calls too).
fn mentions_tuple(e: &Expr) -> bool {
    let mut any = false;
    e.for_each_var(&mut |x| any |= matches!(x, Var::Tuple(_)));
    any
}

/// For `k - f(v) >= 0`: `(f, k, 0)`; for `f(v + 1) - k - 1 >= 0`: `(f, k,
/// 1)`. Exactly those terms, `k` a tuple variable other than `v`.
fn range_end(e: &Expr, v: Var) -> Option<(String, usize, i64)> {
    let mut call = None;
    let mut k = None;
    for (atom, coef) in e.terms() {
        match atom {
            Atom::Var(Var::Tuple(t)) if Var::Tuple(*t) != v && k.is_none() => k = Some((*t, coef)),
            Atom::Uf(f, args) if call.is_none() => match args.as_slice() {
                [a] => call = Some((f.clone(), a.clone(), coef)),
                _ => return None,
            },
            _ => return None,
        }
    }
    let ((f, arg, fc), (k, kc)) = (call?, k?);
    let shift = arg.minus(&Expr::var(v));
    match (shift.as_constant()?, fc, kc, e.constant_term()) {
        (0, -1, 1, 0) => Some((f, k, 0)),
        (1, 1, -1, -1) => Some((f, k, 1)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(text: &str) -> Set {
        text.parse::<Set>()
            .unwrap_or_else(|e| panic!("{e}: {text}"))
            .simplify()
    }

    fn rowptr(f: &str) -> bool {
        f == "rowptr"
    }

    #[test]
    fn a_compressed_row_loop_becomes_one_flat_loop() {
        let csr =
            set("{[ii, k, jj] : jj = col(k) && 0 <= ii < NR && rowptr(ii) <= k < rowptr(ii + 1)}");
        let flat = without_outer_variable(&csr, 0, &rowptr).expect("flattens");
        assert_eq!(
            flat.simplify(),
            set("{[k, jj] : jj = col(k) && rowptr(0) <= k < rowptr(NR)}")
        );
    }

    #[test]
    fn only_the_exact_pattern_of_a_monotone_array_flattens() {
        let cases = [
            // not monotone
            ("{[ii, k] : 0 <= ii < NR && colptr(ii) <= k < colptr(ii + 1)}", 0),
            // the outer variable used elsewhere
            ("{[ii, k, jj] : jj = col(k) + ii && 0 <= ii < NR && rowptr(ii) <= k < rowptr(ii + 1)}", 0),
            // no upper bound on the outer variable
            ("{[ii, k] : 0 <= ii && rowptr(ii) <= k < rowptr(ii + 1)}", 0),
            // a stride of two
            ("{[ii, k] : 0 <= ii < NR && rowptr(ii) <= k < rowptr(ii + 2)}", 0),
            // the inner variable is not the one asked for
            ("{[ii, k] : 0 <= ii < NR && rowptr(ii) <= k < rowptr(ii + 1)}", 1),
        ];
        for (text, v) in cases {
            assert_eq!(
                without_outer_variable(&set(text), v, &rowptr),
                None,
                "{text}"
            );
        }
    }

    #[test]
    fn bounds_other_than_zero_carry_over() {
        let s = set("{[ii, k] : 2 <= ii < NR - 1 && rowptr(ii) <= k < rowptr(ii + 1)}");
        assert_eq!(
            without_outer_variable(&s, 0, &rowptr).map(|f| f.simplify()),
            Some(set("{[k] : rowptr(2) <= k < rowptr(NR - 1)}"))
        );
    }
}
