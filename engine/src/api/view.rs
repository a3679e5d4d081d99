//! [`InstanceView`]: an instance whose arrays are the caller's slices,
//! read in place for as long as they are borrowed.

use std::marker::PhantomData;
use std::ops::Deref;

use synth::instance::{Buffer, Values};

use super::format::Format;
use super::instance::{ArrayRef, Instance, InstanceBuilder};
use crate::Error;

/// An [`Instance`] built from the caller's slices without a copy: its
/// arrays are the slices, read in place (by its checks and by every
/// conversion of it, compiled or interpreted) and never written. It is
/// an `Instance` for every purpose that reads one (it dereferences to
/// one); a clone of it, or of its arrays, is a copy that owns its
/// elements, and so is every conversion's result.
///
/// ```
/// use engine::{Converter, Format, InstanceView, Options};
///
/// let (coo, csr) = (Format::builtin("coo")?, Format::builtin("csr")?);
/// // [[0, 5], [7, 0]], in the caller's vectors.
/// let (row, col, values) = (vec![1i64, 0], vec![0i64, 1], vec![7.0, 5.0]);
/// let a = InstanceView::builder(&coo)
///     .symbol("NR", 2)
///     .symbol("NC", 2)
///     .symbol("NNZ", 2)
///     .array("row", &row)
///     .array("col", &col)
///     .array("A", &values)
///     .build()?;
/// // The instance's arrays are the vectors themselves.
/// assert_eq!(a.array("A").unwrap(), engine::ArrayRef::F64(&values));
/// let b = Converter::new(&coo, &csr, &Options::default())?.convert(&a)?;
/// assert_eq!(b.entries()?, a.entries()?);
/// drop(a); // `values` is the caller's again; `b` owns its arrays.
/// assert_eq!(b.array("A").unwrap().to_string(), "[5.0, 7.0]");
/// # Ok::<(), engine::Error>(())
/// ```
#[derive(Debug)]
pub struct InstanceView<'a> {
    /// Its arrays borrowed ([`Buffer::borrowed`]); never handed out by
    /// value, so no array of it outlives `'a` (a clone is a copy).
    instance: Instance,
    borrow: PhantomData<&'a [u8]>,
}

/// Builds an [`InstanceView`] symbol by symbol and slice by slice
/// ([`InstanceView::builder`]).
#[derive(Debug)]
pub struct ViewBuilder<'a> {
    builder: InstanceBuilder,
    borrow: PhantomData<&'a [u8]>,
}

impl<'a> InstanceView<'a> {
    /// A builder of a view of an instance of `format`.
    pub fn builder(format: &Format) -> ViewBuilder<'a> {
        ViewBuilder {
            builder: Instance::builder(format),
            borrow: PhantomData,
        }
    }

    /// The instance with arrays of its own (copies of the slices).
    pub fn to_instance(&self) -> Instance {
        self.instance.clone()
    }
}

impl Deref for InstanceView<'_> {
    type Target = Instance;

    fn deref(&self) -> &Instance {
        &self.instance
    }
}

impl<'a> ViewBuilder<'a> {
    /// Gives the symbol `name` the value `value`.
    pub fn symbol(self, name: &str, value: i64) -> ViewBuilder<'a> {
        ViewBuilder {
            builder: self.builder.symbol(name, value),
            borrow: PhantomData,
        }
    }

    /// Gives the array `name` (an index array or the value array) the
    /// elements of `elements`, a slice (or vector) of `i32`, `i64`, `f32`
    /// or `f64` that the view borrows.
    pub fn array(self, name: &str, elements: impl Into<ArrayRef<'a>>) -> ViewBuilder<'a> {
        // SAFETY: the buffer lives in the view, which lives at most as
        // long as `'a`; the view hands it out only by reference, and a
        // clone of it is a copy.
        let values = unsafe {
            match elements.into() {
                ArrayRef::I32(s) => Values::Int32(Buffer::borrowed(s)),
                ArrayRef::I64(s) => Values::Int(Buffer::borrowed(s)),
                ArrayRef::F32(s) => Values::Real32(Buffer::borrowed(s)),
                ArrayRef::F64(s) => Values::Real(Buffer::borrowed(s)),
            }
        };
        ViewBuilder {
            builder: self.builder.array(name, values),
            borrow: PhantomData,
        }
    }

    /// The view, checked against its format.
    ///
    /// # Errors
    ///
    /// As [`InstanceBuilder::build`].
    pub fn build(self) -> Result<InstanceView<'a>, Error> {
        Ok(InstanceView {
            instance: self.builder.build()?,
            borrow: PhantomData,
        })
    }
}

/// `From<&[T]>` and `From<&Vec<T>>` for [`ArrayRef`], for each element
/// type and its variant.
macro_rules! array_ref_from {
    ($($t:ty => $variant:ident),*) => {$(
        impl<'a> From<&'a [$t]> for ArrayRef<'a> {
            fn from(s: &'a [$t]) -> ArrayRef<'a> {
                ArrayRef::$variant(s)
            }
        }

        impl<'a> From<&'a Vec<$t>> for ArrayRef<'a> {
            fn from(v: &'a Vec<$t>) -> ArrayRef<'a> {
                ArrayRef::$variant(v)
            }
        }
    )*};
}

array_ref_from!(i32 => I32, i64 => I64, f32 => F32, f64 => F64);
