//! The Rust libraries a Rust user would pick: sprs and nalgebra-sparse.
//!
//! Both take their input as owned vectors of `usize` (8 bytes, like spf's
//! int64 indices); building the input objects (`TriMat`, `CooMatrix`,
//! `CsMat`, `CsrMatrix`) happens before the timer starts, as reading the
//! input does for the generated code. The timed call is the library's
//! conversion alone. Both return sorted rows (columns) with duplicates
//! summed, the work spf's CSR and CSC descriptors demand too.

use std::time::Instant;

use nalgebra_sparse::{CooMatrix, CscMatrix, CsrMatrix};
use sprs::{CsMat, TriMat};
use synth::instance::Instance;

use crate::input::{compressed_instance, Compressed, Tensor};

fn to_usize(v: &[i64]) -> Vec<usize> {
    v.iter().map(|&x| x as usize).collect()
}

fn to_i64(v: &[usize]) -> Vec<i64> {
    v.iter().map(|&x| x as i64).collect()
}

/// A prepared sprs input: the conversion runs on it repeatedly.
pub enum SprsInput {
    /// A triplet matrix (COO).
    Tri(TriMat<f64>),
    /// A compressed matrix (CSR or CSC).
    Cs(CsMat<f64>),
}

/// Builds sprs's input from COO entries.
pub fn sprs_from_coo(coo: &Tensor) -> SprsInput {
    SprsInput::Tri(TriMat::from_triplets(
        (coo.dims[0] as usize, coo.dims[1] as usize),
        to_usize(&coo.indices[0]),
        to_usize(&coo.indices[1]),
        coo.values.clone(),
    ))
}

/// Builds sprs's input from a compressed matrix.
pub fn sprs_from_compressed(m: &Compressed) -> SprsInput {
    let shape = (m.nrows as usize, m.ncols as usize);
    let (ptr, idx, val) = (to_usize(&m.ptr), to_usize(&m.idx), m.val.clone());
    SprsInput::Cs(if m.by_rows {
        CsMat::new(shape, ptr, idx, val)
    } else {
        CsMat::new_csc(shape, ptr, idx, val)
    })
}

/// Converts with sprs to CSR (`to_rows`) or CSC: `TriMat::to_csr`/`to_csc`
/// or `CsMat::to_other_storage` (a compressed input is converted to the
/// other storage; asking for its own storage is refused). Returns the
/// seconds of the call and the output as an spf instance (built after the
/// timer stopped).
pub fn sprs_convert(input: &SprsInput, to_rows: bool) -> Result<(f64, Instance), String> {
    let t = Instant::now();
    let out: CsMat<f64> = match input {
        SprsInput::Tri(tri) if to_rows => tri.to_csr(),
        SprsInput::Tri(tri) => tri.to_csc(),
        SprsInput::Cs(m) if m.is_csr() != to_rows => m.to_other_storage(),
        SprsInput::Cs(_) => return Err("sprs: the input is already in that storage".into()),
    };
    let seconds = t.elapsed().as_secs_f64();
    let (rows, cols) = out.shape();
    let inst = compressed_instance(
        out.is_csr(),
        rows as i64,
        cols as i64,
        to_i64(out.indptr().raw_storage()),
        to_i64(out.indices()),
        out.data().to_vec(),
    );
    Ok((seconds, inst))
}

/// A prepared nalgebra-sparse input.
pub enum NalgebraInput {
    /// A COO matrix.
    Coo(CooMatrix<f64>),
    /// A CSR matrix.
    Csr(CsrMatrix<f64>),
}

/// Builds nalgebra-sparse's input from COO entries.
pub fn nalgebra_from_coo(coo: &Tensor) -> Result<NalgebraInput, String> {
    CooMatrix::try_from_triplets(
        coo.dims[0] as usize,
        coo.dims[1] as usize,
        to_usize(&coo.indices[0]),
        to_usize(&coo.indices[1]),
        coo.values.clone(),
    )
    .map(NalgebraInput::Coo)
    .map_err(|e| format!("nalgebra-sparse: {e}"))
}

/// Builds nalgebra-sparse's input from a CSR matrix.
pub fn nalgebra_from_csr(m: &Compressed) -> Result<NalgebraInput, String> {
    if !m.by_rows {
        return Err("nalgebra-sparse: the benchmark converts from CSR only".into());
    }
    CsrMatrix::try_from_csr_data(
        m.nrows as usize,
        m.ncols as usize,
        to_usize(&m.ptr),
        to_usize(&m.idx),
        m.val.clone(),
    )
    .map(NalgebraInput::Csr)
    .map_err(|e| format!("nalgebra-sparse: {e}"))
}

/// Converts with nalgebra-sparse to CSR (`to_rows`) or CSC:
/// `CsrMatrix::from(&CooMatrix)`, `CscMatrix::from(&CooMatrix)`,
/// `CscMatrix::from(&CsrMatrix)`.
pub fn nalgebra_convert(input: &NalgebraInput, to_rows: bool) -> Result<(f64, Instance), String> {
    enum Out {
        Csr(CsrMatrix<f64>),
        Csc(CscMatrix<f64>),
    }
    let t = Instant::now();
    let out = match (input, to_rows) {
        (NalgebraInput::Coo(coo), true) => Out::Csr(CsrMatrix::from(coo)),
        (NalgebraInput::Coo(coo), false) => Out::Csc(CscMatrix::from(coo)),
        (NalgebraInput::Csr(csr), false) => Out::Csc(CscMatrix::from(csr)),
        (NalgebraInput::Csr(_), true) => {
            return Err("nalgebra-sparse: the input is already CSR".into())
        }
    };
    let seconds = t.elapsed().as_secs_f64();
    let inst = match out {
        Out::Csr(csr) => compressed_instance(
            true,
            csr.nrows() as i64,
            csr.ncols() as i64,
            to_i64(csr.row_offsets()),
            to_i64(csr.col_indices()),
            csr.values().to_vec(),
        ),
        Out::Csc(csc) => compressed_instance(
            false,
            csc.nrows() as i64,
            csc.ncols() as i64,
            to_i64(csc.col_offsets()),
            to_i64(csc.row_indices()),
            csc.values().to_vec(),
        ),
    };
    Ok((seconds, inst))
}
