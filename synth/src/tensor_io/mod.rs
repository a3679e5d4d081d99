//! Coordinate files: Matrix Market (`.mtx`) and FROSTT (`.tns`) readers and
//! writers.
//!
//! Both readers produce a [`CooTensor`] (COO as structure of arrays: the
//! dense extents, one 0-based index column per mode, the values, in file
//! order) or, through [`read_mtx`]/[`read_tns`]/[`read_file`],
//! [`Coordinates`] (one small vector per entry). They never panic, whatever
//! the bytes; every malformed input is a [`TensorIoError`] that names the
//! line and column (1-based, counted in characters) where the problem is.
//!
//! # Matrix Market
//!
//! [`parse_mtx`] accepts the `coordinate` and `array` formats, the fields
//! `real`, `integer` and `pattern` (every entry is `1.0`; coordinate files
//! only; [`parse_checked_coo`] holds an `integer` file's values as `i64`,
//! exactly, [`ReadTensor::WideInt`], and `parse_mtx` as doubles) and the symmetries `general`, `symmetric` and `skew-symmetric`. A
//! symmetric matrix is expanded to both triangles: an off-diagonal entry
//! `(i, j)` is followed by its mirror `(j, i)` (with the value negated when
//! skew-symmetric), a diagonal entry appears once; [`Symmetry::KeepTriangle`]
//! keeps the entries as the file lists them instead. A symmetric file that
//! gives both `(i, j)` and `(j, i)` is an error (the two would be summed
//! into both positions), and so is a diagonal entry of a skew-symmetric
//! file (its diagonal is zero). An `array` file lists every value column by
//! column (a symmetric one the lower triangle, a skew-symmetric one the
//! strictly lower triangle), one per line; its zeros are not entries.
//! `complex` values and `hermitian` matrices are rejected with a message
//! saying so. Banner keywords are case-insensitive; lines starting with `%`
//! are comments (anywhere after the banner) and blank lines are ignored;
//! `\r\n` line ends work. Real values may use a Fortran `D` exponent
//! (`1.5D+02`).
//!
//! # FROSTT
//!
//! [`parse_tns`] reads one entry per line: the 1-based indices, then the
//! value, separated by whitespace. `#` starts a comment that runs to the end
//! of the line. The number of modes is fixed by the first entry and every
//! entry must agree; the extents are the largest index of each mode unless
//! the caller gives them.
//!
//! # Speed
//!
//! [`read_coo_file`] maps the file into memory (memmap2) and both readers
//! take a fast path over bytes for every line in the plain form (digits,
//! a real that `fast-float2` parses, single separators), handing any other
//! line to a careful parser that accepts every spelling above and locates
//! every error (`text.rs`); duplicates are found without a hash map unless
//! there are some (`duplicates.rs`). On one core this reads 400–500 MB/s
//! of text (docs/input-checks.md, "Reading coordinate files").
//!
//! # Decisions
//!
//! - **Duplicates** (in both formats, before symmetric expansion) are
//!   summed into the entry at the position of their first occurrence, so the
//!   result has distinct coordinates and keeps the file's order otherwise.
//!   Explicit zeros of a coordinate file are kept: they are stored entries
//!   of a COO input.
//! - **NaN and infinities** (`nan`, `inf`, `infinity`, any case, signed,
//!   and literals such as `1e999` that overflow to infinity) are refused
//!   unless [`ReadOptions::allow_nonfinite`] accepts them: a value read
//!   so is kept as the double it parses to. The oracle compares NaN equal
//!   to NaN and fingerprints hash a value's bits, so such an input
//!   converts and verifies like any other; JSON cannot carry it, and a
//!   JSON result holding one is refused when it is written.
//! - **Writers** ([`write_mtx`], [`write_tns`]) print every value in the
//!   shortest form that parses back to the same `f64` (Rust's `Display`, or
//!   its exponent form for very large or small magnitudes; `nan`, `inf`
//!   and `-inf` for values that are not finite, as scipy reads them), so a
//!   write followed by a read gives back the same coordinates (a NaN's
//!   sign and payload aside: `.npz` keeps those bits);
//!   [`write_mtx_integers`] writes an `integer` file of exact `i64` values.
//!
//! # Why not sprs or nalgebra-sparse
//!
//! DESIGN.md prefers a well-kept crate, but neither can report *where* a
//! file is wrong, which is the whole point of these errors:
//! `sprs::io::read_matrix_market` fails with the unit variant
//! `IoError::BadMatrixMarketFile` for every malformed input (no line, no
//! reason; sprs issue #308 asks for exactly this), and nalgebra-sparse's
//! `MatrixMarketError` is a kind plus a free-text message, with a position
//! only inside pest's syntax errors: a 0-based index (`ZeroError`), an
//! out-of-range index or a wrong number of entries (`EntryMismatch`) carry
//! no line. It also insists that the scalar type requested match the file's
//! field (an `integer` file cannot be read as `f64`), accepts only the lower
//! triangle of symmetric files, and pulls in nalgebra and pest. Neither
//! reads FROSTT. The number parsing is a crate's (`fast-float2`).

pub(crate) mod duplicates;
pub mod kind;
mod mtx;
mod text;
mod tns;
mod write;

use std::path::{Path, PathBuf};

pub use text::NONFINITE_HINT;
pub use write::{format_real, write_mtx, write_mtx_integers, write_tns};

/// A sparse tensor as a list of coordinates: COO in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Coordinates {
    /// The extent of each dense dimension (rows, columns for a matrix).
    pub dims: Vec<i64>,
    /// The entries: 0-based indices (one per dimension) and the value.
    pub entries: Vec<(Vec<i64>, f64)>,
}

impl Coordinates {
    /// The number of dimensions (modes).
    pub fn order(&self) -> usize {
        self.dims.len()
    }

    /// The number of stored entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no entry is stored.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A malformed coordinate file: where, and what is wrong.
///
/// Displays as `LINE:COL: message`; both are 1-based, the column counted in
/// characters.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct TensorIoError {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1, in characters.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl TensorIoError {
    pub(crate) fn new(line: usize, column: usize, message: impl Into<String>) -> Self {
        TensorIoError {
            line,
            column,
            message: message.into(),
        }
    }
}

/// Why a coordinate file could not be read: the file itself, or its content.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The file could not be opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The reason.
        #[source]
        source: std::io::Error,
    },
    /// The content is not coordinates (an `.npz` archive, a JSON
    /// instance), where coordinates are read.
    #[error("{}: this is {}, not a coordinate file (Matrix Market or FROSTT)", path.display(), kind.name())]
    NotCoordinates {
        /// The file.
        path: PathBuf,
        /// What it is.
        kind: kind::FileKind,
    },
    /// The content is malformed; displays as `PATH:LINE:COL: message`.
    #[error("{}:{error}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// Where and what.
        error: TensorIoError,
    },
}

/// Why coordinates could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The format has a fixed number of dimensions (Matrix Market: 2).
    #[error("{format} stores tensors of {expected} dimensions, not {found}")]
    Order {
        /// The file format.
        format: &'static str,
        /// The dimensions it supports.
        expected: usize,
        /// The dimensions of the tensor.
        found: usize,
    },
    /// An entry whose number of indices differs from the number of dimensions.
    #[error("entry {entry} has {found} indices but the tensor has {expected} dimensions")]
    EntryOrder {
        /// The entry's position (from 0).
        entry: usize,
        /// The tensor's dimensions.
        expected: usize,
        /// The entry's indices.
        found: usize,
    },
    /// An index outside `0..dims[d]`.
    #[error("entry {entry} has index {index} in dimension {dim}, outside 0..{extent}")]
    Index {
        /// The entry's position (from 0).
        entry: usize,
        /// The dimension (from 0).
        dim: usize,
        /// The offending 0-based index.
        index: i64,
        /// The dimension's extent.
        extent: i64,
    },
    /// The destination failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// An integer type index columns are held at: `i64`, or `i32` when every
/// extent fits (what the compiled conversions take at 32-bit indices, so
/// that the columns are passed as they are read, not narrowed into
/// copies).
pub trait IndexInt:
    Copy + Default + Into<i64> + Ord + std::hash::Hash + Send + Sync + std::fmt::Debug
{
    /// `i`, which the caller knows fits, at this width.
    fn from_i64(i: i64) -> Self;
}

impl IndexInt for i64 {
    fn from_i64(i: i64) -> i64 {
        i
    }
}

impl IndexInt for i32 {
    fn from_i64(i: i64) -> i32 {
        debug_assert!(i32::try_from(i).is_ok(), "{i} does not fit 32 bits");
        i as i32
    }
}

/// A type the values of read coordinates are held at: `f64` (a `real` or
/// `pattern` Matrix Market file, FROSTT), or `i64` (a Matrix Market
/// `integer` file, read exactly).
pub trait CooValue: Copy + Default + PartialEq + Send + Sync + std::fmt::Debug {
    /// The value of a `pattern` entry.
    const ONE: Self;
    /// The type the values are.
    const TYPE: crate::instance::ValueType;
    /// `self + other`, or `None` beyond the type's range.
    fn sum(self, other: Self) -> Option<Self>;
    /// `-self`, or `None` beyond the type's range.
    fn negated(self) -> Option<Self>;
    /// Whether the value is zero (not an entry of a dense file).
    fn is_zero(self) -> bool;
    /// Whether the value is finite (every integer is).
    fn is_finite(self) -> bool;
    /// The value as a double (exact up to 2^53 for integers).
    fn to_f64(self) -> f64;
    /// The values as an instance's array.
    fn into_values(values: Vec<Self>) -> crate::instance::Values;
    /// The exact sum of two values, printed (beyond the type's range).
    fn shown_sum(self, other: Self) -> String;
    /// What the values' range is, in messages.
    const RANGE: &'static str;
}

impl CooValue for f64 {
    const ONE: f64 = 1.0;
    const TYPE: crate::instance::ValueType = crate::instance::ValueType::F64;
    const RANGE: &'static str = "a double";
    fn sum(self, other: f64) -> Option<f64> {
        let s = self + other;
        (s.is_finite() || !self.is_finite() || !other.is_finite()).then_some(s)
    }
    fn negated(self) -> Option<f64> {
        Some(-self)
    }
    fn is_zero(self) -> bool {
        self == 0.0
    }
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn into_values(values: Vec<f64>) -> crate::instance::Values {
        crate::instance::Values::Real(values.into())
    }
    fn shown_sum(self, other: f64) -> String {
        (self + other).to_string()
    }
}

impl CooValue for i64 {
    const ONE: i64 = 1;
    const TYPE: crate::instance::ValueType = crate::instance::ValueType::I64;
    const RANGE: &'static str = "a 64-bit integer";
    fn sum(self, other: i64) -> Option<i64> {
        self.checked_add(other)
    }
    fn negated(self) -> Option<i64> {
        self.checked_neg()
    }
    fn is_zero(self) -> bool {
        self == 0
    }
    fn is_finite(self) -> bool {
        true
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn into_values(values: Vec<i64>) -> crate::instance::Values {
        crate::instance::Values::Int(values.into())
    }
    fn shown_sum(self, other: i64) -> String {
        (i128::from(self) + i128::from(other)).to_string()
    }
}

/// A sparse tensor as COO in structure-of-arrays form: what the readers
/// produce and what becomes a COO instance without copying; its index
/// columns at 64 bits unless said otherwise ([`IndexInt`]), its values
/// doubles unless said otherwise ([`CooValue`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CooTensor<I = i64, V = f64> {
    /// The extent of each dense dimension.
    pub dims: Vec<i64>,
    /// `indices[d][e]`: the 0-based index along dimension `d` of entry `e`.
    pub indices: Vec<Vec<I>>,
    /// `values[e]`: the value of entry `e`.
    pub values: Vec<V>,
}

impl<I: IndexInt, V: CooValue> CooTensor<I, V> {
    /// The number of dimensions (modes).
    pub fn order(&self) -> usize {
        self.dims.len()
    }

    /// The number of stored entries.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no entry is stored.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The entries as [`Coordinates`] (one small vector per entry; values
    /// as doubles, integers exact up to 2^53).
    pub fn to_coordinates(&self) -> Coordinates {
        let entries = (0..self.len())
            .map(|e| {
                let index = self.indices.iter().map(|c| c[e].into()).collect();
                (index, self.values[e].to_f64())
            })
            .collect();
        Coordinates {
            dims: self.dims.clone(),
            entries,
        }
    }

    /// The same tensor with 64-bit index columns.
    pub fn widened(self) -> CooTensor<i64, V> {
        CooTensor {
            dims: self.dims,
            indices: self
                .indices
                .into_iter()
                .map(|c| c.into_iter().map(Into::into).collect())
                .collect(),
            values: self.values,
        }
    }

    /// The same tensor with values as doubles (integers exact up to 2^53).
    pub fn as_reals(self) -> CooTensor<I> {
        CooTensor {
            dims: self.dims,
            indices: self.indices,
            values: self.values.into_iter().map(CooValue::to_f64).collect(),
        }
    }
}

impl CooTensor {
    /// The entries of [`Coordinates`] as columns.
    pub fn from_coordinates(c: &Coordinates) -> CooTensor {
        CooTensor {
            dims: c.dims.clone(),
            indices: (0..c.order())
                .map(|d| c.entries.iter().map(|(i, _)| i[d]).collect())
                .collect(),
            values: c.entries.iter().map(|(_, v)| *v).collect(),
        }
    }
}

/// Read columns at the width the reader chose ([`ReadOptions::narrow`]),
/// the values at the type the file says (a Matrix Market `integer` file's
/// as `i64`, every other file's as `f64`).
#[derive(Clone, Debug, PartialEq)]
pub enum ReadTensor {
    /// 64-bit index columns.
    Wide(CooTensor),
    /// 32-bit index columns: every extent fits in an `i32`.
    Narrow(CooTensor<i32>),
    /// 64-bit index columns, integer values.
    WideInt(CooTensor<i64, i64>),
    /// 32-bit index columns, integer values.
    NarrowInt(CooTensor<i32, i64>),
}

impl ReadTensor {
    /// The number of dimensions.
    pub fn order(&self) -> usize {
        match self {
            ReadTensor::Wide(t) => t.order(),
            ReadTensor::Narrow(t) => t.order(),
            ReadTensor::WideInt(t) => t.order(),
            ReadTensor::NarrowInt(t) => t.order(),
        }
    }

    /// The type the values are held at.
    pub fn value_type(&self) -> crate::instance::ValueType {
        match self {
            ReadTensor::Wide(_) | ReadTensor::Narrow(_) => f64::TYPE,
            ReadTensor::WideInt(_) | ReadTensor::NarrowInt(_) => i64::TYPE,
        }
    }

    /// The tensor with 64-bit index columns and values as doubles
    /// (integers exact up to 2^53).
    pub fn widened(self) -> CooTensor {
        match self {
            ReadTensor::Wide(t) => t,
            ReadTensor::Narrow(t) => t.widened(),
            ReadTensor::WideInt(t) => t.as_reals(),
            ReadTensor::NarrowInt(t) => t.widened().as_reals(),
        }
    }
}

/// Coordinates as spf's readers make them, with what the readers
/// guarantee: every index lies in `0..dims[d]` (a file's index outside its
/// extent is an error) and no two entries share a coordinate (duplicates
/// are summed, a symmetric file that lists a mirror twice is an error).
/// Only [`read_checked_coo_file`] makes one, so a check that receives it
/// may take both facts as established ([`crate::established`]). Values are
/// not covered: a sum of duplicates may overflow to infinity.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadCoordinates {
    tensor: ReadTensor,
}

impl ReadCoordinates {
    /// Coordinates a reader made with both guarantees established: every
    /// index inside its extent, no two entries at one coordinate (the
    /// `.npz` reader's scipy coo, [`crate::npz::read_scipy_coordinates`]).
    pub(crate) fn established(tensor: ReadTensor) -> ReadCoordinates {
        ReadCoordinates { tensor }
    }

    /// The number of dimensions.
    pub fn order(&self) -> usize {
        self.tensor.order()
    }

    /// The coordinates at the width they were read, giving up the
    /// guarantee.
    pub fn into_read(self) -> ReadTensor {
        self.tensor
    }

    /// The type the values are held at.
    pub fn value_type(&self) -> crate::instance::ValueType {
        self.tensor.value_type()
    }

    /// The coordinates with 64-bit index columns and values as doubles,
    /// giving up the guarantee.
    pub fn into_tensor(self) -> CooTensor {
        self.tensor.widened()
    }
}

/// What a symmetric Matrix Market file becomes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Symmetry {
    /// Both triangles: each off-diagonal entry followed by its mirror.
    #[default]
    Expand,
    /// The entries as the file lists them (one triangle).
    KeepTriangle,
}

/// How the readers read: the extents of a FROSTT file (its largest indices
/// when absent), what a symmetric Matrix Market file becomes, and the
/// width of the index columns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// The extents of a `.tns` file; ignored for `.mtx`, whose size line
    /// gives them.
    pub dims: Option<Vec<i64>>,
    /// Expand symmetric matrices, or keep the triangle the file lists.
    pub symmetry: Symmetry,
    /// Hold the index columns at 32 bits when every extent fits
    /// ([`ReadTensor::Narrow`], Matrix Market only): what the compiled
    /// conversions at 32-bit indices take, half the memory of 64 bits.
    pub narrow: bool,
    /// Accept values that are not finite (`nan`, `inf`, `-inf`,
    /// `infinity`, any case, and literals beyond the range of a double,
    /// read as infinities); refused, naming `--allow-nonfinite`, when
    /// false (the default).
    pub allow_nonfinite: bool,
}

/// Reads a Matrix Market file (see the module documentation) into columns.
///
/// ```
/// use synth::tensor_io::{parse_mtx, ReadOptions, Symmetry};
/// let text = "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3\n";
/// let m = parse_mtx(text.as_bytes(), &ReadOptions::default()).unwrap();
/// assert_eq!(m.indices, vec![vec![1, 0], vec![0, 1]]);
/// assert_eq!(m.values, vec![3.0, -3.0]);
/// let keep = ReadOptions { symmetry: Symmetry::KeepTriangle, ..ReadOptions::default() };
/// assert_eq!(parse_mtx(text.as_bytes(), &keep).unwrap().values, vec![3.0]);
/// ```
pub fn parse_mtx(bytes: &[u8], options: &ReadOptions) -> Result<CooTensor, TensorIoError> {
    mtx::parse(bytes, options)
}

/// Reads a FROSTT file (see the module documentation) into columns.
pub fn parse_tns(bytes: &[u8], options: &ReadOptions) -> Result<CooTensor, TensorIoError> {
    tns::parse(bytes, options)
}

/// Reads a Matrix Market file (see the module documentation), symmetric
/// matrices expanded.
///
/// ```
/// use synth::tensor_io::read_mtx;
/// let text = "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 4.5\n2 1 -1\n";
/// let m = read_mtx(text.as_bytes()).unwrap();
/// assert_eq!(m.dims, vec![2, 2]);
/// assert_eq!(m.entries, vec![(vec![0, 0], 4.5), (vec![1, 0], -1.0), (vec![0, 1], -1.0)]);
///
/// let err = read_mtx(b"%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 3\n").unwrap_err();
/// assert_eq!(err.to_string(), "3:1: row index 0 is out of range 1..=2: \
///     Matrix Market indices are 1-based, and this one looks 0-based");
/// ```
pub fn read_mtx(bytes: &[u8]) -> Result<Coordinates, TensorIoError> {
    parse_mtx(bytes, &ReadOptions::default()).map(|t| t.to_coordinates())
}

/// Reads a FROSTT `.tns` file (see the module documentation). `dims`, when
/// given, fixes the extents (and so the number of modes); otherwise each
/// extent is the largest index of its mode.
///
/// ```
/// use synth::tensor_io::read_tns;
/// let t = read_tns(b"# a tensor\n1 2 3 1.5\n2 1 1 -2\n", None).unwrap();
/// assert_eq!(t.dims, vec![2, 2, 3]);
/// assert_eq!(t.entries[0], (vec![0, 1, 2], 1.5));
/// ```
pub fn read_tns(bytes: &[u8], dims: Option<&[i64]>) -> Result<Coordinates, TensorIoError> {
    let options = ReadOptions {
        dims: dims.map(<[i64]>::to_vec),
        ..ReadOptions::default()
    };
    parse_tns(bytes, &options).map(|t| t.to_coordinates())
}

/// The bytes of a file, mapped into memory when the system allows it.
enum FileBytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(m) => m,
            FileBytes::Read(v) => v,
        }
    }
}

/// Maps a regular file into memory (no copy, pages shared with the page
/// cache); reads anything else (a pipe, an empty file) into a vector.
fn file_bytes(path: &Path) -> std::io::Result<FileBytes> {
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_file() && meta.len() > 0 {
        // SAFETY: the map is read-only and lives only while this reader
        // parses it. The one hazard is another process truncating the file
        // meanwhile (a SIGBUS), as with any reader of a memory-mapped file;
        // spf never writes its own input.
        if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
            return Ok(FileBytes::Mapped(map));
        }
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut &file, &mut bytes)?;
    Ok(FileBytes::Read(bytes))
}

/// Reads a Matrix Market or FROSTT file (told by its content, gzip
/// decompressed; `-` is standard input) into columns. Content errors
/// display as `PATH:LINE:COL: message`.
pub fn read_coo_file(path: &Path, options: &ReadOptions) -> Result<CooTensor, FileError> {
    read_checked_coo_file(path, options).map(ReadCoordinates::into_tensor)
}

/// [`read_coo_file`], with the readers' guarantee ([`ReadCoordinates`]).
pub fn read_checked_coo_file(
    path: &Path,
    options: &ReadOptions,
) -> Result<ReadCoordinates, FileError> {
    let input = kind::open_input(path).map_err(|source| FileError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_checked_coo(&input, path, options)
}

/// The coordinates of an input already read ([`kind::open_input`]);
/// `path` names it in errors.
///
/// # Errors
///
/// [`FileError::NotCoordinates`] for an archive or a JSON instance, and
/// the readers' located errors.
pub fn parse_checked_coo(
    input: &kind::InputFile,
    path: &Path,
    options: &ReadOptions,
) -> Result<ReadCoordinates, FileError> {
    let result = match input.kind {
        kind::FileKind::Frostt => parse_tns(input.bytes(), options).map(ReadTensor::Wide),
        kind::FileKind::MatrixMarket => mtx::parse_at_width(input.bytes(), options),
        other => {
            return Err(FileError::NotCoordinates {
                path: path.to_path_buf(),
                kind: other,
            })
        }
    };
    result
        .map(|tensor| ReadCoordinates { tensor })
        .map_err(|error| FileError::Parse {
            path: path.to_path_buf(),
            error,
        })
}

/// Reads a Matrix Market or FROSTT file, told by its content (`dims`
/// applies to FROSTT only), as [`Coordinates`]. Content errors display as
/// `PATH:LINE:COL: message`.
pub fn read_file(path: &Path, dims: Option<&[i64]>) -> Result<Coordinates, FileError> {
    let options = ReadOptions {
        dims: dims.map(<[i64]>::to_vec),
        ..ReadOptions::default()
    };
    read_coo_file(path, &options).map(|t| t.to_coordinates())
}

#[cfg(test)]
mod tests {
    use super::text::{end_position, split_fields};
    use super::*;

    #[test]
    fn fields_and_columns() {
        let (f, end) = split_fields("  1\t22  x");
        let got: Vec<(usize, &str)> = f.iter().map(|f| (f.column, f.text)).collect();
        assert_eq!(got, vec![(3, "1"), (5, "22"), (9, "x")]);
        assert_eq!(end, 10);
        let (f, end) = split_fields("");
        assert!(f.is_empty());
        assert_eq!(end, 1);
    }

    #[test]
    fn end_positions() {
        assert_eq!(end_position("a\nbc"), (2, 3));
        assert_eq!(end_position("a\n"), (2, 1));
        assert_eq!(end_position(""), (1, 1));
    }

    #[test]
    fn reals_print_exactly() {
        for v in [
            0.1,
            -0.0,
            1e300,
            -2.5e-300,
            f64::MIN_POSITIVE,
            f64::MAX,
            123456789.125,
            1e16,
            9.999999999999998e15,
            1e-5,
            5e-324,
        ] {
            let s = format_real(v);
            let back: f64 = s.parse().unwrap();
            assert_eq!(back.to_bits(), v.to_bits(), "{v} printed as {s}");
        }
        assert_eq!(format_real(3.0), "3");
        assert_eq!(format_real(1e300), "1e300");
    }

    #[test]
    fn fortran_exponent() {
        let m = read_mtx(b"%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1.5D+02\n")
            .unwrap();
        assert_eq!(m.entries, vec![(vec![0, 0], 150.0)]);
    }
}
