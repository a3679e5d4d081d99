//! The extension module `spf._spf`: the engine's API (formats, tensors,
//! converters, files, checks, code) for the Python package in
//! `python/spf`, which adds scipy's objects on top. Every call that
//! synthesizes, compiles, converts, reads or writes releases the GIL;
//! every error is an `spf.Error`.

mod arrays;
mod converter;
mod errors;
mod format;
mod tensor;

use std::path::PathBuf;

use codegen::width::IndexWidths;
use engine::api::code::{code, dataflow, Emit};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use errors::to_py;
use format::Format;
use tensor::Tensor;

/// Large blocks in transparent huge pages, freed blocks kept for reuse,
/// as in the `spf` command (the speed of large conversions depends on it).
#[global_allocator]
static ALLOCATOR: engine::memory::huge_pages::HugePages = engine::memory::huge_pages::HugePages;

/// The synthesized conversion from `src` to `dst` as text: `emit` is
/// `"c"`, `"rust"`, `"ir"` (the computation) or `"dot"` (its dataflow
/// graph); C and Rust use `index_width`-bit indices.
#[pyfunction(name = "synth")]
#[pyo3(signature = (src, dst, emit = "c", index_width = 64))]
fn synthesize(
    py: Python<'_>,
    src: &Format,
    dst: &Format,
    emit: &str,
    index_width: u32,
) -> PyResult<String> {
    let kind = match emit {
        "c" => Emit::C,
        "rust" => Emit::Rust,
        "ir" => Emit::Ir,
        "dot" => Emit::Dot,
        other => {
            return Err(PyValueError::new_err(format!(
                "emit={other:?}: it is \"c\", \"rust\", \"ir\" or \"dot\""
            )))
        }
    };
    let width = index_width.to_string().parse().map_err(|e| {
        PyValueError::new_err(format!("index_width={index_width}: {e} (it is 32 or 64)"))
    })?;
    let (s, d) = (src.engine(), dst.engine());
    py.detach(|| code(s, d, kind, IndexWidths::uniform(width)))
        .map_err(to_py)
}

/// The polyhedral dataflow graph of the conversion from `src` to `dst`:
/// `(dot, svg)`.
#[pyfunction]
fn _pdfg(py: Python<'_>, src: &Format, dst: &Format) -> PyResult<(String, String)> {
    let (s, d) = (src.engine(), dst.engine());
    py.detach(|| dataflow(s, d).map(|g| (g.to_dot(), g.to_svg())))
        .map_err(to_py)
}

/// The built-in formats: `(name, what it is)` pairs.
#[pyfunction]
fn _formats() -> Vec<(&'static str, &'static str)> {
    engine::Format::builtins()
}

/// The built-in format a scipy object of `scipy_format` (`block`-shaped
/// blocks for bsr) and `ndim` dimensions reads as.
#[pyfunction]
#[pyo3(signature = (scipy_format, block, ndim))]
fn _of_scipy(scipy_format: &str, block: Option<(i64, i64)>, ndim: usize) -> PyResult<Format> {
    engine::Format::of_scipy(scipy_format, block, ndim)
        .map(Format::of)
        .map_err(to_py)
}

/// The tensor of `format` in the file at `path` (`.mtx`, `.tns`, `.npz`,
/// JSON; gzip-compressed too): coordinates are converted to `format`.
/// Values that are not finite are read only with `allow_nonfinite`.
#[pyfunction]
#[pyo3(signature = (path, format, allow_nonfinite = false))]
fn _load(
    py: Python<'_>,
    path: PathBuf,
    format: &Format,
    allow_nonfinite: bool,
) -> PyResult<Tensor> {
    let f = format.engine();
    let options = engine::Options {
        allow_nonfinite,
        ..engine::Options::default()
    };
    py.detach(|| engine::read_with(&path, f, &options))
        .map(|inner| Tensor { inner })
        .map_err(to_py)
}

/// Writes `tensor` to `path`, its kind told by the name (`.npz`, `.mtx`,
/// `.tns`, `.json`, and `.gz` of the last three); the file is replaced
/// whole or not at all.
#[pyfunction]
fn save(py: Python<'_>, path: PathBuf, tensor: &Tensor) -> PyResult<()> {
    let t = &tensor.inner;
    py.detach(|| engine::write(&path, t)).map_err(to_py)
}

#[pymodule]
fn _spf(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Format>()?;
    m.add_class::<format::CheckReport>()?;
    m.add_class::<Tensor>()?;
    m.add_class::<converter::Converter>()?;
    m.add_function(wrap_pyfunction!(synthesize, m)?)?;
    m.add_function(wrap_pyfunction!(_pdfg, m)?)?;
    m.add_function(wrap_pyfunction!(_formats, m)?)?;
    m.add_function(wrap_pyfunction!(_of_scipy, m)?)?;
    m.add_function(wrap_pyfunction!(_load, m)?)?;
    m.add_function(wrap_pyfunction!(save, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::_tensor_from_scipy, m)?)?;
    errors::register(m)?;
    Ok(())
}
