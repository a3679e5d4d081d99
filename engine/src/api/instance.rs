//! [`Instance`]: the symbols and arrays of one tensor in one format.

use std::collections::BTreeMap;
use std::sync::Arc;

pub use synth::instance::Buffer;
use synth::instance::{Instance as Raw, Values};
use synth::instance_validation::validate;

use super::format::Format;
use crate::Error;

/// One array of an instance, as it is held: index arrays at 32 or 64
/// bits, the value array at its type (float64, float32, int64 or int32).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArrayRef<'a> {
    /// 32-bit integers.
    I32(&'a [i32]),
    /// 64-bit integers.
    I64(&'a [i64]),
    /// Single-precision reals.
    F32(&'a [f32]),
    /// Double-precision reals.
    F64(&'a [f64]),
}

impl ArrayRef<'_> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        match self {
            ArrayRef::I32(v) => v.len(),
            ArrayRef::I64(v) => v.len(),
            ArrayRef::F32(v) => v.len(),
            ArrayRef::F64(v) => v.len(),
        }
    }

    /// Whether there is no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl std::fmt::Display for ArrayRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArrayRef::I32(v) => write!(f, "{v:?}"),
            ArrayRef::I64(v) => write!(f, "{v:?}"),
            ArrayRef::F32(v) => write!(f, "{v:?}"),
            ArrayRef::F64(v) => write!(f, "{v:?}"),
        }
    }
}

/// The elements of an array: a vector of `i32`, `i64`, `f32` or `f64`
/// converts into one ([`InstanceBuilder::array`] takes any of them), and
/// so does an `Arc<[T]>` of them, read in place ([`Buffer`]: its clones
/// share it, and the instance never writes it). The value array's type
/// is the instance's value type, which its conversions keep.
#[derive(Clone, Debug, PartialEq)]
pub enum Array {
    /// 32-bit integers.
    I32(Buffer<i32>),
    /// 64-bit integers.
    I64(Buffer<i64>),
    /// Single-precision reals.
    F32(Buffer<f32>),
    /// Double-precision reals.
    F64(Buffer<f64>),
}

/// `From<Vec<T>>`, `From<Arc<[T]>>` and `From<Buffer<T>>` for [`Array`],
/// for each element type and its variant.
macro_rules! array_from {
    ($($t:ty => $variant:ident),*) => {$(
        impl From<Buffer<$t>> for Array {
            fn from(v: Buffer<$t>) -> Array {
                Array::$variant(v)
            }
        }

        impl From<Vec<$t>> for Array {
            fn from(v: Vec<$t>) -> Array {
                Array::$variant(v.into())
            }
        }

        impl From<Arc<[$t]>> for Array {
            /// The elements of `shared`, read in place.
            fn from(shared: Arc<[$t]>) -> Array {
                Array::$variant(shared.into())
            }
        }
    )*};
}

array_from!(i32 => I32, i64 => I64, f32 => F32, f64 => F64);

impl From<Array> for Values {
    fn from(a: Array) -> Values {
        match a {
            Array::I32(v) => Values::Int32(v),
            Array::I64(v) => Values::Int(v),
            Array::F32(v) => Values::Real32(v),
            Array::F64(v) => Values::Real(v),
        }
    }
}

impl From<Values> for Array {
    fn from(v: Values) -> Array {
        match v {
            Values::Int32(v) => Array::I32(v),
            Values::Int(v) => Array::I64(v),
            Values::Real32(v) => Array::F32(v),
            Values::Real(v) => Array::F64(v),
        }
    }
}

/// A tensor stored in a [`Format`]: a value for every symbol and an array
/// for every index array and for the value array, valid against the
/// format (an `Instance` is checked when it is built, read or converted).
///
/// ```
/// use engine::{Format, Instance};
///
/// // [[1, 0, 2], [0, 0, 3]] in CSR.
/// let csr = Format::builtin("csr")?;
/// let a = Instance::builder(&csr)
///     .symbol("NR", 2)
///     .symbol("NC", 3)
///     .symbol("NNZ", 3)
///     .array("rowptr", vec![0i32, 2, 3])
///     .array("col", vec![0i32, 2, 2])
///     .array("A", vec![1.0, 2.0, 3.0])
///     .build()?;
/// assert_eq!(a.shape(), [2, 3]);
/// assert_eq!(a.entries()?, [(vec![0, 0], 1.0), (vec![0, 2], 2.0), (vec![1, 2], 3.0)]);
/// # Ok::<(), engine::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    format: Format,
    raw: Raw,
}

/// Builds an [`Instance`] symbol by symbol and array by array
/// ([`Instance::builder`]).
#[derive(Clone, Debug)]
pub struct InstanceBuilder {
    format: Format,
    raw: Raw,
    allow_nonfinite: bool,
}

impl InstanceBuilder {
    /// Gives the symbol `name` the value `value`.
    pub fn symbol(mut self, name: &str, value: i64) -> InstanceBuilder {
        self.raw.symbols.insert(name.to_string(), value);
        self
    }

    /// Gives the array `name` (an index array or the value array) its
    /// elements.
    pub fn array(mut self, name: &str, elements: impl Into<Array>) -> InstanceBuilder {
        self.raw
            .arrays
            .insert(name.to_string(), elements.into().into());
        self
    }

    /// Accepts values that are not finite (NaN, infinities) in the check
    /// of [`InstanceBuilder::build`] when `allow` says so (refused by
    /// default).
    pub fn allow_nonfinite(mut self, allow: bool) -> InstanceBuilder {
        self.allow_nonfinite = allow;
        self
    }

    /// The instance, checked against its format.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] naming the first problem: a missing or unknown
    /// symbol or array, an array of the wrong length, an index out of its
    /// range, a rule the arrays break (with the array and index).
    pub fn build(mut self) -> Result<Instance, Error> {
        use codegen::ValueType;
        self.raw.value_type = match self.raw.arrays.get(self.format.value_array()) {
            Some(Values::Real32(_)) => ValueType::F32,
            Some(Values::Int(_)) => ValueType::I64,
            Some(Values::Int32(_)) => ValueType::I32,
            Some(Values::Real(_)) | None => ValueType::F64,
        };
        let (format, raw) = (&self.format, self.raw);
        synth::instance_validation::validate_allowing(
            format.descriptor(),
            &raw,
            self.allow_nonfinite,
        )
        .map_err(|e| invalid(format, e))?;
        Ok(Instance::trusted(format, raw))
    }
}

impl Instance {
    /// A builder of an instance of `format`.
    pub fn builder(format: &Format) -> InstanceBuilder {
        InstanceBuilder {
            format: format.clone(),
            raw: Raw {
                format: format.name().to_string(),
                ..Raw::default()
            },
            allow_nonfinite: false,
        }
    }

    /// The instance `raw` of `format`, checked.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] when it violates the format.
    pub fn from_raw(format: &Format, mut raw: Raw) -> Result<Instance, Error> {
        raw.format = format.name().to_string();
        validate(format.descriptor(), &raw).map_err(|e| invalid(format, e))?;
        Ok(Instance::trusted(format, raw))
    }

    /// An instance the engine made or checked itself.
    pub(crate) fn trusted(format: &Format, raw: Raw) -> Instance {
        Instance {
            format: format.clone(),
            raw,
        }
    }

    /// The format.
    pub fn format(&self) -> &Format {
        &self.format
    }

    /// The value of the symbol `name`.
    pub fn symbol(&self, name: &str) -> Option<i64> {
        self.raw.symbols.get(name).copied()
    }

    /// Every symbol and its value.
    pub fn symbols(&self) -> &BTreeMap<String, i64> {
        &self.raw.symbols
    }

    /// The type of the values (float64 unless the input had another).
    pub fn value_type(&self) -> codegen::ValueType {
        self.raw.value_type
    }

    /// The dense extents, in the order of the format's dimensions.
    pub fn shape(&self) -> Vec<i64> {
        self.format
            .dims()
            .iter()
            .map(|d| self.symbol(d).unwrap_or(0))
            .collect()
    }

    /// The array `name`, as it is held.
    pub fn array(&self, name: &str) -> Option<ArrayRef<'_>> {
        self.raw.arrays.get(name).map(view)
    }

    /// Every array, by name.
    pub fn arrays(&self) -> impl Iterator<Item = (&str, ArrayRef<'_>)> + '_ {
        self.raw.arrays.iter().map(|(n, v)| (n.as_str(), view(v)))
    }

    /// The nonzero entries the instance stores, as (coordinate, value)
    /// pairs sorted by coordinate: what the format's sparse-to-dense map
    /// enumerates, whatever the format (the oracle every conversion is
    /// checked with).
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] when the map cannot be enumerated (it can, on a
    /// checked instance, unless it is too large to enumerate).
    pub fn entries(&self) -> Result<Vec<(Vec<i64>, f64)>, Error> {
        synth::oracle::entries(self.format.descriptor(), &self.raw)
            .map(|m| m.into_iter().collect())
            .map_err(|e| Error::Invalid {
                format: self.format.name().to_string(),
                message: e.to_string(),
            })
    }

    /// The instance as synthesis and the files hold it.
    pub fn raw(&self) -> &Raw {
        &self.raw
    }

    /// The instance as synthesis and the files hold it, taken.
    pub fn into_raw(self) -> Raw {
        self.raw
    }
}

impl std::fmt::Display for Instance {
    /// `CSR 2 x 3: NNZ = 3, rowptr = [0, 2, 3], col = [0, 2, 2], A = [1.0, 2.0,
    /// 3.0]`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shape: Vec<String> = self.shape().iter().map(i64::to_string).collect();
        write!(f, "{} {}:", self.format.name(), shape.join(" x "))?;
        let mut first = true;
        let dims = self.format.dims();
        for (name, value) in self.raw.symbols.iter().filter(|(n, _)| !dims.contains(n)) {
            write!(f, "{} {name} = {value}", if first { "" } else { "," })?;
            first = false;
        }
        // The index arrays in the descriptor's order, then the values.
        let names = self
            .format
            .index_arrays()
            .chain([self.format.value_array()]);
        for name in names {
            if let Some(array) = self.array(name) {
                write!(f, "{} {name} = {array}", if first { "" } else { "," })?;
                first = false;
            }
        }
        Ok(())
    }
}

pub(crate) fn view(v: &Values) -> ArrayRef<'_> {
    match v {
        Values::Int(v) => ArrayRef::I64(v),
        Values::Int32(v) => ArrayRef::I32(v),
        Values::Real32(v) => ArrayRef::F32(v),
        Values::Real(v) => ArrayRef::F64(v),
    }
}

/// The error for an instance of `format` that violates it.
pub(crate) fn invalid(format: &Format, e: impl std::fmt::Display) -> Error {
    Error::Invalid {
        format: format.name().to_string(),
        message: e.to_string(),
    }
}
