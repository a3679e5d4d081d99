//! The writers: Matrix Market and FROSTT text that the readers read back
//! exactly.

use std::fmt::Write as _;
use std::io::Write;

use super::{Coordinates, WriteError};

/// The shortest text that parses back to exactly `v`; `nan`, `inf` and
/// `-inf` for values that are not finite (what the readers, and scipy's,
/// read back).
pub fn format_real(v: f64) -> String {
    let a = v.abs();
    if v.is_nan() {
        "nan".to_string()
    } else if a == f64::INFINITY {
        if v > 0.0 { "inf" } else { "-inf" }.to_string()
    } else if a == 0.0 || (1e-5..1e16).contains(&a) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// Refuses an entry `k` whose index has another order than `dims` or lies
/// outside them.
fn check_index(k: usize, index: &[i64], dims: &[i64]) -> Result<(), WriteError> {
    if index.len() != dims.len() {
        return Err(WriteError::EntryOrder {
            entry: k,
            expected: dims.len(),
            found: index.len(),
        });
    }
    for (dim, (&i, &extent)) in index.iter().zip(dims).enumerate() {
        if i < 0 || i >= extent {
            return Err(WriteError::Index {
                entry: k,
                dim,
                index: i,
                extent,
            });
        }
    }
    Ok(())
}

fn check(c: &Coordinates) -> Result<(), WriteError> {
    for (k, (index, _)) in c.entries.iter().enumerate() {
        check_index(k, index, &c.dims)?;
    }
    Ok(())
}

/// Writes a matrix as `%%MatrixMarket matrix coordinate real general`, the
/// entries in their order, 1-based, values printed exactly ([`format_real`]).
pub fn write_mtx(c: &Coordinates, out: &mut impl Write) -> Result<(), WriteError> {
    matrix_order(c.dims.len())?;
    check(c)?;
    let entries = c
        .entries
        .iter()
        .map(|(i, v)| (i.as_slice(), format_real(*v)));
    write_matrix("real", &c.dims, c.entries.len(), entries, out)
}

/// Writes a matrix of integer values as `%%MatrixMarket matrix coordinate
/// integer general`, the entries in their order, 1-based, each value its
/// exact decimal integer (every `i64`, beyond 2^53 too).
pub fn write_mtx_integers(
    dims: &[i64],
    entries: &[(Vec<i64>, i64)],
    out: &mut impl Write,
) -> Result<(), WriteError> {
    matrix_order(dims.len())?;
    for (k, (index, _)) in entries.iter().enumerate() {
        check_index(k, index, dims)?;
    }
    let entries = entries.iter().map(|(i, v)| (i.as_slice(), v.to_string()));
    write_matrix("integer", dims, entries.len(), entries, out)
}

/// Refuses anything but a matrix.
fn matrix_order(found: usize) -> Result<(), WriteError> {
    if found != 2 {
        return Err(WriteError::Order {
            format: "Matrix Market",
            expected: 2,
            found,
        });
    }
    Ok(())
}

/// The banner with `field`, the size line, and the entries with their
/// values' text.
fn write_matrix<'a>(
    field: &str,
    dims: &[i64],
    count: usize,
    entries: impl Iterator<Item = (&'a [i64], String)>,
    out: &mut impl Write,
) -> Result<(), WriteError> {
    let mut s = String::new();
    let _ = writeln!(s, "%%MatrixMarket matrix coordinate {field} general");
    let _ = writeln!(s, "{} {} {count}", dims[0], dims[1]);
    for (index, value) in entries {
        let _ = writeln!(s, "{} {} {value}", index[0] + 1, index[1] + 1);
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
/// [`read_tns`](super::read_tns) gets them back when the caller passes them.
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
