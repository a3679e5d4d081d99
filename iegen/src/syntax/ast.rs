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
    /// A sum `a + b - c + ...` of two or more terms, flat however long it
    /// is: each term with the sign written before it (the first term's is
    /// [`Sign::Plus`]; a leading `-` is a [`AstExpr::Neg`] of that term).
    Sum(Vec<(Sign, AstExpr)>, Span),
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
            | AstExpr::Sum(_, s)
            | AstExpr::Mul(_, _, s)
            | AstExpr::Div(_, _, s)
            | AstExpr::Neg(_, s) => *s,
            AstExpr::Name(id) => id.span,
        }
    }
}

/// The sign of a term of a sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sign {
    /// `+`, and the first term of a sum.
    Plus,
    /// `-`
    Minus,
}

impl Sign {
    /// The other sign.
    #[must_use]
    pub fn flip(self) -> Sign {
        match self {
            Sign::Plus => Sign::Minus,
            Sign::Minus => Sign::Plus,
        }
    }
}

/// Sums of up to this many terms are built as left-nested binary trees by
/// [`fold_sum`] (evaluated left to right, as written); longer ones as
/// balanced trees.
pub const CHAIN_TERMS: usize = 64;

/// Combines the terms of a flat sum into a binary tree, for value types that
/// are binary trees (computation values, comparator keys): `neg` negates a
/// value, `add(sign, a, b)` is `a + b` or `a - b`.
///
/// Up to [`CHAIN_TERMS`] terms make the left-nested tree `((a + b) - c) + d`
/// of the written order. A longer sum makes a balanced tree, halves
/// combined recursively (`(a + b) + (c + d)`, a subtracted half with its
/// signs flipped: `a - b + c` is `a - (b - c)`), so that its depth is the
/// logarithm of its length: the same value for integers, up to rounding for
/// reals. Either way no tree is deeper than [`CHAIN_TERMS`] levels above
/// its terms (a length below 2^64 has a logarithm below 64), and building
/// one recurses only that deep. `None` for no terms.
///
/// ```
/// # use iegen::syntax::ast::{fold_sum, Sign};
/// let terms = vec![(Sign::Plus, "a".to_string()), (Sign::Minus, "b".into()), (Sign::Plus, "c".into())];
/// let text = fold_sum(terms, &mut |a| format!("-{a}"), &mut |s, a, b| {
///     format!("({a} {} {b})", if s == Sign::Plus { '+' } else { '-' })
/// });
/// assert_eq!(text.as_deref(), Some("((a - b) + c)"));
/// ```
pub fn fold_sum<T>(
    terms: Vec<(Sign, T)>,
    neg: &mut dyn FnMut(T) -> T,
    add: &mut dyn FnMut(Sign, T, T) -> T,
) -> Option<T> {
    if terms.len() <= CHAIN_TERMS {
        let mut terms = terms.into_iter();
        let (sign, first) = terms.next()?;
        let first = match sign {
            Sign::Plus => first,
            Sign::Minus => neg(first),
        };
        return Some(terms.fold(first, |acc, (sign, t)| add(sign, acc, t)));
    }
    Some(balanced_sum(terms, neg, add))
}

/// [`fold_sum`] of two or more terms as a balanced tree.
fn balanced_sum<T>(
    mut terms: Vec<(Sign, T)>,
    neg: &mut dyn FnMut(T) -> T,
    add: &mut dyn FnMut(Sign, T, T) -> T,
) -> T {
    if terms.len() == 1 {
        let (sign, t) = terms.pop().expect("one term");
        return match sign {
            Sign::Plus => t,
            Sign::Minus => neg(t),
        };
    }
    let mut right = terms.split_off(terms.len() / 2);
    let sign = right[0].0;
    if sign == Sign::Minus {
        for term in &mut right {
            term.0 = term.0.flip();
        }
    }
    let a = balanced_sum(terms, neg, add);
    let b = balanced_sum(right, neg, add);
    add(sign, a, b)
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
