//! scipy's arrays as scipy means them: a `csr`, `csc` or `bsr` matrix
//! need not have sorted indices, and any of scipy's formats may hold an
//! entry twice (scipy sums duplicates when it computes with them, as its
//! `sort_indices()` and `sum_duplicates()` make explicit). spf's formats
//! require sorted, distinct indices, so the reader does what those two
//! methods do: within each row (column, block row) the indices are sorted,
//! stably, and the entries (blocks) of one index summed into one.
//!
//! `.npz` files do not record scipy's sortedness flags, so the content
//! decides: one pass finds whether any row is out of order, and only then
//! is anything moved or allocated (an archive spf wrote, or a canonical
//! scipy one, is used as it was read, its arrays in place). A sum beyond
//! the range of a double is refused, naming the coordinate, as the Matrix
//! Market reader refuses one. Arrays whose structure is not a compressed
//! one (a decreasing `indptr`, too few values) are left as they are, for
//! validation to report.

use std::collections::BTreeMap;

use crate::instance::{Buffer, Values};
use crate::tensor_io::duplicates::{has_repeated_keys, row_major_strides, sum_duplicates};
use crate::tensor_io::{CooTensor, IndexInt};

use super::NpzError;

/// Makes the arrays of a scipy `format` archive (named by scipy's keys,
/// `dims` its shape, `values` its `data`) canonical: a `csr`, `csc` or
/// `bsr` matrix's rows sorted and its duplicates summed ([`compressed`]),
/// a `coo` array's duplicates summed ([`coordinates`]); `dia` is left as
/// it is (its reader refuses a diagonal listed twice).
///
/// # Errors
///
/// A sum of duplicates beyond the range of a double.
pub(super) fn canonical(
    format: &str,
    block: Option<(i64, i64)>,
    arrays: &mut BTreeMap<String, Values>,
    values: &mut Buffer<f64>,
    dims: &[i64],
) -> Result<(), NpzError> {
    let shape = match (format, block) {
        ("csr", _) => Compressed::Rows,
        ("csc", _) => Compressed::Columns,
        ("bsr", Some((r, c))) => Compressed::Blocks(r, c),
        ("coo", _) => {
            let mut keys: Vec<String> = arrays.keys().cloned().collect();
            // `row`, `col`, or `coords0`, `coords1`, ...: by dimension.
            keys.sort_by_key(|k| (k != "row", k.clone()));
            let mut columns: Vec<Values> = keys.iter().filter_map(|k| arrays.remove(k)).collect();
            let mut slots: Vec<&mut Values> = columns.iter_mut().collect();
            let names: Vec<&str> = keys.iter().map(String::as_str).collect();
            let summed = coordinates(&mut slots, dims, values.to_mut(), &names);
            arrays.extend(keys.into_iter().zip(columns));
            return summed;
        }
        _ => return Ok(()),
    };
    let (Some(mut ptr), Some(mut idx)) = (arrays.remove("indptr"), arrays.remove("indices")) else {
        return Ok(());
    };
    let done = compressed(&mut ptr, &mut idx, values, shape, "indices");
    arrays.insert("indptr".into(), ptr);
    arrays.insert("indices".into(), idx);
    done
}

/// What the rows and indices of a compressed layout are, for messages.
#[derive(Clone, Copy, Debug)]
pub(super) enum Compressed {
    /// `csr`: rows of column indices.
    Rows,
    /// `csc`: columns of row indices.
    Columns,
    /// `bsr` with `R × C` blocks: block rows of block-column indices.
    Blocks(i64, i64),
}

impl Compressed {
    /// The matrix coordinate (row, column) of element `e` of the block at
    /// `index` in `outer` (`e` is 0 unless blocked).
    fn coordinate(self, outer: usize, index: i64, e: usize) -> (i64, i64) {
        let outer = outer as i64;
        match self {
            Compressed::Rows => (outer, index),
            Compressed::Columns => (index, outer),
            Compressed::Blocks(r, c) => (r * outer + e as i64 / c, c * index + e as i64 % c),
        }
    }

    /// The number of values each index addresses.
    fn block(self) -> usize {
        match self {
            Compressed::Blocks(r, c) => (r * c) as usize,
            _ => 1,
        }
    }
}

/// The error of duplicates at `(i, j)`, stored at positions `first` and
/// `second` of `key`, whose sum `sum` is beyond the range of a double.
fn overflow(key: &str, at: &[i64], first: usize, second: usize, sum: &str) -> NpzError {
    let at: Vec<String> = at.iter().map(i64::to_string).collect();
    NpzError::member(
        "data",
        format!(
            "holds duplicates at ({}) (positions {first} and {second} of `{key}`) that sum to \
             {sum}, beyond the range of a double",
            at.join(", ")
        ),
    )
}

/// Sorts the indices of each row of a compressed layout (`ptr`, `idx`,
/// `data`: `indptr`, `indices`, `data`) and sums the duplicates, when
/// some row is not strictly increasing. `key` names `idx` for messages.
///
/// # Errors
///
/// A sum of duplicates beyond the range of a double.
pub(super) fn compressed(
    ptr: &mut Values,
    idx: &mut Values,
    data: &mut Buffer<f64>,
    shape: Compressed,
    key: &str,
) -> Result<(), NpzError> {
    match (ptr, idx) {
        (Values::Int32(p), Values::Int32(i)) => compressed_in(p, i, data, shape, key),
        (Values::Int32(p), Values::Int(i)) => compressed_in(p, i, data, shape, key),
        (Values::Int(p), Values::Int32(i)) => compressed_in(p, i, data, shape, key),
        (Values::Int(p), Values::Int(i)) => compressed_in(p, i, data, shape, key),
        _ => Ok(()),
    }
}

/// [`compressed`] at given widths: the arrays are read where they are
/// (the caller's memory too), and made the reader's own (copied, when
/// shared) only when a row is rewritten.
fn compressed_in<P: IndexInt, I: IndexInt>(
    ptr: &mut Buffer<P>,
    idx: &mut Buffer<I>,
    data: &mut Buffer<f64>,
    shape: Compressed,
    key: &str,
) -> Result<(), NpzError> {
    let b = shape.block();
    let n = idx.len();
    let at = |p: P| usize::try_from(Into::<i64>::into(p)).ok();
    let well_formed = ptr.first().copied().and_then(at) == Some(0)
        && ptr.last().copied().and_then(at) == Some(n)
        && ptr.windows(2).all(|w| w[0] <= w[1])
        && n.checked_mul(b) == Some(data.len());
    if !well_formed {
        return Ok(());
    }
    let pos = |p: P| Into::<i64>::into(p) as usize;
    let rows = ptr.len() - 1;
    let increasing = |r: usize, idx: &[I]| {
        idx[pos(ptr[r])..pos(ptr[r + 1])]
            .windows(2)
            .all(|w| w[0] < w[1])
    };
    let Some(start) = (0..rows).find(|&r| !increasing(r, idx)) else {
        return Ok(());
    };
    let (ptr, idx, data) = (ptr.to_mut(), idx.to_mut(), data.to_mut());
    // Rows are rewritten in order, each at or before where it was read.
    let mut write = pos(ptr[start]);
    let mut lo = write;
    let (mut order, mut row_idx, mut row_first, mut row_data) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for r in start..rows {
        let hi = pos(ptr[r + 1]);
        ptr[r] = P::from_i64(write as i64);
        if idx[lo..hi].windows(2).all(|w| w[0] < w[1]) {
            idx.copy_within(lo..hi, write);
            data.copy_within(lo * b..hi * b, write * b);
            write += hi - lo;
            lo = hi;
            continue;
        }
        order.clear();
        order.extend(lo..hi);
        order.sort_by_key(|&k| idx[k]);
        row_idx.clear();
        row_first.clear();
        row_data.clear();
        for &k in &order {
            let values = &data[k * b..(k + 1) * b];
            if row_idx.last() != Some(&idx[k]) {
                row_idx.push(idx[k]);
                row_first.push(k);
                row_data.extend_from_slice(values);
                continue;
            }
            let last = row_data.len() - b;
            for (e, &v) in values.iter().enumerate() {
                let sum = row_data[last + e] + v;
                if !sum.is_finite() && row_data[last + e].is_finite() && v.is_finite() {
                    let (i, j) = shape.coordinate(r, idx[k].into(), e);
                    let first = row_first.last().copied().unwrap_or(k);
                    return Err(overflow(key, &[i, j], first, k, &sum.to_string()));
                }
                row_data[last + e] = sum;
            }
        }
        idx[write..write + row_idx.len()].copy_from_slice(&row_idx);
        data[write * b..(write + row_idx.len()) * b].copy_from_slice(&row_data);
        write += row_idx.len();
        lo = hi;
    }
    ptr[rows] = P::from_i64(write as i64);
    idx.truncate(write);
    data.truncate(write * b);
    Ok(())
}

/// Index `e` of an index array.
fn int_at(v: &Values, e: usize) -> Option<i64> {
    match v {
        Values::Int(v) => v.get(e).copied(),
        Values::Int32(v) => v.get(e).map(|&i| i64::from(i)),
        Values::Real(_) | Values::Real32(_) => None,
    }
}

/// Sums the entries of a coordinate layout (one index array per
/// dimension, `dims` the extents) that share a coordinate into the first
/// of them, when any do. Indices outside the extents are left for
/// validation to report.
///
/// # Errors
///
/// A sum of duplicates beyond the range of a double.
pub(super) fn coordinates(
    index: &mut [&mut Values],
    dims: &[i64],
    data: &mut Vec<f64>,
    keys: &[&str],
) -> Result<(), NpzError> {
    let n = data.len();
    let columns: Vec<&Values> = index.iter().map(|v| &**v).collect();
    let in_range = columns.len() == dims.len()
        && columns.iter().zip(dims).all(|(c, &extent)| {
            c.len() == n && (0..n).all(|e| int_at(c, e).is_some_and(|i| (0..extent).contains(&i)))
        });
    let Some(strides) = row_major_strides(dims).filter(|_| in_range) else {
        return Ok(());
    };
    let key = |e: usize| {
        columns
            .iter()
            .zip(&strides)
            .map(|(c, &s)| int_at(c, e).unwrap_or(0) as u64 * s)
            .sum::<u64>()
    };
    if !has_repeated_keys(n, key) {
        return Ok(());
    }
    let mut t = CooTensor {
        dims: dims.to_vec(),
        indices: columns
            .iter()
            .map(|c| c.as_ints().unwrap_or_default().into_owned())
            .collect(),
        values: std::mem::take(data),
    };
    drop(columns);
    sum_duplicates(&mut t).map_err(|o| {
        overflow(
            keys.first().copied().unwrap_or("data"),
            &o.at,
            o.entries[0],
            o.entries[1],
            &o.sum,
        )
    })?;
    for (slot, column) in index.iter_mut().zip(t.indices) {
        **slot = match slot {
            Values::Int32(_) => Values::Int32(column.into_iter().map(|i| i as i32).collect()),
            _ => Values::Int(column.into()),
        };
    }
    *data = t.values;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csr(ptr: Vec<i64>, idx: Vec<i32>, data: Vec<f64>) -> (Values, Values, Vec<f64>) {
        let (mut p, mut i) = (Values::Int(ptr.into()), Values::Int32(idx.into()));
        let mut d = data.into();
        compressed(&mut p, &mut i, &mut d, Compressed::Rows, "indices").expect("finite sums");
        (p, i, d.into_vec())
    }

    #[test]
    fn canonical_rows_are_read_in_place() {
        let shared: std::sync::Arc<[i32]> = std::sync::Arc::from(vec![0, 2, 1]);
        let mut p = Values::Int(vec![0, 2, 3].into());
        let mut i = Values::Int32(std::sync::Arc::clone(&shared).into());
        let mut d = vec![1.0, 2.0, 3.0].into();
        compressed(&mut p, &mut i, &mut d, Compressed::Rows, "indices").expect("finite sums");
        assert_eq!(i.as_ptr(), shared.as_ptr().cast());
    }

    #[test]
    fn rows_are_sorted_and_duplicates_summed() {
        let (p, i, d) = csr(
            vec![0, 3, 3, 5],
            vec![2, 0, 2, 1, 0],
            vec![1.0, 2.0, 3.0, 4.0, 5.0],
        );
        assert_eq!(p, Values::Int(vec![0, 2, 2, 4].into()));
        assert_eq!(i, Values::Int32(vec![0, 2, 0, 1].into()));
        assert_eq!(d, vec![2.0, 4.0, 5.0, 4.0]);
    }

    #[test]
    fn canonical_and_malformed_rows_are_left_alone() {
        let sorted = csr(vec![0, 2, 3], vec![0, 2, 1], vec![1.0, 2.0, 3.0]);
        assert_eq!(sorted.1, Values::Int32(vec![0, 2, 1].into()));
        // A decreasing indptr is validation's to report.
        let bad = csr(vec![0, 2, 1], vec![2, 0], vec![1.0, 2.0]);
        assert_eq!(bad.1, Values::Int32(vec![2, 0].into()));
    }

    #[test]
    fn blocks_are_summed_element_by_element() {
        let (mut p, mut i) = (
            Values::Int32(vec![0, 2].into()),
            Values::Int32(vec![1, 1].into()),
        );
        let mut d = vec![1.0, 2.0, 3.0, 4.0, 10.0, 20.0, 30.0, 40.0].into();
        compressed(&mut p, &mut i, &mut d, Compressed::Blocks(2, 2), "indices").expect("ok");
        assert_eq!(
            (p, i),
            (
                Values::Int32(vec![0, 1].into()),
                Values::Int32(vec![1].into())
            )
        );
        assert_eq!(d, [11.0, 22.0, 33.0, 44.0]);
    }

    #[test]
    fn a_sum_beyond_a_double_names_the_coordinate() {
        let (mut p, mut i) = (
            Values::Int(vec![0, 0, 2].into()),
            Values::Int(vec![3, 3].into()),
        );
        let mut d = vec![f64::MAX, f64::MAX].into();
        let e = compressed(&mut p, &mut i, &mut d, Compressed::Columns, "indices").unwrap_err();
        assert_eq!(
            e.to_string(),
            "array `data` holds duplicates at (3, 1) (positions 0 and 1 of `indices`) that sum \
             to inf, beyond the range of a double"
        );
    }

    #[test]
    fn coordinates_are_summed_in_the_first_place() {
        let (mut row, mut col) = (
            Values::Int32(vec![1, 0, 1].into()),
            Values::Int32(vec![2, 0, 2].into()),
        );
        let mut d = vec![1.0, 2.0, 3.0];
        coordinates(&mut [&mut row, &mut col], &[2, 3], &mut d, &["row", "col"]).expect("ok");
        assert_eq!(row, Values::Int32(vec![1, 0].into()));
        assert_eq!(col, Values::Int32(vec![2, 0].into()));
        assert_eq!(d, vec![4.0, 2.0]);
    }
}
