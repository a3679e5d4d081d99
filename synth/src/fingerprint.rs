//! A keyed multiset fingerprint of a tensor's nonzero entries: what `spf
//! convert` compares a result with its input by, in one streaming pass over
//! each and no entry buffers, instead of sorting both sides' entries and
//! merging them ([`crate::oracle::compare_entries`]).
//!
//! An entry (coordinates `c0, c1, ..`, value `v`, nonzero) is hashed as
//! the words `c0, c1, .., bits(v)`, taken two at a time (a last word alone
//! is paired with 0): each pair `(a, b)` folds into the running hash `h`
//! (`key` at first) as `h = fold(a ^ h ^ P[2i], b ^ P[2i + 1])`, where
//! `fold(x, y)` is the 128-bit product `x · y` with its halves xored
//! (wyhash's multiply-fold) and `P` are fixed odd constants; `key` is
//! drawn at random once per process ([`key`]). A 2-D entry costs two
//! multiplications in a chain of two, a fifth of the latency of MurmurHash3's
//! finalizer per word, which the checks of a few million entries feel. The
//! fingerprint is the number of entries and the sum of their hashes modulo
//! 2^64. It does not depend on the order of the entries. The compiled checks
//! compute the same function in C (`drv_fp_entry` in the CLI's runtime).
//!
//! Two sets of entries with the same fingerprint are taken to be equal.
//! When they differ, the difference is a nonempty multiset of entries
//! gained and lost; the fingerprints agree only if the hashes of the
//! gained ones sum to those of the lost ones modulo 2^64, which, the key
//! being random and unknown to whatever produced the entries, happens with
//! probability about 2^-64 (one in 1.8 × 10^19) per comparison: far below
//! the chance of a hardware fault during the run. (A fold loses its
//! other word when a factor is zero, which for a given running hash
//! happens at one word value in 2^64: as unlikely.) A difference in the
//! number of entries is always caught. Equality as multisets is equality
//! as sets here: an input never holds two nonzero entries at one
//! coordinate (the readers and the input's check refuse them), so a result
//! with a repeated coordinate differs from it as a multiset.
//!
//! A fingerprint only says *whether* two sets differ; to say *where*, the
//! caller recomputes the exact sorted entries of both sides and merges
//! them, which names the first lost, added or changed entry.

use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

use crate::oracle::Entries;

/// The count and hash sum of a set of nonzero entries (see the module
/// documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fingerprint {
    /// The number of entries.
    pub count: u64,
    /// The sum of their hashes, modulo 2^64.
    pub sum: u64,
}

/// The fixed odd constants the words of an entry are xored with (see the
/// module documentation; `drv_fp_consts` in the CLI's runtime is the same
/// list), for up to [`MAX_WORDS`] words.
const P: [u64; MAX_WORDS] = [
    0xa076_1d64_78bd_642f,
    0xe703_7ed1_a0b4_28db,
    0x8ebc_6af0_9c88_c6e3,
    0x5899_65cc_7537_4cc3,
    0x1d8e_4e27_c47d_124f,
    0x9e37_79b9_7f4a_7c15,
    0xc2b2_ae3d_27d4_eb4f,
    0x1656_67b1_9e37_79f9,
];

/// The most words an entry hashes: seven coordinates and its value (a
/// longer entry folds its words in again from the first constant).
const MAX_WORDS: usize = 8;

/// wyhash's multiply-fold: the 128-bit product's two halves xored.
#[inline]
fn fold(x: u64, y: u64) -> u64 {
    let p = u128::from(x) * u128::from(y);
    (p as u64) ^ ((p >> 64) as u64)
}

/// The hash of one entry under `key`.
#[inline]
pub fn entry_hash(key: u64, coords: &[i64], value: f64) -> u64 {
    let words = coords.len() + 1;
    let word = |j: usize| match j.cmp(&coords.len()) {
        std::cmp::Ordering::Less => coords[j] as u64,
        std::cmp::Ordering::Equal => value.to_bits(),
        std::cmp::Ordering::Greater => 0,
    };
    let mut h = key;
    for j in (0..words).step_by(2) {
        h = fold(
            word(j) ^ h ^ P[j % MAX_WORDS],
            word(j + 1) ^ P[(j + 1) % MAX_WORDS],
        );
    }
    h
}

/// This process's key: random, drawn once (from the standard library's
/// randomly seeded hasher).
pub fn key() -> u64 {
    static KEY: OnceLock<u64> = OnceLock::new();
    *KEY.get_or_init(|| {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(0x5350_465f_6670);
        h.finish()
    })
}

impl Fingerprint {
    /// Adds an entry (nonzero values only: a zero is not an entry).
    #[inline]
    pub fn add(&mut self, key: u64, coords: &[i64], value: f64) {
        if value != 0.0 {
            self.count += 1;
            self.sum = self.sum.wrapping_add(entry_hash(key, coords, value));
        }
    }

    /// The fingerprint of `entries` under this process's [`key`].
    pub fn of_entries(entries: &Entries) -> Fingerprint {
        let key = key();
        let mut f = Fingerprint::default();
        for (c, v) in entries.iter() {
            f.add(key, c, v);
        }
        f
    }

    /// The fingerprint of coordinate columns (one per dimension, entry `e`
    /// at `columns[k][e]`, at any integer width) and their values, under
    /// this process's [`key`]: many entries in two halves on two threads
    /// (a fingerprint is a sum).
    pub fn of_columns<
        I: Copy + Into<i64> + Sync,
        C: AsRef<[I]> + Sync,
        V: crate::tensor_io::CooValue,
    >(
        columns: &[C],
        values: &[V],
    ) -> Fingerprint {
        let key = key();
        let range = |r: std::ops::Range<usize>| {
            let mut f = Fingerprint::default();
            let mut point = vec![0i64; columns.len()];
            for (e, &v) in r.clone().zip(&values[r]) {
                for (p, column) in point.iter_mut().zip(columns) {
                    *p = column.as_ref()[e].into();
                }
                f.add(key, &point, v.to_f64());
            }
            f
        };
        let n = values.len();
        if n < PARALLEL_ENTRIES {
            return range(0..n);
        }
        let (first, second) = crate::halves::both(0, n / 2, n, range);
        first.plus(second)
    }

    /// The fingerprint of two disjoint sets of entries together.
    pub fn plus(self, other: Fingerprint) -> Fingerprint {
        Fingerprint {
            count: self.count + other.count,
            sum: self.sum.wrapping_add(other.sum),
        }
    }
}

/// The fewest entries [`Fingerprint::of_columns`] sums on two threads.
const PARALLEL_ENTRIES: usize = 1 << 18;

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(list: &[(&[i64], f64)]) -> Entries {
        let mut e = Entries {
            arity: 2,
            ..Entries::default()
        };
        for (c, v) in list {
            e.coords.extend_from_slice(c);
            e.values.push(*v);
        }
        e
    }

    #[test]
    fn equal_sets_agree_in_any_order_and_every_change_is_seen() {
        let base: &[(&[i64], f64)] = &[(&[0, 1], 2.0), (&[1, 0], 3.0), (&[2, 2], -1.5)];
        let want = Fingerprint::of_entries(&entries(base));
        let shuffled: &[(&[i64], f64)] = &[(&[2, 2], -1.5), (&[0, 1], 2.0), (&[1, 0], 3.0)];
        assert_eq!(Fingerprint::of_entries(&entries(shuffled)), want);
        // A stored zero is no entry.
        let with_zero: &[(&[i64], f64)] = &[
            (&[0, 1], 2.0),
            (&[1, 1], 0.0),
            (&[1, 0], 3.0),
            (&[2, 2], -1.5),
        ];
        assert_eq!(Fingerprint::of_entries(&entries(with_zero)), want);
        let changed: [&[(&[i64], f64)]; 5] = [
            // A value changed.
            &[(&[0, 1], 2.5), (&[1, 0], 3.0), (&[2, 2], -1.5)],
            // An entry moved.
            &[(&[0, 2], 2.0), (&[1, 0], 3.0), (&[2, 2], -1.5)],
            // Coordinates swapped.
            &[(&[1, 0], 2.0), (&[0, 1], 3.0), (&[2, 2], -1.5)],
            // An entry dropped.
            &[(&[0, 1], 2.0), (&[1, 0], 3.0)],
            // An entry in place of another (a repeated coordinate).
            &[(&[0, 1], 2.0), (&[0, 1], 2.0), (&[2, 2], -1.5)],
        ];
        for list in changed {
            assert_ne!(Fingerprint::of_entries(&entries(list)), want, "{list:?}");
        }
        // An entry duplicated.
        let mut dup = entries(base);
        dup.coords.extend_from_slice(&[0, 1]);
        dup.values.push(2.0);
        assert_ne!(Fingerprint::of_entries(&dup), want);
        // Columns give what entries give, on one thread or two.
        let columns = vec![vec![0, 1, 1, 2], vec![1, 1, 0, 2]];
        assert_eq!(
            Fingerprint::of_columns(&columns, &[2.0, 0.0, 3.0, -1.5]),
            want
        );
        let n = PARALLEL_ENTRIES as i64 + 3;
        let columns = vec![(0..n).collect::<Vec<_>>(), (0..n).map(|e| e % 7).collect()];
        let values: Vec<f64> = (0..n).map(|e| e as f64).collect();
        let mut each = entries(&[]);
        for e in 0..n as usize {
            each.coords.extend([columns[0][e], columns[1][e]]);
            each.values.push(values[e]);
        }
        assert_eq!(
            Fingerprint::of_columns(&columns, &values),
            Fingerprint::of_entries(&each)
        );
    }
}
