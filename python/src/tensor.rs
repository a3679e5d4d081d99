//! `spf.Tensor`: a tensor in a format, its arrays as numpy views of the
//! memory spf holds them in.

use std::collections::BTreeMap;

use engine::api::scipy::Elements;
use engine::{Instance, ValueType};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::arrays::{from_numpy, owned, view};
use crate::errors::to_py;
use crate::format::Format;

/// A tensor stored in a format: a value for every symbol and an array for
/// every index array and for the values, checked against the format.
#[pyclass(frozen, module = "spf", name = "Tensor")]
pub struct Tensor {
    pub inner: Instance,
}

#[pymethods]
impl Tensor {
    /// The tensor of `format` with these `symbols` (name to integer) and
    /// `arrays` (name to a numpy array of int32, int64, float32 or
    /// float64), checked against the format. A C-contiguous array is
    /// borrowed (the tensor keeps it alive and never writes it), any other
    /// copied.
    #[new]
    fn new(
        py: Python<'_>,
        format: &Format,
        symbols: BTreeMap<String, i64>,
        arrays: &Bound<'_, PyDict>,
    ) -> PyResult<Tensor> {
        let mut b = Instance::builder(format.engine());
        for (name, value) in symbols {
            b = b.symbol(&name, value);
        }
        for (name, a) in arrays.iter() {
            let name: String = name.extract()?;
            let (_, elements) = from_numpy(&format!("array `{name}`"), &a)?;
            b = b.array(&name, elements);
        }
        py.detach(|| b.build())
            .map(|inner| Tensor { inner })
            .map_err(to_py)
    }

    /// The format.
    #[getter]
    fn format(&self) -> Format {
        Format::of(self.inner.format().clone())
    }

    /// The dense shape, as a tuple.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.shape())
    }

    /// Every symbol and its value.
    #[getter]
    fn symbols(&self) -> BTreeMap<String, i64> {
        self.inner.symbols().clone()
    }

    /// The value type: `"float64"`, `"float32"`, `"int64"` or `"int32"`.
    #[getter]
    fn dtype(&self) -> &'static str {
        self.inner.value_type().name()
    }

    /// Every array by name, as read-only numpy views of the tensor's
    /// memory (no copy; they keep the tensor alive).
    #[getter]
    fn arrays<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(slf.py());
        let owner = slf.as_any();
        for (name, a) in slf.get().inner.arrays() {
            d.set_item(name, view(owner, a, false)?)?;
        }
        Ok(d)
    }

    /// The number of entries the tensor stores (what its format's map
    /// enumerates: explicit zeros count, padding does not).
    #[getter]
    fn nnz(&self, py: Python<'_>) -> PyResult<usize> {
        py.detach(|| self.inner.entries())
            .map(|e| e.len())
            .map_err(to_py)
    }

    /// The tensor in scipy's layout: `(format, shape, [(key, shape,
    /// array)])`, its arrays views of the tensor's memory where scipy
    /// stores them as spf does (writable only when asked, for a tensor
    /// nobody else holds); `(None, reason)` when the format has no scipy
    /// layout or this tensor cannot take it (reason `None` for the former).
    #[pyo3(signature = (writable = false))]
    fn _scipy<'py>(slf: &Bound<'py, Self>, writable: bool) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let owner = slf.as_any();
        let s = match slf.get().inner.scipy() {
            Ok(s) => s,
            Err(reason) => return (None::<String>, reason).into_pyobject(py),
        };
        let members = PyList::empty(py);
        for m in s.arrays {
            let a = match m.elements {
                Elements::Held(a) => view(owner, a, writable)?,
                Elements::Made(a) => owned(py, a),
            };
            members.append((m.key, PyTuple::new(py, m.shape)?, a))?;
        }
        (s.format, PyTuple::new(py, s.shape)?, members).into_pyobject(py)
    }

    /// The tensor as a scipy sparse array (`csr_array`, `coo_array`,
    /// ...), sharing the tensor's memory (read-only) where scipy stores an
    /// array as spf does; `spf.Error` when the format has no scipy layout.
    fn to_scipy<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        package(slf, "_tensor_to_scipy")
    }

    /// The tensor's entries as a scipy `coo_array`, converted by spf.
    fn to_coo<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        package(slf, "_tensor_to_coo")
    }

    /// The tensor as a dense numpy array.
    fn toarray<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        package(slf, "_tensor_toarray")
    }

    fn __repr__(&self) -> String {
        let shape: Vec<String> = self.inner.shape().iter().map(i64::to_string).collect();
        let dtype = match self.inner.value_type() {
            ValueType::F64 => String::new(),
            t => format!(", dtype={}", t.name()),
        };
        format!(
            "<spf.Tensor {} {}{dtype}>",
            self.inner.format().name(),
            shape.join(" x ")
        )
    }
}

/// The Python package's `function` of the tensor (what builds scipy's
/// objects lives there, beside scipy).
fn package<'py>(slf: &Bound<'py, Tensor>, function: &str) -> PyResult<Bound<'py, PyAny>> {
    slf.py().import("spf")?.getattr(function)?.call1((slf,))
}

/// The tensor of `format` a scipy object of `scipy_format` holds: its
/// `arrays` as `(key, numpy array)` pairs under `save_npz`'s keys, the
/// `shape` among them. Its arrays are borrowed ([`scipy_arrays`]) and
/// copied only where they must be sorted or summed (a scipy object whose
/// indices are not canonical). Values that are not finite pass its check
/// only with `allow_nonfinite`.
#[pyfunction]
#[pyo3(signature = (format, scipy_format, arrays, allow_nonfinite = false))]
pub fn _tensor_from_scipy(
    py: Python<'_>,
    format: &Format,
    scipy_format: &str,
    arrays: Vec<(String, Bound<'_, PyAny>)>,
    allow_nonfinite: bool,
) -> PyResult<Tensor> {
    let taken = scipy_arrays(scipy_format, &arrays)?;
    let f = format.engine();
    py.detach(|| Instance::from_scipy_allowing(f, scipy_format, taken, allow_nonfinite))
        .map(|inner| Tensor { inner })
        .map_err(to_py)
}

/// A scipy object's arrays, borrowed from numpy when contiguous, else
/// copied ([`from_numpy`]).
pub fn scipy_arrays(
    scipy_format: &str,
    arrays: &[(String, Bound<'_, PyAny>)],
) -> PyResult<Vec<(String, Vec<u64>, engine::Array)>> {
    arrays
        .iter()
        .map(|(key, a)| {
            let (shape, elements) = from_numpy(&format!("the scipy {scipy_format}'s `{key}`"), a)?;
            Ok((key.clone(), shape, elements))
        })
        .collect()
}
