//! Synthesis of sparse format conversions (dissertation chapter 4).
//!
//! A [`Descriptor`](descriptor::Descriptor) describes one format; synthesis
//! composes two of them into an SPF computation that converts between them.

pub mod descriptor;

pub use descriptor::{Comparator, Descriptor, KeyExpr};
