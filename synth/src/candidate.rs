//! Candidates for each unknown UF, solved from the closed constraint graph
//! and classified into the dissertation's five synthesis cases.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use iegen::constraint::Normalized;
use iegen::{Atom, Conjunction, Constraint, ConstraintKind, Expr, Monotonicity, Var};

use crate::constraint_graph::{ConstraintGraph, Contradiction, Derived};
use crate::conversion::Conversion;

/// The dissertation's synthesis cases (4.1.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SynthesisCase {
    /// `f(u) = e(u)`: an assignment over source entries.
    Assign,
    /// `f(..) <= e`: `f(..) min= e`.
    Min,
    /// `f(..) >= e`: `f(..) max= e`.
    Max,
    /// `f(v) = e(u)` with `v` a destination position a permutation of the
    /// source entries gives: `f(P(u)) = e(u)` once the permutation is known.
    InsertFromInput,
    /// `f(v) = e(u)` with `f` ordered (strictly monotone): `e(u)` is inserted
    /// into an ordered set of distinct values, and `v` is looked up.
    InsertOrdered,
    /// `f(a) >= f(a - 1) + e(u)` with `f` nondecreasing: a profile, as a
    /// skyline's row pointers (`sky(ii + 1) >= sky(ii) + ii - jj + 1`).
    /// Beyond the dissertation's five: each increment is the largest `e`
    /// over the entries at `a` (0 where there is none), and `f` their
    /// prefix sums, the least solution.
    Profile,
}

impl SynthesisCase {
    /// The dissertation's case number.
    pub fn number(self) -> u8 {
        match self {
            SynthesisCase::Assign => 1,
            SynthesisCase::Min => 2,
            SynthesisCase::Max => 3,
            SynthesisCase::InsertFromInput => 4,
            SynthesisCase::InsertOrdered => 5,
            SynthesisCase::Profile => 6,
        }
    }
}

/// How a candidate relates the unknown to its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Relation {
    /// `f(args) = value`
    Eq,
    /// `f(args) <= value`
    Le,
    /// `f(args) >= value`
    Ge,
}

/// One way to compute (part of) an unknown UF or symbol.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Candidate {
    /// The unknown UF (or symbol, with no arguments).
    pub unknown: String,
    /// Its arguments, over the composed relation's variables.
    pub args: Vec<Expr>,
    /// `=`, `<=` or `>=`.
    pub relation: Relation,
    /// The value, over the composed relation's variables.
    pub value: Expr,
    /// The case; `None` when it fits none (it is not a candidate for a statement).
    pub case: Option<SynthesisCase>,
    /// Destination positions the candidate needs a permutation for.
    pub needs_positions: BTreeSet<usize>,
    /// Other unknowns it reads.
    pub reads_unknowns: BTreeSet<String>,
}

/// Every candidate, by unknown.
#[derive(Clone, Debug, Default)]
pub struct Candidates {
    /// Candidates of each unknown UF and symbol, in a canonical order.
    pub by_unknown: BTreeMap<String, Vec<Candidate>>,
    /// The facts the graph was built from (the composed relation with the
    /// destination's domain, range and data facts).
    pub facts: Option<Conjunction>,
}

/// Names for the composed relation's tuple (inputs, then outputs), primed
/// apart where the two formats use the same name.
pub fn display_names(conv: &Conversion) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in conv.conjunction().tuple_names() {
        let mut name = n.clone();
        while out.contains(&name) {
            name.push('\'');
        }
        out.push(name);
    }
    out
}

/// Collects and classifies the candidates of every unknown of `conv`.
pub fn candidates(conv: &Conversion) -> Result<Candidates, Contradiction> {
    let facts = augmented_facts(conv).ok_or(Contradiction)?;
    let graph = ConstraintGraph::from_conjunction(&facts);
    let closed = graph.closure()?;
    let n_in = conv.src.sparse_arity();
    let unknowns: BTreeSet<String> = conv
        .unknown_ufs
        .iter()
        .chain(&conv.unknown_symbols)
        .cloned()
        .collect();
    let mut out = Candidates {
        by_unknown: BTreeMap::new(),
        facts: Some(facts.clone()),
    };
    for unknown in &unknowns {
        let mut list: BTreeSet<Candidate> = BTreeSet::new();
        for d in &closed {
            for mut c in solve_for(d, unknown) {
                // A position an equality defines through the arrays is
                // its definition (a skyline's `k`).
                c.args = c.args.iter().map(|a| conv.substitute_defined(a)).collect();
                c.value = conv.substitute_defined(&c.value);
                let c = classify(c, conv, n_in, &unknowns);
                // A min or max over a bound that holds only through a
                // constant defines nothing the constant does not.
                let extremum = matches!(c.case, Some(SynthesisCase::Min | SynthesisCase::Max));
                if !(d.via_constant && extremum) {
                    list.insert(c);
                }
            }
        }
        let list: Vec<Candidate> = list.into_iter().collect();
        let kept = list
            .iter()
            .filter(|c| !list.iter().any(|d| dominates(d, c, conv, n_in)))
            .cloned()
            .collect();
        out.by_unknown.insert(unknown.clone(), kept);
    }
    Ok(out)
}

/// Whether the `max=` candidate `d` makes `c` redundant and never less
/// tight: same target, and `d`'s value is `c`'s plus positions the map
/// bounds below by 0 (JAD's `NNZ_out >= r + jd(d) + 1` over `NNZ_out >=
/// jd(d) + 1`, `0 <= r`). The maximum over the entries of `c`'s value may
/// fall short of the unknown (`jd(d) + 1` of the last diagonal is not the
/// number of entries), where `d`'s attains it; choosing both is choosing
/// `d`.
fn dominates(d: &Candidate, c: &Candidate, conv: &Conversion, n_in: usize) -> bool {
    if !matches!(d.case, Some(SynthesisCase::Max | SynthesisCase::Profile))
        || c.case != d.case
        || c.args != d.args
        || c == d
    {
        return false;
    }
    let diff = d.value.minus(&c.value);
    if diff.constant_term() != 0 || diff.num_terms() == 0 {
        return false;
    }
    let bounded = diff.terms().all(|(atom, coef)| match atom {
        Atom::Var(Var::Tuple(p)) if *p >= n_in && coef > 0 => conv
            .conjunction()
            .constraints()
            .any(|k| !k.is_eq() && k.expr() == &Expr::var(Var::Tuple(*p))),
        _ => false,
    });
    bounded
}

/// The composed relation's conjunction with the destination's resolved
/// positions substituted, and the facts a valid destination satisfies
/// added: each destination index array's domain and range at the calls that
/// occur, and the value index inside `0 .. data_size`.
pub fn augmented_facts(conv: &Conversion) -> Option<Conjunction> {
    let base = conv.conjunction();
    let n_in = conv.src.sparse_arity();
    let mut c = base.clone();
    for (q, value) in conv.resolved.iter().enumerate() {
        if let Some(v) = value {
            let var = Var::Tuple(n_in + q);
            // Keep the defining equality, rewrite every other use.
            let defining: Vec<Constraint> = c
                .constraints()
                .filter(|k| {
                    k.is_eq() && k.mentions(var) && {
                        let mut e = k.expr().clone();
                        e.add_term(Atom::Var(var), -k.expr().coefficient_of_var(var));
                        e.scale(-k.expr().coefficient_of_var(var)) == *v
                    }
                })
                .cloned()
                .collect();
            for k in &defining {
                c.remove(k);
            }
            c.substitute(var, v).ok()?;
        }
    }
    // Domain and range facts of the destination's index arrays.
    let mut calls: Vec<(String, Vec<Expr>)> = Vec::new();
    for k in c.constraints() {
        k.expr().for_each_call(&mut |name, args| {
            if conv.unknown_ufs.iter().any(|u| u == name) {
                calls.push((name.to_string(), args.to_vec()));
            }
        });
    }
    calls.sort();
    calls.dedup();
    let mut extra: Vec<Normalized> = Vec::new();
    for (name, args) in &calls {
        let Some(decl) = conv.dst.uf(name) else {
            continue;
        };
        if let [dom] = decl.domain.conjunctions() {
            for k in dom.constraints() {
                extra.push(k.map_expr(|e| {
                    e.substitute(&mut |v| match v {
                        Var::Tuple(i) => args.get(i).cloned(),
                        Var::Exist(_) => None,
                    })
                }));
            }
        }
        let value = Expr::call(name.clone(), args.clone());
        if let [rng] = decl.range.conjunctions() {
            for k in rng.constraints() {
                extra.push(k.map_expr(|e| {
                    e.substitute(&mut |v| match v {
                        Var::Tuple(0) => Some(value.clone()),
                        _ => None,
                    })
                }));
            }
        }
    }
    // Each value index of a destination entry lies inside its extent.
    if let [dc] = conv.dst.data.conjunctions() {
        let n_sparse = conv.dst.sparse_arity();
        for (d, extent) in conv.dst.data_size.iter().enumerate() {
            let index_pos = Var::Tuple(n_sparse + d);
            let Some(index) = dc.constraints().find_map(|k| {
                let coef = k.expr().coefficient_of_var(index_pos);
                (k.is_eq() && coef.abs() == 1).then(|| {
                    let mut rest = k.expr().clone();
                    rest.add_term(Atom::Var(index_pos), -coef);
                    rest.scale(-coef)
                })
            }) else {
                continue;
            };
            // Rewrite the destination tuple into the composed layout.
            let index = index.rename_vars(&mut |v| match v {
                Var::Tuple(p) => Var::Tuple(n_in + p),
                v => v,
            });
            let index = index.substitute(&mut |v| match v {
                Var::Tuple(p) if p >= n_in => conv.resolved[p - n_in].clone(),
                _ => None,
            });
            extra.push(Constraint::le(&Expr::constant(0), &index));
            extra.push(Constraint::lt(&index, extent));
        }
    }
    for n in extra {
        c.add(n).ok()?;
    }
    Some(c)
}

/// Every way `d` gives the unknown `name` (a UF called at the top level of
/// one side with a unit coefficient, or a symbol).
fn solve_for(d: &Derived, name: &str) -> Vec<Candidate> {
    let mut out = Vec::new();
    // d: lhs - rhs (<= | =) offset
    for (side, sign) in [(&d.lhs, 1i64), (&d.rhs, -1i64)] {
        for (atom, coef) in side.terms() {
            let (is_target, args) = match atom {
                Atom::Uf(n, args) if n == name => (true, args.clone()),
                Atom::Sym(s) if s == name => (true, Vec::new()),
                _ => (false, Vec::new()),
            };
            if !is_target || coef.abs() != 1 {
                continue;
            }
            // difference = lhs - rhs - offset = s*coef*F + rest  (op 0)
            let diff = d.difference();
            // The coefficient in the difference: a call on both sides
            // (`sky(ii + 1)` in two definitions of one position) cancels.
            let k = diff.coefficient(atom);
            if k != sign * coef {
                continue;
            }
            let mut rest = diff.clone();
            rest.add_term(atom.clone(), -diff.coefficient(atom));
            if rest.mentions_atom(atom) {
                continue; // F inside its own value (e.g. nested in a call)
            }
            // k*F + rest (op) 0  =>  F (op') -rest/k
            let value = rest.scale(-k);
            let relation = match (d.kind, k > 0) {
                (ConstraintKind::Eq, _) => Relation::Eq,
                // k*F + rest <= 0
                (ConstraintKind::Geq, true) => Relation::Le,
                (ConstraintKind::Geq, false) => Relation::Ge,
            };
            out.push(Candidate {
                unknown: name.to_string(),
                args,
                relation,
                value,
                case: None,
                needs_positions: BTreeSet::new(),
                reads_unknowns: BTreeSet::new(),
            });
        }
    }
    out
}

/// Fills in a candidate's case, positions and dependencies.
fn classify(
    mut c: Candidate,
    conv: &Conversion,
    n_in: usize,
    unknowns: &BTreeSet<String>,
) -> Candidate {
    let positions = |e: &Expr| {
        let mut ps = BTreeSet::new();
        e.for_each_var(&mut |v| {
            if let Var::Tuple(p) = v {
                if p >= n_in {
                    ps.insert(p - n_in);
                }
            }
        });
        ps
    };
    let args_positions: BTreeSet<usize> = c.args.iter().flat_map(positions).collect();
    let value_positions = positions(&c.value);
    let mut reads = BTreeSet::new();
    for e in c.args.iter().chain(std::iter::once(&c.value)) {
        e.for_each_call(&mut |n, _| {
            if unknowns.contains(n) && n != c.unknown {
                reads.insert(n.to_string());
            }
        });
        e.for_each_sym(&mut |s| {
            if unknowns.contains(s) && s != c.unknown {
                reads.insert(s.to_string());
            }
        });
    }
    let ordered = conv
        .dst
        .uf(&c.unknown)
        .is_some_and(|u| u.monotonicity.contains(&Monotonicity::Increasing))
        || conv.dst.rules.iter().any(|r| rule_orders(r, &c.unknown))
        || distinct_values(&conv.dst, &c.unknown);
    let mut self_reference = false;
    c.value
        .for_each_call(&mut |n, _| self_reference |= n == c.unknown);
    c.value
        .for_each_sym(&mut |n| self_reference |= n == c.unknown);
    c.case = match c.relation {
        _ if self_reference => profile_increment(&c, conv, n_in, unknowns)
            .is_some()
            .then_some(SynthesisCase::Profile),
        Relation::Eq if args_positions.is_empty() && value_positions.is_empty() => {
            Some(SynthesisCase::Assign)
        }
        Relation::Eq if !args_positions.is_empty() && value_positions.is_empty() => {
            if ordered && !c.args.is_empty() {
                Some(SynthesisCase::InsertOrdered)
            } else {
                Some(SynthesisCase::InsertFromInput)
            }
        }
        Relation::Le => Some(SynthesisCase::Min),
        Relation::Ge => Some(SynthesisCase::Max),
        Relation::Eq => None,
    };
    c.needs_positions = args_positions.union(&value_positions).copied().collect();
    c.reads_unknowns = reads;
    c
}

/// The increment `e` of a profile candidate `f(a) >= f(a - 1) + e` (see
/// [`SynthesisCase::Profile`]): `f` nondecreasing with one argument, `e`
/// over the source point alone (no position, no unknown), where `f`
/// defines a destination position ([`Conversion::defined`]).
pub fn profile_increment(
    c: &Candidate,
    conv: &Conversion,
    n_in: usize,
    unknowns: &BTreeSet<String>,
) -> Option<Expr> {
    let decl = conv.dst.uf(&c.unknown)?;
    let [a] = c.args.as_slice() else {
        return None;
    };
    if c.relation != Relation::Ge || !decl.monotonicity.contains(&Monotonicity::Nondecreasing) {
        return None;
    }
    // Only where the array defines a position (a skyline's `k` from
    // `sky`): then its bounds are all the positions need. Where a
    // permutation gives the positions (CSR's `k`), `rowptr(ii + 1) >=
    // rowptr(ii) + 1` is a true bound but far from the row's length.
    let mut defines = false;
    for d in conv.defined.iter().flatten() {
        d.for_each_call(&mut |name, _| defines |= name == c.unknown);
    }
    if !defines {
        return None;
    }
    let previous = Atom::Uf(c.unknown.clone(), vec![a.plus(&Expr::constant(-1))]);
    if c.value.coefficient(&previous) != 1 {
        return None;
    }
    let mut rest = c.value.clone();
    rest.add_term(previous, -1);
    // Over the source point, and positions that are ranked rather than
    // defined (JAD's `jd(d + 1) >= jd(d) + r + 1`, `k = r + jd(d)`).
    let names: BTreeSet<&str> = unknowns.iter().map(String::as_str).collect();
    let known = |e: &Expr| {
        let ranked = e.substitute(&mut |v| match v {
            Var::Tuple(p)
                if p >= n_in && conv.defined.get(p - n_in).is_some_and(Option::is_none) =>
            {
                Some(Expr::constant(0))
            }
            _ => None,
        });
        crate::conversion::known_over_inputs(&ranked, n_in, &names)
    };
    (known(a) && known(&rest)).then_some(rest)
}

/// Whether a rule orders `name`'s own values strictly by its argument
/// (`e1 < e2 => f(e1) < f(e2)`): the conclusion compares exactly two calls
/// of `name` at the top level. A reordering rule that compares keys built
/// from several arrays (`MORTON(row(n1), col(n1)) < ...`) orders the tensor,
/// not one array's values. The order must be strict (`<`: distinct values,
/// as an ordered set holds) and unconditional: a premise that also compares
/// index arrays (SCOO's `row(n1) = row(n2) => col(n1) < col(n2)`) orders
/// the values only within groups.
/// Whether the unary index array `name` of `d` holds distinct values:
/// declared `increasing`, or a rule `forall a, b : f(a) = f(b) && ... => a
/// = b` with no other call (an unordered DIA's offsets). An ordered set
/// fills it then: in increasing order, which such a rule allows too.
pub fn distinct_values(d: &crate::Descriptor, name: &str) -> bool {
    let Some(decl) = d.uf(name) else {
        return false;
    };
    if decl.monotonicity.contains(&Monotonicity::Increasing) {
        return true;
    }
    let (a, b) = (Atom::Var(Var::Tuple(0)), Atom::Var(Var::Tuple(1)));
    let is_pair = |e: &Expr, x: &Atom, y: &Atom| {
        let terms: Vec<(&Atom, i64)> = e.terms().collect();
        e.constant_term() == 0
            && matches!(terms.as_slice(), [(p, c), (q, k)] if c + k == 0 && c.abs() == 1
                && ((*p == x && *q == y) || (*p == y && *q == x)))
    };
    let call = |v: &Atom| Atom::Uf(name.to_string(), vec![Expr::atom(v.clone())]);
    d.rules.iter().any(|r| {
        let mut calls = 0;
        for k in &r.premise {
            k.expr().for_each_call(&mut |_, _| calls += 1);
        }
        r.vars.len() == 2
            && calls == 2
            && r.premise
                .iter()
                .any(|k| k.is_eq() && is_pair(k.expr(), &call(&a), &call(&b)))
            && matches!(r.conclusion.as_slice(), [k] if k.is_eq() && is_pair(k.expr(), &a, &b))
    })
}

fn rule_orders(r: &iegen::UfRule, name: &str) -> bool {
    let mut conditional = false;
    for k in &r.premise {
        k.expr().for_each_call(&mut |_, _| conditional = true);
    }
    r.vars.len() == 2
        && !conditional
        && r.conclusion.iter().any(|k| {
            let atoms: Vec<(&Atom, i64)> = k.expr().terms().collect();
            !k.is_eq()
                && k.expr().constant_term() == -1
                && atoms.len() == 2
                && atoms
                    .iter()
                    .all(|(a, c)| c.abs() == 1 && matches!(a, Atom::Uf(n, _) if n == name))
        })
}

trait MentionsAtom {
    fn mentions_atom(&self, a: &Atom) -> bool;
}

impl MentionsAtom for Expr {
    fn mentions_atom(&self, a: &Atom) -> bool {
        self.terms().any(|(x, _)| {
            x == a
                || match x {
                    Atom::Uf(_, args) => args.iter().any(|e| e.mentions_atom(a)),
                    _ => false,
                }
        })
    }
}

impl Candidate {
    /// The candidate as text, with the composed relation's variable names
    /// (`names`: input tuple, then output tuple).
    pub fn describe(&self, names: &[String]) -> String {
        let name = |v: Var| match v {
            Var::Tuple(p) => names.get(p).cloned().unwrap_or_else(|| v.to_string()),
            Var::Exist(_) => v.to_string(),
        };
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| iegen::print::expr_with_names(a, &name))
            .collect();
        let lhs = if args.is_empty() {
            self.unknown.clone()
        } else {
            format!("{}({})", self.unknown, args.join(", "))
        };
        let value = iegen::print::expr_with_names(&self.value, &name);
        format!("{lhs} {} {value}", self.relation_symbol())
    }

    fn relation_symbol(&self) -> &'static str {
        match self.relation {
            Relation::Eq => "=",
            Relation::Le => "<=",
            Relation::Ge => ">=",
        }
    }
}

impl fmt::Display for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let args: Vec<String> = self.args.iter().map(ToString::to_string).collect();
        let lhs = if args.is_empty() {
            self.unknown.clone()
        } else {
            format!("{}({})", self.unknown, args.join(", "))
        };
        let op = match self.relation {
            Relation::Eq => "=",
            Relation::Le => "<=",
            Relation::Ge => ">=",
        };
        let case = match self.case {
            Some(c) => format!("case {}", c.number()),
            None => "no case".into(),
        };
        write!(f, "{lhs} {op} {}  [{case}]", self.value)
    }
}
