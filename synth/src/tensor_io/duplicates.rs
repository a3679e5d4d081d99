//! Entries at the same coordinates: found in `O(n)` time, summed into the
//! first occurrence.
//!
//! Most files have no duplicates, so the readers first ask whether there are
//! any ([`has_repeated_keys`]: one pass when the entries come sorted, a
//! bucket sort of the linearized coordinates otherwise) and pay for a hash
//! map ([`sum_duplicates`]) only when there are.

use std::collections::HashMap;

use super::{CooTensor, CooValue, IndexInt, TensorIoError};

/// The strides of the row-major linearization of coordinates within
/// `dims` (the last mode fastest); `None` when the extents' product does
/// not fit in a `u64`.
pub(crate) fn row_major_strides(dims: &[i64]) -> Option<Vec<u64>> {
    let mut stride: u64 = 1;
    let mut strides = vec![0u64; dims.len()];
    for (d, &extent) in dims.iter().enumerate().rev() {
        strides[d] = stride;
        stride = stride.checked_mul(u64::try_from(extent.max(1)).ok()?)?;
    }
    Some(strides)
}

/// Whether two of the keys `key(0), .., key(n - 1)` are equal, with no
/// array of keys built: `O(n)` when they are strictly increasing (found
/// on two threads for many keys, [`order_and_max`]);
/// otherwise one pass counts them by their top 11 bits, one distributes
/// them into buckets (about `n / 2048` keys each, in cache), and each
/// bucket is sorted on its own. Many keys are counted, distributed and
/// sorted in two halves on two threads.
pub(crate) fn has_repeated_keys(n: usize, key: impl Fn(usize) -> u64 + Sync) -> bool {
    const BITS: u32 = 11;
    const BUCKETS: usize = 1 << BITS;
    let (increasing, max) = order_and_max(n, &key);
    if increasing {
        return false;
    }
    let shift = (64 - max.leading_zeros()).saturating_sub(BITS);
    let bucket = |k: u64| (k >> shift) as usize;
    // Each part of the entries is distributed into buckets of its own.
    let distribute = |part: std::ops::Range<usize>| {
        let mut starts = vec![0usize; BUCKETS + 1];
        for e in part.clone() {
            starts[bucket(key(e)) + 1] += 1;
        }
        for b in 0..BUCKETS {
            starts[b + 1] += starts[b];
        }
        let mut next = starts.clone();
        let mut keys = vec![0u64; part.len()];
        for e in part {
            let k = key(e);
            let b = bucket(k);
            keys[next[b]] = k;
            next[b] += 1;
        }
        Distributed { starts, keys }
    };
    // Whether a bucket in `range` holds a key twice (both parts' keys of
    // the bucket, gathered and sorted).
    let repeated_in = |parts: &[Distributed], range: std::ops::Range<usize>| {
        let mut scratch = Vec::new();
        range.into_iter().any(|b| {
            scratch.clear();
            for p in parts {
                scratch.extend_from_slice(&p.keys[p.starts[b]..p.starts[b + 1]]);
            }
            scratch.sort_unstable();
            scratch.windows(2).any(|w| w[0] == w[1])
        })
    };
    if n < PARALLEL_KEYS {
        return repeated_in(&[distribute(0..n)], 0..BUCKETS);
    }
    let (earlier, later) = crate::halves::both(0, n / 2, n, distribute);
    let parts = [earlier, later];
    // The buckets in two runs of about as many keys.
    let before = |b: usize| parts.iter().map(|p| p.starts[b]).sum::<usize>();
    let half = (0..=BUCKETS)
        .find(|&b| before(b) >= n / 2)
        .unwrap_or(BUCKETS);
    let (earlier, later) = crate::halves::both(0, half, BUCKETS, |b| repeated_in(&parts, b));
    earlier || later
}

/// Whether the keys `key(0), .., key(n - 1)` are strictly increasing, and
/// the largest (0 for none): in two halves on two threads for many keys
/// (the halves are increasing, and the first's last key is below the
/// second's first).
fn order_and_max(n: usize, key: &(impl Fn(usize) -> u64 + Sync)) -> (bool, u64) {
    // (increasing, first, last, largest) of the keys in `part`.
    let scan = |part: std::ops::Range<usize>| {
        let first = (!part.is_empty()).then(|| key(part.start));
        let (up, last, max) = part.fold((true, None::<u64>, 0u64), |(up, last, max), e| {
            let k = key(e);
            (up && last.is_none_or(|l| l < k), Some(k), max.max(k))
        });
        (up, first, last, max)
    };
    if n < PARALLEL_KEYS {
        let (up, _, _, max) = scan(0..n);
        return (up, max);
    }
    let ((up1, _, last1, max1), (up2, first2, _, max2)) = crate::halves::both(0, n / 2, n, scan);
    let joined = matches!((last1, first2), (Some(a), Some(b)) if a < b);
    (up1 && up2 && joined, max1.max(max2))
}

/// Keys distributed into buckets: bucket `b` at `keys[starts[b]..starts[b + 1]]`.
struct Distributed {
    starts: Vec<usize>,
    keys: Vec<u64>,
}

/// The fewest keys [`has_repeated_keys`] handles on two threads.
const PARALLEL_KEYS: usize = 1 << 18;

/// Entries at one coordinate whose sum is beyond the range of their type
/// (of a double: each value is finite, the sum is not).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Overflow {
    /// The coordinate, 0-based.
    pub at: Vec<i64>,
    /// The first entry there and the one whose addition overflowed, as
    /// positions in the order the entries were read.
    pub entries: [usize; 2],
    /// The sum, printed exactly.
    pub sum: String,
    /// The range it is beyond (`a double`, `a 64-bit integer`).
    pub range: &'static str,
}

impl Overflow {
    /// The error at the line of the entry that overflowed, given the line
    /// numbers of the entries in the order they were read.
    pub(super) fn error(&self, entry_lines: impl Iterator<Item = usize>) -> TensorIoError {
        let listed: Vec<usize> = entry_lines.take(self.entries[1] + 1).collect();
        let line = |e: usize| listed.get(e).copied().unwrap_or(0);
        let at: Vec<String> = self.at.iter().map(|i| (i + 1).to_string()).collect();
        TensorIoError::new(
            line(self.entries[1]),
            1,
            format!(
                "the entries at ({}) on lines {} and {} sum to {}, beyond the range of {}",
                at.join(", "),
                line(self.entries[0]),
                line(self.entries[1]),
                self.sum,
                self.range
            ),
        )
    }
}

/// Sums the entries that share coordinates into the first of them, keeping
/// the order of the others.
///
/// # Errors
///
/// The first sum beyond the range of the values' type.
pub(crate) fn sum_duplicates<I: IndexInt, V: CooValue>(
    t: &mut CooTensor<I, V>,
) -> Result<(), Overflow> {
    let n = t.values.len();
    let mut seen: HashMap<Vec<I>, (usize, usize)> = HashMap::with_capacity(n);
    let mut kept = 0;
    for e in 0..n {
        let index: Vec<I> = t.indices.iter().map(|c| c[e]).collect();
        match seen.get(&index) {
            Some(&(at, first)) => {
                let (a, b) = (t.values[at], t.values[e]);
                let Some(sum) = a.sum(b) else {
                    return Err(Overflow {
                        at: index.iter().map(|&i| i.into()).collect(),
                        entries: [first, e],
                        sum: a.shown_sum(b),
                        range: V::RANGE,
                    });
                };
                t.values[at] = sum;
            }
            None => {
                seen.insert(index, (kept, e));
                for c in &mut t.indices {
                    c[kept] = c[e];
                }
                t.values[kept] = t.values[e];
                kept += 1;
            }
        }
    }
    for c in &mut t.indices {
        c.truncate(kept);
    }
    t.values.truncate(kept);
    Ok(())
}

/// Whether the entries are strictly increasing with the first mode
/// fastest (column by column, as many Matrix Market files list them).
fn sorted_first_mode_fastest<I: IndexInt>(columns: &[&[I]]) -> bool {
    let n = columns.first().map_or(0, |c| c.len());
    (1..n).all(|e| {
        for c in columns.iter().rev() {
            if c[e - 1] != c[e] {
                return c[e - 1] < c[e];
            }
        }
        false
    })
}

/// Sums duplicates when there are any ([`has_repeated_keys`] decides, or
/// one pass when the entries are sorted column by column).
///
/// # Errors
///
/// The first sum beyond the range of the values' type ([`sum_duplicates`]).
pub(super) fn merge_duplicates<I: IndexInt, V: CooValue>(
    t: &mut CooTensor<I, V>,
) -> Result<(), Overflow> {
    let columns: Vec<&[I]> = t.indices.iter().map(Vec::as_slice).collect();
    if sorted_first_mode_fastest(&columns) {
        return Ok(());
    }
    let n = t.values.len();
    let repeated = match (row_major_strides(&t.dims), columns.as_slice()) {
        (Some(s), &[rows, cols]) => has_repeated_keys(n, |e| {
            let (i, j): (i64, i64) = (rows[e].into(), cols[e].into());
            i as u64 * s[0] + j as u64
        }),
        (Some(s), _) => has_repeated_keys(n, |e| {
            // Indices were checked to lie in 0..extent.
            columns
                .iter()
                .zip(&s)
                .map(|(c, &d)| Into::<i64>::into(c[e]) as u64 * d)
                .sum()
        }),
        (None, _) => true,
    };
    if repeated {
        sum_duplicates(t)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_major_order_is_recognized() {
        assert!(sorted_first_mode_fastest(&[&[0, 1, 0], &[0, 0, 1]]));
        assert!(!sorted_first_mode_fastest(&[&[0, 0], &[1, 1]]));
        assert!(!sorted_first_mode_fastest(&[&[0, 1], &[1, 0]]));
    }

    /// [`has_repeated_keys`] of the keys of a slice.
    fn repeated(keys: &[u64]) -> bool {
        has_repeated_keys(keys.len(), |e| keys[e])
    }

    #[test]
    fn repeated_keys_are_found_sorted_or_not() {
        assert!(!repeated(&[1, 2, 5]));
        assert!(!repeated(&[5, 1, 2]));
        assert!(repeated(&[5, 1, 5]));
        assert!(repeated(&[1, 1]));
        assert!(!repeated(&[]));
        // Many keys, one repeat far apart, in every bucket.
        let mut keys: Vec<u64> = (0..5000u64)
            .map(|i| (i * 7919) % 5003 * (1 << 30))
            .collect();
        assert!(!repeated(&keys));
        keys.push(keys[17]);
        assert!(repeated(&keys));
        // Enough keys for two threads: a repeat in either half is found.
        let many: Vec<u64> = (0..PARALLEL_KEYS as u64 + 5)
            .map(|i| i.wrapping_mul(2_654_435_761) % (1 << 40))
            .collect();
        assert!(!repeated(&many));
        for twice in [many.iter().min(), many.iter().max()] {
            let mut keys = many.clone();
            keys.push(*twice.expect("keys"));
            assert!(repeated(&keys));
        }
    }

    /// The order and largest key of many keys, from two halves, are those
    /// of one scan: increasing only when each half is and they join in
    /// order.
    #[test]
    fn order_and_max_from_two_halves() {
        let n = PARALLEL_KEYS + 11;
        let up: Vec<u64> = (0..n as u64).map(|i| 3 * i + 1).collect();
        let of = |keys: &[u64]| order_and_max(keys.len(), &|e| keys[e]);
        assert_eq!(of(&up), (true, 3 * (n as u64 - 1) + 1));
        // The two halves increase, but the second starts below the first's
        // end; a repeat across the cut; a fall inside either half.
        let mut swapped = up[n / 2..].to_vec();
        swapped.extend_from_slice(&up[..n / 2]);
        assert_eq!(of(&swapped), (false, *up.last().expect("keys")));
        let mut at_cut = up.clone();
        at_cut[n / 2] = at_cut[n / 2 - 1];
        assert!(!of(&at_cut).0);
        for fall in [7, n - 3] {
            let mut keys = up.clone();
            keys.swap(fall, fall + 1);
            assert!(!of(&keys).0, "{fall}");
            assert!(!repeated(&keys));
        }
        assert_eq!(of(&[]), (true, 0));
        assert_eq!(of(&[9]), (true, 9));
    }

    #[test]
    fn strides_are_row_major_and_overflow_is_none() {
        assert_eq!(row_major_strides(&[3, 4]), Some(vec![4, 1]));
        assert_eq!(row_major_strides(&[2, 3, 4]), Some(vec![12, 4, 1]));
        assert_eq!(row_major_strides(&[1 << 40, 1 << 40]), None);
    }

    #[test]
    fn duplicates_are_summed_and_distinct_entries_kept() {
        // Enough entries for two threads, shuffled, with a repeat of the
        // first and of the last: both summed into their first occurrence.
        let n: i64 = PARALLEL_KEYS as i64 + 7;
        let order: Vec<i64> = (0..n).map(|e| (e * 7919) % n).collect();
        let mut t = CooTensor {
            dims: vec![n, 3],
            indices: vec![order.clone(), order.iter().map(|e| e % 3).collect()],
            values: vec![1.0; n as usize],
        };
        merge_duplicates(&mut t).unwrap();
        assert_eq!(t.values.len(), n as usize, "no duplicates: nothing changes");
        for e in [0usize, n as usize - 1] {
            t.indices[0].push(order[e]);
            t.indices[1].push(order[e] % 3);
            t.values.push(2.0);
        }
        merge_duplicates(&mut t).unwrap();
        assert_eq!(t.values.len(), n as usize);
        assert_eq!(t.values[0], 3.0);
        assert_eq!(t.values[n as usize - 1], 3.0);
        assert_eq!(t.values.iter().filter(|&&v| v == 3.0).count(), 2);
    }

    #[test]
    fn a_sum_beyond_the_double_range_names_the_coordinate_and_the_entries() {
        let mut t = CooTensor {
            dims: vec![3, 3],
            indices: vec![vec![2, 0, 2, 2], vec![1, 0, 1, 1]],
            values: vec![1e308, 1.0, 5e307, 1e308],
        };
        let o = merge_duplicates(&mut t).unwrap_err();
        assert_eq!(o.at, vec![2, 1]);
        assert_eq!(o.entries, [0, 3]);
        assert_eq!((o.sum.as_str(), o.range), ("inf", "a double"));
    }
}
