//! Statement bodies and accesses as label text, with the statement's
//! iterator names (`tmp(i) -= A(i, j) * u(j)`).

use crate::computation::{Access, BinOp, Body, Condition, ValueExpr};
use crate::expr::{Expr, Var};
use crate::print::expr_with_names;

/// Names the variables of a statement's index expressions.
pub(crate) struct Namer<'a> {
    iterators: &'a [String],
}

/// Binding strength of a printed value: operands that bind less tightly
/// than their context are parenthesized.
const ADD: u8 = 1;
const MUL: u8 = 2;
const UNARY: u8 = 3;
const ATOM: u8 = 4;

impl<'a> Namer<'a> {
    /// Names `Var::Tuple(p)` as `iterators[p]` (`t{p}` beyond them).
    pub(crate) fn new(iterators: &'a [String]) -> Self {
        Namer { iterators }
    }

    fn var(&self, v: Var) -> String {
        match v {
            Var::Tuple(p) => self
                .iterators
                .get(p)
                .filter(|n| !n.is_empty())
                .cloned()
                .unwrap_or_else(|| format!("t{p}")),
            Var::Exist(e) => format!("e{e}"),
        }
    }

    /// An index expression.
    pub(crate) fn expr(&self, e: &Expr) -> String {
        expr_with_names(e, &|v| self.var(v))
    }

    /// `A(i, j)`; a scalar prints as its bare name.
    pub(crate) fn access(&self, a: &Access) -> String {
        if a.index.is_empty() {
            return a.space.clone();
        }
        let index: Vec<String> = a.index.iter().map(|e| self.expr(e)).collect();
        format!("{}({})", a.space, index.join(", "))
    }

    /// `P.insert(i, j)`.
    pub(crate) fn call(&self, object: &str, method: &str, args: &[ValueExpr]) -> String {
        let args: Vec<String> = args.iter().map(|a| self.value(a)).collect();
        format!("{object}.{method}({})", args.join(", "))
    }

    /// A whole statement body.
    pub(crate) fn body(&self, b: &Body) -> String {
        match b {
            Body::Update { target, op, value } => {
                format!(
                    "{} {} {}",
                    self.access(target),
                    op.symbol(),
                    self.value(value)
                )
            }
            Body::If { conditions, then } => {
                let cs: Vec<String> = conditions.iter().map(|c| self.condition(c)).collect();
                let guard = if cs.is_empty() {
                    "true".to_string()
                } else {
                    cs.join(" && ")
                };
                format!("if ({guard}) {}", self.body(then))
            }
            Body::Call {
                object,
                method,
                args,
            } => self.call(object, method, args),
            Body::Seq(bs) => {
                let parts: Vec<String> = bs.iter().map(|b| self.body(b)).collect();
                format!("{{ {} }}", parts.join("; "))
            }
        }
    }

    fn condition(&self, c: &Condition) -> String {
        format!("{} {} {}", self.value(&c.lhs), c.op, self.value(&c.rhs))
    }

    /// A value expression.
    pub(crate) fn value(&self, v: &ValueExpr) -> String {
        self.value_prec(v).0
    }

    /// The text of `v` and how tightly it binds.
    fn value_prec(&self, v: &ValueExpr) -> (String, u8) {
        match v {
            ValueExpr::Int(n) => (n.to_string(), if *n < 0 { UNARY } else { ATOM }),
            ValueExpr::Real(x) => {
                let negative = x.is_sign_negative() && *x != 0.0;
                (format!("{x:?}"), if negative { UNARY } else { ATOM })
            }
            ValueExpr::Index(e) => (self.expr(e), index_prec(e)),
            ValueExpr::Read(a) => (self.access(a), ATOM),
            ValueExpr::Neg(inner) => (format!("-{}", self.operand(inner, ATOM)), UNARY),
            ValueExpr::Binary(op, a, b) => match op {
                BinOp::Min | BinOp::Max => {
                    let name = if *op == BinOp::Min { "min" } else { "max" };
                    (
                        format!("{name}({}, {})", self.value(a), self.value(b)),
                        ATOM,
                    )
                }
                BinOp::Add | BinOp::Sub => {
                    let sym = if *op == BinOp::Add { '+' } else { '-' };
                    (
                        format!("{} {sym} {}", self.operand(a, ADD), self.operand(b, MUL)),
                        ADD,
                    )
                }
                BinOp::Mul | BinOp::Div => {
                    let sym = if *op == BinOp::Mul { '*' } else { '/' };
                    (
                        format!("{} {sym} {}", self.operand(a, MUL), self.operand(b, UNARY)),
                        MUL,
                    )
                }
            },
            ValueExpr::Call {
                object,
                method,
                args,
            } => (self.call(object, method, args), ATOM),
        }
    }

    /// `v`, parenthesized when it binds less tightly than `at_least`.
    fn operand(&self, v: &ValueExpr, at_least: u8) -> String {
        let (text, prec) = self.value_prec(v);
        if prec < at_least {
            format!("({text})")
        } else {
            text
        }
    }
}

/// How tightly a printed index expression binds: a lone variable, symbol,
/// call or non-negative constant is atomic; anything else is treated as a sum.
fn index_prec(e: &Expr) -> u8 {
    match (e.as_constant(), e.num_terms()) {
        (Some(c), _) if c >= 0 => ATOM,
        (Some(_), _) => UNARY,
        (None, 1) if e.constant_term() == 0 && e.terms().all(|(_, k)| k == 1) => ATOM,
        _ => ADD,
    }
}

/// Escapes text for a double-quoted DOT string.
pub(crate) fn dot_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::computation::UpdateOp;

    fn it(p: usize) -> Expr {
        Expr::var(Var::Tuple(p))
    }

    fn read(space: &str, index: Vec<Expr>) -> ValueExpr {
        ValueExpr::Read(Access {
            space: space.into(),
            index,
        })
    }

    fn bin(op: BinOp, a: ValueExpr, b: ValueExpr) -> ValueExpr {
        ValueExpr::Binary(op, Box::new(a), Box::new(b))
    }

    #[test]
    fn prints_bodies_with_iterator_names_and_minimal_parentheses() {
        let names = vec!["i".to_string(), "j".to_string()];
        let n = Namer::new(&names);
        let body = Body::Update {
            target: Access {
                space: "tmp".into(),
                index: vec![it(0)],
            },
            op: UpdateOp::Sub,
            value: bin(
                BinOp::Mul,
                read("A", vec![it(0), it(1)]),
                read("u", vec![it(1)]),
            ),
        };
        assert_eq!(n.body(&body), "tmp(i) -= A(i, j) * u(j)");

        // a - (b - c), (a + b) * c, -(a + b), a / (b * c)
        let (a, b, c) = (read("a", vec![]), read("b", vec![]), read("c", vec![]));
        let sub = bin(BinOp::Sub, a.clone(), bin(BinOp::Sub, b.clone(), c.clone()));
        assert_eq!(n.value(&sub), "a - (b - c)");
        let mul = bin(BinOp::Mul, bin(BinOp::Add, a.clone(), b.clone()), c.clone());
        assert_eq!(n.value(&mul), "(a + b) * c");
        let neg = ValueExpr::Neg(Box::new(bin(BinOp::Add, a.clone(), b.clone())));
        assert_eq!(n.value(&neg), "-(a + b)");
        let div = bin(BinOp::Div, a.clone(), bin(BinOp::Mul, b.clone(), c));
        assert_eq!(n.value(&div), "a / (b * c)");
        let idx = bin(
            BinOp::Mul,
            ValueExpr::Index(it(0).plus(&Expr::constant(1))),
            ValueExpr::Int(2),
        );
        assert_eq!(n.value(&idx), "(i + 1) * 2");
        let min = bin(BinOp::Min, a, ValueExpr::Real(0.5));
        assert_eq!(n.value(&min), "min(a, 0.5)");
    }

    #[test]
    fn escapes_dot_strings() {
        assert_eq!(dot_escape("a \"b\"\\\nc"), "a \\\"b\\\"\\\\\\nc");
    }
}
