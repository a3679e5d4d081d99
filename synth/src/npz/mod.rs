//! Instances in numpy's `.npz` archives: scipy.sparse's `save_npz` layout
//! for the formats scipy has, a generic layout for every other.
//!
//! # scipy's layout
//!
//! A descriptor with the layout of one of scipy's `csr`, `csc`, `coo`
//! (2-D, or 3-D with `coords`), `bsr` or `dia` (decided by shape, not by name: [`layout`]) is written
//! as `scipy.sparse.save_npz(..., compressed=False)` writes that format:
//! the arrays under scipy's keys (`indptr`, `indices`, `row`, `col`,
//! `offsets`, `data`; a 3-D COO's `coords`), `shape` (int64), `format` (`b"csr"`, ...) and
//! `_is_array` (so `load_npz` returns a sparse array). Index arrays are
//! int32 when every index and extent fits, int64 otherwise, as scipy
//! chooses; values are float64. Reading accepts what `save_npz` writes at
//! any index width, compressed or not, and any integer or real dtype, and
//! reads it as scipy means it: unsorted rows sorted, duplicates summed
//! (`canonical`); a `bsr` of any block shape reads as the BCSR of that
//! shape ([`block_source`]).
//!
//! # The generic layout
//!
//! Every other format (and a BSR whose extents are not multiples of its
//! block) is written as: `spf_format`, the format's name (a byte string);
//! each symbol as a 0-d int64 array under its name (`NR`, `W`, ...); each
//! index array under its name, int32 or int64 as above; the value array
//! under its name, float64. Arrays are flat, in the row-major order of
//! JSON instances (docs/descriptors.md). `numpy.load` opens it:
//! `f = np.load("a.npz"); f["spf_format"], f["NR"], f["col"]`.
//!
//! Reading either layout gives an [`Instance`] that the caller validates
//! against the descriptor (lengths, ranges, rules), as a JSON instance.

pub mod arrays;
mod canonical;
pub mod in_place;
pub mod layout;
pub mod members;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{Read, Seek, Write};

use codegen::width::{IndexKind, IndexWidth, IndexWidths, WidthChoice, WidthChoices};

use zip::{ZipArchive, ZipWriter};

use crate::descriptor::Descriptor;
use crate::instance::{Buffer, Instance, Values};
use crate::tensor_io::{ReadCoordinates, ReadTensor};
use in_place::{FilePages, InPlace};
use layout::{layout_of, match_layout, scipy_layout, ScipyLayout, Transform};
use members::{Archive, Content, InMemory, Member, Members};

/// The key of the format name in the generic layout.
pub const GENERIC_FORMAT_KEY: &str = "spf_format";

/// Why an `.npz` archive could not be read or written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NpzError {
    /// Not a zip archive, or a damaged one (a truncated file).
    #[error("not a readable .npz archive: {0}")]
    Archive(String),
    /// An array the layout needs is absent.
    #[error("the archive has no array `{key}`{hint}")]
    Missing {
        /// The key.
        key: String,
        /// What the layout is, to explain why the key is needed.
        hint: String,
    },
    /// An array that is there but wrong: dtype, shape, a damaged member.
    #[error("array `{key}` {message}")]
    Member {
        /// The key.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// The archive's layout is not the named format's.
    #[error("{0}")]
    Layout(String),
    /// Writing failed.
    #[error("cannot write the archive: {0}")]
    Write(String),
}

impl NpzError {
    fn archive(e: impl std::fmt::Display) -> NpzError {
        NpzError::Archive(e.to_string())
    }

    fn missing(key: &str) -> NpzError {
        NpzError::Missing {
            key: key.to_string(),
            hint: String::new(),
        }
    }

    fn member(key: &str, message: impl Into<String>) -> NpzError {
        NpzError::Member {
            key: key.to_string(),
            message: message.into(),
        }
    }
}

/// The layout an archive was written in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Written {
    /// scipy's layout of this format (`csr`, ...).
    Scipy(&'static str),
    /// The generic layout; the reason when the format has a scipy layout
    /// that this instance cannot take.
    Generic(Option<String>),
}

// ---------------------------------------------------------------------------
// Reading

/// Reads an instance of `d` from an `.npz` archive in scipy's or the
/// generic layout (see the module documentation). The instance is not
/// validated.
///
/// # Errors
///
/// A damaged archive, a missing array, a dtype or shape that cannot be
/// the layout's, or an archive of a scipy format that `d` does not have.
pub fn read_npz<R: Read + Seek>(reader: R, d: &Descriptor) -> Result<Instance, NpzError> {
    read_npz_with(reader, d, None)
}

/// [`read_npz`], with the large arrays held in the file's pages when
/// `place` allows ([`in_place`]).
fn read_npz_with<R: Read + Seek>(
    reader: R,
    d: &Descriptor,
    place: Option<InPlace<'_>>,
) -> Result<Instance, NpzError> {
    let mut zip = ZipArchive::new(reader).map_err(NpzError::archive)?;
    if let Some(format) = arrays::read_text(&mut zip, "format")? {
        let mut archive = Archive {
            zip: &mut zip,
            place,
        };
        return read_scipy(&mut archive, &format.to_ascii_lowercase(), d);
    }
    if let Some(format) = arrays::read_text(&mut zip, GENERIC_FORMAT_KEY)? {
        return read_generic(&mut zip, format, d, place);
    }
    Err(NpzError::Layout(format!(
        "the archive is neither a scipy.sparse matrix (no `format` array) nor an spf instance \
         (no `{GENERIC_FORMAT_KEY}` array)"
    )))
}

/// A 1-d array's values; `what` names its role for the message.
fn one_d(a: arrays::Array<i64>, key: &str) -> Result<Vec<i64>, NpzError> {
    one_d_shaped(&a.shape, key)?;
    Ok(a.values)
}

/// [`one_d`] for an index array.
fn one_d_index(a: arrays::IndexArray, key: &str) -> Result<Values, NpzError> {
    one_d_shaped(&a.shape, key)?;
    Ok(a.values)
}

/// Whether `shape` is 1-d, as an error naming `key` when it is not.
fn one_d_shaped(shape: &[u64], key: &str) -> Result<(), NpzError> {
    if shape.len() != 1 {
        return Err(NpzError::member(
            key,
            format!("has shape {shape:?}, but it is a 1-d array"),
        ));
    }
    Ok(())
}

/// The block shape of a scipy `bsr` archive (its `data` is `nnzb × R ×
/// C`); `None` for any other archive, and for one that cannot be read
/// (whose reading then says why).
pub fn bsr_block<R: Read + Seek>(reader: R) -> Option<(i64, i64)> {
    let mut zip = ZipArchive::new(reader).ok()?;
    let format = arrays::read_text(&mut zip, "format").ok()??;
    if !format.eq_ignore_ascii_case("bsr") {
        return None;
    }
    match arrays::shape_of(&mut zip, "data")?.as_slice() {
        [_, r, c] => Some((i64::try_from(*r).ok()?, i64::try_from(*c).ok()?)),
        _ => None,
    }
}

/// The source format a scipy `bsr` archive of `block`-shaped blocks reads
/// as when `d` is named: BCSR of that block shape
/// ([`crate::builtin::block_format_text`]) when `d` is BCSR of another
/// ([`crate::builtin::is_builtin`]); `None` when `d` reads it as it is or
/// is a descriptor of the user's (whose message then names the format).
pub fn block_source(d: &Descriptor, block: (i64, i64)) -> Option<Descriptor> {
    let own = builtin_block(d)?;
    if own == block {
        return None;
    }
    scipy_layout("bsr", Some(block), 2)?;
    crate::builtin::load_format(&block_reader(block)?).ok()
}

/// The block shape of `d` when it is BCSR of some block shape, as built in.
fn builtin_block(d: &Descriptor) -> Option<(i64, i64)> {
    let (l, _) = layout_of(d)?;
    (l.format == "bsr" && crate::builtin::is_builtin(d))
        .then_some(l.block)
        .flatten()
}

/// The built-in format that reads a scipy `bsr` of `block`-shaped blocks:
/// CSR for 1 × 1 blocks (the same arrays), `bcsrRxC` for blocks of two
/// rows and two columns or more; `None` for a block of one row or one
/// column, whose BCSR does not synthesize.
fn block_reader((r, c): (i64, i64)) -> Option<String> {
    match (r, c) {
        (1, 1) => Some("csr".into()),
        (1, _) | (_, 1) => None,
        _ => Some(crate::builtin::block_format_name((r, c))),
    }
}

/// The built-in format that reads a scipy object of `format` (`csr`,
/// `coo`, ...; `block`-shaped blocks for `bsr`) and `ndim` dimensions:
/// the first built-in with that layout (CSR for csr, COO for a 2-D coo,
/// COO3D for a 3-D one), the BCSR of a bsr's block shape (CSR for 1 × 1
/// blocks).
///
/// # Errors
///
/// [`NpzError::Layout`] for a scipy format, a block shape or a number of
/// dimensions that no built-in format reads, saying what does.
pub fn reader_of(format: &str, block: Option<(i64, i64)>, ndim: usize) -> Result<String, NpzError> {
    if format == "bsr" {
        let block = block.unwrap_or((1, 1));
        return block_reader(block).ok_or_else(|| NpzError::Layout(block_remedy(block)));
    }
    builtin_layouts()
        .iter()
        .find(|l| l.1 == format && l.3 == ndim)
        .map(|l| l.0.to_string())
        .ok_or_else(|| {
            NpzError::Layout(format!(
                "a scipy `{format}` array of {ndim} dimensions: spf reads csr, csc, coo, bsr and \
                 dia matrices and 3-D coo arrays"
            ))
        })
}

/// What to name for a scipy `bsr` of `block`-shaped blocks, in messages.
fn block_remedy(block: (i64, i64)) -> String {
    match block_reader(block) {
        Some(name) if name == "csr" => {
            "name the source csr (a bsr of 1 × 1 blocks is a csr)".into()
        }
        Some(name) => format!(
            "name the source {name} (BCSR with {} × {} blocks)",
            block.0, block.1
        ),
        None => format!(
            "spf's BCSR converts blocks of two rows and two columns or more, and these are \
             {} × {}: save it as a csr (`tocsr()`)",
            block.0, block.1
        ),
    }
}

/// [`block_source`] for the `.npz` file at `path` ([`bsr_block`]); `None`
/// for a file that is not such an archive.
pub fn block_source_file(d: &Descriptor, path: &std::path::Path) -> Option<Descriptor> {
    // Only a regular file is looked into: a pipe is read once, by the reader.
    builtin_block(d)?;
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    block_source(d, bsr_block(std::io::BufReader::new(file))?)
}

/// The built-in formats with scipy layout `format` (of `block`-shaped
/// blocks, for `bsr`), for messages.
fn builtins_with(format: &str, block: Option<(i64, i64)>) -> Vec<&'static str> {
    builtin_layouts()
        .iter()
        .filter(|l| l.1 == format && l.2 == block)
        .map(|l| l.0)
        .collect()
}

/// A built-in format's name, scipy's name of its layout, the block shape
/// and the order.
type BuiltinLayout = (&'static str, &'static str, Option<(i64, i64)>, usize);

/// Each built-in format with a scipy layout: its name, scipy's name of
/// the layout, the block shape and the order, in the built-ins' order
/// (the descriptors parsed and matched once per process).
fn builtin_layouts() -> &'static [BuiltinLayout] {
    static LAYOUTS: std::sync::OnceLock<Vec<BuiltinLayout>> = std::sync::OnceLock::new();
    LAYOUTS.get_or_init(|| {
        crate::builtin::builtin_names()
            .iter()
            .filter_map(|&n| {
                let d = crate::builtin::load_format(n).ok()?;
                let (l, _) = layout_of(&d)?;
                Some((n, l.format, l.block, d.dense.len()))
            })
            .collect()
    })
}

/// Why `d` cannot read a scipy `format` archive (of `block`-shaped
/// blocks): the format whose layout it has, when only the block shape
/// differs, or the built-in formats that have the archive's layout.
fn layout_mismatch(d: &Descriptor, format: &str, block: Option<(i64, i64)>) -> String {
    let blocks = |(r, c): (i64, i64)| format!("{r} × {c} blocks");
    let what = block.map_or(String::new(), |b| format!(" of {}", blocks(b)));
    let own = layout_of(d).map(|(l, _)| (l.format, l.block));
    if let (Some((own_format, Some(own_block))), Some(block)) = (own, block) {
        if own_format == format {
            return format!(
                "the archive holds a scipy `{format}` matrix{what}, but {} stores {}; {}, or \
                 save it with blocksize={:?}",
                d.name,
                blocks(own_block),
                block_remedy(block),
                own_block,
            );
        }
    }
    let mut with: Vec<String> = builtins_with(format, block)
        .into_iter()
        .map(String::from)
        .collect();
    // A block shape's BCSR (CSR for 1 × 1 blocks).
    if let Some(name) = block.and_then(block_reader) {
        if !with.contains(&name) {
            with.push(name);
        }
    }
    let hint = match with[..] {
        [] => block.map_or("no built-in format has it".into(), block_remedy),
        ref with => format!("the built-in formats with that layout: {}", with.join(", ")),
    };
    format!(
        "the archive holds a scipy `{format}` matrix{what}, but {} does not have scipy's \
         `{format}` layout{}; name a source format that has it ({hint})",
        d.name,
        block.map_or(String::new(), |b| format!(" of {}", blocks(b)))
    )
}

/// `values` (a scipy archive's `data`) and its index `arrays` made
/// canonical ([`canonical::canonical`]): doubles sorted and summed in
/// place; values of another type sorted by the same permutation (found on
/// their positions), and refused when duplicates would sum them, which
/// spf does only for doubles.
fn canonical_values(
    format: &str,
    block: Option<(i64, i64)>,
    arrays: &mut BTreeMap<String, Values>,
    values: Values,
    shape: &[i64],
) -> Result<Values, NpzError> {
    if let Values::Real(mut v) = values {
        canonical::canonical(format, block, arrays, &mut v, shape)?;
        return Ok(Values::Real(v));
    }
    let n = values.len();
    let mut positions: Buffer<f64> = (0..n).map(|k| k as f64).collect();
    canonical::canonical(format, block, arrays, &mut positions, shape)?;
    if positions.iter().enumerate().all(|(k, &p)| p == k as f64) {
        // In order already: the values as they are (the caller's memory).
        return Ok(values);
    }
    if positions.len() != n {
        return Err(NpzError::member(
            "data",
            "holds duplicate entries, which spf sums only in float64 archives (scipy's \
             `sum_duplicates()` sums them first)",
        ));
    }
    values
        .gather(n, |k| Some(positions[k] as usize))
        .ok_or_else(|| NpzError::member("data", "is too large to reorder"))
}

/// Reads an instance of `d` from a scipy object's arrays in memory, as
/// [`read_npz`] reads the archive `save_npz` writes of it: rows sorted and
/// duplicates summed, a `bsr` of 1 × 1 blocks read as a csr. The instance
/// is not validated.
///
/// # Errors
///
/// As [`read_npz`]: a missing array, one of the wrong shape or type, a
/// format that is not `d`'s layout.
pub fn read_scipy_arrays(mut arrays: InMemory, d: &Descriptor) -> Result<Instance, NpzError> {
    let format = arrays.format.to_ascii_lowercase();
    read_scipy(&mut arrays, &format, d)
}

/// Whether [`read_scipy_coordinates`] reads these arrays: a scipy coo
/// with float64 values.
pub fn are_coordinates(arrays: &InMemory) -> bool {
    arrays.format.eq_ignore_ascii_case("coo")
        && arrays
            .arrays
            .get("data")
            .is_some_and(|a| matches!(a.values, Values::Real(_)))
}

/// A scipy coo's arrays in memory with float64 values
/// ([`are_coordinates`]), read as the built-in coordinate format of their
/// order (`coo`, `coo3d`) with the guarantees of spf's file readers
/// ([`ReadCoordinates`]): duplicates summed as [`read_scipy_arrays`]
/// sums them, every index checked inside its extent. `Ok(Err(instance))`
/// when an index lies outside its extent (or the arrays are not such a
/// coo): the instance read, which the caller validates in full to name
/// the index.
///
/// # Errors
///
/// As [`read_scipy_arrays`].
pub fn read_scipy_coordinates(
    mut arrays: InMemory,
    coo: &Descriptor,
) -> Result<Result<ReadCoordinates, Instance>, NpzError> {
    let mut inst = read_scipy(&mut arrays, "coo", coo)?;
    let dims: Vec<i64> = coo.dense.iter().map(|s| inst.symbols[s]).collect();
    let values = match inst.arrays.get(&coo.data_name) {
        Some(Values::Real(v)) => v.len(),
        _ => return Ok(Err(inst)),
    };
    let columns: Vec<&Values> = coo
        .ufs
        .iter()
        .filter_map(|u| inst.arrays.get(&u.name))
        .collect();
    let inside = columns.len() == dims.len()
        && columns.iter().zip(&dims).all(|(c, &extent)| {
            c.len() == values
                && match c {
                    Values::Int32(v) => v.iter().all(|&i| 0 <= i && i64::from(i) < extent),
                    Values::Int(v) => v.iter().all(|&i| 0 <= i && i < extent),
                    Values::Real(_) | Values::Real32(_) => false,
                }
        });
    if !inside {
        return Ok(Err(inst));
    }
    let Some(Values::Real(values)) = inst.arrays.remove(&coo.data_name) else {
        return Ok(Err(inst));
    };
    let columns: Vec<Values> = coo
        .ufs
        .iter()
        .filter_map(|u| inst.arrays.remove(&u.name))
        .collect();
    let narrow = columns.iter().all(|c| matches!(c, Values::Int32(_)))
        && dims.iter().all(|&e| e <= i64::from(i32::MAX));
    let tensor = if narrow {
        ReadTensor::Narrow(crate::tensor_io::CooTensor {
            dims,
            indices: columns
                .into_iter()
                .map(|c| match c {
                    Values::Int32(v) => v.into_vec(),
                    _ => Vec::new(),
                })
                .collect(),
            values: values.into_vec(),
        })
    } else {
        ReadTensor::Wide(crate::tensor_io::CooTensor {
            dims,
            indices: columns
                .into_iter()
                .map(|c| c.as_ints().unwrap_or_default().into_owned())
                .collect(),
            values: values.into_vec(),
        })
    };
    Ok(Ok(ReadCoordinates::established(tensor)))
}

fn read_scipy(zip: &mut impl Members, format: &str, d: &Descriptor) -> Result<Instance, NpzError> {
    let mut data = zip.values("data")?;
    let value_type = data.value_type;
    let mut block = match (format, data.shape.as_slice()) {
        ("bsr", [_, r, c]) => Some((*r as i64, *c as i64)),
        ("bsr", s) => {
            return Err(NpzError::member(
                "data",
                format!("has shape {s:?}, but a bsr matrix's is (blocks, rows, columns)"),
            ))
        }
        _ => None,
    };
    let shape = one_d(zip.ints("shape")?, "shape")?;
    if shape.iter().any(|&e| e < 0) {
        return Err(NpzError::member("shape", "holds a negative extent"));
    }
    // A bsr of 1 × 1 blocks (scipy's `tobsr()` of a matrix of odd
    // extents) has a csr's arrays: a format of csr's layout reads it.
    let mut format = format;
    let csr = scipy_layout("csr", None, 2);
    if block == Some((1, 1)) && csr.is_some_and(|l| match_layout(d, &l.template).is_some()) {
        (format, block) = ("csr", None);
        data.shape = vec![data.values.len() as u64];
    }
    let layout = scipy_layout(format, block, shape.len()).ok_or_else(|| {
        NpzError::Layout(format!(
            "the archive holds a scipy `{format}` array of {} dimensions; spf reads csr, csc, \
             coo, bsr and dia matrices and 3-D coo arrays",
            shape.len()
        ))
    })?;
    let pairs = match_layout(d, &layout.template)
        .ok_or_else(|| NpzError::Layout(layout_mismatch(d, format, block)))?;
    let t = &layout.template;
    let mut symbols: BTreeMap<String, i64> =
        t.dense.iter().cloned().zip(shape.iter().copied()).collect();
    let mut arrays: BTreeMap<String, Values> = BTreeMap::new();
    let mut recorded = Recorded::default();
    if zip.has("coords") && !zip.has(&t.ufs[0].name) {
        // scipy's newer COO: one row of `coords` per dimension.
        let (coords, width) = zip.index("coords", false)?;
        for uf in &t.ufs {
            recorded.note(t.index_kind(&uf.name), width);
        }
        let [rows, len] = coords.shape.as_slice() else {
            return Err(NpzError::member(
                "coords",
                format!(
                    "has shape {:?}, but it is (dimensions, entries)",
                    coords.shape
                ),
            ));
        };
        if *rows as usize != t.ufs.len() {
            return Err(NpzError::member(
                "coords",
                format!(
                    "has {rows} rows, but a matrix has {} dimensions",
                    t.ufs.len()
                ),
            ));
        }
        let len = *len as usize;
        if coords.values.len() != t.ufs.len() * len {
            return Err(NpzError::member(
                "coords",
                "holds fewer values than its shape says",
            ));
        }
        for (k, uf) in t.ufs.iter().enumerate() {
            let row = match &coords.values {
                Values::Int32(v) => Values::Int32(v[k * len..(k + 1) * len].to_vec().into()),
                Values::Int(v) => Values::Int(v[k * len..(k + 1) * len].to_vec().into()),
                Values::Real(_) | Values::Real32(_) => {
                    unreachable!("an index array holds integers")
                }
            };
            arrays.insert(uf.name.clone(), row);
        }
    }
    for uf in &t.ufs {
        if arrays.contains_key(&uf.name) {
            continue;
        }
        let hint = format!(" (a scipy `{format}` matrix stores it)");
        let (a, width) = zip.index(&uf.name, true).map_err(|e| match e {
            NpzError::Missing { key, .. } => NpzError::Missing { key, hint },
            e => e,
        })?;
        recorded.note(t.index_kind(&uf.name), width);
        arrays.insert(uf.name.clone(), one_d_index(a, &uf.name)?);
    }
    let values = match layout.transform {
        Transform::Copy => {
            if block.is_none() && data.shape.len() != 1 {
                return Err(NpzError::member(
                    "data",
                    format!("has shape {:?}, but it is a 1-d array", data.shape),
                ));
            }
            canonical_values(format, block, &mut arrays, data.values, &shape)?
        }
        Transform::DiaByColumn => dia_from_scipy(&layout, &mut arrays, data, shape[0])?,
    };
    for (symbol, array) in &layout.counts {
        let len = arrays.get(*array).map_or(0, Values::len);
        symbols.insert(symbol.to_string(), len as i64);
    }
    arrays.insert(t.data_name.clone(), values);
    // Template names -> the descriptor's.
    let back = |name: &String| {
        pairs
            .iter()
            .find(|(_, to)| to == name)
            .map_or_else(|| name.clone(), |(from, _)| from.clone())
    };
    Ok(Instance {
        format: d.name.clone(),
        symbols: symbols.iter().map(|(k, v)| (back(k), *v)).collect(),
        arrays: arrays.into_iter().map(|(k, v)| (back(&k), v)).collect(),
        index_width: recorded.widths(),
        value_type,
    })
}

/// scipy's DIA (`data[k, j]` at row `j - offsets[k]`, offsets in any
/// order) to spf's (`A(i, d)` at column `i + off(d)`, offsets increasing):
/// sorts `offsets` in `arrays` and returns the `m × ndiag` values.
fn dia_from_scipy(
    layout: &ScipyLayout,
    arrays: &mut BTreeMap<String, Values>,
    data: arrays::ValueArray,
    m: i64,
) -> Result<Values, NpzError> {
    let key = &layout.template.ufs[0].name;
    let offsets = arrays
        .get(key)
        .and_then(Values::as_ints)
        .map(std::borrow::Cow::into_owned)
        .unwrap_or_default();
    let nd = offsets.len();
    let [rows, l] = data.shape.as_slice() else {
        return Err(NpzError::member(
            "data",
            format!(
                "has shape {:?}, but a dia matrix's is (diagonals, columns)",
                data.shape
            ),
        ));
    };
    if *rows as usize != nd {
        return Err(NpzError::member(
            "data",
            format!("has {rows} rows, but `offsets` lists {nd} diagonals"),
        ));
    }
    let l = *l as usize;
    if data.values.len() != nd * l {
        return Err(NpzError::member(
            "data",
            "holds fewer values than its shape says",
        ));
    }
    let mut order: Vec<usize> = (0..nd).collect();
    order.sort_by_key(|&k| offsets[k]);
    if let Some(w) = order.windows(2).find(|w| offsets[w[0]] == offsets[w[1]]) {
        return Err(NpzError::member(
            key,
            format!("lists the diagonal {} twice", offsets[w[0]]),
        ));
    }
    let rows_n = usize::try_from(m).unwrap_or(0);
    // The extents come from the file: allocate only what the machine has.
    let too_large = || {
        NpzError::member(
            "shape",
            format!("says {m} rows of {nd} diagonals, more values than memory holds"),
        )
    };
    let len = rows_n.checked_mul(nd).ok_or_else(too_large)?;
    // `A(i, d)` is `data[k, i + off(k)]` for the `d`-th offset `k`.
    let values = data
        .values
        .gather(len, |at| {
            let (i, d) = (at / nd, at % nd);
            let k = order[d];
            let j = i as i64 + offsets[k];
            (j >= 0 && (j as usize) < l).then(|| k * l + j as usize)
        })
        .ok_or_else(too_large)?;
    let sorted = order.iter().map(|&k| offsets[k]).collect();
    arrays.insert(key.clone(), Values::Int(sorted));
    Ok(values)
}

fn read_generic<R: Read + Seek>(
    zip: &mut ZipArchive<R>,
    format: String,
    d: &Descriptor,
    place: Option<InPlace<'_>>,
) -> Result<Instance, NpzError> {
    if format != d.name {
        return Err(NpzError::Layout(format!(
            "the archive holds an instance of {format} (spf's generic layout), not of {}",
            d.name
        )));
    }
    let hint = |what: &str| format!(" ({what} of {}, in spf's generic layout)", d.name);
    let mut inst = Instance {
        format,
        ..Instance::default()
    };
    for s in &d.symbols {
        let a = arrays::read_ints(zip, s).map_err(|e| match e {
            NpzError::Missing { key, .. } => NpzError::Missing {
                key,
                hint: hint("a symbol"),
            },
            e => e,
        })?;
        let [v] = a.values.as_slice() else {
            return Err(NpzError::member(
                s,
                format!(
                    "holds {} values, but a symbol is one integer",
                    a.values.len()
                ),
            ));
        };
        inst.symbols.insert(s.clone(), *v);
    }
    let mut recorded = Recorded::default();
    for uf in &d.ufs {
        let (a, width) = arrays::read_index(zip, &uf.name, place).map_err(|e| match e {
            NpzError::Missing { key, .. } => NpzError::Missing {
                key,
                hint: hint("an index array"),
            },
            e => e,
        })?;
        recorded.note(d.index_kind(&uf.name), width);
        inst.arrays.insert(uf.name.clone(), a.values);
    }
    inst.index_width = recorded.widths();
    let a = arrays::read_values(zip, &d.data_name, place).map_err(|e| match e {
        NpzError::Missing { key, .. } => NpzError::Missing {
            key,
            hint: hint("the value array"),
        },
        e => e,
    })?;
    inst.value_type = a.value_type;
    inst.arrays.insert(d.data_name.clone(), a.values);
    Ok(inst)
}

// ---------------------------------------------------------------------------
// Writing

/// The index widths the dtypes record, by kind, as an archive's members
/// are read: a kind is 64-bit when any of its arrays is.
#[derive(Default)]
struct Recorded {
    positions: Option<IndexWidth>,
    coordinates: Option<IndexWidth>,
}

impl Recorded {
    fn note(&mut self, kind: IndexKind, width: IndexWidth) {
        let slot = match kind {
            IndexKind::Position => &mut self.positions,
            IndexKind::Coordinate => &mut self.coordinates,
        };
        *slot = Some(slot.map_or(width, |w| Ord::max(w, width)));
    }

    /// The widths recorded (a kind without arrays takes the other's);
    /// `None` without index arrays.
    fn widths(&self) -> Option<IndexWidths> {
        let (p, c) = (
            self.positions.or(self.coordinates)?,
            self.coordinates.or(self.positions)?,
        );
        Some(IndexWidths {
            positions: p,
            coordinates: c,
        })
    }
}

/// The widths the index arrays are written at: those the instance records
/// (a conversion's result records the widths it was computed at), else
/// per kind 32 bits when every symbol and every array of the kind fits.
fn widths(d: &Descriptor, inst: &Instance) -> IndexWidths {
    inst.index_width.unwrap_or_else(|| {
        WidthChoices::uniform(WidthChoice::Auto)
            .resolve(inst.sizes(d))
            .unwrap_or(IndexWidths::uniform(IndexWidth::W64))
    })
}

/// The index array `name`, at whatever width it is held.
fn ints<'a>(inst: &'a Instance, name: &str) -> Result<&'a Values, NpzError> {
    inst.arrays
        .get(name)
        .filter(|v| !matches!(v, Values::Real(_) | Values::Real32(_)))
        .ok_or_else(|| NpzError::Write(format!("the instance has no index array `{name}`")))
}

/// The value array `name`.
fn value_array<'a>(inst: &'a Instance, name: &str) -> Result<&'a Values, NpzError> {
    inst.arrays
        .get(name)
        .ok_or_else(|| NpzError::Write("the instance has no value array".into()))
}

fn symbol(inst: &Instance, name: &str) -> Result<i64, NpzError> {
    inst.symbols
        .get(name)
        .copied()
        .ok_or_else(|| NpzError::Write(format!("the instance has no symbol `{name}`")))
}

/// Writes a valid instance of `d` as an `.npz` archive: scipy's layout when
/// `d` has one and the instance fits it, the generic layout otherwise
/// (see the module documentation). Returns the layout written.
///
/// # Errors
///
/// [`NpzError::Write`] when the destination fails or the instance lacks an
/// array or symbol of `d` (it was not validated).
pub fn write_npz<W: Write + Seek>(
    d: &Descriptor,
    inst: &Instance,
    out: W,
) -> Result<Written, NpzError> {
    let mut zip = ZipWriter::new(out);
    let written = match layout_of(d) {
        Some((layout, pairs)) => match unfit(&layout, &pairs, inst)? {
            None => {
                write_scipy(&mut zip, d, &layout, &pairs, inst)?;
                Written::Scipy(layout.format)
            }
            Some(reason) => {
                write_generic(&mut zip, d, inst)?;
                Written::Generic(Some(reason))
            }
        },
        None => {
            write_generic(&mut zip, d, inst)?;
            Written::Generic(None)
        }
    };
    let mut out = zip.finish().map_err(|e| NpzError::Write(e.to_string()))?;
    out.flush().map_err(|e| NpzError::Write(e.to_string()))?;
    Ok(written)
}

/// The descriptor's name of a template name.
fn from_template<'a>(pairs: &'a [(String, String)], name: &str) -> &'a str {
    pairs
        .iter()
        .find(|(_, to)| to == name)
        .map_or("", |(from, _)| from.as_str())
}

/// Why the instance cannot take scipy's layout, if it cannot: a BSR whose
/// extents are not multiples of its block.
fn unfit(
    layout: &ScipyLayout,
    pairs: &[(String, String)],
    inst: &Instance,
) -> Result<Option<String>, NpzError> {
    let Some((r, c)) = layout.block else {
        return Ok(None);
    };
    let t = &layout.template;
    let m = symbol(inst, from_template(pairs, &t.dense[0]))?;
    let n = symbol(inst, from_template(pairs, &t.dense[1]))?;
    Ok((m % r != 0 || n % c != 0).then(|| {
        format!(
            "scipy's bsr needs the extents to be multiples of the {r} × {c} block, and this \
             matrix is {m} × {n}"
        )
    }))
}

fn write_scipy<W: Write + Seek>(
    zip: &mut ZipWriter<W>,
    d: &Descriptor,
    layout: &ScipyLayout,
    pairs: &[(String, String)],
    inst: &Instance,
) -> Result<(), NpzError> {
    for m in members(d, layout, pairs, inst)? {
        match &m.content {
            Content::Index { values, narrow } => {
                arrays::write_index(zip, &m.key, &m.shape, values, *narrow)?
            }
            Content::Values { values, value_type } => {
                arrays::write_values(zip, &m.key, &m.shape, values, *value_type)?
            }
            Content::Ints(v) => arrays::write_ints(zip, &m.key, &m.shape, v, false)?,
            Content::Text(t) => arrays::write_text(zip, &m.key, t)?,
            Content::Flag(f) => arrays::write_flag(zip, &m.key, *f)?,
        }
    }
    Ok(())
}

/// scipy's name of a format, and an instance's members in its layout.
pub type ScipyMembers<'a> = (&'static str, Vec<Member<'a>>);

/// A valid instance of `d` in scipy's layout, member by member as
/// `save_npz` writes it (arrays the layout stores as they are borrowed
/// from the instance), with scipy's name of the format; `Err(None)` when
/// `d` has no scipy layout, `Err(Some(reason))` when the instance cannot
/// take it (as [`Written::Generic`] says).
///
/// # Errors
///
/// [`NpzError::Write`] when the instance lacks an array or symbol of `d`
/// (it was not validated).
pub fn scipy_members<'a>(
    d: &Descriptor,
    inst: &'a Instance,
) -> Result<Result<ScipyMembers<'a>, Option<String>>, NpzError> {
    let Some((layout, pairs)) = layout_of(d) else {
        return Ok(Err(None));
    };
    if let Some(reason) = unfit(&layout, &pairs, inst)? {
        return Ok(Err(Some(reason)));
    }
    Ok(Ok((layout.format, members(d, &layout, &pairs, inst)?)))
}

/// The members of scipy's `layout` for `inst` (of `d`, whose names
/// `pairs` maps to the layout's).
fn members<'a>(
    d: &Descriptor,
    layout: &ScipyLayout,
    pairs: &[(String, String)],
    inst: &'a Instance,
) -> Result<Vec<Member<'a>>, NpzError> {
    let t = &layout.template;
    let widths = widths(d, inst);
    let narrow = |uf: &str| widths.of(t.index_kind(uf)) == IndexWidth::W32;
    let dims = t
        .dense
        .iter()
        .map(|s| symbol(inst, from_template(pairs, s)))
        .collect::<Result<Vec<i64>, _>>()?;
    let index = t
        .ufs
        .iter()
        .map(|u| ints(inst, from_template(pairs, &u.name)))
        .collect::<Result<Vec<&Values>, _>>()?;
    let mut out = Vec::new();
    match layout.stacked {
        Some(key) => {
            let len = index.first().map_or(0, |a| a.len());
            out.push(Member {
                key: key.to_string(),
                shape: vec![index.len() as u64, len as u64],
                content: Content::Index {
                    values: Cow::Owned(stack(&index)),
                    narrow: t.ufs.iter().all(|u| narrow(&u.name)),
                },
            });
        }
        None => {
            for (uf, values) in t.ufs.iter().zip(&index) {
                out.push(Member {
                    key: uf.name.clone(),
                    shape: vec![values.len() as u64],
                    content: Content::Index {
                        values: Cow::Borrowed(*values),
                        narrow: narrow(&uf.name),
                    },
                });
            }
        }
    }
    let values = value_array(inst, from_template(pairs, &t.data_name))?;
    let value_type = inst.value_type;
    let (shape, values) = match (layout.transform, layout.block) {
        (Transform::DiaByColumn, _) => {
            let offsets = ints(inst, from_template(pairs, &t.ufs[0].name))?
                .as_ints()
                .unwrap_or_default();
            let (nd, rows, cols) = (
                offsets.len(),
                dims[0].max(0) as usize,
                dims[1].max(0) as usize,
            );
            // `data[k, j]` is `A(j - off(k), k)`.
            let data = values
                .gather(nd * cols, |at| {
                    let (k, j) = (at / cols, at % cols);
                    let i = j as i64 - offsets[k];
                    (i >= 0 && (i as usize) < rows)
                        .then(|| i as usize * nd + k)
                        .filter(|&from| from < values.len())
                })
                .ok_or_else(|| NpzError::Write("the dia matrix is too large".into()))?;
            (vec![nd as u64, cols as u64], Cow::Owned(data))
        }
        (Transform::Copy, Some((r, c))) => {
            let blocks = values.len() as u64 / (r * c) as u64;
            (vec![blocks, r as u64, c as u64], Cow::Borrowed(values))
        }
        (Transform::Copy, None) => (vec![values.len() as u64], Cow::Borrowed(values)),
    };
    out.push(Member {
        key: "data".to_string(),
        shape,
        content: Content::Values { values, value_type },
    });
    out.push(Member {
        key: "shape".to_string(),
        shape: vec![dims.len() as u64],
        content: Content::Ints(dims),
    });
    out.push(Member {
        key: "format".to_string(),
        shape: vec![],
        content: Content::Text(layout.format),
    });
    out.push(Member {
        key: "_is_array".to_string(),
        shape: vec![],
        content: Content::Flag(true),
    });
    Ok(out)
}

/// Index arrays one after another (scipy's `coords`): at 32 bits when
/// every one is held at 32 bits.
fn stack(index: &[&Values]) -> Values {
    if index.iter().all(|v| matches!(v, Values::Int32(_))) {
        let mut rows = Vec::with_capacity(index.iter().map(|v| v.len()).sum());
        for v in index {
            if let Values::Int32(v) = v {
                rows.extend_from_slice(v);
            }
        }
        return Values::Int32(rows.into());
    }
    Values::Int(
        index
            .iter()
            .flat_map(|v| v.as_ints().unwrap_or_default().into_owned())
            .collect(),
    )
}

fn write_generic<W: Write + Seek>(
    zip: &mut ZipWriter<W>,
    d: &Descriptor,
    inst: &Instance,
) -> Result<(), NpzError> {
    let names = d
        .symbols
        .iter()
        .chain(d.ufs.iter().map(|u| &u.name))
        .chain(std::iter::once(&d.data_name));
    if names.clone().any(|n| n == GENERIC_FORMAT_KEY) {
        return Err(NpzError::Write(format!(
            "{} names an array or symbol `{GENERIC_FORMAT_KEY}`, the key of the format's name",
            d.name
        )));
    }
    let widths = widths(d, inst);
    arrays::write_text(zip, GENERIC_FORMAT_KEY, &d.name)?;
    for s in &d.symbols {
        arrays::write_ints(zip, s, &[], &[symbol(inst, s)?], false)?;
    }
    for uf in &d.ufs {
        let values = ints(inst, &uf.name)?;
        let narrow = widths.of(d.index_kind(&uf.name)) == IndexWidth::W32;
        arrays::write_index(zip, &uf.name, &[values.len() as u64], values, narrow)?;
    }
    let values = value_array(inst, &d.data_name)?;
    arrays::write_values(
        zip,
        &d.data_name,
        &[values.len() as u64],
        values,
        inst.value_type,
    )
}

/// Reads an instance of `d` from an `.npz` file ([`read_npz`]); with
/// `pages`, the process's allocator, large arrays stored aligned and
/// uncompressed are held in the file's own pages, not copied
/// ([`in_place`]: the file must not change while the instance is used).
pub fn read_npz_file(
    path: &std::path::Path,
    d: &Descriptor,
    pages: Option<&dyn FilePages>,
) -> Result<Instance, ReadFileError> {
    let file = std::fs::File::open(path).map_err(ReadFileError::Io)?;
    let place = pages.map(|pages| InPlace { file: &file, pages });
    read_npz_with(std::io::BufReader::new(&file), d, place).map_err(ReadFileError::Npz)
}

/// Why an `.npz` file could not be read: the file, or its content.
#[derive(Debug, thiserror::Error)]
pub enum ReadFileError {
    /// The file could not be opened.
    #[error(transparent)]
    Io(std::io::Error),
    /// The content is not an instance.
    #[error(transparent)]
    Npz(NpzError),
}
