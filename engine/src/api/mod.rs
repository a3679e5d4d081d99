//! The public API: formats, instances, converters, files and checks, as
//! the root crate `spf` re-exports them.
//!
//! | item | what |
//! |---|---|
//! | [`Format`] | a format, built in or described |
//! | [`Instance`] | a tensor in a format, checked |
//! | [`InstanceView`] | an instance of the caller's slices, read in place |
//! | [`Converter`] | one conversion, synthesized once, run many times |
//! | [`read`], [`write`] | instances from and to `.mtx`, `.tns`, `.npz`, JSON |
//! | [`check()`] | what `spf check` reports of a format |
//! | [`code`] | the conversion as C, Rust, a computation or a dataflow graph |
//! | [`scipy`] | instances as scipy.sparse holds them in memory |

mod check;
pub mod code;
mod converter;
mod files;
mod format;
mod instance;
pub mod scipy;
mod view;

pub use check::{check, check_each, CheckReport};
pub use converter::{Converter, Engine, Options};
pub use files::{read, read_with, write};
pub use format::Format;
pub use instance::{Array, ArrayRef, Buffer, Instance, InstanceBuilder};
pub use view::{InstanceView, ViewBuilder};
