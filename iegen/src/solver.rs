//! The z3 bridge: emptiness, subset and equality of sets and relations.
//!
//! Queries are in quantifier-free linear integer arithmetic with
//! uninterpreted functions (QF_UFLIA): every UF becomes a z3 function, so
//! functional consistency (`x = y ⇒ f(x) = f(y)`) comes for free, and the
//! facts of the [`UfEnvironment`] are instantiated on the UF calls of the
//! query. The only quantifiers are those of existential variables of the
//! right-hand side of a subset test that simplification could not remove.

use std::collections::{BTreeSet, HashMap};

use z3::ast::{forall_const, Ast, Bool, Dynamic, Int};
use z3::{FuncDecl, Params, SatResult, Solver, Sort, Tactic};

use crate::conjunction::Conjunction;
use crate::constraint::{Constraint, ConstraintKind};
use crate::error::{check_arity, Error};
use crate::expr::{Atom, Expr, Var};
use crate::formula::Formula;
use crate::prop::Prop;
use crate::relation::Relation;
use crate::set::Set;
use crate::uf_env::{Call, UfEnvironment};

/// The answer to a semantic question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Proven for every interpretation of the UFs and symbols that satisfies
    /// the environment.
    Proved,
    /// Not proven: z3 found a model of the query with the instantiated
    /// facts. (Facts are instantiated on the terms that occur, so such a
    /// model may still violate an uninstantiated consequence of the
    /// environment; the answer is sound, not complete.)
    NotProved,
    /// z3 gave up (time-out or incompleteness with quantifiers).
    Unknown,
}

impl Verdict {
    /// Whether the property was proven.
    pub fn holds(self) -> bool {
        self == Verdict::Proved
    }

    fn and(self, other: Verdict) -> Verdict {
        match (self, other) {
            (Verdict::Proved, v) | (v, Verdict::Proved) => v,
            (Verdict::NotProved, _) | (_, Verdict::NotProved) => Verdict::NotProved,
            _ => Verdict::Unknown,
        }
    }
}

/// Answers semantic questions about sets and relations under a UF environment.
///
/// ```
/// use iegen::{Prover, Set, UfEnvironment};
/// let env = UfEnvironment::new();
/// let prover = Prover::new(&env);
/// let a: Set = "{[i] : 0 <= i < 4}".parse().unwrap();
/// let b: Set = "{[i] : 0 <= i < 10}".parse().unwrap();
/// assert!(prover.is_subset(&a, &b).unwrap().holds());
/// assert!(!prover.is_subset(&b, &a).unwrap().holds());
/// ```
pub struct Prover<'e> {
    env: &'e UfEnvironment,
    timeout_ms: u32,
}

/// Default per-query time limit.
const DEFAULT_TIMEOUT_MS: u32 = 10_000;

/// The most instantiated facts one query may carry. Facts grow with the
/// square of the calls of a monotone function (one per ordered pair), and
/// z3's time with them much faster: nested calls `f(f(...f(i)...))` of a
/// nondecreasing `f` took 1.6 s at depth 40 and over 25 s and 750 MB at
/// depth 80. Past this limit the query is not sent to z3 at all.
pub const FACT_LIMIT: usize = 3000;

/// Why a query was answered [`Verdict::Unknown`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GaveUp {
    /// The query needs more facts than [`FACT_LIMIT`].
    #[error(
        "the query needs {needed} facts about its function calls, more than the limit of \
         {limit} (nested calls of monotone functions multiply them)"
    )]
    Facts {
        /// Facts the query would need.
        needed: usize,
        /// The limit.
        limit: usize,
    },
    /// z3 found no answer in time, or could not decide the query.
    #[error("z3 found no answer within the limit of {limit_ms} ms per query")]
    Solver {
        /// The per-query time limit.
        limit_ms: u32,
    },
}

thread_local! {
    /// The first give-up since the last [`take_gave_up`], on this thread.
    static GAVE_UP: std::cell::RefCell<Option<GaveUp>> = const { std::cell::RefCell::new(None) };
}

/// Why a query on this thread was answered [`Verdict::Unknown`] since the
/// last call, if one was; clears the record. Callers that must not pass off
/// a give-up as an answer (the calculator, after each statement) report it.
pub fn take_gave_up() -> Option<GaveUp> {
    GAVE_UP.with(|g| g.borrow_mut().take())
}

fn gave_up(why: GaveUp) -> Verdict {
    GAVE_UP.with(|g| {
        g.borrow_mut().get_or_insert(why);
    });
    Verdict::Unknown
}

impl<'e> Prover<'e> {
    /// A prover using the facts of `env`.
    pub fn new(env: &'e UfEnvironment) -> Self {
        Prover {
            env,
            timeout_ms: DEFAULT_TIMEOUT_MS,
        }
    }

    /// Sets the time limit of each solver call.
    pub fn with_timeout_ms(mut self, ms: u32) -> Self {
        self.timeout_ms = ms;
        self
    }

    /// The environment whose facts are used.
    pub fn env(&self) -> &UfEnvironment {
        self.env
    }

    /// Whether the set has no point.
    pub fn is_empty(&self, s: &Set) -> Verdict {
        self.formula_is_empty(s.formula())
    }

    /// Whether the relation has no pair.
    pub fn relation_is_empty(&self, r: &Relation) -> Verdict {
        self.formula_is_empty(r.formula())
    }

    /// Whether `a ⊆ b` (same arity required).
    pub fn is_subset(&self, a: &Set, b: &Set) -> Result<Verdict, Error> {
        check_arity("is_subset", a.arity(), b.arity())?;
        Ok(self.formula_is_subset(a.formula(), b.formula()))
    }

    /// Whether `a = b` (same arity required).
    pub fn is_equal(&self, a: &Set, b: &Set) -> Result<Verdict, Error> {
        check_arity("is_equal", a.arity(), b.arity())?;
        Ok(self.is_subset(a, b)?.and(self.is_subset(b, a)?))
    }

    /// Whether `a ⊆ b` for relations (same input and output arities required).
    pub fn relation_is_subset(&self, a: &Relation, b: &Relation) -> Result<Verdict, Error> {
        check_arity("is_subset", a.in_arity(), b.in_arity())?;
        check_arity("is_subset", a.out_arity(), b.out_arity())?;
        Ok(self.formula_is_subset(a.formula(), b.formula()))
    }

    /// Whether `a = b` for relations.
    pub fn relation_is_equal(&self, a: &Relation, b: &Relation) -> Result<Verdict, Error> {
        check_arity("is_equal", a.in_arity(), b.in_arity())?;
        check_arity("is_equal", a.out_arity(), b.out_arity())?;
        Ok(self
            .relation_is_subset(a, b)?
            .and(self.relation_is_subset(b, a)?))
    }

    /// Whether a union of conjunctions is empty.
    pub fn formula_is_empty(&self, f: &Formula) -> Verdict {
        let f = f.simplify();
        let mut verdict = Verdict::Proved;
        for c in f.conjunctions() {
            let mut q = Query::new(self);
            let body = q.conjunction(c, VarRole::Free);
            verdict = verdict.and(q.unsat(&[body]));
            if verdict == Verdict::NotProved {
                break;
            }
        }
        verdict
    }

    /// Whether every point of `a` is in `b` (same arity).
    pub fn formula_is_subset(&self, a: &Formula, b: &Formula) -> Verdict {
        let (a, b) = (a.simplify(), b.simplify());
        let mut verdict = Verdict::Proved;
        for ca in a.conjunctions() {
            let mut q = Query::new(self);
            let lhs = q.conjunction(ca, VarRole::Free);
            let mut parts = vec![lhs];
            for (k, cb) in b.conjunctions().iter().enumerate() {
                let rhs = q.conjunction(cb, VarRole::Bound(k));
                let bound: Vec<Int> = q.bound_vars(k, cb.num_exists());
                let not_rhs = if bound.is_empty() {
                    rhs.not()
                } else {
                    let refs: Vec<&dyn Ast> = bound.iter().map(|v| v as &dyn Ast).collect();
                    q.quantified = true;
                    forall_const(&refs, &[], &rhs.not())
                };
                parts.push(not_rhs);
            }
            verdict = verdict.and(q.unsat(&parts));
            if verdict == Verdict::NotProved {
                break;
            }
        }
        verdict
    }

    /// Whether the constraints of `c` (under the environment) imply `k`.
    pub fn implies(&self, c: &Conjunction, k: &Constraint) -> Verdict {
        let mut q = Query::new(self);
        let body = q.conjunction(c, VarRole::Free);
        let goal = q.constraint(k);
        q.unsat(&[body, goal.not()])
    }

    /// Simplifies syntactically, then drops conjunctions the solver proves
    /// empty and constraints the others imply (under the environment).
    pub fn simplify(&self, f: &Formula) -> Formula {
        let f = f.simplify();
        let mut out = Vec::new();
        for c in f.conjunctions() {
            if self
                .formula_is_empty(&Formula::from_conjunctions(f.arity(), vec![c.clone()]))
                .holds()
            {
                continue;
            }
            let mut c = c.clone();
            let all: Vec<Constraint> = c.constraints().cloned().collect();
            for k in all.iter().rev() {
                let mut rest = c.clone();
                rest.remove(k);
                if self.implies(&rest, k).holds() {
                    c = rest;
                }
            }
            out.push(c);
        }
        Formula::from_conjunctions(f.arity(), out).simplify()
    }
}

/// How a conjunction's existential variables are treated in a query.
#[derive(Clone, Copy)]
enum VarRole {
    /// As free constants (the query asks for their existence).
    Free,
    /// As variables bound by a quantifier, distinct per conjunction index.
    Bound(usize),
}

/// One solver query under construction.
struct Query<'p, 'e> {
    prover: &'p Prover<'e>,
    /// Tuple variables (shared by both sides) and free existentials.
    free: HashMap<Var, Int>,
    /// Existentials of right-hand-side conjunctions, by (conjunction, index).
    bound: HashMap<(usize, usize), Int>,
    syms: HashMap<String, Int>,
    funcs: HashMap<(String, usize), FuncDecl>,
    /// Ground UF calls seen so far (not under a quantifier).
    calls: BTreeSet<Call>,
    /// The role under which expressions are currently translated.
    role: VarRole,
    /// Whether a part of the query is quantified (a right-hand side with
    /// existentials that simplification kept).
    quantified: bool,
}

impl<'p, 'e> Query<'p, 'e> {
    fn new(prover: &'p Prover<'e>) -> Self {
        Query {
            prover,
            free: HashMap::new(),
            bound: HashMap::new(),
            syms: HashMap::new(),
            funcs: HashMap::new(),
            calls: BTreeSet::new(),
            role: VarRole::Free,
            quantified: false,
        }
    }

    fn bound_vars(&self, k: usize, n: usize) -> Vec<Int> {
        (0..n).map(|j| self.bound[&(k, j)].clone()).collect()
    }

    fn var(&mut self, v: Var) -> Int {
        match (v, self.role) {
            (Var::Exist(j), VarRole::Bound(k)) => self
                .bound
                .entry((k, j))
                .or_insert_with(|| Int::new_const(format!("b{k}!e{j}")))
                .clone(),
            _ => self
                .free
                .entry(v)
                .or_insert_with(|| {
                    Int::new_const(match v {
                        Var::Tuple(i) => format!("t!{i}"),
                        Var::Exist(j) => format!("e!{j}"),
                    })
                })
                .clone(),
        }
    }

    fn expr(&mut self, e: &Expr) -> Int {
        let mut terms: Vec<Int> = Vec::new();
        for (atom, coef) in e.terms() {
            let value = match atom {
                Atom::Var(v) => self.var(*v),
                Atom::Sym(s) => self
                    .syms
                    .entry(s.clone())
                    .or_insert_with(|| Int::new_const(format!("sym!{s}")))
                    .clone(),
                Atom::Uf(name, args) => self.call(name, args),
                // SMT-LIB integer division is Euclidean: the floor for m > 0.
                Atom::Div(x, m) => self.expr(x).div(Int::from_i64(*m)),
            };
            terms.push(if coef == 1 {
                value
            } else {
                Int::mul(&[Int::from_i64(coef), value])
            });
        }
        if e.constant_term() != 0 || terms.is_empty() {
            terms.push(Int::from_i64(e.constant_term()));
        }
        if terms.len() == 1 {
            terms.pop().unwrap_or_else(|| Int::from_i64(0))
        } else {
            Int::add(&terms)
        }
    }

    fn call(&mut self, name: &str, args: &[Expr]) -> Int {
        let ground = match self.role {
            VarRole::Free => true,
            VarRole::Bound(_) => args.iter().all(|a| {
                let mut has_exist = false;
                a.for_each_var(&mut |v| has_exist |= matches!(v, Var::Exist(_)));
                !has_exist
            }),
        };
        if ground {
            self.calls.insert((name.to_string(), args.to_vec()));
        }
        let zargs: Vec<Int> = args.iter().map(|a| self.expr(a)).collect();
        let f = self
            .funcs
            .entry((name.to_string(), args.len()))
            .or_insert_with(|| {
                let int = Sort::int();
                let domain: Vec<&Sort> = (0..args.len()).map(|_| &int).collect();
                FuncDecl::new(format!("{name}/{}", args.len()), &domain, &Sort::int())
            });
        let refs: Vec<&dyn Ast> = zargs.iter().map(|a| a as &dyn Ast).collect();
        let value: Dynamic = f.apply(&refs);
        value
            .as_int()
            .unwrap_or_else(|| unreachable!("UFs are declared integer-valued"))
    }

    fn constraint(&mut self, c: &Constraint) -> Bool {
        let e = self.expr(c.expr());
        let zero = Int::from_i64(0);
        match c.kind() {
            ConstraintKind::Eq => e.eq(&zero),
            ConstraintKind::Geq => e.ge(&zero),
        }
    }

    fn conjunction(&mut self, c: &Conjunction, role: VarRole) -> Bool {
        self.role = role;
        if let VarRole::Bound(k) = role {
            for j in 0..c.num_exists() {
                self.var(Var::Exist(j));
                debug_assert!(self.bound.contains_key(&(k, j)));
            }
        }
        let parts: Vec<Bool> = c.constraints().map(|k| self.constraint(k)).collect();
        self.role = VarRole::Free;
        Bool::and(&parts)
    }

    fn prop(&mut self, p: &Prop) -> Bool {
        match p {
            Prop::Atom(c) => self.constraint(c),
            Prop::And(ps) => {
                let parts: Vec<Bool> = ps.iter().map(|p| self.prop(p)).collect();
                Bool::and(&parts)
            }
            Prop::Or(ps) => {
                let parts: Vec<Bool> = ps.iter().map(|p| self.prop(p)).collect();
                Bool::or(&parts)
            }
            Prop::Not(p) => self.prop(p).not(),
            Prop::Implies(a, b) => {
                let (a, b) = (self.prop(a), self.prop(b));
                a.implies(&b)
            }
        }
    }

    /// Whether the conjunction of `parts` and the environment's facts about
    /// the calls seen is unsatisfiable.
    ///
    /// A quantifier-free query (the common case: every emptiness and
    /// implication test, and subset tests whose right-hand side has no
    /// existentials left) goes to a fresh solver built from z3's `smt`
    /// tactic rather than to `Solver::new()`, z3's combined solver: the
    /// combined solver's set-up (an incremental SMT kernel created on the
    /// first assertion, then the whole "default" tactic with its logic
    /// probes run on the check) costs about 5 ms per query in z3 4.8,
    /// whatever the query's size, against about 0.15 ms here. The answers
    /// are the same: on quantifier-free linear integer arithmetic with
    /// uninterpreted functions (QF_UFLIA, floor division by constants
    /// included) both solvers are sound and complete (the default tactic
    /// preprocesses, then runs a procedure that, like `smt`, decides the
    /// fragment), so they can differ in speed, not in verdicts; a time-out
    /// still gives [`Verdict::Unknown`]. Quantified queries keep the combined solver,
    /// whose default tactic eliminates quantifiers that `smt`'s
    /// instantiation alone may leave undecided. A fresh solver per query
    /// keeps every answer independent of the queries asked before it.
    fn unsat(&mut self, parts: &[Bool]) -> Verdict {
        let solver = if self.quantified {
            Solver::new()
        } else {
            Tactic::new("smt").solver()
        };
        let mut params = Params::new();
        params.set_u32("timeout", self.prover.timeout_ms);
        solver.set_params(&params);
        for p in parts {
            solver.assert(p);
        }
        let calls = std::mem::take(&mut self.calls);
        let facts = self.prover.env.facts_for(&calls);
        if facts.len() > FACT_LIMIT {
            return gave_up(GaveUp::Facts {
                needed: facts.len(),
                limit: FACT_LIMIT,
            });
        }
        for fact in facts {
            let b = self.prop(&fact);
            solver.assert(&b);
        }
        match solver.check() {
            SatResult::Unsat => Verdict::Proved,
            SatResult::Sat => Verdict::NotProved,
            SatResult::Unknown => gave_up(GaveUp::Solver {
                limit_ms: self.prover.timeout_ms,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraint::Normalized;
    use crate::uf_env::{Monotonicity, UfDecl};

    fn set(text: &str) -> Set {
        text.parse().expect("test sets parse")
    }

    /// A nondecreasing `rowptr` over `0 <= x <= N` with values in `0 <= y <= NNZ`.
    fn env() -> UfEnvironment {
        let mut env = UfEnvironment::new();
        env.declare(UfDecl {
            name: "rowptr".into(),
            domain: set("{[x] : 0 <= x <= N}"),
            range: set("{[y] : 0 <= y <= NNZ}"),
            monotonicity: vec![Monotonicity::Nondecreasing],
        })
        .expect("declaration accepted");
        env
    }

    #[test]
    fn verdicts_use_the_environment_and_quantified_right_hand_sides() {
        let env = env();
        let prover = Prover::new(&env);
        // Monotonicity and range facts are instantiated on the query's calls.
        let csr = set("{[i, k] : 0 <= i < N && rowptr(i) <= k < rowptr(i + 1)}");
        assert_eq!(
            prover
                .is_subset(&csr, &set("{[i, k] : 0 <= k < NNZ}"))
                .map_err(|e| e.to_string()),
            Ok(Verdict::Proved)
        );
        assert_eq!(
            prover
                .is_subset(&csr, &set("{[i, k] : 0 <= k < N}"))
                .map_err(|e| e.to_string()),
            Ok(Verdict::NotProved)
        );
        // An existential of the right-hand side stays a quantifier: these
        // queries need the combined solver (the bare `smt` tactic answers
        // `Unknown` to the first one).
        let evens = set("{[i] : exists j : i = 4 * j}");
        let halves = set("{[i] : exists j : i = 2 * j}");
        assert_eq!(
            prover.is_subset(&evens, &halves).map_err(|e| e.to_string()),
            Ok(Verdict::Proved)
        );
        assert_eq!(
            prover.is_subset(&halves, &evens).map_err(|e| e.to_string()),
            Ok(Verdict::NotProved)
        );
        // Facts are per query: a query without calls gets none, and the
        // answers do not depend on what was asked before.
        assert_eq!(
            prover.is_empty(&set("{[i] : 0 <= i && i < 0}")),
            Verdict::Proved
        );
        assert_eq!(
            prover
                .is_subset(&csr, &set("{[i, k] : 0 <= k < NNZ}"))
                .map_err(|e| e.to_string()),
            Ok(Verdict::Proved)
        );
    }

    #[test]
    fn implication_and_simplification_under_the_environment() {
        let env = env();
        let prover = Prover::new(&env);
        let csr = set("{[i, k] : 0 <= i < N && rowptr(i) <= k < rowptr(i + 1)}");
        let c = &csr.formula().conjunctions()[0];
        let k = Expr::var(Var::Tuple(1));
        let nnz = Expr::sym("NNZ");
        let lt = |a: &Expr, b: &Expr| match Constraint::lt(a, b) {
            Normalized::Constraint(c) => c,
            other => panic!("not a constraint: {other:?}"),
        };
        assert!(prover.implies(c, &lt(&k, &nnz)).holds());
        assert!(!prover.implies(c, &lt(&nnz, &k)).holds());
        // `0 <= k` follows from the range of `rowptr` and is dropped.
        let redundant = set("{[i, k] : 0 <= i < N && 0 <= k && rowptr(i) <= k < rowptr(i + 1)}");
        assert_eq!(
            prover.simplify(redundant.formula()),
            csr.formula().simplify()
        );
    }
}
