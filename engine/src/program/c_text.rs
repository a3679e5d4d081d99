//! C string literals for the generated programs and checks.

use std::fmt::Write as _;

/// C string literals, comma-separated (an array initializer's items).
pub(crate) fn c_str_list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| c_str(n))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A C string literal.
pub(crate) fn c_str(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'?' => out.push_str("\\?"), // no trigraphs
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
    out.push('"');
    out
}
