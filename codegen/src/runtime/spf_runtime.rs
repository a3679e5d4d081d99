//! The spf runtime for Rust: the runtime objects that synthesized
//! conversions call (semantics in `docs/runtime.md`).
//!
//! This text is both a module of the `codegen` crate
//! (`codegen::runtime::spf_runtime`) and the body of the `mod spf_runtime`
//! that every generated Rust function using a runtime object carries. It uses
//! only `std`. Misuse — an insert after `sort()`, a key outside a `counting`
//! extent or a `Scatter`'s range, a value outside an `OrderedSet`'s bounds,
//! an entry, position or key out of range, a `Scatter`'s `place(v)` or
//! `slot(v)` more often than `v` was inserted (`place_inserted(v)` is trusted
//! not to be) — panics with a message starting with `spf runtime:`.

use std::cell::OnceCell;
use std::cmp::Ordering;

/// Panics with the runtime's message (kept out of the hot paths).
#[cold]
#[inline(never)]
fn fail(message: String) -> ! {
    panic!("spf runtime: {message}")
}

/// `v` as an index below `len`, or a panic naming `what`.
#[inline]
fn at(v: i64, len: usize, what: &str) -> usize {
    match usize::try_from(v) {
        Ok(i) if i < len => i,
        _ => fail(format!("{what} {v} is out of range 0..{len}")),
    }
}

/// How a [`Permutation`] orders its keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// Lexicographically (a comparison sort).
    Lex,
    /// Lexicographically, component `d` in `0..extents[d]`: LSD counting
    /// sort, one stable pass per component from the last to the first,
    /// `O(n + Σ extents)`.
    Counting(Vec<i64>),
    /// By the Morton code of non-negative components (bit 0 of the first
    /// component lowest, then bit 0 of the second, ...), compared without
    /// building the code.
    Morton,
}

/// A permutation of entries by a key of `K` integers.
///
/// Entries are numbered by insertion (`0, 1, ...`). [`sort`](Self::sort)
/// orders them stably by the first `J` key components (ties keep insertion
/// order) and freezes the permutation; the other `K - J` components are a
/// payload moved along with the key ([`with_compared`](Self::with_compared)).
/// Before `sort`, positions are entries (the identity).
#[derive(Clone, Debug)]
pub struct Permutation {
    /// The key arity `K`.
    k: usize,
    /// The compared leading components `J` (`1..=K`).
    j: usize,
    order: Order,
    sorted: bool,
    /// How many entries were inserted.
    len: usize,
    /// `K` components per entry: in insertion order, in sorted order after `sort`.
    keys: Vec<i64>,
    /// After `sort`: the entry at each position.
    entries: Vec<i64>,
    /// After `sort`: the position of each entry, computed by the first `map`.
    positions: OnceCell<Vec<i64>>,
    /// After `sort`: the distinct rank of each position, computed by the
    /// first `rank` or `ranks`.
    ranks: OnceCell<Vec<i64>>,
    /// After `sort`: per prefix length `c` (index `c - 1`), the distinct
    /// rank of each position by the first `c` components, computed by the
    /// first `prefix_rank(c, _)` or `prefix_ranks(c)`.
    prefix: Vec<OnceCell<Vec<i64>>>,
    /// `counting`: per component, how many keys have each value.
    counts: Vec<Vec<i64>>,
    /// `counting`, after `sort`: `starts[v]` entries have a first component
    /// below `v` (`E1 + 1` values).
    starts: Vec<i64>,
}

impl Permutation {
    /// An empty permutation of keys of `k` components ordered by `order`
    /// (all of them compared).
    ///
    /// # Panics
    ///
    /// If `k` is 0, or a `counting` order has a number of extents other than
    /// `k` or a negative extent.
    pub fn new(k: usize, order: Order) -> Permutation {
        Permutation::with_compared(k, k, order)
    }

    /// An empty permutation of keys of `k` components of which `order`
    /// compares the first `j`; the last `k - j` are a payload.
    ///
    /// # Panics
    ///
    /// If `j` is not in `1..=k`, or a `counting` order has a number of
    /// extents other than `j` or a negative extent.
    pub fn with_compared(k: usize, j: usize, order: Order) -> Permutation {
        if j == 0 || j > k {
            fail(format!(
                "a Permutation compares 1 to {k} key components, not {j}"
            ));
        }
        let counts = match &order {
            Order::Counting(extents) => {
                if extents.len() != j {
                    fail(format!(
                        "counting needs {j} extents, found {}",
                        extents.len()
                    ));
                }
                extents
                    .iter()
                    .map(|&e| match usize::try_from(e) {
                        Ok(e) => vec![0; e],
                        Err(_) => fail(format!("negative counting extent {e}")),
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        Permutation {
            k,
            j,
            order,
            sorted: false,
            len: 0,
            keys: Vec::new(),
            entries: Vec::new(),
            positions: OnceCell::new(),
            ranks: OnceCell::new(),
            prefix: (0..k).map(|_| OnceCell::new()).collect(),
            counts,
            starts: Vec::new(),
        }
    }

    /// Room for `n` entries in all: a capacity hint that saves regrowing the
    /// key store while the entries are inserted, with no effect on any
    /// result. A reservation that cannot be made (negative, or more memory
    /// than there is) is not made.
    pub fn reserve(&mut self, n: i64) {
        if let Some(words) = usize::try_from(n).ok().and_then(|n| n.checked_mul(self.k)) {
            let _ = self.keys.try_reserve(words.saturating_sub(self.keys.len()));
        }
    }

    /// Appends an entry with key `key` (its entry number is the number of
    /// entries before it).
    ///
    /// # Panics
    ///
    /// After [`sort`](Self::sort); when `key` does not have `K` components;
    /// when a component lies outside its `counting` extent or is negative in
    /// a `morton` order.
    #[inline]
    pub fn insert(&mut self, key: &[i64]) {
        if self.sorted {
            fail("insert after sort()".into());
        }
        if key.len() != self.k {
            fail(format!(
                "a key of {} components, expected {}",
                key.len(),
                self.k
            ));
        }
        match &self.order {
            Order::Counting(_) => {
                for (d, (&v, counts)) in key.iter().zip(&mut self.counts).enumerate() {
                    match usize::try_from(v) {
                        Ok(i) if i < counts.len() => counts[i] += 1,
                        _ => fail(format!(
                            "key component {d} is {v}, outside its counting range 0..{}",
                            counts.len()
                        )),
                    }
                }
            }
            Order::Morton => {
                if let Some(v) = key[..self.j].iter().find(|&&v| v < 0) {
                    fail(format!("negative key component {v} in a morton order"));
                }
            }
            Order::Lex => {}
        }
        // Not `extend_from_slice`: a memmove call for a few components.
        self.keys.extend(key.iter().copied());
        self.len += 1;
    }

    /// Orders the entries stably by key and freezes the permutation; a
    /// second call does nothing. `counting`: LSD counting sort, one stable
    /// pass per component from the last to the first, `O(n + ΣEi)`, no
    /// comparison; `lex`, `morton`: `O(n log n)` comparisons. Then the keys
    /// are put in sorted order.
    pub fn sort(&mut self) {
        if self.sorted {
            return;
        }
        self.sorted = true;
        let (n, k, j) = (self.len, self.k, self.j);
        let keys = &self.keys;
        let key = |e: usize| &keys[e * k..e * k + k];
        let order: Vec<usize> = match &self.order {
            Order::Counting(_) => {
                // Until the first pass the order is 0, 1, ..., n - 1, not stored.
                let (mut order, mut next): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
                let mut identity = true;
                let mut offsets: Vec<usize> = Vec::new();
                for d in (0..j).rev() {
                    let counts = &self.counts[d];
                    if counts.len() <= 1 {
                        continue; // one value at most: the pass keeps the order
                    }
                    offsets.clear();
                    let mut sum = 0usize;
                    for &c in counts {
                        offsets.push(sum);
                        sum += c as usize;
                    }
                    next.resize(n, 0);
                    if identity {
                        for e in 0..n {
                            let slot = &mut offsets[keys[e * k + d] as usize];
                            next[*slot] = e;
                            *slot += 1;
                        }
                        identity = false;
                    } else {
                        for &e in &order {
                            let slot = &mut offsets[keys[e * k + d] as usize];
                            next[*slot] = e;
                            *slot += 1;
                        }
                    }
                    std::mem::swap(&mut order, &mut next);
                }
                let mut starts = Vec::with_capacity(self.counts[0].len() + 1);
                let mut sum = 0;
                starts.push(0);
                for &c in &self.counts[0] {
                    sum += c;
                    starts.push(sum);
                }
                self.starts = starts;
                if identity {
                    order = (0..n).collect();
                }
                order
            }
            Order::Lex | Order::Morton => {
                let morton = self.order == Order::Morton;
                match j {
                    1 => sort_records::<1>(keys, k, morton),
                    2 => sort_records::<2>(keys, k, morton),
                    3 => sort_records::<3>(keys, k, morton),
                    4 => sort_records::<4>(keys, k, morton),
                    _ => {
                        let mut order: Vec<usize> = (0..n).collect();
                        if morton {
                            order.sort_unstable_by(|&a, &b| {
                                morton_cmp(&key(a)[..j], &key(b)[..j]).then(a.cmp(&b))
                            });
                        } else {
                            order.sort_unstable_by(|&a, &b| {
                                key(a)[..j].cmp(&key(b)[..j]).then(a.cmp(&b))
                            });
                        }
                        order
                    }
                }
            }
        };
        let mut sorted_keys = Vec::with_capacity(n * k);
        for &e in &order {
            sorted_keys.extend(key(e).iter().copied());
        }
        self.keys = sorted_keys;
        self.entries = order.into_iter().map(|e| e as i64).collect();
    }

    /// The position of entry `e` (`e` itself before `sort`). The first call
    /// after `sort` inverts the permutation (`O(n)`); the others are `O(1)`.
    #[inline]
    pub fn map(&self, e: i64) -> i64 {
        let e = at(e, self.len, "entry");
        if !self.sorted {
            return e as i64;
        }
        let positions = self.positions.get_or_init(|| {
            let mut positions = vec![0; self.len];
            for (p, &e) in self.entries.iter().enumerate() {
                positions[e as usize] = p as i64;
            }
            positions
        });
        positions[e]
    }

    /// The entry at position `p` (the inverse of [`map`](Self::map); `p`
    /// itself before `sort`).
    #[inline]
    pub fn entry(&self, p: i64) -> i64 {
        let p = at(p, self.len, "position");
        if self.sorted {
            self.entries[p]
        } else {
            p as i64
        }
    }

    /// Component `d` of the key at position `p`.
    #[inline]
    pub fn key(&self, d: i64, p: i64) -> i64 {
        let d = at(d, self.k, "key component");
        let p = at(p, self.len, "position");
        self.keys[p * self.k + d]
    }

    /// The number of entries.
    #[inline]
    pub fn size(&self) -> i64 {
        self.len as i64
    }

    /// The distinct rank of every position (equal compared keys are
    /// adjacent after `sort`), computed on first use.
    fn ranks_of(&self) -> &[i64] {
        if !self.sorted {
            fail("rank() or ranks() before sort()".into());
        }
        self.ranks.get_or_init(|| self.distinct_ranks(self.j))
    }

    /// The distinct rank of every sorted position by its first `c` key
    /// components (equal prefixes are adjacent after `sort`).
    fn distinct_ranks(&self, c: usize) -> Vec<i64> {
        let k = self.k;
        let mut rank = -1;
        (0..self.len)
            .map(|p| {
                if p == 0 || self.keys[p * k..p * k + c] != self.keys[(p - 1) * k..(p - 1) * k + c]
                {
                    rank += 1;
                }
                rank
            })
            .collect()
    }

    /// After `sort`: the distinct rank of position `p`, how many distinct
    /// compared keys come before its key (equal keys share it). The first
    /// `rank` or `ranks` numbers the keys (`O(n)`); the others are `O(1)`.
    #[inline]
    pub fn rank(&self, p: i64) -> i64 {
        let ranks = self.ranks_of();
        ranks[at(p, ranks.len(), "position")]
    }

    /// After `sort`: the number of distinct compared keys (0 when empty).
    #[inline]
    pub fn ranks(&self) -> i64 {
        self.ranks_of().last().map_or(0, |r| r + 1)
    }

    /// The distinct rank of every position by the first `c` key
    /// components, computed on first use.
    fn prefix_of(&self, c: i64) -> &[i64] {
        if !self.sorted {
            fail("prefix_rank() or prefix_ranks() before sort()".into());
        }
        let k = self.k;
        let c = match usize::try_from(c) {
            Ok(c) if (1..=k).contains(&c) => c,
            _ => fail(format!(
                "prefix_rank(): a prefix of {c} components, the key has {k}"
            )),
        };
        self.prefix[c - 1].get_or_init(|| self.distinct_ranks(c))
    }

    /// After `sort`: how many distinct values of the first `c` key
    /// components come before position `p`'s (a nested level's position).
    #[inline]
    pub fn prefix_rank(&self, c: i64, p: i64) -> i64 {
        let ranks = self.prefix_of(c);
        ranks[at(p, ranks.len(), "position")]
    }

    /// After `sort`: the number of distinct values of the first `c` key
    /// components (0 when empty).
    #[inline]
    pub fn prefix_ranks(&self, c: i64) -> i64 {
        self.prefix_of(c).last().map_or(0, |r| r + 1)
    }

    /// `counting` only: the number of entries whose component `d` (a
    /// compared one, `d < J`) is `v` (0
    /// when `v` is outside the component's range); valid before `sort` too.
    #[inline]
    pub fn count(&self, d: i64, v: i64) -> i64 {
        if !matches!(self.order, Order::Counting(_)) {
            fail("count() needs a counting order".into());
        }
        let counts = &self.counts[at(d, self.j, "compared key component")];
        match usize::try_from(v) {
            Ok(i) if i < counts.len() => counts[i],
            _ => 0,
        }
    }

    /// After `sort`, `counting` and `lex` only: the number of entries whose
    /// first component is below `v`, which is the position of the first entry
    /// whose first component is at least `v` (`O(1)` for `counting`, a binary
    /// search for `lex`).
    #[inline]
    pub fn start(&self, v: i64) -> i64 {
        if !self.sorted {
            fail("start() before sort()".into());
        }
        match &self.order {
            Order::Counting(_) => {
                let last = self.starts.len() as i64 - 1;
                self.starts[v.clamp(0, last) as usize]
            }
            Order::Lex => {
                let (mut lo, mut hi) = (0, self.len);
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    if self.keys[mid * self.k] < v {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                lo as i64
            }
            Order::Morton => fail("start() needs a counting or lex order".into()),
        }
    }
}

/// The entries of `keys` (`k` components each) in stable lex or Morton
/// order of their first `J` components, sorting contiguous `(key, entry)`
/// records (no gathers).
fn sort_records<const J: usize>(keys: &[i64], k: usize, morton: bool) -> Vec<usize> {
    let mut records: Vec<([i64; J], usize)> = keys
        .chunks_exact(k)
        .enumerate()
        .map(|(e, c)| {
            let mut key = [0; J];
            key.copy_from_slice(&c[..J]);
            (key, e)
        })
        .collect();
    if morton {
        records.sort_unstable_by(|a, b| morton_cmp(&a.0, &b.0).then(a.1.cmp(&b.1)));
    } else {
        // Tuples compare by key, then by entry: the stable order.
        records.sort_unstable();
    }
    records.into_iter().map(|(_, e)| e).collect()
}

/// Whether the most significant set bit of `x` is below that of `y`.
#[inline]
fn less_msb(x: u64, y: u64) -> bool {
    x < y && x < (x ^ y)
}

/// Compares two keys of non-negative components in Morton order: the
/// component whose bits differ at the highest level decides (at equal
/// levels, the later component, whose bit is the more significant in the
/// code).
#[inline]
fn morton_cmp(a: &[i64], b: &[i64]) -> Ordering {
    let (mut dim, mut best) = (0, 0u64);
    for (d, (&x, &y)) in a.iter().zip(b).enumerate() {
        let diff = (x ^ y) as u64;
        if diff != 0 && !less_msb(diff, best) {
            dim = d;
            best = diff;
        }
    }
    a[dim].cmp(&b[dim])
}

/// A set of distinct integers, in increasing order once sorted.
///
/// With bounds `LO..=HI` ([`with_bounds`](Self::with_bounds)) insertion is
/// `O(1)`, [`sort`](Self::sort) walks the range (`O(HI - LO)`, no
/// comparison) and [`index`](Self::index) is a table lookup; without bounds
/// ([`new`](Self::new)) `sort` sorts the inserted values and `index` is a
/// binary search.
#[derive(Clone, Debug, Default)]
pub struct OrderedSet {
    bounds: Option<(i64, i64)>,
    sorted: bool,
    /// The values: increasing after `sort` (without bounds, as inserted before).
    values: Vec<i64>,
    /// With bounds, one slot per value of `LO..=HI`: -1 when absent, 0 when
    /// present before `sort`, the position after.
    table: Vec<i64>,
}

impl OrderedSet {
    /// An empty set without bounds.
    pub fn new() -> OrderedSet {
        OrderedSet::default()
    }

    /// An empty set of values in `lo..=hi` (none when `hi < lo`).
    ///
    /// # Panics
    ///
    /// When the range does not fit in memory.
    pub fn with_bounds(lo: i64, hi: i64) -> OrderedSet {
        let len = if hi < lo {
            0
        } else {
            match usize::try_from(i128::from(hi) - i128::from(lo) + 1) {
                Ok(len) => len,
                Err(_) => fail(format!("the range {lo}..={hi} is too large")),
            }
        };
        OrderedSet {
            bounds: Some((lo, hi)),
            sorted: false,
            values: Vec::new(),
            table: vec![-1; len],
        }
    }

    /// Adds `v` (a value already in the set is ignored).
    ///
    /// # Panics
    ///
    /// After [`sort`](Self::sort), or when `v` is outside the bounds.
    #[inline]
    pub fn insert(&mut self, v: i64) {
        if self.sorted {
            fail("insert after sort()".into());
        }
        match self.bounds {
            Some((lo, hi)) => {
                if v < lo || v > hi {
                    fail(format!("{v} is outside the set's bounds {lo}..={hi}"));
                }
                self.table[v.wrapping_sub(lo) as usize] = 0;
            }
            None => self.values.push(v),
        }
    }

    /// Freezes the set in increasing order; a second call does nothing.
    pub fn sort(&mut self) {
        if self.sorted {
            return;
        }
        self.sorted = true;
        match self.bounds {
            Some((lo, _)) => {
                for (i, slot) in self.table.iter_mut().enumerate() {
                    if *slot >= 0 {
                        *slot = self.values.len() as i64;
                        self.values.push(lo + i as i64);
                    }
                }
            }
            None => {
                self.values.sort_unstable();
                self.values.dedup();
            }
        }
    }

    fn check_sorted(&self, method: &str) {
        if !self.sorted {
            fail(format!("{method}() before sort()"));
        }
    }

    /// After `sort`: the number of values.
    #[inline]
    pub fn size(&self) -> i64 {
        self.check_sorted("size");
        self.values.len() as i64
    }

    /// After `sort`: the `i`-th smallest value.
    #[inline]
    pub fn value(&self, i: i64) -> i64 {
        self.check_sorted("value");
        self.values[at(i, self.values.len(), "position")]
    }

    /// After `sort`: the position of `v`, or -1 when `v` is not in the set.
    #[inline]
    pub fn index(&self, v: i64) -> i64 {
        self.check_sorted("index");
        match self.bounds {
            Some((lo, hi)) if v < lo || v > hi => -1,
            Some((lo, _)) => self.table[v.wrapping_sub(lo) as usize],
            None => match self.values.binary_search(&v) {
                Ok(p) => p as i64,
                Err(_) => -1,
            },
        }
    }
}

/// The streaming counting-sort scatter over the keys `0..E` (Gustavson's
/// algorithm): [`insert`](Self::insert) counts keys, [`sort`](Self::sort)
/// computes where each key's entries start, and [`place`](Self::place) (or
/// [`place_inserted`](Self::place_inserted)) hands out the positions of a
/// key in order. `O(E)` memory, no per-entry storage.
#[derive(Clone, Debug)]
pub struct Scatter {
    sorted: bool,
    /// The number of entries.
    len: i64,
    /// Per key: its count before `sort`, its next free position after.
    next: Vec<i64>,
    /// `E + 1` values: all 0 before `sort` (so that `place` fails its one
    /// check), then `start[v]` entries have a key below `v`.
    start: Vec<i64>,
    /// After the first `slot`: per key, the slots handed out so far.
    slots: Vec<i64>,
}

impl Scatter {
    /// An empty scatter over the keys `0..e`.
    ///
    /// # Panics
    ///
    /// When `e` is negative or does not fit in memory.
    pub fn new(e: i64) -> Scatter {
        let e = match usize::try_from(e) {
            Ok(e) if e < usize::MAX => e,
            _ => fail(format!("scatter extent {e} is negative or too large")),
        };
        Scatter {
            sorted: false,
            len: 0,
            next: vec![0; e],
            start: vec![0; e + 1],
            slots: Vec::new(),
        }
    }

    /// Counts one entry with key `v`.
    ///
    /// # Panics
    ///
    /// After [`sort`](Self::sort), or when `v` is outside `0..E`.
    #[inline]
    pub fn insert(&mut self, v: i64) {
        if self.sorted {
            fail("insert after sort()".into());
        }
        if !self.slots.is_empty() {
            fail("insert after slot()".into());
        }
        match usize::try_from(v).ok().and_then(|i| self.next.get_mut(i)) {
            Some(count) => *count += 1,
            None => fail(format!(
                "key {v} is outside the scatter's range 0..{}",
                self.next.len()
            )),
        }
        self.len += 1;
    }

    /// Freezes the scatter: the prefix sums of the counts, `O(E)`; a second
    /// call does nothing.
    pub fn sort(&mut self) {
        if self.sorted {
            return;
        }
        self.sorted = true;
        let mut sum = 0;
        for (next, start) in self.next.iter_mut().zip(&mut self.start) {
            let count = *next;
            *start = sum;
            *next = sum;
            sum += count;
        }
        self.start[self.next.len()] = sum;
    }

    /// The number of entries inserted.
    #[inline]
    pub fn size(&self) -> i64 {
        self.len
    }

    /// After `sort`, `0 <= v <= E`: the number of entries with a key below
    /// `v` (where key `v`'s entries start).
    #[inline]
    pub fn start(&self, v: i64) -> i64 {
        if !self.sorted {
            fail("start() before sort()".into());
        }
        self.start[at(v, self.start.len(), "key")]
    }

    /// After `sort`, `0 <= v < E`: the next free position of key `v`
    /// (`start(v)` the first time, then `start(v) + 1`, ...).
    ///
    /// # Panics
    ///
    /// Before `sort`, when `v` is outside `0..E`, or when called more often
    /// than `v` was inserted.
    #[inline]
    pub fn place(&mut self, v: i64) -> i64 {
        let i = at(v, self.next.len(), "key");
        let p = self.next[i];
        // Before `sort`, `start` is all 0 and `next` holds counts.
        if p >= self.start[i + 1] {
            self.place_failed(v);
        }
        self.next[i] = p + 1;
        p
    }

    /// `place(v)` for an entry inserted with key `v`: the caller guarantees
    /// that no key is placed more often than it was inserted (synthesized
    /// code places the entries it inserted), so the position is not checked
    /// against the next key's start — one array read fewer than `place`.
    ///
    /// # Panics
    ///
    /// Before `sort`, or when `v` is outside `0..E`.
    #[inline]
    pub fn place_inserted(&mut self, v: i64) -> i64 {
        if !self.sorted {
            fail("place_inserted() before sort()".into());
        }
        let i = at(v, self.next.len(), "key");
        let p = self.next[i];
        self.next[i] = p + 1;
        p
    }

    /// How many entries have key `v` (0 outside `0..E`).
    #[inline]
    pub fn count(&self, v: i64) -> i64 {
        match usize::try_from(v) {
            Ok(i) if i < self.next.len() => {
                if self.sorted {
                    self.start[i + 1] - self.start[i]
                } else {
                    self.next[i]
                }
            }
            _ => 0,
        }
    }

    /// `0 <= v < E`, sorted or not: how many slots key `v` was given
    /// before — 0 the first time, then 1, 2, ...: an entry's rank among its
    /// key's entries without prefix sums (ELL's slot in a row). The first
    /// call ends the inserts.
    ///
    /// # Panics
    ///
    /// When `v` is outside `0..E`, or when called more often than `v` was
    /// inserted.
    #[inline]
    pub fn slot(&mut self, v: i64) -> i64 {
        let s = self.slot_inserted(v);
        if s >= self.count(v) {
            fail(format!(
                "slot({v}) called more often than key {v} was inserted"
            ));
        }
        s
    }

    /// `slot(v)` for an entry inserted with key `v`: the caller states that
    /// no key is given more slots than it was inserted, and the count is
    /// not checked (the range of `v` is).
    #[inline]
    pub fn slot_inserted(&mut self, v: i64) -> i64 {
        let i = at(v, self.next.len(), "key");
        if self.slots.is_empty() {
            self.slots = vec![0; self.next.len()];
        }
        let s = self.slots[i];
        self.slots[i] = s + 1;
        s
    }

    #[cold]
    #[inline(never)]
    fn place_failed(&self, v: i64) -> ! {
        if self.sorted {
            fail(format!(
                "place({v}) called more often than key {v} was inserted"
            ))
        } else {
            fail("place() before sort()".into())
        }
    }
}
