//! Transformations of computations (dissertation 3.10–3.12): fusion,
//! rescheduling, dead-statement elimination and inlining.
//!
//! Fusion and rescheduling change schedules only; before returning they
//! check with z3 that no dependence is reversed (a write and a read, or two
//! writes, of one data element whose order the new schedules swap), so an
//! illegal reordering is an error, not a wrong program.

use std::collections::{BTreeSet, HashMap};

use crate::computation::{
    schedule_dims, schedule_relation, Access, Body, Computation, DataSpace, Role, ScheduleDim,
    ScheduleError, Stmt,
};
use crate::conjunction::Conjunction;
use crate::constraint::{Constraint, Normalized};
use crate::expr::{Atom, Expr, Var};
use crate::formula::{combine, Formula, Part};
use crate::set::Set;
use crate::solver::{Prover, Verdict};
use crate::uf_env::UfEnvironment;

/// Why a transformation was refused.
#[derive(Debug, thiserror::Error)]
pub enum TransformError {
    /// No statement of that name.
    #[error("no statement named `{0}`")]
    UnknownStatement(String),
    /// A schedule not of the 2d+1 form the transformations rewrite.
    #[error("statement {stmt}: {source}")]
    Schedule {
        /// The statement.
        stmt: String,
        /// What is wrong.
        #[source]
        source: ScheduleError,
    },
    /// The schedules do not have the loops the transformation needs.
    #[error("cannot fuse {s1} and {s2} at level {level}: {reason}")]
    Fusion {
        /// First statement.
        s1: String,
        /// Second statement.
        s2: String,
        /// The requested level.
        level: usize,
        /// What is missing.
        reason: String,
    },
    /// The new schedules would reverse a dependence.
    #[error("illegal: {later} would run before {earlier} on the same element of `{space}` ({kind} dependence)")]
    Illegal {
        /// The statement that must stay first.
        earlier: String,
        /// The statement that would overtake it.
        later: String,
        /// The data space.
        space: String,
        /// "flow", "anti" or "output".
        kind: &'static str,
    },
    /// z3 could not decide legality.
    #[error("could not prove the new order legal for {s1} and {s2} on `{space}`")]
    Undecided {
        /// One statement.
        s1: String,
        /// The other.
        s2: String,
        /// The data space.
        space: String,
    },
    /// An inlining argument that does not fit the callee.
    #[error("inlining {callee}: {reason}")]
    Inline {
        /// The callee.
        callee: String,
        /// What is wrong.
        reason: String,
    },
}

fn dims_of(s: &Stmt) -> Result<Vec<ScheduleDim>, TransformError> {
    schedule_dims(&s.schedule, s.domain.arity()).map_err(|source| TransformError::Schedule {
        stmt: s.name.clone(),
        source,
    })
}

fn index_of(c: &Computation, name: &str) -> Result<usize, TransformError> {
    c.stmts
        .iter()
        .position(|s| s.name == name)
        .ok_or_else(|| TransformError::UnknownStatement(name.to_string()))
}

/// The schedule relation `{[iterators] -> [dims]}` for a statement.
fn with_dims(s: &Stmt, dims: &[ScheduleDim]) -> Stmt {
    Stmt {
        schedule: schedule_relation(&s.domain, &s.iterators(), dims),
        ..s.clone()
    }
}

/// `fuse(s1, s2, level)`: puts `s2` into the first `level` loops of `s1`,
/// immediately after `s1` inside them. Statements that followed `s1` there
/// move one position later. Both statements need at least `level` loops;
/// the loops fused are matched by position, and the result is checked legal.
pub fn fuse(
    c: &Computation,
    s1: &str,
    s2: &str,
    level: usize,
    env: &UfEnvironment,
) -> Result<Computation, TransformError> {
    let (i1, i2) = (index_of(c, s1)?, index_of(c, s2)?);
    let d1 = dims_of(&c.stmts[i1])?;
    let d2 = dims_of(&c.stmts[i2])?;
    let fail = |reason: String| TransformError::Fusion {
        s1: s1.to_string(),
        s2: s2.to_string(),
        level,
        reason,
    };
    // In 2d+1 form, loop l is dimension 2l+1 and the constant after it 2l+2.
    let loops = |d: &[ScheduleDim]| {
        d.iter()
            .enumerate()
            .take_while(|(k, dim)| (k % 2 == 1) == matches!(dim, ScheduleDim::Iter(_)))
            .filter(|(k, _)| k % 2 == 1)
            .count()
    };
    if loops(&d1) < level || loops(&d2) < level {
        return Err(fail(format!(
            "{s1} has {} and {s2} has {} loops in 2d+1 form",
            loops(&d1),
            loops(&d2)
        )));
    }
    if i1 == i2 {
        return Err(fail("a statement cannot be fused with itself".into()));
    }
    let prefix_len = 2 * level + 1; // dims shared after fusion, up to the position
    let Some(ScheduleDim::Const(pos1)) = d1.get(2 * level).copied() else {
        return Err(fail(format!("{s1} has no position after loop {level}")));
    };
    let mut out = c.clone();
    // Make room right after s1 among statements sharing its prefix.
    for (k, s) in c.stmts.iter().enumerate() {
        if k == i1 || k == i2 {
            continue;
        }
        let mut d = dims_of(s)?;
        let shares = d.len() > 2 * level
            && (0..2 * level).all(|x| match (d[x], d1[x]) {
                (ScheduleDim::Const(a), ScheduleDim::Const(b)) => a == b,
                (ScheduleDim::Iter(_), ScheduleDim::Iter(_)) => true,
                _ => false,
            });
        if let (true, ScheduleDim::Const(p)) = (shares, d[2 * level]) {
            if p > pos1 {
                d[2 * level] = ScheduleDim::Const(p + 1);
                out.stmts[k] = with_dims(s, &d);
            }
        }
    }
    let mut new2 = d2.clone();
    for x in (0..2 * level).step_by(2) {
        new2[x] = d1[x];
    }
    // A schedule may end right after its loops (`[0, i]`): then the
    // position is appended.
    if new2.len() == 2 * level {
        new2.push(ScheduleDim::Const(pos1 + 1));
    } else {
        new2[2 * level] = ScheduleDim::Const(pos1 + 1);
    }
    debug_assert!(new2.len() >= prefix_len);
    out.stmts[i2] = with_dims(&c.stmts[i2], &new2);
    check_legal(c, &out, env)?;
    Ok(out)
}

/// `reschedule(s1, s2)`: moves `s1` (its whole loop nest) to run
/// immediately before `s2` at the top level. The result is checked legal.
pub fn reschedule(
    c: &Computation,
    s1: &str,
    s2: &str,
    env: &UfEnvironment,
) -> Result<Computation, TransformError> {
    let (i1, i2) = (index_of(c, s1)?, index_of(c, s2)?);
    let top = |s: &Stmt| -> Result<i64, TransformError> {
        match dims_of(s)?.first() {
            Some(ScheduleDim::Const(v)) => Ok(*v),
            _ => Err(TransformError::Fusion {
                s1: s1.to_string(),
                s2: s2.to_string(),
                level: 0,
                reason: format!("{} has no top-level position", s.name),
            }),
        }
    };
    let target = top(&c.stmts[i2])?;
    // s1's first dimension is replaced: it must not be a loop.
    top(&c.stmts[i1])?;
    let mut out = c.clone();
    for (k, s) in c.stmts.iter().enumerate() {
        let mut d = dims_of(s)?;
        if k == i1 {
            d[0] = ScheduleDim::Const(target);
        } else if let ScheduleDim::Const(v) = d[0] {
            if v >= target {
                d[0] = ScheduleDim::Const(v + 1);
            }
        }
        out.stmts[k] = with_dims(s, &d);
    }
    check_legal(c, &out, env)?;
    Ok(out)
}

/// Removes statements whose results nobody uses: a statement is live when
/// it writes a live-out data space (role `out` or `inout`), calls a runtime
/// object, or writes data a live statement reads (index arrays read as UFs
/// in domains included). Temporary data spaces no statement mentions any
/// more are removed too.
pub fn eliminate_dead_statements(c: &Computation) -> Computation {
    let mut live_data: BTreeSet<String> = c
        .spaces
        .iter()
        .filter(|d| d.role.is_live_out())
        .map(|d| d.name.clone())
        .collect();
    let mut live = vec![false; c.stmts.len()];
    loop {
        let mut changed = false;
        for (k, s) in c.stmts.iter().enumerate() {
            if live[k] {
                continue;
            }
            let mut objects = false;
            s.body.for_each_object(&mut |_| objects = true);
            let writes_live = s.writes().iter().any(|w| live_data.contains(&w.space));
            if objects || writes_live {
                live[k] = true;
                changed = true;
                for r in s.reads() {
                    live_data.insert(r.space);
                }
                for name in used_ufs(s) {
                    live_data.insert(name);
                }
            }
        }
        if !changed {
            break;
        }
    }
    let stmts: Vec<Stmt> = c
        .stmts
        .iter()
        .zip(&live)
        .filter(|(_, l)| **l)
        .map(|(s, _)| s.clone())
        .collect();
    let mut mentioned: BTreeSet<String> = BTreeSet::new();
    for s in &stmts {
        mentioned.extend(s.reads().into_iter().map(|a| a.space));
        mentioned.extend(s.writes().into_iter().map(|a| a.space));
        mentioned.extend(used_ufs(s));
    }
    let spaces = c
        .spaces
        .iter()
        .filter(|d| d.role != Role::Temp || mentioned.contains(&d.name))
        .cloned()
        .collect();
    Computation {
        stmts,
        spaces,
        ..c.clone()
    }
}

/// The UFs (index arrays) a statement's domain and accesses call.
fn used_ufs(s: &Stmt) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for conj in s.domain.conjunctions() {
        out.extend(conj.uf_names());
    }
    let mut visit = |a: &Access| {
        for e in &a.index {
            e.for_each_call(&mut |name, _| {
                out.insert(name.to_string());
            });
        }
    };
    s.body.for_each_read(&mut visit);
    s.body.for_each_write(&mut visit);
    out
}

/// What a callee's symbol or data space is bound to when inlining.
#[derive(Clone, Debug, PartialEq)]
pub enum Binding {
    /// A data space of the caller (for a callee data space).
    Space(String),
    /// An integer expression over the caller's symbols and context
    /// iterators (for a callee symbol).
    Symbol(Expr),
}

/// Where and how a callee is inlined.
#[derive(Clone, Debug, PartialEq)]
pub struct CallSite {
    /// Iterators of the caller's loops around the call, with their
    /// constraints (`{[]}` at the top level).
    pub context: Set,
    /// The caller's time prefix of the call: constants and context
    /// iterators, ending before the callee's own schedule (e.g. `[0, i, 1]`).
    pub prefix: Vec<ScheduleDim>,
    /// A binding for every callee symbol and every non-temporary data space.
    pub bindings: HashMap<String, Binding>,
    /// Prepended to the names of the callee's statements and temporaries.
    pub prefix_name: String,
}

/// Inlines `callee` into `caller` at `site`: callee statements are renamed,
/// their domains nested in the context (context iterators first), their
/// schedules prefixed by the call's time prefix, their symbols and data
/// spaces replaced by the bound caller expressions and spaces (index arrays
/// in domains and extents included); callee temporaries become caller
/// temporaries under the prefix. A data space the callee may write (`out`,
/// `inout`) cannot be bound to an `in` space of the caller.
pub fn inline(
    caller: &Computation,
    callee: &Computation,
    site: &CallSite,
) -> Result<Computation, TransformError> {
    let err = |reason: String| TransformError::Inline {
        callee: callee.name.clone(),
        reason,
    };
    let m = site.context.arity();
    let context_names: Vec<String> = match site.context.conjunctions() {
        [] => return Err(err("the call site's context is empty".into())),
        [c] if c.num_exists() == 0 => c.tuple_names().to_vec(),
        _ => {
            return Err(err(
                "the context must be one conjunction without existentials".into(),
            ))
        }
    };
    let mut symbols: HashMap<String, Expr> = HashMap::new();
    for s in &callee.symbols {
        match site.bindings.get(s) {
            Some(Binding::Symbol(e)) => {
                symbols.insert(s.clone(), e.clone());
            }
            _ => return Err(err(format!("symbol `{s}` needs a Binding::Symbol"))),
        }
    }
    let mut spaces: HashMap<String, String> = HashMap::new();
    let mut new_spaces: Vec<DataSpace> = Vec::new();
    for d in &callee.spaces {
        if d.role == Role::Temp {
            let name = format!("{}{}", site.prefix_name, d.name);
            if caller.space(&name).is_some() {
                return Err(err(format!("the caller already has a data space `{name}`")));
            }
            if caller.symbols.contains(&name) || caller.objects.iter().any(|o| o.name == name) {
                return Err(err(format!(
                    "the caller already has a symbol or runtime object `{name}`"
                )));
            }
            spaces.insert(d.name.clone(), name.clone());
            new_spaces.push(DataSpace {
                name,
                extents: d
                    .extents
                    .iter()
                    .map(|e| bind_symbols(e, &symbols))
                    .collect(),
                ..d.clone()
            });
            continue;
        }
        match site.bindings.get(&d.name) {
            Some(Binding::Space(target)) => {
                let Some(t) = caller.space(target) else {
                    return Err(err(format!(
                        "`{}` is bound to `{target}`, which the caller lacks",
                        d.name
                    )));
                };
                if t.elem != d.elem || t.extents.len() != d.extents.len() {
                    return Err(err(format!(
                        "`{}` and `{target}` differ in element type or dimensions",
                        d.name
                    )));
                }
                if d.role.is_live_out() && t.role == Role::In {
                    return Err(err(format!(
                        "`{}` is written by the callee but `{target}` is an input of the caller",
                        d.name
                    )));
                }
                spaces.insert(d.name.clone(), target.clone());
            }
            _ => {
                return Err(err(format!(
                    "data space `{}` needs a Binding::Space",
                    d.name
                )))
            }
        }
    }
    // Index arrays in the temporaries' extents are the bound caller spaces.
    for d in &mut new_spaces {
        for e in &mut d.extents {
            *e = rename_ufs(e, &spaces);
        }
    }
    let mut out = caller.clone();
    out.spaces.extend(new_spaces);
    for s in &callee.stmts {
        let name = format!("{}{}", site.prefix_name, s.name);
        if caller.stmt(&name).is_some() {
            return Err(err(format!("the caller already has a statement `{name}`")));
        }
        let dims = dims_of(s)?;
        let n = s.domain.arity();
        // New tuple: context iterators, then the callee's.
        let shift = |e: &Expr| {
            bind_symbols(
                &e.rename_vars(&mut |v| match v {
                    Var::Tuple(p) => Var::Tuple(p + m),
                    v => v,
                }),
                &symbols,
            )
        };
        let mut conjuncts = Vec::new();
        for cc in s.domain.conjunctions() {
            let mut names = context_names.clone();
            names.extend(cc.tuple_names().iter().cloned());
            let mut constraints: Vec<Normalized> = Vec::new();
            for k in site.context.conjunctions()[0].constraints() {
                constraints.push(Normalized::Constraint(k.clone()));
            }
            for k in cc.constraints() {
                // Index arrays in the domain are the bound caller spaces too.
                constraints.push(k.map_expr(|e| rename_ufs(&shift(e), &spaces)));
            }
            conjuncts.extend(Conjunction::from_parts(
                names,
                cc.exist_names().to_vec(),
                constraints,
            ));
        }
        let domain = Set::from_formula(Formula::from_conjunctions(m + n, conjuncts));
        let mut new_dims = site.prefix.clone();
        new_dims.extend(dims.iter().map(|d| match d {
            ScheduleDim::Iter(p) => ScheduleDim::Iter(p + m),
            c => *c,
        }));
        let body = rename_spaces(&s.body.map_exprs(&mut |e| shift(e)), &spaces);
        let mut names = context_names.clone();
        names.extend(s.iterators());
        out.stmts.push(Stmt {
            name,
            body,
            schedule: schedule_relation(&domain, &names, &new_dims),
            domain,
        });
    }
    Ok(out)
}

/// Replaces callee symbols by their bound expressions.
fn bind_symbols(e: &Expr, symbols: &HashMap<String, Expr>) -> Expr {
    let mut out = Expr::constant(e.constant_term());
    for (a, k) in e.terms() {
        match a {
            Atom::Sym(s) => match symbols.get(s) {
                Some(by) => out = out.add_scaled(by, k),
                None => out.add_term(a.clone(), k),
            },
            Atom::Uf(name, args) => {
                let args = args.iter().map(|x| bind_symbols(x, symbols)).collect();
                out.add_term(Atom::Uf(name.clone(), args), k);
            }
            Atom::Div(x, m) => {
                out = out.add_scaled(&Expr::floor_div(&bind_symbols(x, symbols), *m), k)
            }
            Atom::Var(_) => out.add_term(a.clone(), k),
        }
    }
    out
}

/// Renames data spaces (in accesses and in index-array calls).
fn rename_spaces(b: &Body, spaces: &HashMap<String, String>) -> Body {
    let rename_calls = |e: &Expr| rename_ufs(e, spaces);
    let renamed = b.map_exprs(&mut |e| rename_calls(e));
    rename_access_spaces(&renamed, spaces)
}

fn rename_ufs(e: &Expr, spaces: &HashMap<String, String>) -> Expr {
    let mut out = Expr::constant(e.constant_term());
    for (a, k) in e.terms() {
        match a {
            Atom::Uf(name, args) => {
                let name = spaces.get(name).cloned().unwrap_or_else(|| name.clone());
                let args = args.iter().map(|x| rename_ufs(x, spaces)).collect();
                out.add_term(Atom::Uf(name, args), k);
            }
            Atom::Div(x, m) => out.add_term(Atom::Div(Box::new(rename_ufs(x, spaces)), *m), k),
            _ => out.add_term(a.clone(), k),
        }
    }
    out
}

fn rename_access_spaces(b: &Body, spaces: &HashMap<String, String>) -> Body {
    use crate::computation::{Condition, ValueExpr};
    fn access(a: &Access, spaces: &HashMap<String, String>) -> Access {
        Access {
            space: spaces
                .get(&a.space)
                .cloned()
                .unwrap_or_else(|| a.space.clone()),
            index: a.index.clone(),
        }
    }
    fn value(v: &ValueExpr, spaces: &HashMap<String, String>) -> ValueExpr {
        match v {
            ValueExpr::Read(a) => ValueExpr::Read(access(a, spaces)),
            ValueExpr::Neg(x) => ValueExpr::Neg(Box::new(value(x, spaces))),
            ValueExpr::Binary(op, x, y) => {
                ValueExpr::Binary(*op, Box::new(value(x, spaces)), Box::new(value(y, spaces)))
            }
            ValueExpr::Call {
                object,
                method,
                args,
            } => ValueExpr::Call {
                object: object.clone(),
                method: method.clone(),
                args: args.iter().map(|a| value(a, spaces)).collect(),
            },
            other => other.clone(),
        }
    }
    match b {
        Body::Update {
            target,
            op,
            value: v,
        } => Body::Update {
            target: access(target, spaces),
            op: *op,
            value: value(v, spaces),
        },
        Body::If { conditions, then } => Body::If {
            conditions: conditions
                .iter()
                .map(|c| Condition {
                    lhs: value(&c.lhs, spaces),
                    op: c.op,
                    rhs: value(&c.rhs, spaces),
                })
                .collect(),
            then: Box::new(rename_access_spaces(then, spaces)),
        },
        Body::Call {
            object,
            method,
            args,
        } => Body::Call {
            object: object.clone(),
            method: method.clone(),
            args: args.iter().map(|a| value(a, spaces)).collect(),
        },
        Body::Seq(bs) => Body::Seq(bs.iter().map(|x| rename_access_spaces(x, spaces)).collect()),
    }
}

/// Checks that `new` (the same statements with new schedules) reverses no
/// dependence of `old`. An index array read as a UF (in a domain or an index
/// expression) counts as a read of the element at the call's arguments.
pub fn check_legal(
    old: &Computation,
    new: &Computation,
    env: &UfEnvironment,
) -> Result<(), TransformError> {
    let prover = Prover::new(env);
    for (a, sa) in old.stmts.iter().enumerate() {
        for (b, sb) in old.stmts.iter().enumerate() {
            let accesses = conflicting_accesses(sa, sb);
            if accesses.is_empty() {
                continue;
            }
            let (old_a, old_b) = (dims_of(sa)?, dims_of(sb)?);
            let (new_a, new_b) = (dims_of(&new.stmts[a])?, dims_of(&new.stmts[b])?);
            for (space, kind, acc_a, acc_b) in accesses {
                // Pairs (x in A, y in B) touching one element, A before B
                // originally, B before A now.
                let n = sa.domain.arity();
                let pairs = pair_set(sa, sb, &acc_a, &acc_b, &old_a, &old_b, &new_a, &new_b, n);
                match prover.formula_is_empty(&pairs) {
                    Verdict::Proved => {}
                    Verdict::NotProved => {
                        return Err(TransformError::Illegal {
                            earlier: sa.name.clone(),
                            later: sb.name.clone(),
                            space,
                            kind,
                        })
                    }
                    Verdict::Unknown => {
                        return Err(TransformError::Undecided {
                            s1: sa.name.clone(),
                            s2: sb.name.clone(),
                            space,
                        })
                    }
                }
            }
        }
    }
    Ok(())
}

/// The pairs of accesses of `a` then `b` to one data space that conflict:
/// (space, kind, access of a, access of b).
fn conflicting_accesses(a: &Stmt, b: &Stmt) -> Vec<(String, &'static str, Access, Access)> {
    let mut reads_a = Vec::new();
    let mut writes_a = Vec::new();
    let mut reads_b = Vec::new();
    let mut writes_b = Vec::new();
    a.body.for_each_read(&mut |x| reads_a.push(x.clone()));
    a.body.for_each_write(&mut |x| writes_a.push(x.clone()));
    b.body.for_each_read(&mut |x| reads_b.push(x.clone()));
    b.body.for_each_write(&mut |x| writes_b.push(x.clone()));
    reads_a.extend(uf_reads(a));
    reads_b.extend(uf_reads(b));
    let mut out = Vec::new();
    for w in &writes_a {
        for r in reads_b.iter().filter(|r| r.space == w.space) {
            out.push((w.space.clone(), "flow", w.clone(), r.clone()));
        }
        for w2 in writes_b.iter().filter(|x| x.space == w.space) {
            out.push((w.space.clone(), "output", w.clone(), w2.clone()));
        }
    }
    for r in &reads_a {
        for w in writes_b.iter().filter(|w| w.space == r.space) {
            out.push((r.space.clone(), "anti", r.clone(), w.clone()));
        }
    }
    out
}

/// The elements of index arrays a statement reads as UFs, in its domain and
/// in its body's index expressions: `rowptr(i)` reads `rowptr` at `i`. A call
/// whose arguments use an existential variable of the domain reads an
/// unknown element (an access without indices, which conflicts with every
/// element).
fn uf_reads(s: &Stmt) -> Vec<Access> {
    let mut out: Vec<Access> = Vec::new();
    let mut add = |name: &str, index: Vec<Expr>| {
        let a = Access {
            space: name.to_string(),
            index,
        };
        if !out.contains(&a) {
            out.push(a);
        }
    };
    for conj in s.domain.conjunctions() {
        for k in conj.constraints() {
            k.expr().for_each_call(&mut |name, args| {
                let mut exists = false;
                for e in args {
                    e.for_each_var(&mut |v| exists |= matches!(v, Var::Exist(_)));
                }
                add(name, if exists { Vec::new() } else { args.to_vec() });
            });
        }
    }
    s.body
        .for_each_expr(&mut |e| e.for_each_call(&mut |name, args| add(name, args.to_vec())));
    out
}

/// `{[x, y] : x in A, y in B, acc_a(x) = acc_b(y), old(x) < old(y), new(y) < new(x)}`
/// as a union over the levels where the lexicographic comparisons decide.
#[allow(clippy::too_many_arguments)]
fn pair_set(
    sa: &Stmt,
    sb: &Stmt,
    acc_a: &Access,
    acc_b: &Access,
    old_a: &[ScheduleDim],
    old_b: &[ScheduleDim],
    new_a: &[ScheduleDim],
    new_b: &[ScheduleDim],
    n: usize,
) -> Formula {
    let m = sb.domain.arity();
    let shift_b = |e: &Expr| {
        e.rename_vars(&mut |v| match v {
            Var::Tuple(p) => Var::Tuple(p + n),
            v => v,
        })
    };
    let time = |dims: &[ScheduleDim], offset: usize| -> Vec<Expr> {
        dims.iter()
            .map(|d| match d {
                ScheduleDim::Const(c) => Expr::constant(*c),
                ScheduleDim::Iter(p) => Expr::var(Var::Tuple(p + offset)),
            })
            .collect()
    };
    let before_old = lex_less(&time(old_a, 0), &time(old_b, n));
    let before_new = lex_less(&time(new_b, n), &time(new_a, 0));
    let mut names = sa.iterators();
    names.extend(sb.iterators().into_iter().map(|x| format!("{x}'")));
    let access: Vec<Normalized> = acc_a
        .index
        .iter()
        .zip(&acc_b.index)
        .map(|(x, y)| Constraint::equal(x, &shift_b(y)))
        .collect();
    let identity = |p: usize| Var::Tuple(p);
    let shifted = move |p: usize| Var::Tuple(p + n);
    let mut conjuncts = Vec::new();
    for ca in sa.domain.conjunctions() {
        for cb in sb.domain.conjunctions() {
            let parts = [
                Part {
                    conj: ca,
                    tuple_map: &identity,
                },
                Part {
                    conj: cb,
                    tuple_map: &shifted,
                },
            ];
            let Some(both) = combine(names.clone(), Vec::new(), &parts) else {
                continue;
            };
            for o in &before_old {
                for w in &before_new {
                    let mut c = both.clone();
                    let extra = access.iter().chain(o).chain(w).cloned();
                    if extra.into_iter().all(|k| c.add(k).is_ok()) {
                        conjuncts.push(c);
                    }
                }
            }
        }
    }
    Formula::from_conjunctions(n + m, conjuncts).simplify()
}

/// `x <lex y` as a union of conjunctions; a proper prefix is smaller.
fn lex_less(x: &[Expr], y: &[Expr]) -> Vec<Vec<Normalized>> {
    let mut out = Vec::new();
    let common = x.len().min(y.len());
    for d in 0..common {
        let mut cs: Vec<Normalized> = (0..d).map(|e| Constraint::equal(&x[e], &y[e])).collect();
        cs.push(Constraint::lt(&x[d], &y[d]));
        out.push(cs);
    }
    if x.len() < y.len() {
        out.push(
            (0..common)
                .map(|e| Constraint::equal(&x[e], &y[e]))
                .collect(),
        );
    }
    out
}
