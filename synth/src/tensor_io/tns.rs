//! The FROSTT reader (see the module documentation of [`super`]).

use super::duplicates::merge_duplicates;
use super::text::{
    as_text, decode, fast_real, fast_uint, line_of, parse_index, parse_real, skip_spaces, Line,
    Lines,
};
use super::{CooTensor, ReadOptions, TensorIoError};

/// The number of modes and the line of the first entry, which fixed it.
#[derive(Clone, Copy)]
struct Modes {
    count: usize,
    first_line: usize,
}

/// One entry on the fast path: `modes` plain 1-based indices within the
/// given extents, a plain value, nothing else but spaces or a comment.
fn fast_entry(raw: &[u8], modes: usize, dims: Option<&[i64]>, index: &mut [i64]) -> Option<f64> {
    let mut p = skip_spaces(raw, 0);
    for (k, slot) in index.iter_mut().enumerate().take(modes) {
        let (i, end) = fast_uint(raw, p)?;
        if i < 1 || dims.is_some_and(|d| i > d[k]) {
            return None;
        }
        *slot = i - 1;
        p = skip_spaces(raw, end);
    }
    let (v, end) = fast_real(raw, p)?;
    let end = skip_spaces(raw, end);
    (end == raw.len() || raw[end] == b'#').then_some(v)
}

/// One entry on the careful path; `modes` is fixed here by the first entry.
fn careful_entry(
    line: &Line<'_>,
    modes: &mut Option<Modes>,
    dims: Option<&[i64]>,
    index: &mut Vec<i64>,
    allow_nonfinite: bool,
) -> Result<f64, TensorIoError> {
    let number = line.number;
    let n = line.fields.len() - 1;
    let m = match *modes {
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
            let m = Modes {
                count: n,
                first_line: number,
            };
            *modes = Some(m);
            index.resize(n, 0);
            m
        }
    };
    if n != m.count {
        let column = match line.fields.get(m.count + 1) {
            Some(extra) => extra.column,
            None => line.end_column,
        };
        return Err(TensorIoError::new(
            number,
            column,
            format!(
                "this entry has {n} indices and a value but the first entry (line {}) has {}",
                m.first_line, m.count
            ),
        ));
    }
    for (k, f) in line.fields[..m.count].iter().enumerate() {
        let what = format!("index of mode {}", k + 1);
        let extent = dims.map(|d| d[k]);
        index[k] = parse_index(*f, number, &what, extent, "FROSTT")?;
    }
    parse_real(line.fields[m.count], number, "value", allow_nonfinite)
}

/// Reads a FROSTT file into columns; `options.dims`, when given, fixes the
/// extents (and so the number of modes); otherwise each extent is the
/// largest index of its mode.
pub(super) fn parse(bytes: &[u8], options: &ReadOptions) -> Result<CooTensor, TensorIoError> {
    decode(bytes)?;
    let dims = options.dims.as_deref();
    let mut modes: Option<Modes> = None;
    let mut index: Vec<i64> = Vec::new();
    let mut columns: Vec<Vec<i64>> = Vec::new();
    let mut values: Vec<f64> = Vec::new();
    for (number, raw) in Lines::new(bytes, 0, 1) {
        let p = skip_spaces(raw, 0);
        if p == raw.len() || raw[p] == b'#' {
            continue;
        }
        let fast = modes.and_then(|m| fast_entry(raw, m.count, dims, &mut index));
        let value = match fast {
            Some(v) => v,
            None => {
                let text = as_text(raw);
                let content = text.split('#').next().unwrap_or("");
                let line = line_of(number, content);
                if line.fields.is_empty() {
                    continue;
                }
                let v =
                    careful_entry(&line, &mut modes, dims, &mut index, options.allow_nonfinite)?;
                if columns.is_empty() {
                    // No entry line is shorter than 4 bytes (`1 1\n`).
                    let hint = bytes.len() / (2 * index.len() + 2).max(4);
                    columns = vec![Vec::with_capacity(hint); index.len()];
                    values.reserve(hint);
                }
                v
            }
        };
        for (column, &i) in columns.iter_mut().zip(&index) {
            column.push(i);
        }
        values.push(value);
    }
    if columns.is_empty() {
        let Some(d) = dims else {
            return Err(TensorIoError::new(
                1,
                1,
                "the file is empty: it lists no entries, and a FROSTT file tells its number of \
                 modes and its extents only by its entries",
            ));
        };
        columns = vec![Vec::new(); d.len()];
    }
    let dims = match dims {
        Some(d) => d.to_vec(),
        None => columns
            .iter()
            .map(|c| c.iter().copied().max().map_or(0, |m| m + 1))
            .collect(),
    };
    let mut t = CooTensor {
        dims,
        indices: columns,
        values,
    };
    merge_duplicates(&mut t).map_err(|o| {
        let lines = Lines::new(bytes, 0, 1);
        o.error(lines.filter(|(_, raw)| lists_entry(raw)).map(|(n, _)| n))
    })?;
    Ok(t)
}

/// Whether a line lists an entry (neither blank nor only a comment).
fn lists_entry(raw: &[u8]) -> bool {
    let p = skip_spaces(raw, 0);
    if p == raw.len() || raw[p] == b'#' {
        return false;
    }
    let text = as_text(raw);
    !line_of(0, text.split('#').next().unwrap_or(""))
        .fields
        .is_empty()
}
