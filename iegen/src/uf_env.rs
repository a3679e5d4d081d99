//! What is known about uninterpreted functions: domains, ranges,
//! monotonicity and universally quantified rules.
//!
//! The environment never asserts a quantified formula to the solver. Instead
//! [`UfEnvironment::facts_for`] instantiates every fact on the UF calls that
//! occur in a query (one round, so it always terminates), which keeps the
//! queries in quantifier-free linear arithmetic with uninterpreted functions.

use std::collections::{BTreeMap, BTreeSet};

use crate::constraint::Constraint;
use crate::expr::{Expr, Var};
use crate::prop::Prop;
use crate::set::Set;

/// A monotonicity property of a unary UF, over its domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Monotonicity {
    /// `x1 <= x2 ⇒ f(x1) <= f(x2)`
    Nondecreasing,
    /// `x1 < x2 ⇒ f(x1) < f(x2)`
    Increasing,
    /// `x1 <= x2 ⇒ f(x1) >= f(x2)`
    Nonincreasing,
    /// `x1 < x2 ⇒ f(x1) > f(x2)`
    Decreasing,
}

impl Monotonicity {
    /// The keyword used in declarations.
    pub fn keyword(self) -> &'static str {
        match self {
            Monotonicity::Nondecreasing => "nondecreasing",
            Monotonicity::Increasing => "increasing",
            Monotonicity::Nonincreasing => "nonincreasing",
            Monotonicity::Decreasing => "decreasing",
        }
    }

    /// The fact for arguments `a`, `b` and values `fa`, `fb` (domain membership aside).
    fn instance(self, a: &Expr, b: &Expr, fa: &Expr, fb: &Expr) -> (Prop, Prop) {
        let atom = |n| Prop::from_normalized(n);
        match self {
            Monotonicity::Nondecreasing => {
                (atom(Constraint::le(a, b)), atom(Constraint::le(fa, fb)))
            }
            Monotonicity::Increasing => (atom(Constraint::lt(a, b)), atom(Constraint::lt(fa, fb))),
            Monotonicity::Nonincreasing => {
                (atom(Constraint::le(a, b)), atom(Constraint::le(fb, fa)))
            }
            Monotonicity::Decreasing => (atom(Constraint::lt(a, b)), atom(Constraint::lt(fb, fa))),
        }
    }
}

/// The declaration of one uninterpreted function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UfDecl {
    /// The function's name.
    pub name: String,
    /// Its domain: a set whose arity is the number of arguments.
    pub domain: Set,
    /// Its range: a set of arity 1 (UFs are integer-valued).
    pub range: Set,
    /// Monotonicity properties (unary functions only).
    pub monotonicity: Vec<Monotonicity>,
}

/// A universally quantified rule `forall e1, ..., en : premise ⇒ conclusion`.
///
/// The quantified variables are `Var::Tuple(0..n)` inside the constraints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UfRule {
    /// Names of the quantified variables, for messages.
    pub vars: Vec<String>,
    /// A conjunction of constraints.
    pub premise: Vec<Constraint>,
    /// A conjunction of constraints.
    pub conclusion: Vec<Constraint>,
}

/// Why a declaration was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EnvError {
    /// The function was declared before.
    #[error("uninterpreted function `{0}` is already declared")]
    Redeclared(String),
    /// The range is not a set of 1-tuples.
    #[error("the range of `{name}` must be a set of 1-tuples, not of {arity}-tuples")]
    RangeArity {
        /// The function.
        name: String,
        /// The arity given.
        arity: usize,
    },
    /// Monotonicity declared for a function of several arguments.
    #[error("`{name}` takes {arity} arguments; monotonicity applies to unary functions only")]
    MonotoneArity {
        /// The function.
        name: String,
        /// Its number of arguments.
        arity: usize,
    },
    /// A domain or range that needs existential variables.
    #[error("the {which} of `{name}` must not use existential variables")]
    Existential {
        /// The function.
        name: String,
        /// "domain" or "range".
        which: &'static str,
    },
    /// A rule whose variables appear in no UF argument cannot be instantiated.
    #[error(
        "rule variable `{0}` is not an argument of any uninterpreted function call in the rule"
    )]
    UnusedRuleVariable(String),
    /// A call whose number of arguments differs from the declaration.
    #[error("`{name}` is declared with {declared} arguments but called with {used}")]
    CallArity {
        /// The function.
        name: String,
        /// Declared arity.
        declared: usize,
        /// Arity at the call.
        used: usize,
    },
}

/// Largest number of instances of one rule added to a query.
const RULE_INSTANCE_LIMIT: usize = 4096;

/// Declarations and rules for uninterpreted functions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UfEnvironment {
    decls: BTreeMap<String, UfDecl>,
    rules: Vec<UfRule>,
}

/// A UF call occurring in a query: name and arguments.
pub type Call = (String, Vec<Expr>);

impl UfEnvironment {
    /// An environment that knows nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares a function after checking the declaration is well formed.
    pub fn declare(&mut self, decl: UfDecl) -> Result<(), EnvError> {
        if self.decls.contains_key(&decl.name) {
            return Err(EnvError::Redeclared(decl.name));
        }
        if decl.range.arity() != 1 {
            return Err(EnvError::RangeArity {
                name: decl.name,
                arity: decl.range.arity(),
            });
        }
        if !decl.monotonicity.is_empty() && decl.domain.arity() != 1 {
            return Err(EnvError::MonotoneArity {
                name: decl.name,
                arity: decl.domain.arity(),
            });
        }
        for (which, set) in [("domain", &decl.domain), ("range", &decl.range)] {
            if set
                .simplify()
                .conjunctions()
                .iter()
                .any(|c| c.num_exists() > 0)
            {
                return Err(EnvError::Existential {
                    name: decl.name,
                    which,
                });
            }
        }
        let decl = UfDecl {
            domain: decl.domain.simplify(),
            range: decl.range.simplify(),
            ..decl
        };
        self.decls.insert(decl.name.clone(), decl);
        Ok(())
    }

    /// Adds a universally quantified rule.
    pub fn add_rule(&mut self, rule: UfRule) -> Result<(), EnvError> {
        for (i, name) in rule.vars.iter().enumerate() {
            let v = Var::Tuple(i);
            let used = rule
                .premise
                .iter()
                .chain(&rule.conclusion)
                .any(|c| c.expr().mentions_in_uf_args(v));
            if !used {
                return Err(EnvError::UnusedRuleVariable(name.clone()));
            }
        }
        self.rules.push(rule);
        Ok(())
    }

    /// The declaration of `name`, if any.
    pub fn decl(&self, name: &str) -> Option<&UfDecl> {
        self.decls.get(name)
    }

    /// All declarations, by name.
    pub fn decls(&self) -> impl Iterator<Item = &UfDecl> + '_ {
        self.decls.values()
    }

    /// All rules, in the order added.
    pub fn rules(&self) -> &[UfRule] {
        &self.rules
    }

    /// Checks that every call of a declared function in `calls` uses its declared arity.
    pub fn check_calls<'a>(
        &self,
        calls: impl IntoIterator<Item = (&'a str, usize)>,
    ) -> Result<(), EnvError> {
        for (name, used) in calls {
            if let Some(d) = self.decls.get(name) {
                if d.domain.arity() != used {
                    return Err(EnvError::CallArity {
                        name: name.to_string(),
                        declared: d.domain.arity(),
                        used,
                    });
                }
            }
        }
        Ok(())
    }

    /// The facts about the calls `calls`, instantiated: first the rules
    /// (whose instances may mention further calls), then for every call the
    /// domain ⇒ range fact and, for every ordered pair of calls of one
    /// monotone function, its monotonicity fact.
    pub fn facts_for(&self, calls: &BTreeSet<Call>) -> Vec<Prop> {
        let mut facts = Vec::new();
        let mut all_calls = calls.clone();
        for rule in &self.rules {
            for fact in self.instantiate_rule(rule, calls) {
                fact.for_each_constraint(&mut |c| {
                    c.expr().for_each_call(&mut |n, a| {
                        all_calls.insert((n.to_string(), a.to_vec()));
                    })
                });
                facts.push(fact);
            }
        }
        for (name, args) in &all_calls {
            let Some(decl) = self.decls.get(name) else {
                continue;
            };
            if decl.domain.arity() != args.len() {
                continue;
            }
            let value = Expr::call(name.clone(), args.clone());
            let in_domain = membership(&decl.domain, args);
            let in_range = membership(&decl.range, std::slice::from_ref(&value));
            facts.push(Prop::implies(in_domain, in_range));
        }
        for decl in self.decls.values().filter(|d| !d.monotonicity.is_empty()) {
            let args: Vec<&Expr> = all_calls
                .iter()
                .filter(|(n, a)| *n == decl.name && a.len() == 1)
                .map(|(_, a)| &a[0])
                .collect();
            for a in &args {
                for b in &args {
                    if a == b {
                        continue;
                    }
                    let fa = Expr::call(decl.name.clone(), vec![(*a).clone()]);
                    let fb = Expr::call(decl.name.clone(), vec![(*b).clone()]);
                    for m in &decl.monotonicity {
                        let (order, conclusion) = m.instance(a, b, &fa, &fb);
                        let premise = Prop::And(vec![
                            membership(&decl.domain, std::slice::from_ref(*a)),
                            membership(&decl.domain, std::slice::from_ref(*b)),
                            order,
                        ]);
                        facts.push(Prop::implies(premise, conclusion));
                    }
                }
            }
        }
        facts
    }

    /// Instances of `rule` over the arguments of the calls in the query.
    fn instantiate_rule(&self, rule: &UfRule, calls: &BTreeSet<Call>) -> Vec<Prop> {
        // Candidates for each variable: the arguments found at the positions
        // where the rule passes that variable directly to a function.
        let mut candidates: Vec<BTreeSet<Expr>> = vec![BTreeSet::new(); rule.vars.len()];
        for c in rule.premise.iter().chain(&rule.conclusion) {
            c.expr().for_each_call(&mut |name, args| {
                for (p, arg) in args.iter().enumerate() {
                    if let Some(Var::Tuple(i)) = arg.as_var() {
                        for (n, a) in calls {
                            if n == name && a.len() == args.len() {
                                candidates[i].insert(a[p].clone());
                            }
                        }
                    }
                }
            });
        }
        let mut out = Vec::new();
        let mut choice = vec![0usize; rule.vars.len()];
        let pools: Vec<Vec<&Expr>> = candidates.iter().map(|s| s.iter().collect()).collect();
        if pools.iter().any(|p| p.is_empty()) {
            return out;
        }
        loop {
            let binding: Vec<&Expr> = choice.iter().zip(&pools).map(|(&k, p)| p[k]).collect();
            let mut subst = |v: Var| match v {
                Var::Tuple(i) => Some(binding[i].clone()),
                Var::Exist(_) => None,
            };
            let side = |cs: &[Constraint], subst: &mut dyn FnMut(Var) -> Option<Expr>| {
                Prop::And(
                    cs.iter()
                        .map(|c| {
                            Prop::from_normalized(c.map_expr(|e| e.substitute(&mut |v| subst(v))))
                        })
                        .collect(),
                )
            };
            let premise = side(&rule.premise, &mut subst);
            let conclusion = side(&rule.conclusion, &mut subst);
            out.push(Prop::implies(premise, conclusion));
            if out.len() >= RULE_INSTANCE_LIMIT {
                return out;
            }
            // Next combination, odometer style.
            let mut k = 0;
            loop {
                if k == choice.len() {
                    return out;
                }
                choice[k] += 1;
                if choice[k] < pools[k].len() {
                    break;
                }
                choice[k] = 0;
                k += 1;
            }
        }
    }
}

/// The proposition `args ∈ set`, for a set without existentials.
pub fn membership(set: &Set, args: &[Expr]) -> Prop {
    Prop::Or(
        set.conjunctions()
            .iter()
            .map(|c| {
                Prop::And(
                    c.constraints()
                        .map(|k| {
                            Prop::from_normalized(k.map_expr(|e| {
                                e.substitute(&mut |v| match v {
                                    Var::Tuple(i) => args.get(i).cloned(),
                                    Var::Exist(_) => None,
                                })
                            }))
                        })
                        .collect(),
                )
            })
            .collect(),
    )
}
