//! Code generation for SPF computations.
//!
//! [`scan()`] turns a [`Computation`](iegen::computation::Computation) into a
//! [`LoopProgram`](ast::LoopProgram) by polyhedra scanning; the backends print
//! it as C or Rust or run it in-process. [`runtime`] holds the runtime objects
//! (permutations, ordered sets) that statements call, and the C and Rust
//! runtimes the backends emit with the code (docs/runtime.md).

pub mod allocation;
pub mod ast;
pub mod available_memory;
pub mod buffer;
pub mod c;
pub mod dynamic;
pub mod emit;
pub mod interp;
pub mod runtime;
pub mod rust;
pub mod scan;
pub mod value;
pub mod width;

pub use scan::{scan, ScanError};
pub use value::ValueType;
