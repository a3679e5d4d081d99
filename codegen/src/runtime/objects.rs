//! The interpreter's runtime objects: the semantics of `docs/runtime.md`,
//! implemented independently of the C and Rust runtimes (a stable sort by
//! key for `lex` and `counting`, Morton codes built bit by bit for
//! `morton`; per-key counts of handed-out positions for a `Scatter`), with
//! every misuse a typed [`ObjectFault`] instead of a panic.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};

use super::Method;

/// Why a runtime-object operation failed in the interpreter.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ObjectFault {
    /// The object's storage cannot be allocated.
    #[error("{0}")]
    TooLarge(String),
    /// `insert` after `sort()`.
    #[error("insert after sort()")]
    InsertAfterSort,
    /// A scatter's `insert` after its first `slot()`.
    #[error("insert after slot()")]
    InsertAfterSlot,
    /// A method that needs the sorted object (`start`; `size`, `value` and
    /// `index` of an `OrderedSet`; `place` of a `Scatter`) called before
    /// `sort()`.
    #[error("called before sort()")]
    NotSorted,
    /// An argument outside its range: an entry, a position or a key component.
    #[error("{argument} {value} is out of range 0..{len}")]
    OutOfRange {
        /// `entry`, `position` or `key component`.
        argument: &'static str,
        /// The value given.
        value: i64,
        /// The number of valid values.
        len: i64,
    },
    /// A key component outside its `counting` extent.
    #[error("key component {component} is {value}, outside its counting range 0..{extent}")]
    KeyOutOfRange {
        /// The component (0-based).
        component: usize,
        /// Its value.
        value: i64,
        /// Its extent.
        extent: i64,
    },
    /// A negative key component in a `morton` order.
    #[error("key component {component} is {value}; morton keys are non-negative")]
    NegativeKey {
        /// The component (0-based).
        component: usize,
        /// Its value.
        value: i64,
    },
    /// An `OrderedSet` insert outside `LO..=HI`.
    #[error("{value} is outside the set's bounds {lo}..={hi}")]
    OutsideBounds {
        /// The value inserted.
        value: i64,
        /// `LO`.
        lo: i64,
        /// `HI`.
        hi: i64,
    },
    /// `place(v)` of a `Scatter` called more often than `v` was inserted.
    #[error("place({key}) called more often than key {key} was inserted ({inserted} time(s))")]
    PlacedTooOften {
        /// The key.
        key: i64,
        /// How many times it was inserted.
        inserted: i64,
    },
    /// A negative `counting` extent (or `Scatter` extent, component 0) when
    /// the object is created.
    #[error("counting extent {component} is negative ({extent})")]
    NegativeExtent {
        /// The component (0-based).
        component: usize,
        /// The extent's value.
        extent: i64,
    },
}

/// The order of an interpreter permutation, with its extents evaluated.
#[derive(Clone, Debug)]
pub(crate) enum RunOrder {
    Lex,
    Counting(Vec<i64>),
    Morton,
}

/// A runtime object while the interpreter runs.
#[derive(Clone, Debug)]
pub(crate) enum Object {
    Perm(Perm),
    Set(Set),
    Scatter(Scatter),
}

#[derive(Clone, Debug)]
pub(crate) struct Perm {
    k: usize,
    /// The compared leading components `J`; the others are a payload.
    j: usize,
    order: RunOrder,
    sorted: bool,
    /// Keys by entry, in insertion order.
    keys: Vec<Vec<i64>>,
    /// Entry at each position, after `sort`.
    entries: Vec<usize>,
    /// Position of each entry, after `sort`.
    positions: Vec<usize>,
    /// `counting`: per component, how many keys have each value.
    counts: Vec<HashMap<i64, i64>>,
    /// After the first `rank`/`ranks`: the distinct rank of each position.
    ranks: RefCell<Option<Vec<i64>>>,
    /// Per prefix length, after its first `prefix_rank`/`prefix_ranks`: the
    /// distinct rank of each position by that many leading components.
    prefix: RefCell<HashMap<usize, Vec<i64>>>,
}

#[derive(Clone, Debug)]
pub(crate) struct Set {
    bounds: Option<(i64, i64)>,
    pending: BTreeSet<i64>,
    /// After `sort`: the values, increasing.
    values: Option<Vec<i64>>,
}

/// The interpreter's `Scatter(E)`: the keys' counts, and how many positions
/// each key has been given (written independently of the compiled runtimes'
/// `next` array: a position is `start(v) + placed[v]`).
#[derive(Clone, Debug)]
pub(crate) struct Scatter {
    extent: i64,
    /// Per key in `0..E`, how many entries were inserted.
    counts: Vec<i64>,
    /// The number of entries.
    size: i64,
    /// After `sort`: `starts[v]` entries have a key below `v`, `E + 1` values.
    starts: Option<Vec<i64>>,
    /// Per key, how many positions `place` handed out (`place` is a value,
    /// evaluated through `&self`).
    placed: RefCell<Vec<i64>>,
    /// Per key, how many slots `slot` handed out.
    slotted: RefCell<Vec<i64>>,
    /// A `slot` was asked: no more inserts.
    slots_open: std::cell::Cell<bool>,
}

fn range(argument: &'static str, value: i64, len: usize) -> Result<usize, ObjectFault> {
    match usize::try_from(value) {
        Ok(i) if i < len => Ok(i),
        _ => Err(ObjectFault::OutOfRange {
            argument,
            value,
            len: len as i64,
        }),
    }
}

/// The Morton code of non-negative components, as little-endian 64-bit
/// limbs: bit `b` of component `d` is bit `b·K + d` of the code.
fn morton_code(key: &[i64]) -> Vec<u64> {
    let k = key.len();
    let mut code = vec![0u64; k];
    for (d, &v) in key.iter().enumerate() {
        for b in 0..64 {
            if (v as u64 >> b) & 1 == 1 {
                let bit = b * k + d;
                code[bit / 64] |= 1 << (bit % 64);
            }
        }
    }
    code
}

fn cmp_code(a: &[u64], b: &[u64]) -> Ordering {
    a.iter().rev().cmp(b.iter().rev())
}

impl Object {
    /// A new permutation of keys of `k` components, the first `j` compared
    /// (`j` counting extents).
    pub(crate) fn permutation(k: usize, j: usize, order: RunOrder) -> Result<Object, ObjectFault> {
        if let RunOrder::Counting(extents) = &order {
            if let Some((component, &extent)) = extents.iter().enumerate().find(|(_, &e)| e < 0) {
                return Err(ObjectFault::NegativeExtent { component, extent });
            }
        }
        Ok(Object::Perm(Perm {
            k,
            j,
            order,
            sorted: false,
            keys: Vec::new(),
            entries: Vec::new(),
            positions: Vec::new(),
            counts: vec![HashMap::new(); j],
            ranks: RefCell::new(None),
            prefix: RefCell::new(HashMap::new()),
        }))
    }

    /// A new ordered set, with bounds `LO..=HI` or without.
    pub(crate) fn ordered_set(bounds: Option<(i64, i64)>) -> Object {
        Object::Set(Set {
            bounds,
            pending: BTreeSet::new(),
            values: None,
        })
    }

    /// A new scatter over the keys `0..extent`.
    pub(crate) fn scatter(extent: i64) -> Result<Object, ObjectFault> {
        let len = usize::try_from(extent).map_err(|_| ObjectFault::NegativeExtent {
            component: 0,
            extent,
        })?;
        let too_large = |e: crate::allocation::TooLarge| ObjectFault::TooLarge(e.to_string());
        Ok(Object::Scatter(Scatter {
            extent,
            counts: crate::allocation::try_zeroed(len, 0, "a scatter's counts")
                .map_err(too_large)?,
            size: 0,
            starts: None,
            placed: RefCell::new(Vec::new()),
            slotted: RefCell::new(
                crate::allocation::try_zeroed(len, 0, "a scatter's slots").map_err(too_large)?,
            ),
            slots_open: std::cell::Cell::new(false),
        }))
    }

    /// Runs `insert` or `sort` (the arity was checked before the run).
    pub(crate) fn act(&mut self, method: Method, args: &[i64]) -> Result<(), ObjectFault> {
        match (self, method) {
            (Object::Perm(p), Method::Insert) => p.insert(args),
            (Object::Perm(p), Method::Sort) => {
                p.sort();
                Ok(())
            }
            (Object::Perm(p), Method::Reserve) => {
                p.reserve(args[0]);
                Ok(())
            }
            (Object::Set(s), Method::Insert) => s.insert(args[0]),
            (Object::Set(s), Method::Sort) => {
                s.sort();
                Ok(())
            }
            (Object::Scatter(b), Method::Insert) => b.insert(args[0]),
            (Object::Scatter(b), Method::Sort) => {
                b.sort();
                Ok(())
            }
            // Rejected before the run.
            _ => Ok(()),
        }
    }

    /// Evaluates a value method (the arity and the kind were checked before
    /// the run). `place` changes the object, through a `RefCell`.
    pub(crate) fn value(&self, method: Method, args: &[i64]) -> Result<i64, ObjectFault> {
        match (self, method) {
            (Object::Perm(p), Method::Map) => p.map(args[0]),
            (Object::Perm(p), Method::Entry) => p.entry(args[0]),
            (Object::Perm(p), Method::Key) => p.key(args[0], args[1]),
            (Object::Perm(p), Method::Size) => Ok(p.keys.len() as i64),
            (Object::Perm(p), Method::Count) => p.count(args[0], args[1]),
            (Object::Perm(p), Method::Start) => p.start(args[0]),
            (Object::Perm(p), Method::Rank) => {
                p.with_ranks(|ranks| Ok(ranks[range("position", args[0], ranks.len())?]))
            }
            (Object::Perm(p), Method::Ranks) => {
                p.with_ranks(|ranks| Ok(ranks.last().map_or(0, |r| r + 1)))
            }
            (Object::Perm(p), Method::PrefixRank) => p.with_prefix(args[0], |ranks| {
                Ok(ranks[range("position", args[1], ranks.len())?])
            }),
            (Object::Perm(p), Method::PrefixRanks) => {
                p.with_prefix(args[0], |ranks| Ok(ranks.last().map_or(0, |r| r + 1)))
            }
            (Object::Set(s), Method::Size) => Ok(s.sorted()?.len() as i64),
            (Object::Set(s), Method::Value) => {
                let values = s.sorted()?;
                Ok(values[range("position", args[0], values.len())?])
            }
            (Object::Set(s), Method::Index) => {
                Ok(s.sorted()?.binary_search(&args[0]).map_or(-1, |p| p as i64))
            }
            (Object::Scatter(b), Method::Size) => Ok(b.size),
            (Object::Scatter(b), Method::Start) => b.start(args[0]),
            // The interpreter checks what `place_inserted` states.
            (Object::Scatter(b), Method::Place | Method::PlaceInserted) => b.place(args[0]),
            // The interpreter checks what `slot_inserted` states.
            (Object::Scatter(b), Method::Slot | Method::SlotInserted) => b.slot(args[0]),
            (Object::Scatter(b), Method::Count) => Ok(b.count(args[0])),
            // Rejected before the run.
            _ => Ok(0),
        }
    }
}

impl Perm {
    /// `reserve(n)`: a capacity hint. Nothing is observable, so a failed or
    /// absurd reservation (negative, too large) is simply not made.
    fn reserve(&mut self, n: i64) {
        if let Ok(n) = usize::try_from(n) {
            let _ = self.keys.try_reserve(n.saturating_sub(self.keys.len()));
        }
    }

    fn insert(&mut self, key: &[i64]) -> Result<(), ObjectFault> {
        if self.sorted {
            return Err(ObjectFault::InsertAfterSort);
        }
        // Only the compared components are constrained; the payload is free.
        for (component, &value) in key.iter().enumerate().take(self.j) {
            match &self.order {
                RunOrder::Counting(extents) if value < 0 || value >= extents[component] => {
                    return Err(ObjectFault::KeyOutOfRange {
                        component,
                        value,
                        extent: extents[component],
                    })
                }
                RunOrder::Morton if value < 0 => {
                    return Err(ObjectFault::NegativeKey { component, value })
                }
                _ => {}
            }
        }
        if let RunOrder::Counting(_) = self.order {
            for (counts, &v) in self.counts.iter_mut().zip(key) {
                *counts.entry(v).or_insert(0) += 1;
            }
        }
        self.keys.push(key.to_vec());
        Ok(())
    }

    fn sort(&mut self) {
        if self.sorted {
            return;
        }
        self.sorted = true;
        let mut order: Vec<usize> = (0..self.keys.len()).collect();
        // `sort_by` is stable: ties keep insertion order. Only the first `j`
        // components are compared.
        let j = self.j;
        match self.order {
            RunOrder::Lex | RunOrder::Counting(_) => {
                order.sort_by(|&a, &b| self.keys[a][..j].cmp(&self.keys[b][..j]));
            }
            RunOrder::Morton => {
                let codes: Vec<Vec<u64>> = self.keys.iter().map(|k| morton_code(&k[..j])).collect();
                order.sort_by(|&a, &b| cmp_code(&codes[a], &codes[b]));
            }
        }
        self.positions = vec![0; order.len()];
        for (p, &e) in order.iter().enumerate() {
            self.positions[e] = p;
        }
        self.entries = order;
    }

    fn map(&self, e: i64) -> Result<i64, ObjectFault> {
        let e = range("entry", e, self.keys.len())?;
        Ok(if self.sorted { self.positions[e] } else { e } as i64)
    }

    fn entry(&self, p: i64) -> Result<i64, ObjectFault> {
        let p = range("position", p, self.keys.len())?;
        Ok(if self.sorted { self.entries[p] } else { p } as i64)
    }

    fn key(&self, d: i64, p: i64) -> Result<i64, ObjectFault> {
        let d = range("key component", d, self.k)?;
        let e = self.entry(p)? as usize;
        Ok(self.keys[e][d])
    }

    fn count(&self, d: i64, v: i64) -> Result<i64, ObjectFault> {
        let d = range("compared key component", d, self.j)?;
        Ok(self.counts[d].get(&v).copied().unwrap_or(0))
    }

    /// Calls `f` with the distinct rank of every position (how many
    /// distinct compared keys come before it), computed on first use.
    fn with_ranks<T>(
        &self,
        f: impl FnOnce(&[i64]) -> Result<T, ObjectFault>,
    ) -> Result<T, ObjectFault> {
        if !self.sorted {
            return Err(ObjectFault::NotSorted);
        }
        let mut cache = self.ranks.borrow_mut();
        let ranks = cache.get_or_insert_with(|| self.compute_ranks());
        f(ranks)
    }

    /// Calls `f` with the distinct rank of every position by the first `c`
    /// key components, computed on first use.
    fn with_prefix<T>(
        &self,
        c: i64,
        f: impl FnOnce(&[i64]) -> Result<T, ObjectFault>,
    ) -> Result<T, ObjectFault> {
        if !self.sorted {
            return Err(ObjectFault::NotSorted);
        }
        let c = match usize::try_from(c) {
            Ok(c) if c >= 1 && c <= self.k => c,
            _ => {
                return Err(ObjectFault::OutOfRange {
                    argument: "prefix length",
                    value: c,
                    len: self.k as i64 + 1,
                })
            }
        };
        let mut cache = self.prefix.borrow_mut();
        let ranks = cache.entry(c).or_insert_with(|| self.distinct_ranks(c));
        f(ranks)
    }

    fn compute_ranks(&self) -> Vec<i64> {
        self.distinct_ranks(self.j)
    }

    /// The distinct rank of every sorted position by its first `c` key
    /// components (equal prefixes are adjacent after `sort`).
    fn distinct_ranks(&self, c: usize) -> Vec<i64> {
        let mut out = Vec::with_capacity(self.entries.len());
        let mut rank = -1;
        let mut previous: Option<&[i64]> = None;
        for &e in &self.entries {
            let key = &self.keys[e][..c];
            if previous != Some(key) {
                rank += 1;
                previous = Some(key);
            }
            out.push(rank);
        }
        out
    }

    fn start(&self, v: i64) -> Result<i64, ObjectFault> {
        if !self.sorted {
            return Err(ObjectFault::NotSorted);
        }
        // Sorted by `lex` or `counting`: first components are nondecreasing.
        Ok(self.entries.partition_point(|&e| self.keys[e][0] < v) as i64)
    }
}

impl Scatter {
    fn insert(&mut self, v: i64) -> Result<(), ObjectFault> {
        if self.starts.is_some() {
            return Err(ObjectFault::InsertAfterSort);
        }
        if self.slots_open.get() {
            return Err(ObjectFault::InsertAfterSlot);
        }
        match usize::try_from(v) {
            Ok(i) if i < self.counts.len() => self.counts[i] += 1,
            _ => {
                return Err(ObjectFault::KeyOutOfRange {
                    component: 0,
                    value: v,
                    extent: self.extent,
                })
            }
        }
        self.size += 1;
        Ok(())
    }

    fn sort(&mut self) {
        if self.starts.is_some() {
            return;
        }
        let mut starts = vec![0];
        for (v, &c) in self.counts.iter().enumerate() {
            starts.push(starts[v] + c);
        }
        self.starts = Some(starts);
        *self.placed.borrow_mut() = vec![0; self.counts.len()];
    }

    fn starts(&self) -> Result<&[i64], ObjectFault> {
        self.starts.as_deref().ok_or(ObjectFault::NotSorted)
    }

    /// After `sort`, `0 <= v <= E`: the number of entries with a key below `v`.
    fn start(&self, v: i64) -> Result<i64, ObjectFault> {
        let starts = self.starts()?;
        Ok(starts[range("key", v, starts.len())?])
    }

    /// After `sort`, `0 <= v < E`: the next free position of key `v`.
    fn place(&self, v: i64) -> Result<i64, ObjectFault> {
        let starts = self.starts()?;
        let i = range("key", v, self.counts.len())?;
        let mut placed = self.placed.borrow_mut();
        if placed[i] == self.counts[i] {
            return Err(ObjectFault::PlacedTooOften {
                key: v,
                inserted: self.counts[i],
            });
        }
        placed[i] += 1;
        Ok(starts[i] + placed[i] - 1)
    }

    /// `0 <= v < E`, sorted or not: how many slots key `v` was given
    /// before (at most as many as it was inserted); no insert may follow.
    fn slot(&self, v: i64) -> Result<i64, ObjectFault> {
        let i = range("key", v, self.counts.len())?;
        self.slots_open.set(true);
        let mut slotted = self.slotted.borrow_mut();
        if slotted[i] == self.counts[i] {
            return Err(ObjectFault::PlacedTooOften {
                key: v,
                inserted: self.counts[i],
            });
        }
        slotted[i] += 1;
        Ok(slotted[i] - 1)
    }

    /// How many entries have key `v` (0 outside `0..E`).
    fn count(&self, v: i64) -> i64 {
        usize::try_from(v)
            .ok()
            .and_then(|i| self.counts.get(i))
            .copied()
            .unwrap_or(0)
    }
}

impl Set {
    fn insert(&mut self, v: i64) -> Result<(), ObjectFault> {
        if self.values.is_some() {
            return Err(ObjectFault::InsertAfterSort);
        }
        if let Some((lo, hi)) = self.bounds {
            if v < lo || v > hi {
                return Err(ObjectFault::OutsideBounds { value: v, lo, hi });
            }
        }
        self.pending.insert(v);
        Ok(())
    }

    fn sort(&mut self) {
        if self.values.is_none() {
            self.values = Some(std::mem::take(&mut self.pending).into_iter().collect());
        }
    }

    fn sorted(&self) -> Result<&[i64], ObjectFault> {
        self.values.as_deref().ok_or(ObjectFault::NotSorted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morton_codes_interleave_from_the_first_component() {
        // k1 = 0b01, k2 = 0b10: bits k1.0, k2.0, k1.1, k2.1 = 1, 0, 0, 1.
        assert_eq!(morton_code(&[1, 2]), vec![0b1001, 0]);
        assert_eq!(morton_code(&[0, 1]), vec![0b10, 0]);
        // Bit 40 of the second of three components is bit 40·3 + 1 = 121.
        assert_eq!(morton_code(&[0, 1 << 40, 0]), vec![0, 1 << (121 - 64), 0]);
    }
}
