//! spf: sparse tensor format conversions synthesized with the Sparse
//! Polyhedral Framework.
//!
//! A [`Format`] is a descriptor: how a format's index arrays map its
//! stored entries to dense coordinates. A [`Converter`] between two
//! formats is synthesized from their descriptors, validated, and compiled
//! once; it then converts any number of [`Instance`]s, from any thread.
//! [`read`] and [`write`] move instances through Matrix Market, FROSTT,
//! `.npz` (scipy's layouts) and JSON files; [`check()`] tells whether a
//! descriptor is well-formed and converts.
//!
//! ```
//! use spf::{Converter, Format, Options};
//!
//! let (coo, csc) = (Format::builtin("coo")?, Format::builtin("csc")?);
//! let a = spf::read("tests/data/matrices/dwt_2680.mtx", &coo)?;
//! let b = Converter::new(&coo, &csc, &Options::default())?.convert(&a)?;
//! assert_eq!(b.entries()?, a.entries()?);
//! # Ok::<(), spf::Error>(())
//! ```
//!
//! Every entry point returns [`Error`], whose variants say who can fix
//! the problem; nothing here prints or exits. The layers below are
//! re-exported for what the API does not cover: [`iegen`] (sets and
//! relations), [`codegen`] (scanning and printing code), [`synth`]
//! (descriptors and synthesis) and [`engine`] (running conversions).
//! ARCHITECTURE.md is the map.

pub use codegen;
pub use engine;
pub use iegen;
pub use synth;

pub use engine::{
    check, check_each, read, read_with, write, Array, ArrayRef, Buffer, CheckReport, Converter,
    Engine, Error, Format, Instance, InstanceBuilder, InstanceView, Options, Result, ValueType,
    ViewBuilder,
};
