//! Printing the lowered tree: precedence and parentheses shared by C and
//! Rust, with a [`Dialect`] for what differs.

use std::cell::RefCell;
use std::collections::BTreeSet;

use iegen::computation::BinOp;

use super::{CmpOp, Code, Cond, Ty};
use crate::runtime::Method;

/// Operator precedence, loosest first, shared by C and Rust for the
/// operators the backends print.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Prec {
    /// `+`, `-`.
    Add,
    /// `*`, `/`.
    Mul,
    /// Rust's `as`.
    Cast,
    /// A unary operator (`-x`).
    Unary,
    /// Needs no parentheses: a name, a literal, a call, an index.
    Atom,
}

/// A printed expression and the precedence of its outermost operator.
#[derive(Clone, Debug)]
pub(crate) struct P {
    /// The printed text.
    pub text: String,
    /// The precedence of its outermost operator.
    pub prec: Prec,
}

impl P {
    /// `text`, whose outermost operator has precedence `prec`.
    pub(crate) fn new(text: impl Into<String>, prec: Prec) -> P {
        P {
            text: text.into(),
            prec,
        }
    }

    /// `text`, which needs no parentheses.
    pub(crate) fn atom(text: impl Into<String>) -> P {
        P::new(text, Prec::Atom)
    }

    /// The text, parenthesized unless its precedence is at least `min`.
    pub(crate) fn at(self, min: Prec) -> String {
        if self.prec >= min {
            self.text
        } else {
            format!("({})", self.text)
        }
    }

    /// As the operand of a unary minus: never `--x`.
    fn neg_operand(self) -> String {
        if self.text.starts_with('-') {
            format!("({})", self.text)
        } else {
            self.at(Prec::Unary)
        }
    }
}

/// The target-specific part of printing.
pub(crate) trait Dialect {
    /// An integer literal.
    fn int(&self, k: i64) -> P;
    /// A real literal.
    fn real(&self, x: f64) -> P;
    /// An element read: a 32-bit index array's widened to 64 bits.
    fn elem(&self, space: usize, index: Option<&Code>) -> P;
    /// An element stored to (the place an update writes).
    fn place(&self, space: usize, index: Option<&Code>) -> P;
    /// An integer converted to a real.
    fn to_real(&self, inner: &Code) -> P;
    /// `min` or `max` (`op`) of two values of type `ty`.
    fn min_max(&self, op: BinOp, ty: Ty, a: &Code, b: &Code) -> P;
    /// `a` divided by `d > 0`, rounded down.
    fn floor_div(&self, a: &Code, d: i64) -> P;
    /// `a` divided by `d > 0`, rounded up.
    fn ceil_div(&self, a: &Code, d: i64) -> P;
    /// A value method of a runtime object.
    fn call(&self, object: usize, method: Method, args: &[Code]) -> P;
    /// A comparison's left operand, where Rust must not leave `x as T <`.
    fn cmp_lhs(&self, p: P, _op: CmpOp) -> String {
        p.at(Prec::Add)
    }
}

/// Prints the target of an update in dialect `d`: an element's place, or
/// `c` as [`print()`] prints it.
pub(crate) fn print_place<D: Dialect + ?Sized>(d: &D, c: &Code) -> P {
    match c {
        Code::Elem { space, index, .. } => d.place(*space, index.as_deref()),
        c => print(d, c),
    }
}

/// Prints `c` in dialect `d`.
pub(crate) fn print<D: Dialect + ?Sized>(d: &D, c: &Code) -> P {
    match c {
        Code::Int(k) => d.int(*k),
        Code::Real(x) => d.real(*x),
        Code::Var(n) | Code::Sym(n) => P::atom(n.clone()),
        Code::Elem { space, index, .. } => d.elem(*space, index.as_deref()),
        Code::Lin(terms, k) => print_lin(d, terms, *k),
        Code::Neg(a, _) => P::new(format!("-{}", print(d, a).neg_operand()), Prec::Unary),
        Code::Bin(op @ (BinOp::Min | BinOp::Max), ty, a, b) => d.min_max(*op, *ty, a, b),
        Code::Bin(op, _, a, b) => {
            let (sym, prec) = match op {
                BinOp::Add => ("+", Prec::Add),
                BinOp::Sub => ("-", Prec::Add),
                BinOp::Mul => ("*", Prec::Mul),
                _ => ("/", Prec::Mul),
            };
            let l = print(d, a).at(prec);
            let r = print(d, b).at(next(prec));
            P::new(format!("{l} {sym} {r}"), prec)
        }
        Code::FloorDiv(a, k) => d.floor_div(a, *k),
        Code::CeilDiv(a, k) => d.ceil_div(a, *k),
        Code::ToReal(a) => d.to_real(a),
        Code::Call {
            object,
            method,
            args,
        } => d.call(*object, *method, args),
    }
}

fn next(p: Prec) -> Prec {
    match p {
        Prec::Add => Prec::Mul,
        Prec::Mul => Prec::Cast,
        Prec::Cast => Prec::Unary,
        Prec::Unary | Prec::Atom => Prec::Atom,
    }
}

/// `2 * i + j - 1`: positive terms first, then negative ones, then the constant.
fn print_lin<D: Dialect + ?Sized>(d: &D, terms: &[(i64, Code)], k: i64) -> P {
    let mut ordered: Vec<&(i64, Code)> = terms.iter().filter(|(c, _)| *c > 0).collect();
    ordered.extend(terms.iter().filter(|(c, _)| *c < 0));
    let mut text = String::new();
    let mut pieces = 0;
    let mut prec = Prec::Atom;
    for (c, t) in ordered {
        let first = pieces == 0;
        pieces += 1;
        let (neg, mag) = match c.checked_abs() {
            Some(m) => (*c < 0, Some(m)),
            None => (false, None),
        };
        let body = match mag {
            Some(1) => {
                let p = print(d, t);
                if first && !neg {
                    prec = p.prec;
                    p.at(Prec::Add)
                } else if first {
                    prec = Prec::Unary;
                    p.neg_operand()
                } else {
                    p.at(Prec::Mul)
                }
            }
            Some(m) => {
                prec = Prec::Mul;
                let lit = d.int(if first && neg { -m } else { m }).text;
                format!("{lit} * {}", print(d, t).at(Prec::Cast))
            }
            None => {
                prec = Prec::Mul;
                format!(
                    "{} * {}",
                    d.int(*c).at(Prec::Mul),
                    print(d, t).at(Prec::Cast)
                )
            }
        };
        if first {
            if neg && mag == Some(1) {
                text.push('-');
            }
            text.push_str(&body);
        } else {
            text.push_str(if neg { " - " } else { " + " });
            text.push_str(&body);
        }
    }
    if pieces == 0 {
        return d.int(k);
    }
    if pieces > 1 {
        prec = Prec::Add;
    }
    if k != 0 {
        prec = Prec::Add;
        match k.checked_abs() {
            Some(m) => {
                text.push_str(if k < 0 { " - " } else { " + " });
                text.push_str(&d.int(m).text);
            }
            None => {
                text.push_str(" + ");
                text.push_str(&d.int(k).at(Prec::Mul));
            }
        }
    }
    P::new(text, prec)
}

/// Prints a condition list joined by `&&`.
pub(crate) fn print_conds<D: Dialect + ?Sized>(d: &D, conds: &[Cond]) -> String {
    conds
        .iter()
        .map(|c| {
            let l = d.cmp_lhs(print(d, &c.lhs), c.op);
            let r = print(d, &c.rhs).at(Prec::Add);
            format!("{l} {} {r}", c.op.symbol())
        })
        .collect::<Vec<_>>()
        .join(" && ")
}

/// The helpers a printer used, to emit only those.
#[derive(Debug, Default)]
pub(crate) struct Used(RefCell<BTreeSet<&'static str>>);

impl Used {
    /// Records that helper `name` was used.
    pub(crate) fn add(&self, name: &'static str) {
        self.0.borrow_mut().insert(name);
    }

    /// Whether helper `name` was used.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.0.borrow().contains(name)
    }
}

/// Whether any data space element in `c` belongs to a space in `spaces`.
pub(crate) fn reads_any(c: &Code, spaces: &[bool]) -> bool {
    let mut hit = false;
    c.for_each_elem(&mut |s| hit |= spaces.get(s).copied().unwrap_or(false));
    hit
}
