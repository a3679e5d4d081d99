//! Code generation for SPF computations.
//!
//! [`scan`] turns a [`Computation`](iegen::computation::Computation) into a
//! [`LoopProgram`](ast::LoopProgram) by polyhedra scanning; the backends print
//! it as C or Rust or run it in-process.

pub mod ast;
pub mod c;
pub mod emit;
pub mod interp;
pub mod rust;
pub mod scan;

pub use scan::{scan, ScanError};
