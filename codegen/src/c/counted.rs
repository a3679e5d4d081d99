//! Ordered sets that a counting permutation counts.
//!
//! An `OrderedSet(0, HI)` filled, in the loop that fills a counting
//! permutation, with the permutation's first key component over
//! `0..HI + 1` holds exactly the first components whose count is not 0,
//! and the permutation counts them while inserting anyway. The C printer
//! then leaves the set's inserts out and sorts it from the counts
//! (`spf_oset_sort_counted`, docs/runtime.md). COO → DCSR's rows: 3–5% of
//! the conversion on small matrices.

use iegen::Expr;

use super::{Code, Method, ObjectKind};
use crate::emit::{count_calls, insert_once, loop_from_zero, Lowered};
use crate::runtime::Order;

/// For an ordered set, the counting permutation whose counts of its
/// first component tell which values the set holds, so that C need not
/// insert into the set (`spf_oset_sort_counted`, docs/runtime.md):
/// `Some(perm)` when the set is `OrderedSet(0, HI)` and the
/// permutation counts its first component over `0..E0` with `E0 = HI +
/// 1`, and each has one `insert`, both run once in every iteration of
/// the same top-level loop (as for `Lowered::perm_views`), the set's
/// value being the permutation's first component (the same expression,
/// or `let`s bound to the same one). Every value inserted into the set
/// is then a first component counted, and every one counted a value
/// inserted: the set is the first components whose count is not 0.
/// COO → DCSR's rows: one store an entry fewer in the loop that counts.
pub(super) fn counted_set(low: &Lowered<'_>, set: usize) -> Option<usize> {
    let ObjectKind::OrderedSet {
        bounds: Some((lo, hi)),
    } = &low.specs[set].kind
    else {
        return None;
    };
    if lo.as_constant() != Some(0) || count_calls(&low.body, set, Method::Insert) != 1 {
        return None;
    }
    let extent = hi.plus(&Expr::constant(1));
    low.body.iter().find_map(|node| {
        let (var, _, body) = loop_from_zero(node)?;
        let mut set_lets = Vec::new();
        let [value] = insert_once(body, var, set, &mut set_lets)? else {
            return None;
        };
        let value = resolve_let(value, &set_lets);
        (0..low.specs.len()).find(|&perm| {
            let ObjectKind::Permutation {
                order: Order::Counting(extents),
                ..
            } = &low.specs[perm].kind
            else {
                return false;
            };
            if extents.first() != Some(&extent) || count_calls(&low.body, perm, Method::Insert) != 1
            {
                return false;
            }
            let mut lets = Vec::new();
            insert_once(body, var, perm, &mut lets)
                .and_then(|args| args.first())
                .is_some_and(|first| resolve_let(first, &lets) == value)
        })
    })
}

/// `code`, or the value of the innermost of `lets` it names.
pub(super) fn resolve_let<'c>(code: &'c Code, lets: &[(&str, &'c Code)]) -> &'c Code {
    match code {
        Code::Var(x) => lets
            .iter()
            .rev()
            .find(|(n, _)| n == x)
            .map_or(code, |(_, v)| v),
        other => other,
    }
}
