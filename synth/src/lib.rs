//! Synthesis of sparse format conversions (dissertation chapter 4).
//!
//! A [`Descriptor`] describes one format; synthesis
//! composes two of them into an SPF computation that converts between them.

pub mod builtin;
pub mod candidate;
pub mod check;
pub(crate) mod compiled_expr;
pub mod concrete;
pub mod constraint_graph;
pub mod conversion;
pub mod coordinate_sort;
pub mod descriptor;
pub mod descriptor_file;
mod error;
pub mod established;
pub mod fingerprint;
mod flatten;
mod halves;
pub mod instance;
pub mod instance_validation;
pub mod lower;
pub mod npz;
pub mod oracle;
pub mod order;
pub(crate) mod ordered_points;
pub mod plan;
pub mod record;
pub mod representable;
pub mod rule_plan;
pub mod strict_json;
pub mod synthesize;
pub mod synthesized;
pub mod tensor_io;
pub mod validate;

pub use descriptor::{Comparator, Construct, Descriptor, KeyExpr, SourceLines};
