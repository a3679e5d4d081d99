//! numpy arrays to and from spf's: read at their dtype (int32, int64,
//! float32, float64), handed back as views of the memory a conversion
//! wrote.

use engine::{Array, ArrayRef};
use numpy::ndarray::ArrayView1;
use numpy::{Element, PyArray1, PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::errors::InputError;

/// The elements of a numpy array (C order, flat) at its dtype, with its
/// shape; `what` names it in messages.
///
/// # Errors
///
/// `InputError` for an object that is not a numpy array of one of the
/// four dtypes spf holds.
pub fn from_numpy(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<(Vec<u64>, Array)> {
    if let Ok(a) = obj.extract::<PyReadonlyArrayDyn<'_, i32>>() {
        return Ok(copied(obj.py(), &a, |v| Array::I32(v.into())));
    }
    if let Ok(a) = obj.extract::<PyReadonlyArrayDyn<'_, i64>>() {
        return Ok(copied(obj.py(), &a, |v| Array::I64(v.into())));
    }
    if let Ok(a) = obj.extract::<PyReadonlyArrayDyn<'_, f64>>() {
        return Ok(copied(obj.py(), &a, |v| Array::F64(v.into())));
    }
    if let Ok(a) = obj.extract::<PyReadonlyArrayDyn<'_, f32>>() {
        return Ok(copied(obj.py(), &a, |v| Array::F32(v.into())));
    }
    let dtype = obj
        .getattr("dtype")
        .map_or_else(|_| obj.get_type().to_string(), |d| d.to_string());
    Err(InputError::new_err(format!(
        "{what}: an array of {dtype}; spf holds int32, int64, float32 and float64 arrays"
    )))
}

/// `a`'s shape and elements in C order, copied without the GIL.
fn copied<T: Element + Copy + Send + Sync>(
    py: Python<'_>,
    a: &PyReadonlyArrayDyn<'_, T>,
    wrap: fn(Vec<T>) -> Array,
) -> (Vec<u64>, Array) {
    let shape = a.shape().iter().map(|&n| n as u64).collect();
    let elements = match a.as_slice() {
        Ok(s) => py.detach(|| s.to_vec()),
        Err(_) => a.as_array().iter().copied().collect(),
    };
    (shape, wrap(elements))
}

/// A 1-d numpy array over `array`'s memory, which `owner` keeps alive;
/// read-only unless `writable`.
///
/// # Safety of the view
///
/// `owner` is a frozen `Tensor`, whose instance's arrays never move, grow
/// or change while it lives, and the array holds a reference to it.
/// Writable views are made only of a tensor no one else can reach (the
/// one a conversion returns as a scipy object), so nothing reads the
/// memory while numpy writes it.
pub fn view<'py>(
    owner: &Bound<'py, PyAny>,
    array: ArrayRef<'_>,
    writable: bool,
) -> PyResult<Bound<'py, PyAny>> {
    fn borrow<'py, T: Element>(owner: &Bound<'py, PyAny>, s: &[T]) -> Bound<'py, PyAny> {
        // SAFETY: as the function's documentation says, `owner` outlives the
        // array and keeps `s` where it is.
        unsafe { PyArray1::borrow_from_array(&ArrayView1::from(s), owner.clone()) }.into_any()
    }
    let a = match array {
        ArrayRef::I32(s) => borrow(owner, s),
        ArrayRef::I64(s) => borrow(owner, s),
        ArrayRef::F32(s) => borrow(owner, s),
        ArrayRef::F64(s) => borrow(owner, s),
    };
    if !writable {
        a.call_method1("setflags", (false,))?;
    }
    Ok(a)
}

/// A numpy array that takes `array`'s memory, without a copy.
pub fn owned(py: Python<'_>, array: Array) -> Bound<'_, PyAny> {
    match array {
        Array::I32(v) => PyArray1::from_vec(py, v.into_vec()).into_any(),
        Array::I64(v) => PyArray1::from_vec(py, v.into_vec()).into_any(),
        Array::F32(v) => PyArray1::from_vec(py, v.into_vec()).into_any(),
        Array::F64(v) => PyArray1::from_vec(py, v.into_vec()).into_any(),
    }
}
