//! Properties over arbitrary input (proptest): no parser panics, errors lie
//! inside the input, and printed expressions parse back.

use proptest::prelude::*;

use crate::syntax::ast::*;
use crate::syntax::{line_col, parse_calc_expr, parse_formula, parse_program, SyntaxError};

use super::{add, call, mul, neg, num, sub, v, Unspan};

/// Checks that an error lies inside `src`, or exactly at its end.
fn assert_located(src: &str, err: &SyntaxError) {
    assert!(err.line >= 1 && err.column >= 1, "{err:?}");
    assert!(err.span.start <= err.span.end, "{err:?}");
    assert!(err.span.end <= src.len(), "{err:?}");
    assert!(src.is_char_boundary(err.span.start), "{err:?}");
    assert!(src.is_char_boundary(err.span.end), "{err:?}");
    let lines: Vec<&str> = src.split('\n').collect();
    assert!(err.line <= lines.len(), "{err:?} in {src:?}");
    let line_chars = lines[err.line - 1].chars().count();
    assert!(err.column <= line_chars + 1, "{err:?} in {src:?}");
    assert_eq!(line_col(src, err.span.start), (err.line, err.column));
    assert!(!err.message.is_empty());
}

fn check_all_parsers(src: &str) {
    for result in [
        parse_program(src).err(),
        parse_formula(src).err(),
        parse_calc_expr(src).err(),
    ]
    .into_iter()
    .flatten()
    {
        assert_located(src, &result);
    }
}

/// Tokens of the language, names that look like keywords, and odd integers.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ",",
    ":",
    ";",
    ":=",
    "->",
    "=>",
    "<=>",
    "=",
    "==",
    "<",
    "<=",
    ">",
    ">=",
    "+",
    "-",
    "*",
    "&&",
    "||",
    "union",
    "exists",
    "and",
    "or",
    "true",
    "false",
    "forall",
    "uf",
    "i",
    "j'",
    "N",
    "f",
    "rowptr",
    "nondecreasing",
    "increasing",
    "monotone",
    "0",
    "1",
    "2",
    "42",
    "9223372036854775807",
    "9223372036854775808",
    "2i",
    "# comment\n",
];

/// An expression printed with as few parentheses as precedence allows.
fn show(e: &AstExpr, needed: u8, juxt: bool) -> String {
    // Levels: 0 sum, 1 product, 2 unary, 3 juxtaposition, 4 atom.
    let (level, text) = match e {
        AstExpr::Num(n, _) => (4, n.to_string()),
        AstExpr::Name(id) => (4, id.name.clone()),
        AstExpr::Call(f, args, _) => {
            let args: Vec<String> = args.iter().map(|a| show(a, 0, juxt)).collect();
            (4, format!("{}({})", f.name, args.join(", ")))
        }
        AstExpr::Sum(terms, _) => {
            let mut text = String::new();
            for (i, (sign, t)) in terms.iter().enumerate() {
                match (i, sign) {
                    (0, Sign::Plus) => {}
                    (0, Sign::Minus) => text.push('-'),
                    (_, Sign::Plus) => text.push_str(" + "),
                    (_, Sign::Minus) => text.push_str(" - "),
                }
                let needed = if i == 0 && *sign == Sign::Minus { 2 } else { 1 };
                text.push_str(&show(t, needed, juxt));
            }
            (0, text)
        }
        AstExpr::Mul(a, b, _) => match (&**a, &**b) {
            (AstExpr::Num(n, _), AstExpr::Name(_) | AstExpr::Call(..)) if juxt => {
                (3, format!("{n}{}", show(b, 4, juxt)))
            }
            (AstExpr::Num(n, _), AstExpr::Sum(..)) if juxt => {
                (3, format!("{n}({})", show(b, 0, juxt)))
            }
            _ => (1, format!("{} * {}", show(a, 1, juxt), show(b, 2, juxt))),
        },
        AstExpr::Div(a, b, _) => (1, format!("{} / {}", show(a, 1, juxt), show(b, 2, juxt))),
        AstExpr::Neg(a, _) => (2, format!("-{}", show(a, 2, juxt))),
    };
    if level < needed {
        format!("({text})")
    } else {
        text
    }
}

fn arb_expr() -> impl Strategy<Value = AstExpr> {
    let leaf = prop_oneof![
        (0i64..1000).prop_map(num),
        prop::sample::select(vec!["i", "j", "N", "k'"]).prop_map(v),
    ];
    leaf.prop_recursive(5, 40, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| add(a, b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| sub(a, b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| mul(a, b)),
            inner.clone().prop_map(neg),
            (
                prop::sample::select(vec!["f", "rowptr"]),
                prop::collection::vec(inner, 1..3)
            )
                .prop_map(|(name, args)| call(name, args)),
        ]
    })
}

proptest! {
    #[test]
    fn arbitrary_strings_never_panic(src in any::<String>()) {
        check_all_parsers(&src);
    }

    #[test]
    fn arbitrary_printable_text_never_panics(src in "\\PC{0,60}") {
        check_all_parsers(&src);
    }

    #[test]
    fn almost_valid_text_never_panics(src in "[{}\\[\\]():;,=<>+*&|# a-z0-9\n-]{0,60}") {
        check_all_parsers(&src);
    }

    #[test]
    fn token_sequences_report_errors_inside_the_input(
        tokens in prop::collection::vec(prop::sample::select(TOKENS), 0..40),
        newlines in prop::collection::vec(any::<bool>(), 40),
    ) {
        let mut src = String::new();
        for (k, token) in tokens.iter().enumerate() {
            src.push_str(token);
            src.push(if newlines[k] { '\n' } else { ' ' });
        }
        check_all_parsers(&src);
        check_all_parsers(src.trim_end());
    }

    #[test]
    fn printed_expressions_parse_back(expr in arb_expr(), juxt in any::<bool>()) {
        let text = show(&expr, 0, juxt);
        let src = format!("{{[] : {text} = 0}}");
        let parsed = parse_formula(&src).map_err(|err| TestCaseError::fail(format!("{src}: {err}")))?;
        let AstConstraint::Chain { exprs, .. } = &parsed.terms[0].body[0].constraints[0] else {
            return Err(TestCaseError::fail(format!("{parsed:?}")));
        };
        let span = exprs[0].span();
        prop_assert_eq!(&src[span.start..span.end], text.as_str());
        prop_assert_eq!(exprs[0].clone().unspan(), expr);
    }
}
