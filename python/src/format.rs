//! `spf.Format` and `spf.CheckReport`.

use pyo3::prelude::*;

use crate::errors::to_py;

/// A sparse format: a built-in name (`"csr"`) or the path of a descriptor
/// file; `Format.from_text` parses a descriptor given as text. Two formats
/// are equal when their descriptors are.
#[pyclass(frozen, module = "spf", name = "Format")]
#[derive(Clone)]
pub struct Format {
    /// The parsed descriptor, printed (what equality and hashing compare).
    text: String,
    inner: engine::Format,
}

impl Format {
    /// The Python format of an engine format.
    pub fn of(f: engine::Format) -> Format {
        Format {
            text: format!("{:?}", f.descriptor()),
            inner: f,
        }
    }

    /// The engine's format.
    pub fn engine(&self) -> &engine::Format {
        &self.inner
    }
}

#[pymethods]
impl Format {
    /// The built-in format `name` (case-insensitive) or the descriptor
    /// file at that path.
    #[new]
    fn new(py: Python<'_>, name_or_path: &str) -> PyResult<Format> {
        py.detach(|| engine::Format::load(name_or_path))
            .map(Format::of)
            .map_err(to_py)
    }

    /// The format a descriptor's text describes, checked.
    #[staticmethod]
    fn from_text(py: Python<'_>, text: &str) -> PyResult<Format> {
        py.detach(|| engine::Format::parse(text))
            .map(Format::of)
            .map_err(to_py)
    }

    /// The format's name (`"CSR"`).
    #[getter]
    fn name(&self) -> &str {
        self.engine().name()
    }

    /// The number of dimensions (2 for a matrix).
    #[getter]
    fn order(&self) -> usize {
        self.engine().order()
    }

    /// The symbols of the dense extents, in order (`["NR", "NC"]`).
    #[getter]
    fn dims(&self) -> Vec<String> {
        self.engine().dims().to_vec()
    }

    /// Every symbol a tensor of the format gives a value for.
    #[getter]
    fn symbols(&self) -> Vec<String> {
        self.engine().symbols().to_vec()
    }

    /// The names of the index arrays, in the descriptor's order.
    #[getter]
    fn index_arrays(&self) -> Vec<String> {
        self.engine().index_arrays().map(String::from).collect()
    }

    /// The name of the value array.
    #[getter]
    fn value_array(&self) -> &str {
        self.engine().value_array()
    }

    /// scipy's name of the format's layout (`"csr"`, `"coo"`, ...), or
    /// `None` when scipy has none.
    #[getter]
    fn scipy_format(&self) -> Option<&'static str> {
        self.engine().scipy_format()
    }

    /// Whether the descriptor is well-formed and converts to and from the
    /// built-in formats of its order (what `spf check` reports).
    fn check(&self, py: Python<'_>) -> PyResult<CheckReport> {
        let f = self.engine().clone();
        py.detach(|| engine::check(&f))
            .map(|r| CheckReport { inner: r })
            .map_err(to_py)
    }

    fn __repr__(&self) -> String {
        format!("spf.Format({:?})", self.engine().name())
    }

    fn __str__(&self) -> &str {
        self.engine().name()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Format>()
            .is_ok_and(|o| o.get().text == self.text)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.text.hash(&mut h);
        h.finish()
    }
}

/// What `Format.check()` found: `str()` is what `spf check` prints.
#[pyclass(frozen, module = "spf", name = "CheckReport")]
pub struct CheckReport {
    inner: engine::CheckReport,
}

#[pymethods]
impl CheckReport {
    /// Whether every property holds and every pair converts.
    #[getter]
    fn holds(&self) -> bool {
        self.inner.holds()
    }

    /// The properties of the descriptor, each `(holds, message)`.
    #[getter]
    fn properties(&self) -> Vec<(bool, String)> {
        self.inner
            .findings
            .iter()
            .map(|f| (f.severity != synth::check::Severity::Error, f.to_string()))
            .collect()
    }

    /// The pairs tried, each `(source, destination, converts, message)`:
    /// `converts` directly or through another format, which the message
    /// then names.
    #[getter]
    fn pairs(&self) -> Vec<(String, String, bool, String)> {
        self.inner
            .pairs
            .iter()
            .map(|p| (p.src.clone(), p.dst.clone(), p.converts(), p.message()))
            .collect()
    }

    /// What does not hold, in a line; `None` when everything does.
    #[getter]
    fn summary(&self) -> Option<String> {
        self.inner.summary()
    }

    fn __bool__(&self) -> bool {
        self.inner.holds()
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "<spf.CheckReport of {}: {}>",
            self.inner.format,
            self.inner
                .summary()
                .unwrap_or_else(|| "everything holds".into())
        )
    }
}
