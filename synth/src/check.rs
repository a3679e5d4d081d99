//! `spf check`: the semantic properties of a descriptor, decided with z3.
//!
//! [`check`] asks the [`Prover`] (under the descriptor's UF environment:
//! the index arrays' domains, ranges and monotonicity, and its rules) the
//! questions that synthesis relies on, each as the emptiness of a set of
//! counterexamples built over two copies of the sparse space:
//!
//! | property | counterexamples (must be empty) |
//! |---|---|
//! | [`Property::NonEmpty`] | (the opposite: the map must admit entries, two distinct ones at least) |
//! | [`Property::MapFunction`] | `map(s) = x`, `map(s) = x'`, `x_d < x'_d` |
//! | [`Property::MapInjective`] | `map(s) = x`, `map(s') = x`, `s_p < s'_p` (unless `padding`) |
//! | [`Property::MapInBounds`] | `map(s) = x`, `x_d < 0` or `x_d >= extent_d` |
//! | [`Property::CallsInDomain`] | `map(s) = x`, the arguments of a call outside its domain |
//! | [`Property::DataFunction`] | `data(s) = k`, `data(s) = k'`, `k_e < k'_e` (for stored `s`) |
//! | [`Property::DataTotal`] | `map(s) = x` but no `k` with `data(s) = k` |
//! | [`Property::DataInjective`] | `data(s) = k`, `data(s') = k`, `s_p < s'_p` (stored `s`, `s'`) |
//! | [`Property::DataInBounds`] | `data(s) = k`, `k_e < 0` or `k_e >= size_e` (stored `s`) |
//! | [`Property::Solvable`] | (syntactic) an index array in neither the map nor the data relation |
//! | [`Property::ComparatorUsed`] | (syntactic) a comparator no rule calls |
//!
//! The sets are symmetric in the two copies, so one strict order per
//! dimension covers `!=`. Facts are instantiated on the calls of each query
//! (see [`iegen::solver`]), so a failed proof means z3 found a model of the
//! instantiated facts: the property does not follow from what the
//! descriptor states. Each [`Finding`] names the property, the dimension or
//! index array involved, and what is missing.

use std::collections::BTreeSet;
use std::fmt;

use iegen::constraint::Normalized;
use iegen::print::expr_with_names;
use iegen::{Conjunction, Constraint, Expr, Formula, Prover, Set, Var, Verdict};

use crate::descriptor::Descriptor;

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The property holds (or does not apply).
    Ok,
    /// Not an error, but worth a look: z3 gave up, or the descriptor has
    /// something that serves no purpose.
    Warning,
    /// A property synthesis relies on does not follow from the descriptor.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Ok => "ok",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// The properties [`check`] decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Property {
    /// The map admits stored entries, two distinct ones at least (otherwise
    /// every other property would hold vacuously).
    NonEmpty,
    /// The map is a function: a sparse point has one coordinate.
    MapFunction,
    /// Distinct sparse points have distinct coordinates (required unless the
    /// format declares `padding`).
    MapInjective,
    /// Every coordinate lies within the dense shape `0 .. extent - 1`.
    MapInBounds,
    /// Every index array call in the map and the data relation has its
    /// arguments within the array's domain.
    CallsInDomain,
    /// The data relation gives a stored entry one position.
    DataFunction,
    /// The data relation gives every stored entry a position.
    DataTotal,
    /// Distinct stored entries have distinct positions in the value array.
    DataInjective,
    /// Positions lie within the value array's size.
    DataInBounds,
    /// Every index array appears in the map or the data relation, so
    /// synthesis can compute it when the format is a destination.
    Solvable,
    /// Every comparator is called by some rule.
    ComparatorUsed,
}

impl Property {
    /// A short name, as printed in findings.
    pub fn name(self) -> &'static str {
        match self {
            Property::NonEmpty => "map is not empty",
            Property::MapFunction => "map is a function",
            Property::MapInjective => "map is injective",
            Property::MapInBounds => "coordinates within the dense shape",
            Property::CallsInDomain => "index array calls within their domains",
            Property::DataFunction => "data relation is a function",
            Property::DataTotal => "data relation covers every entry",
            Property::DataInjective => "data relation is injective",
            Property::DataInBounds => "positions within the value array",
            Property::Solvable => "index arrays solvable",
            Property::ComparatorUsed => "comparators used",
        }
    }
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One result of [`check`].
///
/// Displays as `SEVERITY: PROPERTY: MESSAGE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// How serious it is.
    pub severity: Severity,
    /// The property concerned.
    pub property: Property,
    /// What holds or what is missing, naming the dimension, index array or
    /// constraint involved.
    pub message: String,
}

impl Finding {
    fn new(severity: Severity, property: Property, message: impl Into<String>) -> Self {
        Finding {
            severity,
            property,
            message: message.into(),
        }
    }

    /// Whether this finding is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.severity, self.property, self.message)
    }
}

/// Checks a descriptor's semantic properties with z3, with a time limit of
/// 10 s per solver call. Returns one finding per property, in the order of
/// [`Property`] (none for [`Property::ComparatorUsed`] when the format has
/// no comparator), several for a property that fails in several places.
///
/// ```
/// # use synth::check::{check, Severity};
/// let csr = synth::builtin::load_format("csr").unwrap();
/// assert!(check(&csr).iter().all(|f| f.severity == Severity::Ok));
/// ```
pub fn check(d: &Descriptor) -> Vec<Finding> {
    check_with_timeout(d, 10_000)
}

/// [`check`] with a time limit of `timeout_ms` milliseconds per solver call;
/// a call that runs out of time makes its property a warning.
pub fn check_with_timeout(d: &Descriptor, timeout_ms: u32) -> Vec<Finding> {
    let env = d.env();
    let prover = Prover::new(&env).with_timeout_ms(timeout_ms);
    let c = Checker::new(d, &prover);
    let mut out = c.well_formedness();
    // Synthesis assumes a well-formed format: attempt it only then.
    let well_formed = out.iter().all(|f: &Finding| !f.is_error());
    out.extend(c.solvable(well_formed));
    out.extend(c.comparators_used());
    out
}

/// The first error among the properties every conversion relies on (all
/// of [`check`]'s but whether the format can be synthesized, which a
/// conversion finds out itself): what `spf synth`, `spf build`,
/// `spf convert` and `spf pdfg` check of each descriptor before
/// synthesizing, so that a descriptor `spf check` rejects is refused as
/// the user's error, not run into an internal one.
///
/// ```
/// let csr = synth::builtin::load_format("csr").unwrap();
/// assert!(synth::check::first_error(&csr).is_none());
/// ```
pub fn first_error(d: &Descriptor) -> Option<Finding> {
    let env = d.env();
    let prover = Prover::new(&env);
    Checker::new(d, &prover)
        .well_formedness()
        .into_iter()
        .find(Finding::is_error)
}

/// A set of counterexamples under construction: tuple positions, the
/// existentials of the embedded conjunctions, constraints.
#[derive(Default)]
struct Query {
    names: Vec<String>,
    exists: Vec<String>,
    parts: Vec<Normalized>,
}

impl Query {
    /// Appends tuple positions named `names`; returns the first one.
    fn tuple(&mut self, names: &[String], suffix: &str) -> usize {
        let start = self.names.len();
        self.names
            .extend(names.iter().map(|n| format!("{n}{suffix}")));
        start
    }

    /// Embeds `c`, its tuple position `i` becoming `at(i)`, its existentials
    /// fresh ones.
    fn embed(&mut self, c: &Conjunction, at: &dyn Fn(usize) -> usize) {
        let offset = self.exists.len();
        self.exists.extend(c.exist_names().iter().cloned());
        self.parts
            .extend(c.embedded_constraints(&|i| Var::Tuple(at(i)), offset));
    }

    fn push(&mut self, n: Normalized) {
        self.parts.push(n);
    }

    /// The set; `None` when a constraint is trivially false.
    fn set(self) -> Option<Set> {
        let arity = self.names.len();
        Conjunction::from_parts(self.names, self.exists, self.parts)
            .map(|c| Set::from_formula(Formula::from_conjunctions(arity, vec![c])))
    }
}

fn t(i: usize) -> Expr {
    Expr::var(Var::Tuple(i))
}

/// The combined verdict of several emptiness questions: the first that is
/// not proved, or `Proved`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Outcome {
    Proved,
    Failed,
    Unknown,
}

impl Outcome {
    fn of(v: Verdict) -> Self {
        match v {
            Verdict::Proved => Outcome::Proved,
            Verdict::NotProved => Outcome::Failed,
            Verdict::Unknown => Outcome::Unknown,
        }
    }

    /// Combines: a failure wins over an unknown, which wins over a proof.
    fn and(self, other: Outcome) -> Outcome {
        match (self, other) {
            (Outcome::Failed, _) | (_, Outcome::Failed) => Outcome::Failed,
            (Outcome::Unknown, _) | (_, Outcome::Unknown) => Outcome::Unknown,
            _ => Outcome::Proved,
        }
    }
}

struct Checker<'a> {
    d: &'a Descriptor,
    prover: &'a Prover<'a>,
    /// Sparse position names.
    sparse: Vec<String>,
    /// Dense coordinate names (the map's output tuple).
    dense: Vec<String>,
    /// Position names of the value array.
    slots: Vec<String>,
    a: usize,
    b: usize,
    e: usize,
}

impl<'a> Checker<'a> {
    fn new(d: &'a Descriptor, prover: &'a Prover<'a>) -> Self {
        let (a, b) = (d.map.in_arity(), d.map.out_arity());
        let e = d.data.out_arity();
        let names = |conjs: &[Conjunction], from: usize, n: usize, fallback: &str| {
            (0..n)
                .map(|i| {
                    conjs
                        .first()
                        .and_then(|c| c.tuple_names().get(from + i))
                        .filter(|s| !s.is_empty())
                        .cloned()
                        .unwrap_or_else(|| format!("{fallback}{i}"))
                })
                .collect::<Vec<_>>()
        };
        Checker {
            d,
            prover,
            sparse: names(d.map.conjunctions(), 0, a, "s"),
            dense: names(d.map.conjunctions(), a, b, "x"),
            slots: names(d.data.conjunctions(), a, e, "k"),
            a,
            b,
            e,
        }
    }

    /// Whether the query has no point.
    fn empty(&self, q: Query) -> Outcome {
        match q.set() {
            None => Outcome::Proved,
            Some(s) => Outcome::of(self.prover.is_empty(&s)),
        }
    }

    fn map_conjs(&self) -> &[Conjunction] {
        self.d.map.conjunctions()
    }

    fn data_conjs(&self) -> &[Conjunction] {
        self.d.data.conjunctions()
    }

    /// The index arrays the map calls, for messages.
    fn map_ufs(&self) -> Vec<String> {
        let mut out = BTreeSet::new();
        for c in self.map_conjs() {
            out.extend(c.uf_names());
        }
        self.d
            .ufs
            .iter()
            .filter(|u| out.contains(&u.name))
            .map(|u| format!("`{}`", u.name))
            .collect()
    }

    fn quoted(names: &[&String]) -> String {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn undecided(&self, p: Property) -> Finding {
        Finding::new(
            Severity::Warning,
            p,
            "z3 could not decide it (time-out or incompleteness)",
        )
    }

    // ------------------------------------------------------------ the map

    /// The properties of a well-formed format, in order.
    fn well_formedness(&self) -> Vec<Finding> {
        let mut out = vec![self.non_empty()];
        out.extend(self.map_function());
        out.extend(self.map_injective());
        out.extend(self.map_in_bounds());
        out.extend(self.calls_in_domain());
        out.extend(self.data_function());
        out.extend(self.data_total());
        out.extend(self.data_injective());
        out.extend(self.data_in_bounds());
        out
    }
    fn non_empty(&self) -> Finding {
        let p = Property::NonEmpty;
        match Outcome::of(self.prover.relation_is_empty(&self.d.map)) {
            Outcome::Proved => {
                return Finding::new(
                    Severity::Error,
                    p,
                    "the map admits no stored entry: its constraints, with the index arrays' \
                     declarations and the rules, are contradictory, and every other property \
                     would hold vacuously",
                )
            }
            Outcome::Unknown => return self.undecided(p),
            Outcome::Failed => {}
        }
        // Two distinct entries: some position may differ.
        let (a, b) = (self.a, self.b);
        let mut outcome = Outcome::Proved;
        'positions: for pos in 0..a {
            for ci in self.map_conjs() {
                for cj in self.map_conjs() {
                    let mut q = Query::default();
                    q.tuple(&self.sparse, "");
                    q.tuple(&self.dense, "");
                    q.tuple(&self.sparse, "'");
                    q.tuple(&self.dense, "'");
                    q.embed(ci, &|i| i);
                    q.embed(cj, &|i| i + a + b);
                    q.push(Constraint::lt(&t(pos), &t(a + b + pos)));
                    outcome = self.empty(q);
                    if outcome != Outcome::Proved {
                        break 'positions;
                    }
                }
            }
        }
        match outcome {
            Outcome::Failed => Finding::new(
                Severity::Ok,
                p,
                "the map admits stored entries, two distinct ones at least",
            ),
            Outcome::Proved => Finding::new(
                Severity::Warning,
                p,
                "the map admits at most one stored entry: the rules or the index arrays' \
                 declarations seem to contradict each other as soon as two entries exist",
            ),
            Outcome::Unknown => self.undecided(p),
        }
    }

    fn map_function(&self) -> Vec<Finding> {
        let p = Property::MapFunction;
        let (a, b) = (self.a, self.b);
        let mut out = Vec::new();
        let mut unknown = false;
        for dim in 0..b {
            let mut outcome = Outcome::Proved;
            for ci in self.map_conjs() {
                for cj in self.map_conjs() {
                    // [s, x, x']
                    let mut q = Query::default();
                    q.tuple(&self.sparse, "");
                    q.tuple(&self.dense, "");
                    q.tuple(&self.dense, "'");
                    q.embed(ci, &|i| i);
                    q.embed(cj, &|i| if i < a { i } else { i + b });
                    q.push(Constraint::lt(&t(a + dim), &t(a + b + dim)));
                    outcome = outcome.and(self.empty(q));
                }
            }
            match outcome {
                Outcome::Proved => {}
                Outcome::Unknown => unknown = true,
                Outcome::Failed => out.push(Finding::new(
                    Severity::Error,
                    p,
                    format!(
                        "one sparse point may map to two coordinates that differ in `{}` \
                         (dimension {dim}, extent `{}`): the map's constraints do not determine it",
                        self.dense[dim], self.d.dense[dim]
                    ),
                )),
            }
        }
        if out.is_empty() {
            out.push(if unknown {
                self.undecided(p)
            } else {
                Finding::new(Severity::Ok, p, "every sparse point maps to one coordinate")
            });
        }
        out
    }

    fn map_injective(&self) -> Vec<Finding> {
        let p = Property::MapInjective;
        let (a, b) = (self.a, self.b);
        let mut failed: Vec<&String> = Vec::new();
        let mut unknown = false;
        for pos in 0..a {
            let mut outcome = Outcome::Proved;
            for ci in self.map_conjs() {
                for cj in self.map_conjs() {
                    // [s, x, s']: both points map to x.
                    let mut q = Query::default();
                    q.tuple(&self.sparse, "");
                    q.tuple(&self.dense, "");
                    q.tuple(&self.sparse, "'");
                    q.embed(ci, &|i| i);
                    q.embed(cj, &|i| if i < a { i + a + b } else { i });
                    q.push(Constraint::lt(&t(pos), &t(a + b + pos)));
                    outcome = outcome.and(self.empty(q));
                }
            }
            match outcome {
                Outcome::Proved => {}
                Outcome::Unknown => unknown = true,
                Outcome::Failed => failed.push(&self.sparse[pos]),
            }
        }
        let finding = if failed.is_empty() && !unknown {
            let mut msg = "distinct stored entries have distinct coordinates".to_string();
            if self.d.padding {
                msg.push_str(" (`padding` is declared, but no two entries share a coordinate)");
            }
            Finding::new(Severity::Ok, p, msg)
        } else if failed.is_empty() {
            self.undecided(p)
        } else if self.d.padding {
            Finding::new(
                Severity::Ok,
                p,
                format!(
                    "not injective, as `padding` allows: two stored entries may share a \
                     coordinate (differing in {}); conversions from this format must skip \
                     its stored zeros",
                    Self::quoted(&failed)
                ),
            )
        } else {
            let ufs = self.map_ufs();
            let arrays = if ufs.is_empty() {
                String::new()
            } else {
                format!(", the declarations of {}", ufs.join(", "))
            };
            Finding::new(
                Severity::Error,
                p,
                format!(
                    "two distinct stored entries may have the same coordinate (differing in {}): \
                     nothing in the map's constraints{arrays} or the rules rules it out. State \
                     that entries are unique with a rule whose conclusion equates the sparse \
                     points (as coo.desc does: `forall n1, n2 : 0 <= n1 < NNZ && 0 <= n2 < NNZ \
                     && row(n1) = row(n2) && col(n1) = col(n2) => n1 = n2`), order them \
                     strictly (as csr.desc's columns), or declare `padding`",
                    Self::quoted(&failed)
                ),
            )
        };
        vec![finding]
    }

    fn map_in_bounds(&self) -> Vec<Finding> {
        let p = Property::MapInBounds;
        let a = self.a;
        let mut out = Vec::new();
        let mut unknown = false;
        for dim in 0..self.b {
            let extent = Expr::sym(self.d.dense[dim].clone());
            let mut outcome = Outcome::Proved;
            for c in self.map_conjs() {
                for low in [true, false] {
                    let mut q = Query::default();
                    q.tuple(&self.sparse, "");
                    q.tuple(&self.dense, "");
                    q.embed(c, &|i| i);
                    q.push(if low {
                        Constraint::lt(&t(a + dim), &Expr::constant(0))
                    } else {
                        Constraint::le(&extent, &t(a + dim))
                    });
                    outcome = outcome.and(self.empty(q));
                }
            }
            match outcome {
                Outcome::Proved => {}
                Outcome::Unknown => unknown = true,
                Outcome::Failed => out.push(Finding::new(
                    Severity::Error,
                    p,
                    format!(
                        "coordinate `{}` may lie outside 0 .. {} - 1: bound it in the map or \
                         through the range of an index array",
                        self.dense[dim], self.d.dense[dim]
                    ),
                )),
            }
        }
        if out.is_empty() {
            out.push(if unknown {
                self.undecided(p)
            } else {
                Finding::new(
                    Severity::Ok,
                    p,
                    "every coordinate lies within the dense shape",
                )
            });
        }
        out
    }

    /// Whether every call in `lhs` (a conjunction over positions `0..n`
    /// whose existentials have been made tuple positions) has its arguments
    /// in its index array's domain. Returns the failing calls, printed.
    fn calls_within(
        &self,
        lhs: &Conjunction,
        names: &dyn Fn(Var) -> String,
    ) -> (Vec<String>, bool) {
        let mut calls: BTreeSet<(String, Vec<Expr>)> = BTreeSet::new();
        for k in lhs.constraints() {
            k.expr().for_each_call(&mut |f, args| {
                calls.insert((f.to_string(), args.to_vec()));
            });
        }
        let arity = lhs.arity();
        let lhs_set = Set::from_formula(Formula::from_conjunctions(arity, vec![lhs.clone()]));
        let mut failed = Vec::new();
        let mut unknown = false;
        for (f, args) in calls {
            let Some(decl) = self.d.uf(&f) else { continue };
            if decl.domain.arity() != args.len() {
                continue;
            }
            let conjs: Vec<Conjunction> = decl
                .domain
                .conjunctions()
                .iter()
                .filter_map(|dc| {
                    let parts = dc.constraints().map(|k| {
                        k.map_expr(|e| {
                            e.substitute(&mut |v| match v {
                                Var::Tuple(i) => args.get(i).cloned(),
                                Var::Exist(_) => None,
                            })
                        })
                    });
                    Conjunction::from_parts(lhs.tuple_names().to_vec(), Vec::new(), parts)
                })
                .collect();
            let rhs = Set::from_formula(Formula::from_conjunctions(arity, conjs));
            match self.prover.is_subset(&lhs_set, &rhs) {
                Ok(Verdict::Proved) => {}
                Ok(Verdict::Unknown) => unknown = true,
                Ok(Verdict::NotProved) | Err(_) => failed.push(format!(
                    "`{}` may be called outside its domain {}",
                    expr_with_names(&Expr::call(f.clone(), args.clone()), names),
                    decl.domain
                )),
            }
        }
        (failed, unknown)
    }

    fn calls_in_domain(&self) -> Vec<Finding> {
        let p = Property::CallsInDomain;
        let (a, b) = (self.a, self.b);
        let mut failed: Vec<String> = Vec::new();
        let mut unknown = false;
        // The map: [s, x, existentials].
        for c in self.map_conjs() {
            let Some((lhs, names)) = promote(c) else {
                continue;
            };
            let (f, u) = self.calls_within(&lhs, &|v| var_name(&names, v));
            failed.extend(f.into_iter().map(|m| format!("in the map, {m}")));
            unknown |= u;
        }
        // The data relation, on stored points: [s, x, k, existentials].
        for ci in self.map_conjs() {
            for dj in self.data_conjs() {
                if dj.uf_names().is_empty() {
                    continue;
                }
                let mut q = Query::default();
                q.tuple(&self.sparse, "");
                q.tuple(&self.dense, "");
                q.tuple(&self.slots, "");
                q.embed(ci, &|i| i);
                q.embed(dj, &|i| if i < a { i } else { i + b });
                let Some(set) = q.set() else { continue };
                for c in set.conjunctions() {
                    let Some((lhs, names)) = promote(c) else {
                        continue;
                    };
                    let (f, u) = self.calls_within(&lhs, &|v| var_name(&names, v));
                    failed.extend(f.into_iter().map(|m| format!("in the data relation, {m}")));
                    unknown |= u;
                }
            }
        }
        if !failed.is_empty() {
            failed
                .into_iter()
                .map(|m| Finding::new(Severity::Error, p, m))
                .collect()
        } else if unknown {
            vec![self.undecided(p)]
        } else {
            vec![Finding::new(
                Severity::Ok,
                p,
                "every call of an index array in the map and the data relation is within its domain",
            )]
        }
    }

    // ----------------------------------------------------- the data relation

    fn data_function(&self) -> Vec<Finding> {
        let p = Property::DataFunction;
        let (a, b, e) = (self.a, self.b, self.e);
        let mut out = Vec::new();
        let mut unknown = false;
        for slot in 0..e {
            let mut outcome = Outcome::Proved;
            for ci in self.map_conjs() {
                for dj in self.data_conjs() {
                    for dl in self.data_conjs() {
                        // [s, x, k, k']
                        let mut q = Query::default();
                        q.tuple(&self.sparse, "");
                        q.tuple(&self.dense, "");
                        q.tuple(&self.slots, "");
                        q.tuple(&self.slots, "'");
                        q.embed(ci, &|i| i);
                        q.embed(dj, &|i| if i < a { i } else { i + b });
                        q.embed(dl, &|i| if i < a { i } else { i + b + e });
                        q.push(Constraint::lt(&t(a + b + slot), &t(a + b + e + slot)));
                        outcome = outcome.and(self.empty(q));
                    }
                }
            }
            match outcome {
                Outcome::Proved => {}
                Outcome::Unknown => unknown = true,
                Outcome::Failed => out.push(Finding::new(
                    Severity::Error,
                    p,
                    format!(
                        "a stored entry may have two positions in `{}` that differ in `{}` \
                         (dimension {slot}): the data relation does not determine it",
                        self.d.data_name, self.slots[slot]
                    ),
                )),
            }
        }
        if out.is_empty() {
            out.push(if unknown {
                self.undecided(p)
            } else {
                Finding::new(
                    Severity::Ok,
                    p,
                    format!(
                        "every stored entry has one position in `{}`",
                        self.d.data_name
                    ),
                )
            });
        }
        out
    }

    fn data_total(&self) -> Vec<Finding> {
        let p = Property::DataTotal;
        let (a, b, e) = (self.a, self.b, self.e);
        // {[s, x] : exists k : data(s, k)}
        let rhs_conjs: Vec<Conjunction> = self
            .data_conjs()
            .iter()
            .filter_map(|dj| {
                let mut names = self.slots.clone();
                names.extend(dj.exist_names().iter().cloned());
                let parts = dj.embedded_constraints(
                    &|i| {
                        if i < a {
                            Var::Tuple(i)
                        } else {
                            Var::Exist(i - a)
                        }
                    },
                    e,
                );
                let mut tuple = self.sparse.clone();
                tuple.extend(self.dense.iter().cloned());
                Conjunction::from_parts(tuple, names, parts)
            })
            .collect();
        let rhs = Set::from_formula(Formula::from_conjunctions(a + b, rhs_conjs));
        let lhs = self.d.map.as_set();
        let finding = match self.prover.is_subset(&lhs, &rhs) {
            Ok(Verdict::Proved) => Finding::new(
                Severity::Ok,
                p,
                format!(
                    "every stored entry has a position in `{}`",
                    self.d.data_name
                ),
            ),
            Ok(Verdict::Unknown) => self.undecided(p),
            Ok(Verdict::NotProved) | Err(_) => Finding::new(
                Severity::Error,
                p,
                format!(
                    "some stored entries may have no position in `{}`: the data relation's \
                     constraints exclude points of the map's domain",
                    self.d.data_name
                ),
            ),
        };
        vec![finding]
    }

    fn data_injective(&self) -> Vec<Finding> {
        let p = Property::DataInjective;
        let (a, b, e) = (self.a, self.b, self.e);
        let mut failed: Vec<&String> = Vec::new();
        let mut unknown = false;
        for pos in 0..a {
            let mut outcome = Outcome::Proved;
            for ci in self.map_conjs() {
                for cl in self.map_conjs() {
                    for dj in self.data_conjs() {
                        for dm in self.data_conjs() {
                            // [s, x, k, s', x']: both at position k.
                            let second = a + b + e;
                            let mut q = Query::default();
                            q.tuple(&self.sparse, "");
                            q.tuple(&self.dense, "");
                            q.tuple(&self.slots, "");
                            q.tuple(&self.sparse, "'");
                            q.tuple(&self.dense, "'");
                            q.embed(ci, &|i| i);
                            q.embed(dj, &|i| if i < a { i } else { i + b });
                            q.embed(cl, &|i| i + second);
                            q.embed(dm, &|i| if i < a { i + second } else { i + b });
                            q.push(Constraint::lt(&t(pos), &t(second + pos)));
                            outcome = outcome.and(self.empty(q));
                        }
                    }
                }
            }
            match outcome {
                Outcome::Proved => {}
                Outcome::Unknown => unknown = true,
                Outcome::Failed => failed.push(&self.sparse[pos]),
            }
        }
        let finding = if !failed.is_empty() {
            Finding::new(
                Severity::Error,
                p,
                format!(
                    "two distinct stored entries (differing in {}) may share a position in `{}`",
                    Self::quoted(&failed),
                    self.d.data_name
                ),
            )
        } else if unknown {
            self.undecided(p)
        } else {
            Finding::new(
                Severity::Ok,
                p,
                format!(
                    "distinct stored entries have distinct positions in `{}`",
                    self.d.data_name
                ),
            )
        };
        vec![finding]
    }

    fn data_in_bounds(&self) -> Vec<Finding> {
        let p = Property::DataInBounds;
        let (a, b) = (self.a, self.b);
        let mut out = Vec::new();
        let mut unknown = false;
        for (slot, extent) in self.d.data_size.iter().enumerate() {
            let mut outcome = Outcome::Proved;
            for ci in self.map_conjs() {
                for dj in self.data_conjs() {
                    for low in [true, false] {
                        let mut q = Query::default();
                        q.tuple(&self.sparse, "");
                        q.tuple(&self.dense, "");
                        q.tuple(&self.slots, "");
                        q.embed(ci, &|i| i);
                        q.embed(dj, &|i| if i < a { i } else { i + b });
                        let k = t(a + b + slot);
                        q.push(if low {
                            Constraint::lt(&k, &Expr::constant(0))
                        } else {
                            Constraint::le(extent, &k)
                        });
                        outcome = outcome.and(self.empty(q));
                    }
                }
            }
            match outcome {
                Outcome::Proved => {}
                Outcome::Unknown => unknown = true,
                Outcome::Failed => out.push(Finding::new(
                    Severity::Error,
                    p,
                    format!(
                        "position `{}` in `{}` may lie outside 0 .. {extent} - 1",
                        self.slots[slot], self.d.data_name
                    ),
                )),
            }
        }
        if out.is_empty() {
            out.push(if unknown {
                self.undecided(p)
            } else {
                let size: Vec<String> = self.d.data_size.iter().map(|e| e.to_string()).collect();
                Finding::new(
                    Severity::Ok,
                    p,
                    format!(
                        "every position lies within `{}`'s size [{}]",
                        self.d.data_name,
                        size.join(", ")
                    ),
                )
            });
        }
        out
    }

    // ------------------------------------------------------------ syntactic

    fn solvable(&self, attempt_synthesis: bool) -> Vec<Finding> {
        let p = Property::Solvable;
        let mut used = BTreeSet::new();
        for c in self.map_conjs().iter().chain(self.data_conjs()) {
            used.extend(c.uf_names());
        }
        let missing: Vec<Finding> = self
            .d
            .ufs
            .iter()
            .filter(|u| !used.contains(&u.name))
            .map(|u| {
                Finding::new(
                    Severity::Error,
                    p,
                    format!(
                        "index array `{}` appears in neither the map nor the data relation, so \
                         nothing determines it when the format is a destination",
                        u.name
                    ),
                )
            })
            .collect();
        if !missing.is_empty() {
            return missing;
        }
        // Solvable for real: synthesize the conversion from unordered COO
        // of the same dense arity (every index array and size computed).
        let coo = crate::validate::coordinate_format(self.d.dense_arity());
        if !attempt_synthesis {
            return vec![Finding::new(
                Severity::Ok,
                p,
                "every index array appears in the map or the data relation (synthesis not \
                 attempted: the errors above come first)"
                    .to_string(),
            )];
        }
        let Some(coo) = coo else {
            return vec![Finding::new(
                Severity::Ok,
                p,
                format!(
                    "every index array appears in the map or the data relation (a {}-D format: \
                     no built-in COO to synthesize from)",
                    self.d.dense_arity()
                ),
            )];
        };
        match crate::synthesize::synthesize(&coo, self.d) {
            Ok(_) => {
                let names: Vec<String> =
                    self.d.ufs.iter().map(|u| format!("`{}`", u.name)).collect();
                let what = if names.is_empty() {
                    "the format has no index array; ".to_string()
                } else {
                    format!("{} ", names.join(", "))
                };
                vec![Finding::new(
                    Severity::Ok,
                    p,
                    format!("{what}synthesized from {}", coo.name),
                )]
            }
            Err(e) => vec![Finding::new(
                Severity::Error,
                p,
                format!("as a destination from {}: {e}", coo.name),
            )],
        }
    }

    fn comparators_used(&self) -> Vec<Finding> {
        let p = Property::ComparatorUsed;
        if self.d.comparators.is_empty() {
            return Vec::new();
        }
        let mut called = BTreeSet::new();
        for r in &self.d.rules {
            for k in r.premise.iter().chain(&r.conclusion) {
                k.expr().for_each_call(&mut |f, _| {
                    called.insert(f.to_string());
                });
            }
        }
        let unused: Vec<Finding> = self
            .d
            .comparators
            .iter()
            .filter(|c| !called.contains(&c.name))
            .map(|c| {
                Finding::new(
                    Severity::Warning,
                    p,
                    format!("comparator `{}` is not called by any rule", c.name),
                )
            })
            .collect();
        if !unused.is_empty() {
            return unused;
        }
        let names: Vec<String> = self
            .d
            .comparators
            .iter()
            .map(|c| format!("`{}`", c.name))
            .collect();
        vec![Finding::new(
            Severity::Ok,
            p,
            format!(
                "every comparator ({}) orders entries in a rule",
                names.join(", ")
            ),
        )]
    }
}

/// The conjunction with its existentials made tuple positions (after the
/// existing ones), and the names of all its positions; `None` when it is
/// trivially empty.
fn promote(c: &Conjunction) -> Option<(Conjunction, Vec<String>)> {
    let n = c.arity();
    let mut names: Vec<String> = c.tuple_names().to_vec();
    names.extend(c.exist_names().iter().cloned());
    let parts = c.embedded_constraints(&Var::Tuple, 0);
    let parts: Vec<Normalized> = parts
        .into_iter()
        .map(|k| match k {
            Normalized::Constraint(k) => k.map_expr(|e| {
                e.rename_vars(&mut |v| match v {
                    Var::Exist(j) => Var::Tuple(n + j),
                    v => v,
                })
            }),
            other => other,
        })
        .collect();
    let conj = Conjunction::from_parts(names.clone(), Vec::new(), parts)?;
    Some((conj, names))
}

fn var_name(names: &[String], v: Var) -> String {
    match v {
        Var::Tuple(i) => names.get(i).cloned().unwrap_or_else(|| format!("t{i}")),
        Var::Exist(j) => format!("e{j}"),
    }
}
