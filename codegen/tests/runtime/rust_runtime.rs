//! The Rust runtime (`spf_runtime`) in-process on many inputs: permutations,
//! ordered sets, payloads and scatters against the references, and its
//! panics on misuse.

use std::collections::BTreeSet;

use codegen::runtime::spf_runtime::{Order, OrderedSet, Permutation, Scatter};

use crate::harness::Rng;
use crate::{morton, stable_order};

#[test]
fn rust_runtime_permutations_agree_with_the_references() {
    let mut r = Rng(41);
    for round in 0..300 {
        let k = 1 + r.below(4) as usize;
        let n = [0, 1, 2, 17, 100, 1000][round % 6];
        let extents: Vec<i64> = (0..k).map(|_| 1 + r.below(6) as i64).collect();
        let keys: Vec<Vec<i64>> = (0..n)
            .map(|_| extents.iter().map(|&e| r.below(e as u64) as i64).collect())
            .collect();
        for order in [Order::Lex, Order::Counting(extents.clone()), Order::Morton] {
            let morton_order = order == Order::Morton;
            let mut p = Permutation::new(k, order.clone());
            for key in &keys {
                p.insert(key);
            }
            if n > 0 {
                // Before sort, positions are entries.
                assert_eq!(p.map(n as i64 / 2), n as i64 / 2);
                assert_eq!(p.entry(n as i64 - 1), n as i64 - 1);
            }
            p.sort();
            p.sort(); // idempotent
            let want = if morton_order {
                stable_order(n, |e| morton(&keys[e]))
            } else {
                stable_order(n, |e| keys[e].clone())
            };
            assert_eq!(p.size(), n as i64);
            for (pos, &e) in want.iter().enumerate() {
                assert_eq!(p.entry(pos as i64), e as i64, "{order:?} {keys:?}");
                assert_eq!(p.map(e as i64), pos as i64);
                for (d, &v) in keys[e].iter().enumerate() {
                    assert_eq!(p.key(d as i64, pos as i64), v);
                }
            }
            if let Order::Counting(_) = order {
                for (d, &extent) in extents.iter().enumerate() {
                    for v in -1..=extent {
                        let count = keys.iter().filter(|key| key[d] == v).count() as i64;
                        assert_eq!(p.count(d as i64, v), count);
                    }
                }
            }
            if !morton_order {
                for v in -2..=extents[0] + 1 {
                    let below = keys.iter().filter(|key| key[0] < v).count() as i64;
                    assert_eq!(p.start(v), below, "{order:?}");
                }
            }
        }
    }
}

#[test]
fn rust_runtime_ordered_sets_agree_with_the_references() {
    let mut r = Rng(42);
    for round in 0..200 {
        let n = [0, 1, 5, 50, 400][round % 5];
        let (lo, hi) = (-(r.below(20) as i64), r.below(20) as i64);
        let values: Vec<i64> = (0..n)
            .map(|_| lo + r.below((hi - lo + 1) as u64) as i64)
            .collect();
        let want: Vec<i64> = values
            .iter()
            .copied()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        for mut s in [OrderedSet::new(), OrderedSet::with_bounds(lo, hi)] {
            for &v in &values {
                s.insert(v);
            }
            s.sort();
            assert_eq!(s.size(), want.len() as i64);
            for (i, &v) in want.iter().enumerate() {
                assert_eq!(s.value(i as i64), v);
            }
            for v in lo - 3..=hi + 3 {
                assert_eq!(s.index(v), want.binary_search(&v).map_or(-1, |p| p as i64));
            }
        }
    }
}

#[test]
fn rust_runtime_counting_sort_is_linear() {
    // One million entries sort in well under a second even unoptimized
    // (a quadratic or comparison-heavy sort would not).
    let (n, rows, cols) = (1_000_000usize, 1000i64, 1000i64);
    let mut r = Rng(43);
    let mut p = Permutation::new(2, Order::Counting(vec![rows, cols]));
    for _ in 0..n {
        p.insert(&[r.below(rows as u64) as i64, r.below(cols as u64) as i64]);
    }
    let t = std::time::Instant::now();
    p.sort();
    let took = t.elapsed();
    for pos in 1..n as i64 {
        let (a, b) = (
            (p.key(0, pos - 1), p.key(1, pos - 1)),
            (p.key(0, pos), p.key(1, pos)),
        );
        assert!(a < b || (a == b && p.entry(pos - 1) < p.entry(pos)));
    }
    assert!(took.as_secs_f64() < 2.0, "counting sort took {took:?}");
}

#[test]
#[should_panic(expected = "spf runtime: insert after sort()")]
fn rust_runtime_rejects_inserts_after_sort() {
    let mut p = Permutation::new(1, Order::Lex);
    p.sort();
    p.insert(&[1]);
}

#[test]
#[should_panic(expected = "spf runtime: key component 0 is 4, outside its counting range 0..4")]
fn rust_runtime_rejects_keys_outside_the_counting_range() {
    Permutation::new(1, Order::Counting(vec![4])).insert(&[4]);
}

#[test]
fn rust_runtime_payloads_follow_their_keys() {
    for order in [Order::Lex, Order::Counting(vec![3]), Order::Morton] {
        let mut p = Permutation::with_compared(2, 1, order);
        for (e, k) in [2, 0, 2, 1, 0, 2].into_iter().enumerate() {
            p.insert(&[k, 10 * e as i64 - 30]);
        }
        p.sort();
        let keys: Vec<(i64, i64)> = (0..6).map(|q| (p.key(0, q), p.key(1, q))).collect();
        assert_eq!(
            keys,
            [(0, -20), (0, 10), (1, 0), (2, -30), (2, -10), (2, 20)]
        );
        let entries: Vec<i64> = (0..6).map(|q| p.entry(q)).collect();
        assert_eq!(entries, [1, 4, 3, 0, 2, 5]);
    }
}

#[test]
fn rust_runtime_scatter_agrees_with_the_reference() {
    let mut r = Rng(53);
    for round in 0..300 {
        let e = [0usize, 1, 2, 7, 100][round % 5];
        let n = if e == 0 {
            0
        } else {
            [0, 1, 5, 60, 1000][round / 5 % 5]
        };
        let keys: Vec<i64> = (0..n).map(|_| r.below(e as u64) as i64).collect();
        let mut b = Scatter::new(e as i64);
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(b.size(), i as i64);
            b.insert(k);
        }
        b.sort();
        b.sort(); // idempotent
        assert_eq!(b.size(), n as i64);
        for v in 0..=e as i64 {
            let below = keys.iter().filter(|&&k| k < v).count() as i64;
            assert_eq!(b.start(v), below);
        }
        // Placing every entry in input order gives the stable order.
        let order = stable_order(n, |i| keys[i]);
        let mut got = vec![usize::MAX; n];
        // `place_inserted` hands out the same positions.
        let mut twin = b.clone();
        for (i, &k) in keys.iter().enumerate() {
            let p = b.place(k);
            assert_eq!(twin.place_inserted(k), p);
            got[p as usize] = i;
        }
        assert_eq!(got, order);
        assert_eq!(b.size(), n as i64);
    }
}

#[test]
#[should_panic(expected = "spf runtime: place_inserted() before sort()")]
fn rust_runtime_scatter_rejects_place_inserted_before_sort() {
    let mut b = Scatter::new(3);
    b.insert(1);
    b.place_inserted(1);
}

#[test]
#[should_panic(expected = "spf runtime: key 3 is out of range 0..3")]
fn rust_runtime_scatter_rejects_place_inserted_outside_the_range() {
    let mut b = Scatter::new(3);
    b.sort();
    b.place_inserted(3);
}

#[test]
#[should_panic(expected = "spf runtime: place(1) called more often than key 1 was inserted")]
fn rust_runtime_scatter_rejects_places_beyond_the_count() {
    let mut b = Scatter::new(3);
    b.insert(1);
    b.sort();
    assert_eq!(b.place(1), 0);
    b.place(1);
}

#[test]
#[should_panic(expected = "spf runtime: place() before sort()")]
fn rust_runtime_scatter_rejects_places_before_sort() {
    let mut b = Scatter::new(3);
    b.insert(1);
    b.place(1);
}

#[test]
#[should_panic(expected = "spf runtime: key 3 is out of range 0..3")]
fn rust_runtime_scatter_rejects_places_outside_the_range() {
    let mut b = Scatter::new(3);
    b.sort();
    b.place(3);
}

#[test]
#[should_panic(expected = "spf runtime: start() before sort()")]
fn rust_runtime_scatter_rejects_start_before_sort() {
    Scatter::new(3).start(0);
}
