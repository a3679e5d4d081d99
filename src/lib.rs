//! spf: sparse tensor format conversions synthesized with the Sparse
//! Polyhedral Framework.
//!
//! This facade re-exports the workspace's crates; the `spf` command in
//! `src/main.rs` is built on it. See ARCHITECTURE.md for the map.

pub use codegen;
pub use iegen;
pub use synth;
