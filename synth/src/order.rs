//! The order a destination format imposes on one position of its sparse
//! tuple (dissertation 4.1.3, reordering quantifiers): the sort key of the
//! permutation that gives the position.
//!
//! A position such as CSR's `k` is numbered in the order of a key read off
//! the destination descriptor:
//!
//! - a *pointer range* `rowptr(ii) <= k < rowptr(ii + 1)` with `rowptr`
//!   nondecreasing groups the positions by `ii`, in increasing order: `ii` is
//!   the key's first component and `k` a global rank;
//! - a position bounded by constants (ELL's `0 <= w < W`) whose every index
//!   array and value access also takes another tuple variable (`col(ii, w)`,
//!   `A(ii, w)`) is a rank *within* that variable's group: `w = p - start(ii)`;
//! - an ordering rule `forall a, b : a < b && C => g(a) <= g(b)` (or `<`)
//!   appends the component `g`, read back through the map's equalities
//!   (`jj = col(k)` turns `col(k1) < col(k2)` into the component `jj`); the
//!   premise's equalities `h(a) = h(b)` and pointer ranges are conditions
//!   that place `g` after the components they name. A comparator call
//!   (`MORTON(row(n), col(n))`) is a comparator component.
//!
//! Without any of these the destination does not care about the order: the
//! position is a rank in the source's order.
//!
//! Jagged segments ([`jagged_segments`], JAD's diagonals) make a segment
//! a rank within the entries sharing its offset, and the offset a ranking
//! of those groups by their number of entries (given by an ordered set of
//! the values ranked by counts, not by a sort key).

use std::collections::BTreeSet;

use iegen::{Atom, ConstraintKind, Expr, Monotonicity, Var};

use crate::descriptor::{Descriptor, KeyExpr};

/// One compared component of a sort key, over the destination's sparse
/// tuple (`Var::Tuple(q)` is the destination's `q`-th tuple variable).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyComponent {
    /// An integer expression, compared as a number.
    Value(Expr),
    /// A comparator of the descriptor applied to expressions.
    Comparator {
        /// The comparator's name.
        name: String,
        /// Its arguments.
        args: Vec<Expr>,
    },
}

/// How a destination position is numbered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionOrder {
    /// The destination tuple position.
    pub position: usize,
    /// The tuple positions the rank is relative to, in tuple order (ELL's
    /// `ii` for `w`; a 2:4 format's row and block of four columns for its
    /// slot); empty for a global rank (CSR's `k`, COO's `n`).
    pub group: Vec<usize>,
    /// The compared components, most significant first (the group, when
    /// there is one, first). Empty: any order will do.
    pub key: Vec<KeyComponent>,
}

/// Why no order could be derived.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("position `{position}` of {format}: {message}")]
pub struct OrderError {
    /// The destination format.
    pub format: String,
    /// The tuple variable's name.
    pub position: String,
    /// What is wrong.
    pub message: String,
    /// The index of the rule it is about, in `Descriptor::rules`.
    pub rule: Option<usize>,
}

/// Derives the numbering of position `q` of `dst`'s sparse tuple.
pub fn position_order(dst: &Descriptor, q: usize) -> Result<PositionOrder, OrderError> {
    let conj = &dst.map.conjunctions()[0];
    let n_out = dst.sparse_arity();
    let err = |message: String, rule: Option<usize>| OrderError {
        format: dst.name.clone(),
        position: conj.tuple_names()[q].clone(),
        message,
        rule,
    };
    let images = uf_images(dst, n_out);
    let definitions = tuple_definitions(dst, n_out);
    let jagged = jagged_segments(dst);
    if let Some(j) = jagged.as_ref().filter(|j| j.offset == q) {
        return Err(j.ranking_error(dst));
    }
    let mut key: Vec<KeyComponent> = Vec::new();
    let mut group = Vec::new();
    let pointer = pointer_group(dst, q);
    if let Some(g) = pointer {
        key.push(KeyComponent::Value(Expr::var(Var::Tuple(g))));
    } else {
        // A jagged segment is a rank within the group of its offset
        // (each offset's entries fill the first segments); any other
        // position within the variables its accesses share.
        group = match jagged.as_ref().filter(|j| j.segment == q) {
            Some(j) => vec![j.offset],
            None => rank_group(dst, q, n_out),
        };
        key.extend(
            group
                .iter()
                .map(|&g| KeyComponent::Value(Expr::var(Var::Tuple(g)))),
        );
    }
    // Rule components with their conditions.
    let mut pending: Vec<(KeyComponent, Vec<Expr>, bool)> = Vec::new();
    for (index, rule) in dst.rules.iter().enumerate() {
        let Some((a, b)) = ordered_pair(&rule.premise) else {
            continue;
        };
        let [concl] = rule.conclusion.as_slice() else {
            continue;
        };
        if concl.kind() != ConstraintKind::Geq {
            continue;
        }
        let pairs = entry_pairs(&rule.premise, a, b, dst, q);
        let sides = Sides {
            a,
            b,
            pairs: &pairs,
        };
        let Some(g) = compared_expression(concl.expr(), &sides) else {
            continue;
        };
        let reading = Reading {
            q,
            images: &images,
            definitions: &definitions,
            dst,
        };
        let Some(component) = translate(&g, &sides, &reading) else {
            continue;
        };
        let mut conditions = Vec::new();
        let mut in_pointer_group = false;
        for c in &rule.premise {
            let e = c.expr();
            // The pointer ranges that tie an entry to `a` or `b` are read
            // as the pairing, not as a condition.
            if pairs
                .iter()
                .any(|(xa, xb, _)| e.mentions(Var::Tuple(*xa)) || e.mentions(Var::Tuple(*xb)))
                && !c.is_eq()
            {
                continue;
            }
            if c.is_eq() && e.mentions(Var::Tuple(a)) && e.mentions(Var::Tuple(b)) {
                let Some(h) = compared_expression(&e.negate(), &sides) else {
                    return Err(err(
                        format!("cannot read the condition `{e}` of an ordering rule"),
                        Some(index),
                    ));
                };
                match translate(&h, &sides, &reading) {
                    // A condition is an equality: its sign does not matter.
                    Some(KeyComponent::Value(v)) if v.negate().as_var().is_some() => {
                        conditions.push(v.negate())
                    }
                    Some(KeyComponent::Value(v)) => conditions.push(v),
                    _ => {
                        return Err(err(
                            format!("cannot read the condition `{e}` of an ordering rule"),
                            Some(index),
                        ))
                    }
                }
            } else if e.terms().any(|(atom, _)| is_pointer_call(dst, atom)) {
                in_pointer_group = true;
            }
        }
        pending.push((component, conditions, in_pointer_group));
    }
    // Unconditional components first, then those whose conditions are placed.
    while !pending.is_empty() {
        let placed: Vec<Expr> = key
            .iter()
            .filter_map(|k| match k {
                KeyComponent::Value(v) => Some(v.clone()),
                KeyComponent::Comparator { .. } => None,
            })
            .collect();
        let ready = pending.iter().position(|(_, conds, in_ptr)| {
            (!in_ptr || pointer.is_some()) && conds.iter().all(|c| placed.contains(c))
        });
        let Some(i) = ready else {
            return Err(err(
                "its ordering rules' conditions name no component of the order".into(),
                None,
            ));
        };
        let (component, _, _) = pending.remove(i);
        if !key.contains(&component) {
            key.push(component);
        }
    }
    // A comparator with a lexicographic key is its key's components.
    let key = key
        .into_iter()
        .flat_map(|k| lexicographic_components(&k, dst).unwrap_or_else(|| vec![k]))
        .collect();
    // Without a pointer, a group or a rule, the position is unordered.
    Ok(PositionOrder {
        position: q,
        group,
        key,
    })
}

/// A comparator component whose key is a tuple of affine, floor-division
/// and modulo terms of its parameters (`TILE(i, j) = (i / 8, j / 8, i,
/// j)`), as that many value components over its arguments, compared in
/// order: what a counting sort sorts on. `None` for anything else (a value
/// component; a Morton `interleave`, or a product of two parameters, which
/// stay comparators).
fn lexicographic_components(k: &KeyComponent, dst: &Descriptor) -> Option<Vec<KeyComponent>> {
    let KeyComponent::Comparator { name, args } = k else {
        return None;
    };
    let cmp = dst.comparator(name)?;
    let mut comps: Vec<Expr> = cmp
        .key
        .iter()
        .map(|e| key_expr(e, args))
        .collect::<Option<_>>()?;
    // After `floor(x / m)`, `x` orders as `x mod m`: among keys equal on
    // the quotient, `x = m floor(x / m) + x mod m` rises with the
    // remainder. The remainder's extent is `m`, where `x`'s is the whole
    // range (TILE's `(i / 8, j / 8, i, j)` counts `(.., .., i % 8, j % 8)`).
    for i in 0..comps.len() {
        let x = comps[i].clone();
        let m = comps[..i]
            .iter()
            .find_map(|c| match c.terms().collect::<Vec<_>>()[..] {
                [(Atom::Div(y, m), 1)] if c.constant_term() == 0 && **y == x => Some(*m),
                _ => None,
            });
        if let Some(m) = m {
            comps[i] = x.minus(&Expr::floor_div(&x, m).scale(m));
        }
    }
    Some(comps.into_iter().map(KeyComponent::Value).collect())
}

/// A key expression over `args` as an [`Expr`]: floor division and modulo
/// by positive constants only.
fn key_expr(e: &KeyExpr, args: &[Expr]) -> Option<Expr> {
    let constant = |e: &KeyExpr| key_expr(e, args).filter(Expr::is_constant);
    Some(match e {
        KeyExpr::Int(c) => Expr::constant(*c),
        KeyExpr::Param(i) => args.get(*i)?.clone(),
        KeyExpr::Neg(a) => key_expr(a, args)?.negate(),
        KeyExpr::Add(a, b) => key_expr(a, args)?.plus(&key_expr(b, args)?),
        KeyExpr::Sub(a, b) => key_expr(a, args)?.minus(&key_expr(b, args)?),
        KeyExpr::Mul(a, b) => match (constant(a), constant(b)) {
            (Some(c), _) => key_expr(b, args)?.scale(c.constant_term()),
            (_, Some(c)) => key_expr(a, args)?.scale(c.constant_term()),
            _ => return None,
        },
        KeyExpr::Div(a, b) => {
            let m = constant(b)?.constant_term();
            if m < 1 {
                return None;
            }
            Expr::floor_div(&key_expr(a, args)?, m)
        }
        KeyExpr::Rem(a, b) => {
            let m = constant(b)?.constant_term();
            if m < 1 {
                return None;
            }
            let x = key_expr(a, args)?;
            x.minus(&Expr::floor_div(&x, m).scale(m))
        }
        KeyExpr::Interleave(_) => return None,
    })
}

/// Jagged segments (Saad's jagged diagonals): a destination position `k`
/// in the segments of a nondecreasing pointer array, `f(s) <= k < f(s +
/// 1)`, its offset `o = k - f(s)` within the segment a position of its
/// own, and a rule that the segments never grow (`f(s + 2) - f(s + 1) <=
/// f(s + 1) - f(s)`). Every segment then holds the offsets `0 .. len(s)`
/// and the lengths do not grow, so an offset is present in a prefix of the
/// segments: the segment is a rank within the entries sharing the offset
/// (JAD's `d`, an entry's index within its row), and the offsets number
/// the groups of entries sharing one by their number of entries, most
/// first (JAD's rows by decreasing length).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JaggedSegments {
    /// The segment position (JAD's `d`).
    pub segment: usize,
    /// The entry's position over all segments (JAD's `k`).
    pub entry: usize,
    /// The offset within the segment (JAD's `r`).
    pub offset: usize,
    /// The pointer array (JAD's `jd`).
    pub pointer: String,
    /// The index of the rule that the segments never grow.
    pub rule: usize,
}

impl JaggedSegments {
    /// Why no sort key numbers the offset: its rank is by a count of
    /// entries, which the ordered set of the array it indexes gives
    /// (`lower/ordered_sets.rs`, `CountRanking`), not a sort of entries.
    pub fn ranking_error(&self, dst: &Descriptor) -> OrderError {
        let names = dst.map.conjunctions()[0].tuple_names();
        OrderError {
            format: dst.name.clone(),
            position: names[self.offset].clone(),
            message: format!(
                "it numbers the groups of entries sharing it by their number of entries, most \
                 first (it is the offset of `{}` within the segments of `{}`, which never \
                 grow): a ranking by counts, which the ordered set of the array it indexes \
                 gives, not a sort of the entries",
                names[self.entry], self.pointer
            ),
            rule: Some(self.rule),
        }
    }
}

/// The jagged segments of `dst`'s map, when it has them ([`JaggedSegments`]).
pub fn jagged_segments(dst: &Descriptor) -> Option<JaggedSegments> {
    let n_out = dst.sparse_arity();
    // o - k + f(s) = 0, up to sign.
    for ([(x, cx), (y, cy)], (f, args, cf)) in two_variables_and_a_call(dst, n_out) {
        let Some(Var::Tuple(s)) = args.first().and_then(Expr::as_var) else {
            continue;
        };
        let call = Atom::Uf(f.clone(), args.clone());
        if args.len() != 1 || s >= n_out || !is_pointer_call(dst, &call) {
            continue;
        }
        if cx.abs() != 1 || cx + cy != 0 {
            continue;
        }
        let (x, y) = (&x, &y);
        // The offset has the call's sign.
        let (offset, entry) = if cx == cf { (*x, *y) } else { (*y, *x) };
        if pointer_group(dst, entry) != Some(s) {
            continue;
        }
        if let Some(rule) = dst.rules.iter().position(|r| never_grows(r, &f)) {
            return Some(JaggedSegments {
                segment: s,
                entry,
                offset,
                pointer: f,
                rule,
            });
        }
    }
    None
}

/// Whether `rule` concludes `f(x + 2) - f(x + 1) <= f(x + 1) - f(x)`: the
/// segments of `f` never grow.
fn never_grows(rule: &iegen::UfRule, f: &str) -> bool {
    let [concl] = rule.conclusion.as_slice() else {
        return false;
    };
    let e = concl.expr();
    if concl.is_eq() || e.constant_term() != 0 || e.num_terms() != 3 {
        return false;
    }
    let mut calls: Vec<(Expr, i64)> = Vec::new();
    for (atom, coef) in e.terms() {
        match atom {
            Atom::Uf(g, args) if g == f && args.len() == 1 => calls.push((args[0].clone(), coef)),
            _ => return false,
        }
    }
    calls.sort_by_key(|(arg, _)| arg.constant_term());
    let base = calls[0].0.clone();
    calls.iter().enumerate().all(|(i, (arg, coef))| {
        arg.minus(&base) == Expr::constant(i as i64) && *coef == [-1, 2, -1][i]
    })
}

/// For each tuple variable the map defines by an equality with a unit
/// coefficient outside any call, that definition (JAD's `r = k - jd(d)`).
fn tuple_definitions(dst: &Descriptor, n_out: usize) -> Vec<(usize, Expr)> {
    let conj = &dst.map.conjunctions()[0];
    let mut out = Vec::new();
    for c in conj.constraints().filter(|c| c.is_eq()) {
        let e = c.expr();
        for t in 0..n_out {
            let v = Var::Tuple(t);
            let coef = e.coefficient_of_var(v);
            if coef.abs() != 1 || e.mentions_in_uf_args(v) {
                continue;
            }
            let mut rest = e.clone();
            rest.add_term(Atom::Var(v), -coef);
            // A definition by other tuple variables and arrays, not a copy
            // of one variable (`ii = i`).
            if rest.num_terms() >= 2 {
                out.push((t, rest.scale(-coef)));
            }
        }
    }
    out
}

/// The map's equalities `cx t_x + cy t_y + cf f(args) = 0` over two sparse
/// tuple variables and a call of an index array: `([(x, cx), (y, cy)], (f,
/// args, cf))`.
type TwoVariablesAndACall = ([(usize, i64); 2], (String, Vec<Expr>, i64));

fn two_variables_and_a_call(dst: &Descriptor, n_out: usize) -> Vec<TwoVariablesAndACall> {
    let conj = &dst.map.conjunctions()[0];
    let mut out = Vec::new();
    for c in conj.constraints().filter(|c| c.is_eq()) {
        let e = c.expr();
        if e.num_terms() != 3 || e.constant_term() != 0 {
            continue;
        }
        let vars: Vec<(usize, i64)> = e
            .terms()
            .filter_map(|(a, k)| match a {
                Atom::Var(Var::Tuple(r)) if *r < n_out => Some((*r, k)),
                _ => None,
            })
            .collect();
        let call = e.terms().find_map(|(a, k)| match a {
            Atom::Uf(h, args) if dst.uf(h).is_some() => Some((h.clone(), args.clone(), k)),
            _ => None,
        });
        if let (Some(call), [x, y]) = (call, vars.as_slice()) {
            out.push(([*x, *y], call));
        }
    }
    out
}

/// `(h, args)` → its value over the tuple: `t_r + c` for each map equality
/// `h(args) = t_r + c` (`c` a constant: 1-based indices), and `floor(t_r / m)` for `t_r = m h(args) + t_s` with
/// `0 <= t_s < m` (BCSR's `jj = 2 bcol(kb) + c`: `bcol(kb) = floor(jj / 2)`).
fn uf_images(dst: &Descriptor, n_out: usize) -> Vec<(String, Vec<Expr>, Expr)> {
    let mut out: Vec<(String, Vec<Expr>, Expr)> = uf_equalities(dst, n_out)
        .into_iter()
        .map(|(h, args, r, c)| (h, args, Expr::var(Var::Tuple(r)).plus(&Expr::constant(c))))
        .collect();
    let conj = &dst.map.conjunctions()[0];
    for ([(x, kx), (y, ky)], (h, args, k)) in two_variables_and_a_call(dst, n_out) {
        let (x, kx, y, ky) = (&x, &kx, &y, &ky);
        // t_r - m h - t_s = 0 (up to sign), t_s the bounded remainder.
        for ((r, kr), (s, ks)) in [((*x, *kx), (*y, *ky)), ((*y, *ky), (*x, *kx))] {
            let m = -k * kr;
            if kr.abs() == 1
                && ks == -kr
                && m >= 2
                && crate::conversion::remainder_bound(conj, s) == Some(m)
            {
                out.push((
                    h.clone(),
                    args.clone(),
                    Expr::floor_div(&Expr::var(Var::Tuple(r)), m),
                ));
            }
        }
    }
    out
}

/// `(h, args, r, c)` for each map equality `h(args) = t_r + c`.
fn uf_equalities(dst: &Descriptor, n_out: usize) -> Vec<(String, Vec<Expr>, usize, i64)> {
    let conj = &dst.map.conjunctions()[0];
    let mut out = Vec::new();
    for c in conj.constraints().filter(|c| c.is_eq()) {
        let e = c.expr();
        if e.num_terms() != 2 {
            continue;
        }
        let mut var = None;
        let mut call = None;
        for (atom, coef) in e.terms() {
            match atom {
                Atom::Var(Var::Tuple(r)) => var = Some((*r, coef)),
                Atom::Uf(h, args) if dst.uf(h).is_some() => {
                    call = Some((h.clone(), args.clone(), coef))
                }
                _ => {}
            }
        }
        // cu h + cv t_r + k = 0 with cv = -cu = ±1: h = t_r - cu k.
        if let (Some((r, cv)), Some((h, args, cu))) = (var, call) {
            if cv == -cu && cu.abs() == 1 {
                out.push((h, args, r, -cu * e.constant_term()));
            }
        }
    }
    // `j = col(k)` with `j` a dense coordinate: the sparse variable equal to `j`.
    for (_, _, r, _) in out.iter_mut().filter(|(_, _, r, _)| *r >= n_out) {
        if let Some(s) = sparse_equal(conj, *r, n_out) {
            *r = s;
        }
    }
    out.retain(|(_, _, r, _)| *r < n_out);
    out
}

/// The sparse tuple variable an equality `t_s = t_r` equates with `t_r`.
fn sparse_equal(conj: &iegen::Conjunction, r: usize, n_out: usize) -> Option<usize> {
    conj.constraints().filter(|c| c.is_eq()).find_map(|c| {
        let e = c.expr();
        if e.num_terms() != 2
            || e.constant_term() != 0
            || e.coefficient_of_var(Var::Tuple(r)).abs() != 1
        {
            return None;
        }
        e.terms().find_map(|(atom, coef)| match atom {
            Atom::Var(Var::Tuple(s))
                if *s < n_out && coef == -e.coefficient_of_var(Var::Tuple(r)) =>
            {
                Some(*s)
            }
            _ => None,
        })
    })
}

/// Whether `atom` calls a monotone (pointer) array of `dst`.
fn is_pointer_call(dst: &Descriptor, atom: &Atom) -> bool {
    match atom {
        Atom::Uf(f, _) => dst.uf(f).is_some_and(|u| {
            u.monotonicity
                .iter()
                .any(|m| matches!(m, Monotonicity::Nondecreasing | Monotonicity::Increasing))
        }),
        _ => false,
    }
}

/// The tuple variable `g` of a pointer range `f(t_g) <= t_q < f(t_g + 1)`,
/// or `f(t_g) <= t_q + c` with a constant `c` (pointers that count from 1:
/// `rowptr(ii) <= k + 1`).
fn pointer_group(dst: &Descriptor, q: usize) -> Option<usize> {
    let conj = &dst.map.conjunctions()[0];
    for c in conj.constraints().filter(|c| !c.is_eq()) {
        let e = c.expr();
        if e.num_terms() != 2 || e.coefficient_of_var(Var::Tuple(q)) != 1 {
            continue;
        }
        for (atom, coef) in e.terms() {
            if coef != -1 || !is_pointer_call(dst, atom) {
                continue;
            }
            let Atom::Uf(_, args) = atom else { continue };
            if let [arg] = args.as_slice() {
                if let Some(Var::Tuple(g)) = arg.as_var() {
                    if g != q {
                        return Some(g);
                    }
                }
            }
        }
    }
    None
}

/// The other tuple variables every index-array call and the value access
/// taking `t_q` also take, in tuple order (ELL's `ii` in `col(ii, w)` and
/// `A(ii, w)`; `ii` and `b` in a 2:4 format's `crd(ii, b, s)`); empty when
/// none does.
fn rank_group(dst: &Descriptor, q: usize, n_out: usize) -> Vec<usize> {
    let conj = &dst.map.conjunctions()[0];
    let mut accesses: Vec<BTreeSet<usize>> = Vec::new();
    let mut visit = |args: &[Expr]| {
        if args.iter().any(|a| a.mentions(Var::Tuple(q))) {
            let mut vars = BTreeSet::new();
            for a in args {
                a.for_each_var(&mut |v| {
                    if let Var::Tuple(r) = v {
                        if r != q && r < n_out {
                            vars.insert(r);
                        }
                    }
                });
            }
            accesses.push(vars);
        }
    };
    for c in conj.constraints() {
        c.expr().for_each_call(&mut |_, args| visit(args));
    }
    let data_out = dst.data_index().unwrap_or_default();
    visit(&data_out);
    let Some(first) = accesses.first() else {
        return Vec::new();
    };
    let mut common = first.clone();
    for a in &accesses[1..] {
        common = common.intersection(a).copied().collect();
    }
    common.into_iter().collect()
}

/// The quantified variables `(a, b)` of a premise `a < b`.
fn ordered_pair(premise: &[iegen::Constraint]) -> Option<(usize, usize)> {
    premise.iter().find_map(|c| {
        let e = c.expr();
        if c.is_eq() || e.num_terms() != 2 || e.constant_term() != -1 {
            return None;
        }
        let mut a = None;
        let mut b = None;
        for (atom, coef) in e.terms() {
            match (atom, coef) {
                (Atom::Var(Var::Tuple(x)), -1) => a = Some(*x),
                (Atom::Var(Var::Tuple(x)), 1) => b = Some(*x),
                _ => return None,
            }
        }
        Some((a?, b?))
    })
}

/// The two sides a rule compares: its ordered pair `a < b` and the entries
/// tied to each (`(x_a, x_b, t)`: JAD's `k1` and `k2` in `jd(d1) <= k1 <
/// jd(d1 + 1)`, `t` the destination position they stand for).
struct Sides<'a> {
    a: usize,
    b: usize,
    pairs: &'a [(usize, usize, usize)],
}

impl Sides<'_> {
    /// Whether `atom` mentions a variable of `a`'s side (`b`'s with `b_side`).
    fn mentions(&self, atom: &Atom, b_side: bool) -> bool {
        let pick = |a: usize, b: usize| if b_side { b } else { a };
        atom.mentions(Var::Tuple(pick(self.a, self.b)))
            || self
                .pairs
                .iter()
                .any(|&(xa, xb, _)| atom.mentions(Var::Tuple(pick(xa, xb))))
    }

    fn mentions_a(&self, atom: &Atom) -> bool {
        self.mentions(atom, false)
    }

    fn mentions_b(&self, atom: &Atom) -> bool {
        self.mentions(atom, true)
    }

    /// `e` over `b`'s side read at `a`'s.
    fn b_at_a(&self, e: &Expr) -> Expr {
        e.substitute(&mut |v| match v {
            Var::Tuple(t) if t == self.b => Some(Expr::var(Var::Tuple(self.a))),
            Var::Tuple(t) => self
                .pairs
                .iter()
                .find(|(_, xb, _)| *xb == t)
                .map(|(xa, _, _)| Expr::var(Var::Tuple(*xa))),
            Var::Exist(_) => None,
        })
    }
}

/// `g(a)` when `e = g(b) - g(a) - c` for a constant `c >= 0`.
fn compared_expression(e: &Expr, sides: &Sides) -> Option<Expr> {
    if e.constant_term() > 0 {
        return None;
    }
    let mut gb = Expr::constant(0);
    let mut ga = Expr::constant(0);
    for (atom, coef) in e.terms() {
        match (sides.mentions_a(atom), sides.mentions_b(atom)) {
            (false, true) => gb.add_term(atom.clone(), coef),
            (true, false) => ga.add_term(atom.clone(), -coef),
            _ => return None,
        }
    }
    (sides.b_at_a(&gb) == ga && gb.num_terms() > 0).then_some(ga)
}

/// The rule variables tied to `a` and to `b` by the same index array of
/// a premise (`f(a) <= x_a`, `x_a < f(b + 1)`: [`crate::rule_plan`]'s
/// pairs), with the destination position `t` whose own pointer range in
/// the map is `f(q) <= t < f(q + 1)`: a rule comparing two segments (JAD's
/// `d1 < d2`) compares the entries `k1`, `k2` they hold.
fn entry_pairs(
    premise: &[iegen::Constraint],
    a: usize,
    b: usize,
    dst: &Descriptor,
    q: usize,
) -> Vec<(usize, usize, usize)> {
    let Some(t) = (0..dst.sparse_arity()).find(|&t| t != q && pointer_group(dst, t) == Some(q))
    else {
        return Vec::new();
    };
    crate::rule_plan::tied_pairs(premise, a, b)
        .into_iter()
        .map(|(xa, xb)| (xa, xb, t))
        .collect()
}

/// What a rule's expressions are read against: the position `q` whose
/// order is read, the map's images of index-array calls and its
/// definitions of tuple variables.
struct Reading<'a> {
    q: usize,
    images: &'a [(String, Vec<Expr>, Expr)],
    definitions: &'a [(usize, Expr)],
    dst: &'a Descriptor,
}

/// `g(a)` over the rule's variables → a key component over the
/// destination's tuple, reading index-array calls at `a` back as the tuple
/// variables the map equates them with, and an expression the map defines
/// a tuple variable by as that variable (JAD's `k - jd(d)` as `r`).
fn translate(g: &Expr, sides: &Sides, reading: &Reading) -> Option<KeyComponent> {
    let Reading {
        q,
        images,
        definitions,
        dst,
    } = *reading;
    let to_dest = |e: &Expr| {
        e.substitute(&mut |v| match v {
            Var::Tuple(t) if t == sides.a => Some(Expr::var(Var::Tuple(q))),
            Var::Tuple(t) => sides
                .pairs
                .iter()
                .find(|(xa, _, _)| *xa == t)
                .map(|(_, _, dest)| Expr::var(Var::Tuple(*dest))),
            Var::Exist(_) => None,
        })
    };
    let whole = to_dest(g);
    for (t, def) in definitions {
        if whole == *def {
            return Some(KeyComponent::Value(Expr::var(Var::Tuple(*t))));
        }
        if whole == def.negate() {
            return Some(KeyComponent::Value(Expr::var(Var::Tuple(*t)).negate()));
        }
    }
    let value = |e: &Expr| -> Option<Expr> {
        let mut out = Expr::constant(e.constant_term());
        for (atom, coef) in e.terms() {
            match atom {
                Atom::Uf(h, args) => {
                    let args: Vec<Expr> = args.iter().map(to_dest).collect();
                    let (_, _, image) = images.iter().find(|(f, xs, _)| f == h && *xs == args)?;
                    out = out.add_scaled(image, coef);
                }
                // A bare variable (the position itself) is no coordinate.
                Atom::Var(_) => return None,
                Atom::Sym(s) => out.add_term(Atom::Sym(s.clone()), coef),
                // A quotient of coordinates is not one coordinate.
                Atom::Div(..) => return None,
            }
        }
        Some(out)
    };
    if let [(Atom::Uf(name, args), 1)] = g.terms().collect::<Vec<_>>().as_slice() {
        if dst.comparator(name).is_some() && g.constant_term() == 0 {
            let args = args.iter().map(value).collect::<Option<Vec<_>>>()?;
            return Some(KeyComponent::Comparator {
                name: name.clone(),
                args,
            });
        }
    }
    value(g).map(KeyComponent::Value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::load_format;

    fn order(format: &str, q: usize) -> PositionOrder {
        position_order(&load_format(format).unwrap(), q).unwrap()
    }

    fn var(q: usize) -> KeyComponent {
        KeyComponent::Value(Expr::var(Var::Tuple(q)))
    }

    #[test]
    fn csr_positions_are_ranks_by_row_then_column() {
        let o = order("csr", 1);
        assert_eq!((o.group, o.key), (vec![], vec![var(0), var(2)]));
        let o = order("csc", 1);
        assert_eq!((o.group, o.key), (vec![], vec![var(0), var(2)]));
    }

    #[test]
    fn coo_is_unordered_scoo_lexicographic_mcoo_morton() {
        assert!(order("coo", 0).key.is_empty());
        assert_eq!(order("scoo", 0).key, vec![var(1), var(2)]);
        assert_eq!(
            order("mcoo", 0).key,
            vec![KeyComponent::Comparator {
                name: "MORTON".into(),
                args: vec![Expr::var(Var::Tuple(1)), Expr::var(Var::Tuple(2))]
            }]
        );
    }

    #[test]
    fn ell_slots_are_ranks_within_their_row() {
        let o = order("ell", 1);
        assert_eq!((o.group, o.key), (vec![0], vec![var(0)]));
    }

    fn fixture(name: &str) -> Descriptor {
        let path = format!(
            "{}/../tests/data/descriptors/{name}.desc",
            env!("CARGO_MANIFEST_DIR")
        );
        load_format(&path).unwrap()
    }

    #[test]
    fn jagged_segments_rank_within_the_offset_and_the_offset_by_counts() {
        // JAD's `[d, k, r, ii, jj]` and JADC's `[d, k, r, jj, ii]` (rows and
        // columns exchanged): `d` is a rank within the entries sharing `r`,
        // ordered by the coordinate the rule compares (`col(k)` is `jj`,
        // `row(k)` is `ii`: tuple position 4 in both); `k` is a global rank
        // by segment; `r` is ranked by a count, which is refused.
        for (name, dst) in [
            ("jad", load_format("jad").unwrap()),
            ("jadc", fixture("jadc")),
        ] {
            let j = jagged_segments(&dst).expect("jagged segments");
            assert_eq!(
                (j.segment, j.entry, j.offset, j.pointer.as_str(), j.rule),
                (0, 1, 2, "jd", 1),
                "{name}"
            );
            let d = position_order(&dst, 0).unwrap();
            assert_eq!((d.group, d.key), (vec![2], vec![var(2), var(4)]), "{name}");
            assert_eq!(position_order(&dst, 1).unwrap().key, vec![var(0)], "{name}");
            let r = position_order(&dst, 2).unwrap_err();
            assert_eq!((r.position.as_str(), r.rule), ("r", Some(1)), "{name}");
            assert!(
                r.message.contains("by their number of entries"),
                "{}",
                r.message
            );
        }
        // No other built-in has jagged segments.
        for name in crate::builtin::builtin_names_of_order(2) {
            let jagged = jagged_segments(&load_format(name).unwrap()).is_some();
            assert_eq!(jagged, name == "jad", "{name}");
        }
    }

    #[test]
    fn bcsr_blocks_are_ranks_by_block_row_then_block_column() {
        // `kb` (position 1) within `browptr(bi) .. browptr(bi + 1)`, and
        // `bcol(kb)` read back as `floor(jj / 2)` from `jj = 2 bcol(kb) + c`.
        let o = order("bcsr", 1);
        let block_col = KeyComponent::Value(Expr::floor_div(&Expr::var(Var::Tuple(5)), 2));
        assert_eq!((o.group, o.key), (vec![], vec![var(0), block_col]));
    }
}
