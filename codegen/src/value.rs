//! Value types: the type a conversion stores the tensor's values at.
//!
//! A computation's `real` data spaces (the value arrays, their
//! temporaries) are printed and run at one [`ValueType`] per generated
//! function, chosen by the caller from the input ([`crate::width::Widths`]
//! carries it): `double` / `f64` by default, `float` / `f32`, `int64_t` /
//! `i64` or `int32_t` / `i32`. Arithmetic on values is the type's (C's and
//! Rust's, each operation rounded to `float` at `F32`, integer arithmetic
//! at `I64` and `I32`), so a conversion copies every value exactly; the
//! interpreter follows the same rules ([`crate::interp`]).

use std::fmt;
use std::str::FromStr;

/// The type of the values of a generated function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ValueType {
    /// `double` / `f64` (numpy's `float64`).
    #[default]
    F64,
    /// `float` / `f32` (`float32`).
    F32,
    /// `int64_t` / `i64` (`int64`).
    I64,
    /// `int32_t` / `i32` (`int32`).
    I32,
}

impl ValueType {
    /// Every value type.
    pub const ALL: [ValueType; 4] = [
        ValueType::F64,
        ValueType::F32,
        ValueType::I64,
        ValueType::I32,
    ];

    /// The C type: `double`, `float`, `int64_t`, `int32_t`.
    pub fn c_type(self) -> &'static str {
        match self {
            ValueType::F64 => "double",
            ValueType::F32 => "float",
            ValueType::I64 => "int64_t",
            ValueType::I32 => "int32_t",
        }
    }

    /// The Rust type: `f64`, `f32`, `i64`, `i32`.
    pub fn rust_type(self) -> &'static str {
        match self {
            ValueType::F64 => "f64",
            ValueType::F32 => "f32",
            ValueType::I64 => "i64",
            ValueType::I32 => "i32",
        }
    }

    /// The name numpy and the files give it: `float64`, `float32`,
    /// `int64`, `int32`.
    pub fn name(self) -> &'static str {
        match self {
            ValueType::F64 => "float64",
            ValueType::F32 => "float32",
            ValueType::I64 => "int64",
            ValueType::I32 => "int32",
        }
    }

    /// Whether the values are integers.
    pub fn is_integer(self) -> bool {
        matches!(self, ValueType::I64 | ValueType::I32)
    }

    /// Bytes per value.
    pub fn bytes(self) -> usize {
        match self {
            ValueType::F64 | ValueType::I64 => 8,
            ValueType::F32 | ValueType::I32 => 4,
        }
    }
}

impl fmt::Display for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ValueType {
    type Err = String;

    fn from_str(s: &str) -> Result<ValueType, String> {
        ValueType::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown value type `{s}` (the value types: float64, float32, int64, int32)"
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for t in ValueType::ALL {
            assert_eq!(t.name().parse::<ValueType>(), Ok(t));
            assert_eq!(
                t.bytes() * 8,
                t.name()[t.name().len() - 2..].parse().unwrap()
            );
        }
        assert!("float16".parse::<ValueType>().is_err());
        assert_eq!(ValueType::default().c_type(), "double");
    }
}
