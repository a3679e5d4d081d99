//! `iegen`: sets and relations with uninterpreted functions.
//!
//! The Rust counterpart of IEGenLib. Sets `{[i,j] : 0 <= i < N && j = col(k)}`
//! and relations `{[i,k] -> [j] : j = col(k)}` are parsed from the IEGenLib
//! notation ([`syntax`]), lowered to canonical values ([`Set`], [`Relation`]),
//! and combined exactly: [`Relation::compose`] follows Strout's composition
//! theorem, projection keeps an existential wherever eliminating it would be
//! inexact. Semantic questions (emptiness, subset, equality) are answered by
//! z3 through [`Prover`], with the facts of a [`UfEnvironment`] (domains,
//! ranges, monotonicity, universally quantified rules) instantiated on the UF
//! terms that occur. [`eval`] enumerates concrete points, the oracle of the
//! property tests. [`calc`] runs `spf calc` programs.

pub mod calc;
pub mod computation;
pub mod conjunction;
pub mod constraint;
pub mod error;
pub mod eval;
pub mod expr;
pub mod formula;
pub mod lower;
pub mod pdfg;
pub mod print;
pub mod prop;
pub mod relation;
pub mod set;
pub mod simplify;
pub mod solver;
pub mod syntax;
pub mod uf_env;
pub mod value;

pub use conjunction::Conjunction;
pub use constraint::{Constraint, ConstraintKind};
pub use error::Error;
pub use eval::{Bounds, EvalError, Interpretation, UfTable};
pub use expr::{Atom, Expr, Var};
pub use formula::Formula;
pub use relation::Relation;
pub use set::Set;
pub use solver::{Prover, Verdict};
pub use uf_env::{Monotonicity, UfDecl, UfEnvironment, UfRule};
pub use value::Value;
