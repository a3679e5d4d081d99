//! The benchmark's inputs in memory: generated coordinates (COO, COO3D)
//! and the compressed matrices (CSR, CSC) derived from them, the files the
//! spf-built converters read, and the entries every output must store.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use synth::instance::{Instance, Values};
use synth::tensor_io::format_real;

/// Coordinates as structure of arrays (matgen's compact form): `dims`,
/// `indices[mode][entry]`, `values[entry]`.
pub type Tensor = matgen::Coo;

/// Generates catalog entry `name` at `scale` from `seed`, entries in
/// row-major order, shuffled (seeded) when `shuffle`. A 3-D tensor's
/// extents are shrunk to its largest index + 1 per mode, which is what a
/// FROSTT file (no header) gives its reader.
pub fn generate(spec: &matgen::MatrixSpec, scale: f64, seed: u64, shuffle: bool) -> Tensor {
    let mut t = matgen::generate_coo(spec, scale, seed);
    if t.dims.len() == 3 {
        for (d, mode) in t.indices.iter().enumerate() {
            t.dims[d] = mode.iter().max().map_or(0, |m| m + 1);
        }
    }
    if shuffle {
        t.shuffle(seed);
    }
    t
}

/// A compressed matrix: CSR (`by_rows`: `ptr` over rows, `idx` the columns)
/// or CSC (`ptr` over columns, `idx` the rows), indices increasing within
/// each segment.
#[derive(Clone, Debug, PartialEq)]
pub struct Compressed {
    /// CSR when true, CSC when false.
    pub by_rows: bool,
    /// Rows.
    pub nrows: i64,
    /// Columns.
    pub ncols: i64,
    /// Segment starts: `nmajor + 1` entries from 0 to nnz.
    pub ptr: Vec<i64>,
    /// The minor index of each entry.
    pub idx: Vec<i64>,
    /// The value of each entry.
    pub val: Vec<f64>,
}

impl Compressed {
    /// CSR (`by_rows`) or CSC of a matrix given as coordinates without
    /// duplicates, by a plain sort (the reference, not a baseline).
    pub fn from_coo(coo: &Tensor, by_rows: bool) -> Compressed {
        let (maj, min) = if by_rows { (0, 1) } else { (1, 0) };
        let nmajor = coo.dims[maj];
        let mut order: Vec<usize> = (0..coo.len()).collect();
        order.sort_unstable_by_key(|&e| (coo.indices[maj][e], coo.indices[min][e]));
        let mut ptr = vec![0i64; nmajor as usize + 1];
        for &e in &order {
            ptr[coo.indices[maj][e] as usize + 1] += 1;
        }
        for i in 0..nmajor as usize {
            ptr[i + 1] += ptr[i];
        }
        Compressed {
            by_rows,
            nrows: coo.dims[0],
            ncols: coo.dims[1],
            ptr,
            idx: order.iter().map(|&e| coo.indices[min][e]).collect(),
            val: order.iter().map(|&e| coo.values[e]).collect(),
        }
    }

    /// (segments, extent of the minor index).
    pub fn major_minor(&self) -> (i64, i64) {
        if self.by_rows {
            (self.nrows, self.ncols)
        } else {
            (self.ncols, self.nrows)
        }
    }

    /// Stored entries.
    pub fn nnz(&self) -> usize {
        self.val.len()
    }

    /// The matrix as a JSON instance of spf's CSR or CSC.
    pub fn to_instance(&self) -> Instance {
        compressed_instance(
            self.by_rows,
            self.nrows,
            self.ncols,
            self.ptr.clone(),
            self.idx.clone(),
            self.val.clone(),
        )
    }
}

/// An instance of spf's CSR (`by_rows`) or CSC from its arrays.
pub fn compressed_instance(
    by_rows: bool,
    nrows: i64,
    ncols: i64,
    ptr: Vec<i64>,
    idx: Vec<i64>,
    val: Vec<f64>,
) -> Instance {
    let (format, ptr_name, idx_name) = if by_rows {
        ("CSR", "rowptr", "col")
    } else {
        ("CSC", "colptr", "row")
    };
    let symbols = BTreeMap::from([
        ("NR".to_string(), nrows),
        ("NC".to_string(), ncols),
        ("NNZ".to_string(), val.len() as i64),
    ]);
    let arrays = BTreeMap::from([
        (ptr_name.to_string(), Values::Int(ptr.into())),
        (idx_name.to_string(), Values::Int(idx.into())),
        ("A".to_string(), Values::Real(val.into())),
    ]);
    Instance {
        format: format.to_string(),
        symbols,
        arrays,
        index_width: None,
        value_type: Default::default(),
    }
}

/// The entries a tensor stores (duplicates summed, zeros dropped): what
/// the oracle must find in every conversion's output.
pub fn entries(t: &Tensor) -> BTreeMap<Vec<i64>, f64> {
    let mut out: BTreeMap<Vec<i64>, f64> = BTreeMap::new();
    for e in 0..t.len() {
        let key: Vec<i64> = t.indices.iter().map(|mode| mode[e]).collect();
        *out.entry(key).or_insert(0.0) += t.values[e];
    }
    out.retain(|_, v| *v != 0.0);
    out
}

/// Writes `t` for the spf-built converters: a 2-D tensor as Matrix Market
/// (`coordinate real general`), a 3-D one as FROSTT `.tns`; entries in
/// their order, values printed exactly.
pub fn write(t: &Tensor, path: &Path) -> std::io::Result<()> {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut s = String::new();
    if t.dims.len() == 2 {
        s.push_str("%%MatrixMarket matrix coordinate real general\n");
        let _ = writeln!(s, "{} {} {}", t.dims[0], t.dims[1], t.len());
    }
    for e in 0..t.len() {
        for mode in &t.indices {
            let _ = write!(s, "{} ", mode[e] + 1);
        }
        s.push_str(&format_real(t.values[e]));
        s.push('\n');
        if s.len() > 1 << 16 {
            file.write_all(s.as_bytes())?;
            s.clear();
        }
    }
    file.write_all(s.as_bytes())?;
    file.flush()
}
