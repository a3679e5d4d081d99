//! The surface syntax tree of sparse format descriptor files (`.desc`), and
//! their parser.
//!
//! A descriptor file describes one sparse tensor format (dissertation
//! 4.1.1):
//!
//! ```text
//! format CSR {
//!     dense [NR, NC];
//!     map {[ii, k, jj] -> [i, j] : i = ii && j = jj && 0 <= ii < NR
//!          && rowptr(ii) <= k < rowptr(ii + 1) && j = col(k)};
//!     data A : {[ii, k, jj] -> [k]} size NNZ;
//!     uf rowptr : {[x] : 0 <= x <= NR} -> {[y] : 0 <= y <= NNZ} nondecreasing;
//!     uf col : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < NC};
//!     forall i, k1, k2 : 0 <= i < NR && rowptr(i) <= k1 < k2 < rowptr(i + 1)
//!         => col(k1) < col(k2);
//! }
//! ```
//!
//! [`parse_descriptor_file`] produces the tree of this module; names are not
//! resolved and nothing is validated beyond the grammar (and the spelling of
//! the contextual keywords). The `synth` crate lowers and validates it; the
//! format is documented in `docs/descriptors.md`.
//!
//! The words of the format (`format`, `dense`, `map`, `data`, `size`,
//! `comparator`, `padding`) are *contextual*: they are names to the lexer
//! and keywords only where the grammar expects them, so sets and calculator
//! programs may still use them as names. `uf` and `forall` are reserved
//! words, as in calculator programs.

use std::sync::LazyLock;

use super::ast::{
    AstConjunction, AstExpr, AstFormula, AstMonotonicity, Ident, RuleArrow, Sign, Span,
};
use super::{parse_with, Nesting, SyntaxError};

/// A whole descriptor file: `format NAME { ITEMS }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AstDescriptor {
    /// The format's name.
    pub name: Ident,
    /// The items, in the order written.
    pub items: Vec<AstDescItem>,
    /// The whole file's format block.
    pub span: Span,
}

/// One item of a descriptor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AstDescItem {
    /// `dense [NR, NC];`: the dense extent symbols.
    Dense {
        /// The extent symbols, one per dense dimension.
        names: Vec<Ident>,
        /// The whole item.
        span: Span,
    },
    /// `map RELATION;`: sparse iteration space → dense coordinates.
    Map {
        /// The relation literal.
        relation: AstFormula,
        /// The whole item.
        span: Span,
    },
    /// `data NAME : RELATION size SIZE;`: the value array and its layout.
    Data {
        /// The value array's name.
        name: Ident,
        /// Sparse iteration space → position in the value array.
        relation: AstFormula,
        /// The value array's size.
        size: AstSize,
        /// The whole item.
        span: Span,
    },
    /// `uf NAME : SET -> SET PROPS;`: an index array.
    Uf(AstUfDecl),
    /// `forall a, b : P => Q;` (or `<=>`): a universally quantified rule.
    Forall(AstRule),
    /// `comparator NAME(p1, p2) = KEY;`: a user-defined ordering.
    Comparator {
        /// The comparator's name.
        name: Ident,
        /// Its parameters.
        params: Vec<Ident>,
        /// The key's components (one, or a parenthesised tuple of several).
        key: Vec<AstKeyExpr>,
        /// The whole item.
        span: Span,
    },
    /// `padding;`: the format stores explicit zeros.
    Padding {
        /// The whole item.
        span: Span,
    },
}

impl AstDescItem {
    /// The source range of the whole item.
    pub fn span(&self) -> Span {
        match self {
            AstDescItem::Dense { span, .. }
            | AstDescItem::Map { span, .. }
            | AstDescItem::Data { span, .. }
            | AstDescItem::Comparator { span, .. }
            | AstDescItem::Padding { span } => *span,
            AstDescItem::Uf(u) => u.span,
            AstDescItem::Forall(r) => r.span,
        }
    }
}

/// The size of a value array: `size NNZ` or `size [NR, ND]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AstSize {
    /// One extent, written without brackets.
    Scalar(AstExpr),
    /// One extent per dimension, row-major, and the brackets' place.
    Extents(Vec<AstExpr>, Span),
}

impl AstSize {
    /// The extents, one per dimension.
    pub fn extents(&self) -> &[AstExpr] {
        match self {
            AstSize::Scalar(e) => std::slice::from_ref(e),
            AstSize::Extents(es, _) => es,
        }
    }

    /// The source range of the size.
    pub fn span(&self) -> Span {
        match self {
            AstSize::Scalar(e) => e.span(),
            AstSize::Extents(_, span) => *span,
        }
    }
}

/// `uf NAME : DOMAIN -> RANGE PROPS;`, as in calculator programs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AstUfDecl {
    /// The index array's name.
    pub name: Ident,
    /// Its domain (a set literal).
    pub domain: AstFormula,
    /// Its range (a set literal of 1-tuples).
    pub range: AstFormula,
    /// Monotonicity properties, in the order written.
    pub props: Vec<(AstMonotonicity, Span)>,
    /// The whole item.
    pub span: Span,
}

/// `forall e1, e2 : P => Q;` (or `<=>`), as in calculator programs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AstRule {
    /// The quantified variables.
    pub vars: Vec<Ident>,
    /// The premise.
    pub premise: AstConjunction,
    /// `=>` or `<=>`.
    pub arrow: RuleArrow,
    /// The conclusion.
    pub conclusion: AstConjunction,
    /// The whole item.
    pub span: Span,
}

/// A binary operator of comparator keys (sums are [`AstKeyExpr::Sum`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AstKeyOp {
    /// `*`, or juxtaposition `2i`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
}

/// An integer expression of a comparator key, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AstKeyExpr {
    /// An integer literal.
    Int(i64, Span),
    /// A name (a parameter, once resolved).
    Name(Ident),
    /// A call `f(a, b)` (the builtin `interleave`, once resolved).
    Call(Ident, Vec<AstKeyExpr>, Span),
    /// `-a`
    Neg(Box<AstKeyExpr>, Span),
    /// `a op b`
    Binary(AstKeyOp, Box<AstKeyExpr>, Box<AstKeyExpr>, Span),
    /// A sum `a + b - c + ...` of two or more terms, flat however long it
    /// is, each term with its sign (the first term's is [`Sign::Plus`]).
    Sum(Vec<(Sign, AstKeyExpr)>, Span),
}

impl AstKeyExpr {
    /// The source range of the whole expression.
    pub fn span(&self) -> Span {
        match self {
            AstKeyExpr::Int(_, s)
            | AstKeyExpr::Call(_, _, s)
            | AstKeyExpr::Neg(_, s)
            | AstKeyExpr::Binary(_, _, _, s)
            | AstKeyExpr::Sum(_, s) => *s,
            AstKeyExpr::Name(id) => id.span,
        }
    }
}

static DESCRIPTOR: LazyLock<super::grammar::DescriptorFileParser> =
    LazyLock::new(super::grammar::DescriptorFileParser::new);

/// What nests in descriptor files: the expression operators and more.
/// Comparator keys also nest through `%`, and their sums lower to binary
/// trees ([`fold_sum`](super::ast::fold_sum)).
const DESCRIPTOR_NESTING: Nesting = Nesting {
    operators: &['*', '/', '%'],
    sum_levels: super::ast::CHAIN_TERMS,
    keyword: None,
    dot_in_words: false,
};

/// Parses a descriptor file into its surface tree. The whole input must be
/// one `format NAME { ... }` block (whitespace and `#` comments aside).
///
/// # Errors
///
/// A [`SyntaxError`] at the first offending character or token, as for
/// [`parse_program`](super::parse_program), at a contextual keyword that is
/// misspelled (`dense` written `dens`), or for nesting too deep to be handled
/// safely.
///
/// ```
/// # use iegen::syntax::descriptor_ast::{parse_descriptor_file, AstDescItem};
/// let src = "format D { dense [N]; map {[i] -> [i]}; data A : {[i] -> [i]} size N; }";
/// let ast = parse_descriptor_file(src).unwrap();
/// assert_eq!(ast.name.name, "D");
/// assert!(matches!(ast.items[0], AstDescItem::Dense { .. }));
/// let err = parse_descriptor_file("format D { dens [N]; }").unwrap_err();
/// assert_eq!(err.to_string(), "1:12: expected `dense`, found `dens`");
/// ```
pub fn parse_descriptor_file(src: &str) -> Result<AstDescriptor, SyntaxError> {
    parse_with(src, &DESCRIPTOR_NESTING, |text| DESCRIPTOR.parse(text))
}
