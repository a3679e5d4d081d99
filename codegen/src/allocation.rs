//! Fallible allocation: the sizes of a run come from its input, so an
//! array the machine cannot hold is an error ([`TooLarge`]) that names it,
//! never an abort. The interpreter's arrays and the runtime objects'
//! storage are allocated through it.

/// An array that cannot be allocated, and how much it needs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("too large: `{space}` {}", self.said())]
pub struct TooLarge {
    /// The data space (or runtime object) whose storage it is.
    pub space: String,
    /// `N GiB (M elements)` (or MiB), or `more than 2^63 elements` when the size
    /// itself overflows.
    pub need: String,
    /// The limit it is beyond.
    pub limit: Limit,
}

/// What a [`TooLarge`] allocation is beyond.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    /// What the machine can allocate (the allocation failed, or its size
    /// does not fit 64 bits).
    Machine,
    /// The memory the process could still fill: these bytes
    /// ([`crate::available_memory::available`]).
    Available(u64),
    /// A conversion's padding limit
    /// ([`crate::available_memory::Budget::with_padding`]).
    Padding(Box<Padding>),
}

/// A padding limit reached: the conversion's arrays would take `total`
/// bytes, more than `factor` times its input's `input` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Padding {
    /// The conversion's arrays with this one.
    pub total: u128,
    /// The limit's factor (`--max-padding`).
    pub factor: u32,
    /// The bytes of the conversion's input.
    pub input: u64,
}

impl TooLarge {
    /// A size whose product of extents does not fit in 64 bits.
    pub fn overflow(space: &str) -> TooLarge {
        TooLarge {
            space: space.to_string(),
            need: "more than 2^63 elements".to_string(),
            limit: Limit::Machine,
        }
    }

    /// `bytes` for `elements` of `space` (`None`: a block of bytes),
    /// beyond `limit`.
    pub fn needs(space: &str, elements: Option<u128>, bytes: u128, limit: Limit) -> TooLarge {
        TooLarge {
            space: space.to_string(),
            need: match elements {
                Some(n) => shown_need(n, bytes),
                None => shown_bytes(bytes),
            },
            limit,
        }
    }

    /// The sentence after the space's name.
    fn said(&self) -> String {
        match &self.limit {
            &Limit::Available(left) => {
                format!(
                    "needs {}, {} available",
                    self.need,
                    shown_bytes(u128::from(left))
                )
            }
            Limit::Machine => format!(
                "would need {}, more than this machine can allocate",
                self.need
            ),
            Limit::Padding(p) => format!(
                "needs {}: the conversion's arrays would take {}, more than {factor} times \
                 its input's {} (mostly padding; --max-padding {factor} is the limit, 0 none)",
                self.need,
                shown_bytes(p.total),
                shown_bytes(u128::from(p.input)),
                factor = p.factor
            ),
        }
    }
}

/// `N GiB (M elements)`.
fn shown_need(elements: u128, bytes: u128) -> String {
    format!("{} ({elements} elements)", shown_bytes(bytes))
}

/// Bytes for a person: in GiB to two decimals from 1 GiB (`22.35 GiB`),
/// in MiB or KiB to one below (`36.0 MiB`, `4.5 KiB`), in bytes below
/// 1 KiB.
fn shown_bytes(bytes: u128) -> String {
    let b = bytes as f64;
    if bytes >= 1 << 30 {
        format!("{:.2} GiB", b / f64::from(1u32 << 30))
    } else if bytes >= 1 << 20 {
        format!("{:.1} MiB", b / f64::from(1u32 << 20))
    } else if bytes >= 1 << 10 {
        format!("{:.1} KiB", b / f64::from(1u32 << 10))
    } else {
        format!("{bytes} bytes")
    }
}

/// `len` copies of `fill`, or [`TooLarge`] when they do not fit the
/// memory available ([`crate::available_memory::admit`]) or the
/// allocation fails (the sizes of a run come from its input: a matrix
/// that declares 2^40 rows must be an error, never an abort or a kill by
/// the kernel). The copies are written before it returns, so the next
/// allocation's check sees the memory taken.
pub fn try_zeroed<T: Clone>(len: usize, fill: T, space: &str) -> Result<Vec<T>, TooLarge> {
    let bytes = len as u128 * std::mem::size_of::<T>() as u128;
    crate::available_memory::admit(bytes, Some(len as u128), space)?;
    let mut v = Vec::new();
    if v.try_reserve_exact(len).is_err() {
        return Err(TooLarge {
            space: space.to_string(),
            need: shown_need(len as u128, bytes),
            limit: Limit::Machine,
        });
    }
    v.resize(len, fill);
    Ok(v)
}
