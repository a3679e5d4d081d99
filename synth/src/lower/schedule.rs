//! From pending statements to the computation's statements: one top-level
//! loop per (phase, context), statements in a loop in creation order (the
//! read-reduction and producer–consumer fusion of the module doc), each
//! given a name, a domain and a 2d+1 schedule; a scatter's sort that no
//! statement needs is dropped.

use iegen::computation::{schedule_relation, Body, ScheduleDim, Stmt};
use iegen::{Conjunction, Constraint, Formula, Set, Var};

use super::contexts::Ctx;
use super::refusal::Refusal;
use super::scalars::reuse_scalars;
use super::{phase, Lowering, Pending};

impl Lowering<'_> {
    /// Names, domains and schedules: one top-level loop per (phase,
    /// context), statements in a loop in creation order.
    pub(super) fn finish(&mut self) -> Result<(), Refusal> {
        if self
            .pending
            .iter()
            .any(|p| p.ctx == Ctx::Placed && p.phase != phase::ARRAYS)
        {
            return Err("a statement over placed entries outside the placing pass".into());
        }
        let mut pending = std::mem::take(&mut self.pending);
        self.drop_unused_scatter_sorts(&mut pending);
        pending.sort_by_key(|p| p.phase);
        let mut groups: Vec<(u32, Ctx, Vec<Pending>)> = Vec::new();
        for p in pending {
            match groups.last_mut() {
                Some((ph, ctx, v)) if *ph == p.phase && *ctx == p.ctx && p.ctx != Ctx::Once => {
                    v.push(p)
                }
                _ => {
                    if let Some(g) = groups
                        .iter_mut()
                        .find(|(ph, ctx, _)| *ph == p.phase && *ctx == p.ctx && p.ctx != Ctx::Once)
                    {
                        g.2.push(p);
                    } else {
                        groups.push((p.phase, p.ctx.clone(), vec![p]));
                    }
                }
            }
        }
        // Within a phase, `Once` statements (sorts, sizes) keep their order
        // and loops follow in context order.
        groups.sort_by_key(|(ph, ctx, _)| (*ph, ctx.clone()));
        let mut n = 0;
        for (c, (_, ctx, mut stmts)) in groups.into_iter().enumerate() {
            if ctx != Ctx::Once {
                reuse_scalars(&mut stmts);
            }
            let (mut domain, mut iters) = self.domain_of(&ctx)?;
            if matches!(ctx, Ctx::Source | Ctx::Placed) {
                if let Some((flat, v)) = self.flat_source(&stmts) {
                    domain = flat;
                    iters.remove(v);
                    let mut down = |x: Var| match x {
                        Var::Tuple(t) if t > v => Var::Tuple(t - 1),
                        other => other,
                    };
                    for p in &mut stmts {
                        p.body = p.body.map_exprs(&mut |e| e.rename_vars(&mut down));
                    }
                }
            }
            for (idx, p) in stmts.into_iter().enumerate() {
                let mut domain = domain.clone();
                if !p.guard.is_empty() {
                    let conj = Conjunction::from_parts(
                        Vec::new(),
                        Vec::new(),
                        p.guard.iter().map(|g| Constraint::geq(g.clone())),
                    )
                    .ok_or("a statement's guard is never true")?;
                    domain = Set::from_formula(Formula::from_conjunctions(0, vec![conj]));
                }
                let mut dims = vec![ScheduleDim::Const(c as i64)];
                for i in 0..iters.len() {
                    dims.push(ScheduleDim::Iter(i));
                    dims.push(ScheduleDim::Const(if i + 1 == iters.len() {
                        idx as i64
                    } else {
                        0
                    }));
                }
                let schedule = schedule_relation(&domain, &iters, &dims);
                self.comp.stmts.push(Stmt {
                    name: format!("S{n}"),
                    body: p.body,
                    domain,
                    schedule,
                });
                n += 1;
            }
        }
        Ok(())
    }

    /// Drops `B.sort()` of a scatter whose prefix sums nothing reads (no
    /// `start`, no `place`/`place_inserted`): `count`, `slot` and `size` do
    /// without them (CSC -> ELL).
    fn drop_unused_scatter_sorts(&self, pending: &mut Vec<Pending>) {
        for o in self.comp.objects.iter().filter(|o| o.kind == "Scatter") {
            let mut needs_sums = false;
            for p in pending.iter() {
                p.body.for_each_call(&mut |object, method| {
                    needs_sums |=
                        object == o.name && matches!(method, "start" | "place" | "place_inserted");
                });
            }
            if !needs_sums {
                pending.retain(|p| {
                    !matches!(&p.body, Body::Call { object, method, .. }
                        if *object == o.name && method == "sort")
                });
            }
        }
    }
}
