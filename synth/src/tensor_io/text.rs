//! The text of coordinate files: lines and whitespace-separated fields with
//! their columns, and the numbers in them.
//!
//! Two paths read a line. The fast one ([`Lines`], [`fast_uint`],
//! [`fast_real`]) works on bytes and accepts only the plain form of a field
//! (ASCII digits, a number `fast-float2` reads up to a separator); on
//! anything else the caller hands the line to the careful one ([`line_of`],
//! [`parse_index`], [`parse_real`]), which accepts every spelling the
//! module documentation allows and names the line, the column (in
//! characters) and the reason of every error. So the fast path decides
//! nothing the careful one would decide differently.

use super::TensorIoError;

/// A whitespace-separated field of a line, with its 1-based column.
#[derive(Clone, Copy, Debug)]
pub(super) struct Field<'a> {
    pub(super) column: usize,
    pub(super) text: &'a str,
}

/// One line: its number, its fields, and the column just past its end.
pub(super) struct Line<'a> {
    pub(super) number: usize,
    pub(super) fields: Vec<Field<'a>>,
    pub(super) end_column: usize,
}

/// Decodes the bytes as UTF-8; an invalid sequence is located.
pub(super) fn decode(bytes: &[u8]) -> Result<&str, TensorIoError> {
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
pub(super) fn split_fields(text: &str) -> (Vec<Field<'_>>, usize) {
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
pub(super) fn end_position(text: &str) -> (usize, usize) {
    let line = text.matches('\n').count() + 1;
    let last = text.rsplit('\n').next().unwrap_or("");
    (line, last.chars().count() + 1)
}

pub(super) fn line_of<'a>(number: usize, text: &'a str) -> Line<'a> {
    let (fields, end_column) = split_fields(text);
    Line {
        number,
        fields,
        end_column,
    }
}

/// What a refusal of a non-finite value adds: how to have it accepted.
pub const NONFINITE_HINT: &str =
    "NaN and infinities are accepted with --allow-nonfinite, allow_nonfinite in the library and \
     Python";

/// Parses a real number: Rust's syntax, plus a Fortran `D` exponent. A
/// non-finite value (`nan`, `inf`, `infinity`, any case, signed, or a
/// literal beyond the range of a double) is accepted only when
/// `allow_nonfinite` says so.
pub(super) fn parse_real(
    f: Field<'_>,
    line: usize,
    what: &str,
    allow_nonfinite: bool,
) -> Result<f64, TensorIoError> {
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
        Some(v) if v.is_finite() || allow_nonfinite => Ok(v),
        Some(_) => Err(TensorIoError::new(
            line,
            f.column,
            format!("{what} `{t}` is not a finite number ({NONFINITE_HINT})"),
        )),
        None => Err(TensorIoError::new(
            line,
            f.column,
            format!("{what} `{t}` is not a number"),
        )),
    }
}

/// Parses an integer field.
pub(super) fn parse_int(f: Field<'_>, line: usize, what: &str) -> Result<i64, TensorIoError> {
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
pub(super) fn parse_count(f: Field<'_>, line: usize, what: &str) -> Result<i64, TensorIoError> {
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
pub(super) fn parse_index(
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

/// A capacity hint that never trusts a huge announced count.
pub(super) fn capacity(announced: i64) -> usize {
    usize::try_from(announced).unwrap_or(0).min(1 << 20)
}

/// The lines of a file's bytes, one at a time, numbered from a given line.
#[derive(Clone)]
pub(super) struct Lines<'a> {
    bytes: &'a [u8],
    pos: usize,
    number: usize,
}

impl<'a> Lines<'a> {
    /// The lines of `bytes` from offset `pos`, the first numbered `number`.
    pub(super) fn new(bytes: &'a [u8], pos: usize, number: usize) -> Self {
        Lines { bytes, pos, number }
    }

    /// The bytes not read yet.
    pub(super) fn rest(&self) -> &'a [u8] {
        &self.bytes[self.pos.min(self.bytes.len())..]
    }

    /// Skips the rest: no line is left.
    pub(super) fn finish(&mut self) {
        self.pos = self.bytes.len();
    }
}

/// Each line's number and bytes (without its `\n`); a final newline does
/// not start an empty line.
impl<'a> Iterator for Lines<'a> {
    type Item = (usize, &'a [u8]);

    fn next(&mut self) -> Option<(usize, &'a [u8])> {
        if self.pos >= self.bytes.len() {
            return None;
        }
        let rest = &self.bytes[self.pos..];
        let len = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        let number = self.number;
        self.pos += len + 1;
        self.number += 1;
        Some((number, &rest[..len]))
    }
}

/// The line's text. Every line read as text was checked to be UTF-8
/// first: the header's lines with the header, a careful body's with the
/// whole file, and the lines the fast path read are ASCII.
pub(super) fn as_text(line: &[u8]) -> &str {
    std::str::from_utf8(line).unwrap_or("")
}

/// Whether `b` separates fields (ASCII whitespace, as `split_fields` says).
pub(super) fn is_space(b: u8) -> bool {
    b.is_ascii_whitespace()
}

/// Skips separators from `pos`; returns the first position that is not one.
pub(super) fn skip_spaces(line: &[u8], mut pos: usize) -> usize {
    while pos < line.len() && is_space(line[pos]) {
        pos += 1;
    }
    pos
}

/// Whether `pos` is the end of the line or a separator (the end of a field).
fn field_ends(line: &[u8], pos: usize) -> bool {
    pos == line.len() || is_space(line[pos])
}

/// A field of plain decimal digits at `pos` (no sign, at most 18 digits, so
/// it cannot overflow), followed by a separator or the end of the line:
/// its value and the position after it; `None` for anything else.
pub(super) fn fast_uint(line: &[u8], pos: usize) -> Option<(i64, usize)> {
    let mut value: i64 = 0;
    let mut end = pos;
    while end < line.len() && line[end].is_ascii_digit() {
        if end - pos == 18 {
            return None;
        }
        value = value * 10 + i64::from(line[end] - b'0');
        end += 1;
    }
    (end > pos && field_ends(line, end)).then_some((value, end))
}

/// A field at `pos` that is an optional `-` and plain digits ([`fast_uint`]).
pub(super) fn fast_int(line: &[u8], pos: usize) -> Option<(i64, usize)> {
    match line.get(pos) {
        Some(b'-') => fast_uint(line, pos + 1).map(|(v, end)| (-v, end)),
        _ => fast_uint(line, pos),
    }
}

/// A finite real at `pos` in the syntax `fast-float2` reads, followed by a
/// separator or the end of the line; `None` otherwise (words such as `inf`,
/// Fortran exponents and garbage go to [`parse_real`]).
pub(super) fn fast_real(line: &[u8], pos: usize) -> Option<(f64, usize)> {
    let first = *line.get(pos)?;
    // Rust's parser, the reference, reads these forms; fast-float2 reads
    // them too but also words (`inf`, `nan`), which the check below and
    // the careful path handle.
    if !(first.is_ascii_digit() || first == b'-' || first == b'+' || first == b'.') {
        return None;
    }
    let (v, n) = fast_float2::parse_partial::<f64, _>(&line[pos..]).ok()?;
    let end = pos + n;
    (v.is_finite() && field_ends(line, end)).then_some((v, end))
}
