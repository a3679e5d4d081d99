//! Translation validation: a synthesized conversion is run in the
//! interpreter on a battery of test tensors before anyone is handed it.
//!
//! Synthesis is a search over rewrites that a bug, or a descriptor the
//! lowering does not really understand, can lead astray; z3's proofs cover
//! the descriptors, not the code. So every conversion [`crate::synthesize`]
//! returns has first converted each tensor of [`battery`] — empty ones,
//! single entries in every corner, empty rows and columns at the start, in
//! the middle and at the end, full rows and columns, diagonals, triangles,
//! tall and wide shapes, random ones at several densities, entries at large
//! coordinates, and the 3-D analogues — and each result was checked with
//! the format-independent oracle (the same entries as the input) and
//! against every rule of the destination descriptor
//! ([`crate::instance_validation::validate`]: lengths, ranges, monotonicity, orderings,
//! uniqueness). A rule the instance check cannot evaluate fails the check
//! with the reason; nothing is skipped.
//!
//! The source instances are made from coordinates: directly when the source
//! is the coordinate format (COO, COO3D), otherwise by a conversion from it
//! whose every result is itself checked the same way.
//!
//! A failure names the smallest failing tensor (the battery runs smallest
//! first, and a failing tensor is shrunk entry by entry while it still
//! fails), printed as Matrix Market (FROSTT for 3-D) lines a user can paste
//! into a file, and the first wrong entry or broken rule.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Mutex, OnceLock};

use codegen::ast::LoopProgram;

use crate::descriptor::Descriptor;
use crate::instance::Instance;
use crate::instance_validation::validate_entries;
use crate::oracle::{compare_entries, sorted_entries, stored_points, Entries, Mismatch};
use crate::record::{validation_key, Record};
use crate::representable::{Representable, Unrepresentable};
use crate::synthesized::Synthesized;
use crate::tensor_io::Coordinates;

/// A named tensor of the validation battery.
#[derive(Clone, Debug, PartialEq)]
pub struct TestTensor {
    /// What it exercises (`empty rows and columns at both ends`).
    pub name: String,
    /// Its entries, in the order a coordinate file would list them.
    pub coords: Coordinates,
}

/// What went wrong with one result.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Problem {
    /// The interpreter stopped (an out-of-bounds access, a broken runtime
    /// contract, a missing name).
    #[error("the conversion stopped: {0}")]
    Run(String),
    /// The result is not a valid instance of the destination.
    #[error("the result breaks a rule of {format}: {error}")]
    Invalid {
        /// The destination format.
        format: String,
        /// The broken rule, as the instance check reports it.
        error: String,
    },
    /// The oracle could not enumerate an instance.
    #[error("the oracle cannot read the {which}: {error}")]
    Unreadable {
        /// `input` or `result`.
        which: &'static str,
        /// Why.
        error: String,
    },
    /// The input has an entry the destination cannot store.
    #[error("{0}")]
    Unrepresentable(Unrepresentable),
    /// The result stores other entries than the input.
    #[error("the result stores other entries than the input: {0}")]
    Changed(Mismatch),
}

/// Why a conversion failed validation.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ValidationError {
    /// The pair cannot be validated at all.
    #[error("the conversion {src} -> {dst} cannot be validated: {reason}")]
    Unsupported {
        /// The source format.
        src: String,
        /// The destination format.
        dst: String,
        /// Why not.
        reason: String,
    },
    /// Test instances of the source cannot be made from coordinates.
    #[error(
        "the conversion {src} -> {dst} cannot be validated: test instances of {src} come from \
         {coo} -> {src}, which {why}"
    )]
    NoTestInstances {
        /// The source format.
        src: String,
        /// The destination format.
        dst: String,
        /// The coordinate format the instances are made from.
        coo: String,
        /// What went wrong with that conversion (synthesis, or a wrong
        /// result on a named tensor).
        why: String,
        /// The tensor that conversion gets wrong, as a file's text, when
        /// one was found.
        counterexample: Option<String>,
    },
    /// The conversion gave a wrong or invalid result.
    #[error(
        "the synthesized conversion {src} -> {dst} is wrong on the test tensor \"{tensor}\", \
         given here as {}:\n{coordinates}{problem}", file_kind(.coordinates)
    )]
    Failed {
        /// The source format.
        src: String,
        /// The destination format.
        dst: String,
        /// The failing tensor's name in the battery.
        tensor: String,
        /// The failing tensor (shrunk) as a file's text: Matrix Market for a
        /// matrix, FROSTT for a 3-D tensor ([`coordinate_text`]).
        coordinates: String,
        /// The first wrong entry or broken rule.
        problem: Box<Problem>,
    },
}

impl ValidationError {
    /// The tensor a conversion gets wrong, as a file's text (Matrix Market
    /// for a matrix, FROSTT otherwise), when validation found one: the
    /// pair's own, or that of the conversion its test instances come from.
    pub fn counterexample(&self) -> Option<&str> {
        match self {
            ValidationError::Failed { coordinates, .. } => Some(coordinates),
            ValidationError::NoTestInstances { counterexample, .. } => counterexample.as_deref(),
            ValidationError::Unsupported { .. } => None,
        }
    }
}

/// What a successful validation checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Validated {
    /// The number of test tensors converted and checked.
    pub tensors: usize,
}

/// Makes a conversion without validating it: how test instances of a
/// source format are made from coordinates ([`crate::synthesize`] passes
/// its unvalidated synthesis; its results are checked here).
pub type Maker<'a> = dyn Fn(&Descriptor, &Descriptor) -> Result<Synthesized, String> + 'a;

/// The built-in coordinate format of `order` dimensions (COO, COO3D),
/// from which test instances are made.
pub fn coordinate_format(order: usize) -> Option<Descriptor> {
    crate::builtin::coordinate_format(order)
}

/// Validates `s` once per process (a conversion already validated, the
/// same descriptors and the same computation, is not run again), and not
/// at all when `record` says it passed in an earlier process
/// ([`crate::record`]); a pass is noted in `record`.
///
/// # Errors
///
/// What [`validate`] reports.
pub fn validate_recorded(
    s: &Synthesized,
    maker: &Maker<'_>,
    record: &dyn Record,
) -> Result<Validated, ValidationError> {
    static CACHE: OnceLock<Mutex<HashMap<String, Result<Validated, ValidationError>>>> =
        OnceLock::new();
    let key = validation_key(s);
    let cache = CACHE.get_or_init(Default::default);
    if let Some(done) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return done;
    }
    if let Some(tensors) = record.passed(&key) {
        return Ok(Validated { tensors });
    }
    let result = validate(s, maker);
    if let Ok(v) = &result {
        record.note(&key, v.tensors);
    }
    if let Ok(mut c) = cache.lock() {
        c.insert(key, result.clone());
    }
    result
}

/// Runs `s` on every tensor of the [`battery`] for its order and checks
/// each result; `maker` makes the coordinate format → source conversion
/// when the source is not the coordinate format itself.
///
/// # Errors
///
/// [`ValidationError::Failed`] with the smallest failing tensor and the
/// first problem; [`ValidationError::NoTestInstances`] when the source's
/// instances cannot be made; [`ValidationError::Unsupported`] for orders
/// other than 2 and 3.
pub fn validate(s: &Synthesized, maker: &Maker<'_>) -> Result<Validated, ValidationError> {
    let src = &s.conversion.src;
    let dst = &s.conversion.dst_given;
    let unsupported = |reason: String| ValidationError::Unsupported {
        src: src.name.clone(),
        dst: dst.name.clone(),
        reason,
    };
    let order = src.dense.len();
    let coo = coordinate_format(order).ok_or_else(|| {
        unsupported(format!(
            "test tensors exist for 1 dimension or more, and {} has {order}",
            src.name
        ))
    })?;
    let program = s
        .program()
        .map_err(|e| unsupported(format!("scanning the computation: {e}")))?;
    let no_instances =
        |why: String, counterexample: Option<String>| ValidationError::NoTestInstances {
            src: src.name.clone(),
            dst: dst.name.clone(),
            coo: coo.name.clone(),
            why,
            counterexample,
        };
    let sources = if coo == *src {
        Sources::Direct
    } else {
        let made = maker(&coo, src)
            .map_err(|e| no_instances(format!("cannot be synthesized: {e}"), None))?;
        let program = made
            .program()
            .map_err(|e| no_instances(format!("cannot be scanned: {e}"), None))?;
        Sources::Converted(Box::new((made, program)))
    };
    // Entries one of the formats cannot store at all (above a lower
    // skyline's diagonal) are left out: spf refuses such inputs before
    // converting (`Representable`).
    let storable = [Representable::of(src), Representable::of(dst)];
    let tensors = battery(order);
    let restricted: Vec<Coordinates> = tensors
        .iter()
        .map(|t| {
            storable
                .iter()
                .fold(t.coords.clone(), |c, r| r.restrict(&c))
        })
        .collect();
    // A battery the formats can store almost nothing of proves nothing: a
    // conversion is validated on tensors of two entries at least.
    if restricted.iter().all(|c| c.len() < 2) {
        return Err(unsupported(format!(
            "of the test tensors' entries, {} and {} can both store {} (the conditions of \
             their maps on a stored entry), too few to validate the conversion on",
            src.name,
            dst.name,
            match restricted.iter().map(Coordinates::len).sum::<usize>() {
                0 => "none".to_string(),
                n => format!("only {n}, one per tensor at most"),
            }
        )));
    }
    for (t, coords) in tensors.iter().zip(restricted) {
        match check_tensor(s, &program, &sources, &coords) {
            Ok(()) => {}
            Err(first) => {
                let (coords, failure) = shrink(s, &program, &sources, &coords, first);
                let text = coordinate_text(&coords);
                return Err(match failure {
                    Failure::Source(p) => no_instances(
                        format!(
                            "is wrong on the test tensor \"{}\", given here as {}:\n{}{p}",
                            t.name,
                            file_kind(&text),
                            text
                        ),
                        Some(text),
                    ),
                    Failure::Conversion(problem) => ValidationError::Failed {
                        src: src.name.clone(),
                        dst: dst.name.clone(),
                        tensor: t.name.clone(),
                        coordinates: text,
                        problem: Box::new(problem),
                    },
                });
            }
        }
    }
    Ok(Validated {
        tensors: tensors.len(),
    })
}

/// Runs `s` (scanned into `program`) on `input` and checks the result: a
/// valid instance of the destination storing exactly the input's entries.
/// The result's dense extents are the input's, under the destination's
/// names.
///
/// # Errors
///
/// The first [`Problem`].
pub fn run_checked(
    s: &Synthesized,
    program: &LoopProgram,
    input: &Instance,
) -> Result<Instance, Problem> {
    check_storable(s, input)?;
    let out = s
        .run_program(program, input)
        .map_err(|e| Problem::Run(e.to_string()))?;
    let out = finish(s, input, out);
    check_result(s, input, &out)?;
    Ok(out)
}

/// Refuses an input with an entry the destination cannot store, before
/// the conversion runs (it would write outside the arrays: compiled code
/// must never run on it). Every stored point counts, zeros too, unless the
/// source's zeros are padding: the conversion visits them.
///
/// # Errors
///
/// [`Problem::Unrepresentable`] naming the entry, or
/// [`Problem::Unreadable`] when the input's entries cannot be read.
pub fn check_storable(s: &Synthesized, input: &Instance) -> Result<(), Problem> {
    check_storable_in(&Representable::of(&s.conversion.dst_given), s, input)
}

/// [`check_storable`] with what the destination stores already found
/// (`storable`, [`Representable::of`] the destination as given): what a
/// conversion run many times finds once.
///
/// # Errors
///
/// As [`check_storable`].
pub fn check_storable_in(
    storable: &Representable,
    s: &Synthesized,
    input: &Instance,
) -> Result<(), Problem> {
    let from = &s.conversion.src;
    let to = &s.conversion.dst_given;
    if storable.is_everything() {
        return Ok(());
    }
    let extent = |name: &str| {
        let k = to.dense.iter().position(|d| d == name)?;
        input.symbols.get(from.dense.get(k)?).copied()
    };
    let points = stored_points(from, input).map_err(|e| Problem::Unreadable {
        which: "input",
        error: e.to_string(),
    })?;
    let mut checker = storable.checker();
    for (at, value) in &points {
        if *value != 0.0 || !from.padding {
            checker
                .check(at, &extent)
                .map_err(Problem::Unrepresentable)?;
        }
    }
    Ok(())
}

/// The result `out` of running `s` on `input` (in the interpreter or
/// compiled) as an instance of the destination as given: the source's dense
/// extents that the destination does not name removed, its own set to the
/// input's values.
pub fn finish(s: &Synthesized, input: &Instance, mut out: Instance) -> Instance {
    let from = &s.conversion.src;
    let to = &s.conversion.dst_given;
    for name in &from.dense {
        if !to.symbols.contains(name) {
            out.symbols.remove(name);
        }
    }
    for (name, src_name) in to.dense.iter().zip(&from.dense) {
        if let Some(v) = input.symbols.get(src_name) {
            out.symbols.insert(name.clone(), *v);
        }
    }
    out
}

/// Checks a [`finish`]ed result of `s` on `input`: a valid instance of the
/// destination ([`validate`](crate::instance_validation::validate)) storing exactly the input's entries
/// (the oracle, both sides' entries sorted by coordinate and merged), in
/// `O(n log n)` for `n` stored entries.
///
/// # Errors
///
/// The first [`Problem`].
pub fn check_result(s: &Synthesized, input: &Instance, out: &Instance) -> Result<(), Problem> {
    let want = sorted_entries(&s.conversion.src, input).map_err(|e| Problem::Unreadable {
        which: "input",
        error: e.to_string(),
    })?;
    check_result_against(s, &want, out)
}

/// [`check_result`] with the input's entries already read (sorted by
/// coordinate, as [`sorted_entries`] or the input's own validation,
/// [`crate::instance_validation::validate_entries`], gives them): a caller that
/// validated the input does not enumerate it again.
///
/// # Errors
///
/// The first [`Problem`].
pub fn check_result_against(
    s: &Synthesized,
    want: &Entries,
    out: &Instance,
) -> Result<(), Problem> {
    check_result_with(s, want, out, &validate_entries)
}

/// [`check_result_against`] with the destination's check given: `check`
/// validates an instance against a descriptor and gives its entries sorted
/// by coordinate, as [`validate_entries`] does (`spf convert` passes a
/// compiled one). The comparison with `want` is the oracle's.
///
/// # Errors
///
/// The first [`Problem`].
pub fn check_result_with(
    s: &Synthesized,
    want: &Entries,
    out: &Instance,
    check: &dyn Fn(&Descriptor, &Instance) -> Result<Entries, crate::instance::InstanceError>,
) -> Result<(), Problem> {
    let to = &s.conversion.dst_given;
    // The destination's storage check enumerates its entries: kept.
    let got = check(to, out).map_err(|e| Problem::Invalid {
        format: to.name.clone(),
        error: e.to_string(),
    })?;
    compare_entries(want, &got).map_err(Problem::Changed)
}

/// How source instances are made from coordinates.
enum Sources {
    /// The source is the coordinate format.
    Direct,
    /// By this conversion from the coordinate format.
    Converted(Box<(Synthesized, LoopProgram)>),
}

/// Which conversion failed on a tensor.
#[derive(Clone, Debug)]
enum Failure {
    /// The one that makes the source instance.
    Source(Problem),
    /// The one under validation.
    Conversion(Problem),
}

fn check_tensor(
    s: &Synthesized,
    program: &LoopProgram,
    sources: &Sources,
    coords: &Coordinates,
) -> Result<(), Failure> {
    let coo = Instance::from_coordinates(coords);
    let input = match sources {
        Sources::Direct => coo,
        Sources::Converted(made) => run_checked(&made.0, &made.1, &coo).map_err(Failure::Source)?,
    };
    run_checked(s, program, &input)
        .map(drop)
        .map_err(Failure::Conversion)
}

/// The largest tensor [`shrink`] tries to make smaller.
const SHRINK_LIMIT: usize = 64;

/// Drops entries of a failing tensor one at a time while it still fails
/// the same conversion, so that the reported tensor is small.
fn shrink(
    s: &Synthesized,
    program: &LoopProgram,
    sources: &Sources,
    coords: &Coordinates,
    failure: Failure,
) -> (Coordinates, Failure) {
    let mut best = coords.clone();
    let mut failure = failure;
    if best.len() > SHRINK_LIMIT {
        return (best, failure);
    }
    let same_side = |a: &Failure, b: &Failure| {
        matches!(
            (a, b),
            (Failure::Source(_), Failure::Source(_))
                | (Failure::Conversion(_), Failure::Conversion(_))
        )
    };
    let mut k = 0;
    while k < best.len() {
        let mut smaller = best.clone();
        smaller.entries.remove(k);
        match check_tensor(s, program, sources, &smaller) {
            Err(f) if same_side(&f, &failure) => {
                best = smaller;
                failure = f;
            }
            _ => k += 1,
        }
    }
    (best, failure)
}

/// A tensor as the text of a file spf reads: Matrix Market for a matrix
/// (banner, sizes, 1-based entries), FROSTT for other orders (1-based
/// entries, the extents in a comment, since FROSTT has no header).
pub fn coordinate_text(c: &Coordinates) -> String {
    let dims: Vec<String> = c.dims.iter().map(i64::to_string).collect();
    let mut out = if c.order() == 2 {
        format!(
            "%%MatrixMarket matrix coordinate real general\n{} {}\n",
            dims.join(" "),
            c.len()
        )
    } else {
        format!(
            "# FROSTT, {} entries, extents {}\n",
            c.len(),
            dims.join(" x ")
        )
    };
    for (index, v) in &c.entries {
        let idx: Vec<String> = index.iter().map(|i| (i + 1).to_string()).collect();
        let _ = writeln!(out, "{} {v:?}", idx.join(" "));
    }
    out
}

/// What [`coordinate_text`] wrote: "Matrix Market" or "FROSTT".
fn file_kind(text: &str) -> &'static str {
    if text.starts_with("%%MatrixMarket") {
        "Matrix Market"
    } else {
        "FROSTT"
    }
}

// ---------------------------------------------------------------------------
// The battery

/// The test tensors of `order` dimensions (2 or 3; none otherwise),
/// smallest first. Values are distinct and nonzero (a swapped or lost value
/// shows), and entries come in a shuffled order unless the tensor is about
/// order (a sorted copy checks the sorted-input paths).
pub fn battery(order: usize) -> Vec<TestTensor> {
    let mut out = match order {
        0 => Vec::new(),
        2 => battery_2d(),
        3 => battery_3d(),
        n => battery_nd(n),
    };
    out.sort_by_key(|t| (t.coords.len(), t.coords.dims.iter().product::<i64>()));
    out
}

/// A deterministic generator (SplitMix64): the battery is the same on
/// every run and platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// True with probability `p`.
    fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
    }
}

/// A tensor of the given shape holding the coordinates `keep` accepts,
/// with distinct nonzero values, shuffled by `seed` (or in row-major order
/// for seed 0).
fn tensor(name: &str, dims: &[i64], seed: u64, mut keep: impl FnMut(&[i64]) -> bool) -> TestTensor {
    let mut entries = Vec::new();
    let mut index = vec![0i64; dims.len()];
    let total: i64 = dims.iter().product();
    for _ in 0..total {
        if keep(&index) {
            let k = entries.len() as f64;
            let sign = if entries.len() % 3 == 1 { -1.0 } else { 1.0 };
            entries.push((index.clone(), sign * (k + 1.25)));
        }
        for d in (0..dims.len()).rev() {
            index[d] += 1;
            if index[d] < dims[d] {
                break;
            }
            index[d] = 0;
        }
    }
    if seed != 0 {
        Rng(seed).shuffle(&mut entries);
    }
    TestTensor {
        name: name.to_string(),
        coords: Coordinates {
            dims: dims.to_vec(),
            entries,
        },
    }
}

/// A tensor holding exactly `points`, in that order.
fn listed(name: &str, dims: &[i64], points: &[&[i64]]) -> TestTensor {
    let mut t = tensor(name, dims, 0, |_| false);
    for (k, p) in points.iter().enumerate() {
        t.coords.entries.push((p.to_vec(), k as f64 + 1.5));
    }
    t
}

/// A random tensor of density `p`.
fn random(name: &str, dims: &[i64], p: f64, seed: u64) -> TestTensor {
    let mut rng = Rng(seed.wrapping_mul(31));
    tensor(name, dims, seed, |_| rng.chance(p))
}

fn battery_2d() -> Vec<TestTensor> {
    vec![
        tensor("empty 0 x 0", &[0, 0], 0, |_| false),
        tensor("empty 3 x 4", &[3, 4], 0, |_| false),
        tensor("1 x 1", &[1, 1], 0, |_| true),
        listed("top left corner", &[5, 7], &[&[0, 0]]),
        listed("top right corner", &[5, 7], &[&[0, 6]]),
        listed("bottom left corner", &[5, 7], &[&[4, 0]]),
        listed("bottom right corner", &[5, 7], &[&[4, 6]]),
        listed("one entry in a row and a column of 1", &[1, 9], &[&[0, 4]]),
        listed("one entry in a column of 9 rows", &[9, 1], &[&[6, 0]]),
        {
            let mut rng = Rng(7);
            let rows = [1, 2, 4, 5];
            let cols = [1, 3, 4, 6];
            tensor(
                "empty rows and columns at the start, middle and end",
                &[7, 8],
                11,
                |x| rows.contains(&x[0]) && cols.contains(&x[1]) && rng.chance(0.7),
            )
        },
        tensor("a full row", &[5, 6], 12, |x| x[0] == 2),
        tensor("a full column", &[6, 5], 13, |x| x[1] == 3),
        tensor("the diagonal", &[6, 6], 14, |x| x[0] == x[1]),
        tensor("the antidiagonal", &[6, 6], 15, |x| x[0] + x[1] == 5),
        tensor("lower triangular", &[6, 6], 16, |x| x[1] <= x[0]),
        tensor("upper triangular", &[6, 6], 17, |x| x[1] >= x[0]),
        random("tall", &[13, 3], 0.4, 18),
        random("wide", &[3, 13], 0.4, 19),
        random("random, density 0.05", &[9, 11], 0.05, 20),
        random("random, density 0.2", &[9, 11], 0.2, 21),
        random("random, density 0.5", &[9, 11], 0.5, 22),
        random("random, 16 x 16, density 0.15", &[16, 16], 0.15, 23),
        tensor("dense", &[7, 9], 24, |_| true),
        tensor("random, row-major order", &[9, 11], 0, {
            let mut rng = Rng(25);
            move |_| rng.chance(0.3)
        }),
        {
            let mut t = random("random, column-major order", &[11, 9], 0.3, 26);
            t.coords.entries.sort_by_key(|(x, _)| (x[1], x[0]));
            t
        },
        listed(
            "entries at the largest coordinates",
            &[257, 301],
            &[&[256, 300], &[0, 300], &[256, 0], &[128, 150], &[0, 0]],
        ),
    ]
}

/// The shape `[base, base + 1, ...]` of `n` modes.
fn shape(n: usize, base: i64) -> Vec<i64> {
    (0..n as i64).map(|d| base + d).collect()
}

/// The battery of any other order `n` (a sparse vector, a 4-D tensor):
/// the cases of the 2-D and 3-D batteries stated per mode, with extents
/// kept small as the order grows.
fn battery_nd(n: usize) -> Vec<TestTensor> {
    let x = |dims: &[i64]| {
        dims.iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(" x ")
    };
    let small = if n <= 2 { 6 } else { 3 };
    let mut out = vec![
        tensor(&format!("empty {}", x(&vec![0; n])), &vec![0; n], 0, |_| {
            false
        }),
        tensor(
            &format!("empty {}", x(&shape(n, 2))),
            &shape(n, 2),
            0,
            |_| false,
        ),
        tensor(&x(&vec![1; n]), &vec![1; n], 0, |_| true),
    ];
    // The corners of a box (at most 16 of them).
    let dims = shape(n, 3);
    for c in 0..(1usize << n).min(16) {
        let corner: Vec<i64> = (0..n)
            .map(|d| if c >> d & 1 == 1 { dims[d] - 1 } else { 0 })
            .collect();
        out.push(listed(&format!("corner {}", c + 1), &dims, &[&corner]));
    }
    let mut seed = 60;
    for mode in 0..n {
        // A full fiber along the mode, and a tensor long along it.
        let mut long = vec![2; n];
        long[mode] = 9;
        seed += 2;
        out.push(tensor(
            &format!("a full fiber along mode {}", mode + 1),
            &shape(n, small - 1),
            seed,
            |p| (0..n).all(|d| d == mode || p[d] == 1),
        ));
        out.push(random(
            &format!("long along mode {}", mode + 1),
            &long,
            0.4,
            seed + 1,
        ));
    }
    let mut rng = Rng(59);
    out.extend([
        tensor(
            "empty slices at the start, middle and end",
            &shape(n, small),
            58,
            |p| p.iter().all(|&i| i % 2 == 1) && rng.chance(0.7),
        ),
        tensor("the diagonal", &vec![small; n], 57, |p| {
            p.iter().all(|&i| i == p[0])
        }),
        random("random, density 0.05", &shape(n, small), 0.05, 56),
        random("random, density 0.2", &shape(n, small), 0.2, 55),
        random("random, density 0.6", &shape(n, small), 0.6, 54),
        tensor("dense", &shape(n, small - 1), 53, |_| true),
        tensor("random, lexicographic order", &shape(n, small), 0, {
            let mut rng = Rng(52);
            move |_| rng.chance(0.3)
        }),
    ]);
    let far = shape(n, 65);
    let last: Vec<i64> = far.iter().map(|e| e - 1).collect();
    let half: Vec<i64> = far.iter().map(|e| e / 2).collect();
    let first_last: Vec<i64> = (0..n).map(|d| if d == 0 { 0 } else { last[d] }).collect();
    let mut points: Vec<Vec<i64>> = Vec::new();
    for p in [last, first_last, half, vec![0; n]] {
        if !points.contains(&p) {
            points.push(p);
        }
    }
    let points: Vec<&[i64]> = points.iter().map(Vec::as_slice).collect();
    out.push(listed("entries at the largest coordinates", &far, &points));
    out
}

fn battery_3d() -> Vec<TestTensor> {
    let corners: Vec<Vec<i64>> = (0..8)
        .map(|c| vec![(c & 1) * 2, ((c >> 1) & 1) * 3, ((c >> 2) & 1) * 4])
        .collect();
    let mut out = vec![
        tensor("empty 0 x 0 x 0", &[0, 0, 0], 0, |_| false),
        tensor("empty 2 x 3 x 4", &[2, 3, 4], 0, |_| false),
        tensor("1 x 1 x 1", &[1, 1, 1], 0, |_| true),
    ];
    for (k, c) in corners.iter().enumerate() {
        out.push(listed(&format!("corner {}", k + 1), &[3, 4, 5], &[c]));
    }
    let mut rng = Rng(41);
    out.extend([
        tensor(
            "empty slices at the start, middle and end",
            &[5, 6, 7],
            42,
            |x| {
                [1, 3].contains(&x[0])
                    && [1, 2, 4].contains(&x[1])
                    && [1, 3, 5].contains(&x[2])
                    && rng.chance(0.7)
            },
        ),
        tensor("a full fiber along mode 1", &[5, 4, 3], 43, |x| {
            x[1] == 2 && x[2] == 1
        }),
        tensor("a full fiber along mode 2", &[4, 5, 3], 44, |x| {
            x[0] == 2 && x[2] == 2
        }),
        tensor("a full fiber along mode 3", &[3, 4, 5], 45, |x| {
            x[0] == 1 && x[1] == 3
        }),
        tensor("a full slice", &[3, 4, 5], 46, |x| x[1] == 1),
        tensor("the diagonal", &[5, 5, 5], 47, |x| {
            x[0] == x[1] && x[1] == x[2]
        }),
        random("long along mode 1", &[9, 2, 3], 0.4, 48),
        random("long along mode 2", &[2, 9, 3], 0.4, 49),
        random("long along mode 3", &[2, 3, 9], 0.4, 50),
        random("random, density 0.05", &[4, 5, 6], 0.05, 51),
        random("random, density 0.2", &[4, 5, 6], 0.2, 52),
        random("random, density 0.6", &[4, 5, 6], 0.6, 53),
        tensor("dense", &[3, 4, 5], 54, |_| true),
        tensor("random, lexicographic order", &[4, 5, 6], 0, {
            let mut rng = Rng(55);
            move |_| rng.chance(0.3)
        }),
        listed(
            "entries at the largest coordinates",
            &[65, 70, 75],
            &[
                &[64, 69, 74],
                &[0, 69, 0],
                &[64, 0, 74],
                &[32, 35, 37],
                &[0, 0, 0],
            ],
        ),
    ]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_battery_is_deterministic_in_range_and_smallest_first() {
        for order in [1, 2, 3, 4] {
            let b = battery(order);
            assert_eq!(b, battery(order));
            let least = if order == 1 { 12 } else { 20 };
            assert!(b.len() >= least, "{order}: {}", b.len());
            for t in &b {
                assert_eq!(t.coords.order(), order, "{}", t.name);
                let mut seen = std::collections::BTreeSet::new();
                for (x, v) in &t.coords.entries {
                    assert!(*v != 0.0, "{}: a zero value", t.name);
                    assert!(seen.insert(x.clone()), "{}: {x:?} twice", t.name);
                    for (d, &i) in x.iter().enumerate() {
                        assert!(0 <= i && i < t.coords.dims[d], "{}: {x:?}", t.name);
                    }
                }
            }
            let sizes: Vec<usize> = b.iter().map(|t| t.coords.len()).collect();
            assert!(sizes.windows(2).all(|w| w[0] <= w[1]), "{sizes:?}");
            assert_eq!(sizes[0], 0);
        }
        assert!(battery(0).is_empty());
    }

    use crate::builtin::{builtin_names, load_format};
    use crate::lower::faults::{inject, Fault};
    use crate::synthesize::synthesize_unvalidated;

    /// How the tests make source instances: the correct lowering.
    fn maker(a: &Descriptor, b: &Descriptor) -> Result<Synthesized, String> {
        let fault = crate::lower::faults::injected_now();
        inject(None);
        let made = synthesize_unvalidated(a, b).map_err(|e| e.to_string());
        inject(fault);
        made
    }

    /// The built-in pairs whose computation `fault` changes: the pair, the
    /// faulty conversion, and what validation said of it.
    fn faulty_pairs(
        fault: Fault,
    ) -> Vec<(String, Synthesized, Result<Validated, ValidationError>)> {
        let formats: Vec<Descriptor> = builtin_names()
            .iter()
            .map(|n| load_format(n).unwrap())
            .collect();
        let mut out = Vec::new();
        for src in &formats {
            for dst in formats.iter().filter(|d| d.dense.len() == src.dense.len()) {
                inject(None);
                let Ok(good) = synthesize_unvalidated(src, dst) else {
                    continue;
                };
                inject(Some(fault));
                if let Ok(bad) = synthesize_unvalidated(src, dst) {
                    if bad.computation != good.computation {
                        let pair = format!("{} -> {}", src.name, dst.name);
                        let verdict = validate(&bad, &maker);
                        out.push((pair, bad, verdict));
                    }
                }
                inject(None);
            }
        }
        out
    }

    /// Independent evidence: the real test matrices of the repository.
    fn real_matrices() -> Vec<Coordinates> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/matrices");
        ["jgl009.mtx", "pores_1.mtx", "bp_200.mtx", "lund_a.mtx"]
            .iter()
            .map(|m| {
                crate::tensor_io::read_file(&dir.join(m), None)
                    .unwrap_or_else(|e| panic!("test matrix {m}: {e}"))
            })
            .collect()
    }

    /// Breaks the lowering on purpose. The pairs known to depend on the
    /// broken part must be rejected, with a counterexample; a changed pair
    /// that validation accepts must be right on independent inputs (real
    /// matrices), so a fault may change a conversion into another correct
    /// one (MCOO -> SCOO sorted by rows alone keeps MCOO's column order
    /// within a row) but never into an accepted wrong one.
    fn rejects(fault: Fault, must_break: &[&str]) {
        let pairs = faulty_pairs(fault);
        let names: Vec<&str> = pairs.iter().map(|(p, ..)| p.as_str()).collect();
        for m in must_break {
            assert!(
                names.contains(m),
                "{fault:?} does not change {m}: {names:?}"
            );
        }
        let matrices = real_matrices();
        for (pair, bad, verdict) in &pairs {
            match verdict {
                Err(ValidationError::Failed { .. })
                | Err(ValidationError::NoTestInstances { .. }) => {}
                Ok(_) if !must_break.contains(&pair.as_str()) => {
                    if bad.conversion.src.dense.len() != 2 {
                        continue;
                    }
                    let program = bad.program().expect("scans");
                    let coo = coordinate_format(2).expect("built-in");
                    let storable = [
                        Representable::of(&bad.conversion.src),
                        Representable::of(&bad.conversion.dst_given),
                    ];
                    for m in &matrices {
                        let m = &storable.iter().fold(m.clone(), |c, r| r.restrict(&c));
                        let input = if coo == bad.conversion.src {
                            Instance::from_coordinates(m)
                        } else {
                            let made = maker(&coo, &bad.conversion.src).expect("synthesizes");
                            let p = made.program().expect("scans");
                            run_checked(&made, &p, &Instance::from_coordinates(m))
                                .expect("the correct lowering")
                        };
                        if let Err(p) = run_checked(bad, &program, &input) {
                            panic!("{fault:?}: {pair} passed validation but is wrong: {p}");
                        }
                    }
                }
                other => panic!("{fault:?}: {pair} was not rejected: {other:?}"),
            }
        }
    }

    /// (CSR -> CSC is not among the changed pairs: the lowering knows that
    /// CSR's order already gives the rows within a column, and sorts by the
    /// column alone whether or not the row is in the key.)
    #[test]
    fn validation_rejects_a_sort_key_without_its_last_component() {
        rejects(
            Fault::DropLastKeyComponent,
            &[
                "COO -> CSR",
                "COO -> CSC",
                "COO -> SCOO",
                "ELL -> CSR",
                "UCSR -> CSR",
                "DIA -> BCSR",
            ],
        );
    }

    #[test]
    fn validation_rejects_an_off_by_one_pointer_fixup() {
        rejects(
            Fault::FixupOffByOne,
            &["SCOO -> CSR", "COO -> BCSR", "CSC -> CSC", "ELL -> BCSR"],
        );
    }

    #[test]
    fn a_failure_names_the_smallest_tensor_and_the_problem() {
        inject(Some(Fault::FixupOffByOne));
        let scoo = load_format("scoo").unwrap();
        let csr = load_format("csr").unwrap();
        let bad = synthesize_unvalidated(&scoo, &csr).unwrap();
        inject(None);
        let err = validate(&bad, &maker).unwrap_err();
        let ValidationError::Failed {
            src,
            dst,
            coordinates,
            problem,
            ..
        } = &err
        else {
            panic!("{err}");
        };
        assert_eq!((src.as_str(), dst.as_str()), ("SCOO", "CSR"));
        // An empty row is what the broken fix-up gets wrong: the smallest
        // such tensor is one with no entries at all, or one entry below an
        // empty row.
        assert!(coordinates.lines().count() <= 3, "{coordinates}");
        assert!(
            matches!(**problem, Problem::Invalid { .. } | Problem::Changed(_)),
            "{problem}"
        );
        let text = err.to_string();
        assert!(
            text.contains("SCOO -> CSR is wrong on the test tensor"),
            "{text}"
        );
        eprintln!("{text}");
        assert!(
            text.contains("%%MatrixMarket matrix coordinate real general"),
            "{text}"
        );
    }

    #[test]
    fn coordinate_text_is_one_based() {
        let c = Coordinates {
            dims: vec![2, 3],
            entries: vec![(vec![1, 2], -1.5)],
        };
        assert_eq!(
            coordinate_text(&c),
            "%%MatrixMarket matrix coordinate real general\n2 3 1\n2 3 -1.5\n"
        );
        let t = Coordinates {
            dims: vec![2, 3, 4],
            entries: vec![(vec![1, 2, 0], 2.5)],
        };
        assert_eq!(
            coordinate_text(&t),
            "# FROSTT, 1 entries, extents 2 x 3 x 4\n2 3 1 2.5\n"
        );
    }
}
