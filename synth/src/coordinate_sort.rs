//! Entries put in order of their coordinates in linear time: coordinates
//! linearized row-major within their spans ([`Linear`]) and the keys
//! sorted by an LSD radix sort, so that the oracle's comparisons of
//! millions of entries do not pay for a comparison sort
//! ([`crate::oracle`], [`crate::established`]).
//!
//! Coordinates whose spans multiply past 64 bits fall back to a
//! comparison sort.

/// The row-major linearization of coordinates whose components lie in
/// known ranges: component `c` spans `lo[c] ..= lo[c] + span[c] - 1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Linear {
    lo: Vec<i64>,
    span: Vec<u64>,
    /// One more than the largest key.
    end: u64,
}

impl Linear {
    /// The linearization of the coordinates `key(e, c)` of `n` entries
    /// (`arity` components each), when the product of their spans fits in
    /// 64 bits (at most six radix passes); `None` otherwise.
    pub fn of(n: usize, arity: usize, key: &impl Fn(usize, usize) -> i64) -> Option<Linear> {
        let mut lo = Vec::with_capacity(arity);
        let mut span = Vec::with_capacity(arity);
        let mut end: u64 = 1;
        for c in 0..arity {
            let (mut a, mut b) = (i64::MAX, i64::MIN);
            for e in 0..n {
                let x = key(e, c);
                a = a.min(x);
                b = b.max(x);
            }
            let s = if n == 0 {
                1
            } else {
                u64::try_from(i128::from(b) - i128::from(a) + 1).ok()?
            };
            end = end.checked_mul(s)?;
            lo.push(if n == 0 { 0 } else { a });
            span.push(s);
        }
        Some(Linear { lo, span, end })
    }

    /// The key of a coordinate (inside the spans).
    pub fn key(&self, p: impl Iterator<Item = i64>) -> u64 {
        let mut k = 0u64;
        for ((x, &lo), &s) in p.zip(&self.lo).zip(&self.span) {
            // The difference lies in 0..s, whatever the signs.
            k = k * s + x.wrapping_sub(lo) as u64;
        }
        k
    }

    /// The coordinate of a key, appended to `out`.
    pub fn coordinate(&self, mut k: u64, out: &mut Vec<i64>) {
        let at = out.len();
        out.resize(at + self.span.len(), 0);
        for c in (0..self.span.len()).rev() {
            let s = self.span[c];
            out[at + c] = self.lo[c].wrapping_add((k % s) as i64);
            k /= s;
        }
    }

    /// Sorts `(key, payload)` records by key, stably (an LSD radix sort
    /// over the bits the keys use).
    pub fn sort(&self, records: &mut Vec<(u64, u64)>) {
        const BITS: u32 = 11;
        const MASK: u64 = (1 << BITS) - 1;
        let used = 64 - self.end.saturating_sub(1).leading_zeros();
        let mut other = vec![(0u64, 0u64); records.len()];
        for shift in (0..used).step_by(BITS as usize) {
            let digit = |r: &(u64, u64)| ((r.0 >> shift) & MASK) as usize;
            let mut starts = vec![0usize; (1 << BITS) + 1];
            for r in records.iter() {
                starts[digit(r) + 1] += 1;
            }
            if starts.contains(&records.len()) {
                // One digit for every record: the pass would move nothing.
                continue;
            }
            for b in 0..1 << BITS {
                starts[b + 1] += starts[b];
            }
            for r in records.iter() {
                let b = digit(r);
                other[starts[b]] = *r;
                starts[b] += 1;
            }
            std::mem::swap(records, &mut other);
        }
    }
}

/// The indices `0..n` ordered by the coordinates `key(e, c)` of entry `e`
/// (components `c` in `0..arity`, compared lexicographically), ties by
/// index: what sorting `(coordinate, index)` pairs gives. A radix sort of
/// the linearized coordinates ([`Linear`]) when their spans allow.
pub fn coordinate_order(n: usize, arity: usize, key: impl Fn(usize, usize) -> i64) -> Vec<usize> {
    let Some(linear) = Linear::of(n, arity, &key) else {
        return comparison_order(n, arity, &key);
    };
    let mut records: Vec<(u64, u64)> = (0..n)
        .map(|e| (linear.key((0..arity).map(|c| key(e, c))), e as u64))
        .collect();
    linear.sort(&mut records);
    records.into_iter().map(|(_, e)| e as usize).collect()
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
            wide in proptest::bool::ANY,
        ) {
            let mut points = points;
            if far && !points.is_empty() {
                // A span too wide to linearize: the comparison sort.
                points[0][1] = i64::MAX;
            }
            if wide && points.len() > 1 {
                // Keys over several radix digits.
                points[1][0] = 3000;
            }
            let got = coordinate_order(points.len(), 2, |e, c| points[e][c]);
            prop_assert_eq!(got, by_sorting(&points));
        }
    }

    #[test]
    fn keys_give_back_their_coordinates() {
        let points = [[2i64, -1], [5, 7], [3, 0]];
        let l = Linear::of(3, 2, &|e, c| points[e][c]).expect("small spans");
        let mut out = Vec::new();
        for p in &points {
            l.coordinate(l.key(p.iter().copied()), &mut out);
        }
        assert_eq!(out, [2, -1, 5, 7, 3, 0]);
    }

    #[test]
    fn no_components_keep_the_order() {
        assert_eq!(coordinate_order(3, 0, |_, _| 0), vec![0, 1, 2]);
        assert_eq!(coordinate_order(0, 2, |_, _| 0), Vec::<usize>::new());
    }
}
