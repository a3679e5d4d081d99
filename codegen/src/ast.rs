//! The loop AST: what polyhedra scanning produces and every backend prints
//! or runs.
//!
//! Names in the AST are final: loop variables are named after the domains'
//! iterators (primed apart where nested loops would shadow each other), and
//! each statement instance records the value of each of its iterators, so a
//! backend inlines the statement body by substituting them.

use iegen::computation::Computation;

/// An integer expression in generated code.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IndexExpr {
    /// A literal.
    Const(i64),
    /// A loop variable or a `let`-bound variable.
    Var(String),
    /// A symbolic constant (a parameter of the generated function).
    Sym(String),
    /// A read of an index array (a UF): `rowptr(i + 1)`.
    Call(String, Vec<IndexExpr>),
    /// `c0 + Σ ck·ek`: terms with their coefficients, then the constant.
    Sum(Vec<(i64, IndexExpr)>, i64),
    /// The least of several values (upper bounds of a shared loop).
    Min(Vec<IndexExpr>),
    /// The greatest of several values (lower bounds of a shared loop).
    Max(Vec<IndexExpr>),
    /// `⌊e / d⌋` for a positive divisor.
    FloorDiv(Box<IndexExpr>, i64),
    /// `⌈e / d⌉` for a positive divisor.
    CeilDiv(Box<IndexExpr>, i64),
}

/// A comparison in a guard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GuardOp {
    /// `lhs == rhs`
    Eq,
    /// `lhs <= rhs`
    Le,
}

/// One conjunct of an `if`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Guard {
    /// Left operand.
    pub lhs: IndexExpr,
    /// Comparison.
    pub op: GuardOp,
    /// Right operand.
    pub rhs: IndexExpr,
}

/// A node of the loop AST.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// `for var in lower..upper { body }` (upper exclusive).
    For {
        /// The loop variable.
        var: String,
        /// First value.
        lower: IndexExpr,
        /// One past the last value.
        upper: IndexExpr,
        /// The loop body, in order.
        body: Vec<Node>,
    },
    /// `let var = value;` then `body` with `var` in scope (an iterator fixed
    /// by an equality, such as `j = col(k)`).
    Let {
        /// The bound variable.
        var: String,
        /// Its value.
        value: IndexExpr,
        /// Where it is in scope.
        body: Vec<Node>,
    },
    /// `if (guards) { body }`.
    If {
        /// All must hold.
        guards: Vec<Guard>,
        /// Executed when they do.
        body: Vec<Node>,
    },
    /// One instance of a statement.
    Stmt {
        /// Index into the computation's statements.
        stmt: usize,
        /// The value of each iterator of the statement's domain, in tuple order.
        iterators: Vec<IndexExpr>,
    },
}

/// A scanned computation: the computation and the loop nest that executes it.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopProgram {
    /// The computation whose statements the nodes refer to.
    pub computation: Computation,
    /// The top-level nodes, in execution order.
    pub body: Vec<Node>,
}
