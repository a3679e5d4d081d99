//! The first steps of synthesis (Algorithm 2's opening): rename the two
//! descriptors apart, compose the inverse destination map with the source
//! map, and find what is unknown.

use std::collections::{BTreeMap, BTreeSet};

use iegen::{Atom, Conjunction, Expr, Relation, Var};

use crate::descriptor::Descriptor;

/// Why two formats cannot be paired.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConversionError {
    /// Different numbers of dense dimensions.
    #[error("{src} has {src_dims} dense dimensions but {dst} has {dst_dims}")]
    DenseArity {
        /// The source format.
        src: String,
        /// Its dense dimensions.
        src_dims: usize,
        /// The destination format.
        dst: String,
        /// Its dense dimensions.
        dst_dims: usize,
    },
    /// The composed relation is not one conjunction (a union or empty).
    #[error("composing {dst}^-1 with {src} gives {conjunctions} conjunctions; synthesis needs exactly one")]
    NotSingleConjunction {
        /// The source format.
        src: String,
        /// The destination format.
        dst: String,
        /// How many there are.
        conjunctions: usize,
    },
}

/// A source and a destination format, renamed apart and composed.
#[derive(Clone, Debug)]
pub struct Conversion {
    /// The source format, unchanged.
    pub src: Descriptor,
    /// The destination format with its names renamed apart from the source's.
    pub dst: Descriptor,
    /// The destination format as given: the names its instances use.
    pub dst_given: Descriptor,
    /// Destination names that were renamed: original → new.
    pub renames: BTreeMap<String, String>,
    /// `R = dst.map^-1 ∘ src.map`: source sparse point → destination sparse point.
    pub relation: Relation,
    /// Destination symbols to compute (sizes such as `NNZ_out`, `ND`).
    pub unknown_symbols: Vec<String>,
    /// Destination index arrays to compute.
    pub unknown_ufs: Vec<String>,
    /// For each destination tuple position: the expression over the source
    /// point that determines it, or `None` for a position (CSR's `k`) that
    /// only a permutation or an ordered set can give. Block formats give
    /// quasi-affine values (BCSR's `bi = floor(ii / 2)`, `r = ii - 2 bi`).
    pub resolved: Vec<Option<Expr>>,
    /// For each destination position no source expression resolves, the
    /// expression an equality gives it over the source point and the
    /// destination's index arrays, when there is one: a lower skyline's
    /// `k = jj - ii + sky(ii + 1) - 1`. The position is computed from the
    /// arrays once they are known, with no permutation.
    pub defined: Vec<Option<Expr>>,
}

impl Conversion {
    /// Renames `dst` apart from `src` and composes the maps.
    pub fn new(src: &Descriptor, dst: &Descriptor) -> Result<Conversion, ConversionError> {
        if src.dense.len() != dst.dense.len() {
            return Err(ConversionError::DenseArity {
                src: src.name.clone(),
                src_dims: src.dense.len(),
                dst: dst.name.clone(),
                dst_dims: dst.dense.len(),
            });
        }
        let dst_given = dst.clone();
        let (dst, renames) = rename_apart(src, dst);
        let relation =
            dst.map
                .inverse()
                .compose(&src.map)
                .map_err(|_| ConversionError::DenseArity {
                    src: src.name.clone(),
                    src_dims: src.dense_arity(),
                    dst: dst.name.clone(),
                    dst_dims: dst.dense_arity(),
                })?;
        let relation = relation.simplify();
        let conj = match relation.conjunctions() {
            [c] => c.clone(),
            cs => {
                return Err(ConversionError::NotSingleConjunction {
                    src: src.name.clone(),
                    dst: dst.name.clone(),
                    conjunctions: cs.len(),
                })
            }
        };
        let unknown_ufs: Vec<String> = dst.ufs.iter().map(|u| u.name.clone()).collect();
        let unknown_symbols: Vec<String> = dst
            .symbols
            .iter()
            .filter(|s| !dst.dense.contains(s))
            .cloned()
            .collect();
        let unknown: BTreeSet<&str> = unknown_ufs
            .iter()
            .chain(&unknown_symbols)
            .map(String::as_str)
            .collect();
        let resolved = resolve_outputs(&conj, src.sparse_arity(), &unknown);
        let defined = define_through_arrays(&conj, src.sparse_arity(), &resolved);
        Ok(Conversion {
            src: src.clone(),
            dst,
            dst_given,
            renames,
            relation,
            unknown_symbols,
            unknown_ufs,
            resolved,
            defined,
        })
    }

    /// The conversion with its defined positions counted as resolved:
    /// what the lowering sees once the arrays they read are computed.
    pub fn with_defined_positions(&self) -> Conversion {
        let mut c = self.clone();
        for (slot, d) in c.resolved.iter_mut().zip(&self.defined) {
            if slot.is_none() {
                slot.clone_from(d);
            }
        }
        c
    }

    /// `e` with every defined position replaced by its definition.
    pub fn substitute_defined(&self, e: &Expr) -> Expr {
        let n_in = self.src.sparse_arity();
        e.substitute(&mut |v| match v {
            Var::Tuple(p) if p >= n_in => self.defined.get(p - n_in).cloned().flatten(),
            _ => None,
        })
    }

    /// The composed relation's only conjunction.
    pub fn conjunction(&self) -> &Conjunction {
        &self.relation.conjunctions()[0]
    }

    /// Destination tuple positions no equality determines.
    pub fn positions(&self) -> Vec<usize> {
        (0..self.resolved.len())
            .filter(|p| self.resolved[*p].is_none())
            .collect()
    }
}

/// Renames the destination's names that clash with the source's: dense
/// extents take the source's names (by position), every other clashing
/// symbol, index array or value array gets the suffix `_out`.
fn rename_apart(src: &Descriptor, dst: &Descriptor) -> (Descriptor, BTreeMap<String, String>) {
    let mut taken: BTreeSet<String> = src
        .symbols
        .iter()
        .chain(src.ufs.iter().map(|u| &u.name))
        .chain(std::iter::once(&src.data_name))
        .chain(src.comparators.iter().map(|c| &c.name))
        .cloned()
        .collect();
    let mut renames = BTreeMap::new();
    for (d, s) in dst.dense.iter().zip(&src.dense) {
        if d != s {
            renames.insert(d.clone(), s.clone());
        }
    }
    let names = dst
        .symbols
        .iter()
        .filter(|s| !dst.dense.contains(s))
        .chain(dst.ufs.iter().map(|u| &u.name))
        .chain(std::iter::once(&dst.data_name));
    let mut fresh: Vec<(String, String)> = Vec::new();
    for n in names {
        if taken.contains(n) || src.dense.contains(n) {
            let mut new = format!("{n}_out");
            while taken.contains(&new) {
                new.push_str("_out");
            }
            taken.insert(new.clone());
            fresh.push((n.clone(), new));
        } else {
            taken.insert(n.clone());
        }
    }
    renames.extend(fresh);
    let map = |s: &str| renames.get(s).cloned();
    let rename_expr = |e: &Expr| e.rename_names(&map);
    let renamed = Descriptor {
        name: dst.name.clone(),
        dense: src.dense.clone(),
        symbols: dst
            .symbols
            .iter()
            .map(|s| renames.get(s).cloned().unwrap_or_else(|| s.clone()))
            .collect(),
        map: dst.map.map_exprs(&rename_expr),
        data_name: renames
            .get(&dst.data_name)
            .cloned()
            .unwrap_or_else(|| dst.data_name.clone()),
        data: dst.data.map_exprs(&rename_expr),
        data_size: dst.data_size.iter().map(rename_expr).collect(),
        ufs: dst
            .ufs
            .iter()
            .map(|u| iegen::UfDecl {
                name: renames
                    .get(&u.name)
                    .cloned()
                    .unwrap_or_else(|| u.name.clone()),
                domain: u.domain.map_exprs(&rename_expr),
                range: u.range.map_exprs(&rename_expr),
                monotonicity: u.monotonicity.clone(),
            })
            .collect(),
        rules: dst
            .rules
            .iter()
            .map(|r| iegen::UfRule {
                vars: r.vars.clone(),
                premise: rename_constraints(&r.premise, &rename_expr),
                conclusion: rename_constraints(&r.conclusion, &rename_expr),
            })
            .collect(),
        comparators: dst.comparators.clone(),
        padding: dst.padding,
        lines: crate::descriptor::SourceLines {
            ufs: dst
                .lines
                .ufs
                .iter()
                .map(|(n, l)| (renames.get(n).cloned().unwrap_or_else(|| n.clone()), *l))
                .collect(),
            ..dst.lines.clone()
        },
    };
    (renamed, renames)
}

fn rename_constraints(
    cs: &[iegen::Constraint],
    f: &dyn Fn(&Expr) -> Expr,
) -> Vec<iegen::Constraint> {
    cs.iter()
        .filter_map(|c| match c.map_expr(f) {
            iegen::constraint::Normalized::Constraint(k) => Some(k),
            _ => None,
        })
        .collect()
}

/// For each output position of `c` (inputs first, then outputs), the
/// expression over the inputs, symbols and index arrays but `unknown` that
/// its equalities give it, its closed constraint graph, or Euclidean
/// division by a bounded remainder; `None` where none does.
pub(crate) fn resolve_outputs(
    c: &Conjunction,
    n_in: usize,
    unknown: &BTreeSet<&str>,
) -> Vec<Option<Expr>> {
    let mut resolved = resolve_positions(c, n_in, unknown);
    resolve_through_closure(c, n_in, unknown, &mut resolved);
    resolve_by_division(c, n_in, unknown, &mut resolved);
    resolved
}

/// For each output position of the composed conjunction (inputs first, then
/// `n_out` outputs), the expression over input variables, symbols and known
/// UFs that an equality gives it.
fn resolve_positions(c: &Conjunction, n_in: usize, unknown: &BTreeSet<&str>) -> Vec<Option<Expr>> {
    let n_out = c.arity() - n_in;
    (0..n_out)
        .map(|q| defined_by_equality(c, n_in + q, n_in, unknown))
        .collect()
}

/// The positions `resolved` leaves open that an equality defines over the
/// inputs, symbols and index arrays (the destination's included, called at
/// arguments over the inputs), with a unit coefficient outside any call.
///
/// A position left open then may be defined over other open positions
/// that no definition gives (JAD's `k = r + jd(d)`: `r` and `d` are ranked
/// otherwise), in tuple order, never over a position defined itself: so
/// of two equalities that define each other's positions (`r = k - jd(d)`)
/// only the first is taken.
fn define_through_arrays(
    c: &Conjunction,
    n_in: usize,
    resolved: &[Option<Expr>],
) -> Vec<Option<Expr>> {
    let none = BTreeSet::new();
    let mut defined: Vec<Option<Expr>> = resolved
        .iter()
        .enumerate()
        .map(|(q, r)| match r {
            Some(_) => None,
            None => defined_by_equality(c, n_in + q, n_in, &none),
        })
        .collect();
    for q in 0..resolved.len() {
        if resolved[q].is_some() || defined[q].is_some() {
            continue;
        }
        let open = |p: usize| p != q && resolved[p].is_none() && defined[p].is_none();
        defined[q] = defined_over_positions(c, n_in + q, n_in, &open);
    }
    defined
}

/// The value an equality of `c` gives tuple variable `t` over the inputs,
/// symbols, UFs and the output positions `open` accepts (at least one).
fn defined_over_positions(
    c: &Conjunction,
    t: usize,
    n_in: usize,
    open: &dyn Fn(usize) -> bool,
) -> Option<Expr> {
    solutions(c, t).find(|value| {
        let mut ok = true;
        let mut positions = 0;
        value.for_each_var(&mut |x| match x {
            Var::Tuple(p) if p < n_in => {}
            Var::Tuple(p) if open(p - n_in) => positions += 1,
            _ => ok = false,
        });
        ok && positions > 0
    })
}

/// The values the equalities of `c` give tuple variable `t` (a unit
/// coefficient, outside any call).
fn solutions(c: &Conjunction, t: usize) -> impl Iterator<Item = Expr> + '_ {
    let v = Var::Tuple(t);
    c.constraints().filter(|k| k.is_eq()).filter_map(move |k| {
        let coef = k.expr().coefficient_of_var(v);
        if coef.abs() != 1 || k.expr().mentions_in_uf_args(v) {
            return None;
        }
        let mut rest = k.expr().clone();
        rest.add_term(Atom::Var(v), -coef);
        Some(rest.scale(-coef))
    })
}

/// The value an equality of `c` gives tuple variable `t` (a unit
/// coefficient, outside any call) over the inputs, symbols and UFs but
/// `unknown`.
fn defined_by_equality(
    c: &Conjunction,
    t: usize,
    n_in: usize,
    unknown: &BTreeSet<&str>,
) -> Option<Expr> {
    solutions(c, t).find(|value| known_over_inputs(value, n_in, unknown))
}

/// Resolves the positions the conjunction's own equalities leave open but
/// the closed constraint graph determines (DIA's `jj' = ii + off(d) = jj`).
fn resolve_through_closure(
    c: &Conjunction,
    n_in: usize,
    unknown: &BTreeSet<&str>,
    resolved: &mut [Option<Expr>],
) {
    if resolved.iter().all(Option::is_some) {
        return;
    }
    let Ok(derived) = crate::constraint_graph::ConstraintGraph::from_conjunction(c).closure()
    else {
        return;
    };
    for (q, slot) in resolved.iter_mut().enumerate() {
        if slot.is_some() {
            continue;
        }
        let v = Expr::var(Var::Tuple(n_in + q));
        *slot = derived.iter().find_map(|d| {
            if d.kind != iegen::ConstraintKind::Eq {
                return None;
            }
            // lhs = rhs + offset
            let value = if d.lhs == v {
                let mut e = d.rhs.clone();
                e.add_constant(d.offset);
                e
            } else if d.rhs == v {
                let mut e = d.lhs.clone();
                e.add_constant(-d.offset);
                e
            } else {
                return None;
            };
            known_over_inputs(&value, n_in, unknown).then_some(value)
        });
    }
}

/// Euclidean division: an equality `s = t - m X` (or `t + m X`) with `t`
/// known, `m >= 2` a constant and the position `s` bounded by `0 <= s < m`
/// resolves `s = t - m floor(t / m)`, and `X = floor(t / m)` when `X` is a
/// position too (BCSR's `ii = 2 bi + r` gives `bi` and `r`; `jj = 2
/// bcol(kb) + c` gives `c`, and then the facts give `bcol(kb)` itself).
/// Repeats until nothing new resolves, since one resolution can make
/// another's `t` known.
fn resolve_by_division(
    c: &Conjunction,
    n_in: usize,
    unknown: &BTreeSet<&str>,
    resolved: &mut [Option<Expr>],
) {
    loop {
        let mut changed = false;
        for k in c.constraints().filter(|k| k.is_eq()) {
            let e = k.expr().substitute(&mut |v| match v {
                Var::Tuple(t) if t >= n_in => resolved[t - n_in].clone(),
                _ => None,
            });
            let found = e.terms().find_map(|(atom, cs)| {
                let Atom::Var(Var::Tuple(s)) = atom else {
                    return None;
                };
                if *s < n_in || cs.abs() != 1 {
                    return None;
                }
                let m = remainder_bound(c, *s)?;
                // cs s + rest = 0: s = -cs rest = a X + t.
                let mut rest = e.clone();
                rest.add_term(atom.clone(), -cs);
                let value = rest.scale(-cs);
                let open: Vec<(&Atom, i64)> = value
                    .terms()
                    .filter(|(a, _)| !known_over_inputs(&Expr::atom((*a).clone()), n_in, unknown))
                    .collect();
                let [(x, a)] = open.as_slice() else {
                    return None;
                };
                if a.abs() != m {
                    return None;
                }
                let mut t = value.clone();
                t.add_term((*x).clone(), -a);
                let q = Expr::floor_div(&t, m);
                let quotient = match x {
                    Atom::Var(Var::Tuple(p)) if *p >= n_in => {
                        Some((p - n_in, if *a < 0 { q.clone() } else { q.negate() }))
                    }
                    _ => None,
                };
                Some((s - n_in, t.minus(&q.scale(m)), quotient))
            });
            if let Some((s, remainder, quotient)) = found {
                resolved[s] = Some(remainder);
                if let Some((p, value)) = quotient {
                    resolved[p] = Some(value);
                }
                changed = true;
            }
        }
        if !changed {
            return;
        }
    }
}

/// `m` when `c` bounds the variable `t_s` by `0 <= t_s <= m - 1`, `m >= 2`.
pub(crate) fn remainder_bound(c: &Conjunction, s: usize) -> Option<i64> {
    constant_bound(c, s).filter(|&m| m >= 2)
}

/// `m` when `c` bounds the variable `t_s` by `0 <= t_s <= m - 1` with `m` a
/// constant (a remainder's range, a slot's capacity).
pub(crate) fn constant_bound(c: &Conjunction, s: usize) -> Option<i64> {
    let v = Var::Tuple(s);
    let single = |k: &iegen::Constraint, coef: i64| {
        !k.is_eq() && k.expr().num_terms() == 1 && k.expr().coefficient_of_var(v) == coef
    };
    let lower = c
        .constraints()
        .any(|k| single(k, 1) && k.expr().constant_term() == 0);
    let upper = c
        .constraints()
        .find(|k| single(k, -1))
        .map(|k| k.expr().constant_term() + 1)?;
    lower.then_some(upper)
}

/// Whether `e` mentions only input variables, symbols that are not unknown,
/// and calls of known UFs.
pub fn known_over_inputs(e: &Expr, n_in: usize, unknown: &BTreeSet<&str>) -> bool {
    let mut ok = true;
    e.for_each_var(&mut |v| {
        ok &= matches!(v, Var::Tuple(p) if p < n_in);
    });
    e.for_each_sym(&mut |s| ok &= !unknown.contains(s));
    e.for_each_call(&mut |name, _| ok &= !unknown.contains(name));
    ok
}
