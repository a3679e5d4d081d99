//! The surface syntax tree of computation files (`.comp`), and their parser.
//!
//! A computation file declares one [`Computation`](crate::computation::Computation):
//!
//! ```text
//! computation spmv_csr(N, NC, NNZ) {
//!     in   int  rowptr[N + 1];
//!     in   int  col[NNZ];
//!     in   real A[NNZ];
//!     in   real x[NC];
//!     out  real y[N];
//!
//!     S0: y(i) += A(k) * x(j)
//!         domain   {[i,k,j] : 0 <= i < N && rowptr(i) <= k < rowptr(i+1) && j = col(k)}
//!         schedule {[i,k,j] -> [0,i,0,k,0,j,0]};
//! }
//! ```
//!
//! [`parse_computation_file`] produces the tree of this module; names are not
//! resolved and nothing is validated beyond the grammar (and the spelling of
//! the contextual keywords). [`crate::computation::parse_computation`] lowers
//! and validates it. The file format is documented in `docs/computations.md`.
//!
//! The words of the format (`computation`, `in`, `out`, `inout`, `temp`,
//! `int`, `real`, `object`, `domain`, `schedule`, `if`, `min=`, `max=`) are
//! *contextual*: they are names to the lexer and keywords only where the
//! grammar expects them, so sets and calculator programs may still use them
//! as names.

use std::sync::LazyLock;

use super::ast::{AstExpr, AstFormula, Ident, Sign, Span};
use super::{parse_with, Nesting, SyntaxError};

/// A whole computation file: `computation NAME(SYMBOLS) { ITEMS }`.
#[derive(Clone, Debug, PartialEq)]
pub struct AstComputation {
    /// The computation's name.
    pub name: Ident,
    /// The integer parameters, in order.
    pub symbols: Vec<Ident>,
    /// Declarations and statements, in the order written.
    pub items: Vec<AstItem>,
    /// The whole computation.
    pub span: Span,
}

/// One item of a computation's body.
#[derive(Clone, Debug, PartialEq)]
pub enum AstItem {
    /// `in int col[NNZ];`
    Space(AstSpace),
    /// `object P : OrderedSet(2, 1, morton);`
    Object(AstObject),
    /// `S0: BODY domain SET schedule RELATION;`
    Stmt(Box<AstStmt>),
}

/// The role word of a data space declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AstRole {
    /// `in`
    In,
    /// `out`
    Out,
    /// `inout`
    InOut,
    /// `temp`
    Temp,
}

/// The element type word of a data space declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AstElemType {
    /// `int`
    Int,
    /// `real`
    Real,
}

/// A data space declaration `ROLE TYPE NAME[EXTENTS];` (no brackets for a scalar).
#[derive(Clone, Debug, PartialEq)]
pub struct AstSpace {
    /// `in`, `out`, `inout` or `temp`.
    pub role: AstRole,
    /// `int` or `real`.
    pub elem: AstElemType,
    /// The data space's name.
    pub name: Ident,
    /// One extent per dimension; empty for a scalar.
    pub extents: Vec<AstExpr>,
    /// The whole declaration.
    pub span: Span,
}

/// A runtime object declaration `object NAME : KIND(ARGS);`.
#[derive(Clone, Debug, PartialEq)]
pub struct AstObject {
    /// The object's name.
    pub name: Ident,
    /// The runtime type.
    pub kind: Ident,
    /// The constructor arguments as canonical text (a name, a number, an
    /// affine expression such as `1 - NR`, a call such as `counting(N, M)`;
    /// see [`render_expr`]), each with its place.
    pub args: Vec<(String, Span)>,
    /// The whole declaration.
    pub span: Span,
}

/// A statement `NAME: BODY domain SET schedule RELATION;`.
#[derive(Clone, Debug, PartialEq)]
pub struct AstStmt {
    /// The statement's name.
    pub name: Ident,
    /// What one instance does.
    pub body: AstBody,
    /// The iteration domain (a set literal).
    pub domain: AstFormula,
    /// The schedule (a relation literal).
    pub schedule: AstFormula,
    /// The whole statement.
    pub span: Span,
}

/// How an update combines its value into its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AstUpdateOp {
    /// `=`
    Assign,
    /// `+=`
    Add,
    /// `-=`
    Sub,
    /// `*=`
    Mul,
    /// `min=`
    Min,
    /// `max=`
    Max,
    /// `rise=`
    Rise,
}

/// The element an update writes: `y(i)`, or a bare scalar name `t`.
#[derive(Clone, Debug, PartialEq)]
pub struct AstTarget {
    /// The data space.
    pub name: Ident,
    /// The index arguments; `None` for a bare name.
    pub index: Option<Vec<AstValue>>,
    /// The whole target.
    pub span: Span,
}

/// A statement body as written.
#[derive(Clone, Debug, PartialEq)]
pub enum AstBody {
    /// `TARGET OP VALUE`
    Update {
        /// The element written.
        target: AstTarget,
        /// The update operator and its place.
        op: (AstUpdateOp, Span),
        /// The value.
        value: AstValue,
        /// The whole update.
        span: Span,
    },
    /// `if (COND && COND ...) BODY`
    If {
        /// The conditions (none for `if ()`).
        conditions: Vec<AstCondition>,
        /// The guarded body.
        then: Box<AstBody>,
        /// The whole conditional.
        span: Span,
    },
    /// `OBJ.method(ARGS)`
    Call {
        /// The runtime object.
        object: Ident,
        /// The method.
        method: Ident,
        /// The arguments.
        args: Vec<AstValue>,
        /// The whole call.
        span: Span,
    },
    /// `{ BODY; BODY; ... }`
    Seq(Vec<AstBody>, Span),
}

/// A comparison operator of a condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AstCondOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl AstCondOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            AstCondOp::Eq => "==",
            AstCondOp::Ne => "!=",
            AstCondOp::Lt => "<",
            AstCondOp::Le => "<=",
            AstCondOp::Gt => ">",
            AstCondOp::Ge => ">=",
        }
    }
}

/// One condition `VALUE op VALUE` of an `if`.
#[derive(Clone, Debug, PartialEq)]
pub struct AstCondition {
    /// Left operand.
    pub lhs: AstValue,
    /// The comparison.
    pub op: AstCondOp,
    /// Right operand.
    pub rhs: AstValue,
    /// The whole condition.
    pub span: Span,
}

/// A binary operator of value expressions (sums are [`AstValue::Sum`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AstValueOp {
    /// `*`, or juxtaposition `2i` inside parentheses
    Mul,
    /// `/`
    Div,
}

/// A value expression as written. Names and calls are resolved by lowering:
/// a name is an iterator, a symbol or a scalar data space; a call is a data
/// space access or `min`/`max`.
#[derive(Clone, Debug, PartialEq)]
pub enum AstValue {
    /// An integer literal, as written (without sign).
    Int(String, Span),
    /// A real literal, as written (without sign).
    Real(String, Span),
    /// A bare name.
    Name(Ident),
    /// `f(a, b, ...)`
    Call(Ident, Vec<AstValue>, Span),
    /// `P.method(a, ...)`
    Method {
        /// The runtime object.
        object: Ident,
        /// The method.
        method: Ident,
        /// The arguments.
        args: Vec<AstValue>,
        /// The whole call.
        span: Span,
    },
    /// `-a`
    Neg(Box<AstValue>, Span),
    /// `a op b`
    Binary(AstValueOp, Box<AstValue>, Box<AstValue>, Span),
    /// A sum `a + b - c + ...` of two or more terms, flat however long it
    /// is, each term with its sign (the first term's is [`Sign::Plus`]).
    Sum(Vec<(Sign, AstValue)>, Span),
}

impl AstValue {
    /// The source range of the whole expression.
    pub fn span(&self) -> Span {
        match self {
            AstValue::Int(_, s)
            | AstValue::Real(_, s)
            | AstValue::Call(_, _, s)
            | AstValue::Method { span: s, .. }
            | AstValue::Neg(_, s)
            | AstValue::Binary(_, _, _, s)
            | AstValue::Sum(_, s) => *s,
            AstValue::Name(id) => id.span,
        }
    }
}

impl AstBody {
    /// The source range of the whole body.
    pub fn span(&self) -> Span {
        match self {
            AstBody::Update { span, .. }
            | AstBody::If { span, .. }
            | AstBody::Call { span, .. }
            | AstBody::Seq(_, span) => *span,
        }
    }
}

static COMPUTATION: LazyLock<super::grammar::ComputationFileParser> =
    LazyLock::new(super::grammar::ComputationFileParser::new);

/// What nests in computation files: the expression operators and more.
/// Bodies also nest through `if`; `.` continues a word (`P.insert`, `1.5`).
/// A sum of values lowers to a binary tree
/// ([`fold_sum`](super::ast::fold_sum)).
const COMPUTATION_NESTING: Nesting = Nesting {
    operators: &['*', '/'],
    sum_levels: super::ast::CHAIN_TERMS,
    keyword: Some("if"),
    dot_in_words: true,
};

/// Parses a computation file into its surface tree. The whole input must be
/// one computation (whitespace and `#` comments aside).
///
/// # Errors
///
/// A [`SyntaxError`] at the first offending character or token, as for
/// [`parse_program`](super::parse_program), or at a contextual keyword that
/// is misspelled (`domian`), or for nesting too deep to be handled safely.
///
/// ```
/// # use iegen::syntax::computation_ast::{parse_computation_file, AstItem};
/// let src = "computation c(N) { out real y[N]; S0: y(i) = 0 domain {[i] : 0 <= i < N} schedule {[i] -> [i]}; }";
/// let ast = parse_computation_file(src).unwrap();
/// assert_eq!(ast.items.len(), 2);
/// assert!(matches!(ast.items[1], AstItem::Stmt(_)));
/// let err = parse_computation_file("computation c() { S0: t = 1 domian {[]} schedule {[] -> []}; }").unwrap_err();
/// assert_eq!(err.to_string(), "1:29: expected `domain`, found `domian`");
/// ```
pub fn parse_computation_file(src: &str) -> Result<AstComputation, SyntaxError> {
    parse_with(src, &COMPUTATION_NESTING, |text| COMPUTATION.parse(text)).map_err(|mut e| {
        e.message = readable_terminals(&e.message);
        misplaced_keyword(src, e)
    })
}

/// A clearer message for a name where `domain` or `schedule` should stand:
/// the parser only notices at the `{` after it (`y(i) = 2i domain {...}`
/// reads `i` as the keyword).
fn misplaced_keyword(src: &str, e: SyntaxError) -> SyntaxError {
    if !e.message.ends_with(", expected `{`") {
        return e;
    }
    let before = src.get(..e.span.start).unwrap_or("").trim_end();
    let mut word_start = before
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '\''))
        .map_or(0, |i| i + 1);
    // A name starts with a letter or `_`: `2i` is `2` and the name `i`.
    word_start += before[word_start..]
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(before.len() - word_start);
    let word = &before[word_start..];
    if word.is_empty() || word == "domain" || word == "schedule" || word == "union" {
        return e;
    }
    let hint = if before[..word_start].ends_with(|c: char| c.is_ascii_digit()) {
        format!(
            "; a product in a value needs `*` (juxtaposition such as `2{word}` is allowed only inside parentheses)"
        )
    } else {
        String::new()
    };
    SyntaxError::at(
        src,
        Span::new(word_start, word_start + word.len()),
        format!("expected `domain` or `schedule` before a set, found `{word}`{hint}"),
    )
}

/// Spells the real-literal terminal of lalrpop's expected lists as words.
fn readable_terminals(message: &str) -> String {
    match message.split_once(", expected ") {
        Some((head, tail)) => {
            let list = tail.strip_prefix("one of: ").unwrap_or(tail);
            let prefix = if list.len() == tail.len() {
                ""
            } else {
                "one of: "
            };
            let items: Vec<&str> = list
                .split(", ")
                .map(|item| if item == "REAL" { "real" } else { item })
                .collect();
            format!("{head}, expected {prefix}{}", items.join(", "))
        }
        None => message.to_string(),
    }
}

/// Checks that `id` is the contextual keyword `word` (a grammar action).
pub(crate) fn expect_keyword(id: &Ident, word: &str) -> Result<(), super::ActionError> {
    if id.name == word {
        Ok(())
    } else {
        Err(super::ActionError {
            span: id.span,
            message: format!("expected `{word}`, found `{}`", id.name),
        })
    }
}

/// The canonical text of an expression: operators spaced, parentheses only
/// where precedence needs them (`1 - NR`, `counting(N, M)`, `-(a + b)`).
pub fn render_expr(e: &AstExpr) -> String {
    fn go(e: &AstExpr, out: &mut String, prec: u8) {
        // 0: sum, 1: product, 2: unary, 3: atom
        let own = match e {
            AstExpr::Sum(..) => 0,
            AstExpr::Mul(..) | AstExpr::Div(..) => 1,
            AstExpr::Neg(..) => 2,
            _ => 3,
        };
        let paren = own < prec;
        if paren {
            out.push('(');
        }
        match e {
            AstExpr::Num(n, _) => out.push_str(&n.to_string()),
            AstExpr::Name(id) => out.push_str(&id.name),
            AstExpr::Call(f, args, _) => {
                out.push_str(&f.name);
                out.push('(');
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    go(a, out, 0);
                }
                out.push(')');
            }
            AstExpr::Sum(terms, _) => {
                // Every term binds tighter than the sum: a nested sum, even
                // the first term, keeps its parentheses.
                for (i, (sign, t)) in terms.iter().enumerate() {
                    match (i, sign) {
                        (0, Sign::Plus) => {}
                        (0, Sign::Minus) => out.push('-'),
                        (_, Sign::Plus) => out.push_str(" + "),
                        (_, Sign::Minus) => out.push_str(" - "),
                    }
                    // A leading `-` is a prefix operator.
                    let prec = if i == 0 && *sign == Sign::Minus { 2 } else { 1 };
                    go(t, out, prec);
                }
            }
            AstExpr::Mul(a, b, _) | AstExpr::Div(a, b, _) => {
                go(a, out, 1);
                out.push_str(if matches!(e, AstExpr::Mul(..)) {
                    " * "
                } else {
                    " / "
                });
                go(b, out, 2);
            }
            AstExpr::Neg(a, _) => {
                out.push('-');
                go(a, out, 2);
            }
        }
        if paren {
            out.push(')');
        }
    }
    let mut out = String::new();
    go(e, &mut out, 0);
    out
}
