//! Fallible allocation: the sizes of a run come from its input, so an
//! array the machine cannot hold is an error ([`TooLarge`]) that names it,
//! never an abort. The interpreter's arrays and the runtime objects'
//! storage are allocated through it.

/// An array that cannot be allocated, and how much it needs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("too large: `{space}` would need {need}, more than this machine can allocate")]
pub struct TooLarge {
    /// The data space (or runtime object) whose storage it is.
    pub space: String,
    /// `N elements (M bytes)`, or `more than 2^63 elements` when the size
    /// itself overflows.
    pub need: String,
}

impl TooLarge {
    /// A size whose product of extents does not fit in 64 bits.
    pub fn overflow(space: &str) -> TooLarge {
        TooLarge {
            space: space.to_string(),
            need: "more than 2^63 elements".to_string(),
        }
    }
}

/// `len` copies of `fill`, or [`TooLarge`] when the allocation fails (the
/// sizes of a run come from its input: a matrix that declares 2^40 rows
/// must be an error, never an abort).
pub fn try_zeroed<T: Clone>(len: usize, fill: T, space: &str) -> Result<Vec<T>, TooLarge> {
    let mut v = Vec::new();
    if v.try_reserve_exact(len).is_err() {
        return Err(TooLarge {
            space: space.to_string(),
            need: format!(
                "{len} elements ({} bytes)",
                len as u128 * std::mem::size_of::<T>() as u128
            ),
        });
    }
    v.resize(len, fill);
    Ok(v)
}
