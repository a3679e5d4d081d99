//! Identifiers: the target languages' rules, the mapping of source names
//! to generated ones ([`Namer`]) and the generated function's name.

use std::collections::HashSet;

use iegen::computation::Computation;

use super::EmitError;
use crate::runtime;

/// The two target languages, for identifier rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lang {
    /// C99.
    C,
    /// Rust.
    Rust,
}

#[rustfmt::skip]
const C_RESERVED: &[&str] = &[
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "_Bool", "_Complex", "_Imaginary", "bool",
    "true", "false", "int64_t", "size_t", "NULL", "INT64_MIN", "INT64_C", "INFINITY", "NAN",
    "abort", "calloc", "free", "main", "spf_z",
];

#[rustfmt::skip]
const RUST_RESERVED: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final",
    "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen", "union",
    "i64", "f64", "usize", "std", "core", "vec", "main",
];

/// The names of the helpers the backends may emit; never given to anything else.
const HELPERS: &[&str] = &[
    "spf_min_i64",
    "spf_max_i64",
    "spf_min_f64",
    "spf_max_f64",
    "spf_floord",
    "spf_ceild",
    "spf_len",
    "spf_fits_i32",
];

/// `rowPtr` → `row_ptr`, `NNZ` → `nnz`, `A` → `a`, `Acoo` → `acoo`.
pub(crate) fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 2);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev = i.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(i + 1).copied();
            let boundary = match prev {
                Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_ascii_uppercase() => next.is_some_and(|n| n.is_ascii_lowercase()),
                _ => false,
            };
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A valid identifier close to `name`: trailing primes (`i'`, `i''`) become
/// `_1`, `_2`; any other character outside `[A-Za-z0-9_]` becomes `_`.
fn sanitize(name: &str) -> String {
    let body = name.trim_end_matches('\'');
    let primes = name.len() - body.len();
    let mut out: String = body
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'v');
    }
    if primes > 0 {
        out.push_str(&format!("_{primes}"));
    }
    out
}

/// Whether `name` is already a plain identifier.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Hands out distinct identifiers of one generated function.
#[derive(Clone, Debug)]
pub(crate) struct Namer {
    lang: Lang,
    used: HashSet<String>,
}

impl Namer {
    /// A namer for `lang` that has handed out nothing yet.
    pub(crate) fn new(lang: Lang) -> Self {
        Namer {
            lang,
            used: HashSet::new(),
        }
    }

    fn reserved(&self, name: &str) -> bool {
        let list = match self.lang {
            Lang::C => C_RESERVED,
            Lang::Rust => RUST_RESERVED,
        };
        list.contains(&name) || HELPERS.contains(&name) || runtime::is_reserved(name)
    }

    /// The identifier a source name would get, before uniqueness.
    pub(crate) fn base(&self, source: &str) -> String {
        let mut b = sanitize(source);
        if self.lang == Lang::Rust {
            b = snake_case(&b);
        }
        if self.reserved(&b) {
            b.push('_');
        }
        b
    }

    /// A new identifier for `source`, distinct from every one handed out.
    pub(crate) fn fresh(&mut self, source: &str) -> String {
        let base = self.base(source);
        let mut candidate = base.clone();
        let mut n = 2;
        while self.used.contains(&candidate) || self.reserved(&candidate) {
            candidate = format!("{base}_{n}");
            n += 1;
        }
        self.used.insert(candidate.clone());
        candidate
    }
}

/// The generated function's name: C keeps the computation's name (it must
/// be an identifier and not a keyword), Rust takes its snake case.
pub(crate) fn function_name(comp: &Computation, lang: Lang) -> Result<String, EmitError> {
    let name = &comp.name;
    if !is_identifier(name) {
        return Err(EmitError::FunctionName(name.clone()));
    }
    let namer = Namer::new(lang);
    match lang {
        Lang::C if namer.reserved(name) => Err(EmitError::FunctionName(name.clone())),
        Lang::C => Ok(name.clone()),
        Lang::Rust => Ok(namer.base(name)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_of_typical_names() {
        assert_eq!(snake_case("A"), "a");
        assert_eq!(snake_case("NNZ"), "nnz");
        assert_eq!(snake_case("rowPtr"), "row_ptr");
        assert_eq!(snake_case("Acoo"), "acoo");
        assert_eq!(snake_case("A_val"), "a_val");
        assert_eq!(snake_case("HTTPServer"), "http_server");
        assert_eq!(snake_case("x2"), "x2");
    }

    #[test]
    fn namer_avoids_keywords_and_clashes() {
        let mut n = Namer::new(Lang::Rust);
        assert_eq!(n.fresh("N"), "n");
        assert_eq!(n.fresh("n"), "n_2");
        assert_eq!(n.fresh("type"), "type_");
        assert_eq!(n.fresh("i'"), "i_1");
        assert_eq!(n.fresh("spf_len"), "spf_len_");
        let mut c = Namer::new(Lang::C);
        assert_eq!(c.fresh("N"), "N");
        assert_eq!(c.fresh("int"), "int_");
        assert_eq!(c.fresh("free"), "free_");
    }
}
