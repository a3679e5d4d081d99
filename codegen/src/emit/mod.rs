//! What the C and Rust backends share: their error type, the description of
//! a generated function's parameters, identifier mapping, and the lowering of
//! a [`LoopProgram`](crate::ast::LoopProgram) into a small typed tree that
//! each backend prints in its own syntax.
//!
//! Lowering does everything that does not depend on the target language:
//! it resolves names (symbols, data spaces, loop variables), substitutes each
//! statement's iterators by their values from
//! [`Node::Stmt`](crate::ast::Node::Stmt), linearizes multi-dimensional
//! accesses row-major with the data space's extents, infers the type
//! (integer or real) of every value and marks where an integer is promoted
//! to a real, folds affine sums so that `i + 1` stays `i + 1`, checks
//! runtime-object declarations and calls ([`crate::runtime`]), and rejects
//! what the backends cannot print (writes to inputs, unbound variables,
//! ...). Printing then only chooses syntax and parentheses.
//!
//! The parts, one idea each:
//!
//! * `names` — identifiers: `Lang`, `Namer`, the function's name;
//! * `tree` — the lowered tree: `Code`, `Action`, `LNode`, ...;
//! * `lower` — `Lowered` and `lower()`: the program lowered,
//!   with what the printers need to know about its names and parameters;
//! * `walk` — visitors over the tree (reads, counts, loop shapes);
//! * `print` — precedence, `Dialect` and the shared printer;
//! * the plans a backend may follow, each a part of `impl Lowered`:
//!   `zero_fill` (arrays that need no zero fill), `rows` (arrays filled
//!   row by row), `lookahead` (a placing loop's keys ahead),
//!   `object_plans` (a scatter's starts sorted in place, a permutation's
//!   viewed keys).

use std::fmt;

use iegen::computation::{ElemType, Role};

use crate::runtime::{CallError, SpecError};
use crate::width::Elem;

mod lookahead;
mod lower;
mod names;
mod object_plans;
mod print;
mod rows;
mod tree;
mod walk;
mod zero_fill;

pub(crate) use lookahead::Lookahead;
pub(crate) use lower::{lower, Lowered};
pub(crate) use names::{Lang, Namer};
pub(crate) use print::{print, print_conds, print_place, reads_any, Dialect, Prec, Used, P};
pub(crate) use rows::RowFill;
pub(crate) use tree::{lin, Action, CmpOp, Code, Cond, InitOrder, LNode, ObjectInit, Ty};
pub(crate) use walk::{calls_in_node, count_calls, insert_once, loop_from_zero, stores_rising};

/// Where in a loop program an [`EmitError`] was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Site {
    /// In the body of the named statement (or in its iterator values).
    Statement(String),
    /// In the bounds of the loop over the named variable.
    Loop(String),
    /// In the value of the named `let` variable.
    Let(String),
    /// In the guard of an `if` node.
    Guard,
    /// In an extent of the named data space.
    Extent(String),
    /// In the constructor arguments of the named runtime object.
    Object(String),
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Site::Statement(s) => write!(f, "statement {s}"),
            Site::Loop(v) => write!(f, "bounds of the loop over `{v}`"),
            Site::Let(v) => write!(f, "value of `{v}`"),
            Site::Guard => write!(f, "guard"),
            Site::Extent(s) => write!(f, "extent of data space `{s}`"),
            Site::Object(o) => write!(f, "arguments of runtime object `{o}`"),
        }
    }
}

/// Why a loop program cannot be printed as C or Rust.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EmitError {
    /// A construct the backends do not support. Not produced by the current
    /// backends (runtime-object calls are supported since the runtime exists).
    #[error("statement {stmt}: {what} is not supported by the code generators yet")]
    Unsupported {
        /// The statement.
        stmt: String,
        /// What it uses.
        what: String,
    },
    /// A node refers to a statement the computation does not have.
    #[error("the loop AST refers to statement #{index} but the computation has {count}")]
    NoSuchStatement {
        /// The index in the node.
        index: usize,
        /// The number of statements.
        count: usize,
    },
    /// A statement node gives a number of iterator values different from the
    /// domain's arity.
    #[error("statement {stmt}: the loop AST gives {found} iterator values but its domain has {expected} iterators")]
    IteratorCount {
        /// The statement.
        stmt: String,
        /// The domain's arity.
        expected: usize,
        /// The number of values given.
        found: usize,
    },
    /// A statement body uses an iterator position outside its domain's tuple,
    /// or an existentially quantified variable.
    #[error("statement {stmt}: the body uses the variable {var}, which is not an iterator of its domain")]
    BadIterator {
        /// The statement.
        stmt: String,
        /// The variable, as printed by iegen.
        var: String,
    },
    /// A name used as a data space (an access or an index array call) that
    /// the computation does not declare.
    #[error("{site}: `{name}` is not a data space of the computation")]
    UnknownSpace {
        /// Where.
        site: Site,
        /// The name.
        name: String,
    },
    /// An index array call (a UF) on a data space of reals.
    #[error("{site}: `{name}` holds reals and cannot be used as an index array")]
    NotIndexArray {
        /// Where.
        site: Site,
        /// The data space.
        name: String,
    },
    /// An access with a number of indices different from the data space's
    /// number of dimensions.
    #[error(
        "{site}: data space `{space}` has {expected} dimension(s) but is indexed with {found}"
    )]
    Arity {
        /// Where.
        site: Site,
        /// The data space.
        space: String,
        /// Its number of dimensions.
        expected: usize,
        /// The number of indices given.
        found: usize,
    },
    /// A symbolic constant the computation does not declare.
    #[error("{site}: `{name}` is not a symbol of the computation")]
    UnknownSymbol {
        /// Where.
        site: Site,
        /// The name.
        name: String,
    },
    /// A variable that no enclosing loop or `let` binds (or a variable in
    /// an extent, which may only use symbols and index arrays).
    #[error("{site}: variable `{name}` is not bound by an enclosing loop or let")]
    UnboundVariable {
        /// Where.
        site: Site,
        /// The variable.
        name: String,
    },
    /// A statement writes a data space whose role is `in`.
    #[error("statement {stmt} writes `{space}`, an input of the computation")]
    WriteToInput {
        /// The statement.
        stmt: String,
        /// The data space.
        space: String,
    },
    /// A real value assigned to an integer data space.
    #[error("statement {stmt} stores a real value into `{space}`, which holds integers")]
    RealToInt {
        /// The statement.
        stmt: String,
        /// The data space.
        space: String,
    },
    /// A comparison operator other than `==`, `!=`, `<`, `<=`, `>`, `>=`.
    #[error("statement {stmt}: unknown comparison operator `{op}`")]
    Comparison {
        /// The statement.
        stmt: String,
        /// The operator.
        op: String,
    },
    /// A floor or ceiling division by a constant that is not positive.
    #[error("{site}: division by {divisor}; loop ASTs divide by positive constants only")]
    Divisor {
        /// Where.
        site: Site,
        /// The divisor.
        divisor: i64,
    },
    /// `min` or `max` of no values.
    #[error("{site}: min or max of no values")]
    EmptyMinMax {
        /// Where.
        site: Site,
    },
    /// The computation's name is not a usable identifier.
    #[error("the computation's name `{0}` is not a valid identifier")]
    FunctionName(String),
    /// A runtime object declaration the runtime does not provide.
    #[error("runtime object `{object}`: {error}")]
    Object {
        /// The object.
        object: String,
        /// What is wrong with its declaration.
        error: SpecError,
    },
    /// An invalid call of a runtime object.
    #[error("statement {stmt}: {error}")]
    Call {
        /// The statement.
        stmt: String,
        /// What is wrong with the call.
        error: CallError,
    },
}

/// What a parameter of a generated function stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A symbolic constant, passed as a 64-bit integer.
    Symbol,
    /// A data space with at least one dimension, passed as a pointer (C) or
    /// a slice (Rust) of its elements, row-major.
    Array {
        /// Element type, with an index array's width.
        elem: Elem,
        /// `In` (read-only), `Out` or `InOut` (written).
        role: Role,
    },
    /// An `out` data space sized by the computation (its extents use size
    /// spaces, see [`crate::dynamic`]): allocated by the function and
    /// returned through a `T **` parameter in C (the caller frees it), a
    /// `&mut Vec<T>` in Rust (cleared, then resized).
    DynArray {
        /// Element type, with an index array's width.
        elem: Elem,
    },
    /// A data space without dimensions: by value when its role is `In`,
    /// by pointer (C) or `&mut` (Rust) otherwise.
    Scalar {
        /// Element type.
        elem: ElemType,
        /// `In`, `Out` or `InOut`.
        role: Role,
    },
}

/// One parameter of a generated function, in order: the symbols first, then
/// the data spaces that are not temporaries, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parameter {
    /// The name in the computation (`NNZ`, `A`).
    pub source: String,
    /// The parameter's name in the generated code (`NNZ`, `A` in C; `nnz`,
    /// `a` in Rust).
    pub name: String,
    /// What it stands for.
    pub kind: ParamKind,
}
