//! The Computation IR of the dissertation's chapter 3: data spaces,
//! statements with typed bodies, iteration domains, schedules and data
//! accesses.
//!
//! A [`Computation`] is what synthesis produces and what code generation
//! scans. Everything in it is typed: statement bodies are [`Body`] trees, not
//! strings, and index expressions are [`Expr`]s over the
//! statement's iteration tuple (`Var::Tuple(p)` is position `p` of the
//! statement's domain), symbols and UF calls. Read and write access relations
//! are derived from the bodies, so they cannot disagree with them.

mod body;
mod parse;
mod print;
mod schedule;
pub mod transform;

pub use body::{Access, BinOp, Body, Condition, UpdateOp, ValueExpr};
pub use parse::parse_computation;
pub use schedule::{schedule_dims, schedule_relation, ScheduleDim, ScheduleError};

use crate::expr::Expr;
use crate::relation::Relation;
use crate::set::Set;

/// The element type of a data space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    /// 64-bit signed integers (index arrays, counters).
    Int,
    /// 64-bit floating point values.
    Real,
}

/// How a data space relates to the computation's caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Read-only input.
    In,
    /// Written by the computation and returned.
    Out,
    /// Read and written, visible to the caller.
    InOut,
    /// Private to the computation.
    Temp,
}

impl Role {
    /// Whether the caller sees the data space after the computation (it is live-out).
    pub fn is_live_out(self) -> bool {
        matches!(self, Role::Out | Role::InOut)
    }
}

/// A named collection of memory locations: a scalar (no dimensions) or a
/// dense array with one extent per dimension.
#[derive(Clone, Debug, PartialEq)]
pub struct DataSpace {
    /// The name used in statement bodies and, for index arrays, as a UF.
    pub name: String,
    /// Element type.
    pub elem: ElemType,
    /// Extents, one per dimension, over the computation's symbols (row-major).
    pub extents: Vec<Expr>,
    /// Input, output, both, or temporary.
    pub role: Role,
}

/// A runtime object the statements call methods on (`P.insert(...)`),
/// such as the ordered set of synthesis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeObject {
    /// The object's name.
    pub name: String,
    /// The runtime type, e.g. `OrderedSet`.
    pub kind: String,
    /// Constructor arguments (arities, comparator name), as written.
    pub args: Vec<String>,
}

/// One statement: what it does, over which iterations, in which order.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// The statement's name (`S0`), unique in its computation.
    pub name: String,
    /// What one instance does.
    pub body: Body,
    /// The iteration domain; its tuple names the iterators used in `body`.
    pub domain: Set,
    /// A function from the domain's tuple to a lexicographically ordered time tuple.
    pub schedule: Relation,
}

/// A data access of a statement: the data space and the relation from the
/// statement's iteration tuple to the element's index tuple.
#[derive(Clone, Debug, PartialEq)]
pub struct AccessRelation {
    /// The data space accessed.
    pub space: String,
    /// `{[iteration] -> [index]}`.
    pub relation: Relation,
}

/// A computation: symbols (integer parameters), data spaces, runtime objects
/// and statements.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Computation {
    /// The computation's name (a valid C and Rust identifier).
    pub name: String,
    /// Integer parameters such as `N`, `NNZ`, in order.
    pub symbols: Vec<String>,
    /// Data spaces, in declaration order.
    pub spaces: Vec<DataSpace>,
    /// Runtime objects, in declaration order.
    pub objects: Vec<RuntimeObject>,
    /// Statements, in declaration order (execution order is the schedules').
    pub stmts: Vec<Stmt>,
}

impl Computation {
    /// The data space called `name`.
    pub fn space(&self, name: &str) -> Option<&DataSpace> {
        self.spaces.iter().find(|d| d.name == name)
    }

    /// The statement called `name`.
    pub fn stmt(&self, name: &str) -> Option<&Stmt> {
        self.stmts.iter().find(|s| s.name == name)
    }
}

impl Stmt {
    /// The data spaces read, with access relations derived from the body.
    pub fn reads(&self) -> Vec<AccessRelation> {
        let mut out = Vec::new();
        self.body
            .for_each_read(&mut |a| out.push(self.access_relation(a)));
        out
    }

    /// The data spaces written, with access relations derived from the body.
    /// An update such as `+=` both reads and writes its target.
    pub fn writes(&self) -> Vec<AccessRelation> {
        let mut out = Vec::new();
        self.body
            .for_each_write(&mut |a| out.push(self.access_relation(a)));
        out
    }

    /// The iterator names of the domain (of its first conjunction).
    pub fn iterators(&self) -> Vec<String> {
        match self.domain.conjunctions().first() {
            Some(c) => c.tuple_names().to_vec(),
            None => (0..self.domain.arity()).map(|i| format!("t{i}")).collect(),
        }
    }

    /// `{[iterators] -> [index] : index = access.index}` restricted to the domain.
    pub fn access_relation(&self, access: &Access) -> AccessRelation {
        AccessRelation {
            space: access.space.clone(),
            relation: body::access_relation(&self.domain, &access.index),
        }
    }
}
