//! The surface syntax tree of the IEGenLib notation and of `spf calc` programs.
//!
//! This is what the lalrpop grammar produces: names are still names and
//! nothing is normalized. [`crate::lower`] turns it into the canonical
//! [`Set`](crate::Set) and [`Relation`](crate::Relation) values.

/// A byte range in the source text, used to report errors at a line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset one past the last character.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end` (byte offsets).
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
}

/// A name with the place it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    /// The identifier text.
    pub name: String,
    /// Where it stands in the source.
    pub span: Span,
}

/// An expression as written: affine combinations of names, numbers and
/// uninterpreted function calls. Products are kept as written; lowering
/// rejects products of two non-constant factors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AstExpr {
    /// An integer literal.
    Num(i64, Span),
    /// A tuple variable, existential variable or symbolic constant.
    Name(Ident),
    /// An uninterpreted function call `f(a, b)`.
    Call(Ident, Vec<AstExpr>, Span),
    /// `a + b`
    Add(Box<AstExpr>, Box<AstExpr>, Span),
    /// `a - b`
    Sub(Box<AstExpr>, Box<AstExpr>, Span),
    /// `a * b`, or juxtaposition `2i`.
    Mul(Box<AstExpr>, Box<AstExpr>, Span),
    /// `-a`
    Neg(Box<AstExpr>, Span),
    /// `a / b`: only inside `floor(a / m)`, with `m` a positive constant.
    Div(Box<AstExpr>, Box<AstExpr>, Span),
}

impl AstExpr {
    /// The source range of the whole expression.
    pub fn span(&self) -> Span {
        match self {
            AstExpr::Num(_, s)
            | AstExpr::Call(_, _, s)
            | AstExpr::Add(_, _, s)
            | AstExpr::Sub(_, _, s)
            | AstExpr::Mul(_, _, s)
            | AstExpr::Div(_, _, s)
            | AstExpr::Neg(_, s) => *s,
            AstExpr::Name(id) => id.span,
        }
    }
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// `=` or `==`
    Eq,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// One atomic constraint as written; a chain `a <= b < c` is a `Chain` of
/// two or more comparisons sharing their middle operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AstConstraint {
    /// `e0 op0 e1 op1 e2 ...` with `ops.len() == exprs.len() - 1 >= 1`.
    Chain {
        /// The operands, left to right.
        exprs: Vec<AstExpr>,
        /// The operators between consecutive operands.
        ops: Vec<CmpOp>,
        /// Where the chain stands.
        span: Span,
    },
    /// The literal `true`.
    True(Span),
    /// The literal `false`.
    False(Span),
}

/// A conjunction: optional existential variables and a list of constraints
/// joined by `&&` or `and`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AstConjunction {
    /// Variables bound by `exists a, b : ...`.
    pub exists: Vec<Ident>,
    /// The constraints; empty means `true`.
    pub constraints: Vec<AstConstraint>,
}

/// One element of a tuple: a variable name or an expression (a constant such
/// as `0`, or an affine expression `i+1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TupleElem {
    /// A plain name: declares a tuple variable (or repeats one, meaning equality).
    Var(Ident),
    /// Anything else: the position equals this expression.
    Expr(AstExpr),
}

/// One braced term `{[i,j] : ...}` or `{[i] -> [j] : ...}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AstTerm {
    /// The (input) tuple.
    pub input: Vec<TupleElem>,
    /// The output tuple of a relation; `None` for a set.
    pub output: Option<Vec<TupleElem>>,
    /// The constraints after `:`; a term without `:` has one empty conjunction.
    /// Inside one pair of braces, `||` or `or` separates conjunctions.
    pub body: Vec<AstConjunction>,
    /// Where the braces stand.
    pub span: Span,
}

/// A set or relation literal: one or more braced terms joined by `union`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AstFormula {
    /// The braced terms, in order.
    pub terms: Vec<AstTerm>,
    /// Where the whole literal stands.
    pub span: Span,
}

/// An expression of the calculator language.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CalcExpr {
    /// A set or relation literal.
    Literal(AstFormula),
    /// A name bound earlier with `:=`.
    Var(Ident),
    /// A builtin function call: `compose(A, B)`, `project_out(S, j)`, ...
    Call(Ident, Vec<CalcArg>, Span),
}

impl CalcExpr {
    /// The source range of the whole expression.
    pub fn span(&self) -> Span {
        match self {
            CalcExpr::Literal(f) => f.span,
            CalcExpr::Var(id) => id.span,
            CalcExpr::Call(_, _, s) => *s,
        }
    }
}

/// An argument of a calculator function: an expression, or an integer (as in
/// `project_out(S, 1)`). A bare name parses as `Expr(CalcExpr::Var(..))` and is
/// resolved by the function that receives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CalcArg {
    /// A calculator expression (a bare name included).
    Expr(CalcExpr),
    /// An integer literal.
    Int(i64, Span),
}

/// A monotonicity property of a UF declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AstMonotonicity {
    /// `nondecreasing`: x1 <= x2 implies f(x1) <= f(x2)
    Nondecreasing,
    /// `increasing`: x1 < x2 implies f(x1) < f(x2)
    Increasing,
    /// `nonincreasing`: x1 <= x2 implies f(x1) >= f(x2)
    Nonincreasing,
    /// `decreasing`: x1 < x2 implies f(x1) > f(x2)
    Decreasing,
}

/// Whether a universally quantified rule is an implication or an equivalence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleArrow {
    /// `=>`
    Implies,
    /// `<=>`
    Iff,
}

/// One statement of a calculator program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Statement {
    /// `uf NAME : SET -> SET [PROPS];`
    Uf {
        /// The function's name.
        name: Ident,
        /// Its domain (a set literal).
        domain: AstFormula,
        /// Its range (a set literal).
        range: AstFormula,
        /// Monotonicity properties, in the order written.
        props: Vec<(AstMonotonicity, Span)>,
        /// The whole statement.
        span: Span,
    },
    /// `forall e1, e2 : P => Q;` (or `<=>`): a universally quantified rule
    /// over uninterpreted functions.
    Forall {
        /// The quantified variables.
        vars: Vec<Ident>,
        /// The premise, a conjunction.
        premise: AstConjunction,
        /// `=>` or `<=>`.
        arrow: RuleArrow,
        /// The conclusion, a conjunction.
        conclusion: AstConjunction,
        /// The whole statement.
        span: Span,
    },
    /// `NAME := EXPR;`
    Assign(Ident, CalcExpr, Span),
    /// `EXPR;` prints the value.
    Print(CalcExpr, Span),
}
