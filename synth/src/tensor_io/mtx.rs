//! The Matrix Market reader: banner, size line, and the coordinate or
//! array body (see the module documentation of [`super`]).

use std::collections::HashMap;
use std::mem::MaybeUninit;

use super::duplicates::{has_repeated_keys, merge_duplicates, Overflow};
use super::text::{
    as_text, capacity, decode, end_position, fast_int, fast_real, fast_uint, is_space, line_of,
    parse_count, parse_index, parse_int, parse_real, skip_spaces, Field, Line, Lines,
};
use super::{CooTensor, CooValue, IndexInt, ReadOptions, ReadTensor, Symmetry, TensorIoError};

/// A type a Matrix Market body's values are read at: `f64` for `real`
/// (and `pattern`) files, `i64` for `integer` ones, exactly.
trait MtxValue: CooValue {
    /// The value at `pos` in its plain form ([`super::text`]'s fast path).
    fn fast(line: &[u8], pos: usize) -> Option<(Self, usize)>;
    /// The value of a field, or where and why it is not one (a real that
    /// is not finite is one only when `allow_nonfinite` says so).
    fn careful(f: Field<'_>, line: usize, allow_nonfinite: bool) -> Result<Self, TensorIoError>;
}

impl MtxValue for f64 {
    fn fast(line: &[u8], pos: usize) -> Option<(f64, usize)> {
        fast_real(line, pos)
    }
    fn careful(f: Field<'_>, line: usize, allow_nonfinite: bool) -> Result<f64, TensorIoError> {
        parse_real(f, line, "value", allow_nonfinite)
    }
}

impl MtxValue for i64 {
    fn fast(line: &[u8], pos: usize) -> Option<(i64, usize)> {
        fast_int(line, pos)
    }
    fn careful(f: Field<'_>, line: usize, _: bool) -> Result<i64, TensorIoError> {
        parse_int(f, line, "integer value")
    }
}

/// Refuses a value of a skew-symmetric file whose negation (its mirror's
/// value) its type does not hold (`-2^63` in an `integer` file).
fn mirrorable<V: CooValue>(
    v: V,
    kind: Kind,
    line: usize,
    column: usize,
) -> Result<V, TensorIoError> {
    if kind == Kind::Skew && v.negated().is_none() {
        return Err(err(
            line,
            column,
            format!(
                "value {v:?} of a skew-symmetric file has a mirror, its negation, beyond the \
                 range of {}",
                V::RANGE
            ),
        ));
    }
    Ok(v)
}

/// The banner's field: what a value is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field3 {
    Real,
    Integer,
    Pattern,
}

/// The banner's symmetry.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    General,
    Symmetric,
    Skew,
}

/// What the banner says.
struct Banner {
    array: bool,
    field: Field3,
    kind: Kind,
}

const BANNER_HELP: &str = "`%%MatrixMarket matrix coordinate|array real|integer|pattern \
     general|symmetric|skew-symmetric`";

fn err(line: usize, column: usize, message: impl Into<String>) -> TensorIoError {
    TensorIoError::new(line, column, message)
}

/// A banner word that is none of those expected.
fn unknown(f: Field<'_>, what: &str, expected: &str) -> TensorIoError {
    err(
        1,
        f.column,
        format!("unknown {what} `{}`; expected {expected}", f.text),
    )
}

/// Reads the banner line.
fn read_banner(text: &str) -> Result<Banner, TensorIoError> {
    let line = line_of(1, text);
    let first = line.fields.first().copied();
    if !first.is_some_and(|f| f.text.eq_ignore_ascii_case("%%MatrixMarket")) {
        return Err(err(
            1,
            first.map_or(1, |f| f.column),
            format!("the file does not start with the Matrix Market banner {BANNER_HELP}"),
        ));
    }
    let word = |k: usize, what: &str| -> Result<Field<'_>, TensorIoError> {
        line.fields.get(k).copied().ok_or_else(|| {
            err(
                1,
                line.end_column,
                format!("the banner ends before the {what}; expected {BANNER_HELP}"),
            )
        })
    };
    let object = word(1, "object (`matrix`)")?;
    if !object.text.eq_ignore_ascii_case("matrix") {
        return Err(err(
            1,
            object.column,
            format!(
                "unsupported Matrix Market object `{}`; only `matrix` is supported",
                object.text
            ),
        ));
    }
    let format = word(2, "format (`coordinate` or `array`)")?;
    let array = match format.text.to_ascii_lowercase().as_str() {
        "coordinate" => false,
        "array" => true,
        _ => {
            return Err(unknown(
                format,
                "Matrix Market format",
                "`coordinate` or `array`",
            ))
        }
    };
    let f = word(3, "field (real, integer or pattern)")?;
    let field =
        match f.text.to_ascii_lowercase().as_str() {
            "real" | "double" => Field3::Real,
            "integer" => Field3::Integer,
            "pattern" if array => {
                return Err(err(
                    1,
                    f.column,
                    "a dense `array` file has a value for every position; `pattern` is for \
                 `coordinate` files",
                ))
            }
            "pattern" => Field3::Pattern,
            "complex" => return Err(err(
                1,
                f.column,
                "complex matrices are not supported; the field must be real, integer or pattern",
            )),
            _ => return Err(unknown(f, "field", "real, integer or pattern")),
        };
    let symmetry = word(4, "symmetry (general, symmetric or skew-symmetric)")?;
    let kind =
        match symmetry.text.to_ascii_lowercase().as_str() {
            "general" => Kind::General,
            "symmetric" => Kind::Symmetric,
            "skew-symmetric" if field == Field3::Pattern => {
                return Err(err(
                    1,
                    symmetry.column,
                    "a `pattern` matrix cannot be skew-symmetric: it has no values to negate",
                ))
            }
            "skew-symmetric" => Kind::Skew,
            "hermitian" => return Err(err(
                1,
                symmetry.column,
                "hermitian matrices are not supported (they are complex); the symmetry must be \
                 general, symmetric or skew-symmetric",
            )),
            _ => {
                return Err(unknown(
                    symmetry,
                    "symmetry",
                    "general, symmetric or skew-symmetric",
                ))
            }
        };
    if let Some(extra) = line.fields.get(5) {
        return Err(err(
            1,
            extra.column,
            format!("unexpected `{}` after the banner's symmetry", extra.text),
        ));
    }
    Ok(Banner { array, field, kind })
}

/// Whether a line is a comment (`%` first) or blank.
fn skipped(line: &[u8]) -> bool {
    let p = skip_spaces(line, 0);
    p == line.len() || line[p] == b'%'
}

/// The size line: the extents and, for coordinates, the number of entries.
struct Size {
    line: usize,
    rows: i64,
    cols: i64,
    /// Entries (coordinate) or values (array) the file announces.
    announced: i64,
}

fn read_size(lines: &mut Lines<'_>, text: &str, banner: &Banner) -> Result<Size, TensorIoError> {
    let size = loop {
        match lines.next() {
            Some((_, raw)) if skipped(raw) => continue,
            Some((number, raw)) => break line_of(number, as_text(raw)),
            None => {
                let (line, column) = end_position(text);
                let wanted = if banner.array {
                    "`rows columns`"
                } else {
                    "`rows columns entries`"
                };
                return Err(err(
                    line,
                    column,
                    format!("the file ends before the size line ({wanted})"),
                ));
            }
        }
    };
    let names: &[&str] = if banner.array {
        &["number of rows", "number of columns"]
    } else {
        &["number of rows", "number of columns", "number of entries"]
    };
    let mut counts = [0i64; 3];
    for (k, name) in names.iter().enumerate() {
        let f = size.fields.get(k).copied().ok_or_else(|| {
            let needs = if banner.array {
                "2 fields (rows, columns)"
            } else {
                "3 fields (rows, columns, entries)"
            };
            err(
                size.number,
                size.end_column,
                format!("the size line needs {needs} but has {}", size.fields.len()),
            )
        })?;
        counts[k] = parse_count(f, size.number, name)?;
    }
    if let Some(extra) = size.fields.get(names.len()) {
        let (after, kind) = if banner.array {
            ("columns", "an array matrix has 2")
        } else {
            ("entries", "a coordinate matrix has 3")
        };
        return Err(err(
            size.number,
            extra.column,
            format!(
                "unexpected `{}` after the number of {after}; the size line of {kind} fields",
                extra.text
            ),
        ));
    }
    let [rows, cols, mut announced] = counts;
    if banner.kind != Kind::General && rows != cols {
        let what = if banner.kind == Kind::Symmetric {
            "symmetric"
        } else {
            "skew-symmetric"
        };
        return Err(err(
            size.number,
            size.fields[0].column,
            format!("a {what} matrix must be square, but this one is {rows} × {cols}"),
        ));
    }
    if banner.array {
        // The values the body lists: all, the lower triangle with or
        // without the diagonal, column by column.
        let (r, c) = (i128::from(rows), i128::from(cols));
        let values = match banner.kind {
            Kind::General => r * c,
            Kind::Symmetric => r * (r + 1) / 2,
            Kind::Skew => r * (r - 1).max(0) / 2,
        };
        announced = i64::try_from(values).map_err(|_| {
            err(
                size.number,
                size.fields[0].column,
                format!("a dense {rows} × {cols} matrix is too large to read"),
            )
        })?;
    }
    Ok(Size {
        line: size.number,
        rows,
        cols,
        announced,
    })
}

/// One coordinate entry on the fast path (see [`super::text`]): plain
/// indices in range and a plain value, or `None`.
fn fast_entry<V: MtxValue>(
    raw: &[u8],
    field: Field3,
    rows: i64,
    cols: i64,
) -> Option<(i64, i64, V)> {
    let p = skip_spaces(raw, 0);
    let (i, p) = fast_uint(raw, p)?;
    let (j, p) = fast_uint(raw, skip_spaces(raw, p))?;
    if !(1..=rows).contains(&i) || !(1..=cols).contains(&j) {
        return None;
    }
    let p = skip_spaces(raw, p);
    let (v, p) = match field {
        Field3::Pattern => (V::ONE, p),
        Field3::Real | Field3::Integer => V::fast(raw, p)?,
    };
    (skip_spaces(raw, p) == raw.len()).then_some((i - 1, j - 1, v))
}

/// One coordinate entry on the careful path: the entry, or where and why
/// it is malformed.
fn careful_entry<V: MtxValue>(
    line: &Line<'_>,
    banner: &Banner,
    rows: i64,
    cols: i64,
    allow_nonfinite: bool,
) -> Result<(i64, i64, V), TensorIoError> {
    let field = banner.field;
    let number = line.number;
    let layout = if field == Field3::Pattern {
        "`row column`"
    } else {
        "`row column value`"
    };
    let missing = |what: &str| {
        err(
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
    let (value, wanted) = match field {
        Field3::Pattern => (V::ONE, 2),
        Field3::Real | Field3::Integer => {
            let vf = line
                .fields
                .get(2)
                .copied()
                .ok_or_else(|| missing("value"))?;
            let v = V::careful(vf, number, allow_nonfinite)?;
            (mirrorable(v, banner.kind, number, vf.column)?, 3)
        }
    };
    if let Some(extra) = line.fields.get(wanted) {
        return Err(err(
            number,
            extra.column,
            format!("unexpected field `{}`: an entry is {layout}", extra.text),
        ));
    }
    Ok((i, j, value))
}

/// One value of an array body, fast or careful.
fn array_value<V: MtxValue>(
    raw: &[u8],
    number: usize,
    kind: Kind,
    allow_nonfinite: bool,
) -> Result<V, TensorIoError> {
    let p = skip_spaces(raw, 0);
    if let Some((v, e)) = V::fast(raw, p) {
        if skip_spaces(raw, e) == raw.len() {
            return Ok(v);
        }
    }
    let line = line_of(number, as_text(raw));
    let first = line.fields[0];
    let v = V::careful(first, number, allow_nonfinite)?;
    let v = mirrorable(v, kind, number, first.column)?;
    if let Some(extra) = line.fields.get(1) {
        return Err(err(
            number,
            extra.column,
            format!(
                "unexpected field `{}`: a line of an array file holds one value",
                extra.text
            ),
        ));
    }
    Ok(v)
}

/// The parsed entries before symmetric expansion, their indices at `I`'s
/// width (which the extents fit).
struct Body<I, V> {
    rows: Vec<I>,
    cols: Vec<I>,
    values: Vec<V>,
}

impl<I: IndexInt, V: CooValue> Body<I, V> {
    fn with_capacity(n: usize) -> Body<I, V> {
        Body {
            rows: Vec::with_capacity(n),
            cols: Vec::with_capacity(n),
            values: Vec::with_capacity(n),
        }
    }

    fn push(&mut self, i: i64, j: i64, v: V) {
        self.rows.push(I::from_i64(i));
        self.cols.push(I::from_i64(j));
        self.values.push(v);
    }
}

/// The next line that lists an entry or value (comments and blank lines
/// skipped), or `None` at the end; an error when `read` already is the
/// number the size line announced.
fn next_listed<'a>(
    lines: &mut Lines<'a>,
    read: i64,
    size: &Size,
    what: &str,
) -> Result<Option<(usize, &'a [u8])>, TensorIoError> {
    for (number, raw) in lines.by_ref() {
        if skipped(raw) {
            continue;
        }
        if read == size.announced {
            let column = line_of(number, as_text(raw)).fields[0].column;
            return Err(err(
                number,
                column,
                format!(
                    "more {what} than the {} announced on line {}",
                    size.announced, size.line
                ),
            ));
        }
        return Ok(Some((number, raw)));
    }
    Ok(None)
}

fn too_few(text: &str, read: i64, what: &str, announced: i64, size_line: usize) -> TensorIoError {
    let (line, column) = end_position(text);
    err(
        line,
        column,
        format!(
            "the file ends after {read} of the {announced} {what} announced on line {size_line}"
        ),
    )
}

/// The smallest body [`coordinate_body`] splits between two threads.
const PARALLEL_BYTES: usize = 1 << 20;

/// The entries of a coordinate body, in file order. A large body is read
/// in two halves on two threads ([`fast_half`]) straight into one block
/// of the announced size: the second half's entry lines are counted
/// first, so it knows where its entries start. When either half has a
/// line the fast path does not read, or the counts are not the announced
/// one, the whole body is read again line by line, which finds the first
/// problem and says where it is.
fn coordinate_body<I: IndexInt, V: MtxValue>(
    lines: &mut Lines<'_>,
    file: &[u8],
    banner: &Banner,
    size: &Size,
    hint: usize,
    allow_nonfinite: bool,
) -> Result<Body<I, V>, TensorIoError> {
    let rest = lines.rest();
    let announced = usize::try_from(size.announced).unwrap_or(usize::MAX);
    // No entry line is shorter than 4 bytes (`1 1\n`): a count the body
    // cannot hold is not allocated for (the careful path reports it).
    if rest.len() >= PARALLEL_BYTES && announced <= hint {
        let middle = rest.len() / 2;
        let cut = memchr::memchr(b'\n', &rest[middle..]).map_or(rest.len(), |k| middle + k + 1);
        let (first, second) = rest.split_at(cut);
        if let Some(body) = two_halves(first, second, banner, size, announced) {
            lines.finish();
            return Ok(body);
        }
    }
    // The careful path checks the whole file to be UTF-8 first ([`Header`]).
    careful_body(lines, decode(file)?, banner, size, hint, allow_nonfinite)
}

/// [`coordinate_body`]'s two threads: `first` read into the start of one
/// block of `announced` entries and `second` into its end, where its lines
/// (counted first: newlines, a trailing blank line not counted) start;
/// `None` unless each half fills its part exactly (a comment or blank line
/// inside the second half, say, sends the body to the careful path).
fn two_halves<I: IndexInt, V: MtxValue>(
    first: &[u8],
    second: &[u8],
    banner: &Banner,
    size: &Size,
    announced: usize,
) -> Option<Body<I, V>> {
    let last = second.iter().rposition(|&b| !is_space(b));
    let second = &second[..last.map_or(0, |k| k + 1)];
    let wanted = if second.is_empty() {
        0
    } else {
        second.iter().filter(|&&b| b == b'\n').count() + 1
    };
    let start = announced.checked_sub(wanted)?;
    let mut body = Body::with_capacity(announced);
    let (rows_a, rows_b) = body.rows.spare_capacity_mut()[..announced].split_at_mut(start);
    let (cols_a, cols_b) = body.cols.spare_capacity_mut()[..announced].split_at_mut(start);
    let (values_a, values_b) = body.values.spare_capacity_mut()[..announced].split_at_mut(start);
    let (earlier, later) = std::thread::scope(|scope| {
        let later =
            scope.spawn(|| fast_half(second, banner, size, Slots::new(rows_b, cols_b, values_b)));
        let earlier = fast_half(first, banner, size, Slots::new(rows_a, cols_a, values_a));
        (earlier, later.join().ok().flatten())
    });
    if earlier != Some(start) || later != Some(wanted) {
        return None;
    }
    // SAFETY: the two halves wrote every one of the first `announced`
    // slots of each column: `start` and `wanted` of them, in order, which
    // `fast_half` counted.
    unsafe {
        body.rows.set_len(announced);
        body.cols.set_len(announced);
        body.values.set_len(announced);
    }
    Some(body)
}

/// Room for entries that [`fast_half`] fills in order.
struct Slots<'a, I, V> {
    rows: &'a mut [MaybeUninit<I>],
    cols: &'a mut [MaybeUninit<I>],
    values: &'a mut [MaybeUninit<V>],
    len: usize,
}

impl<'a, I: IndexInt, V: CooValue> Slots<'a, I, V> {
    fn new(
        rows: &'a mut [MaybeUninit<I>],
        cols: &'a mut [MaybeUninit<I>],
        values: &'a mut [MaybeUninit<V>],
    ) -> Self {
        Slots {
            rows,
            cols,
            values,
            len: 0,
        }
    }

    /// Writes the next entry; `None` when there is no room left.
    fn push(&mut self, i: i64, j: i64, v: V) -> Option<()> {
        let k = self.len;
        self.rows.get_mut(k)?.write(I::from_i64(i));
        self.cols.get_mut(k)?.write(I::from_i64(j));
        self.values.get_mut(k)?.write(v);
        self.len += 1;
        Some(())
    }
}

/// The entries of the lines in `bytes` written in order into `slots` when
/// the fast path reads every one (comments and blank lines skipped; no
/// skew-symmetric diagonal) and they fit: how many; `None` otherwise.
fn fast_half<I: IndexInt, V: MtxValue>(
    bytes: &[u8],
    banner: &Banner,
    size: &Size,
    mut slots: Slots<'_, I, V>,
) -> Option<usize> {
    for (_, raw) in Lines::new(bytes, 0, 1) {
        if skipped(raw) {
            continue;
        }
        let (i, j, v) = fast_entry(raw, banner.field, size.rows, size.cols)?;
        if banner.kind == Kind::Skew && i == j {
            return None;
        }
        slots.push(i, j, v)?;
    }
    Some(slots.len)
}

/// [`coordinate_body`] line by line, each line the fast path does not
/// read by the careful one.
fn careful_body<I: IndexInt, V: MtxValue>(
    lines: &mut Lines<'_>,
    text: &str,
    banner: &Banner,
    size: &Size,
    hint: usize,
    allow_nonfinite: bool,
) -> Result<Body<I, V>, TensorIoError> {
    let mut body =
        Body::with_capacity(capacity(size.announced).max(hint.min(size.announced as usize)));
    let mut read: i64 = 0;
    while let Some((number, raw)) = next_listed(lines, read, size, "entries")? {
        let (i, j, v) = match fast_entry(raw, banner.field, size.rows, size.cols) {
            Some(e) => e,
            None => {
                let line = line_of(number, as_text(raw));
                careful_entry(&line, banner, size.rows, size.cols, allow_nonfinite)?
            }
        };
        if banner.kind == Kind::Skew && i == j {
            return Err(err(
                number,
                line_of(number, as_text(raw)).fields[0].column,
                format!(
                    "entry ({}, {}) is on the diagonal, which a skew-symmetric matrix has zero \
                     and its file does not list",
                    i + 1,
                    j + 1
                ),
            ));
        }
        body.push(i, j, v);
        read += 1;
    }
    if read < size.announced {
        return Err(too_few(text, read, "entries", size.announced, size.line));
    }
    Ok(body)
}

/// The nonzero values of an array body (column-major; a symmetric file
/// lists the lower triangle, a skew-symmetric one without the diagonal).
fn array_body<I: IndexInt, V: MtxValue>(
    lines: &mut Lines<'_>,
    text: &str,
    banner: &Banner,
    size: &Size,
    allow_nonfinite: bool,
) -> Result<Body<I, V>, TensorIoError> {
    let mut body = Body::with_capacity(capacity(size.announced));
    let (mut i, mut j) = (0i64, 0i64);
    let first_row = |j: i64| match banner.kind {
        Kind::General => 0,
        Kind::Symmetric => j,
        Kind::Skew => j + 1,
    };
    i = i.max(first_row(0));
    let mut read: i64 = 0;
    while let Some((number, raw)) = next_listed(lines, read, size, "values")? {
        let v: V = array_value(raw, number, banner.kind, allow_nonfinite)?;
        // Explicit zeros of a dense matrix are not entries.
        if !v.is_zero() {
            body.push(i, j, v);
        }
        read += 1;
        i += 1;
        while i >= size.rows && j < size.cols {
            j += 1;
            i = first_row(j);
        }
    }
    if read < size.announced {
        return Err(too_few(text, read, "values", size.announced, size.line));
    }
    Ok(body)
}

/// The line and first column of each of the entries `wanted` (numbered
/// in file order) of a coordinate body that starts at `lines`: only for
/// error messages, so a second pass over the file is fine.
fn entry_positions(lines: Lines<'_>, wanted: &[usize]) -> Vec<(usize, usize)> {
    let mut found = vec![(0, 1); wanted.len()];
    let mut entry = 0;
    for (number, raw) in lines {
        if skipped(raw) {
            continue;
        }
        for (k, &w) in wanted.iter().enumerate() {
            if w == entry {
                found[k] = (number, line_of(number, as_text(raw)).fields[0].column);
            }
        }
        entry += 1;
    }
    found
}

/// Sums the duplicates of a symmetric file's entries (by their position in
/// one triangle; a sum beyond the range of a double is refused, as in a
/// general file) and refuses an entry whose mirror the file also gives;
/// `body_start` is the first line of the body, to locate that error.
fn merge_symmetric<I: IndexInt, V: CooValue>(
    body: &mut Body<I, V>,
    n: i64,
    body_start: &Lines<'_>,
) -> Result<(), TensorIoError> {
    let fits = u64::try_from(n)
        .ok()
        .and_then(|m| m.checked_mul(m))
        .is_some();
    if fits {
        let (rows, cols) = (&body.rows, &body.cols);
        let key = |e: usize| {
            let (i, j): (i64, i64) = (rows[e].into(), cols[e].into());
            (i.max(j) * n + i.min(j)) as u64
        };
        if !has_repeated_keys(rows.len(), key) {
            return Ok(());
        }
    }
    // (triangle position) -> (kept position, entry number in the file)
    let mut seen: HashMap<(i64, i64), (usize, usize)> = HashMap::new();
    let mut kept = 0;
    for e in 0..body.values.len() {
        let (i, j): (i64, i64) = (body.rows[e].into(), body.cols[e].into());
        match seen.get(&(i.max(j), i.min(j))) {
            Some(&(at, first)) if body.rows[at].into() == i => {
                let (a, b) = (body.values[at], body.values[e]);
                let Some(sum) = a.sum(b) else {
                    let lines = body_start.clone().filter(|(_, raw)| !skipped(raw));
                    let overflow = Overflow {
                        at: vec![i, j],
                        entries: [first, e],
                        sum: a.shown_sum(b),
                        range: V::RANGE,
                    };
                    return Err(overflow.error(lines.map(|(n, _)| n)));
                };
                body.values[at] = sum;
            }
            Some(&(_, first)) => {
                let p = entry_positions(body_start.clone(), &[first, e]);
                return Err(err(
                    p[1].0,
                    p[1].1,
                    format!(
                        "entry ({}, {}) mirrors the entry ({}, {}) of line {}: a symmetric file \
                         lists one triangle, and expanding both would add them into both \
                         positions; keep one of them, or declare the matrix general",
                        i + 1,
                        j + 1,
                        j + 1,
                        i + 1,
                        p[0].0
                    ),
                ));
            }
            None => {
                seen.insert((i.max(j), i.min(j)), (kept, e));
                body.rows[kept] = body.rows[e];
                body.cols[kept] = body.cols[e];
                body.values[kept] = body.values[e];
                kept += 1;
            }
        }
    }
    body.rows.truncate(kept);
    body.cols.truncate(kept);
    body.values.truncate(kept);
    Ok(())
}

/// Reads a Matrix Market file into 64-bit columns (see the module
/// documentation of [`super`]), the values as doubles (an `integer`
/// file's exact up to 2^53; [`parse_at_width`] keeps them integers).
pub(super) fn parse(bytes: &[u8], options: &ReadOptions) -> Result<CooTensor, TensorIoError> {
    let header = Header::read(bytes)?;
    if header.banner.field == Field3::Integer {
        return header.body::<i64, i64>(options).map(CooTensor::as_reals);
    }
    header.body::<i64, f64>(options)
}

/// [`parse`], the columns at 32 bits when `options` asks for it
/// ([`ReadOptions::narrow`]) and both extents fit, an `integer` file's
/// values as `i64`, exactly.
pub(super) fn parse_at_width(
    bytes: &[u8],
    options: &ReadOptions,
) -> Result<ReadTensor, TensorIoError> {
    let header = Header::read(bytes)?;
    let fits = |n: i64| i32::try_from(n).is_ok();
    let narrow = options.narrow && fits(header.size.rows) && fits(header.size.cols);
    match (narrow, header.banner.field == Field3::Integer) {
        (true, false) => header.body(options).map(ReadTensor::Narrow),
        (false, false) => header.body(options).map(ReadTensor::Wide),
        (true, true) => header.body(options).map(ReadTensor::NarrowInt),
        (false, true) => header.body(options).map(ReadTensor::WideInt),
    }
}

/// What comes before a file's body: its banner and size line, and where
/// the body starts.
///
/// Only the header is checked to be UTF-8 here. The body's fast path reads
/// ASCII entries and nothing else; the careful path, which every other
/// body goes to, first checks the whole file. So a file
/// with a byte that is not UTF-8 is refused, located, as before, without
/// a pass over the bodies that the fast path reads.
struct Header<'a> {
    bytes: &'a [u8],
    banner: Banner,
    size: Size,
    body_start: Lines<'a>,
}

/// Where the header ends: after the banner line, the comment and blank
/// lines that follow it, and the size line (the end of the file when it
/// ends before).
fn header_end(bytes: &[u8]) -> usize {
    let mut lines = Lines::new(bytes, 0, 1);
    let _banner = lines.next();
    for (_, raw) in lines.by_ref() {
        if !skipped(raw) {
            break;
        }
    }
    bytes.len() - lines.rest().len()
}

impl<'a> Header<'a> {
    fn read(bytes: &'a [u8]) -> Result<Header<'a>, TensorIoError> {
        // The header's text: a prefix of the file, so an invalid byte in it
        // is located as in the whole file (and a file that ends in its
        // header is all header).
        let text = decode(&bytes[..header_end(bytes)])?;
        let mut lines = Lines::new(bytes, 0, 1);
        let banner_line = lines.next().map_or("", |(_, raw)| as_text(raw));
        let banner = read_banner(banner_line.strip_suffix('\r').unwrap_or(banner_line))?;
        let size = read_size(&mut lines, text, &banner)?;
        Ok(Header {
            bytes,
            banner,
            size,
            body_start: lines,
        })
    }

    /// The body's entries with indices at `I`'s width (which the extents
    /// fit): duplicates summed, symmetric files expanded as `options` say.
    fn body<I: IndexInt, V: MtxValue>(
        &self,
        options: &ReadOptions,
    ) -> Result<CooTensor<I, V>, TensorIoError> {
        let bytes = self.bytes;
        let (banner, size) = (&self.banner, &self.size);
        let allow = options.allow_nonfinite;
        let mut lines = self.body_start.clone();
        // No entry line is shorter than 4 bytes (`1 1\n`).
        let hint = bytes.len() / 4;
        let mut body = if banner.array {
            array_body::<I, V>(&mut lines, decode(bytes)?, banner, size, allow)?
        } else {
            coordinate_body::<I, V>(&mut lines, bytes, banner, size, hint, allow)?
        };
        let dims = vec![size.rows, size.cols];
        if banner.kind == Kind::General {
            let mut t = CooTensor {
                dims,
                indices: vec![body.rows, body.cols],
                values: body.values,
            };
            merge_duplicates(&mut t).map_err(|o| {
                let lines = self.body_start.clone();
                o.error(lines.filter(|(_, raw)| !skipped(raw)).map(|(n, _)| n))
            })?;
            return Ok(t);
        }
        if !banner.array {
            merge_symmetric(&mut body, size.rows, &self.body_start)?;
        }
        if options.symmetry == Symmetry::KeepTriangle {
            return Ok(CooTensor {
                dims,
                indices: vec![body.rows, body.cols],
                values: body.values,
            });
        }
        let skew = banner.kind == Kind::Skew;
        let mut out = Body::<I, V>::with_capacity(2 * body.values.len());
        for ((&i, &j), &v) in body.rows.iter().zip(&body.cols).zip(&body.values) {
            let (i, j): (i64, i64) = (i.into(), j.into());
            out.push(i, j, v);
            if i != j {
                // Every value of a skew file was checked to negate.
                let mirror = if skew { v.negated().unwrap_or(v) } else { v };
                out.push(j, i, mirror);
            }
        }
        Ok(CooTensor {
            dims,
            indices: vec![out.rows, out.cols],
            values: out.values,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A general real file of `n` distinct entries in a scrambled order,
    /// large enough for two threads, with `middle` inserted before the
    /// entry line `n * 3 / 4` (in the second half) and `tail` at the end.
    fn big_file(n: usize, announced: usize, middle: &str, tail: &str) -> (Vec<u8>, CooTensor) {
        let mut text =
            format!("%%MatrixMarket matrix coordinate real general\n1000 1000 {announced}\n");
        let mut t = CooTensor {
            dims: vec![1000, 1000],
            indices: vec![Vec::new(), Vec::new()],
            values: Vec::new(),
        };
        for e in 0..n {
            if e == n * 3 / 4 {
                text.push_str(middle);
            }
            let k = (e * 7919) % 1_000_000;
            let (i, j, v) = (k / 1000, k % 1000, (e % 97) as f64 + 0.25);
            text.push_str(&format!("{} {} {v}\n", i + 1, j + 1));
            t.indices[0].push(i as i64);
            t.indices[1].push(j as i64);
            t.values.push(v);
        }
        text.push_str(tail);
        assert!(text.len() > PARALLEL_BYTES, "two threads read it");
        (text.into_bytes(), t)
    }

    /// The halves of the body of `bytes` as [`coordinate_body`] cuts them.
    fn halves_of(bytes: &[u8]) -> Option<usize> {
        let h = Header::read(bytes).expect("a header");
        let rest = h.body_start.rest();
        let cut =
            rest.len() / 2 + memchr::memchr(b'\n', &rest[rest.len() / 2..]).expect("a line") + 1;
        let (first, second) = rest.split_at(cut);
        two_halves::<i64, f64>(first, second, &h.banner, &h.size, h.size.announced as usize)
            .map(|b| b.values.len())
    }

    #[test]
    fn two_threads_fill_one_block_and_read_what_one_would() {
        let n = 150_000;
        for (middle, tail, both) in [
            ("", "", true),
            ("", "\n \n\t\n", true),
            ("% a comment in the second half\n", "", false),
            ("\n", "", false),
        ] {
            let (bytes, want) = big_file(n, n, middle, tail);
            assert_eq!(halves_of(&bytes).is_some(), both, "{middle:?} {tail:?}");
            let got = parse(&bytes, &ReadOptions::default()).expect("a valid file");
            assert_eq!(got, want, "{middle:?} {tail:?}");
        }
        // A comment in the first half leaves the second's count right.
        let mut text = String::from_utf8(big_file(n, n, "", "").0).expect("text");
        text = text.replacen("\n1 ", "\n% first half\n1 ", 1);
        let bytes = text.into_bytes();
        assert_eq!(halves_of(&bytes), Some(n));
    }

    /// Only the header is checked to be UTF-8 before the body is read: a
    /// byte that is not, in a large body's entry, in a comment of its
    /// second half or after its last entry, sends the body to the careful
    /// path, which locates it as a check of the whole file did.
    #[test]
    fn bytes_that_are_not_utf8_are_located_in_any_body() {
        let n = 150_000;
        let (bytes, _) = big_file(n, n, "", "");
        let line_of = |at: usize| bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        // The third entry line's value, the last entry line's value.
        let starts: Vec<usize> = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', &bytes).map(|k| k + 1))
            .collect();
        for line in [5, n + 2] {
            let mut bad = bytes.clone();
            let at = starts[line - 1] + 2;
            bad[at] = 0xff;
            let e = parse(&bad, &ReadOptions::default()).expect_err("not UTF-8");
            assert_eq!(
                (e.line, e.column, e.message.as_str()),
                (line_of(at), 3, "the file is not valid UTF-8 text")
            );
        }
        let (mut bad, _) = big_file(n, n, "% caf\u{e9}\n", "% end\n");
        for tail in [bad.len() - 3, bad.len() - 1] {
            let mut b = bad.clone();
            b[tail] = 0xc3;
            let e = parse(&b, &ReadOptions::default()).expect_err("not UTF-8");
            assert_eq!(e.message, "the file is not valid UTF-8 text");
            assert_eq!(e.line, n + 4, "{tail}");
        }
        // A comment's valid UTF-8 (`é`) is read.
        bad.truncate(bad.len() - "% end\n".len());
        assert_eq!(
            parse(&bad, &ReadOptions::default()).map(|t| t.values.len()),
            Ok(n)
        );
        // In the header.
        let mut head = bytes.clone();
        head[3] = 0x80;
        let e = parse(&head, &ReadOptions::default()).expect_err("not UTF-8");
        assert_eq!((e.line, e.column), (1, 4));
    }

    #[test]
    fn two_threads_leave_wrong_counts_to_the_careful_path() {
        let n = 150_000;
        let (bytes, _) = big_file(n, n + 1, "", "");
        assert!(halves_of(&bytes).is_none());
        let e = parse(&bytes, &ReadOptions::default()).expect_err("one entry short");
        assert!(
            e.message.contains(&format!("after {n} of the {}", n + 1)),
            "{}",
            e.message
        );
        let (bytes, _) = big_file(n, n - 1, "", "");
        assert!(halves_of(&bytes).is_none());
        let e = parse(&bytes, &ReadOptions::default()).expect_err("one entry too many");
        assert_eq!(e.line, n + 2, "{}", e.message);
        assert!(e.message.contains("more entries than"), "{}", e.message);
        // A count far beyond what the body can hold is not allocated for.
        let (bytes, _) = big_file(n, usize::MAX / 64, "", "");
        assert!(parse(&bytes, &ReadOptions::default()).is_err());
    }

    #[test]
    fn narrow_columns_hold_what_wide_ones_do() {
        let narrow = ReadOptions {
            narrow: true,
            ..ReadOptions::default()
        };
        let keep = ReadOptions {
            symmetry: Symmetry::KeepTriangle,
            ..narrow.clone()
        };
        let (big, _) = big_file(150_000, 150_000, "", "");
        let texts: Vec<Vec<u8>> = vec![
            b"%%MatrixMarket matrix coordinate real general\n3 4 4\n1 1 1.5\n3 4 2\n1 1 -1\n2 3 7\n".to_vec(),
            b"%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n3 1 2\n2 2 3\n".to_vec(),
            b"%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 5\n3 2 -6\n".to_vec(),
            b"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n".to_vec(),
            b"%%MatrixMarket matrix array integer general\n2 2\n1\n0\n0\n4\n".to_vec(),
            big,
        ];
        for text in &texts {
            for options in [&narrow, &keep] {
                let wide = parse(text, options).expect("a valid file");
                match parse_at_width(text, options).expect("a valid file") {
                    ReadTensor::Narrow(t) => assert_eq!(t.widened(), wide),
                    ReadTensor::NarrowInt(t) => assert_eq!(t.widened().as_reals(), wide),
                    _ => panic!("the extents fit 32 bits"),
                }
            }
        }
        // Asked for 64 bits, or extents beyond 32 bits: wide.
        let wide = ReadOptions::default();
        assert!(matches!(
            parse_at_width(&texts[0], &wide),
            Ok(ReadTensor::Wide(_))
        ));
        let huge =
            b"%%MatrixMarket matrix coordinate real general\n3000000000 2 1\n2999999999 2 1\n";
        match parse_at_width(huge, &narrow).expect("a valid file") {
            ReadTensor::Wide(t) => assert_eq!(t.indices, vec![vec![2_999_999_998], vec![1]]),
            _ => panic!("3e9 rows do not fit 32 bits"),
        }
    }

    /// An `integer` file's values are read as `i64`, exactly, on both
    /// paths, in coordinate and array bodies, symmetric ones mirrored.
    #[test]
    fn integer_values_are_read_exactly() {
        let big = (1i64 << 60) + 1;
        let text = format!(
            "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 3\n2 1 {big}\n\
             3 1 +7\n3 2 -{big}\n"
        );
        let Ok(ReadTensor::WideInt(t)) = parse_at_width(text.as_bytes(), &ReadOptions::default())
        else {
            panic!("integer values");
        };
        assert_eq!(t.values, vec![big, -big, 7, -7, -big, big]);
        let many: String = (0..150_000)
            .map(|k| format!("{} {} {}\n", k % 1000 + 1, k / 1000 + 1, big + k))
            .collect();
        let text =
            format!("%%MatrixMarket matrix coordinate integer general\n1000 1000 150000\n{many}");
        assert!(text.len() > PARALLEL_BYTES, "two threads read it");
        let narrow = ReadOptions {
            narrow: true,
            ..ReadOptions::default()
        };
        let Ok(ReadTensor::NarrowInt(t)) = parse_at_width(text.as_bytes(), &narrow) else {
            panic!("integer values at 32-bit indices");
        };
        assert!(t.values.iter().zip(0..).all(|(&v, k)| v == big + k));
        let array = format!("%%MatrixMarket matrix array integer general\n2 1\n{big}\n0\n");
        let Ok(ReadTensor::WideInt(t)) = parse_at_width(array.as_bytes(), &ReadOptions::default())
        else {
            panic!("integer values");
        };
        assert_eq!((t.indices, t.values), (vec![vec![0], vec![0]], vec![big]));
    }
}
