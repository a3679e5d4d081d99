//! Entries at the same coordinates: found in `O(n)` time, summed into the
//! first occurrence.
//!
//! Most files have no duplicates, so the readers first ask whether there are
//! any ([`has_repeated_keys`]: one pass when the entries come sorted, a
//! bucket sort of the linearized coordinates otherwise) and pay for a hash
//! map ([`sum_duplicates`]) only when there are.

use std::collections::HashMap;

use super::CooTensor;

/// The entries' coordinates linearized row-major (the last mode fastest)
/// as `u64` keys; `None` when the extents' product does not fit in a `u64`.
pub(super) fn linear_keys(columns: &[&[i64]], dims: &[i64]) -> Option<Vec<u64>> {
    let mut stride: u64 = 1;
    let mut strides = vec![0u64; dims.len()];
    for (d, &extent) in dims.iter().enumerate().rev() {
        strides[d] = stride;
        stride = stride.checked_mul(u64::try_from(extent.max(1)).ok()?)?;
    }
    let n = columns.first().map_or(0, |c| c.len());
    let mut keys = vec![0u64; n];
    for (column, &s) in columns.iter().zip(&strides) {
        for (k, &i) in keys.iter_mut().zip(column.iter()) {
            // Indices were checked to lie in 0..extent.
            *k += i as u64 * s;
        }
    }
    Some(keys)
}

/// Whether two keys are equal: `O(n)` when they are strictly increasing;
/// otherwise one pass distributes them by their top 11 bits and each
/// bucket (about `n / 2048` keys, in cache) is sorted on its own.
pub(super) fn has_repeated_keys(keys: Vec<u64>) -> bool {
    const BITS: u32 = 11;
    if keys.windows(2).all(|w| w[0] < w[1]) {
        return false;
    }
    let max = keys.iter().copied().max().unwrap_or(0);
    let shift = (64 - max.leading_zeros()).saturating_sub(BITS);
    let mut starts = vec![0usize; (1 << BITS) + 1];
    for &k in &keys {
        starts[(k >> shift) as usize + 1] += 1;
    }
    for b in 0..1 << BITS {
        starts[b + 1] += starts[b];
    }
    let mut next = starts.clone();
    let mut buckets = vec![0u64; keys.len()];
    for &k in &keys {
        let b = (k >> shift) as usize;
        buckets[next[b]] = k;
        next[b] += 1;
    }
    // The buckets are sorted in two halves of about as many keys, the
    // second on a thread of its own when there are many.
    let half = starts.partition_point(|&s| s < keys.len() / 2);
    let (low, high) = buckets.split_at_mut(starts[half]);
    if keys.len() < PARALLEL_KEYS {
        return any_repeated(low, &starts[..=half]) || any_repeated(high, &starts[half..]);
    }
    std::thread::scope(|scope| {
        let later = scope.spawn(|| any_repeated(high, &starts[half..]));
        let earlier = any_repeated(low, &starts[..=half]);
        // A half whose thread failed counts as repeated: the caller then
        // sums duplicates, which is right whether or not there are any.
        earlier || later.join().unwrap_or(true)
    })
}

/// The fewest keys whose buckets [`has_repeated_keys`] sorts on two threads.
const PARALLEL_KEYS: usize = 1 << 18;

/// Whether a bucket of `buckets` (bucket `b` at `starts[b] - starts[0]`
/// up to `starts[b + 1] - starts[0]`) holds a key twice, each sorted.
fn any_repeated(buckets: &mut [u64], starts: &[usize]) -> bool {
    let base = starts[0];
    starts.windows(2).any(|w| {
        let bucket = &mut buckets[w[0] - base..w[1] - base];
        bucket.sort_unstable();
        bucket.windows(2).any(|p| p[0] == p[1])
    })
}

/// Sums the entries that share coordinates into the first of them, keeping
/// the order of the others.
pub(super) fn sum_duplicates(t: &mut CooTensor) {
    let n = t.values.len();
    let mut seen: HashMap<Vec<i64>, usize> = HashMap::with_capacity(n);
    let mut kept = 0;
    for e in 0..n {
        let index: Vec<i64> = t.indices.iter().map(|c| c[e]).collect();
        match seen.get(&index) {
            Some(&at) => t.values[at] += t.values[e],
            None => {
                seen.insert(index, kept);
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
}

/// Whether the entries are strictly increasing with the first mode
/// fastest (column by column, as many Matrix Market files list them).
fn sorted_first_mode_fastest(columns: &[&[i64]]) -> bool {
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
pub(super) fn merge_duplicates(t: &mut CooTensor) {
    let columns: Vec<&[i64]> = t.indices.iter().map(Vec::as_slice).collect();
    if sorted_first_mode_fastest(&columns) {
        return;
    }
    let repeated = match linear_keys(&columns, &t.dims) {
        Some(keys) => has_repeated_keys(keys),
        None => true,
    };
    if repeated {
        sum_duplicates(t);
    }
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

    #[test]
    fn repeated_keys_are_found_sorted_or_not() {
        assert!(!has_repeated_keys(vec![1, 2, 5]));
        assert!(!has_repeated_keys(vec![5, 1, 2]));
        assert!(has_repeated_keys(vec![5, 1, 5]));
        assert!(has_repeated_keys(vec![1, 1]));
        assert!(!has_repeated_keys(vec![]));
        // Many keys, one repeat far apart, in every bucket.
        let mut keys: Vec<u64> = (0..5000u64)
            .map(|i| (i * 7919) % 5003 * (1 << 30))
            .collect();
        assert!(!has_repeated_keys(keys.clone()));
        keys.push(keys[17]);
        assert!(has_repeated_keys(keys));
        // Enough keys for two threads: a repeat in either half is found.
        let many: Vec<u64> = (0..PARALLEL_KEYS as u64 + 5)
            .map(|i| i.wrapping_mul(2_654_435_761) % (1 << 40))
            .collect();
        assert!(!has_repeated_keys(many.clone()));
        for repeated in [many.iter().min(), many.iter().max()] {
            let mut keys = many.clone();
            keys.push(*repeated.expect("keys"));
            assert!(has_repeated_keys(keys));
        }
    }

    #[test]
    fn keys_are_row_major_and_overflow_is_none() {
        let keys = linear_keys(&[&[0, 1, 2], &[3, 0, 1]], &[3, 4]);
        assert_eq!(keys, Some(vec![3, 4, 9]));
        assert_eq!(linear_keys(&[&[0], &[0]], &[1 << 40, 1 << 40]), None);
    }
}
