//! Concrete instances of a format: the values of a descriptor's symbols
//! and arrays ([`Instance`]), JSON in and out. Checking one against its
//! descriptor is [`crate::instance_validation`]'s.
//!
//! An instance is `{"format": NAME, "symbols": {"NR": 4, ...}, "arrays":
//! {"rowptr": [...], "col": [...], "A": [...]}}`: a value for every symbol
//! of the descriptor, and an array for every index array (UF) and for the
//! value array (`data_name`), and optionally `"index_width"` and
//! `"value_type"` (`"float32"`, `"int64"`, `"int32"`; absent: float64).
//! Index arrays hold integers; the value array holds numbers of the value
//! type (reals, or integers, for float64 and float32; integers for int64
//! and int32).
//!
//! # Array layout
//!
//! An index array covers its UF's domain. The domain is enumerated for the
//! instance's symbols; the array's extent in each dimension is the largest
//! index of the domain in that dimension plus one, and a UF of several
//! arguments is stored row-major (like codegen's multi-dimensional data
//! spaces). So `rowptr : {[x] : 0 <= x <= NR}` has `NR + 1` entries. The value
//! array has exactly as many entries as the product of the `data_size`
//! extents (it is stored row-major too).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::strict_json::StrictValue;
use iegen::EvalError;

pub use codegen::buffer::Buffer;
use codegen::interp::Array;
use codegen::width::{IndexKind, IndexWidth, IndexWidths, Size};
pub use codegen::ValueType;

use crate::descriptor::Descriptor;

/// The values of one array.
///
/// Index arrays are held at 64 bits, or at 32 bits when they were read or
/// computed at that width ([`Values::Int32`]: an `.npz` of `int32` arrays,
/// a 32-bit compiled conversion's result), so that they pass between the
/// files and compiled code without being widened and narrowed. Two values
/// are equal when they hold the same numbers, at whatever width.
///
/// Each array is a [`Buffer`]: a vector the instance owns, or memory its
/// caller owns (a numpy array, an `Arc<[T]>`), read in place and copied
/// only where it must be written or widened.
#[derive(Clone, Debug)]
pub enum Values {
    /// Integers: index arrays (and a value array written with integers).
    Int(Buffer<i64>),
    /// Integers held at 32 bits: index arrays.
    Int32(Buffer<i32>),
    /// Reals: the value array.
    Real(Buffer<f64>),
    /// Reals held at 32 bits: a value array of type `float32`.
    Real32(Buffer<f32>),
}

impl PartialEq for Values {
    fn eq(&self, other: &Values) -> bool {
        match (self, other) {
            (Values::Real(a), Values::Real(b)) => a == b,
            (Values::Real32(a), Values::Real32(b)) => a == b,
            (Values::Int(a), Values::Int(b)) => a == b,
            (Values::Int32(a), Values::Int32(b)) => a == b,
            (Values::Int(a), Values::Int32(b)) | (Values::Int32(b), Values::Int(a)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(&x, &y)| x == i64::from(y))
            }
            _ => false,
        }
    }
}

impl Values {
    /// The number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::Int(v) => v.len(),
            Values::Int32(v) => v.len(),
            Values::Real(v) => v.len(),
            Values::Real32(v) => v.len(),
        }
    }

    /// Whether there is no value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes the values take.
    pub fn bytes(&self) -> usize {
        let each = match self {
            Values::Int(_) | Values::Real(_) => 8,
            Values::Int32(_) | Values::Real32(_) => 4,
        };
        self.len() * each
    }

    /// The values as reals (integers converted).
    pub fn to_reals(&self) -> Vec<f64> {
        match self {
            Values::Int(v) => v.iter().map(|&x| x as f64).collect(),
            Values::Int32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Values::Real(v) => v.to_vec(),
            Values::Real32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        }
    }

    /// The integers, when the values are integers: borrowed at 64 bits,
    /// a widened copy of 32-bit ones.
    pub fn as_ints(&self) -> Option<std::borrow::Cow<'_, [i64]>> {
        match self {
            Values::Int(v) => Some(std::borrow::Cow::Borrowed(v)),
            Values::Int32(v) => Some(std::borrow::Cow::Owned(
                v.iter().map(|&x| i64::from(x)).collect(),
            )),
            Values::Real(_) | Values::Real32(_) => None,
        }
    }

    /// The integers at 64 bits, when the values are integers (32-bit ones
    /// widened).
    pub fn into_ints(self) -> Option<Vec<i64>> {
        match self {
            Values::Int(v) => Some(v.into_vec()),
            Values::Int32(v) => Some(v.iter().map(|&x| i64::from(x)).collect()),
            Values::Real(_) | Values::Real32(_) => None,
        }
    }

    /// The integer at `k`, when the values are integers and `k` is in range.
    pub fn int_at(&self, k: usize) -> Option<i64> {
        match self {
            Values::Int(v) => v.get(k).copied(),
            Values::Int32(v) => v.get(k).map(|&x| i64::from(x)),
            Values::Real(_) | Values::Real32(_) => None,
        }
    }

    /// The position and value of the integer farthest from zero, when the
    /// values are integers and there is one.
    pub fn widest_int(&self) -> Option<(usize, i64)> {
        fn widest<T: Copy + Into<i64>>(v: &[T]) -> Option<(usize, i64)> {
            v.iter()
                .map(|&x| x.into())
                .enumerate()
                .max_by_key(|(_, x): &(usize, i64)| x.unsigned_abs())
        }
        match self {
            Values::Int(v) => widest(v),
            Values::Int32(v) => widest(v),
            Values::Real(_) | Values::Real32(_) => None,
        }
    }
}

impl Values {
    /// The values of a value array of type `t`, as the interpreter holds
    /// them ([`Array::Real`], [`Array::Real32`], [`Array::RealInt`],
    /// [`Array::RealInt32`]): converted as `as` converts (a real rounded
    /// to the nearest `f32`, an integer at `f64`); a real that is no
    /// integer of the type is truncated, as
    /// [`Values::value_type_error`] reports first.
    pub fn into_value_array(self, t: ValueType) -> Array {
        match (t, self) {
            (ValueType::F64, Values::Real(v)) => Array::Real(v),
            (ValueType::F64, v) => Array::Real(v.to_reals().into()),
            (ValueType::F32, Values::Real32(v)) => Array::Real32(v),
            (ValueType::F32, Values::Real(v)) => {
                Array::Real32(v.iter().map(|&x| x as f32).collect())
            }
            (ValueType::F32, v) => Array::Real32(v.to_reals().iter().map(|&x| x as f32).collect()),
            (ValueType::I64, Values::Int(v)) => Array::RealInt(v),
            (ValueType::I64, v) => Array::RealInt(
                v.as_ints()
                    .map_or_else(
                        || v.to_reals().iter().map(|&x| x as i64).collect(),
                        std::borrow::Cow::into_owned,
                    )
                    .into(),
            ),
            (ValueType::I32, Values::Int32(v)) => Array::RealInt32(v),
            (ValueType::I32, v) => Array::RealInt32(match v.as_ints() {
                Some(ints) => ints.iter().map(|&x| x as i32).collect(),
                None => v.to_reals().iter().map(|&x| x as i32).collect(),
            }),
        }
    }

    /// The values of an interpreter's value array ([`Values::into_value_array`]
    /// backwards); `None` for an index array.
    pub fn from_value_array(a: Array) -> Option<Values> {
        Some(match a {
            Array::Real(v) => Values::Real(v),
            Array::Real32(v) => Values::Real32(v),
            Array::RealInt(v) => Values::Int(v),
            Array::RealInt32(v) => Values::Int32(v),
            Array::Int(_) => return None,
        })
    }

    /// The first value that a value array of type `t` cannot hold as it
    /// is: a real that is no integer of an integer type, an integer beyond
    /// `int32`, a `float64` that `float32` does not hold exactly. Its
    /// position and a description (`1.5 is not an int64`).
    pub fn value_type_error(&self, t: ValueType) -> Option<(usize, String)> {
        let article = if t.is_integer() { "an" } else { "a" };
        let not = |k: usize, x: &dyn std::fmt::Display| {
            Some((k, format!("{x} is not {article} {t} value")))
        };
        match (t, self) {
            (ValueType::F64, _) | (ValueType::F32, Values::Real32(_)) => None,
            (ValueType::F32, v) => {
                let reals = v.to_reals();
                let k = reals
                    .iter()
                    .position(|&x| f64::from(x as f32) != x && x.is_finite())?;
                not(k, &reals[k])
            }
            (ValueType::I64 | ValueType::I32, v) => {
                if let Some(ints) = v.as_ints() {
                    let k = ints
                        .iter()
                        .position(|&x| t == ValueType::I32 && i32::try_from(x).is_err())?;
                    return not(k, &ints[k]);
                }
                let reals = v.to_reals();
                let max = if t == ValueType::I32 {
                    2f64.powi(31)
                } else {
                    2f64.powi(63)
                };
                let k = reals
                    .iter()
                    .position(|&x| x.fract() != 0.0 || !(-max..max).contains(&x))?;
                not(k, &reals[k])
            }
        }
    }
}

impl Values {
    /// The values, read in place: every array a [`Buffer::borrowed`] of
    /// these.
    ///
    /// # Safety
    ///
    /// As [`Buffer::borrowed`]: the result (and anything that takes its
    /// arrays) must be dropped or made [its own](Values::own) before the
    /// borrow of `self` ends.
    pub unsafe fn borrowed(&self) -> Values {
        // SAFETY: the caller's contract.
        unsafe {
            match self {
                Values::Int(v) => Values::Int(Buffer::borrowed(v)),
                Values::Int32(v) => Values::Int32(Buffer::borrowed(v)),
                Values::Real(v) => Values::Real(Buffer::borrowed(v)),
                Values::Real32(v) => Values::Real32(Buffer::borrowed(v)),
            }
        }
    }

    /// Makes the values their own: borrowed ones ([`Values::borrowed`])
    /// and shared ones are copied (a conversion's result owns its memory,
    /// however it was computed); owned ones are left where they are.
    pub fn own(&mut self) {
        match self {
            Values::Int(v) => drop(v.to_mut()),
            Values::Int32(v) => drop(v.to_mut()),
            Values::Real(v) => drop(v.to_mut()),
            Values::Real32(v) => drop(v.to_mut()),
        }
    }

    /// The address of the first value: where the values are held (the
    /// caller's memory, for values that share it).
    pub fn as_ptr(&self) -> *const u8 {
        match self {
            Values::Int(v) => v.as_ptr().cast(),
            Values::Int32(v) => v.as_ptr().cast(),
            Values::Real(v) => v.as_ptr().cast(),
            Values::Real32(v) => v.as_ptr().cast(),
        }
    }
}

impl Values {
    /// `len` values at these values' type, the `k`-th the value at
    /// `from(k)` (zero where it is `None`); `None` when they cannot be
    /// allocated. A gather: how a layout's values are reordered.
    pub fn gather(&self, len: usize, from: impl Fn(usize) -> Option<usize>) -> Option<Values> {
        fn go<T: Copy + Default>(
            v: &[T],
            len: usize,
            from: impl Fn(usize) -> Option<usize>,
        ) -> Option<Vec<T>> {
            let mut out = Vec::new();
            out.try_reserve_exact(len).ok()?;
            out.extend((0..len).map(|k| {
                from(k)
                    .and_then(|at| v.get(at).copied())
                    .unwrap_or_default()
            }));
            Some(out)
        }
        Some(match self {
            Values::Int(v) => Values::Int(go(v, len, from)?.into()),
            Values::Int32(v) => Values::Int32(go(v, len, from)?.into()),
            Values::Real(v) => Values::Real(go(v, len, from)?.into()),
            Values::Real32(v) => Values::Real32(go(v, len, from)?.into()),
        })
    }
}

/// A concrete instance of a format: symbol values and arrays.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Instance {
    /// The format's name.
    pub format: String,
    /// The value of every symbol.
    pub symbols: BTreeMap<String, i64>,
    /// The index arrays and the value array, by name.
    pub arrays: BTreeMap<String, Values>,
    /// The index widths the instance records (JSON's `"index_width"`, an
    /// `.npz`'s dtypes), when it records them: the sizes and index values
    /// of a kind recorded 32-bit must fit 32 bits ([`validate`](crate::instance_validation::validate) checks).
    pub index_width: Option<IndexWidths>,
    /// The type of the value array's values (JSON's `"value_type"`, an
    /// `.npz`'s dtype, a Matrix Market file's field): a conversion's result
    /// has its input's. The value array holds them as
    /// [`Values::into_value_array`] reads them: `float64` as reals (or
    /// integers), `float32` as [`Values::Real32`] (or numbers rounded to
    /// it), `int64` and `int32` as integers.
    pub value_type: ValueType,
}

impl Instance {
    /// The instance, its arrays read in place ([`Values::borrowed`]).
    ///
    /// # Safety
    ///
    /// As [`Values::borrowed`]: the result, and every array taken from it,
    /// must be dropped or made its own ([`Instance::own`]) before the borrow
    /// of `self` ends.
    pub unsafe fn borrowed(&self) -> Instance {
        Instance {
            format: self.format.clone(),
            symbols: self.symbols.clone(),
            // SAFETY: the caller's contract.
            arrays: self
                .arrays
                .iter()
                .map(|(name, v)| (name.clone(), unsafe { v.borrowed() }))
                .collect(),
            index_width: self.index_width,
            value_type: self.value_type,
        }
    }

    /// Makes every array its own ([`Values::own`]): the instance then
    /// outlives any borrow and shares no memory.
    pub fn own(&mut self) {
        self.arrays.values_mut().for_each(Values::own);
    }
}

/// What a size of an instance ([`Instance::sizes`]) is, displayed as an
/// error names it: `the symbol NNZ`, `the length of col`, `col[17]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeOf<'a> {
    /// A symbol's value.
    Symbol(&'a str),
    /// An array's length.
    Length(&'a str),
    /// An element of an index array.
    Element(&'a str, usize),
}

impl std::fmt::Display for SizeOf<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SizeOf::Symbol(name) => write!(f, "the symbol {name}"),
            SizeOf::Length(name) => write!(f, "the length of {name}"),
            SizeOf::Element(name, k) => write!(f, "{name}[{k}]"),
        }
    }
}

/// What is wrong with an instance: its JSON, or its content.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum InstanceError {
    /// Malformed JSON.
    #[error("{line}:{column}: invalid JSON: {message}")]
    Json {
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
        /// serde_json's reason.
        message: String,
    },
    /// Well-formed JSON that is not an instance.
    #[error("at `{path}`: {message}")]
    Structure {
        /// Where: `symbols.NR`, `arrays.col[3]`, ...
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A size or an index value that does not fit the index width the
    /// instance records.
    #[error("{0}")]
    Width(String),
    /// The instance names another format.
    #[error("the instance is of format `{instance}`, not `{descriptor}`")]
    Format {
        /// The instance's `format`.
        instance: String,
        /// The descriptor's name.
        descriptor: String,
    },
    /// A symbol of the descriptor has no value.
    #[error("symbol `{name}` has no value (the format's symbols: {all}){hint}")]
    MissingSymbol {
        /// The symbol.
        name: String,
        /// All symbols of the format.
        all: String,
        /// `; "NNz" is given: did you mean "NNZ"?` when a name given is a
        /// misspelling of it, else empty.
        hint: String,
    },
    /// A dense extent (a dimension of the tensor) below zero.
    #[error("symbol `{name}` is a dimension of the tensor, so it cannot be negative ({value})")]
    NegativeExtent {
        /// The symbol.
        name: String,
        /// Its value.
        value: i64,
    },
    /// A symbol the descriptor does not declare.
    #[error("`{name}` is not a symbol of {format} (its symbols: {all})")]
    UnknownSymbol {
        /// The symbol.
        name: String,
        /// The format.
        format: String,
        /// All symbols of the format.
        all: String,
    },
    /// An array of the descriptor is missing.
    #[error("array `{name}` is missing (the format's arrays: {all}){hint}")]
    MissingArray {
        /// The array.
        name: String,
        /// All arrays of the format.
        all: String,
        /// `; "colx" is given: did you mean "col"?` when a name given is a
        /// misspelling of it, else empty.
        hint: String,
    },
    /// An array the descriptor does not declare.
    #[error("`{name}` is not an array of {format} (its arrays: {all})")]
    UnknownArray {
        /// The array.
        name: String,
        /// The format.
        format: String,
        /// All arrays of the format.
        all: String,
    },
    /// An index array with non-integer values.
    #[error("{array} is an index array and must hold integers, but it holds reals")]
    NotIntegers {
        /// The array.
        array: String,
    },
    /// An array of the wrong length.
    #[error("{array} has {found} values but {why}")]
    Length {
        /// The array.
        array: String,
        /// Its length.
        found: usize,
        /// The expectation, e.g. "its domain 0 <= x <= NR (NR = 4) needs 5".
        why: String,
    },
    /// A value the instance's value type does not hold.
    #[error("{array}({index}): {message}")]
    ValueType {
        /// The value array.
        array: String,
        /// The position.
        index: usize,
        /// E.g. "1.5 is not a int64 value".
        message: String,
    },
    /// A value that is NaN or infinite.
    #[error(
        "{array}({index}) = {value} is not a finite number ({})",
        crate::tensor_io::NONFINITE_HINT
    )]
    NonFinite {
        /// The array.
        array: String,
        /// The position.
        index: usize,
        /// The value.
        value: f64,
    },
    /// A UF value outside its declared range.
    #[error("{array}({index}) = {value} is outside its range {range}")]
    OutOfRange {
        /// The array.
        array: String,
        /// The domain point, comma-separated.
        index: String,
        /// The value.
        value: i64,
        /// The range's constraints and the symbols' values.
        range: String,
    },
    /// A monotonicity property that does not hold.
    #[error("{array} is not {property}: {detail}")]
    NotMonotone {
        /// The array.
        array: String,
        /// `nondecreasing`, `increasing`, ...
        property: &'static str,
        /// E.g. "rowptr(3) = 7 > rowptr(4) = 5".
        detail: String,
    },
    /// A rule that does not hold.
    #[error("rule `{rule}` does not hold at {at}{detail}")]
    Rule {
        /// The rule, printed.
        rule: String,
        /// The assignment, e.g. "n1 = 3, n2 = 4".
        at: String,
        /// The values involved, e.g. ": row(3) = 2, row(4) = 1".
        detail: String,
    },
    /// A rule whose check would need more evaluations than the budget.
    #[error(
        "cannot check rule `{rule}`: it needs more than {budget} evaluations \
         (neither the adjacent-pair check of an ordering nor a join on equal keys applies)"
    )]
    RuleTooExpensive {
        /// The rule, printed.
        rule: String,
        /// The budget.
        budget: u64,
    },
    /// A comparator key that cannot be computed.
    #[error("comparator {comparator}: {message}")]
    Key {
        /// The comparator.
        comparator: String,
        /// Why.
        message: String,
    },
    /// Concrete evaluation failed.
    #[error("cannot evaluate {what}: {error}")]
    Eval {
        /// What was being evaluated.
        what: String,
        /// Why it failed.
        error: EvalError,
    },
    /// The stored values do not make a tensor: a nonzero value no stored
    /// entry addresses, or two nonzero entries at one coordinate
    /// ([`crate::oracle::check_storage`]).
    #[error("{0}")]
    Storage(String),
}

// ---------------------------------------------------------------------------
// JSON

/// An `"index_width"`: `32` or `64` for both kinds, or
/// `{"positions": 64, "coordinates": 32}`.
fn index_widths(v: &serde_json::Value) -> Option<IndexWidths> {
    let width = |v: &serde_json::Value| v.as_i64()?.to_string().parse::<IndexWidth>().ok();
    if let Some(map) = v.as_object() {
        if map.len() != 2 {
            return None;
        }
        return Some(IndexWidths {
            positions: width(map.get("positions")?)?,
            coordinates: width(map.get("coordinates")?)?,
        });
    }
    width(v).map(IndexWidths::uniform)
}

fn describe(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "null".into(),
        serde_json::Value::Bool(b) => format!("the boolean {b}"),
        serde_json::Value::Number(n) if n.is_u64() && !n.is_i64() => {
            format!(
                "the integer {n}, which is beyond the 64-bit range (at most {})",
                i64::MAX
            )
        }
        serde_json::Value::Number(n)
            if n.as_f64()
                .is_some_and(|x| x.fract() == 0.0 && x.abs() >= 9.2e18) =>
        {
            format!(
                "the number {n}, which is beyond the 64-bit integer range (at most {})",
                i64::MAX
            )
        }
        serde_json::Value::Number(n) => format!("the number {n}"),
        serde_json::Value::String(_) => "a string".into(),
        serde_json::Value::Array(_) => "an array".into(),
        serde_json::Value::Object(_) => "an object".into(),
    }
}

fn structure(path: impl Into<String>, message: impl Into<String>) -> InstanceError {
    InstanceError::Structure {
        path: path.into(),
        message: message.into(),
    }
}

fn json_error(e: &serde_json::Error) -> InstanceError {
    let text = e.to_string();
    let reason = text.split(" at line ").next().unwrap_or(&text).to_string();
    InstanceError::Json {
        line: e.line().max(1),
        column: e.column().max(1),
        message: reason,
    }
}

impl Instance {
    /// Reads an instance from JSON text. Syntax errors carry the line and
    /// column; structural errors name the key path (`arrays.col[3]`).
    ///
    /// ```
    /// use synth::instance::{Instance, Values};
    /// let i = Instance::from_json(r#"{"format": "csr", "symbols": {"NR": 1},
    ///     "arrays": {"rowptr": [0, 1], "A": [2.5]}}"#).unwrap();
    /// assert_eq!(i.symbols["NR"], 1);
    /// assert_eq!(i.arrays["rowptr"], Values::Int(vec![0, 1].into()));
    /// assert_eq!(i.arrays["A"], Values::Real(vec![2.5].into()));
    /// assert_eq!(Instance::from_json(&i.to_json()).unwrap(), i);
    /// ```
    pub fn from_json(text: &str) -> Result<Instance, InstanceError> {
        let value = serde_json::from_str::<StrictValue>(text).map_err(|e| json_error(&e))?;
        Self::from_value(&value.0)
    }

    /// Reads an instance from JSON bytes (invalid UTF-8 is a located error).
    pub fn from_json_bytes(bytes: &[u8]) -> Result<Instance, InstanceError> {
        let value = serde_json::from_slice::<StrictValue>(bytes).map_err(|e| json_error(&e))?;
        Self::from_value(&value.0)
    }

    /// Reads an instance from a parsed JSON value.
    pub fn from_value(value: &serde_json::Value) -> Result<Instance, InstanceError> {
        let object = value.as_object().ok_or_else(|| {
            structure(
                "(top level)",
                format!(
                    "expected an object with \"format\", \"symbols\" and \"arrays\", found {}",
                    describe(value)
                ),
            )
        })?;
        for key in object.keys() {
            if !["format", "symbols", "arrays", "index_width", "value_type"].contains(&key.as_str())
            {
                return Err(structure(
                    key.clone(),
                    "unknown key; an instance has \"format\", \"symbols\", \"arrays\" \
                     and optionally \"index_width\" and \"value_type\"",
                ));
            }
        }
        let value_type = match object.get("value_type") {
            None => ValueType::F64,
            Some(v) => v
                .as_str()
                .and_then(|s| s.parse::<ValueType>().ok())
                .ok_or_else(|| {
                    structure(
                        "value_type",
                        format!(
                            "expected \"float64\", \"float32\", \"int64\" or \"int32\", found {}",
                            match v.as_str() {
                                Some(s) => format!("\"{s}\""),
                                None => describe(v),
                            }
                        ),
                    )
                })?,
        };
        let index_width = match object.get("index_width") {
            None => None,
            Some(v) => Some(index_widths(v).ok_or_else(|| {
                structure(
                    "index_width",
                    format!(
                        "expected 32 or 64, or {{\"positions\": 32|64, \"coordinates\": \
                         32|64}}, found {}",
                        describe(v)
                    ),
                )
            })?),
        };
        let format = match object.get("format") {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(structure(
                    "format",
                    format!(
                        "expected the format's name (a string), found {}",
                        describe(other)
                    ),
                ))
            }
            None => return Err(structure("format", "missing: the format's name")),
        };
        let mut symbols = BTreeMap::new();
        match object.get("symbols") {
            None => {}
            Some(serde_json::Value::Object(map)) => {
                for (name, v) in map {
                    let n = v.as_i64().ok_or_else(|| {
                        structure(
                            format!("symbols.{name}"),
                            format!("expected an integer, found {}", describe(v)),
                        )
                    })?;
                    symbols.insert(name.clone(), n);
                }
            }
            Some(other) => {
                return Err(structure(
                    "symbols",
                    format!("expected an object of integers, found {}", describe(other)),
                ))
            }
        }
        let mut arrays = BTreeMap::new();
        match object.get("arrays") {
            None => {}
            Some(serde_json::Value::Object(map)) => {
                for (name, v) in map {
                    let items = v.as_array().ok_or_else(|| {
                        structure(
                            format!("arrays.{name}"),
                            format!("expected an array of numbers, found {}", describe(v)),
                        )
                    })?;
                    let mut ints = Vec::with_capacity(items.len());
                    let mut all_int = true;
                    for (k, x) in items.iter().enumerate() {
                        if !x.is_number() {
                            return Err(structure(
                                format!("arrays.{name}[{k}]"),
                                format!("expected a number, found {}", describe(x)),
                            ));
                        }
                        // Each number's text is read once here (the
                        // common case, an integer of 64 bits), twice for
                        // a real.
                        match x.as_i64() {
                            Some(n) if all_int => ints.push(n),
                            Some(_) => {}
                            None if x.is_u64() => {
                                return Err(structure(
                                    format!("arrays.{name}[{k}]"),
                                    format!(
                                        "{}; write a value with a decimal point if it is a real",
                                        describe(x)
                                    ),
                                ))
                            }
                            None => all_int = false,
                        }
                    }
                    let values = if all_int {
                        Values::Int(ints.into())
                    } else {
                        // Every item is a number, read from its text as the
                        // nearest double (`strict_json`); one beyond the
                        // range of a double has none.
                        // `-0` is the integer 0, whose double is +0.0.
                        let reals = items.iter().enumerate().map(|(k, x)| {
                            let real = x
                                .as_f64()
                                .map(|r| if r == 0.0 && x.is_i64() { 0.0 } else { r });
                            real.ok_or_else(|| {
                                structure(
                                    format!("arrays.{name}[{k}]"),
                                    format!("{} is beyond the range of a double", describe(x)),
                                )
                            })
                        });
                        let reals: Vec<f64> = reals.collect::<Result<_, _>>()?;
                        // Reals of a `float32` instance are its values.
                        match value_type {
                            ValueType::F32 => {
                                Values::Real32(reals.iter().map(|&x| x as f32).collect())
                            }
                            _ => Values::Real(reals.into()),
                        }
                    };
                    arrays.insert(name.clone(), values);
                }
            }
            Some(other) => {
                return Err(structure(
                    "arrays",
                    format!("expected an object of arrays, found {}", describe(other)),
                ))
            }
        }
        Ok(Instance {
            format,
            symbols,
            arrays,
            index_width,
            value_type,
        })
    }

    /// Every size an index width must hold to store the instance as an
    /// instance of `d` ([`codegen::width`]), lazily (a caller that stops
    /// early, or [`codegen::width::WidthChoices::resolve`] at 64 bits, does
    /// not pay for the rest): each symbol, each array's length (of the
    /// array's kind, [`Descriptor::index_kind`]; the value array's counts
    /// as positions), and the value of largest magnitude (`col[17]`) of
    /// each index array.
    pub fn sizes<'a>(&'a self, d: &'a Descriptor) -> impl Iterator<Item = Size<SizeOf<'a>>> + 'a {
        let symbols = self.symbols.iter().map(|(name, &v)| Size {
            kind: None,
            what: SizeOf::Symbol(name),
            value: i128::from(v),
        });
        let arrays = self.arrays.iter().flat_map(move |(name, values)| {
            let kind = if *name == d.data_name {
                IndexKind::Position
            } else {
                d.index_kind(name)
            };
            let len = Size {
                kind: Some(kind),
                what: SizeOf::Length(name),
                value: i128::try_from(values.len()).unwrap_or(i128::MAX),
            };
            // The widest value, looked for only when the length was looked
            // at, and not in an array held at 32 bits: its values fit every
            // width (a scan of millions of them cost 2% of a conversion).
            let widest = std::iter::once(()).filter_map(move |()| {
                let (k, v) = Some(values)
                    .filter(|v| *name != d.data_name && !matches!(v, Values::Int32(_)))?
                    .widest_int()?;
                Some(Size {
                    kind: Some(kind),
                    what: SizeOf::Element(name, k),
                    value: i128::from(v),
                })
            });
            std::iter::once(len).chain(widest)
        });
        symbols.chain(arrays)
    }

    /// The instance as JSON: `format`, `symbols`, `arrays`, keys sorted, one
    /// array per line. Reals print with a decimal point or an exponent, so
    /// they read back as reals, exactly; non-finite reals (which
    /// JSON cannot carry: spf's writers refuse an instance holding one
    /// before they call this) print as `null`.
    pub fn to_json(&self) -> String {
        let string = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
        let mut out = String::new();
        let _ = write!(
            out,
            "{{\n  \"format\": {},\n  \"symbols\": {{",
            string(&self.format)
        );
        for (k, (name, v)) in self.symbols.iter().enumerate() {
            let sep = if k == 0 { "" } else { ", " };
            let _ = write!(out, "{sep}{}: {v}", string(name));
        }
        out.push_str("},\n  \"arrays\": {");
        for (k, (name, values)) in self.arrays.iter().enumerate() {
            let sep = if k == 0 { "\n" } else { ",\n" };
            let _ = write!(out, "{sep}    {}: [", string(name));
            match values {
                Values::Int(_) | Values::Int32(_) => {
                    for i in 0..values.len() {
                        if i > 0 {
                            out.push(',');
                        }
                        let _ = write!(out, "{}", values.int_at(i).unwrap_or_default());
                    }
                }
                Values::Real(_) | Values::Real32(_) => {
                    // A `float32` exactly, as the double it is.
                    for (i, x) in values.to_reals().iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        let text = serde_json::to_string(x).unwrap_or_else(|_| "null".into());
                        out.push_str(&text);
                    }
                }
            }
            out.push(']');
        }
        if !self.arrays.is_empty() {
            out.push_str("\n  ");
        }
        out.push('}');
        match self.index_width.map(|w| (w, w.uniform_width())) {
            None => {}
            Some((_, Some(w))) => {
                let _ = write!(out, ",\n  \"index_width\": {w}");
            }
            Some((w, None)) => {
                let _ = write!(
                    out,
                    ",\n  \"index_width\": {{\"positions\": {}, \"coordinates\": {}}}",
                    w.positions, w.coordinates
                );
            }
        }
        if self.value_type != ValueType::F64 {
            let _ = write!(out, ",\n  \"value_type\": \"{}\"", self.value_type);
        }
        out.push_str("\n}\n");
        out
    }
}
