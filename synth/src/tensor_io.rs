//! Coordinate files: Matrix Market (`.mtx`) and FROSTT (`.tns`) readers and
//! writers.
//!
//! Both readers produce [`Coordinates`]: the tensor's dense extents and its
//! entries in file order, with 0-based indices. They never panic, whatever
//! the bytes; every malformed input is a [`TensorIoError`] that names the
//! line and column (1-based, counted in characters) where the problem is.
//!
//! # Matrix Market
//!
//! [`read_mtx`] accepts the coordinate format with the fields `real`,
//! `integer` and `pattern` (every entry is `1.0`) and the symmetries
//! `general` and `symmetric`. A symmetric matrix is expanded to both
//! triangles: an off-diagonal entry `(i, j)` is followed by its mirror
//! `(j, i)`, a diagonal entry appears once. A symmetric file that gives both
//! `(i, j)` and `(j, i)` is an error (the two would be summed into both
//! positions). The `array` format, `complex`
//! values and `skew-symmetric`/`hermitian` matrices are rejected with a
//! message saying so. Banner keywords are case-insensitive; lines starting
//! with `%` are comments (anywhere after the banner) and blank lines are
//! ignored; `\r\n` line ends work. Real values may use a Fortran `D`
//! exponent (`1.5D+02`).
//!
//! # FROSTT
//!
//! [`read_tns`] reads one entry per line: the 1-based indices, then the
//! value, separated by whitespace. `#` starts a comment that runs to the end
//! of the line. The number of modes is fixed by the first entry and every
//! entry must agree; the extents are the largest index of each mode unless
//! the caller gives them.
//!
//! # Decisions
//!
//! - **Duplicates** (in both formats, after symmetric expansion) are summed
//!   into the entry at the position of their first occurrence, so the result
//!   has distinct coordinates and keeps the file's order otherwise. Explicit
//!   zeros are kept: they are stored entries of a COO input.
//! - **NaN and infinities are rejected** (`nan`, `inf`, and literals such as
//!   `1e999` that overflow to infinity). The correctness oracle compares
//!   values exactly, NaN is not equal to itself, and JSON instances cannot
//!   carry non-finite numbers, so a non-finite value could never survive a
//!   round trip or a comparison.
//! - **Writers** ([`write_mtx`], [`write_tns`]) print every value in the
//!   shortest form that parses back to the same `f64` (Rust's `Display`, or
//!   its exponent form for very large or small magnitudes), so a write
//!   followed by a read gives back exactly the same coordinates.
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
//! reads FROSTT. The format is simple enough that a hand-written reader is
//! shorter than the glue around either crate.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

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
    fn new(line: usize, column: usize, message: impl Into<String>) -> Self {
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
    /// The extension is neither `.mtx` nor `.tns`.
    #[error("{}: unknown coordinate file type; expected a .mtx (Matrix Market) or .tns (FROSTT) file", path.display())]
    UnknownKind {
        /// The file.
        path: PathBuf,
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
    /// A NaN or infinite value, which the readers would refuse.
    #[error("entry {entry} has the non-finite value {value}")]
    NonFinite {
        /// The entry's position (from 0).
        entry: usize,
        /// The value.
        value: f64,
    },
    /// The destination failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

// ---------------------------------------------------------------------------
// Lines and fields

/// A whitespace-separated field of a line, with its 1-based column.
#[derive(Clone, Copy, Debug)]
struct Field<'a> {
    column: usize,
    text: &'a str,
}

/// One line: its number, its fields, and the column just past its end.
struct Line<'a> {
    number: usize,
    fields: Vec<Field<'a>>,
    end_column: usize,
}

/// Decodes the bytes as UTF-8; an invalid sequence is located.
fn decode(bytes: &[u8]) -> Result<&str, TensorIoError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let valid = &bytes[..e.valid_up_to()];
        // The prefix is valid UTF-8 by construction.
        let prefix = std::str::from_utf8(valid).unwrap_or("");
        let line = prefix.matches('\n').count() + 1;
        let last = prefix.rsplit('\n').next().unwrap_or("");
        let column = last.chars().count() + 1;
        TensorIoError::new(line, column, "the file is not valid UTF-8 text")
    })
}

/// Splits `text` into fields separated by ASCII whitespace.
fn split_fields(text: &str) -> (Vec<Field<'_>>, usize) {
    let mut fields = Vec::new();
    let mut column = 0;
    let mut start: Option<(usize, usize)> = None; // (byte offset, column)
    for (offset, ch) in text.char_indices() {
        column += 1;
        if ch.is_ascii_whitespace() {
            if let Some((s, c)) = start.take() {
                fields.push(Field {
                    column: c,
                    text: &text[s..offset],
                });
            }
        } else if start.is_none() {
            start = Some((offset, column));
        }
    }
    if let Some((s, c)) = start {
        fields.push(Field {
            column: c,
            text: &text[s..],
        });
    }
    (fields, column + 1)
}

/// The position just past the last character of the text.
fn end_position(text: &str) -> (usize, usize) {
    let line = text.matches('\n').count() + 1;
    let last = text.rsplit('\n').next().unwrap_or("");
    (line, last.chars().count() + 1)
}

/// The lines of `text` with their numbers (the final empty piece after a
/// trailing newline included, as a blank line).
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split('\n').enumerate().map(|(i, l)| (i + 1, l))
}

fn line_of<'a>(number: usize, text: &'a str) -> Line<'a> {
    let (fields, end_column) = split_fields(text);
    Line {
        number,
        fields,
        end_column,
    }
}

// ---------------------------------------------------------------------------
// Numbers

/// Parses a real number: Rust's syntax, plus a Fortran `D` exponent. Only
/// finite values are accepted.
fn parse_real(f: Field<'_>, line: usize, what: &str) -> Result<f64, TensorIoError> {
    let t = f.text;
    let parsed = t.parse::<f64>().ok().or_else(|| {
        if t.contains(['d', 'D'])
            && !t
                .chars()
                .any(|c| c.is_ascii_alphabetic() && c != 'd' && c != 'D')
        {
            t.replace(['d', 'D'], "e").parse::<f64>().ok()
        } else {
            None
        }
    });
    // Rust also accepts words such as "inf" and "nan"; those are not finite.
    match parsed {
        Some(v) if v.is_finite() => Ok(v),
        Some(_) => Err(TensorIoError::new(
            line,
            f.column,
            format!("{what} `{t}` is not a finite number (NaN and infinities are not accepted)"),
        )),
        None => Err(TensorIoError::new(
            line,
            f.column,
            format!("{what} `{t}` is not a number"),
        )),
    }
}

/// Parses an integer field.
fn parse_int(f: Field<'_>, line: usize, what: &str) -> Result<i64, TensorIoError> {
    let t = f.text;
    t.parse::<i64>().map_err(|e| {
        let reason = match e.kind() {
            std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
                "does not fit in a 64-bit integer"
            }
            _ => "is not an integer",
        };
        TensorIoError::new(line, f.column, format!("{what} `{t}` {reason}"))
    })
}

/// Parses a non-negative count of the size line.
fn parse_count(f: Field<'_>, line: usize, what: &str) -> Result<i64, TensorIoError> {
    let n = parse_int(f, line, what)?;
    if n < 0 {
        return Err(TensorIoError::new(
            line,
            f.column,
            format!("{what} {n} is negative"),
        ));
    }
    Ok(n)
}

/// Parses a 1-based index within `1..=extent` (at least 1 when the extent
/// is unknown) and returns it 0-based.
fn parse_index(
    f: Field<'_>,
    line: usize,
    what: &str,
    extent: Option<i64>,
    format: &str,
) -> Result<i64, TensorIoError> {
    let i = parse_int(f, line, what)?;
    if i >= 1 && extent.is_none_or(|n| i <= n) {
        return Ok(i - 1);
    }
    let range = match extent {
        Some(n) => format!("out of range 1..={n}"),
        None => "below 1".to_string(),
    };
    let message = if i == 0 {
        format!("{what} 0 is {range}: {format} indices are 1-based, and this one looks 0-based")
    } else {
        format!("{what} {i} is {range}")
    };
    Err(TensorIoError::new(line, f.column, message))
}

/// Adds an entry, summing it into an earlier one with the same indices.
fn add_entry(
    entries: &mut Vec<(Vec<i64>, f64)>,
    seen: &mut HashMap<Vec<i64>, usize>,
    index: Vec<i64>,
    value: f64,
) {
    match seen.get(&index) {
        Some(&at) => entries[at].1 += value,
        None => {
            seen.insert(index.clone(), entries.len());
            entries.push((index, value));
        }
    }
}

/// A capacity hint that never trusts a huge announced count.
fn capacity(announced: i64) -> usize {
    usize::try_from(announced).unwrap_or(0).min(1 << 20)
}

// ---------------------------------------------------------------------------
// Matrix Market

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field3 {
    Real,
    Integer,
    Pattern,
}

const BANNER_HELP: &str =
    "`%%MatrixMarket matrix coordinate real|integer|pattern general|symmetric`";

/// Reads the banner line: (field, symmetric).
fn read_banner(text: &str) -> Result<(Field3, bool), TensorIoError> {
    let line = line_of(1, text);
    let first = line.fields.first().copied();
    if !first.is_some_and(|f| f.text.eq_ignore_ascii_case("%%MatrixMarket")) {
        return Err(TensorIoError::new(
            1,
            first.map_or(1, |f| f.column),
            format!("the file does not start with the Matrix Market banner {BANNER_HELP}"),
        ));
    }
    let word = |k: usize, what: &str| -> Result<Field<'_>, TensorIoError> {
        line.fields.get(k).copied().ok_or_else(|| {
            TensorIoError::new(
                1,
                line.end_column,
                format!("the banner ends before the {what}; expected {BANNER_HELP}"),
            )
        })
    };
    let object = word(1, "object (`matrix`)")?;
    if !object.text.eq_ignore_ascii_case("matrix") {
        return Err(TensorIoError::new(
            1,
            object.column,
            format!(
                "unsupported Matrix Market object `{}`; only `matrix` is supported",
                object.text
            ),
        ));
    }
    let format = word(2, "format (`coordinate`)")?;
    if format.text.eq_ignore_ascii_case("array") {
        return Err(TensorIoError::new(
            1,
            format.column,
            "the dense `array` format is not supported; only `coordinate` is",
        ));
    }
    if !format.text.eq_ignore_ascii_case("coordinate") {
        return Err(TensorIoError::new(
            1,
            format.column,
            format!(
                "unknown Matrix Market format `{}`; expected `coordinate`",
                format.text
            ),
        ));
    }
    let field = word(3, "field (real, integer or pattern)")?;
    let kind =
        match field.text.to_ascii_lowercase().as_str() {
            "real" | "double" => Field3::Real,
            "integer" => Field3::Integer,
            "pattern" => Field3::Pattern,
            "complex" => return Err(TensorIoError::new(
                1,
                field.column,
                "complex matrices are not supported; the field must be real, integer or pattern",
            )),
            _ => {
                return Err(TensorIoError::new(
                    1,
                    field.column,
                    format!(
                        "unknown field `{}`; expected real, integer or pattern",
                        field.text
                    ),
                ))
            }
        };
    let symmetry = word(4, "symmetry (general or symmetric)")?;
    let symmetric = match symmetry.text.to_ascii_lowercase().as_str() {
        "general" => false,
        "symmetric" => true,
        "skew-symmetric" | "hermitian" => {
            return Err(TensorIoError::new(
                1,
                symmetry.column,
                format!(
                    "{} matrices are not supported; the symmetry must be general or symmetric",
                    symmetry.text.to_ascii_lowercase()
                ),
            ))
        }
        _ => {
            return Err(TensorIoError::new(
                1,
                symmetry.column,
                format!(
                    "unknown symmetry `{}`; expected general or symmetric",
                    symmetry.text
                ),
            ))
        }
    };
    if let Some(extra) = line.fields.get(5) {
        return Err(TensorIoError::new(
            1,
            extra.column,
            format!("unexpected `{}` after the banner's symmetry", extra.text),
        ));
    }
    Ok((kind, symmetric))
}

/// Whether a line is a comment (`%` first) or blank.
fn mtx_skip(line: &Line<'_>) -> bool {
    line.fields.first().is_none_or(|f| f.text.starts_with('%'))
}

/// Reads a Matrix Market coordinate file (see the module documentation).
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
    let text = decode(bytes)?;
    let mut all = lines(text);
    let (kind, symmetric) = match all.next() {
        Some((_, banner)) => read_banner(banner.strip_suffix('\r').unwrap_or(banner))?,
        None => read_banner("")?,
    };
    // The size line.
    let mut size = None;
    for (number, raw) in all.by_ref() {
        let line = line_of(number, raw);
        if mtx_skip(&line) {
            continue;
        }
        size = Some(line);
        break;
    }
    let Some(size) = size else {
        let (line, column) = end_position(text);
        return Err(TensorIoError::new(
            line,
            column,
            "the file ends before the size line (`rows columns entries`)",
        ));
    };
    let names = ["number of rows", "number of columns", "number of entries"];
    let mut counts = [0i64; 3];
    for (k, name) in names.iter().enumerate() {
        let f = size.fields.get(k).copied().ok_or_else(|| {
            TensorIoError::new(
                size.number,
                size.end_column,
                format!(
                    "the size line needs 3 fields (rows, columns, entries) but has {}",
                    size.fields.len()
                ),
            )
        })?;
        counts[k] = parse_count(f, size.number, name)?;
    }
    if let Some(extra) = size.fields.get(3) {
        return Err(TensorIoError::new(
            size.number,
            extra.column,
            format!(
                "unexpected `{}` after the number of entries; the size line of a coordinate matrix has 3 fields",
                extra.text
            ),
        ));
    }
    let [rows, cols, announced] = counts;
    if symmetric && rows != cols {
        return Err(TensorIoError::new(
            size.number,
            size.fields[0].column,
            format!("a symmetric matrix must be square, but this one is {rows} × {cols}"),
        ));
    }
    let mut entries = Vec::with_capacity(capacity(announced));
    let mut seen: HashMap<Vec<i64>, usize> = HashMap::with_capacity(capacity(announced));
    // Off-diagonal entries of a symmetric file as given, with their lines.
    let mut mirrors: HashMap<(i64, i64), usize> = HashMap::new();
    let mut read: i64 = 0;
    let fields_wanted = if kind == Field3::Pattern { 2 } else { 3 };
    let layout = if kind == Field3::Pattern {
        "`row column`"
    } else {
        "`row column value`"
    };
    for (number, raw) in all {
        let line = line_of(number, raw);
        if mtx_skip(&line) {
            continue;
        }
        if read == announced {
            return Err(TensorIoError::new(
                number,
                line.fields[0].column,
                format!(
                    "more entries than the {announced} announced on line {}",
                    size.number
                ),
            ));
        }
        let missing = |what: &str| {
            TensorIoError::new(
                number,
                line.end_column,
                format!("missing {what}: an entry is {layout}"),
            )
        };
        let i = parse_index(
            line.fields[0],
            number,
            "row index",
            Some(rows),
            "Matrix Market",
        )?;
        let jf = line
            .fields
            .get(1)
            .copied()
            .ok_or_else(|| missing("column index"))?;
        let j = parse_index(jf, number, "column index", Some(cols), "Matrix Market")?;
        let value = match kind {
            Field3::Pattern => 1.0,
            Field3::Real => {
                let vf = line
                    .fields
                    .get(2)
                    .copied()
                    .ok_or_else(|| missing("value"))?;
                parse_real(vf, number, "value")?
            }
            Field3::Integer => {
                let vf = line
                    .fields
                    .get(2)
                    .copied()
                    .ok_or_else(|| missing("value"))?;
                // i64 -> f64 rounds beyond 2^53, like any reader into f64.
                parse_int(vf, number, "integer value")? as f64
            }
        };
        if let Some(extra) = line.fields.get(fields_wanted) {
            return Err(TensorIoError::new(
                number,
                extra.column,
                format!("unexpected field `{}`: an entry is {layout}", extra.text),
            ));
        }
        if symmetric && i != j {
            // A symmetric file lists one triangle; an entry whose mirror the
            // file also gives would be summed into both positions.
            if let Some(&first) = mirrors.get(&(j, i)) {
                return Err(TensorIoError::new(
                    number,
                    line.fields[0].column,
                    format!(
                        "entry ({}, {}) mirrors the entry ({}, {}) of line {first}: a symmetric \
                         file lists one triangle, and expanding both would add them into both \
                         positions; keep one of them, or declare the matrix general",
                        i + 1,
                        j + 1,
                        j + 1,
                        i + 1
                    ),
                ));
            }
            mirrors.entry((i, j)).or_insert(number);
        }
        add_entry(&mut entries, &mut seen, vec![i, j], value);
        if symmetric && i != j {
            add_entry(&mut entries, &mut seen, vec![j, i], value);
        }
        read += 1;
    }
    if read < announced {
        let (line, column) = end_position(text);
        return Err(TensorIoError::new(
            line,
            column,
            format!(
                "the file ends after {read} of the {announced} entries announced on line {}",
                size.number
            ),
        ));
    }
    Ok(Coordinates {
        dims: vec![rows, cols],
        entries,
    })
}

// ---------------------------------------------------------------------------
// FROSTT

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
    let text = decode(bytes)?;
    let mut entries = Vec::new();
    let mut seen: HashMap<Vec<i64>, usize> = HashMap::new();
    let mut modes: Option<(usize, usize)> = None; // (modes, line of the first entry)
    let mut max: Vec<i64> = Vec::new();
    for (number, raw) in lines(text) {
        let content = raw.split('#').next().unwrap_or("");
        let line = line_of(number, content);
        if line.fields.is_empty() {
            continue;
        }
        let n = line.fields.len() - 1;
        let (m, first_line) = match modes {
            Some(m) => m,
            None => {
                if n == 0 {
                    return Err(TensorIoError::new(
                        number,
                        line.end_column,
                        "an entry needs at least one index and a value",
                    ));
                }
                if let Some(d) = dims {
                    if d.len() != n {
                        return Err(TensorIoError::new(
                            number,
                            line.fields[0].column,
                            format!(
                                "this entry has {n} indices but the tensor has {} modes",
                                d.len()
                            ),
                        ));
                    }
                }
                modes = Some((n, number));
                max = vec![0; n];
                (n, number)
            }
        };
        if n != m {
            let column = match line.fields.get(m + 1) {
                Some(extra) => extra.column,
                None => line.end_column,
            };
            return Err(TensorIoError::new(
                number,
                column,
                format!(
                    "this entry has {n} indices and a value but the first entry (line {first_line}) has {m}"
                ),
            ));
        }
        let mut index = Vec::with_capacity(m);
        for (k, f) in line.fields[..m].iter().enumerate() {
            let what = format!("index of mode {}", k + 1);
            let extent = dims.map(|d| d[k]);
            let i = parse_index(*f, number, &what, extent, "FROSTT")?;
            max[k] = max[k].max(i + 1);
            index.push(i);
        }
        let value = parse_real(line.fields[m], number, "value")?;
        add_entry(&mut entries, &mut seen, index, value);
    }
    let dims = match dims {
        Some(d) => d.to_vec(),
        None => max,
    };
    Ok(Coordinates { dims, entries })
}

// ---------------------------------------------------------------------------
// Writers

/// The shortest text that parses back to exactly `v` (finite `v`).
pub fn format_real(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 || (1e-5..1e16).contains(&a) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

fn check(c: &Coordinates) -> Result<(), WriteError> {
    for (k, (index, value)) in c.entries.iter().enumerate() {
        if index.len() != c.dims.len() {
            return Err(WriteError::EntryOrder {
                entry: k,
                expected: c.dims.len(),
                found: index.len(),
            });
        }
        for (dim, (&i, &extent)) in index.iter().zip(&c.dims).enumerate() {
            if i < 0 || i >= extent {
                return Err(WriteError::Index {
                    entry: k,
                    dim,
                    index: i,
                    extent,
                });
            }
        }
        if !value.is_finite() {
            return Err(WriteError::NonFinite {
                entry: k,
                value: *value,
            });
        }
    }
    Ok(())
}

/// Writes a matrix as `%%MatrixMarket matrix coordinate real general`, the
/// entries in their order, 1-based, values printed exactly ([`format_real`]).
pub fn write_mtx(c: &Coordinates, out: &mut impl Write) -> Result<(), WriteError> {
    if c.dims.len() != 2 {
        return Err(WriteError::Order {
            format: "Matrix Market",
            expected: 2,
            found: c.dims.len(),
        });
    }
    check(c)?;
    let mut s = String::new();
    s.push_str("%%MatrixMarket matrix coordinate real general\n");
    let _ = writeln!(s, "{} {} {}", c.dims[0], c.dims[1], c.entries.len());
    for (index, value) in &c.entries {
        let _ = writeln!(
            s,
            "{} {} {}",
            index[0] + 1,
            index[1] + 1,
            format_real(*value)
        );
        if s.len() > 1 << 16 {
            out.write_all(s.as_bytes())?;
            s.clear();
        }
    }
    out.write_all(s.as_bytes())?;
    Ok(())
}

/// Writes a tensor in FROSTT form: one line per entry, 1-based indices then
/// the value (printed exactly). The extents are not stored in the file;
/// [`read_tns`] gets them back when the caller passes them.
pub fn write_tns(c: &Coordinates, out: &mut impl Write) -> Result<(), WriteError> {
    check(c)?;
    let mut s = String::new();
    for (index, value) in &c.entries {
        for i in index {
            let _ = write!(s, "{} ", i + 1);
        }
        s.push_str(&format_real(*value));
        s.push('\n');
        if s.len() > 1 << 16 {
            out.write_all(s.as_bytes())?;
            s.clear();
        }
    }
    out.write_all(s.as_bytes())?;
    Ok(())
}

/// Reads a `.mtx` or `.tns` file, chosen by its extension (`dims` applies
/// to `.tns` only). Content errors display as `PATH:LINE:COL: message`.
pub fn read_file(path: &Path, dims: Option<&[i64]>) -> Result<Coordinates, FileError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let tns = match ext.as_deref() {
        Some("mtx") => false,
        Some("tns") => true,
        _ => {
            return Err(FileError::UnknownKind {
                path: path.to_path_buf(),
            })
        }
    };
    let bytes = std::fs::read(path).map_err(|source| FileError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let result = if tns {
        read_tns(&bytes, dims)
    } else {
        read_mtx(&bytes)
    };
    result.map_err(|error| FileError::Parse {
        path: path.to_path_buf(),
        error,
    })
}

#[cfg(test)]
mod tests {
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
