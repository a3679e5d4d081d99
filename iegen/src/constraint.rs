//! Atomic constraints: `e = 0` and `e >= 0` over integer expressions.

use crate::expr::{mul_checked, Atom, Expr, Var};

/// Whether a constraint is an equality or a non-strict inequality.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConstraintKind {
    /// `expr = 0`
    Eq,
    /// `expr >= 0`
    Geq,
}

/// One atomic constraint, `expr = 0` or `expr >= 0`, over the integers.
///
/// Strict inequalities are written as `expr - 1 >= 0`. Constructors
/// normalize: coefficients are divided by their gcd (rounding the constant of
/// an inequality down, which is exact over the integers) and equalities have
/// a positive leading coefficient, so two constraints with the same integer
/// solutions in the same atoms compare equal.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Constraint {
    kind: ConstraintKind,
    expr: Expr,
}

/// The result of normalizing a constraint: it may turn out trivially true or false.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Normalized {
    /// Holds for every valuation (e.g. `3 >= 0`).
    True,
    /// Holds for no valuation (e.g. `2i = 1`).
    False,
    /// A genuine constraint in canonical form.
    Constraint(Constraint),
}

impl Constraint {
    /// Normalizes `expr = 0`.
    pub fn eq(expr: Expr) -> Normalized {
        Self::normalize(ConstraintKind::Eq, expr)
    }

    /// Normalizes `expr >= 0`.
    pub fn geq(expr: Expr) -> Normalized {
        Self::normalize(ConstraintKind::Geq, expr)
    }

    /// Normalizes `lhs = rhs`.
    pub fn equal(lhs: &Expr, rhs: &Expr) -> Normalized {
        Self::eq(lhs.minus(rhs))
    }

    /// Normalizes `lhs <= rhs`.
    pub fn le(lhs: &Expr, rhs: &Expr) -> Normalized {
        Self::geq(rhs.minus(lhs))
    }

    /// Normalizes `lhs < rhs`.
    pub fn lt(lhs: &Expr, rhs: &Expr) -> Normalized {
        let mut e = rhs.minus(lhs);
        e.add_constant(-1);
        Self::geq(e)
    }

    /// Normalizes a constraint of the given kind.
    pub fn normalize(kind: ConstraintKind, expr: Expr) -> Normalized {
        if let Some(c) = expr.as_constant() {
            let holds = match kind {
                ConstraintKind::Eq => c == 0,
                ConstraintKind::Geq => c >= 0,
            };
            return if holds {
                Normalized::True
            } else {
                Normalized::False
            };
        }
        let g = expr.coefficient_gcd();
        let c = expr.constant_term();
        let mut scaled = Expr::constant(0);
        match kind {
            ConstraintKind::Eq => {
                if c % g != 0 {
                    return Normalized::False;
                }
                let sign = match expr.terms().next() {
                    Some((_, lead)) if lead < 0 => -1,
                    _ => 1,
                };
                for (a, k) in expr.terms() {
                    scaled.add_term(a.clone(), mul_checked(sign, k / g));
                }
                scaled.add_constant(mul_checked(sign, c / g));
            }
            ConstraintKind::Geq => {
                for (a, k) in expr.terms() {
                    scaled.add_term(a.clone(), k / g);
                }
                scaled.add_constant(c.div_euclid(g));
            }
        }
        Normalized::Constraint(Constraint { kind, expr: scaled })
    }

    /// Equality or inequality.
    pub fn kind(&self) -> ConstraintKind {
        self.kind
    }

    /// The expression constrained to be `= 0` or `>= 0`.
    pub fn expr(&self) -> &Expr {
        &self.expr
    }

    /// Whether this is an equality.
    pub fn is_eq(&self) -> bool {
        self.kind == ConstraintKind::Eq
    }

    /// Whether `v` occurs anywhere in the constraint.
    pub fn mentions(&self, v: Var) -> bool {
        self.expr.mentions(v)
    }

    /// Applies `f` to the expression and normalizes the result.
    pub fn map_expr(&self, f: impl FnOnce(&Expr) -> Expr) -> Normalized {
        Self::normalize(self.kind, f(&self.expr))
    }

    /// Replaces the variable `v` by `by` and normalizes.
    pub fn substitute_var(&self, v: Var, by: &Expr) -> Normalized {
        self.map_expr(|e| e.substitute_var(v, by))
    }

    /// The inequality `-expr - 1 >= 0`, the integer negation of `expr >= 0`.
    /// `None` for an equality, whose negation is a disjunction.
    pub fn negated_inequality(&self) -> Option<Normalized> {
        match self.kind {
            ConstraintKind::Eq => None,
            ConstraintKind::Geq => {
                let mut e = self.expr.negate();
                e.add_constant(-1);
                Some(Self::geq(e))
            }
        }
    }

    /// The top-level coefficient of the atom `a`.
    pub fn coefficient(&self, a: &Atom) -> i64 {
        self.expr.coefficient(a)
    }

    /// Evaluates the constraint; `None` when some leaf is unknown.
    pub fn holds(
        &self,
        var: &mut impl FnMut(Var) -> Option<i64>,
        sym: &mut impl FnMut(&str) -> Option<i64>,
        call: &mut impl FnMut(&str, &[i64]) -> Option<i64>,
    ) -> Option<bool> {
        let v = self.expr.evaluate(var, sym, call)?;
        Some(match self.kind {
            ConstraintKind::Eq => v == 0,
            ConstraintKind::Geq => v >= 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(i: usize) -> Expr {
        Expr::var(Var::Tuple(i))
    }

    #[test]
    fn inequality_is_tightened_by_gcd() {
        // 2i - 3 >= 0  <=>  i >= 2  <=>  i - 2 >= 0
        let Normalized::Constraint(c) = Constraint::geq(t(0).scale(2).plus(&Expr::constant(-3)))
        else {
            panic!("expected a constraint")
        };
        let Normalized::Constraint(d) = Constraint::geq(t(0).plus(&Expr::constant(-2))) else {
            panic!("expected a constraint")
        };
        assert_eq!(c, d);
    }

    #[test]
    fn equality_without_integer_solution_is_false() {
        assert_eq!(
            Constraint::eq(t(0).scale(2).plus(&Expr::constant(1))),
            Normalized::False
        );
    }

    #[test]
    fn equality_sign_is_canonical() {
        let a = Constraint::equal(&t(0), &t(1));
        let b = Constraint::equal(&t(1), &t(0));
        assert_eq!(a, b);
    }

    #[test]
    fn constant_constraints_fold() {
        assert_eq!(
            Constraint::lt(&Expr::constant(1), &Expr::constant(2)),
            Normalized::True
        );
        assert_eq!(
            Constraint::lt(&Expr::constant(2), &Expr::constant(2)),
            Normalized::False
        );
    }
}
