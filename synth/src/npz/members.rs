//! Where scipy's layout is read from and written to: the members of an
//! `.npz` archive, or arrays in memory (a scipy object handed over by the
//! Python package). One reader ([`super::read_scipy`]) and one list of
//! members ([`scipy_members`]) serve both, so a scipy object in memory
//! converts exactly as the archive `save_npz` writes of it.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{Read, Seek};

use codegen::width::IndexWidth;
use zip::ZipArchive;

use super::arrays::{self, Array, IndexArray, ValueArray};
use super::in_place::InPlace;
use super::NpzError;
use crate::instance::{ValueType, Values};

/// The members a scipy layout is read from, by key (`indptr`, `data`,
/// `shape`, ...).
pub(super) trait Members {
    /// Whether there is a member `key`.
    fn has(&mut self, key: &str) -> bool;
    /// Member `key` as 64-bit integers.
    fn ints(&mut self, key: &str) -> Result<Array<i64>, NpzError>;
    /// Member `key` as an index array, with the width it is held at; held
    /// in place where the source allows it and `in_place` asks for it.
    fn index(&mut self, key: &str, in_place: bool) -> Result<(IndexArray, IndexWidth), NpzError>;
    /// Member `key` as values, at their type.
    fn values(&mut self, key: &str) -> Result<ValueArray, NpzError>;
}

/// An archive's members, large arrays read in place when `place` allows.
pub(super) struct Archive<'z, 'p, R> {
    pub(super) zip: &'z mut ZipArchive<R>,
    pub(super) place: Option<InPlace<'p>>,
}

impl<R: Read + Seek> Members for Archive<'_, '_, R> {
    fn has(&mut self, key: &str) -> bool {
        arrays::has(self.zip, key)
    }

    fn ints(&mut self, key: &str) -> Result<Array<i64>, NpzError> {
        arrays::read_ints(self.zip, key)
    }

    fn index(&mut self, key: &str, in_place: bool) -> Result<(IndexArray, IndexWidth), NpzError> {
        arrays::read_index(self.zip, key, self.place.filter(|_| in_place))
    }

    fn values(&mut self, key: &str) -> Result<ValueArray, NpzError> {
        arrays::read_values(self.zip, key, self.place)
    }
}

/// One array of a scipy object in memory: its shape (C order) and its
/// elements, flat.
#[derive(Clone, Debug, PartialEq)]
pub struct Shaped {
    /// The shape.
    pub shape: Vec<u64>,
    /// The elements, in C order.
    pub values: Values,
}

/// A scipy object's arrays in memory, under the keys `save_npz` writes
/// them at (`indptr`, `indices`, `row`, `col`, `coords`, `offsets`,
/// `data`, `shape`), and its `format` (`csr`, `coo`, ...). Index arrays
/// are 32- or 64-bit integers; values are of any [`ValueType`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InMemory {
    /// scipy's name of the format.
    pub format: String,
    /// The arrays, by key.
    pub arrays: BTreeMap<String, Shaped>,
}

impl InMemory {
    fn take(&mut self, key: &str) -> Result<Shaped, NpzError> {
        self.arrays
            .remove(key)
            .ok_or_else(|| NpzError::missing(key))
    }
}

impl Members for InMemory {
    fn has(&mut self, key: &str) -> bool {
        self.arrays.contains_key(key)
    }

    fn ints(&mut self, key: &str) -> Result<Array<i64>, NpzError> {
        let a = self.take(key)?;
        let values = a
            .values
            .as_ints()
            .ok_or_else(|| NpzError::member(key, "holds reals, but it is an array of integers"))?
            .into_owned();
        Ok(Array {
            shape: a.shape,
            values,
        })
    }

    fn index(&mut self, key: &str, _in_place: bool) -> Result<(IndexArray, IndexWidth), NpzError> {
        let a = self.take(key)?;
        let width = match a.values {
            Values::Int32(_) => IndexWidth::W32,
            Values::Int(_) => IndexWidth::W64,
            Values::Real(_) | Values::Real32(_) => {
                return Err(NpzError::member(
                    key,
                    "holds reals, but it is an index array (int32 or int64)",
                ))
            }
        };
        Ok((
            IndexArray {
                shape: a.shape,
                values: a.values,
            },
            width,
        ))
    }

    fn values(&mut self, key: &str) -> Result<ValueArray, NpzError> {
        let a = self.take(key)?;
        let value_type = match a.values {
            Values::Real(_) => ValueType::F64,
            Values::Real32(_) => ValueType::F32,
            Values::Int(_) => ValueType::I64,
            Values::Int32(_) => ValueType::I32,
        };
        Ok(ValueArray {
            shape: a.shape,
            values: a.values,
            value_type,
        })
    }
}

/// One member of an instance in scipy's layout, as `save_npz` writes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Member<'a> {
    /// Its key (`indptr`, `data`, `shape`, `format`, ...).
    pub key: String,
    /// Its shape (C order; empty for a scalar).
    pub shape: Vec<u64>,
    /// What it holds.
    pub content: Content<'a>,
}

/// What a [`Member`] holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Content<'a> {
    /// An index array, to be stored as int32 when `narrow`, else int64;
    /// borrowed from the instance where the layout stores it as it is.
    Index {
        /// The elements.
        values: Cow<'a, Values>,
        /// Whether every element fits 32 bits and int32 is chosen.
        narrow: bool,
    },
    /// The value array, at the instance's value type.
    Values {
        /// The elements.
        values: Cow<'a, Values>,
        /// Their type.
        value_type: ValueType,
    },
    /// Integers (the `shape`), stored as int64.
    Ints(Vec<i64>),
    /// A text scalar (the `format`).
    Text(&'static str),
    /// A boolean scalar (`_is_array`).
    Flag(bool),
}
