//! The writers: Matrix Market and FROSTT text that the readers read back
//! exactly.

use std::fmt::Write as _;
use std::io::Write;

use super::{Coordinates, WriteError};

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
