//! The `out` data spaces a program's memory must hold before it runs:
//! sized from the symbols and index arrays the input gives.

use iegen::computation::{Computation, Role};

pub use crate::allocation::TooLarge;

use super::*;

/// Why [`allocate_outputs`] cannot size an `out` data space.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AllocError {
    /// An extent needs a symbol or index-array value the memory lacks.
    #[error("cannot size `{space}`: its extent {extent} needs values the input does not give")]
    Unknown {
        /// The data space.
        space: String,
        /// The extent.
        extent: String,
    },
    /// The size overflows, or the array cannot be allocated.
    #[error(transparent)]
    TooLarge(#[from] TooLarge),
}

/// Puts a zero-filled array into `memory` for every `out` data space it
/// lacks, sized by its extents over the memory's symbols and index arrays
/// (`rowptr[NR + 1]`, `A[rowptr(NR)]`); a space the computation sizes
/// itself (see [`crate::dynamic`]) gets an empty one, which the run
/// replaces. Value arrays are of the inputs' value type ([`value_type`]). Outputs then have their types before the run, as
/// [`run`] expects of the caller's memory.
pub fn allocate_outputs(comp: &Computation, memory: &mut Memory) -> Result<(), AllocError> {
    // Values at the inputs' type (mixed ones are the run's error).
    let values = value_type(comp, memory).unwrap_or_default();
    for (i, d) in comp.spaces.iter().enumerate() {
        if d.role != Role::Out || memory.arrays.contains_key(&d.name) {
            continue;
        }
        let len = if crate::dynamic::is_dynamic(comp, i) {
            0
        } else {
            space_len(d, memory)?
        };
        let array = Array::try_zeros(d.elem, values, len, &d.name)?;
        memory.arrays.insert(d.name.clone(), array);
    }
    Ok(())
}

/// The number of elements of data space `d`: the product of its extents
/// over the memory's symbols, scalars and index arrays (1 for a scalar).
/// Compiled code's callers size its arrays with it: the inputs it reads,
/// and the arrays it allocates itself once its size outputs are known.
///
/// # Errors
///
/// [`AllocError::Unknown`] when an extent needs a value the memory lacks,
/// [`AllocError::TooLarge`] when the size overflows.
pub fn space_len(d: &iegen::computation::DataSpace, memory: &Memory) -> Result<usize, AllocError> {
    let overflow = || AllocError::TooLarge(TooLarge::overflow(&d.name));
    let mut len: i64 = 1;
    for e in &d.extents {
        // Evaluation fails for a missing value, or when the extent
        // itself overflows (`NR + 1` for NR = 2^63 - 1).
        let missing = std::cell::Cell::new(false);
        let v = e.evaluate(
            &mut |_| None,
            &mut |s| {
                let v = memory
                    .symbols
                    .get(s)
                    .copied()
                    .or_else(|| memory.int(s).filter(|a| a.len() == 1).map(|a| a[0]));
                missing.set(missing.get() || v.is_none());
                v
            },
            &mut |f, args| {
                let v = match args {
                    [x] => usize::try_from(*x)
                        .ok()
                        .and_then(|x| memory.int(f)?.get(x).copied()),
                    _ => None,
                };
                missing.set(missing.get() || v.is_none());
                v
            },
        );
        let v = match v {
            Some(v) => v,
            None if missing.get() => {
                return Err(AllocError::Unknown {
                    space: d.name.clone(),
                    extent: e.to_string(),
                })
            }
            None => return Err(overflow()),
        };
        len = len.checked_mul(v.max(0)).ok_or_else(overflow)?;
    }
    usize::try_from(len).map_err(|_| overflow())
}
