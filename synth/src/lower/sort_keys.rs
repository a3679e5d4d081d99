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
