//! Ordered-set lookups of values known to lie in the set's bounds.
//!
//! `S.index(v)` on an `OrderedSet(LO, HI)` answers -1 for a `v` outside
//! `LO..=HI`, which costs every lookup two compares before its table read.
//! A compared component `d` of a counting permutation's key lies in
//! `0..Ed` (the runtime checks every insert, or the caller validated the
//! input), so where `v` holds `P.key(d, p)` and the set's bounds cover
//! `0..Ed` (`LO <= 0` and `HI >= Ed - 1`, both differences constants),
//! the lookup reads the table directly (`spf_oset_index_in`). COO → DCSR's
//! row of each sorted position: 10% of the conversion on small matrices.

use iegen::Expr;

use super::{Code, Method, ObjectKind};
use crate::emit::Lowered;
use crate::runtime::Order;

/// Whether component `d` of permutation `perm`'s keys lies in the bounds
/// of ordered set `set`.
pub(super) fn key_within_set(low: &Lowered<'_>, perm: usize, d: i64, set: usize) -> bool {
    let ObjectKind::Permutation {
        order: Order::Counting(extents),
        ..
    } = &low.specs[perm].kind
    else {
        return false;
    };
    let ObjectKind::OrderedSet {
        bounds: Some((lo, hi)),
    } = &low.specs[set].kind
    else {
        return false;
    };
    let Some(extent) = usize::try_from(d).ok().and_then(|d| extents.get(d)) else {
        return false;
    };
    // HI - (Ed - 1) >= 0 and LO <= 0, as constants.
    let slack = hi.minus(extent).plus(&Expr::constant(1));
    lo.is_constant() && lo.constant_term() <= 0 && slack.is_constant() && slack.constant_term() >= 0
}

/// The set and the argument of `value` when it is a lookup `S.index(v)`
/// whose argument is a scalar that `key_of` says holds a counting
/// permutation's key component (the permutation and the component) within
/// the set's bounds: printed unchecked.
pub(super) fn index_within<'c>(
    low: &Lowered<'_>,
    value: &'c Code,
    key_of: impl Fn(usize) -> Option<(usize, i64)>,
) -> Option<(usize, &'c Code)> {
    let Code::Call {
        object,
        method: Method::Index,
        args,
    } = value
    else {
        return None;
    };
    let [arg @ Code::Elem {
        space, index: None, ..
    }] = args.as_slice()
    else {
        return None;
    };
    let (perm, d) = key_of(*space)?;
    key_within_set(low, perm, d, *object).then_some((*object, arg))
}
