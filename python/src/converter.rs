//! `spf._Converter`: one conversion, synthesized and validated once, run
//! on any number of tensors, from any thread, without the GIL.

use std::path::PathBuf;

use codegen::width::{WidthChoice, WidthChoices};
use engine::{Engine, Options};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::to_py;
use crate::format::Format;
use crate::tensor::{scipy_arrays, Tensor};

/// The conversion from `src` to `dst` (the Python class `spf.Converter`
/// wraps it to take scipy objects).
#[pyclass(frozen, module = "spf", name = "_Converter")]
pub struct Converter {
    inner: engine::Converter,
}

#[pymethods]
impl Converter {
    /// Synthesizes and validates the conversion. `engine` is `"auto"`
    /// (compiled when a C compiler works, else interpreted), `"native"`
    /// or `"interp"`; `index_width` `"auto"` (32 bits when the sizes
    /// fit), 32 or 64; `verify` checks every result; `cache_dir` is where
    /// compiled conversions are kept; `max_padding` refuses a conversion
    /// whose arrays would take more than that many times its input's bytes
    /// (0: no limit); `allow_nonfinite` accepts NaN and infinities in the
    /// inputs and results (refused by default, as `spf.InputError`).
    #[new]
    // Python's keyword arguments, one parameter each.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (src, dst, *, engine = "auto", index_width = None, verify = true, cache_dir = None, max_padding = engine::runner::MAX_PADDING, allow_nonfinite = false))]
    fn new(
        py: Python<'_>,
        src: &Format,
        dst: &Format,
        engine: &str,
        index_width: Option<&Bound<'_, PyAny>>,
        verify: bool,
        cache_dir: Option<PathBuf>,
        max_padding: u32,
        allow_nonfinite: bool,
    ) -> PyResult<Converter> {
        let options = Options {
            engine: match engine {
                "auto" => Engine::Auto,
                "native" => Engine::Native,
                "interp" => Engine::Interp,
                other => {
                    return Err(PyValueError::new_err(format!(
                        "engine={other:?}: it is \"auto\", \"native\" or \"interp\""
                    )))
                }
            },
            widths: WidthChoices::uniform(width_choice(index_width)?),
            verify,
            cache_dir,
            max_padding,
            allow_nonfinite,
            ..Options::default()
        };
        let (s, d) = (src.engine(), dst.engine());
        py.detach(|| engine::Converter::new(s, d, &options))
            .map(|inner| Converter { inner })
            .map_err(to_py)
    }

    /// The source format.
    #[getter]
    fn src(&self) -> Format {
        Format::of(self.inner.src().clone())
    }

    /// The destination format.
    #[getter]
    fn dst(&self) -> Format {
        Format::of(self.inner.dst().clone())
    }

    /// The built-in format the conversion goes through when synthesis
    /// cannot make it directly; `None` for a direct conversion.
    #[getter]
    fn via(&self) -> Option<Format> {
        self.inner.via().cloned().map(Format::of)
    }

    /// Converts the tensor of the source format a scipy object of
    /// `scipy_format` holds (its `arrays` as `(key, numpy array)` pairs
    /// under `save_npz`'s keys): contiguous arrays are read in place (the
    /// others copied), without the GIL, and checked once, by the
    /// conversion; the result owns its arrays.
    fn _convert_scipy(
        &self,
        py: Python<'_>,
        scipy_format: &str,
        arrays: Vec<(String, Bound<'_, PyAny>)>,
    ) -> PyResult<Tensor> {
        let arrays = scipy_arrays(scipy_format, &arrays)?;
        py.detach(|| self.inner.convert_scipy(scipy_format, arrays))
            .map(|inner| Tensor { inner })
            .map_err(to_py)
    }

    /// Converts `tensor` (of the source format), without the GIL.
    fn __call__(&self, py: Python<'_>, tensor: &Tensor) -> PyResult<Tensor> {
        let input = &tensor.inner;
        py.detach(|| self.inner.convert(input))
            .map(|inner| Tensor { inner })
            .map_err(to_py)
    }
}

/// `index_width`: `None` or `"auto"`, 32 or 64.
fn width_choice(w: Option<&Bound<'_, PyAny>>) -> PyResult<WidthChoice> {
    let Some(w) = w else {
        return Ok(WidthChoice::Auto);
    };
    let text = match w.extract::<i64>() {
        Ok(bits) => bits.to_string(),
        Err(_) => w.extract::<String>().unwrap_or_else(|_| w.to_string()),
    };
    text.parse::<WidthChoice>().map_err(|e| {
        PyValueError::new_err(format!(
            "index_width={text:?}: {e} (it is \"auto\", 32 or 64)"
        ))
    })
}
