//! matgen: deterministic, seeded generators of benchmark matrices and 3-D
//! tensors shaped like the papers' test sets.
//!
//! The matrices of the dissertation's Table 4.4 (Chou et al.'s Table 2) and
//! the tensors of its Table 4.5 cannot be downloaded where spf is built and
//! benchmarked, so the performance protocol (`docs/DESIGN.md`) generates
//! stand-ins with the same size, nnz, number of occupied diagonals and
//! row-length spread. [`catalog()`] lists them; [`generate`] builds one.
//!
//! ```
//! let spec = matgen::find("ecology1").unwrap();
//! let m = matgen::generate(spec, 0.001, 42);
//! assert_eq!(m.dims, vec![1024, 1024]); // a 32×32 grid: 0.001 of 1000×1000
//! assert_eq!(m.entries.len(), 5 * 1024 - 4 * 32);
//! assert_eq!(m, matgen::generate(spec, 0.001, 42));
//! ```
//!
//! # Guarantees
//!
//! - **Deterministic.** The same spec, scale and seed give the same entries
//!   in the same order on every platform: all randomness is SplitMix64 and
//!   all real arithmetic IEEE-754 basic operations ([`rng`]).
//! - **Well-formed.** Coordinates are 0-based, inside the extents, without
//!   duplicates, in row-major (lexicographic) order; values are nonzero
//!   multiples of 1/64 in `(0, 16]`, symmetric for symmetric specs.
//! - **Shaped.** [`targets`] says what an instance will have at a scale:
//!   stencils keep their exact diagonals at every scale; finite-element and
//!   power-law matrices reproduce the diagonal count (the band, or the pool
//!   of diagonals), the mean row length and the longest row.
//!
//! # Scale
//!
//! `scale` in `(0, 1]` shrinks rows, columns and nnz by the same factor and
//! keeps the structure: a stencil's grid shrinks along each axis (so its
//! diagonals stay), a matrix's mean and longest row stay (so below about
//! `4 · max_row / rows` the scale is raised to keep the longest row), a
//! tensor's relation mode keeps its extent. [`Targets::scale`] reports the
//! scale applied.

#![warn(missing_docs)]

mod catalog;
mod gen;
mod plan;
pub mod rng;
mod spec;

pub use catalog::{catalog, find, TENSOR_NNZ_BUDGET};
pub use plan::{check_scale, ScaleError, Targets};
pub use spec::{Band, Clip, Fem, Kind, MatrixSpec, Point, PowerLaw, Random, Stencil};
pub use synth::tensor_io::Coordinates;

use plan::Plan;
use rng::hash2;

/// A generated instance in compact form: one index array per mode and the
/// values (COO as structure of arrays, 8 bytes per index). Convert with
/// [`Coo::into_coordinates`] for `synth::tensor_io`'s writers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Coo {
    /// The extents.
    pub dims: Vec<i64>,
    /// `indices[k][e]`: the 0-based index along mode `k` of entry `e`.
    pub indices: Vec<Vec<i64>>,
    /// `values[e]`: the value of entry `e`.
    pub values: Vec<f64>,
}

impl Coo {
    /// The number of stored entries.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Puts the entries in a seeded random order (Fisher–Yates with
    /// SplitMix64): the unsorted COO input of a conversion benchmark.
    pub fn shuffle(&mut self, seed: u64) {
        let mut rng = rng::SplitMix64::new(seed, 0x5u64 << 32);
        for e in (1..self.len()).rev() {
            let f = rng.below(e as u64 + 1) as usize;
            for mode in &mut self.indices {
                mode.swap(e, f);
            }
            self.values.swap(e, f);
        }
    }

    /// The statistics the generator reproduces, measured.
    pub fn stats(&self) -> Stats {
        let mut stats = Stats {
            nnz: self.len() as u64,
            ..Stats::default()
        };
        if self.dims.len() != 2 || self.is_empty() {
            return stats;
        }
        let (rows, cols) = (&self.indices[0], &self.indices[1]);
        let n = self.dims[0].max(self.dims[1]);
        let mut occupied = vec![false; (2 * n) as usize];
        let mut lengths = vec![0u64; self.dims[0] as usize];
        for (&i, &j) in rows.iter().zip(cols) {
            occupied[(j - i + n) as usize] = true;
            lengths[i as usize] += 1;
        }
        stats.diagonals = Some(occupied.iter().filter(|&&o| o).count() as u64);
        stats.max_row = lengths.iter().copied().max();
        stats.min_row = lengths.iter().copied().min();
        stats.mean_row = Some(self.len() as f64 / self.dims[0] as f64);
        stats
    }

    /// The entries as [`Coordinates`] (one small vector per entry).
    pub fn into_coordinates(self) -> Coordinates {
        let Coo {
            dims,
            indices,
            values,
        } = self;
        let entries = values
            .into_iter()
            .enumerate()
            .map(|(e, v)| (indices.iter().map(|mode| mode[e]).collect(), v))
            .collect();
        Coordinates { dims, entries }
    }
}

/// Measured statistics of an instance ([`Coo::stats`]); the row figures
/// and diagonals are for matrices only.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Stored entries.
    pub nnz: u64,
    /// Occupied diagonals: distinct `j - i`.
    pub diagonals: Option<u64>,
    /// The longest row.
    pub max_row: Option<u64>,
    /// The shortest row (empty rows count).
    pub min_row: Option<u64>,
    /// Entries per row.
    pub mean_row: Option<f64>,
}

/// What `spec` will look like at `scale`: extents, nnz, occupied diagonals,
/// longest row.
///
/// # Panics
///
/// When `scale` is not in `(0, 1]` (see [`check_scale`]).
pub fn targets(spec: &MatrixSpec, scale: f64) -> Targets {
    if let Err(e) = check_scale(scale) {
        panic!("{e}");
    }
    plan::plan(spec, scale).1
}

/// Generates `spec` at `scale` from `seed`, in compact form; entries in
/// row-major order.
///
/// # Panics
///
/// When `scale` is not in `(0, 1]` (see [`check_scale`]).
pub fn generate_coo(spec: &MatrixSpec, scale: f64, seed: u64) -> Coo {
    if let Err(e) = check_scale(scale) {
        panic!("{e}");
    }
    let (plan, targets) = plan::plan(spec, scale);
    let keys = match &plan {
        Plan::Stencil(p) => gen::stencil(p, spec.symmetric, seed),
        Plan::Fem(p) => gen::fem(p, seed),
        Plan::PowerLaw(p) => gen::power_law(p, seed),
        Plan::Random(p) => gen::random(p, seed),
    };
    let dims = targets.dims;
    let order = dims.len();
    let mut indices = vec![Vec::with_capacity(keys.len()); order];
    let mut values = Vec::with_capacity(keys.len());
    let value_seed = rng::SplitMix64::new(seed, 0xA1u64 << 32).next_u64();
    let mut index = vec![0i64; order];
    for &key in &keys {
        let mut rest = key;
        for k in (0..order).rev() {
            let d = dims[k] as u64;
            index[k] = (rest % d) as i64;
            rest /= d;
        }
        for (mode, &i) in indices.iter_mut().zip(&index) {
            mode.push(i);
        }
        values.push(value(value_seed, &index, spec.symmetric));
    }
    Coo {
        dims,
        indices,
        values,
    }
}

/// Generates `spec` at `scale` (in `(0, 1]`) from `seed`: 0-based
/// coordinates without duplicates, in row-major order, ready for
/// `synth::tensor_io::write_mtx` or `write_tns`.
///
/// # Panics
///
/// When `scale` is not in `(0, 1]` (see [`check_scale`]).
pub fn generate(spec: &MatrixSpec, scale: f64, seed: u64) -> Coordinates {
    generate_coo(spec, scale, seed).into_coordinates()
}

/// A value in `(0, 16]`, a multiple of 1/64 (short and exact in decimal),
/// from a hash of the coordinates; the same for `(i, j)` and `(j, i)` when
/// `symmetric`.
fn value(seed: u64, index: &[i64], symmetric: bool) -> f64 {
    let h = match index {
        [i, j] if symmetric => hash2(seed, (*i).min(*j) as u64, (*i).max(*j) as u64),
        _ => index
            .iter()
            .fold(seed, |h, &i| hash2(h, i as u64, index.len() as u64)),
    };
    (1 + (h >> 54)) as f64 / 64.0
}
