//! The permutation's sort key as the runtime sees it: the order argument
//! (counting sort over bounded components, Morton for an interleaving
//! comparator, lexicographic otherwise), the extents that bound key
//! components, and where a destination coordinate sits among the inserted
//! key values so that sorted positions read it back (`P.key(c, p)`). The
//! key itself is read off the destination by [`crate::order`].

use iegen::computation::ValueExpr;
use iegen::{Atom, Expr, Var};

use crate::descriptor::KeyExpr;
use crate::order::KeyComponent;

use super::bounds::box_extent;
use super::ranks::PermMode;
use super::refusal::Refusal;
use super::scalars::Prologue;
use super::{call, Lowering};
use crate::descriptor::Construct;
use crate::synthesized::Side;

impl Lowering<'_> {
    /// The permutation's order argument and its number of compared
    /// components: counting sort when every component is a dense
    /// coordinate (bounded by its extent), Morton for a comparator that
    /// interleaves its parameters, lexicographic otherwise.
    pub(super) fn sort_order(
        &self,
        key: &[KeyComponent],
        mode: &PermMode,
    ) -> Result<String, Refusal> {
        if *mode == PermMode::Unsorted || key.is_empty() {
            return Ok("lex(1)".into());
        }
        if let [KeyComponent::Comparator { name, args }] = key {
            let cmp = self
                .conv
                .dst
                .comparator(name)
                .ok_or_else(|| format!("no comparator `{name}`"))?;
            let interleaves_params = matches!(cmp.key.as_slice(), [KeyExpr::Interleave(xs)]
                if xs.len() == args.len()
                    && xs.iter().enumerate().all(|(i, x)| *x == KeyExpr::Param(i)));
            if interleaves_params {
                return Ok(format!("morton({})", args.len()));
            }
            return Err(Refusal::about(
                Side::Destination,
                Construct::Comparator(name.clone()),
                format!(
                    "comparator `{name}` is not an interleaving of its parameters; only Morton \
                     orders are lowered"
                ),
            ));
        }
        let mut extents = Vec::new();
        for k in key {
            let KeyComponent::Value(e) = k else {
                return Err("a comparator mixed with other key components".into());
            };
            match self.key_extent(e) {
                Some(x) => extents.push(x.to_string()),
                None => return Ok(format!("lex({})", key.len())),
            }
        }
        Ok(format!("counting({})", extents.join(", ")))
    }

    /// An extent `E` over the source's symbols with `0 <= e < E` for a key
    /// component `e` over the destination's tuple: a dense coordinate's
    /// extent, the capacity of the ordered set that gives a position (the
    /// set's positions are its values' ranks), a tuple variable's box bound
    /// in the destination map (BCSR's
    /// `0 <= bi && 2 bi < NR`: `floor((NR - 1) / 2) + 1`), or for `floor(x /
    /// m)` the quotient of `x`'s (`floor((NC + 1) / 2)` for `floor(jj / 2)`).
    fn key_extent(&self, e: &Expr) -> Option<Expr> {
        if let Some(Var::Tuple(q)) = e.as_var() {
            if let Some(x) = self.dense_extent(q) {
                return Some(Expr::sym(x));
            }
            if let Some(x) = self.sets.get(&q).and_then(|s| s.extent.clone()) {
                return Some(x);
            }
            let conj = &self.conv.dst.map.conjunctions()[0];
            return box_extent(conj, q, &|rest| {
                let mut known = true;
                rest.for_each_call(&mut |_, _| known = false);
                rest.for_each_sym(&mut |s| known &= self.conv.src.symbols.iter().any(|x| x == s));
                known
            });
        }
        // `x mod m`, written `x - m floor(x / m)`: in `0..m`.
        let modulo = e.terms().find_map(|(a, k)| match a {
            Atom::Div(x, m) if k == -*m => {
                let rest = e.minus(&Expr::atom(a.clone()).scale(k));
                (rest == **x).then_some(*m)
            }
            _ => None,
        });
        if let Some(m) = modulo {
            return Some(Expr::constant(m));
        }
        let [(Atom::Div(x, m), 1)] = e.terms().collect::<Vec<_>>().as_slice() else {
            return None;
        };
        if e.constant_term() != 0 {
            return None;
        }
        let inner = self.key_extent(x)?;
        Some(Expr::floor_div(&inner.plus(&Expr::constant(m - 1)), *m))
    }

    /// An extent `E` over the source's symbols with `0 <= t_q < E` for
    /// destination tuple variable `q`: [`Self::key_extent`]'s, else a
    /// bound `t_q < S` in the map on a destination symbol `S` that an
    /// equality of the map defines over the source's (a 2:4 format's
    /// block `0 <= b < NB` with `NB = floor((NC + 3) / 4)`).
    pub(super) fn position_extent(&self, q: usize) -> Option<Expr> {
        if let Some(x) = self.key_extent(&Expr::var(Var::Tuple(q))) {
            return Some(x);
        }
        let conj = &self.conv.dst.map.conjunctions()[0];
        let src = &self.conv.src.symbols;
        let defined = |s: &str| -> Option<Expr> {
            conj.constraints().filter(|c| c.is_eq()).find_map(|c| {
                let e = c.expr();
                let coef = e.coefficient(&Atom::Sym(s.to_string()));
                if coef.abs() != 1 {
                    return None;
                }
                let mut rest = e.clone();
                rest.add_term(Atom::Sym(s.to_string()), -coef);
                let mut known = true;
                rest.for_each_var(&mut |_| known = false);
                rest.for_each_call(&mut |_, _| known = false);
                rest.for_each_sym(&mut |x| known &= src.iter().any(|y| y == x));
                // s coef + rest = 0: s = -rest / coef.
                known.then(|| if coef == 1 { rest.negate() } else { rest })
            })
        };
        let bound = box_extent(conj, q, &|rest| {
            let mut known = true;
            rest.for_each_call(&mut |_, _| known = false);
            rest.for_each_sym(&mut |s| known &= src.iter().any(|x| x == s) || defined(s).is_some());
            known
        })?;
        // Replace each destination symbol by its definition (only where it
        // is a term of its own, not inside a division).
        let mut out = bound.clone();
        let mut syms = Vec::new();
        bound.for_each_sym(&mut |s| syms.push(s.to_string()));
        for s in syms.into_iter().filter(|s| !src.contains(s)) {
            let atom = Atom::Sym(s.clone());
            let c = out.coefficient(&atom);
            out.add_term(atom, -c);
            out = out.plus(&defined(&s)?.scale(c));
        }
        let mut left = false;
        out.for_each_sym(&mut |s| left |= !src.iter().any(|x| x == s));
        (!left).then_some(out)
    }

    /// The extent of the dense coordinate destination tuple variable `q` equals.
    pub(super) fn dense_extent(&self, q: usize) -> Option<String> {
        let conj = &self.conv.dst.map.conjunctions()[0];
        let d = (0..self.conv.dst.dense_arity()).find(|&d| {
            conj.constraints().any(|c| {
                let e = c.expr();
                c.is_eq()
                    && e.num_terms() == 2
                    && e.constant_term() == 0
                    && e.coefficient_of_var(Var::Tuple(q)) != 0
                    && e.coefficient_of_var(Var::Tuple(q))
                        == -e.coefficient_of_var(Var::Tuple(self.n_out + d))
            })
        })?;
        Some(self.conv.src.dense[d].clone())
    }

    /// The key component (its index among the inserted values) that holds
    /// destination coordinate `q`, when the permutation is sorted by it.
    pub(super) fn key_offset(&self, q: usize) -> Option<usize> {
        let perm = self.perm.as_ref()?;
        if matches!(
            perm.mode,
            PermMode::Direct { .. } | PermMode::Offset { .. } | PermMode::Streaming { .. }
        ) {
            return None;
        }
        let mut offset = 0;
        for k in &perm.order.key {
            match k {
                KeyComponent::Value(e) if e.as_var() == Some(Var::Tuple(q)) => return Some(offset),
                KeyComponent::Value(_) => offset += 1,
                KeyComponent::Comparator { args, .. } => {
                    if let Some(i) = args.iter().position(|a| a.as_var() == Some(Var::Tuple(q))) {
                        return Some(offset + i);
                    }
                    offset += args.len();
                }
            }
        }
        None
    }

    pub(super) fn read_key(&self, pro: &mut Prologue, name: &str, object: &str, component: usize) {
        if pro.iter().all(|(n, _)| n != name) {
            let p = ValueExpr::Index(Expr::var(Var::Tuple(0)));
            pro.push((
                name.to_string(),
                call(object, "key", vec![ValueExpr::Int(component as i64), p]),
            ));
        }
    }
}

impl Lowering<'_> {
    /// Source variable `i` over sorted positions as an integer combination
    /// of the compared key components the permutation holds, when it is
    /// one (TCOO8's `ii = 8 floor(ii / 8) + (ii mod 8)`, from its tile row
    /// and its row within the tile): the sorted position reads those
    /// components (`P.key(c, p)`, which the C runtime decodes from its
    /// sorted words) instead of a payload read through the order. `None`
    /// when no combination gives it, or a component is not over the
    /// source's variables.
    pub(super) fn source_from_key(&mut self, i: usize, pro: &mut Prologue) -> Option<Expr> {
        let perm = self.perm.as_ref()?;
        if !matches!(perm.mode, PermMode::Sorted | PermMode::Unsorted) {
            return None;
        }
        let compared = perm.compared.min(perm.order.key.len());
        let exprs = perm.order.key[..compared]
            .iter()
            .flat_map(|k| match k {
                KeyComponent::Value(e) => vec![e.clone()],
                KeyComponent::Comparator { args, .. } => args.clone(),
            })
            .map(|e| self.over_source(&e))
            .collect::<Option<Vec<Expr>>>()?;
        let coefs = integer_combination(&exprs, &Expr::var(Var::Tuple(i)))?;
        let object = perm.object.clone();
        let mut out = Expr::constant(0);
        for (c, &a) in coefs.iter().enumerate().filter(|(_, a)| **a != 0) {
            let name = self.scalar(&format!("key component {c}"), &format!("key{c}"));
            self.read_key(pro, &name, &object, c);
            out = out.add_scaled(&Expr::sym(name), a);
        }
        Some(out)
    }
}

/// Integer coefficients `a` with `Σ a[k] · exprs[k] == target` as linear
/// expressions — every atom (variable, floor division, call) and the
/// constant term alike, so that the identity holds whatever the atoms'
/// values — when there are (Gaussian elimination over the rationals, free
/// coefficients 0; the result checked).
fn integer_combination(exprs: &[Expr], target: &Expr) -> Option<Vec<i64>> {
    let columns: Vec<&Expr> = exprs.iter().chain([target]).collect();
    let mut atoms: Vec<Option<&Atom>> = vec![None];
    for e in &columns {
        for (a, _) in e.terms() {
            if !atoms.contains(&Some(a)) {
                atoms.push(Some(a));
            }
        }
    }
    let k = exprs.len();
    // One row per atom (None: the constant), the target last; fractions
    // (numerator, positive denominator).
    let mut m: Vec<Vec<(i128, i128)>> = atoms
        .iter()
        .map(|a| {
            columns
                .iter()
                .map(|e| match a {
                    None => (i128::from(e.constant_term()), 1),
                    Some(a) => (i128::from(e.coefficient(a)), 1),
                })
                .collect()
        })
        .collect();
    let mut pivots = Vec::new();
    let mut row = 0;
    for col in 0..k {
        let Some(p) = (row..m.len()).find(|&r| m[r][col].0 != 0) else {
            continue;
        };
        m.swap(row, p);
        let pivot = m[row][col];
        for x in m[row].iter_mut() {
            *x = frac_div(*x, pivot)?;
        }
        let pivot_row = m[row].clone();
        for (r, line) in m.iter_mut().enumerate() {
            let f = line[col];
            if r != row && f.0 != 0 {
                for (x, &y) in line.iter_mut().zip(&pivot_row) {
                    *x = frac_sub(*x, frac_mul(f, y)?)?;
                }
            }
        }
        pivots.push(col);
        row += 1;
    }
    // Consistent: no row without a pivot asks for a nonzero target part.
    if m[row..].iter().any(|r| r[k].0 != 0) {
        return None;
    }
    let mut coefs = vec![0i64; k];
    for (r, &col) in pivots.iter().enumerate() {
        let (num, den) = m[r][k];
        if num % den != 0 {
            return None;
        }
        coefs[col] = i64::try_from(num / den).ok()?;
    }
    let sum = exprs
        .iter()
        .zip(&coefs)
        .fold(Expr::constant(0), |acc, (e, &a)| acc.add_scaled(e, a));
    (sum == *target).then_some(coefs)
}

fn frac(num: i128, den: i128) -> Option<(i128, i128)> {
    if den == 0 {
        return None;
    }
    let g = gcd128(num.abs(), den.abs()).max(1);
    let s = if den < 0 { -1 } else { 1 };
    Some((s * num / g, s * den / g))
}

fn gcd128(a: i128, b: i128) -> i128 {
    if b == 0 {
        a
    } else {
        gcd128(b, a % b)
    }
}

fn frac_mul(a: (i128, i128), b: (i128, i128)) -> Option<(i128, i128)> {
    frac(a.0.checked_mul(b.0)?, a.1.checked_mul(b.1)?)
}

fn frac_div(a: (i128, i128), b: (i128, i128)) -> Option<(i128, i128)> {
    frac(a.0.checked_mul(b.1)?, a.1.checked_mul(b.0)?)
}

fn frac_sub(a: (i128, i128), b: (i128, i128)) -> Option<(i128, i128)> {
    frac(
        a.0.checked_mul(b.1)?.checked_sub(b.0.checked_mul(a.1)?)?,
        a.1.checked_mul(b.1)?,
    )
}

#[cfg(test)]
mod tests {
    use super::integer_combination;
    use iegen::{Atom, Expr, Var};

    #[test]
    fn integer_combinations_of_key_components() {
        let x = Expr::var(Var::Tuple(0));
        let y = Expr::var(Var::Tuple(1));
        let tile = Expr::floor_div(&x, 8);
        let offset = x.add_scaled(&tile, -8);
        // x = 8 floor(x / 8) + (x - 8 floor(x / 8)), whatever y's part
        let keys = [tile.clone(), Expr::floor_div(&y, 8), offset.clone()];
        assert_eq!(integer_combination(&keys, &x), Some(vec![8, 0, 1]));
        // y is not determined by them; a half is not an integer
        assert_eq!(integer_combination(&keys, &y), None);
        let double = [x.scale(2)];
        assert_eq!(integer_combination(&double, &x), None);
        // a constant term must match too
        let shifted = [x.plus(&Expr::constant(1))];
        assert_eq!(integer_combination(&shifted, &x), None);
        assert!(matches!(tile.terms().next(), Some((Atom::Div(..), 1))));
    }
}
