//! Entries put in order of their coordinates in `O(n + extents)`: a stable
//! counting sort per coordinate component, last component first (LSD), so
//! that the oracle's comparisons of millions of entries do not pay for a
//! comparison sort ([`crate::oracle`], [`crate::established`]).
//!
//! A component whose values span far more than the number of entries (a
//! hypersparse tensor) would make its counting pass cost more than a
//! comparison sort; then the whole order falls back to one.

/// The indices `0..n` ordered by the coordinates `key(e, c)` of entry `e`
/// (components `c` in `0..arity`, compared lexicographically), ties by
/// index: what sorting `(coordinate, index)` pairs gives.
pub fn coordinate_order(n: usize, arity: usize, key: impl Fn(usize, usize) -> i64) -> Vec<usize> {
    // Each component's span, when every one is small enough to count.
    let mut spans = Vec::with_capacity(arity);
    for c in 0..arity {
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        for e in 0..n {
            let x = key(e, c);
            lo = lo.min(x);
            hi = hi.max(x);
        }
        let span = if n == 0 {
            Some(1)
        } else {
            u64::try_from(i128::from(hi) - i128::from(lo) + 1).ok()
        };
        match span.and_then(|s| usize::try_from(s).ok()) {
            Some(s) if s <= n.saturating_mul(4).saturating_add(1 << 16) => spans.push((lo, s)),
            _ => return comparison_order(n, arity, &key),
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    let mut next = vec![0usize; n];
    for c in (0..arity).rev() {
        let (lo, span) = spans[c];
        if span <= 1 {
            continue;
        }
        let bucket = |e: usize| (key(e, c) - lo) as usize;
        let mut starts = vec![0usize; span + 1];
        for &e in &order {
            starts[bucket(e) + 1] += 1;
        }
        for b in 0..span {
            starts[b + 1] += starts[b];
        }
        for &e in &order {
            let b = bucket(e);
            next[starts[b]] = e;
            starts[b] += 1;
        }
        std::mem::swap(&mut order, &mut next);
    }
    order
}

/// [`coordinate_order`] by comparisons.
fn comparison_order(n: usize, arity: usize, key: &impl Fn(usize, usize) -> i64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by(|&a, &b| {
        (0..arity)
            .map(|c| key(a, c).cmp(&key(b, c)))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.cmp(&b))
    });
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn by_sorting(points: &[Vec<i64>]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..points.len()).collect();
        order.sort_by(|&a, &b| (&points[a], a).cmp(&(&points[b], b)));
        order
    }

    proptest! {
        #[test]
        fn counting_and_comparison_agree_with_a_sort(
            points in proptest::collection::vec(proptest::collection::vec(-3i64..5, 2), 0..40),
            far in proptest::bool::ANY,
        ) {
            let mut points = points;
            if far && !points.is_empty() {
                // A span too wide to count: the comparison sort.
                points[0][1] = i64::MAX;
            }
            let got = coordinate_order(points.len(), 2, |e, c| points[e][c]);
            prop_assert_eq!(got, by_sorting(&points));
        }
    }

    #[test]
    fn no_components_keep_the_order() {
        assert_eq!(coordinate_order(3, 0, |_, _| 0), vec![0, 1, 2]);
        assert_eq!(coordinate_order(0, 2, |_, _| 0), Vec::<usize>::new());
    }
}
