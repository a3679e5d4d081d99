//! The fast paths of the C runtime's `Permutation` (keys already in order,
//! MSD counting sort with bucket sorts, the LSD fallback, radix sorts of
//! packed and unpacked Morton codes, the merge sort fallback, lazy counts,
//! distinct ranks and prefix ranks, from the sorted words' bit fields or the keys)
//! against a reference written here from docs/runtime.md: a stable sort by
//! the compared components (lexicographic, or by the Morton code built bit
//! by bit). The Rust runtime is checked against the same reference. Payloads
//! equal to the entry numbers (not stored by the C runtime), also up to a
//! point only, are covered too, and every case again with its keys viewed
//! in the caller's arrays (`spf_perm_view`: nothing stored; with the last
//! component left out when it is a payload, which is stored from the first
//! entry where it is not the entry number on, the views materialized), in
//! `int64_t` arrays and, where the keys fit, in `int32_t` ones
//! (`spf_perm_view32`).

use std::fmt::Write as _;
use std::process::Command;

use codegen::runtime::spf_runtime::{Order, Permutation};
use codegen::runtime::C_RUNTIME;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Lex,
    Counting,
    Morton,
}

/// One permutation: its declaration and its keys (in insertion order).
#[derive(Clone, Debug)]
struct Case {
    k: usize,
    j: usize,
    kind: Kind,
    extents: Vec<i64>,
    keys: Vec<Vec<i64>>,
    /// C: the number of leading components viewed in arrays
    /// (`spf_perm_view`), 0 for none.
    views: usize,
    /// C, with views: the arrays are `int32_t` (`spf_perm_view32`).
    narrow: bool,
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: i64) -> i64 {
        (self.next() % n as u64) as i64
    }
}

/// Bit `b·J + d` of the code is bit `b` of component `d`.
fn morton_code(key: &[i64]) -> Vec<u64> {
    let j = key.len();
    let mut code = vec![0u64; j];
    for (d, &v) in key.iter().enumerate() {
        for b in 0..64 {
            if (v as u64 >> b) & 1 == 1 {
                let bit = b * j + d;
                code[bit / 64] |= 1 << (bit % 64);
            }
        }
    }
    code
}

/// The reference order: entries stably sorted by their compared components.
fn reference(case: &Case) -> Vec<usize> {
    let mut order: Vec<usize> = (0..case.keys.len()).collect();
    let j = case.j;
    match case.kind {
        Kind::Lex | Kind::Counting => {
            order.sort_by(|&a, &b| case.keys[a][..j].cmp(&case.keys[b][..j]));
        }
        Kind::Morton => {
            let codes: Vec<Vec<u64>> = case.keys.iter().map(|k| morton_code(&k[..j])).collect();
            order.sort_by(|&a, &b| codes[a].iter().rev().cmp(codes[b].iter().rev()));
        }
    }
    order
}

/// What a run prints: the entry and key of every position, the position of
/// every entry, `start(v)` around the first component's range (counting and
/// lex), every count (counting, one of them asked halfway through the
/// inserts, except for `n % 7 == 3` entries: all of them after the sort).
fn expected(case: &Case) -> String {
    let order = reference(case);
    let n = order.len();
    let mut out = String::new();
    if case.kind == Kind::Counting && n % 7 != 3 {
        let d = case.j - 1;
        let half = &case.keys[..n / 2];
        let _ = writeln!(out, "half {}", half.iter().filter(|k| k[d] == 1).count());
    }
    for &e in &order {
        let _ = write!(out, "{e}");
        for v in &case.keys[e] {
            let _ = write!(out, " {v}");
        }
        out.push('\n');
    }
    let mut positions = vec![0; n];
    for (p, &e) in order.iter().enumerate() {
        positions[e] = p;
    }
    for p in positions {
        let _ = writeln!(out, "map {p}");
    }
    if case.kind != Kind::Morton {
        for v in start_probes(case) {
            let below = case.keys.iter().filter(|k| k[0] < v).count();
            let _ = writeln!(out, "start {v} {below}");
        }
    }
    // distinct ranks by the compared components (any order: equal keys
    // are adjacent), and by each prefix of them (lexicographic orders)
    let prefixes = if case.kind == Kind::Morton { 0 } else { case.j };
    let mut last: Option<&[i64]> = None;
    let mut ranks = vec![-1i64; case.j + 1];
    for &e in &order {
        let key = &case.keys[e][..case.j];
        for (c, r) in ranks.iter_mut().enumerate().skip(1) {
            if last.is_none_or(|l| l[..c] != key[..c]) {
                *r += 1;
            }
        }
        last = Some(key);
        let _ = write!(out, "rank {}", ranks[case.j]);
        for r in &ranks[1..=prefixes] {
            let _ = write!(out, " {r}");
        }
        out.push('\n');
    }
    if case.kind == Kind::Counting {
        for d in 0..case.j {
            for v in 0..case.extents[d].min(40) {
                let c = case.keys.iter().filter(|k| k[d] == v).count();
                let _ = writeln!(out, "count {d} {v} {c}");
            }
        }
    }
    out
}

fn start_probes(case: &Case) -> Vec<i64> {
    let top = case.keys.iter().map(|k| k[0]).max().unwrap_or(0);
    let mut v = vec![-1, 0, 1, 2, top, top + 1, top + 2];
    v.push(top / 2);
    v
}

/// The C driver: reads the cases from stdin, prints what `expected` does.
const DRIVER: &str = r#"
int main(void)
{
    long long k, j, order, views, narrow, n, cases, c, i, d;
    if (scanf("%lld", &cases) != 1) return 2;
    for (c = 0; c < cases; c++) {
        int64_t ext[8] = {0}, key[8] = {0}, *cols[8];
        int32_t *cols32[8];
        const int64_t *viewed[8];
        const int32_t *viewed32[8];
        spf_perm P;
        if (scanf("%lld %lld %lld %lld %lld", &k, &j, &order, &views, &narrow) != 5) return 2;
        if (order == SPF_COUNTING)
            for (d = 0; d < j; d++) {
                long long x;
                if (scanf("%lld", &x) != 1) return 2;
                ext[d] = x;
            }
        if (scanf("%lld", &n) != 1) return 2;
        /* the keys, one array per component (what views point into) */
        for (d = 0; d < k; d++) {
            viewed[d] = cols[d] = (int64_t *)malloc((size_t)(n + 1) * sizeof(int64_t));
            viewed32[d] = cols32[d] = (int32_t *)malloc((size_t)(n + 1) * sizeof(int32_t));
        }
        for (i = 0; i < n; i++)
            for (d = 0; d < k; d++) {
                long long x;
                if (scanf("%lld", &x) != 1) return 2;
                cols[d][i] = x;
                cols32[d][i] = (int32_t)x;
            }
        P = spf_perm_new_compared(k, j, (int)order, ext);
        /* views before the capacity hint, or after (the store it made is
           dropped) */
        if (views > 0 && n % 2 == 0 && narrow)
            spf_perm_view32(&P, views, viewed32);
        else if (views > 0 && n % 2 == 0)
            spf_perm_view(&P, views, viewed);
        /* a capacity hint: all the entries, half of them (the store grows
           past it), twice as many (fewer come), or none */
        spf_perm_reserve(&P, n % 3 == 0 ? n : n % 3 == 1 ? n / 2 : n % 5 == 0 ? 2 * n : -1);
        if (views > 0 && n % 2 == 1 && narrow)
            spf_perm_view32(&P, views, viewed32);
        else if (views > 0 && n % 2 == 1)
            spf_perm_view(&P, views, viewed);
        for (i = 0; i < n; i++) {
            if (order == SPF_COUNTING && i == n / 2 && n % 7 != 3)
                printf("half %lld\n", (long long)spf_perm_count(&P, j - 1, 1));
            for (d = 0; d < k; d++)
                key[d] = cols[d][i];
            spf_perm_insert(&P, key);
        }
        if (order == SPF_COUNTING && n == 0)
            printf("half %lld\n", (long long)spf_perm_count(&P, j - 1, 1));
        spf_perm_sort(&P);
        for (i = 0; i < n; i++) {
            printf("%lld", (long long)spf_perm_entry(&P, i));
            for (d = 0; d < k; d++)
                printf(" %lld", (long long)spf_perm_key(&P, d, i));
            printf("\n");
        }
        for (i = 0; i < n; i++)
            printf("map %lld\n", (long long)spf_perm_map(&P, i));
        if (order != SPF_MORTON) {
            long long probes;
            if (scanf("%lld", &probes) != 1) return 2;
            for (i = 0; i < probes; i++) {
                long long v;
                if (scanf("%lld", &v) != 1) return 2;
                printf("start %lld %lld\n", v, (long long)spf_perm_start(&P, v));
            }
        }
        for (i = 0; i < n; i++) {
            printf("rank %lld", (long long)spf_perm_rank(&P, i));
            for (d = 1; order != SPF_MORTON && d <= j; d++)
                printf(" %lld", (long long)spf_perm_prefix_rank(&P, d, i));
            printf("\n");
        }
        if (order == SPF_COUNTING)
            for (d = 0; d < j; d++)
                for (i = 0; i < ext[d] && i < 40; i++)
                    printf("count %lld %lld %lld\n", d, i, (long long)spf_perm_count(&P, d, i));
        printf("--\n");
        spf_perm_free(&P);
        /* the caller's arrays: not freed by spf_perm_free */
        for (d = 0; d < k; d++) {
            free(cols[d]);
            free(cols32[d]);
        }
    }
    return 0;
}
"#;

fn input(cases: &[Case]) -> String {
    let mut s = format!("{}\n", cases.len());
    for case in cases {
        let order = match case.kind {
            Kind::Lex => 0,
            Kind::Counting => 1,
            Kind::Morton => 2,
        };
        let _ = write!(
            s,
            "{} {} {} {} {}",
            case.k,
            case.j,
            order,
            case.views,
            u8::from(case.narrow)
        );
        if case.kind == Kind::Counting {
            for e in &case.extents {
                let _ = write!(s, " {e}");
            }
        }
        let _ = writeln!(s, "\n{}", case.keys.len());
        for key in &case.keys {
            let line: Vec<String> = key.iter().map(|v| v.to_string()).collect();
            let _ = writeln!(s, "{}", line.join(" "));
        }
        if case.kind != Kind::Morton {
            let probes = start_probes(case);
            let line: Vec<String> = probes.iter().map(|v| v.to_string()).collect();
            let _ = writeln!(s, "{} {}", probes.len(), line.join(" "));
        }
    }
    s
}

/// Keys: `n` of them, component `d` below `bound[d]`, then sorted (whole
/// key) when `sorted`; the payload is the entry number.
fn keys(rng: &mut Rng, n: usize, bound: &[i64], k: usize, sorted: bool) -> Vec<Vec<i64>> {
    let mut keys: Vec<Vec<i64>> = (0..n)
        .map(|_| {
            let mut key: Vec<i64> = bound.iter().map(|&b| rng.below(b)).collect();
            key.resize(k, 0);
            key
        })
        .collect();
    if sorted {
        keys.sort();
    }
    for (e, key) in keys.iter_mut().enumerate() {
        if k > bound.len() {
            key[k - 1] = e as i64 - 7; // a payload, negative too
        }
    }
    keys
}

fn cases() -> Vec<Case> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut cases = Vec::new();
    let counting = |k: usize, extents: Vec<i64>, keys: Vec<Vec<i64>>| Case {
        k,
        j: extents.len(),
        kind: Kind::Counting,
        extents,
        keys,
        views: 0,
        narrow: false,
    };
    // MSD: short buckets (insertion sort), long ones (radix sort), sorted
    // buckets, ties (few columns), sorted input (nothing to move).
    for &(rows, cols, n) in &[
        (50, 40, 600),
        (3, 1000, 2000),
        (1, 70, 300),
        (7, 2, 500),
        (20, 5000, 3000),
    ] {
        for sorted in [false, true] {
            let keys = keys(&mut rng, n, &[rows, cols], 3, sorted);
            cases.push(counting(3, vec![rows, cols], keys));
        }
    }
    // Rows in order, columns not: every bucket needs a sort.
    let mut k = keys(&mut rng, 800, &[30, 100], 3, false);
    k.sort_by_key(|key| key[0]);
    cases.push(counting(3, vec![30, 100], k));
    // Three compared components (mixed-radix codes), and the LSD fallback
    // (the components after the first do not fit a word with the entries).
    let k3 = keys(&mut rng, 900, &[6, 7, 9], 4, false);
    cases.push(counting(4, vec![6, 7, 9], k3));
    let big = 1 << 20;
    let kb = keys(&mut rng, 700, &[5, big, big, big, 3], 5, false);
    cases.push(counting(5, vec![5, big, big, big, 3], kb));
    // Buckets of every length from 0 to 10 entries (sorted by rank up to
    // SPF_RANK_MAX, 8, where the C targets AVX-512: -march=native below),
    // few columns (ties: equal compared components, distinct entries),
    // shuffled.
    let mut kr: Vec<Vec<i64>> = (0..11i64)
        .flat_map(|row| (0..row).map(move |_| row))
        .map(|row| vec![row, 0, 0])
        .collect();
    for key in kr.iter_mut() {
        key[1] = rng.below(4);
    }
    for i in (1..kr.len()).rev() {
        let other = rng.below(i as i64 + 1) as usize;
        kr.swap(i, other);
    }
    for (e, key) in kr.iter_mut().enumerate() {
        key[2] = 3 * e as i64 - 40; // a payload
    }
    cases.push(counting(3, vec![11, 4], kr));
    // Three or more compared components in bit fields, MSD's buckets
    // longer than SPF_WORDS_BUCKET (32) on average: the whole-word LSD
    // sort, just past the threshold and at it (MSD), with every key equal
    // (no bit differs: no pass), and with digits wider than 11 bits (26
    // code bits over 9000 entries: two passes of 13).
    for n in [129, 128] {
        let kw = keys(&mut rng, n, &[4, 3, 5], 4, false);
        cases.push(counting(4, vec![4, 3, 5], kw));
    }
    let same: Vec<Vec<i64>> = (0..200).map(|e| vec![1, 2, 2, e - 9]).collect();
    cases.push(counting(4, vec![2, 3, 3], same));
    let kd = keys(&mut rng, 9000, &[4, 1024, 1024, 16], 5, false);
    cases.push(counting(5, vec![4, 1024, 1024, 16], kd));
    // The word store (insert() builds the whole-word sort's words where
    // the reservation selects that sort; their payload variants below keep
    // it, or leave it midway): reserved whole (129, 900: the counts after
    // the sort, from the sorted words, for 129), in order (300: the words
    // are the order), half reserved (301: past the reservation the words
    // are decoded into the key store), twice reserved (110: too few for
    // the whole-word sort, decoded for MSD), without a payload (150, 390).
    for (n, sorted) in [(129, false), (300, true), (301, false), (110, false)] {
        let kw = keys(&mut rng, n, &[4, 3, 5], 4, sorted);
        cases.push(counting(4, vec![4, 3, 5], kw));
    }
    for n in [150, 390] {
        let kw = keys(&mut rng, n, &[4, 3, 5], 3, false);
        cases.push(counting(3, vec![4, 3, 5], kw));
    }
    let kw = keys(&mut rng, 900, &[4, 1024, 1024, 16], 5, false);
    cases.push(counting(5, vec![4, 1024, 1024, 16], kw));
    // One compared component; no payload; no entry; one entry.
    let k1 = keys(&mut rng, 500, &[33], 2, false);
    cases.push(counting(2, vec![33], k1));
    let k1 = keys(&mut rng, 400, &[9, 9], 2, false);
    cases.push(counting(2, vec![9, 9], k1));
    cases.push(counting(3, vec![4, 4], Vec::new()));
    cases.push(counting(3, vec![4, 4], vec![vec![2, 3, 0]]));
    // Morton: packed codes (small), codes with the entries in two words
    // (large), codes wider than 64 bits (merge sort), ties, sorted input,
    // all zero, payloads.
    for &(bound, n, k) in &[
        (16i64, 700usize, 4usize),
        (3, 300, 4),
        (1 << 20, 5000, 4),
        (1 << 30, 600, 4),
        (1, 50, 4),
        (1000, 1000, 3),
    ] {
        for sorted in [false, true] {
            let mut keys = keys(&mut rng, n, &[bound; 3], k, false);
            if sorted {
                let order = reference(&Case {
                    k,
                    j: 3,
                    kind: Kind::Morton,
                    extents: Vec::new(),
                    keys: keys.clone(),
                    views: 0,
                    narrow: false,
                });
                keys = order.into_iter().map(|e| keys[e].clone()).collect();
            }
            cases.push(Case {
                k,
                j: 3,
                kind: Kind::Morton,
                extents: Vec::new(),
                keys,
                views: 0,
                narrow: false,
            });
        }
    }
    // Morton with unequal widths and two components, one of them wide.
    let mut km = keys(&mut rng, 900, &[1 << 40, 5], 2, false);
    km.extend(keys(&mut rng, 100, &[3, 1 << 21], 2, false));
    cases.push(Case {
        k: 2,
        j: 2,
        kind: Kind::Morton,
        extents: Vec::new(),
        keys: km,
        views: 0,
        narrow: false,
    });
    // Lex: shuffled, sorted, with a payload.
    for sorted in [false, true] {
        let kl = keys(&mut rng, 700, &[40, 30], 3, sorted);
        cases.push(Case {
            k: 3,
            j: 2,
            kind: Kind::Lex,
            extents: Vec::new(),
            keys: kl,
            views: 0,
            narrow: false,
        });
    }
    // Keys in order, then out of order late (insert() tracks the order from
    // copies of the last key: counting by its code, lex and counting with
    // codes too wide by its components, more than four compared components
    // from the stored keys): codes of three and five components, codes
    // that do not fit a word (four and five components), lex of four and five
    // components; ties, an inversion in the last compared component only,
    // ties whose payloads decrease (not compared).
    let wide = 1i64 << 16;
    let in_order_shapes: [(Kind, Vec<i64>, usize); 6] = [
        (Kind::Counting, vec![4, 5, 6], 4),
        (Kind::Counting, vec![wide; 4], 5),
        (Kind::Counting, vec![3, 1 << 20, 1 << 20, 1 << 20, 4], 6),
        (Kind::Counting, vec![3, 4, 2, 3, 2], 5),
        (Kind::Lex, vec![5, 4, 3, 6], 5),
        (Kind::Lex, vec![3, 2, 4, 2, 3], 6),
    ];
    for (kind, bound, k) in in_order_shapes {
        let j = bound.len();
        for late in [None, Some(0), Some(j - 1)] {
            let mut keys = keys(&mut rng, 400, &bound, k, true);
            if let Some(d) = late {
                // the last key moves below the one before it in component d
                let n = keys.len();
                let mut key = keys[n - 2].clone();
                if key[d] == 0 {
                    keys[n - 2][d] = 1;
                } else {
                    key[d] -= 1;
                }
                key[k - 1] = keys[n - 1][k - 1];
                keys[n - 1] = key;
            }
            // equal compared components, the payload going down
            if k > j {
                let n = keys.len();
                let mut tie = keys[n / 2].clone();
                tie[k - 1] = -100;
                keys.insert(n / 2 + 1, tie);
            }
            let extents = if kind == Kind::Counting {
                bound.clone()
            } else {
                Vec::new()
            };
            cases.push(Case {
                k,
                j,
                kind,
                extents,
                keys,
                views: 0,
                narrow: false,
            });
        }
    }
    // Payloads equal to the entry numbers (the C runtime stores none), and
    // equal for the first half only (it starts storing them midway).
    let with_payload: Vec<Case> = cases.iter().filter(|c| c.k > c.j).cloned().collect();
    for case in with_payload {
        let n = case.keys.len();
        for midway in [false, true] {
            let mut c = case.clone();
            for (e, key) in c.keys.iter_mut().enumerate() {
                key[c.k - 1] = if midway && e >= n / 2 {
                    e as i64 + 1
                } else {
                    e as i64
                };
            }
            cases.push(c);
        }
    }
    // Every case with its keys viewed: all components, and all but a
    // payload (the entry numbers, other values from the first entry on, or
    // from midway: the views materialized into a key store there).
    let mut viewed = Vec::new();
    for case in &cases {
        let mut views = vec![case.k];
        if case.k > case.j {
            views.push(case.k - 1);
        }
        // and in 32-bit arrays where the viewed components fit them
        let fits = case
            .keys
            .iter()
            .all(|k| k.iter().all(|&v| i32::try_from(v).is_ok()));
        for m in views {
            for narrow in [false, true] {
                if narrow && !fits {
                    continue;
                }
                let mut c = case.clone();
                c.views = m;
                c.narrow = narrow;
                viewed.push(c);
            }
        }
    }
    cases.extend(viewed);
    cases
}

/// Compiles `src` into `exe` with every warning an error, plus `defines`.
fn compile_c(src: &std::path::Path, exe: &std::path::Path, defines: &[&str]) {
    let cc = Command::new("cc")
        .args([
            "-std=c99",
            "-O2",
            "-Wall",
            "-Wextra",
            "-pedantic",
            "-Werror",
        ])
        .args(defines)
        .arg("-o")
        .arg(exe)
        .arg(src)
        .output()
        .unwrap();
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
}

/// The C runtime as tuned (the cases are small: MSD counting sorts where
/// the buckets are short, `SPF_MSD_SMALL`), with `SPF_MSD_SMALL` and
/// `SPF_MSD_SHORT` 0 (LSD for two compared components in cache), with
/// `SPF_MSD_BYTES` 0 (MSD counting sorts wherever the codes fit a word, long
/// buckets included: the choice the runtime makes for keys out of cache,
/// with `key` decoding the sorted words), the same partitioned by the first
/// component's high bits (as out of cache, `SPF_PARTITION_BYTES`), for the
/// machine (`-march=native`), without the inserts' range checks
/// (`SPF_INPUT_VALIDATED`), and under AddressSanitizer and UBSan (no read of
/// a view or of the key store out of bounds) — each build a test of its
/// own, so that the harness compiles and runs them side by side (in one
/// test's loop they were this suite's slowest test).
macro_rules! fast_path_builds {
    ($($name:ident: [$($define:expr),*];)*) => {
        $(
            #[test]
            fn $name() {
                c_permutation_matches_the_reference(&[$($define),*]);
            }
        )*
    };
}

fast_path_builds! {
    c_permutation_as_tuned_matches_the_reference: [];
    c_permutation_with_lsd_for_two_components_matches_the_reference:
        ["-DSPF_MSD_SMALL=0", "-DSPF_MSD_SHORT=0"];
    c_permutation_with_msd_everywhere_matches_the_reference: ["-DSPF_MSD_BYTES=0"];
    c_permutation_partitioned_matches_the_reference: [
        "-DSPF_MSD_BYTES=0",
        "-DSPF_PARTITION_BYTES=0",
        "-DSPF_PARTITION_BITS=1"
    ];
    // `-march=native` as `spf build` compiles: BMI2's pext for Morton
    // components where the CPU has it.
    c_permutation_for_this_cpu_matches_the_reference: ["-march=native"];
    c_permutation_without_range_checks_matches_the_reference: ["-DSPF_INPUT_VALIDATED"];
    c_permutation_sanitized_with_lsd_matches_the_reference: [
        "-fsanitize=address,undefined",
        "-fno-sanitize-recover=all",
        "-DSPF_MSD_SMALL=0",
        "-DSPF_MSD_SHORT=0"
    ];
    c_permutation_sanitized_partitioned_matches_the_reference: [
        "-fsanitize=address,undefined",
        "-fno-sanitize-recover=all",
        "-DSPF_MSD_BYTES=0",
        "-DSPF_PARTITION_BYTES=0",
        "-DSPF_PARTITION_BITS=2"
    ];
}

fn c_permutation_matches_the_reference(defines: &[&str]) {
    let cases = cases();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("perm.c");
    std::fs::write(&src, format!("{C_RUNTIME}\n{DRIVER}")).unwrap();
    let exe = dir.path().join("perm");
    compile_c(&src, &exe, defines);
    // The cases from a file: a pipe both ways could fill up.
    let cases_file = dir.path().join("cases.txt");
    std::fs::write(&cases_file, input(&cases)).unwrap();
    let out = Command::new(&exe)
        .stdin(std::fs::File::open(&cases_file).unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let runs: Vec<&str> = stdout.split("--\n").collect();
    assert_eq!(runs.len(), cases.len() + 1);
    for (i, case) in cases.iter().enumerate() {
        assert_eq!(
            runs[i],
            expected(case),
            "{defines:?} case {i}: k {} j {} {:?} extents {:?}, {} keys",
            case.k,
            case.j,
            case.kind,
            case.extents,
            case.keys.len()
        );
    }
}

#[test]
fn rust_permutation_matches_the_reference() {
    // Views are a C storage choice: the Rust runtime has none.
    for (i, case) in cases().iter().filter(|c| c.views == 0).enumerate() {
        let order = match case.kind {
            Kind::Lex => Order::Lex,
            Kind::Counting => Order::Counting(case.extents.clone()),
            Kind::Morton => Order::Morton,
        };
        let mut p = Permutation::with_compared(case.k, case.j, order);
        let n = case.keys.len() as i64;
        p.reserve([n, n / 2, -1][i % 3]);
        for key in &case.keys {
            p.insert(key);
        }
        p.sort();
        let expected = reference(case);
        for (pos, &e) in expected.iter().enumerate() {
            assert_eq!(p.entry(pos as i64), e as i64, "case {i}, position {pos}");
            assert_eq!(p.map(e as i64), pos as i64, "case {i}, entry {e}");
            for d in 0..case.k {
                assert_eq!(p.key(d as i64, pos as i64), case.keys[e][d], "case {i}");
            }
        }
    }
}

/// Misuse of a `Permutation` in C aborts with its message, on `insert`'s
/// fast paths too: an insert after sort, a compared component outside its
/// counting range (the first, the second, the fifth: past insert()'s
/// copies of the extents), a negative morton component, views after an
/// insert or not covering every stored component (a payload equal to the
/// entry numbers is not stored; the others are). Each line: the calls, then
/// the message.
#[test]
fn c_permutation_misuse_aborts() {
    let cases: [(&str, &str); 9] = [
        (
            "spf_perm P = spf_perm_new_compared(3, 2, SPF_COUNTING, (int64_t[]){4, 4});
             spf_perm_insert(&P, (int64_t[]){1, 2, 0});
             spf_perm_sort(&P);
             spf_perm_insert(&P, (int64_t[]){1, 2, 1});",
            "spf runtime: insert after sort() (1)",
        ),
        (
            "spf_perm P = spf_perm_new_compared(3, 2, SPF_COUNTING, (int64_t[]){4, 4});
             spf_perm_insert(&P, (int64_t[]){1, 2, 0});
             spf_perm_insert(&P, (int64_t[]){4, 2, 1});",
            "spf runtime: key component outside its counting range (4)",
        ),
        (
            "spf_perm P = spf_perm_new_compared(3, 2, SPF_COUNTING, (int64_t[]){4, 4});
             spf_perm_reserve(&P, 8);
             spf_perm_insert(&P, (int64_t[]){1, 2, 0});
             spf_perm_insert(&P, (int64_t[]){1, -3, 1});",
            "spf runtime: key component outside its counting range (-3)",
        ),
        (
            "spf_perm P = spf_perm_new(5, SPF_COUNTING, (int64_t[]){2, 2, 2, 2, 3});
             spf_perm_insert(&P, (int64_t[]){1, 1, 1, 1, 2});
             spf_perm_insert(&P, (int64_t[]){1, 1, 1, 1, 3});",
            "spf runtime: key component outside its counting range (3)",
        ),
        (
            "spf_perm P = spf_perm_new_compared(3, 2, SPF_MORTON, NULL);
             spf_perm_insert(&P, (int64_t[]){1, 2, -5});
             spf_perm_insert(&P, (int64_t[]){1, -2, 0});",
            "spf runtime: negative key component in a morton order (-2)",
        ),
        (
            "spf_perm P = spf_perm_new_compared(2, 1, SPF_LEX, NULL);
             spf_perm_insert(&P, (int64_t[]){-1, 2});
             spf_perm_sort(&P);
             spf_perm_insert(&P, (int64_t[]){0, 0});",
            "spf runtime: insert after sort() (1)",
        ),
        (
            "int64_t r[2] = {1, 2}, c[2] = {0, 3};
             spf_perm P = spf_perm_new_compared(3, 2, SPF_COUNTING, (int64_t[]){4, 4});
             spf_perm_insert(&P, (int64_t[]){1, 0, 0});
             spf_perm_view(&P, 2, (const int64_t *const[]){r, c});",
            "spf runtime: view() after insert() (1)",
        ),
        (
            "int64_t r[2] = {1, 2};
             spf_perm P = spf_perm_new_compared(3, 2, SPF_COUNTING, (int64_t[]){4, 4});
             spf_perm_view(&P, 1, (const int64_t *const[]){r});",
            "spf runtime: views must cover every stored key component (1)",
        ),
        (
            "int64_t r[2] = {1, 2}, c[2] = {0, 3};
             spf_perm P = spf_perm_new(3, SPF_LEX, NULL);
             spf_perm_view(&P, 2, (const int64_t *const[]){r, c});",
            "spf runtime: views must cover every stored key component (2)",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut src = format!("{C_RUNTIME}\nint main(int argc, char **argv)\n{{\n    (void)argv;\n");
    for (i, (calls, _)) in cases.iter().enumerate() {
        let _ = writeln!(
            src,
            "    if (argc == {}) {{\n        {calls}\n        spf_perm_free(&P);\n    }}",
            i + 2
        );
    }
    src.push_str("    return 0;\n}\n");
    let c_src = dir.path().join("misuse.c");
    std::fs::write(&c_src, src).unwrap();
    let exe = dir.path().join("misuse");
    compile_c(&c_src, &exe, &[]);
    for (i, (_, message)) in cases.iter().enumerate() {
        // argc == i + 2: the program name and i + 1 arguments
        let out = Command::new(&exe).args(vec!["x"; i + 1]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "case {i} should abort");
        assert_eq!(stderr.trim_end(), *message, "case {i}");
    }
}
