//! The canonical printer of computations: the computation file format of
//! `docs/computations.md`, which [`parse_computation`](super::parse_computation)
//! reads back to an equal value.
//!
//! Sets and relations print with their own [`Display`](std::fmt::Display).
//! Index expressions print with the names of the statement's iterators. The
//! printer makes those names usable: it renames an iterator whose name is
//! not an identifier or is taken by a symbol, data space or object, and when
//! the domain's printed tuple would show a position the body uses as a
//! constant (`{[i, 0] : ...}`) or as a repeated name, it prints that
//! position's name and its equality instead (`{[i, j] : ... && j = 0}`).
//!
//! The text parses back to an equal computation for every value the parser
//! builds. Other values print as their canonical form (see
//! [`parse`](super::parse_computation)'s rules: `Int(1) + Index(i)` reads back
//! as `Index(i + 1)`, a UF call in an `Index` reads back as a `Read`), and
//! a few values have no text at all: a NaN literal prints as `(0.0 / 0.0)`,
//! names that are not identifiers print as they are.

use std::collections::HashSet;
use std::fmt::{self, Write};

use crate::computation::parse::RESERVED_NAMES;
use crate::computation::{
    Access, BinOp, Body, Computation, ElemType, Role, RuntimeObject, Stmt, ValueExpr,
};
use crate::conjunction::Conjunction;
use crate::expr::{Atom, Expr, Var};
use crate::formula::Formula;
use crate::print::{expr_with_names, RESERVED_WORDS};
use crate::set::Set;
use crate::syntax::ast::{Span, TupleElem, CHAIN_TERMS};
use crate::syntax::parse_formula;

impl fmt::Display for Computation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "computation {}({}) {{",
            self.name,
            self.symbols.join(", ")
        );
        let no_vars = |v: Var| fallback_name(v);
        for d in &self.spaces {
            let role = match d.role {
                Role::In => "in",
                Role::Out => "out",
                Role::InOut => "inout",
                Role::Temp => "temp",
            };
            let elem = match d.elem {
                ElemType::Int => "int",
                ElemType::Real => "real",
            };
            let _ = write!(out, "    {role} {elem} {}", d.name);
            if !d.extents.is_empty() {
                let extents: Vec<String> = d
                    .extents
                    .iter()
                    .map(|e| expr_with_names(e, &no_vars))
                    .collect();
                let _ = write!(out, "[{}]", extents.join(", "));
            }
            out.push_str(";\n");
        }
        for o in &self.objects {
            write_object(&mut out, o);
        }
        let taken: HashSet<&str> = self
            .symbols
            .iter()
            .map(String::as_str)
            .chain(self.spaces.iter().map(|d| d.name.as_str()))
            .chain(self.objects.iter().map(|o| o.name.as_str()))
            .collect();
        for s in &self.stmts {
            out.push('\n');
            write_stmt(&mut out, s, &taken);
        }
        out.push_str("}\n");
        f.write_str(&out)
    }
}

fn write_object(out: &mut String, o: &RuntimeObject) {
    let _ = writeln!(
        out,
        "    object {} : {}({});",
        o.name,
        o.kind,
        o.args.join(", ")
    );
}

/// The name of a variable no iterator name covers.
fn fallback_name(v: Var) -> String {
    match v {
        Var::Tuple(p) => format!("t{p}"),
        Var::Exist(i) => format!("e{i}"),
    }
}

fn write_stmt(out: &mut String, s: &Stmt, taken: &HashSet<&str>) {
    let (domain, names) = domain_text(s, taken);
    let name_of = |v: Var| match v {
        Var::Tuple(p) => names.get(p).cloned().unwrap_or_else(|| fallback_name(v)),
        Var::Exist(_) => fallback_name(v),
    };
    let _ = write!(out, "    {}: ", s.name);
    write_body(out, &s.body, 8, &name_of);
    let _ = write!(
        out,
        "\n        domain {domain}\n        schedule {};\n",
        s.schedule
    );
}

/// Whether `s` reads as one name token.
fn is_identifier(s: &str) -> bool {
    let body = s.trim_end_matches('\'');
    let mut chars = body.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !RESERVED_WORDS.contains(&s)
}

/// The text of a statement's domain and the names its body uses for the
/// tuple positions (see the module documentation).
fn domain_text(s: &Stmt, taken: &HashSet<&str>) -> (String, Vec<String>) {
    let n = s.domain.arity();
    let conjuncts = s.domain.conjunctions();
    let Some(first) = conjuncts.first() else {
        let names = fresh_names(&vec![String::new(); n], taken);
        return (format!("{{[{}] : false}}", names.join(", ")), names);
    };
    let symbols = first.symbols();
    let mut avoid: HashSet<&str> = taken.clone();
    avoid.extend(symbols.iter().map(String::as_str));
    let mut names = fresh_names(first.tuple_names(), &avoid);
    let renamed: Vec<Conjunction> = conjuncts
        .iter()
        .map(|c| {
            let mut c = c.clone();
            c.set_tuple_names(names.clone());
            c
        })
        .collect();
    let domain = Set::from_formula(Formula::from_conjunctions(n, renamed));
    let text = domain.to_string();

    // Which positions the printed first term shows under their own name.
    let Ok(ast) = parse_formula(&text) else {
        return (text, names);
    };
    let Some(term) = ast.terms.first() else {
        return (text, names);
    };
    let mut used: HashSet<Var> = HashSet::new();
    s.body.for_each_expr(&mut |e| {
        e.for_each_var(&mut |v| {
            used.insert(v);
        })
    });
    let mut seen: HashSet<&str> = HashSet::new();
    let mut edits: Vec<(Span, String)> = Vec::new();
    let mut equalities: Vec<String> = Vec::new();
    for (p, elem) in term.input.iter().enumerate() {
        let (span, shown) = match elem {
            TupleElem::Var(id) if seen.insert(id.name.as_str()) => {
                // Shown under its own name (which the printer keeps, as it
                // collides with nothing in the conjunction).
                names[p].clone_from(&id.name);
                continue;
            }
            TupleElem::Var(id) => (id.span, id.name.clone()),
            TupleElem::Expr(e) => match text.get(e.span().start..e.span().end) {
                Some(shown) => (e.span(), shown.to_string()),
                None => continue,
            },
        };
        if !used.contains(&Var::Tuple(p)) {
            continue;
        }
        edits.push((span, names[p].clone()));
        equalities.push(format!("{} = {shown}", names[p]));
    }
    if equalities.is_empty() {
        return (text, names);
    }
    // The printed term ends with `}`; its body, if any, with a constraint.
    let has_body = term
        .body
        .first()
        .is_some_and(|c| !c.exists.is_empty() || !c.constraints.is_empty());
    let joiner = if has_body { " && " } else { " : " };
    let close = term.span.end.saturating_sub(1);
    edits.push((
        Span::new(close, close),
        format!("{joiner}{}", equalities.join(" && ")),
    ));
    let mut patched = text.clone();
    edits.sort_by_key(|(span, _)| std::cmp::Reverse(span.start));
    for (span, replacement) in edits {
        if patched.is_char_boundary(span.start) && patched.is_char_boundary(span.end) {
            patched.replace_range(span.start..span.end, &replacement);
        }
    }
    (patched, names)
}

/// Distinct identifiers close to `wanted`, avoiding `avoid`, the reserved
/// words and each other.
fn fresh_names(wanted: &[String], avoid: &HashSet<&str>) -> Vec<String> {
    let mut chosen: HashSet<String> = HashSet::new();
    wanted
        .iter()
        .enumerate()
        .map(|(p, w)| {
            let mut name = if is_identifier(w) && !RESERVED_NAMES.contains(&w.as_str()) {
                w.clone()
            } else {
                format!("t{p}")
            };
            while avoid.contains(name.as_str()) || chosen.contains(&name) || !is_identifier(&name) {
                name.push('\'');
            }
            chosen.insert(name.clone());
            name
        })
        .collect()
}

fn write_body(out: &mut String, b: &Body, indent: usize, names: &dyn Fn(Var) -> String) {
    match b {
        Body::Update { target, op, value } => {
            write_access(out, target, names);
            let _ = write!(out, " {} ", op.symbol());
            out.push_str(&value_text(value, Prec::Sum, names));
        }
        Body::If { conditions, then } => {
            let conds: Vec<String> = conditions
                .iter()
                .map(|c| {
                    format!(
                        "{} {} {}",
                        value_text(&c.lhs, Prec::Sum, names),
                        c.op,
                        value_text(&c.rhs, Prec::Sum, names)
                    )
                })
                .collect();
            let _ = write!(out, "if ({}) ", conds.join(" && "));
            write_body(out, then, indent, names);
        }
        Body::Call {
            object,
            method,
            args,
        } => write_call(out, object, method, args, names),
        Body::Seq(items) if items.is_empty() => out.push_str("{}"),
        Body::Seq(items) => {
            out.push_str("{\n");
            for item in items {
                out.push_str(&" ".repeat(indent + 4));
                write_body(out, item, indent + 4, names);
                out.push_str(";\n");
            }
            out.push_str(&" ".repeat(indent));
            out.push('}');
        }
    }
}

fn write_call(
    out: &mut String,
    object: &str,
    method: &str,
    args: &[ValueExpr],
    names: &dyn Fn(Var) -> String,
) {
    let args: Vec<String> = args
        .iter()
        .map(|a| value_text(a, Prec::Sum, names))
        .collect();
    let _ = write!(out, "{object}.{method}({})", args.join(", "));
}

fn write_access(out: &mut String, a: &Access, names: &dyn Fn(Var) -> String) {
    out.push_str(&a.space);
    if !a.index.is_empty() {
        let index: Vec<String> = a.index.iter().map(|e| expr_with_names(e, names)).collect();
        let _ = write!(out, "({})", index.join(", "));
    }
}

/// Binding strength of a printed value, loosest first.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    /// `a + b`, `a - b`
    Sum,
    /// `a * b`, `a / b`
    Product,
    /// `-a`
    Unary,
    /// literals, names, calls, parenthesised values
    Atom,
}

/// The text of `v`, parenthesised when it binds less tightly than `min`.
fn value_text(v: &ValueExpr, min: Prec, names: &dyn Fn(Var) -> String) -> String {
    let (text, prec) = value_prec(v, names);
    if prec < min {
        format!("({text})")
    } else {
        text
    }
}

fn value_prec(v: &ValueExpr, names: &dyn Fn(Var) -> String) -> (String, Prec) {
    match v {
        ValueExpr::Int(k) => (k.to_string(), if *k < 0 { Prec::Unary } else { Prec::Atom }),
        ValueExpr::Real(x) => real_text(*x),
        ValueExpr::Index(e) => index_text(e, names),
        ValueExpr::Read(a) => {
            let mut s = String::new();
            write_access(&mut s, a, names);
            (s, Prec::Atom)
        }
        ValueExpr::Neg(a) => (
            format!("-{}", value_text(a, Prec::Unary, names)),
            Prec::Unary,
        ),
        ValueExpr::Binary(op, a, b) => {
            let (sym, prec, right) = match op {
                BinOp::Add | BinOp::Sub => return (sum_text(v, names), Prec::Sum),
                BinOp::Mul => ("*", Prec::Product, Prec::Unary),
                BinOp::Div => ("/", Prec::Product, Prec::Unary),
                BinOp::Min | BinOp::Max => {
                    let f = if *op == BinOp::Min { "min" } else { "max" };
                    return (
                        format!(
                            "{f}({}, {})",
                            value_text(a, Prec::Sum, names),
                            value_text(b, Prec::Sum, names)
                        ),
                        Prec::Atom,
                    );
                }
            };
            (
                format!(
                    "{} {sym} {}",
                    value_text(a, prec, names),
                    value_text(b, right, names)
                ),
                prec,
            )
        }
        ValueExpr::Call {
            object,
            method,
            args,
        } => {
            let mut s = String::new();
            write_call(&mut s, object, method, args, names);
            (s, Prec::Atom)
        }
    }
}

/// The text of a sum: the binary `+` and `-` along its left spine, in a
/// loop. The parser reads a flat sum of up to [`CHAIN_TERMS`] terms back as
/// the left-nested tree of its operators (and a longer one otherwise), so
/// when the spine and the terms of its leftmost operand are more than that,
/// its lower part is written in parentheses.
fn sum_text(v: &ValueExpr, names: &dyn Fn(Var) -> String) -> String {
    // The operators and right operands of the spine, top first.
    let mut spine: Vec<(BinOp, &ValueExpr)> = Vec::new();
    let mut leftmost = v;
    while let ValueExpr::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) = leftmost {
        spine.push((*op, b));
        leftmost = a;
    }
    let leftmost_terms = match leftmost {
        ValueExpr::Index(e) => (e.terms().count() + usize::from(e.constant_term() != 0)).max(1),
        _ => 1,
    };
    let mut s = if spine.len() + leftmost_terms <= CHAIN_TERMS {
        value_text(leftmost, Prec::Sum, names)
    } else {
        let keep = spine.len().min(CHAIN_TERMS - 1);
        let mut below = v;
        for _ in 0..keep {
            if let ValueExpr::Binary(_, a, _) = below {
                below = a;
            }
        }
        spine.truncate(keep);
        format!("({})", value_prec(below, names).0)
    };
    for (op, b) in spine.iter().rev() {
        let sym = if *op == BinOp::Add { '+' } else { '-' };
        let _ = write!(s, " {sym} {}", value_text(b, Prec::Product, names));
    }
    s
}

/// A real literal that lexes as one (`1.0`, `2.5e-3`, `1.0e21`).
fn real_text(x: f64) -> (String, Prec) {
    if x.is_nan() {
        return ("(0.0 / 0.0)".to_string(), Prec::Atom);
    }
    let mut s = if x.is_infinite() {
        if x > 0.0 { "1.0e999" } else { "-1.0e999" }.to_string()
    } else {
        format!("{x:?}")
    };
    if !s.contains('.') {
        match s.find(['e', 'E']) {
            Some(at) => s.insert_str(at, ".0"),
            None => s.push_str(".0"),
        }
    }
    let prec = if s.starts_with('-') {
        Prec::Unary
    } else {
        Prec::Atom
    };
    (s, prec)
}

/// An affine index value, written with explicit `*` (values have no
/// juxtaposition outside parentheses).
fn index_text(e: &Expr, names: &dyn Fn(Var) -> String) -> (String, Prec) {
    let terms: Vec<(&Atom, i64)> = e.terms().collect();
    let constant = e.constant_term();
    let prec = match terms.as_slice() {
        [] => {
            return (
                constant.to_string(),
                if constant < 0 {
                    Prec::Unary
                } else {
                    Prec::Atom
                },
            )
        }
        [(_, 1)] if constant == 0 => Prec::Atom,
        [(_, -1)] if constant == 0 => Prec::Unary,
        [_] if constant == 0 => Prec::Product,
        _ => Prec::Sum,
    };
    let mut s = String::new();
    for (i, (atom, coef)) in terms.iter().enumerate() {
        let magnitude = coef.unsigned_abs();
        if i == 0 {
            if *coef < 0 {
                s.push('-');
            }
        } else {
            s.push_str(if *coef < 0 { " - " } else { " + " });
        }
        if magnitude != 1 {
            let _ = write!(s, "{magnitude}*");
        }
        match atom {
            Atom::Var(v) => s.push_str(&names(*v)),
            Atom::Sym(name) => s.push_str(name),
            Atom::Uf(..) | Atom::Div(..) => {
                s.push_str(&expr_with_names(&Expr::atom((*atom).clone()), names))
            }
        }
    }
    if constant != 0 {
        let _ = write!(
            s,
            " {} {}",
            if constant < 0 { '-' } else { '+' },
            constant.unsigned_abs()
        );
    }
    (s, prec)
}
