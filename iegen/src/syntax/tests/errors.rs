//! Syntax errors: exact positions (lines, columns of multibyte text) and
//! messages, the expected tokens listed, and reserved words.

use crate::syntax::ast::*;
use crate::syntax::{line_col, SyntaxError};

use super::{formula_err, program_err};

#[test]
fn invalid_character_on_a_later_line() {
    let src = "S := {[i]};\nT := S;\nf(T,$);\n";
    let err = program_err(src);
    assert_eq!((err.line, err.column), (3, 5));
    assert_eq!(err.span, Span::new(24, 25));
    assert_eq!(err.message, "unexpected character `$`");
    assert_eq!(err.to_string(), "3:5: unexpected character `$`");
}

#[test]
fn invalid_character_on_the_first_line() {
    let err = formula_err("{[i] : i $ 0}");
    assert_eq!(err.to_string(), "1:10: unexpected character `$`");
    let err = formula_err("{[i] : i = 0} @");
    assert_eq!(err.to_string(), "1:15: unexpected character `@`");
    let err = program_err("\u{0}");
    assert_eq!(err.to_string(), "1:1: unexpected character `\\0`");
}

#[test]
fn multibyte_characters_count_as_one_column() {
    // An invalid two-byte character after a comment full of multi-byte ones.
    let src = "# ∀ ünïcödé\n{[i] : i = ü}";
    let err = formula_err(src);
    assert_eq!((err.line, err.column), (2, 12));
    assert_eq!(&src[err.span.start..err.span.end], "ü");
    assert_eq!(err.span, Span::new(src.len() - 3, src.len() - 1));
    assert_eq!(err.message, "unexpected character `ü`");
    // The error's column is in characters even after multi-byte ones on the
    // same line: they can only be the offending character itself.
    let err = formula_err("{[i] : i = 😀}");
    assert_eq!(err.to_string(), "1:12: unexpected character `😀`");
    assert_eq!(err.span.end - err.span.start, 4);
    // A token after a line full of multi-byte characters.
    let err = program_err("# ∀∀∀\nS := {[i]}\n  ∀");
    assert_eq!(err.to_string(), "3:3: unexpected character `∀`");
}

#[test]
fn missing_semicolon_before_the_next_statement() {
    let src = "S := {[i]};\nT := S\nproject_out(T, i);";
    let err = program_err(src);
    assert_eq!((err.line, err.column), (3, 1));
    assert_eq!(err.span, Span::new(19, 30));
    assert_eq!(
        err.message,
        "unexpected `project_out`, expected one of: `(`, `;`"
    );
}

#[test]
fn missing_semicolon_at_the_end() {
    let err = program_err("S := {[i]};\nS");
    assert_eq!(
        err.to_string(),
        "2:2: unexpected end of input, expected one of: `(`, `:=`, `;`"
    );
    assert_eq!(err.span, Span::new(13, 13));
}

#[test]
fn unterminated_brace() {
    let err = formula_err("{[i] : 0 <= i\n");
    assert_eq!((err.line, err.column), (1, 14));
    assert!(
        err.message
            .starts_with("unexpected end of input, expected one of: "),
        "{err}"
    );
    assert!(err.message.contains("`}`"), "{err}");
    assert!(err.message.contains("`&&`"), "{err}");
    let err = program_err("S := {[i]\n\n");
    assert_eq!(
        err.to_string(),
        "1:10: unexpected end of input, expected one of: `->`, `:`, `}`"
    );
    let err = formula_err("{");
    assert_eq!(
        err.to_string(),
        "1:2: unexpected end of input, expected `[`"
    );
}

#[test]
fn overflowing_integer() {
    let src = "S := {[i] : i < 9223372036854775807};\nT := {[i] : i < 9223372036854775808};";
    let err = program_err(src);
    assert_eq!((err.line, err.column), (2, 17));
    assert_eq!(err.span, Span::new(54, 73));
    assert_eq!(
        err.message,
        "integer literal `9223372036854775808` does not fit in 64 bits"
    );
    let err = program_err("project_out(S, 99999999999999999999999);");
    assert_eq!(
        err.to_string(),
        "1:16: integer literal `99999999999999999999999` does not fit in 64 bits"
    );
}

#[test]
fn unknown_uf_property() {
    let src = "S := {[i]};\nuf f : {[i]} -> {[j]} nondecreasing monotone;";
    let err = program_err(src);
    assert_eq!((err.line, err.column), (2, 37));
    assert_eq!(&src[err.span.start..err.span.end], "monotone");
    assert_eq!(
        err.message,
        "unknown UF property `monotone`; expected nondecreasing, increasing, nonincreasing or decreasing"
    );
}

#[test]
fn unexpected_tokens_list_what_was_expected() {
    assert_eq!(
        formula_err("{[i] : i < }").to_string(),
        "1:12: unexpected `}`, expected one of: name, integer, `(`, `-`"
    );
    assert_eq!(
        formula_err("{[union]}").to_string(),
        "1:3: unexpected `union`, expected one of: name, integer, `(`, `-`, `]`"
    );
    assert_eq!(
        formula_err("{[i,]}").to_string(),
        "1:5: unexpected `]`, expected one of: name, integer, `(`, `-`"
    );
    assert_eq!(
        formula_err("{[i] : f() = 0}").to_string(),
        "1:10: unexpected `)`, expected one of: name, integer, `(`, `-`"
    );
    assert_eq!(
        formula_err("{[i] : exists : i = 0}").to_string(),
        "1:15: unexpected `:`, expected name"
    );
    assert_eq!(
        formula_err("{[i] : 2 3 = 0}").to_string(),
        "1:10: unexpected `3`, expected one of: name, `(`, `*`, `+`, `-`, `/`, `<`, `<=`, `=`, `==`, `>`, `>=`"
    );
    assert_eq!(
        program_err("x := 1;").to_string(),
        "1:6: unexpected `1`, expected one of: name, `union`, `{`"
    );
    assert_eq!(
        program_err("forall e : exists k : e = k => e = 0;").to_string(),
        "1:12: unexpected `exists`, expected one of: name, integer, `(`, `-`, `false`, `true`"
    );
    assert_eq!(
        program_err("S := {[i]}; )").to_string(),
        "1:13: unexpected `)`, expected one of: name, `forall`, `uf`, `union`, `{`, end of input"
    );
}

#[test]
fn a_formula_must_be_the_whole_input() {
    assert_eq!(
        formula_err("{[i]} ;").to_string(),
        "1:7: unexpected `;`, expected one of: `union`, end of input"
    );
    assert_eq!(
        formula_err("").to_string(),
        "1:1: unexpected end of input, expected `{`"
    );
    assert_eq!(
        formula_err("  # nothing\n").to_string(),
        "1:1: unexpected end of input, expected `{`"
    );
    assert_eq!(
        formula_err("{[i]} union").to_string(),
        "1:12: unexpected end of input, expected `{`"
    );
}

#[test]
fn reserved_words_are_not_names() {
    for word in [
        "union", "exists", "and", "or", "true", "false", "forall", "uf",
    ] {
        let src = format!("{{[{word}]}}");
        let err = formula_err(&src);
        assert_eq!((err.line, err.column), (1, 3), "{src}: {err}");
        assert!(
            err.message.starts_with(&format!("unexpected `{word}`")),
            "{err}"
        );
    }
}

#[test]
fn line_col_counts_lines_and_characters() {
    let src = "aé\nüb c\n\nd";
    assert_eq!(line_col(src, 0), (1, 1));
    assert_eq!(line_col(src, 1), (1, 2));
    assert_eq!(line_col(src, 3), (1, 3)); // the `\n` after `é`
    assert_eq!(line_col(src, 4), (2, 1));
    assert_eq!(line_col(src, 6), (2, 2)); // `b`, after the two-byte `ü`
    assert_eq!(line_col(src, 8), (2, 4));
    assert_eq!(line_col(src, 10), (3, 1));
    assert_eq!(line_col(src, 11), (4, 1));
    assert_eq!(line_col(src, 12), (4, 2)); // the end
                                           // Offsets past the end or inside a character do not panic.
    assert_eq!(line_col(src, 1000), (4, 2));
    assert_eq!(line_col(src, 2), (1, 2)); // inside `é`: its start
    assert_eq!(line_col("", 0), (1, 1));
    assert_eq!(line_col("", 5), (1, 1));
    assert_eq!(line_col("a\r\nb", 3), (2, 1));
}

#[test]
fn syntax_error_at_locates_a_span() {
    let err = SyntaxError::at("ab\ncd", Span::new(4, 5), "bad");
    assert_eq!(err.to_string(), "2:2: bad");
    assert_eq!(err.span, Span::new(4, 5));
}
