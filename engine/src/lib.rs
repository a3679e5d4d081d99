//! spf's conversion engine: what runs a synthesized conversion on data.
//!
//! Synthesis ([`synth`]) makes a validated conversion between two
//! formats; this crate runs it. It compiles the conversion's C into a
//! shared library kept in a cache ([`native`], [`native_cache`],
//! [`c_compiler`]), or runs it in codegen's interpreter, checks inputs and
//! results with compiled checks ([`native_check`]) or synth's own
//! ([`runner`]), reads and writes instance files ([`files`], [`output`]),
//! manages the memory a conversion fills ([`memory`]), and generates the
//! stand-alone conversion programs of `spf build` ([`program`]).
//!
//! Every entry point returns [`Error`]; nothing here prints or exits.
//! What a caller sees while a conversion runs goes through an
//! [`observe::Observer`].

pub mod api;
pub mod c_compiler;
pub mod coordinates;
pub mod error;
pub mod files;
pub mod memory;
pub mod native;
pub mod native_cache;
pub mod native_check;
pub mod observe;
pub mod output;
pub mod pipeline;
pub mod prepared;
pub mod program;
pub mod route;
pub mod runner;
pub mod synthesis;
pub mod zeros;

pub use api::{
    check, check_each, read, read_with, write, Array, ArrayRef, Buffer, CheckReport, Converter,
    Engine, Format, Instance, InstanceBuilder, InstanceView, Options, ViewBuilder,
};
pub use codegen::ValueType;
pub use error::{Error, Result};

/// The tests run under the `spf` binary's allocator, as the memory
/// management's own tests need.
#[cfg(test)]
#[global_allocator]
static ALLOCATOR: memory::huge_pages::HugePages = memory::huge_pages::HugePages;

/// What a test reports beyond passing or failing: a missing prerequisite,
/// a host feature its host-only part lacks (the file every crate's tests
/// share).
#[cfg(test)]
#[path = "../../tests/common/report.rs"]
pub mod report;
