//! numpy arrays to and from spf's: read at their dtype (int32, int64,
//! float32, float64) in place when they are contiguous (copied when they
//! are not), handed back as views of the memory a conversion wrote.

use std::sync::Arc;

use engine::{Array, ArrayRef, Buffer};
use numpy::ndarray::ArrayView1;
use numpy::{Element, PyArray1, PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::errors::InputError;

/// The elements of a numpy array (C order, flat) at its dtype, with its
/// shape; `what` names it in messages. A C-contiguous, aligned array is
/// borrowed ([`borrowed`]); any other is copied.
///
/// # Errors
///
/// `InputError` for an object that is not a numpy array of one of the
/// four dtypes spf holds.
pub fn from_numpy(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<(Vec<u64>, Array)> {
    if let Ok(a) = obj.extract::<PyReadonlyArrayDyn<'_, i32>>() {
        return Ok(elements(obj, &a));
    }
    if let Ok(a) = obj.extract::<PyReadonlyArrayDyn<'_, i64>>() {
        return Ok(elements(obj, &a));
    }
    if let Ok(a) = obj.extract::<PyReadonlyArrayDyn<'_, f64>>() {
        return Ok(elements(obj, &a));
    }
    if let Ok(a) = obj.extract::<PyReadonlyArrayDyn<'_, f32>>() {
        return Ok(elements(obj, &a));
    }
    let dtype = obj
        .getattr("dtype")
        .map_or_else(|_| obj.get_type().to_string(), |d| d.to_string());
    Err(InputError::new_err(format!(
        "{what}: an array of {dtype}; spf holds int32, int64, float32 and float64 arrays"
    )))
}

/// `a`'s shape and elements in C order: borrowed when it is C-contiguous
/// and aligned, else copied.
fn elements<T>(obj: &Bound<'_, PyAny>, a: &PyReadonlyArrayDyn<'_, T>) -> (Vec<u64>, Array)
where
    T: Element + Copy + Send + Sync + 'static,
    Array: From<Buffer<T>>,
{
    let shape = a.shape().iter().map(|&n| n as u64).collect();
    let elements = match a.as_slice() {
        Ok(s) if a.is_c_contiguous() && s.as_ptr().is_aligned() => borrowed(obj, s),
        _ => a.as_array().iter().copied().collect(),
    };
    (shape, elements.into())
}

/// The numpy array `obj`, whose elements are `s`, as a buffer that reads
/// them in place and keeps `obj` alive (a reference to it).
///
/// # Safety of the borrow
///
/// numpy keeps an array's memory where it is while the array lives (its
/// data pointer never changes; a resize of an array others reference is
/// refused), and the buffer holds a reference to it. spf never writes a
/// buffer it shares (a write copies it first), and a numpy array spf
/// borrows is read while the Python code that made it waits for the call:
/// as rust-numpy's borrows do, spf counts on Python code not to write an
/// array from another thread while a call of spf reads it (and every
/// conversion checks its input again before the compiled code reads it).
fn borrowed<T: Send + Sync + 'static>(obj: &Bound<'_, PyAny>, s: &[T]) -> Buffer<T> {
    let owner: Py<PyAny> = obj.clone().unbind();
    // SAFETY: as the function's documentation says: `s` is the memory of
    // the array `owner` keeps alive, unmoved and, by spf, unwritten.
    unsafe { Buffer::from_raw_parts(s.as_ptr(), s.len(), Arc::new(owner)) }
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
