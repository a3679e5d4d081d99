//! `.npz` archives in scipy's layouts as scipy itself may write them:
//! rows out of order, entries repeated, values of any dtype.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use spf::codegen::value::ValueType;
use spf::synth::builtin::load_format;
use spf::synth::instance::{Instance, Values};
use spf::synth::npz::write_npz;

/// Writes `arrays` (by the names of the built-in `format`) in scipy's
/// layout of `format`, as they are, with values of `value_type`.
pub fn scipy_file(
    path: &Path,
    format: &str,
    symbols: &[(&str, i64)],
    arrays: &[(&str, Values)],
    value_type: ValueType,
) {
    let inst = Instance {
        format: format.to_uppercase(),
        symbols: symbols.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        arrays: arrays
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        index_width: None,
        value_type,
    };
    let mut bytes = Cursor::new(Vec::new());
    write_npz(&load_format(format).expect("built-in"), &inst, &mut bytes).expect("written");
    std::fs::write(path, bytes.into_inner()).expect("write");
}

/// A 2 × 3 csr whose first row is out of order and repeats column 2
/// (`[[2, 0, 4], [0, 0, 0]]` once summed), with an explicit zero at
/// (1, 1): what many scipy operations leave.
pub fn unsorted_csr(dir: &Path) -> PathBuf {
    let path = dir.join("unsorted.npz");
    scipy_file(
        &path,
        "csr",
        &[("NR", 2), ("NC", 3), ("NNZ", 4)],
        &[
            ("rowptr", Values::Int32(vec![0, 3, 4].into())),
            ("col", Values::Int32(vec![2, 0, 2, 1].into())),
            ("A", Values::Real(vec![1.0, 2.0, 3.0, 0.0].into())),
        ],
        ValueType::F64,
    );
    path
}

/// A 2 × 4 bsr of two 2 × 2 blocks whose block columns are out of order,
/// as scipy's `tobsr(blocksize=(2, 2))` writes them.
pub fn unsorted_bsr(dir: &Path) -> PathBuf {
    let path = dir.join("blocks.npz");
    scipy_file(
        &path,
        "bcsr",
        &[("NR", 2), ("NC", 4), ("NNZB", 2)],
        &[
            ("browptr", Values::Int32(vec![0, 2].into())),
            ("bcol", Values::Int32(vec![1, 0].into())),
            (
                "A",
                Values::Real(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0].into()),
            ),
        ],
        ValueType::F64,
    );
    path
}
