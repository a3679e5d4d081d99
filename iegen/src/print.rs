//! The canonical printer: IEGenLib notation that parses back to an equal value.
//!
//! Printing chooses readable forms (`j = col(k)`, `k < rowptr(i + 1)`,
//! constants and repeated names inside tuples) but never changes meaning:
//! names that would be captured (a tuple variable called like a symbolic
//! constant, two positions with one name) are primed apart, and every
//! constraint not shown in a tuple is printed in the body.

use std::collections::{BTreeSet, HashMap};
use std::fmt::{self, Write};

use crate::conjunction::Conjunction;
use crate::constraint::{Constraint, ConstraintKind};
use crate::expr::{neg_checked, Atom, Expr, Var};
use crate::formula::Formula;
use crate::relation::Relation;
use crate::set::Set;

/// Words the grammar reserves; a variable may not print as one of them.
pub const RESERVED_WORDS: &[&str] = &[
    "union", "exists", "and", "or", "true", "false", "forall", "uf",
];

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    if !(first.is_ascii_alphabetic() || first == '_') {
        return false;
    }
    let body = s.trim_end_matches('\'');
    body.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !RESERVED_WORDS.contains(&s)
}

/// Display names for the variables of one conjunction.
struct Names {
    tuple: Vec<String>,
    exist: Vec<String>,
}

impl Names {
    fn of(c: &Conjunction) -> Names {
        let mut taken: BTreeSet<String> = c.symbols();
        let mut pick = |wanted: &str, fallback: String| {
            let mut name = if is_identifier(wanted) {
                wanted.to_string()
            } else {
                fallback
            };
            while taken.contains(&name) || !is_identifier(&name) {
                name.push('\'');
            }
            taken.insert(name.clone());
            name
        };
        let tuple = c
            .tuple_names()
            .iter()
            .enumerate()
            .map(|(i, n)| pick(n, format!("t{i}")))
            .collect();
        let exist = c
            .exist_names()
            .iter()
            .enumerate()
            .map(|(i, n)| pick(n, format!("e{i}")))
            .collect();
        Names { tuple, exist }
    }

    fn of_var(&self, v: Var) -> &str {
        match v {
            Var::Tuple(i) => &self.tuple[i],
            Var::Exist(i) => &self.exist[i],
        }
    }
}

/// Writes an expression with the given variable names.
fn write_expr(out: &mut String, e: &Expr, names: &dyn Fn(Var) -> String) {
    let mut first = true;
    for (atom, coef) in e.terms() {
        let magnitude = coef.unsigned_abs();
        if first {
            if coef < 0 {
                out.push('-');
            }
        } else {
            out.push_str(if coef < 0 { " - " } else { " + " });
        }
        first = false;
        if magnitude != 1 {
            let _ = write!(out, "{magnitude}");
            if matches!(atom, Atom::Uf(..) | Atom::Div(..)) {
                out.push('*');
            }
        }
        write_atom(out, atom, names);
    }
    let c = e.constant_term();
    if first {
        let _ = write!(out, "{c}");
    } else if c != 0 {
        let _ = write!(
            out,
            " {} {}",
            if c < 0 { '-' } else { '+' },
            c.unsigned_abs()
        );
    }
}

fn write_atom(out: &mut String, a: &Atom, names: &dyn Fn(Var) -> String) {
    match a {
        Atom::Var(v) => out.push_str(&names(*v)),
        Atom::Sym(s) => out.push_str(s),
        Atom::Uf(name, args) => {
            out.push_str(name);
            out.push('(');
            for (i, arg) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_expr(out, arg, names);
            }
            out.push(')');
        }
        Atom::Div(e, m) => {
            out.push_str("floor(");
            if e.num_terms() + usize::from(e.constant_term() != 0) > 1 {
                out.push('(');
                write_expr(out, e, names);
                out.push(')');
            } else {
                write_expr(out, e, names);
            }
            let _ = write!(out, " / {m})");
        }
    }
}

fn expr_string(e: &Expr, names: &dyn Fn(Var) -> String) -> String {
    let mut s = String::new();
    write_expr(&mut s, e, names);
    s
}

/// Splits `e` into (positive part, negated negative part), constants excluded.
fn split_signs(e: &Expr) -> (Expr, Expr) {
    let mut pos = Expr::constant(0);
    let mut neg = Expr::constant(0);
    for (a, c) in e.terms() {
        if c > 0 {
            pos.add_term(a.clone(), c);
        } else {
            neg.add_term(a.clone(), neg_checked(c));
        }
    }
    (pos, neg)
}

/// A constraint ready to print: `lhs op rhs`.
struct Comparison {
    lhs: String,
    op: &'static str,
    rhs: String,
}

fn comparison(c: &Constraint, names: &dyn Fn(Var) -> String) -> Comparison {
    let e = c.expr();
    match c.kind() {
        ConstraintKind::Eq => {
            // Prefer `v = rest` for the last tuple variable with a unit
            // coefficient, then an existential, then positive = negative.
            let pivot = e
                .terms()
                .filter_map(|(a, k)| match a {
                    Atom::Var(v) if k == 1 || k == -1 => Some((*v, k)),
                    _ => None,
                })
                .max_by_key(|(v, _)| match v {
                    Var::Tuple(i) => (1, *i),
                    Var::Exist(i) => (0, *i),
                });
            if let Some((v, k)) = pivot {
                let mut rest = e.clone();
                rest.add_term(Atom::Var(v), -k);
                let rhs = rest.scale(-k);
                return Comparison {
                    lhs: names(v),
                    op: "=",
                    rhs: expr_string(&rhs, names),
                };
            }
            let (mut pos, mut neg) = split_signs(e);
            let k = e.constant_term();
            if k > 0 {
                pos.add_constant(k);
            } else {
                neg.add_constant(neg_checked(k));
            }
            Comparison {
                lhs: expr_string(&pos, names),
                op: "=",
                rhs: expr_string(&neg, names),
            }
        }
        ConstraintKind::Geq => {
            // pos - neg + k >= 0
            let (mut pos, mut neg) = split_signs(e);
            let k = e.constant_term();
            let op = if pos.is_constant() {
                // -neg + k >= 0  =>  neg <= k
                pos.add_constant(k);
                "<="
            } else if neg.is_constant() {
                // pos + k >= 0  =>  -k <= pos
                neg.add_constant(neg_checked(k));
                "<="
            } else if k == -1 {
                "<"
            } else if k < 0 {
                neg.add_constant(neg_checked(k));
                "<="
            } else {
                pos.add_constant(k);
                "<="
            };
            Comparison {
                lhs: expr_string(&neg, names),
                op,
                rhs: expr_string(&pos, names),
            }
        }
    }
}

/// Joins the constraints with `&&`, equalities first, chaining inequalities
/// that share an operand (`0 <= i && i < N` prints as `0 <= i < N`).
fn write_body(out: &mut String, body: &[&Constraint], names: &dyn Fn(Var) -> String) {
    let comparisons: Vec<Comparison> = body.iter().map(|k| comparison(k, names)).collect();
    let mut used = vec![false; comparisons.len()];
    let mut pieces: Vec<String> = Vec::new();
    for (i, c) in comparisons.iter().enumerate() {
        if c.op == "=" {
            used[i] = true;
            pieces.push(format!("{} = {}", c.lhs, c.rhs));
        }
    }
    for start in 0..comparisons.len() {
        if used[start] {
            continue;
        }
        used[start] = true;
        let mut chain: Vec<usize> = vec![start];
        // Extend to the left while some unused inequality ends where the chain starts.
        while let Some(j) = (0..comparisons.len())
            .find(|&j| !used[j] && comparisons[j].rhs == comparisons[chain[0]].lhs)
        {
            used[j] = true;
            chain.insert(0, j);
        }
        // Extend to the right likewise.
        while let Some(j) = (0..comparisons.len())
            .find(|&j| !used[j] && comparisons[j].lhs == comparisons[chain[chain.len() - 1]].rhs)
        {
            used[j] = true;
            chain.push(j);
        }
        let mut piece = comparisons[chain[0]].lhs.clone();
        for &j in &chain {
            let _ = write!(piece, " {} {}", comparisons[j].op, comparisons[j].rhs);
        }
        pieces.push(piece);
    }
    out.push_str(&pieces.join(" && "));
}

/// Writes one conjunction as a braced term; `in_arity` is `None` for a set.
fn write_conjunction(out: &mut String, c: &Conjunction, in_arity: Option<usize>) {
    let names = Names::of(c);
    // Decide what each tuple position shows: its name, a constant, or the
    // name of an earlier position it equals. The constraint that justifies a
    // constant or a repeated name is then left out of the body.
    let mut shown: Vec<String> = names.tuple.clone();
    let mut hidden: Vec<&Constraint> = Vec::new();
    let mut shows_name = vec![true; c.arity()];
    let mut alias: HashMap<usize, usize> = HashMap::new();
    let equalities: Vec<&Constraint> = c.constraints().filter(|k| k.is_eq()).collect();
    // First pass: positions fixed to a constant and mentioned nowhere else.
    for k in &equalities {
        let e = k.expr();
        if let [(Atom::Var(Var::Tuple(p)), 1)] = e.terms().collect::<Vec<_>>().as_slice() {
            let p = *p;
            let elsewhere = c
                .constraints()
                .any(|other| !std::ptr::eq(other, *k) && other.mentions(Var::Tuple(p)));
            if shows_name[p] && !elsewhere {
                shown[p] = (-i128::from(e.constant_term())).to_string();
                shows_name[p] = false;
                hidden.push(k);
            }
        }
    }
    // Second pass: a later position equal to an earlier one shows its name.
    for k in &equalities {
        let e = k.expr();
        if let [(Atom::Var(Var::Tuple(q)), 1), (Atom::Var(Var::Tuple(p)), -1)] =
            e.terms().collect::<Vec<_>>().as_slice()
        {
            let (p, q) = (*p, *q);
            // Only when p appears nowhere else: otherwise its other
            // constraints would print under q's name and parse back as
            // different (if equivalent) constraints.
            let elsewhere = c
                .constraints()
                .any(|other| !std::ptr::eq(other, *k) && other.mentions(Var::Tuple(p)));
            if !elsewhere
                && e.constant_term() == 0
                && shows_name[q]
                && shows_name[p]
                && !alias.contains_key(&q)
                && !alias.contains_key(&p)
            {
                // q < p by the canonical order; p shows q's name.
                alias.insert(p, q);
                shown[p] = names.tuple[q].clone();
                shows_name[p] = false;
                hidden.push(k);
            }
        }
    }
    // A position that is the target of an alias must keep showing its own name.
    let name_of = |v: Var| -> String {
        match v {
            Var::Tuple(p) => match alias.get(&p) {
                Some(q) => names.tuple[*q].clone(),
                None => names.of_var(v).to_string(),
            },
            Var::Exist(_) => names.of_var(v).to_string(),
        }
    };
    out.push('{');
    let write_tuple = |out: &mut String, range: std::ops::Range<usize>| {
        out.push('[');
        for (n, p) in range.enumerate() {
            if n > 0 {
                out.push_str(", ");
            }
            out.push_str(&shown[p]);
        }
        out.push(']');
    };
    match in_arity {
        None => write_tuple(out, 0..c.arity()),
        Some(n) => {
            write_tuple(out, 0..n);
            out.push_str(" -> ");
            write_tuple(out, n..c.arity());
        }
    }
    let body: Vec<&Constraint> = c
        .constraints()
        .filter(|k| !hidden.iter().any(|h| std::ptr::eq(*h, *k)))
        .collect();
    if !body.is_empty() || c.num_exists() > 0 {
        out.push_str(" : ");
        if c.num_exists() > 0 {
            out.push_str("exists ");
            out.push_str(&names.exist.join(", "));
            out.push_str(" : ");
        }
        if body.is_empty() {
            out.push_str("true");
        }
        write_body(out, &body, &name_of);
    }
    out.push('}');
}

fn write_formula(
    f: &mut fmt::Formatter<'_>,
    formula: &Formula,
    in_arity: Option<usize>,
) -> fmt::Result {
    let mut out = String::new();
    if formula.has_no_conjunctions() {
        let empty = Conjunction::universe_of_arity(formula.arity());
        write_conjunction(&mut out, &empty, in_arity);
        out.pop();
        out.push_str(" : false}");
    }
    for (i, c) in formula.conjunctions().iter().enumerate() {
        if i > 0 {
            out.push_str(" union ");
        }
        write_conjunction(&mut out, c, in_arity);
    }
    f.write_str(&out)
}

impl fmt::Display for Set {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_formula(f, self.formula(), None)
    }
}

impl fmt::Display for Relation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_formula(f, self.formula(), Some(self.in_arity()))
    }
}

/// Prints an expression whose variables are named `$t0`, `$e0`, ...: for
/// diagnostics, where no conjunction supplies names.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&expr_string(self, &|v| v.to_string()))
    }
}

/// Prints an expression with variable names chosen by the caller (for
/// example a UF rule whose variables are named by its declaration).
pub fn expr_with_names(e: &Expr, names: &dyn Fn(Var) -> String) -> String {
    expr_string(e, names)
}
