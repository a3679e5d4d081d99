//! The hand-written C baselines (`bench/c/baselines.c`), compiled by
//! `build.rs` with the flags `spf build` uses, behind safe wrappers (the
//! tests check them with the oracle; the memcpy bound, [`traffic`], is
//! timed through them), and the same C with each generated converter's
//! parameters ([`paired_baseline`]), which the benchmark times inside the
//! converter's own program.
//!
//! Each wrapper runs one conversion and returns how long the call took
//! (allocation of the outputs and of every temporary included) with the
//! output, which the caller turns into an [`Instance`] of the destination
//! format ([`COutput::into_instance`]) outside the timed region.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use codegen::width::IndexWidth;
use synth::instance::{Instance, Values};

use crate::input::{Compressed, Tensor};
use crate::Conversion;

/// `bl_out` of baselines.c: up to three index arrays, the values, and the
/// destination's computed size.
#[repr(C)]
struct RawOut {
    idx: [*mut i64; 3],
    idx_len: [i64; 3],
    val: *mut f64,
    val_len: i64,
    size: i64,
}

impl RawOut {
    fn empty() -> RawOut {
        RawOut {
            idx: [std::ptr::null_mut(); 3],
            idx_len: [0; 3],
            val: std::ptr::null_mut(),
            val_len: 0,
            size: 0,
        }
    }
}

extern "C" {
    fn bl_free(o: *mut RawOut);
    fn bl_coo_to_compressed(
        nmajor: i64,
        nnz: i64,
        major: *const i64,
        minor: *const i64,
        a: *const f64,
        given: *mut i64,
        o: *mut RawOut,
    ) -> i32;
    fn bl_sorted_coo_to_csr(
        nr: i64,
        nnz: i64,
        row: *const i64,
        col: *const i64,
        a: *const f64,
        given: *mut i64,
        o: *mut RawOut,
    ) -> i32;
    fn bl_transpose(
        nmajor: i64,
        nminor: i64,
        ptr: *const i64,
        idx: *const i64,
        a: *const f64,
        given: *mut i64,
        o: *mut RawOut,
    ) -> i32;
    fn bl_coo_to_dia(
        nr: i64,
        nc: i64,
        nnz: i64,
        row: *const i64,
        col: *const i64,
        a: *const f64,
        o: *mut RawOut,
    ) -> i32;
    fn bl_compressed_to_dia(
        by_rows: i32,
        nr: i64,
        nc: i64,
        ptr: *const i64,
        idx: *const i64,
        a: *const f64,
        o: *mut RawOut,
    ) -> i32;
    fn bl_csr_to_ell(
        nr: i64,
        rowptr: *const i64,
        col: *const i64,
        a: *const f64,
        o: *mut RawOut,
    ) -> i32;
    fn bl_csc_to_ell(
        nr: i64,
        nc: i64,
        colptr: *const i64,
        row: *const i64,
        a: *const f64,
        o: *mut RawOut,
    ) -> i32;
    fn bl_coo3_to_mcoo3(
        nr: i64,
        nc: i64,
        nz: i64,
        nnz: i64,
        row: *const i64,
        col: *const i64,
        z: *const i64,
        a: *const f64,
        o: *mut RawOut,
    ) -> i32;
    fn bl_traffic(src: *const u8, in_bytes: i64, out_bytes: i64, sink: *mut u64) -> *mut u8;
    fn free(p: *mut std::ffi::c_void);
}

/// The output of one call of a C baseline; freed on drop.
pub struct COutput {
    raw: RawOut,
}

impl Drop for COutput {
    fn drop(&mut self) {
        // SAFETY: `raw` was filled by a baseline (or is empty); bl_free
        // frees each array once and nulls it.
        unsafe { bl_free(&mut self.raw) }
    }
}

impl COutput {
    /// Index array `d` as a vector.
    fn idx(&self, d: usize) -> Vec<i64> {
        let (p, n) = (self.raw.idx[d], self.raw.idx_len[d]);
        if p.is_null() || n <= 0 {
            return Vec::new();
        }
        // SAFETY: the baseline allocated `n` elements at `p`.
        unsafe { std::slice::from_raw_parts(p, n as usize).to_vec() }
    }

    fn val(&self) -> Vec<f64> {
        let (p, n) = (self.raw.val, self.raw.val_len);
        if p.is_null() || n <= 0 {
            return Vec::new();
        }
        // SAFETY: the baseline allocated `n` values at `p`.
        unsafe { std::slice::from_raw_parts(p, n as usize).to_vec() }
    }

    /// The destination's computed size (NNZ, ND or W).
    pub fn size(&self) -> i64 {
        self.raw.size
    }

    /// The output as an instance of `format` (a built-in descriptor's name:
    /// `CSR`, `CSC`, `DIA`, `ELL` or `MCOO3`), with the dense extents
    /// `dims`. The arrays are copied.
    pub fn into_instance(self, format: &str, dims: &[i64]) -> Instance {
        let mut symbols = BTreeMap::new();
        let dense = ["NR", "NC", "NZ"];
        for (name, &v) in dense.iter().zip(dims) {
            symbols.insert(name.to_string(), v);
        }
        let mut arrays = BTreeMap::new();
        let names: &[&str] = match format {
            "CSR" => {
                symbols.insert("NNZ".into(), self.size());
                &["rowptr", "col"]
            }
            "CSC" => {
                symbols.insert("NNZ".into(), self.size());
                &["colptr", "row"]
            }
            "DIA" => {
                symbols.insert("ND".into(), self.size());
                &["off"]
            }
            "ELL" => {
                symbols.insert("W".into(), self.size());
                &["col"]
            }
            "MCOO3" => {
                symbols.insert("NNZ".into(), self.size());
                &["row", "col", "z"]
            }
            other => panic!("no C baseline produces {other}"),
        };
        for (d, name) in names.iter().enumerate() {
            arrays.insert(name.to_string(), Values::Int(self.idx(d).into()));
        }
        arrays.insert("A".into(), Values::Real(self.val().into()));
        Instance {
            format: format.to_string(),
            symbols,
            arrays,
            index_width: None,
            value_type: Default::default(),
        }
    }
}

/// Runs `f` on an empty output, timing it; `Err` when the baseline
/// reports failure (out of memory, a Morton code wider than 64 bits).
fn timed(f: impl FnOnce(*mut RawOut) -> i32) -> Result<(f64, COutput), String> {
    let mut out = COutput {
        raw: RawOut::empty(),
    };
    let t = Instant::now();
    let rc = f(&mut out.raw);
    let seconds = t.elapsed().as_secs_f64();
    if rc != 0 {
        return Err("the C baseline could not convert this input (memory, or a Morton code wider than 64 bits)".into());
    }
    Ok((seconds, out))
}

fn len(v: &[i64]) -> i64 {
    v.len() as i64
}

/// COO → CSR (`by_rows`) or COO → CSC: Gustavson's counting sort with the
/// pointer array as cursor, then an insertion sort of each segment (no
/// work on an already sorted one).
pub fn coo_to_compressed(coo: &Tensor, by_rows: bool) -> Result<(f64, COutput), String> {
    let (major, minor, nmajor) = if by_rows {
        (&coo.indices[0], &coo.indices[1], coo.dims[0])
    } else {
        (&coo.indices[1], &coo.indices[0], coo.dims[1])
    };
    // SAFETY: the arrays have nnz elements and indices within the extents.
    timed(|o| unsafe {
        bl_coo_to_compressed(
            nmajor,
            len(major),
            major.as_ptr(),
            minor.as_ptr(),
            coo.values.as_ptr(),
            std::ptr::null_mut(),
            o,
        )
    })
}

/// SCOO → CSR: entries already in row-major order, so only the row
/// pointers are computed (count, prefix sum) and the columns and values
/// copied.
pub fn sorted_coo_to_csr(coo: &Tensor) -> Result<(f64, COutput), String> {
    // SAFETY: the arrays have nnz elements and indices within the extents.
    timed(|o| unsafe {
        bl_sorted_coo_to_csr(
            coo.dims[0],
            coo.values.len() as i64,
            coo.indices[0].as_ptr(),
            coo.indices[1].as_ptr(),
            coo.values.as_ptr(),
            std::ptr::null_mut(),
            o,
        )
    })
}

/// CSR → CSC (or CSC → CSR): Gustavson's transpose (counting sort by the
/// minor index, scattering segment by segment).
pub fn transpose(m: &Compressed) -> Result<(f64, COutput), String> {
    let (nmajor, nminor) = m.major_minor();
    // SAFETY: `m` is a well-formed compressed matrix.
    timed(|o| unsafe {
        bl_transpose(
            nmajor,
            nminor,
            m.ptr.as_ptr(),
            m.idx.as_ptr(),
            m.val.as_ptr(),
            std::ptr::null_mut(),
            o,
        )
    })
}

/// COO → DIA with a lookup table of the offsets.
pub fn coo_to_dia(coo: &Tensor) -> Result<(f64, COutput), String> {
    // SAFETY: the arrays have nnz elements and indices within the extents.
    timed(|o| unsafe {
        bl_coo_to_dia(
            coo.dims[0],
            coo.dims[1],
            coo.values.len() as i64,
            coo.indices[0].as_ptr(),
            coo.indices[1].as_ptr(),
            coo.values.as_ptr(),
            o,
        )
    })
}

/// CSR or CSC → DIA with a lookup table of the offsets.
pub fn compressed_to_dia(m: &Compressed) -> Result<(f64, COutput), String> {
    // SAFETY: `m` is a well-formed compressed matrix.
    timed(|o| unsafe {
        bl_compressed_to_dia(
            i32::from(m.by_rows),
            m.nrows,
            m.ncols,
            m.ptr.as_ptr(),
            m.idx.as_ptr(),
            m.val.as_ptr(),
            o,
        )
    })
}

/// CSR or CSC → ELL (width: the longest row).
pub fn compressed_to_ell(m: &Compressed) -> Result<(f64, COutput), String> {
    if m.by_rows {
        // SAFETY: `m` is a well-formed CSR matrix.
        timed(|o| unsafe {
            bl_csr_to_ell(m.nrows, m.ptr.as_ptr(), m.idx.as_ptr(), m.val.as_ptr(), o)
        })
    } else {
        // SAFETY: `m` is a well-formed CSC matrix.
        timed(|o| unsafe {
            bl_csc_to_ell(
                m.nrows,
                m.ncols,
                m.ptr.as_ptr(),
                m.idx.as_ptr(),
                m.val.as_ptr(),
                o,
            )
        })
    }
}

/// COO3D → MCOO3: LSD radix sort (11-bit digits) of Morton codes
/// compacted to the bits the extents use.
pub fn coo3_to_mcoo3(t: &Tensor) -> Result<(f64, COutput), String> {
    // SAFETY: the arrays have nnz elements and indices within the extents.
    timed(|o| unsafe {
        bl_coo3_to_mcoo3(
            t.dims[0],
            t.dims[1],
            t.dims[2],
            t.values.len() as i64,
            t.indices[0].as_ptr(),
            t.indices[1].as_ptr(),
            t.indices[2].as_ptr(),
            t.values.as_ptr(),
            o,
        )
    })
}

/// The limit: reads `in_bytes` of `src` and writes `out_bytes` into a
/// freshly allocated buffer (memcpy of the common part; memset or a read
/// of the rest). Returns the seconds it took (allocation included; the
/// buffer is freed outside the timed region).
///
/// # Panics
///
/// When `src` is shorter than `in_bytes`.
pub fn traffic(src: &[u8], in_bytes: usize, out_bytes: usize) -> Result<f64, String> {
    assert!(src.len() >= in_bytes, "the source buffer is too short");
    let mut sink = 0u64;
    let t = Instant::now();
    // SAFETY: `src` holds at least in_bytes bytes.
    let p = unsafe { bl_traffic(src.as_ptr(), in_bytes as i64, out_bytes as i64, &mut sink) };
    let seconds = t.elapsed().as_secs_f64();
    if p.is_null() {
        return Err("out of memory".into());
    }
    std::hint::black_box(sink);
    // SAFETY: `p` was allocated by malloc in bl_traffic.
    unsafe { free(p.cast()) };
    Ok(seconds)
}

/// The hand-written baselines with the generated converters' parameters
/// (`bench/c/paired/`), linked into each converter's program with `spf
/// build --baseline` so that the two are timed in one process, in turn
/// (`engine/src/program/mod.rs`, `Baseline`). Embedded, so the benchmark writes
/// them wherever it works.
const PAIRED: &[(&str, &str)] = &[
    ("baselines.c", include_str!("../c/baselines.c")),
    ("paired/paired.h", include_str!("../c/paired/paired.h")),
    ("paired/coo_csr.c", include_str!("../c/paired/coo_csr.c")),
    ("paired/scoo_csr.c", include_str!("../c/paired/scoo_csr.c")),
    ("paired/coo_csc.c", include_str!("../c/paired/coo_csc.c")),
    ("paired/csr_csc.c", include_str!("../c/paired/csr_csc.c")),
    ("paired/coo_dia.c", include_str!("../c/paired/coo_dia.c")),
    ("paired/csr_dia.c", include_str!("../c/paired/csr_dia.c")),
    ("paired/csc_dia.c", include_str!("../c/paired/csc_dia.c")),
    ("paired/csr_ell.c", include_str!("../c/paired/csr_ell.c")),
    ("paired/csc_ell.c", include_str!("../c/paired/csc_ell.c")),
    (
        "paired/coo3d_mcoo3.c",
        include_str!("../c/paired/coo3d_mcoo3.c"),
    ),
    ("paired/coo_ucsr.c", include_str!("../c/paired/coo_ucsr.c")),
    ("paired/coo_dcsr.c", include_str!("../c/paired/coo_dcsr.c")),
    (
        "paired/coo_tcoo8.c",
        include_str!("../c/paired/coo_tcoo8.c"),
    ),
    (
        "paired/coo3d_csf3.c",
        include_str!("../c/paired/coo3d_csf3.c"),
    ),
];

/// The file of `PAIRED` that holds `conv`'s baseline.
fn paired_name(conv: Conversion) -> &'static str {
    match conv {
        // Row-sorted or not, the input is COO and the C the same.
        Conversion::CooCsrUnsorted | Conversion::CooCsrSorted => "paired/coo_csr.c",
        Conversion::ScooCsr => "paired/scoo_csr.c",
        Conversion::CooCsc => "paired/coo_csc.c",
        Conversion::CsrCsc => "paired/csr_csc.c",
        Conversion::CooDia => "paired/coo_dia.c",
        Conversion::CsrDia => "paired/csr_dia.c",
        Conversion::CscDia => "paired/csc_dia.c",
        Conversion::CsrEll => "paired/csr_ell.c",
        Conversion::CscEll => "paired/csc_ell.c",
        Conversion::Coo3dMcoo3 => "paired/coo3d_mcoo3.c",
        Conversion::CooUcsr => "paired/coo_ucsr.c",
        Conversion::CooDcsr => "paired/coo_dcsr.c",
        Conversion::CooTcoo8 => "paired/coo_tcoo8.c",
        Conversion::Coo3dCsf3 => "paired/coo3d_csf3.c",
    }
}

/// Whether `conv` has hand-written C that runs in this process (compiled
/// into the bench by build.rs); the others exist only paired with their
/// converter ([`paired_baseline`]).
pub fn in_process(conv: Conversion) -> bool {
    !matches!(
        conv,
        Conversion::CooUcsr | Conversion::CooDcsr | Conversion::CooTcoo8 | Conversion::Coo3dCsf3
    )
}

/// Writes the paired baselines under `dir` (once per run) and returns the
/// file of `conv`'s, for `spf build --baseline`.
///
/// # Errors
///
/// When a file cannot be written.
pub fn paired_baseline(dir: &Path, conv: Conversion, width: IndexWidth) -> Result<PathBuf, String> {
    for (name, text) in PAIRED {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    let name = paired_name(conv);
    if width == IndexWidth::W64 {
        return Ok(dir.join(name));
    }
    // The same C with BL_INDEX set: `paired/w32/NAME.c` includes `../NAME.c`.
    let file = name.trim_start_matches("paired/");
    let path = dir.join("paired").join(format!("w{width}")).join(file);
    let text = format!(
        "/* {file} with {}-bit indices (bench/src/c.rs, paired_baseline). */\n\
         #define BL_INDEX {}\n#include \"../{file}\"\n",
        width.bits(),
        width.c_type()
    );
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(path)
}
