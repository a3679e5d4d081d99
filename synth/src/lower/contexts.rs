//! Where a statement iterates: the contexts of the module doc ([`Ctx`]),
//! which one a statement's expressions need, and each context's domain
//! (a pass over a compressed source flattened by [`crate::flatten`] when
//! no statement reads the outer variable).

use std::collections::BTreeSet;

use iegen::{Conjunction, Constraint, Expr, Formula, Monotonicity, Set, Var};

use super::ranks::PermMode;
use super::refusal::Refusal;
use super::{Lowering, Pending};

/// Where a statement iterates.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Ctx {
    /// No loop.
    Once,
    /// The source's sparse iteration space.
    Source,
    /// The permutation's positions.
    Sorted,
    /// A second pass over the source, each entry placed by a scatter.
    Placed,
    /// The groups `0 <= g < E` of a scatter's key (`E` over the source's
    /// symbols).
    Groups(Expr),
    /// The distinct values of the ordered set of a destination position.
    Set(usize),
    /// The fix-up domain of a monotone index array.
    Fixup(String),
    /// Every index of a destination index array (its initialization).
    Whole(String),
}

impl Lowering<'_> {
    /// The context a candidate's statement runs in. One that reads no
    /// tuple variable (a destination symbol defined by the source's, a 2:4
    /// format's `NB = floor((NC + 3) / 4)`) runs once, also when there are
    /// no entries.
    pub(super) fn context_of(&self, exprs: &[&Expr]) -> Ctx {
        let mut uses_perm = false;
        let mut only_set = None;
        let mut other = false;
        let mut any = false;
        for e in exprs {
            e.for_each_var(&mut |_| any = true);
            e.for_each_call(&mut |_, _| any = true);
        }
        if !any {
            return Ctx::Once;
        }
        // A position defined over others (JAD's `k = r + jd(d)`) is where
        // they are.
        let exprs: Vec<Expr> = exprs
            .iter()
            .map(|e| self.conv.substitute_defined(e))
            .collect();
        for e in &exprs {
            e.for_each_var(&mut |v| match v {
                Var::Tuple(t) if t >= self.n_in => {
                    let q = t - self.n_in;
                    if self.perm.as_ref().is_some_and(|p| p.position == q)
                        || self.prefix_ranks.contains_key(&q)
                    {
                        uses_perm = true;
                    } else if self.sets.contains_key(&q) {
                        only_set = Some(q);
                    } else {
                        other = true;
                    }
                }
                _ => other = true,
            });
        }
        let direct = self
            .perm
            .as_ref()
            .is_some_and(|p| matches!(p.mode, PermMode::Direct { .. } | PermMode::Offset { .. }));
        let streaming = self
            .perm
            .as_ref()
            .is_some_and(|p| matches!(p.mode, PermMode::Streaming { .. }));
        if uses_perm && streaming {
            Ctx::Placed
        } else if uses_perm && !direct {
            Ctx::Sorted
        } else if let (Some(q), false, false) = (only_set, other, uses_perm) {
            Ctx::Set(q)
        } else {
            Ctx::Source
        }
    }

    pub(super) fn domain_of(&self, ctx: &Ctx) -> Result<(Set, Vec<String>), Refusal> {
        let range_to = |name: &str, size: Expr| {
            let v = Expr::var(Var::Tuple(0));
            let conj = Conjunction::from_parts(
                vec![name.to_string()],
                Vec::new(),
                [Constraint::geq(v.clone()), Constraint::lt(&v, &size)],
            )
            .expect("a range is satisfiable");
            (
                Set::from_formula(Formula::from_conjunctions(1, vec![conj])),
                vec![name.to_string()],
            )
        };
        let range = |name: &str, size: &str| range_to(name, Expr::sym(size));
        Ok(match ctx {
            Ctx::Once => (
                Set::from_formula(Formula::from_conjunctions(
                    0,
                    vec![Conjunction::from_parts(Vec::new(), Vec::new(), []).expect("true")],
                )),
                Vec::new(),
            ),
            Ctx::Source | Ctx::Placed => (self.source_domain.clone(), self.src_tuple.clone()),
            Ctx::Sorted => {
                let perm = self
                    .perm
                    .as_ref()
                    .expect("a sorted context has a permutation");
                range(&self.sorted_iter, &perm.size)
            }
            Ctx::Set(q) => range(&self.sets[q].iterator, &self.sets[q].size),
            Ctx::Groups(extent) => range_to(&self.group_iter, extent.clone()),
            Ctx::Whole(f) => {
                let decl = self.conv.dst.uf(f).ok_or("no such array")?;
                let [conj] = decl.domain.conjunctions() else {
                    return Err(format!("`{f}`'s domain is not one conjunction").into());
                };
                let first = self.fixup_iterator(f);
                let names: Vec<String> = (0..conj.arity())
                    .map(|k| {
                        if k == 0 {
                            first.clone()
                        } else {
                            format!("{first}{k}")
                        }
                    })
                    .collect();
                let mut conj = conj.clone();
                conj.set_tuple_names(names.clone());
                (
                    Set::from_formula(Formula::from_conjunctions(names.len(), vec![conj])),
                    names,
                )
            }
            Ctx::Fixup(f) => {
                let decl = self.conv.dst.uf(f).ok_or("no such array")?;
                let dom = &decl.domain.conjunctions()[0];
                let x = Var::Tuple(0);
                let shifted = Expr::var(x).plus(&Expr::constant(1));
                let mut cs: Vec<_> = dom
                    .constraints()
                    .cloned()
                    .map(iegen::constraint::Normalized::Constraint)
                    .collect();
                cs.extend(dom.constraints().map(|c| c.substitute_var(x, &shifted)));
                let name = self.fixup_iterator(f);
                let conj = Conjunction::from_parts(vec![name.clone()], Vec::new(), cs)
                    .ok_or("the fix-up domain is empty")?;
                (
                    Set::from_formula(Formula::from_conjunctions(1, vec![conj])),
                    vec![name],
                )
            }
        })
    }

    /// The iterator of a loop over index array `f`'s indices: `i`, or
    /// `f_i` where `i` is taken.
    fn fixup_iterator(&self, f: &str) -> String {
        if self.taken.contains("i") {
            format!("{f}_i")
        } else {
            "i".to_string()
        }
    }

    /// The source's iteration space without a compressed loop's outer
    /// variable that none of `stmts` uses ([`crate::flatten`]): a counting
    /// pass over CSR's columns becomes one flat loop over the entries. The
    /// domain and the dropped variable.
    pub(super) fn flat_source(&self, stmts: &[Pending]) -> Option<(Set, usize)> {
        let mut used = BTreeSet::new();
        for p in stmts {
            p.body.for_each_expr(&mut |e| {
                e.for_each_var(&mut |x| {
                    used.insert(x);
                })
            });
        }
        if used
            .iter()
            .any(|x| matches!(x, Var::Tuple(t) if *t >= self.n_in))
        {
            return None;
        }
        let nondecreasing = |f: &str| {
            self.conv.src.ufs.iter().any(|d| {
                d.name == f
                    && d.monotonicity.iter().any(|m| {
                        matches!(m, Monotonicity::Nondecreasing | Monotonicity::Increasing)
                    })
            })
        };
        (0..self.n_in)
            .filter(|&v| !used.contains(&Var::Tuple(v)))
            .find_map(|v| {
                crate::flatten::without_outer_variable(&self.source_domain, v, &nondecreasing)
                    .map(|flat| (flat, v))
            })
    }
}
