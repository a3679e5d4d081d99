//! Concrete evaluation without hashing per evaluation: the symbols and
//! index arrays of an instance ([`Env`]), and expressions compiled against
//! them ([`CExpr`]): symbols resolved to constants, index arrays to dense
//! tables, variables to slots. Evaluation gives exactly what
//! [`Interpretation::evaluate`](iegen::Interpretation::evaluate) gives for
//! the same values, errors included (the first failing leaf, in term order).

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;

use iegen::{Atom, EvalError, Expr, Interpretation, UfTable, Var};

/// The values of one index array (borrowed from the instance, not
/// copied).
pub(crate) enum Table<'a> {
    /// Row-major values over `extents`; a point is defined when it lies
    /// inside `lo ..= extents - 1` in every dimension and, with a
    /// `mask`, where the mask is set. Elsewhere the value is 0.
    Dense {
        extents: Vec<i64>,
        lo: Vec<i64>,
        values: Cow<'a, [i64]>,
        mask: Option<Vec<bool>>,
    },
    /// Any table (the tests' interpretations).
    #[cfg_attr(not(test), allow(dead_code))]
    Map(UfTable),
}

impl Table<'_> {
    fn arity(&self) -> usize {
        match self {
            Table::Dense { extents, .. } => extents.len(),
            Table::Map(t) => t.arity,
        }
    }

    /// The row-major index of `args`, when defined.
    pub(crate) fn index(&self, args: &[i64]) -> Option<usize> {
        match self {
            Table::Dense {
                extents, lo, mask, ..
            } => {
                let mut at: usize = 0;
                for ((&x, &e), &l) in args.iter().zip(extents).zip(lo) {
                    if x < l || x >= e {
                        return None;
                    }
                    at = at * e as usize + x as usize;
                }
                match mask {
                    Some(m) if !m[at] => None,
                    _ => Some(at),
                }
            }
            Table::Map(_) => None,
        }
    }

    /// The value at `args` (of the right arity).
    pub(crate) fn get(&self, args: &[i64]) -> i64 {
        match self {
            Table::Dense { values, .. } => self.index(args).map_or(0, |at| values[at]),
            Table::Map(t) => t.get(args),
        }
    }

    fn to_uf_table(&self) -> UfTable {
        match self {
            Table::Map(t) => t.clone(),
            Table::Dense {
                extents,
                lo,
                values,
                mask,
            } => {
                let mut t = UfTable::new(extents.len(), 0);
                let mut p = vec![0i64; extents.len()];
                for (at, &v) in values.iter().enumerate() {
                    let mut rest = at as i64;
                    for k in (0..extents.len()).rev() {
                        p[k] = rest % extents[k];
                        rest /= extents[k];
                    }
                    let inside = p.iter().zip(lo).all(|(x, l)| x >= l)
                        && mask.as_ref().is_none_or(|m| m[at]);
                    if inside {
                        t.insert(p.clone(), v);
                    }
                }
                t
            }
        }
    }
}

/// Symbols and index arrays, by name.
#[derive(Default)]
pub(crate) struct Env<'a> {
    pub(crate) symbols: HashMap<String, i64>,
    names: HashMap<String, usize>,
    tables: Vec<Table<'a>>,
}

impl<'a> Env<'a> {
    /// The symbols and tables of an interpretation.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn from_interpretation(interp: &Interpretation) -> Env<'a> {
        let mut env = Env {
            symbols: interp.symbols.clone(),
            ..Env::default()
        };
        for (name, t) in &interp.ufs {
            env.insert(name.clone(), Table::Map(t.clone()));
        }
        env
    }

    /// Adds (or replaces) the table `name`.
    pub(crate) fn insert(&mut self, name: String, table: Table<'a>) {
        match self.names.get(&name) {
            Some(&k) => self.tables[k] = table,
            None => {
                self.names.insert(name, self.tables.len());
                self.tables.push(table);
            }
        }
    }

    /// The table `name`.
    pub(crate) fn table(&self, name: &str) -> Option<&Table<'a>> {
        self.names.get(name).map(|&k| &self.tables[k])
    }

    /// The same values as an [`Interpretation`] (for the rare paths that
    /// enumerate with `iegen::eval`).
    pub(crate) fn to_interpretation(&self) -> Interpretation {
        let mut interp = Interpretation::new();
        interp.symbols = self.symbols.clone();
        for (name, &k) in &self.names {
            interp
                .ufs
                .insert(name.clone(), self.tables[k].to_uf_table());
        }
        interp
    }

    /// As [`Interpretation::call`].
    pub(crate) fn call(&self, name: &str, args: &[i64]) -> Result<i64, EvalError> {
        let table = self
            .table(name)
            .ok_or_else(|| EvalError::UnknownUf(name.to_string()))?;
        if table.arity() != args.len() {
            return Err(EvalError::UfArity {
                name: name.to_string(),
                expected: table.arity(),
                found: args.len(),
            });
        }
        Ok(table.get(args))
    }

    /// As [`Interpretation::evaluate`], uncompiled (for one-off uses).
    pub(crate) fn evaluate(
        &self,
        e: &Expr,
        var: &mut impl FnMut(Var) -> Option<i64>,
    ) -> Result<i64, EvalError> {
        let c = CExpr::compile(e, self, &mut Slot::Var);
        c.eval(self, &ByName(RefCell::new(var)))
    }
}

/// Where a compiled variable's value comes from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Slot {
    /// Position `k` of the slice evaluated over.
    At(usize),
    /// Asked by name from the evaluator's function.
    Var(Var),
    /// Never known.
    Unknown(Var),
}

enum CAtom {
    Slot(usize, Var),
    Var(Var),
    Const(i64),
    Call(Result<usize, EvalError>, Vec<CExpr>),
    Div(Box<CExpr>, i64),
    Fail(EvalError),
}

/// An expression compiled against an [`Env`].
pub(crate) struct CExpr {
    constant: i64,
    terms: Vec<(CAtom, i64)>,
}

/// Values of the variables of a compiled expression.
pub(crate) trait Values {
    /// The value at slot `k`.
    fn at(&self, k: usize) -> Option<i64>;
    /// The value of a variable asked by name.
    fn var(&self, _: Var) -> Option<i64> {
        None
    }
}

impl Values for [i64] {
    fn at(&self, k: usize) -> Option<i64> {
        self.get(k).copied()
    }
}

impl Values for [Option<i64>] {
    fn at(&self, k: usize) -> Option<i64> {
        self.get(k).copied().flatten()
    }
}

/// Variables asked by name from a function.
struct ByName<'a, F>(RefCell<&'a mut F>);

impl<F: FnMut(Var) -> Option<i64>> Values for ByName<'_, F> {
    fn at(&self, _: usize) -> Option<i64> {
        None
    }
    fn var(&self, v: Var) -> Option<i64> {
        (*self.0.borrow_mut())(v)
    }
}

impl CExpr {
    /// Compiles `e`: `slot` says where each variable's value is.
    pub(crate) fn compile(e: &Expr, env: &Env, slot: &mut impl FnMut(Var) -> Slot) -> CExpr {
        let terms = e
            .terms()
            .map(|(a, c)| {
                let atom = match a {
                    Atom::Var(v) => match slot(*v) {
                        Slot::At(k) => CAtom::Slot(k, *v),
                        Slot::Var(v) => CAtom::Var(v),
                        Slot::Unknown(v) => {
                            CAtom::Fail(EvalError::UnassignedVariable(v.to_string()))
                        }
                    },
                    Atom::Sym(s) => match env.symbols.get(s) {
                        Some(&x) => CAtom::Const(x),
                        None => CAtom::Fail(EvalError::UnknownSymbol(s.clone())),
                    },
                    Atom::Uf(name, args) => {
                        let table = match env.names.get(name) {
                            None => Err(EvalError::UnknownUf(name.clone())),
                            Some(&k) if env.tables[k].arity() != args.len() => {
                                Err(EvalError::UfArity {
                                    name: name.clone(),
                                    expected: env.tables[k].arity(),
                                    found: args.len(),
                                })
                            }
                            Some(&k) => Ok(k),
                        };
                        let args = args.iter().map(|x| CExpr::compile(x, env, slot)).collect();
                        CAtom::Call(table, args)
                    }
                    Atom::Div(x, m) => CAtom::Div(Box::new(CExpr::compile(x, env, slot)), *m),
                };
                (atom, c)
            })
            .collect();
        CExpr {
            constant: e.constant_term(),
            terms,
        }
    }

    /// The value, with the variables' values from `vals`.
    pub(crate) fn eval<V: Values + ?Sized>(&self, env: &Env, vals: &V) -> Result<i64, EvalError> {
        let mut acc = self.constant;
        for (a, c) in &self.terms {
            let x = match a {
                CAtom::Const(x) => *x,
                CAtom::Slot(k, v) => vals
                    .at(*k)
                    .ok_or_else(|| EvalError::UnassignedVariable(v.to_string()))?,
                CAtom::Var(v) => vals
                    .var(*v)
                    .ok_or_else(|| EvalError::UnassignedVariable(v.to_string()))?,
                CAtom::Call(table, args) => {
                    let mut buf = [0i64; 8];
                    let mut long = Vec::new();
                    let xs: &[i64] = if args.len() <= buf.len() {
                        for (b, x) in buf.iter_mut().zip(args) {
                            *b = x.eval(env, vals)?;
                        }
                        &buf[..args.len()]
                    } else {
                        for x in args {
                            long.push(x.eval(env, vals)?);
                        }
                        &long
                    };
                    match table {
                        Ok(k) => env.tables[*k].get(xs),
                        Err(e) => return Err(e.clone()),
                    }
                }
                CAtom::Div(x, m) => x.eval(env, vals)?.div_euclid(*m),
                CAtom::Fail(e) => return Err(e.clone()),
            };
            acc = c
                .checked_mul(x)
                .and_then(|t| acc.checked_add(t))
                .ok_or(EvalError::Overflow)?;
        }
        Ok(acc)
    }
}
