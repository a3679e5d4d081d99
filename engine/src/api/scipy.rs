//! Instances as scipy.sparse holds them in memory: the arrays of a scipy
//! object under the keys `save_npz` writes (`indptr`, `indices`, `data`,
//! ...), read as the `.npz` reader reads that archive and given back as
//! its writer writes it ([`synth::npz::members`]). The Python package
//! builds scipy objects from these and reads them into instances.

use std::borrow::Cow;

use synth::instance::Values;
use synth::npz::members::{Content, InMemory, Shaped};

use super::converter::Converter;
use super::format::Format;
use super::instance::{invalid, view, Array, ArrayRef, Instance};
use crate::runner::{Expected, Source};
use crate::Error;

/// One array of an instance in scipy's layout ([`Instance::scipy`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ScipyArray<'a> {
    /// scipy's key (`indptr`, `indices`, `row`, `col`, `coords`,
    /// `offsets`, `data`, `shape`).
    pub key: String,
    /// Its shape (C order): `data` of a bsr is `blocks × R × C`, of a dia
    /// `diagonals × columns`, a 3-D coo's `coords` `3 × entries`.
    pub shape: Vec<u64>,
    /// Its elements, flat.
    pub elements: Elements<'a>,
}

/// The elements of a [`ScipyArray`]: the instance's own array where scipy
/// stores it as spf does, else made for scipy (a dia's data by column, a
/// 3-D coo's stacked coordinates, an index array at another width).
#[derive(Clone, Debug, PartialEq)]
pub enum Elements<'a> {
    /// The instance's array, borrowed.
    Held(ArrayRef<'a>),
    /// Made for scipy's layout.
    Made(Array),
}

/// An instance in scipy's layout ([`Instance::scipy`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Scipy<'a> {
    /// scipy's name of the format (`csr`, `csc`, `coo`, `bsr`, `dia`).
    pub format: &'static str,
    /// The dense shape.
    pub shape: Vec<i64>,
    /// The arrays, the shape among them.
    pub arrays: Vec<ScipyArray<'a>>,
}

impl Instance {
    /// The instance in scipy's layout, when its format has one: index
    /// arrays at 32 bits when its sizes fit (as scipy chooses), values at
    /// the instance's type.
    ///
    /// # Errors
    ///
    /// `Err(None)` when the format has no scipy layout (DCSR, ELL, CSF,
    /// ...), `Err(Some(reason))` when this instance cannot take it (a BSR
    /// whose extents are not multiples of its block).
    ///
    /// ```
    /// use engine::api::scipy::Elements;
    /// use engine::{ArrayRef, Format, Instance};
    ///
    /// let csr = Format::builtin("csr")?;
    /// let a = Instance::builder(&csr)
    ///     .symbol("NR", 2).symbol("NC", 3).symbol("NNZ", 2)
    ///     .array("rowptr", vec![0i32, 1, 2])
    ///     .array("col", vec![2i32, 0])
    ///     .array("A", vec![1.5, 2.5])
    ///     .build()?;
    /// let s = a.scipy().unwrap();
    /// assert_eq!((s.format, s.shape.as_slice()), ("csr", &[2, 3][..]));
    /// let indices = s.arrays.iter().find(|m| m.key == "indices").unwrap();
    /// assert_eq!(indices.elements, Elements::Held(ArrayRef::I32(&[2, 0])));
    /// # Ok::<(), engine::Error>(())
    /// ```
    pub fn scipy(&self) -> Result<Scipy<'_>, Option<String>> {
        let d = self.format().descriptor();
        let (format, members) = match synth::npz::scipy_members(d, self.raw()) {
            Ok(Ok(found)) => found,
            Ok(Err(reason)) => return Err(reason),
            Err(e) => return Err(Some(e.to_string())),
        };
        let mut shape = Vec::new();
        let mut arrays = Vec::new();
        for m in members {
            let elements = match m.content {
                Content::Index { values, narrow } => index_elements(values, narrow),
                Content::Values { values, .. } => elements(values),
                Content::Ints(v) => {
                    shape.clone_from(&v);
                    Elements::Made(Array::I64(v.into()))
                }
                Content::Text(_) | Content::Flag(_) => continue,
            };
            arrays.push(ScipyArray {
                key: m.key,
                shape: m.shape,
                elements,
            });
        }
        Ok(Scipy {
            format,
            shape,
            arrays,
        })
    }

    /// The instance of `format` that a scipy object of `scipy_format`
    /// holds, given its `arrays` by key with their shapes (the `shape`
    /// among them, as int64): read as the `.npz` reader reads the archive
    /// `save_npz` writes of it (unsorted rows sorted, duplicates summed, a
    /// dia's columns turned into rows), then checked against the format.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] for a missing array, one of the wrong shape or
    /// type, a scipy format that is not `format`'s layout, or an instance
    /// that breaks the format (an index out of range).
    pub fn from_scipy(
        format: &Format,
        scipy_format: &str,
        arrays: Vec<(String, Vec<u64>, Array)>,
    ) -> Result<Instance, Error> {
        Instance::from_scipy_allowing(format, scipy_format, arrays, false)
    }

    /// [`Instance::from_scipy`], its check accepting values that are not
    /// finite (NaN, infinities) when `allow_nonfinite` says so.
    ///
    /// # Errors
    ///
    /// As [`Instance::from_scipy`].
    pub fn from_scipy_allowing(
        format: &Format,
        scipy_format: &str,
        arrays: Vec<(String, Vec<u64>, Array)>,
        allow_nonfinite: bool,
    ) -> Result<Instance, Error> {
        let mut raw = read_raw(format, in_memory(scipy_format, arrays))?;
        raw.format = format.name().to_string();
        synth::instance_validation::validate_allowing(format.descriptor(), &raw, allow_nonfinite)
            .map_err(|e| invalid(format, e))?;
        Ok(Instance::trusted(format, raw))
    }
}

impl Converter {
    /// Converts the instance of the source format that a scipy object's
    /// arrays hold ([`Instance::from_scipy`]), taking them: the input is
    /// checked once, by the conversion, and its arrays are read where they
    /// are (shared ones too: [`Array`] of an `Arc<[T]>`, a numpy array's
    /// memory) unless they must be sorted, summed or widened first. The
    /// result owns its arrays.
    ///
    /// # Errors
    ///
    /// As [`Instance::from_scipy`] and [`Converter::convert_owned`].
    pub fn convert_scipy(
        &self,
        scipy_format: &str,
        arrays: Vec<(String, Vec<u64>, Array)>,
    ) -> Result<Instance, Error> {
        let arrays = in_memory(scipy_format, arrays);
        let d = self.src().descriptor();
        let coordinates = self
            .coordinates
            .as_ref()
            .filter(|_| synth::npz::are_coordinates(&arrays));
        let raw = match coordinates {
            // The built-in coo, of doubles: checked as spf's file readers
            // check coordinates, their fingerprint taken on the way, as
            // `spf convert` takes a Matrix Market file's.
            Some(f) => match synth::npz::read_scipy_coordinates(arrays, d)
                .map_err(|e| invalid(self.src(), e))?
            {
                Ok(read) => {
                    let (instance, print) = f
                        .instance_fingerprinted(read)
                        .map_err(|e| invalid(self.src(), e))?;
                    return self
                        .run_source(Source {
                            instance,
                            expected: Expected::Fingerprint(print),
                        })
                        .map(|out| self.result(out));
                }
                Err(mut raw) => {
                    raw.format = self.src().name().to_string();
                    raw
                }
            },
            None => read_raw(self.src(), arrays)?,
        };
        self.run(raw).map(|out| self.result(out))
    }
}

/// A scipy object's arrays, by key.
fn in_memory(scipy_format: &str, arrays: Vec<(String, Vec<u64>, Array)>) -> InMemory {
    InMemory {
        format: scipy_format.to_string(),
        arrays: arrays
            .into_iter()
            .map(|(key, shape, a)| {
                (
                    key,
                    Shaped {
                        shape,
                        values: a.into(),
                    },
                )
            })
            .collect(),
    }
}

/// The instance of `format` a scipy object's arrays hold, not checked.
fn read_raw(format: &Format, arrays: InMemory) -> Result<synth::instance::Instance, Error> {
    let mut raw = synth::npz::read_scipy_arrays(arrays, format.descriptor())
        .map_err(|e| invalid(format, e))?;
    raw.format = format.name().to_string();
    Ok(raw)
}

impl Format {
    /// The built-in format a scipy object of `scipy_format` (`csr`, `csc`,
    /// `coo`, `bsr`, `dia`) and `ndim` dimensions reads as: CSR, CSC, COO
    /// (COO3D in three dimensions), DIA, and the BCSR of a bsr's `block`
    /// shape (CSR for 1 × 1 blocks).
    ///
    /// # Errors
    ///
    /// [`Error::Format`] for what no built-in format reads (a bsr of one
    /// row or one column per block, a 3-D csr), saying what does.
    ///
    /// ```
    /// use engine::Format;
    ///
    /// assert_eq!(Format::of_scipy("bsr", Some((3, 2)), 2)?.name(), "BCSR3x2");
    /// assert_eq!(Format::of_scipy("coo", None, 3)?.name(), "COO3D");
    /// # Ok::<(), engine::Error>(())
    /// ```
    pub fn of_scipy(
        scipy_format: &str,
        block: Option<(i64, i64)>,
        ndim: usize,
    ) -> Result<Format, Error> {
        let name = synth::npz::reader_of(&scipy_format.to_ascii_lowercase(), block, ndim)
            .map_err(|e| Error::Format(e.to_string()))?;
        Format::load(&name)
    }
}

/// An index array for scipy: held when its width is the one chosen, else
/// narrowed or widened.
fn index_elements(values: Cow<'_, Values>, narrow: bool) -> Elements<'_> {
    match (values, narrow) {
        (Cow::Borrowed(v @ Values::Int32(_)), true)
        | (Cow::Borrowed(v @ Values::Int(_)), false) => Elements::Held(view(v)),
        (v, true) => Elements::Made(Array::I32(
            v.as_ints()
                .unwrap_or_default()
                .iter()
                // `narrow` is chosen only when every index fits.
                .map(|&x| x as i32)
                .collect(),
        )),
        (v, false) => Elements::Made(Array::I64(
            v.as_ints().unwrap_or_default().into_owned().into(),
        )),
    }
}

/// Values for scipy: held when borrowed, else made.
fn elements(values: Cow<'_, Values>) -> Elements<'_> {
    match values {
        Cow::Borrowed(v) => Elements::Held(view(v)),
        Cow::Owned(v) => Elements::Made(v.into()),
    }
}
