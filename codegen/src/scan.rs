//! Polyhedra scanning: all statements of a computation, under their
//! schedules, into one loop AST.
//!
//! Schedules have the dissertation's form (each time dimension a constant or
//! an iterator, as `{[i,j] -> [0,i,0,j,0]}`). Scanning walks the time
//! dimensions: a constant dimension orders groups of statements, an iterator
//! dimension opens one loop shared by every statement of the group (so
//! shared schedule prefixes share loops). A loop's bounds come from the
//! statements' domains: constraints with a unit coefficient on the iterator
//! whose other variables are already bound, UFs included
//! (`for k in rowptr(i)..rowptr(i+1)`); an iterator fixed by an equality
//! becomes a `let` (`j = col(k)`). Constraints that no loop enforces become
//! guards, as far out as they can go; guards implied by what the enclosing
//! loops enforce are dropped (syntactically when possible, with z3 under the
//! UF environment otherwise).
//!
//! Every statement instance is executed exactly once, in schedule order:
//! the property test in `tests/scan_trace.rs` checks this against brute-force
//! enumeration of the domains.
//!
//! A loop shared by statements whose bounds differ runs over the hull of
//! their ranges; each statement keeps as guards the bounds the hull does not
//! already enforce for it. Such a
//! loop's bounds are evaluated for every statement in the group, so an index
//! array read in one statement's bound must be defined at the arguments the
//! enclosing loops produce, even where that statement's own guards would
//! exclude them.

use std::collections::{BTreeMap, HashMap, HashSet};

use iegen::computation::{schedule_dims, Computation, ScheduleDim};
use iegen::{Atom, Conjunction, Constraint, ConstraintKind, Expr, Prover, UfEnvironment, Var};

use crate::ast::{Guard, GuardOp, IndexExpr, LoopProgram, Node};

/// Why a computation cannot be scanned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScanError {
    /// The schedule is not of the supported form.
    #[error("statement {stmt}: {source}")]
    Schedule {
        /// The statement.
        stmt: String,
        /// What is wrong with its schedule.
        #[source]
        source: iegen::computation::ScheduleError,
    },
    /// A domain that is a union or has existential variables.
    #[error("statement {stmt}: the domain must be one conjunction without existential variables (it is {domain})")]
    Domain {
        /// The statement.
        stmt: String,
        /// The domain as written.
        domain: String,
    },
    /// Statements sharing a schedule prefix disagree on the kind of a dimension.
    #[error("time dimension {dim} is a constant for {constant} but an iterator for {iterator}: statements with a common prefix must agree")]
    MixedDimension {
        /// The dimension.
        dim: usize,
        /// A statement with a constant there.
        constant: String,
        /// A statement with an iterator there.
        iterator: String,
    },
    /// An iterator with no lower or upper bound expressible from the outer ones.
    #[error("statement {stmt}: iterator `{iterator}` has no {side} bound in terms of the enclosing loops")]
    Unbounded {
        /// The statement.
        stmt: String,
        /// The iterator.
        iterator: String,
        /// "lower" or "upper".
        side: &'static str,
    },
    /// The same iterator is scheduled at two time dimensions.
    #[error("statement {stmt}: iterator `{iterator}` appears twice in the schedule")]
    RepeatedIterator {
        /// The statement.
        stmt: String,
        /// The iterator.
        iterator: String,
    },
}

/// One statement while it is being placed in the loop nest.
#[derive(Clone)]
struct Placement {
    /// Index into the computation's statements.
    stmt: usize,
    /// The statement's name, for errors.
    name: String,
    /// Iterator names of the domain.
    names: Vec<String>,
    /// Time dimensions of the schedule.
    dims: Vec<ScheduleDim>,
    /// The value of each bound iterator.
    bound: BTreeMap<usize, IndexExpr>,
    /// Constraints not yet enforced by a loop, let or guard.
    pending: Vec<Constraint>,
    /// Constraints the enclosing nodes guarantee.
    enforced: Vec<Constraint>,
}

/// Scans `comp` into a loop program, using the facts of `env` to drop
/// guards the loops already imply.
pub fn scan(comp: &Computation, env: &UfEnvironment) -> Result<LoopProgram, ScanError> {
    let mut group = Vec::with_capacity(comp.stmts.len());
    for (index, s) in comp.stmts.iter().enumerate() {
        let domain = s.domain.simplify();
        let conj = match domain.conjunctions() {
            [] => continue, // an empty domain executes nothing
            [c] if c.num_exists() == 0 => c.clone(),
            _ => {
                return Err(ScanError::Domain {
                    stmt: s.name.clone(),
                    domain: s.domain.to_string(),
                })
            }
        };
        let dims =
            schedule_dims(&s.schedule, s.domain.arity()).map_err(|source| ScanError::Schedule {
                stmt: s.name.clone(),
                source,
            })?;
        let mut seen = HashSet::new();
        for d in &dims {
            if let ScheduleDim::Iter(p) = d {
                if !seen.insert(*p) {
                    return Err(ScanError::RepeatedIterator {
                        stmt: s.name.clone(),
                        iterator: s.iterators()[*p].clone(),
                    });
                }
            }
        }
        group.push(Placement {
            stmt: index,
            name: s.name.clone(),
            names: conj.tuple_names().to_vec(),
            dims,
            bound: BTreeMap::new(),
            pending: conj.constraints().cloned().collect(),
            enforced: Vec::new(),
        });
    }
    let scanner = Scanner {
        prover: Prover::new(env),
        implications: std::cell::RefCell::new(HashMap::new()),
    };
    // Loop variables must not shadow the generated function's parameters.
    let mut scope: Vec<String> = comp
        .symbols
        .iter()
        .cloned()
        .chain(comp.spaces.iter().map(|d| d.name.clone()))
        .chain(comp.objects.iter().map(|o| o.name.clone()))
        .collect();
    let body = scanner.level(group, 0, &mut scope)?;
    Ok(LoopProgram {
        computation: comp.clone(),
        body,
    })
}

struct Scanner<'e> {
    prover: Prover<'e>,
    /// z3's answers so far, by (enforced constraints, guard): loop nests
    /// repeated over one domain (a scatter's counting and placing passes)
    /// ask the same questions.
    implications: std::cell::RefCell<HashMap<(Vec<Constraint>, Constraint), bool>>,
}

/// The bounds on one iterator from one statement's pending constraints.
struct IteratorBounds {
    lower: Vec<(IndexExpr, Constraint)>,
    upper: Vec<(IndexExpr, Constraint)>,
    /// An equality `v = value` usable as a `let`.
    definition: Option<(IndexExpr, Constraint)>,
}

impl Scanner<'_> {
    /// Places a group of statements that share the time prefix before `dim`.
    /// `scope` holds the variable names in use by enclosing nodes.
    fn level(
        &self,
        group: Vec<Placement>,
        dim: usize,
        scope: &mut Vec<String>,
    ) -> Result<Vec<Node>, ScanError> {
        if group.is_empty() {
            return Ok(Vec::new());
        }
        // A time tuple that ends here is a prefix of the longer ones, so it
        // comes first in lexicographic order.
        let (ended, mut group): (Vec<Placement>, Vec<Placement>) =
            group.into_iter().partition(|p| dim >= p.dims.len());
        let mut out = Vec::new();
        for p in ended {
            out.extend(self.finish(p, scope)?);
        }
        if group.is_empty() {
            return Ok(out);
        }
        if group.len() == 1 {
            // Alone, the statement's own guards can be tested before its next
            // loop's bounds are evaluated (they may read index arrays at
            // arguments only those guards keep in range).
            let p = group.pop().expect("one statement");
            out.extend(self.hoisted_guards(p, scope, |this, p, scope| {
                this.ordered_level(vec![p], dim, scope)
            })?);
        } else {
            out.extend(self.ordered_level(group, dim, scope)?);
        }
        Ok(out)
    }

    /// Places a non-empty group whose schedules all continue at `dim`.
    fn ordered_level(
        &self,
        group: Vec<Placement>,
        dim: usize,
        scope: &mut Vec<String>,
    ) -> Result<Vec<Node>, ScanError> {
        let kind = |p: &Placement| p.dims[dim];
        let constant = group
            .iter()
            .find(|p| matches!(kind(p), ScheduleDim::Const(_)));
        let iterator = group
            .iter()
            .find(|p| matches!(kind(p), ScheduleDim::Iter(_)));
        match (constant, iterator) {
            (Some(c), Some(i)) => Err(ScanError::MixedDimension {
                dim,
                constant: c.name.clone(),
                iterator: i.name.clone(),
            }),
            (Some(_), None) => {
                let mut by_value: BTreeMap<i64, Vec<Placement>> = BTreeMap::new();
                for p in group {
                    let ScheduleDim::Const(c) = kind(&p) else {
                        unreachable!("all dimensions are constants here")
                    };
                    by_value.entry(c).or_default().push(p);
                }
                let mut out = Vec::new();
                for (_, sub) in by_value {
                    out.extend(self.level(sub, dim + 1, scope)?);
                }
                Ok(out)
            }
            (None, _) => self.shared_loop(group, dim, scope),
        }
    }

    /// Opens the loop (or let) shared by every statement of the group at `dim`.
    fn shared_loop(
        &self,
        mut group: Vec<Placement>,
        dim: usize,
        scope: &mut Vec<String>,
    ) -> Result<Vec<Node>, ScanError> {
        let position = |p: &Placement| match p.dims[dim] {
            ScheduleDim::Iter(q) => q,
            ScheduleDim::Const(_) => unreachable!("iterator dimension"),
        };
        let first = &group[0];
        let var = fresh_name(&first.names[position(first)], scope);
        let mut bounds = Vec::with_capacity(group.len());
        for p in &group {
            bounds.push(iterator_bounds(p, position(p)));
        }
        // A let when every statement defines the iterator by the same equality.
        let same_definition = bounds
            .iter()
            .map(|b| b.definition.as_ref().map(|d| &d.0))
            .collect::<Option<Vec<_>>>()
            .filter(|defs| defs.iter().all(|d| *d == defs[0]));
        let node_kind = if let Some(defs) = same_definition {
            let value = defs[0].clone();
            for (p, b) in group.iter_mut().zip(&bounds) {
                let (_, k) = b.definition.as_ref().expect("checked above");
                p.enforce(k);
            }
            LoopKind::Let(value)
        } else {
            let mut lowers = Vec::new();
            let mut uppers = Vec::new();
            for (p, b) in group.iter().zip(&bounds) {
                let name = &p.names[position(p)];
                let (lo, hi) = b.loop_range().map_err(|side| ScanError::Unbounded {
                    stmt: p.name.clone(),
                    iterator: name.clone(),
                    side,
                })?;
                lowers.push(lo);
                uppers.push(hi);
            }
            let shared =
                lowers.iter().all(|l| *l == lowers[0]) && uppers.iter().all(|u| *u == uppers[0]);
            if shared {
                // The loop enforces exactly each statement's bounds.
                for (p, b) in group.iter_mut().zip(&bounds) {
                    for k in b.used_constraints() {
                        p.enforce(&k);
                    }
                }
                LoopKind::For(lowers.swap_remove(0), uppers.swap_remove(0))
            } else {
                // The loop covers the hull; each statement keeps as guards
                // the bounds the hull does not enforce for it (a side whose
                // bound is the hull's own is enforced by the loop).
                let lo = min_or_max(lowers.clone(), true);
                let hi = min_or_max(uppers.clone(), false);
                for (i, (p, b)) in group.iter_mut().zip(&bounds).enumerate() {
                    if b.definition.is_some() {
                        if lowers[i] == lo && uppers[i] == hi {
                            for k in b.used_constraints() {
                                p.enforce(&k);
                            }
                        }
                        continue;
                    }
                    if lowers[i] == lo {
                        for (_, k) in &b.lower {
                            p.enforce(k);
                        }
                    }
                    if uppers[i] == hi {
                        for (_, k) in &b.upper {
                            p.enforce(k);
                        }
                    }
                }
                LoopKind::For(lo, hi)
            }
        };
        for p in group.iter_mut() {
            let q = position(p);
            p.bound.insert(q, IndexExpr::Var(var.clone()));
        }
        scope.push(var.clone());
        let body = if group.len() == 1 {
            let p = group.pop().expect("one statement");
            self.hoisted_guards(p, scope, |this, p, scope| {
                this.level(vec![p], dim + 1, scope)
            })?
        } else {
            self.level(group, dim + 1, scope)?
        };
        scope.pop();
        Ok(vec![match node_kind {
            LoopKind::Let(value) => Node::Let { var, value, body },
            LoopKind::For(lower, upper) => Node::For {
                var,
                lower,
                upper,
                body,
            },
        }])
    }

    /// Wraps what `inner` produces for `p` in guards for the pending
    /// constraints whose variables are all bound now.
    fn hoisted_guards(
        &self,
        mut p: Placement,
        scope: &mut Vec<String>,
        inner: impl FnOnce(&Self, Placement, &mut Vec<String>) -> Result<Vec<Node>, ScanError>,
    ) -> Result<Vec<Node>, ScanError> {
        let mut ready: Vec<Constraint> = p
            .pending
            .iter()
            .filter(|k| all_bound(k.expr(), &p.bound))
            .cloned()
            .collect();
        // Guards are tested left to right and stop at the first that fails,
        // so the affine ones (bounds on the variables) go before those that
        // read index arrays: `0 <= a && a <= 3 && g[a] == b`, never `g[a]`
        // with `a` out of bounds.
        ready.sort_by_key(|k| reads_index_array(k.expr()));
        let mut guards = Vec::new();
        for k in &ready {
            p.pending.retain(|x| x != k);
            if !self.implied(&p, k) {
                guards.push(to_guard(k, &p.bound));
                p.enforced.push(k.clone());
            }
        }
        let body = inner(self, p, scope)?;
        Ok(if guards.is_empty() {
            body
        } else {
            vec![Node::If { guards, body }]
        })
    }

    /// Binds the iterators the schedule does not mention (innermost, in
    /// tuple order), then guards and the statement itself.
    fn finish(&self, p: Placement, scope: &mut Vec<String>) -> Result<Vec<Node>, ScanError> {
        let unbound = (0..p.names.len()).find(|q| !p.bound.contains_key(q));
        match unbound {
            None => self.hoisted_guards(p, scope, |_, p, _| {
                Ok(vec![Node::Stmt {
                    stmt: p.stmt,
                    iterators: (0..p.names.len()).map(|q| p.bound[&q].clone()).collect(),
                }])
            }),
            Some(_) => {
                // Prefer an iterator an equality defines, then one with
                // bounds, in tuple order.
                let candidates: Vec<usize> = (0..p.names.len())
                    .filter(|q| !p.bound.contains_key(q))
                    .collect();
                let pick = candidates
                    .iter()
                    .copied()
                    .find(|&q| iterator_bounds(&p, q).definition.is_some())
                    .or_else(|| {
                        candidates
                            .iter()
                            .copied()
                            .find(|&q| iterator_bounds(&p, q).loop_range().is_ok())
                    })
                    .unwrap_or(candidates[0]);
                let mut p = p;
                let b = iterator_bounds(&p, pick);
                let var = fresh_name(&p.names[pick], scope);
                let kind = if let Some((value, k)) = &b.definition {
                    p.enforce(k);
                    LoopKind::Let(value.clone())
                } else {
                    let (lo, hi) = b.loop_range().map_err(|side| ScanError::Unbounded {
                        stmt: p.name.clone(),
                        iterator: p.names[pick].clone(),
                        side,
                    })?;
                    for k in b.used_constraints() {
                        p.enforce(&k);
                    }
                    LoopKind::For(lo, hi)
                };
                p.bound.insert(pick, IndexExpr::Var(var.clone()));
                scope.push(var.clone());
                let body = self.hoisted_guards(p, scope, |this, p, scope| this.finish(p, scope))?;
                scope.pop();
                Ok(vec![match kind {
                    LoopKind::Let(value) => Node::Let { var, value, body },
                    LoopKind::For(lower, upper) => Node::For {
                        var,
                        lower,
                        upper,
                        body,
                    },
                }])
            }
        }
    }

    /// Whether what encloses `p` already implies `k`.
    fn implied(&self, p: &Placement, k: &Constraint) -> bool {
        if p.enforced.iter().any(|e| syntactically_implies(e, k)) {
            return true;
        }
        if p.enforced.is_empty() {
            return false;
        }
        let key = (p.enforced.clone(), k.clone());
        if let Some(&known) = self.implications.borrow().get(&key) {
            return known;
        }
        let context = Conjunction::from_parts(
            p.names.clone(),
            Vec::new(),
            p.enforced
                .iter()
                .cloned()
                .map(iegen::constraint::Normalized::Constraint),
        );
        let holds = match context {
            Some(c) => self.prover.implies(&c, k).holds(),
            None => true, // the context is contradictory: nothing executes
        };
        self.implications.borrow_mut().insert(key, holds);
        holds
    }
}

enum LoopKind {
    For(IndexExpr, IndexExpr),
    Let(IndexExpr),
}

impl Placement {
    fn enforce(&mut self, k: &Constraint) {
        self.pending.retain(|x| x != k);
        self.enforced.push(k.clone());
    }
}

impl IteratorBounds {
    /// `[lower, upper)` of a loop enforcing every bound found.
    fn loop_range(&self) -> Result<(IndexExpr, IndexExpr), &'static str> {
        if let Some((v, _)) = &self.definition {
            return Ok((v.clone(), sum(&[(1, v.clone())], 1)));
        }
        if self.lower.is_empty() {
            return Err("lower");
        }
        if self.upper.is_empty() {
            return Err("upper");
        }
        let lo = min_or_max(self.lower.iter().map(|b| b.0.clone()).collect(), false);
        let hi = min_or_max(self.upper.iter().map(|b| b.0.clone()).collect(), true);
        Ok((lo, hi))
    }

    fn used_constraints(&self) -> Vec<Constraint> {
        match &self.definition {
            Some((_, k)) => vec![k.clone()],
            None => self
                .lower
                .iter()
                .chain(&self.upper)
                .map(|b| b.1.clone())
                .collect(),
        }
    }
}

/// The bounds on iterator `q` of `p` that the bound iterators determine.
fn iterator_bounds(p: &Placement, q: usize) -> IteratorBounds {
    let v = Var::Tuple(q);
    let mut out = IteratorBounds {
        lower: Vec::new(),
        upper: Vec::new(),
        definition: None,
    };
    for k in &p.pending {
        let e = k.expr();
        let a = e.coefficient_of_var(v);
        if a == 0 || e.mentions_in_uf_args(v) {
            continue;
        }
        let mut rest = e.clone();
        rest.add_term(Atom::Var(v), -a);
        if !all_bound(&rest, &p.bound) {
            continue;
        }
        let rest = to_index(&rest, &p.bound);
        match k.kind() {
            ConstraintKind::Eq => {
                // a*v + rest = 0
                if a.abs() == 1 {
                    let value = scale(&rest, -a);
                    if out.definition.is_none() {
                        out.definition = Some((value, k.clone()));
                    }
                } else {
                    // v = -rest/a when divisible: a loop of at most one iteration.
                    let num = scale(&rest, -a.signum());
                    out.lower.push((
                        IndexExpr::CeilDiv(Box::new(num.clone()), a.abs()),
                        k.clone(),
                    ));
                    out.upper.push((
                        sum(&[(1, IndexExpr::FloorDiv(Box::new(num), a.abs()))], 1),
                        k.clone(),
                    ));
                }
            }
            ConstraintKind::Geq => {
                if a > 0 {
                    // a*v >= -rest
                    let num = scale(&rest, -1);
                    let lo = if a == 1 {
                        num
                    } else {
                        IndexExpr::CeilDiv(Box::new(num), a)
                    };
                    out.lower.push((lo, k.clone()));
                } else {
                    // |a|*v <= rest  =>  v < floor(rest/|a|) + 1
                    let hi = if a == -1 {
                        sum(&[(1, rest)], 1)
                    } else {
                        sum(&[(1, IndexExpr::FloorDiv(Box::new(rest), -a))], 1)
                    };
                    out.upper.push((hi, k.clone()));
                }
            }
        }
    }
    out
}

/// Whether `e` calls a UF (reads an index array).
fn reads_index_array(e: &Expr) -> bool {
    let mut found = false;
    e.for_each_call(&mut |_, _| found = true);
    found
}

/// Whether every variable of `e` (also inside UF arguments) is bound.
fn all_bound(e: &Expr, bound: &BTreeMap<usize, IndexExpr>) -> bool {
    let mut ok = true;
    e.for_each_var(&mut |v| match v {
        Var::Tuple(q) => ok &= bound.contains_key(&q),
        Var::Exist(_) => ok = false,
    });
    ok
}

/// Converts an expression over bound iterators into an index expression.
pub(crate) fn to_index(e: &Expr, bound: &BTreeMap<usize, IndexExpr>) -> IndexExpr {
    let mut terms = Vec::new();
    for (atom, coef) in e.terms() {
        let x = match atom {
            Atom::Var(Var::Tuple(q)) => bound
                .get(q)
                .cloned()
                .unwrap_or_else(|| IndexExpr::Var(format!("t{q}"))),
            Atom::Var(Var::Exist(j)) => IndexExpr::Var(format!("e{j}")),
            Atom::Sym(s) => IndexExpr::Sym(s.clone()),
            Atom::Uf(name, args) => IndexExpr::Call(
                name.clone(),
                args.iter().map(|a| to_index(a, bound)).collect(),
            ),
            Atom::Div(x, m) => IndexExpr::FloorDiv(Box::new(to_index(x, bound)), *m),
        };
        terms.push((coef, x));
    }
    sum(&terms, e.constant_term())
}

/// `Σ ck·ek + c`, flattening nested sums and folding the trivial cases.
pub(crate) fn sum(terms: &[(i64, IndexExpr)], constant: i64) -> IndexExpr {
    let mut flat: Vec<(i64, IndexExpr)> = Vec::new();
    let mut c = constant;
    for (k, e) in terms {
        match e {
            IndexExpr::Const(v) => c += k * v,
            IndexExpr::Sum(inner, ic) => {
                c += k * ic;
                for (ik, ie) in inner {
                    flat.push((k * ik, ie.clone()));
                }
            }
            _ => flat.push((*k, e.clone())),
        }
    }
    // Combine repeated terms.
    let mut combined: Vec<(i64, IndexExpr)> = Vec::new();
    for (k, e) in flat {
        match combined.iter_mut().find(|(_, x)| *x == e) {
            Some(entry) => entry.0 += k,
            None => combined.push((k, e)),
        }
    }
    combined.retain(|(k, _)| *k != 0);
    match (combined.as_slice(), c) {
        ([], c) => IndexExpr::Const(c),
        ([(1, e)], 0) => e.clone(),
        _ => IndexExpr::Sum(combined, c),
    }
}

fn scale(e: &IndexExpr, k: i64) -> IndexExpr {
    sum(&[(k, e.clone())], 0)
}

/// The max (lower bounds) or min (upper bounds) of several expressions.
fn min_or_max(mut xs: Vec<IndexExpr>, min: bool) -> IndexExpr {
    xs.dedup();
    let mut unique: Vec<IndexExpr> = Vec::new();
    for x in xs {
        if !unique.contains(&x) {
            unique.push(x);
        }
    }
    // Constants fold among themselves.
    let consts: Vec<i64> = unique
        .iter()
        .filter_map(|x| match x {
            IndexExpr::Const(c) => Some(*c),
            _ => None,
        })
        .collect();
    if consts.len() > 1 {
        let keep = if min {
            consts.iter().min()
        } else {
            consts.iter().max()
        }
        .copied()
        .unwrap_or(0);
        unique.retain(|x| !matches!(x, IndexExpr::Const(c) if *c != keep));
        unique.dedup();
    }
    if unique.len() == 1 {
        return unique.pop().unwrap_or(IndexExpr::Const(0));
    }
    if min {
        IndexExpr::Min(unique)
    } else {
        IndexExpr::Max(unique)
    }
}

/// The guard `neg <= pos` or `pos == neg` of a constraint.
fn to_guard(k: &Constraint, bound: &BTreeMap<usize, IndexExpr>) -> Guard {
    let e = k.expr();
    let mut pos = Expr::constant(0);
    let mut neg = Expr::constant(0);
    for (a, c) in e.terms() {
        if c > 0 {
            pos.add_term(a.clone(), c);
        } else {
            neg.add_term(a.clone(), -c);
        }
    }
    let c = e.constant_term();
    if c > 0 {
        pos.add_constant(c);
    } else {
        neg.add_constant(-c);
    }
    let (lhs, rhs) = (to_index(&neg, bound), to_index(&pos, bound));
    match k.kind() {
        ConstraintKind::Eq => Guard {
            lhs,
            op: GuardOp::Eq,
            rhs,
        },
        ConstraintKind::Geq => Guard {
            lhs,
            op: GuardOp::Le,
            rhs,
        },
    }
}

/// Whether `a` implies `b` by comparing bounds on the same linear form.
fn syntactically_implies(a: &Constraint, b: &Constraint) -> bool {
    if a == b {
        return true;
    }
    let (ea, eb) = (a.expr(), b.expr());
    let same_form =
        ea.num_terms() == eb.num_terms() && ea.terms().zip(eb.terms()).all(|(x, y)| x == y);
    match (a.kind(), b.kind()) {
        // form + ca >= 0 implies form + cb >= 0 when cb >= ca
        (ConstraintKind::Geq, ConstraintKind::Geq) => {
            same_form && eb.constant_term() >= ea.constant_term()
        }
        // form + ca = 0 implies form + cb >= 0 when cb >= ca, and the
        // negated form likewise
        (ConstraintKind::Eq, ConstraintKind::Geq) => {
            let negated = ea.num_terms() == eb.num_terms()
                && ea
                    .terms()
                    .zip(eb.terms())
                    .all(|(x, y)| x.0 == y.0 && x.1 == -y.1);
            (same_form && eb.constant_term() >= ea.constant_term())
                || (negated && eb.constant_term() >= -ea.constant_term())
        }
        _ => false,
    }
}

/// A variable name not in `scope`, based on `wanted`.
fn fresh_name(wanted: &str, scope: &[String]) -> String {
    let mut name = wanted.to_string();
    while scope.contains(&name) {
        name.push('_');
    }
    name
}
