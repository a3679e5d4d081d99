//! The surface syntax: the IEGenLib set and relation notation and the
//! statements of `spf calc` programs.
//!
//! The grammar lives in `grammar.lalrpop` and produces the types of [`ast`].
//! The entry points are [`parse_program`], [`parse_formula`] and
//! [`parse_calc_expr`]; every failure is a [`SyntaxError`] carrying a 1-based
//! line and column. [`line_col`] converts a byte offset (such as a
//! [`ast::Span`] start) into the same line and column, so that later phases can
//! report their errors the same way.
//!
//! # Notation
//!
//! ```text
//! {[i,j] : 0 <= i < N && rowptr(i) <= j < rowptr(i+1)}
//! {[i] -> [0, i, 0] : exists k : i = 2k || i = 0} union {[i] -> [1, i, 0]}
//! ```
//!
//! A program is a sequence of statements, each ending with `;`:
//!
//! ```text
//! uf rowptr : {[i] : 0 <= i <= N} -> {[j] : 0 <= j <= NNZ} nondecreasing;
//! forall e1, e2 : e1 < e2 => rowptr(e1) <= rowptr(e2);
//! CSR := {[i, k] : 0 <= i < N and rowptr(i) <= k < rowptr(i+1)};
//! project_out(CSR, k);   # prints the result
//! ```
//!
//! # Lexical rules
//!
//! ASCII whitespace and `#` comments (to the end of the line) are skipped.
//! Names are `[A-Za-z_][A-Za-z0-9_]*` followed by any number of primes (`i'`).
//! The reserved words are `union`, `exists`, `and`, `or`, `true`, `false`,
//! `forall` and `uf`; the UF property words (`nondecreasing`, ...) are names.
//! Integer literals are decimal and must fit in an `i64`.
//!
//! # Precedence
//!
//! From loosest to tightest: `union` between braced terms; `||` / `or`
//! between conjunctions; `&&` / `and` between constraints; comparison chains
//! (`a <= b < c` is one constraint); binary `+` and `-` (one flat sum);
//! binary `*` (left-associative); prefix `-`; juxtaposition of an integer
//! literal with a following name, call or parenthesised expression (`2i`,
//! `2 f(x)`, `3(i+1)`, all `Mul(Num, ..)`); atoms. So `-2i * j` is
//! `Mul(Neg(Mul(2, i)), j)`. An `exists a, b :` prefix binds up to the next
//! `||` / `or`.
//!
//! A chain of binary `+` and `-` is one flat [`ast::AstExpr::Sum`] node,
//! however long. Trees nesting deeper than about a thousand levels (a
//! thousand nested parentheses, prefix `-` or products) are rejected with an
//! error rather than risking a stack overflow in the recursive code that
//! walks them; a flat sum of any length is not limited.

pub mod ast;
pub mod computation_ast;
pub mod descriptor_ast;

#[cfg(test)]
mod tests;

use std::sync::LazyLock;

use lalrpop_util::lexer::Token;
use lalrpop_util::{lalrpop_mod, ParseError};

use ast::Span;

lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused)]
    grammar,
    "/syntax/grammar.rs"
);

/// An error raised by a fallible grammar action (an integer literal that does
/// not fit in 64 bits, an unknown UF property).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ActionError {
    /// Where the offending token stands.
    pub(crate) span: Span,
    /// What is wrong with it.
    pub(crate) message: String,
}

/// A syntax error, located at a 1-based line and column.
///
/// Its `Display` form is `line:column: message`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct SyntaxError {
    /// The 1-based line of the error's start.
    pub line: usize,
    /// The 1-based column of the error's start, counted in characters.
    pub column: usize,
    /// The byte range of the offending text (empty at the end of the input).
    pub span: Span,
    /// What went wrong.
    pub message: String,
}

impl SyntaxError {
    /// An error with `message` at `span` of `src`; the line and column are
    /// those of `span.start` (see [`line_col`]).
    #[must_use]
    pub fn at(src: &str, span: Span, message: impl Into<String>) -> Self {
        let (line, column) = line_col(src, span.start);
        SyntaxError {
            line,
            column,
            span,
            message: message.into(),
        }
    }
}

/// The 1-based line and column of the byte `offset` in `src`.
///
/// Lines are separated by `\n`; the column counts characters, not bytes. An
/// offset past the end of `src` is taken as the end, and one inside a
/// multi-byte character as that character's start, so this never panics.
///
/// ```
/// # use iegen::syntax::line_col;
/// assert_eq!(line_col("ab\ncd", 0), (1, 1));
/// assert_eq!(line_col("ab\ncd", 4), (2, 2));
/// assert_eq!(line_col("é=x", 2), (1, 2)); // `é` is two bytes, one character
/// ```
#[must_use]
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(src.len());
    while !src.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &src[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.matches('\n').count() + 1;
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

static PROGRAM: LazyLock<grammar::ProgramParser> = LazyLock::new(grammar::ProgramParser::new);
static FORMULA: LazyLock<grammar::FormulaParser> = LazyLock::new(grammar::FormulaParser::new);
static CALC_EXPR: LazyLock<grammar::CalcExprParser> = LazyLock::new(grammar::CalcExprParser::new);
static INDEX_EXPR: LazyLock<grammar::IndexExprParser> =
    LazyLock::new(grammar::IndexExprParser::new);

/// Parses a calculator program: a sequence of statements, each ending with `;`.
///
/// Statements are `uf NAME : SET -> SET PROPS;`, `forall a, b : P => Q;` (or
/// `<=>`), `NAME := EXPR;` and `EXPR;`. An empty program (or one of only
/// comments) is an empty vector.
///
/// # Errors
///
/// A [`SyntaxError`] at the first offending character or token: one the
/// lexer does not know, one the grammar does not allow there, the end of
/// input too soon, an integer literal that does not fit in an `i64`, an
/// unknown UF property, or nesting too deep to be handled safely.
pub fn parse_program(src: &str) -> Result<Vec<ast::Statement>, SyntaxError> {
    parse_with(src, &EXPRESSIONS, |text| PROGRAM.parse(text))
}

/// Parses one set or relation literal: braced terms joined by `union`. The
/// whole input must be that one formula (whitespace and comments aside).
///
/// # Errors
///
/// A [`SyntaxError`] as for [`parse_program`], including for anything after
/// the formula.
///
/// ```
/// # use iegen::syntax::{parse_formula, ast::{TupleElem, AstConstraint}};
/// let f = parse_formula("{[i, j] : 0 <= i < N && j = 2i}").unwrap();
/// assert_eq!(f.terms.len(), 1);
/// let term = &f.terms[0];
/// assert!(matches!(term.input[..], [TupleElem::Var(_), TupleElem::Var(_)]));
/// assert!(term.output.is_none());
/// let constraints = &term.body[0].constraints;
/// assert!(matches!(&constraints[0], AstConstraint::Chain { ops, .. } if ops.len() == 2));
///
/// let err = parse_formula("{[i] : i < }").unwrap_err();
/// assert_eq!((err.line, err.column), (1, 12));
/// assert_eq!(err.to_string(), "1:12: unexpected `}`, expected one of: name, integer, `(`, `-`");
/// ```
pub fn parse_formula(src: &str) -> Result<ast::AstFormula, SyntaxError> {
    parse_with(src, &EXPRESSIONS, |text| FORMULA.parse(text))
}

/// Parses one calculator expression: a formula literal, a name, or a call
/// `f(arg, ...)` whose arguments are calculator expressions or integers. The
/// whole input must be that one expression.
///
/// # Errors
///
/// A [`SyntaxError`] as for [`parse_program`], including for anything after
/// the expression (a `;` too).
pub fn parse_calc_expr(src: &str) -> Result<ast::CalcExpr, SyntaxError> {
    parse_with(src, &EXPRESSIONS, |text| CALC_EXPR.parse(text))
}

/// Parses one index expression (`2 * NR + 1`, `floor((NC + 1) / 2)`); the
/// whole input must be that expression.
///
/// # Errors
///
/// A [`SyntaxError`] as for [`parse_program`].
pub fn parse_index_expr(src: &str) -> Result<ast::AstExpr, SyntaxError> {
    parse_with(src, &EXPRESSIONS, |text| INDEX_EXPR.parse(text))
}

/// What a generated parser returns.
type RawResult<'input, T> = Result<T, ParseError<usize, Token<'input>, ActionError>>;

/// Checks `src`'s nesting under `rules`, runs `parse` on it and turns its
/// error into a [`SyntaxError`].
fn parse_with<'input, T>(
    src: &'input str,
    rules: &Nesting,
    parse: impl Fn(&'input str) -> RawResult<'input, T>,
) -> Result<T, SyntaxError> {
    check_nesting(src, rules)?;
    parse(src).map_err(|err| {
        // Whether the input could have ended where the unexpected token
        // starts: lalrpop's expected lists never mention the end of input.
        // Tokens never straddle a token's start, so the prefix up to it lexes
        // to the same tokens and parses iff the end was acceptable there.
        let end_ok = |at: usize| src.get(..at).is_some_and(|prefix| parse(prefix).is_ok());
        syntax_error(src, err, end_ok)
    })
}

/// How deeply the syntax tree of an accepted input may nest, about.
///
/// The tree types are recursive and so are their `Drop`, `Clone`, `Debug` and
/// `PartialEq`, and the later phases that walk them: without a limit, an
/// input such as `((((...i...))))` or `- - - ... i` with 100,000 levels would
/// overflow the stack (an abort, not even a panic), even when it is being
/// dropped after a syntax error further on. The generated parser itself keeps
/// its stack on the heap. A flat sum `i + i + ... + i` is one node however
/// long it is (see [`check_nesting`]).
pub(crate) const MAX_NESTING: usize = 1000;

/// One level of brackets in [`check_nesting`].
#[derive(Default)]
struct Level {
    /// Operators and integer literals in the current term (since the last
    /// separator or binary `+` / `-`) at this level: each makes at most one
    /// level of the tree.
    ops: usize,
    /// The deepest bracketed group closed so far in the current term.
    child: usize,
    /// The deepest finished term of the current segment's sum.
    terms: usize,
    /// The binary `+` and `-` of the current segment so far.
    sum: usize,
    /// The deepest finished segment of this level.
    best: usize,
}

impl Level {
    /// How deep the current segment's tree may be: its sum's levels over its
    /// deepest term.
    fn segment(&self, rules: &Nesting) -> usize {
        self.sum.min(rules.sum_levels) + self.terms.max(self.ops + self.child)
    }
}

/// What counts as one level of nesting for [`check_nesting`]; each notation
/// adds what its own grammar, and the lowering of its values, nests.
pub(crate) struct Nesting {
    /// Operators that may each add a level within a term of a sum: `*` and
    /// the notation's other products. Binary `+` and `-` are counted by
    /// `sum_levels`, a prefix `-` always adds a level.
    pub operators: &'static [char],
    /// The most levels one flat sum adds, however long: 1 where sums stay
    /// flat nodes; [`ast::CHAIN_TERMS`] where lowering makes them binary
    /// trees with [`ast::fold_sum`] (at most that many levels above the
    /// terms).
    pub sum_levels: usize,
    /// A keyword that nests (a computation body's `if`), if any.
    pub keyword: Option<&'static str>,
    /// Whether `.` continues a word (`P.insert`, `1.5` in computation files).
    pub dot_in_words: bool,
}

/// The set and relation notation (and `spf calc`): sums lower to flat
/// affine expressions.
pub(crate) const EXPRESSIONS: Nesting = Nesting {
    operators: &['*', '/'],
    sum_levels: 1,
    keyword: None,
    dot_in_words: false,
};

/// Whether `word` (the text of the current word up to a `+` or `-`) is a
/// real literal up to its exponent's sign: `1.5e` in `1.5e-3`.
fn before_exponent_sign(word: &str) -> bool {
    let Some(mantissa) = word.strip_suffix(['e', 'E']) else {
        return false;
    };
    match mantissa.split_once('.') {
        Some((whole, fraction)) => {
            !whole.is_empty()
                && !fraction.is_empty()
                && whole.bytes().all(|b| b.is_ascii_digit())
                && fraction.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

/// Rejects input whose syntax tree could nest more than [`MAX_NESTING`]
/// levels, before anything is built.
///
/// This is a quick scan of the characters, not the tokens: it bounds the
/// depth of every tree the parser could build from the text from above, and
/// of the trees lowering builds from those. Brackets `(`, `[`, `{` open a
/// level; `,`, `;`, `:`, `&`, `|`, `<`, `>` and `=` separate the trees
/// within one level (no expression contains them). Within a segment, binary
/// `+` and `-` separate the terms of one flat sum, which adds at most
/// `rules.sum_levels` levels over its deepest term however many terms it
/// has; a `-` is binary after an operand (a name, a number, a closing
/// bracket), prefix otherwise (a `-` after a keyword such as `and`, taken as
/// binary, ends the term before it, which is in another tree anyway). Every
/// prefix `-`, operator of `rules`, nesting keyword and integer literal in a
/// term adds at most one level, every bracketed group one more than its
/// deepest segment. The sign of a real literal's exponent (`1.5e-3`) is part
/// of the literal.
fn check_nesting(src: &str, rules: &Nesting) -> Result<(), SyntaxError> {
    let too_deep = |at: usize, c: char| {
        SyntaxError::at(
            src,
            Span::new(at, at + c.len_utf8()),
            format!("expression nested too deeply (more than {MAX_NESTING} levels)"),
        )
    };
    let word_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '\'';
    // The innermost open level, and the ones around it.
    let mut top = Level::default();
    let mut outer: Vec<Level> = Vec::new();
    let mut in_comment = false;
    // Where the current word (name, number, keyword) started, if in one.
    let mut word_start: Option<usize> = None;
    // Whether the last character that was not blank or a comment ended an
    // operand, so that a `-` after it is binary.
    let mut after_operand = false;
    for (at, c) in src.char_indices() {
        if in_comment {
            in_comment = c != '\n' && c != '\r';
            continue;
        }
        let in_word = word_start.is_some();
        if (c == '-' || c == '+')
            && rules.dot_in_words
            && word_start.is_some_and(|start| before_exponent_sign(&src[start..at]))
            && src[at + 1..].starts_with(|d: char| d.is_ascii_digit())
        {
            // `1.5e-3`: the sign is inside the literal.
            continue;
        }
        let starts_number = c.is_ascii_digit() && !in_word;
        let starts_keyword = !in_word
            && rules.keyword.is_some_and(|k| {
                src[at..].starts_with(k) && !src[at + k.len()..].starts_with(word_char)
            });
        let continues_word = word_char(c) || (rules.dot_in_words && c == '.');
        word_start = match (word_start, continues_word) {
            (_, false) => None,
            (Some(start), true) => Some(start),
            (None, true) => Some(at),
        };
        if starts_keyword {
            top.ops += 1;
        }
        match c {
            '#' => in_comment = true,
            '(' | '[' | '{' => {
                outer.push(std::mem::take(&mut top));
                if outer.len() >= MAX_NESTING {
                    return Err(too_deep(at, c));
                }
            }
            ')' | ']' | '}' => {
                // An unmatched closing bracket is a syntax error the parser
                // reports; here it closes nothing.
                if let Some(parent) = outer.pop() {
                    let closed = std::mem::replace(&mut top, parent);
                    let depth = closed.best.max(closed.segment(rules)) + 1;
                    top.child = top.child.max(depth);
                }
            }
            ',' | ';' | ':' | '&' | '|' | '<' | '>' | '=' => {
                top.best = top.best.max(top.segment(rules));
                top = Level {
                    best: top.best,
                    ..Level::default()
                };
            }
            '+' | '-' if c == '+' || after_operand => {
                // A binary operator: the next term of the segment's sum.
                top.terms = top.terms.max(top.ops + top.child);
                top.ops = 0;
                top.child = 0;
                top.sum += 1;
            }
            '-' => top.ops += 1,
            _ if rules.operators.contains(&c) => top.ops += 1,
            _ if starts_number => top.ops += 1,
            _ => {}
        }
        if !c.is_ascii_whitespace() && c != '#' {
            after_operand = continues_word || matches!(c, ')' | ']' | '}');
        }
        if top.segment(rules) > MAX_NESTING {
            return Err(too_deep(at, c));
        }
    }
    Ok(())
}

/// Turns a lalrpop error into a located, readable [`SyntaxError`]. `end_ok`
/// tells whether the input could have ended at a byte offset.
fn syntax_error(
    src: &str,
    err: ParseError<usize, Token<'_>, ActionError>,
    end_ok: impl Fn(usize) -> bool,
) -> SyntaxError {
    match err {
        ParseError::InvalidToken { location } => {
            let rest = src.get(location..).unwrap_or("");
            match rest.chars().next() {
                Some(c) => SyntaxError::at(
                    src,
                    Span::new(location, location + c.len_utf8()),
                    format!("unexpected character `{}`", c.escape_debug()),
                ),
                None => SyntaxError::at(
                    src,
                    Span::new(location, location),
                    "unexpected end of input",
                ),
            }
        }
        ParseError::UnrecognizedEof { location, expected } => SyntaxError::at(
            src,
            Span::new(location, location),
            format!(
                "unexpected end of input{}",
                expected_suffix(&expected, false)
            ),
        ),
        ParseError::UnrecognizedToken {
            token: (start, Token(_, text), end),
            expected,
        } => SyntaxError::at(
            src,
            Span::new(start, end),
            format!(
                "unexpected `{text}`{}",
                expected_suffix(&expected, end_ok(start))
            ),
        ),
        ParseError::ExtraToken {
            token: (start, Token(_, text), end),
        } => SyntaxError::at(
            src,
            Span::new(start, end),
            format!("unexpected `{text}`, expected end of input"),
        ),
        ParseError::User { error } => SyntaxError::at(src, error.span, error.message),
    }
}

/// `", expected X"` or `", expected one of: X, Y"` for lalrpop's list of
/// expected terminals (plus the end of input when `end_ok`), or nothing when
/// that list is empty.
fn expected_suffix(expected: &[String], end_ok: bool) -> String {
    // Names and integers first, then the fixed tokens in lalrpop's order.
    let mut words: Vec<String> = Vec::with_capacity(expected.len() + 1);
    for class in ["NAME", "INTEGER"] {
        if expected.iter().any(|e| e == class) {
            words.push(describe_terminal(class));
        }
    }
    for e in expected {
        if e != "NAME" && e != "INTEGER" {
            let word = describe_terminal(e);
            if !words.contains(&word) {
                words.push(word);
            }
        }
    }
    if end_ok {
        words.push("end of input".to_string());
    }
    match words.as_slice() {
        [] => String::new(),
        [one] => format!(", expected {one}"),
        many => format!(", expected one of: {}", many.join(", ")),
    }
}

/// How a terminal of lalrpop's expected list reads in a message: the token
/// classes as words (`name`, `integer`), fixed tokens between backquotes.
fn describe_terminal(terminal: &str) -> String {
    match terminal {
        "NAME" => "name".to_string(),
        "INTEGER" => "integer".to_string(),
        _ => match terminal.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
            Some(text) if !text.is_empty() => format!("`{}`", text.replace("\\\"", "\"")),
            _ => terminal.to_string(),
        },
    }
}
