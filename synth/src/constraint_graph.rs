//! The constraint graph of a composed relation and its closure
//! (dissertation Algorithm 1).
//!
//! Vertices are terms (affine expressions without a constant: a variable, a
//! UF call, or a compound such as `ii + off(d)`), plus the zero term. An edge
//! `u → v` with weight `c` states `u - v <= c`; an equality is a pair of
//! opposite edges. Every constraint with a unit coefficient on some atom
//! contributes an edge between that atom and the rest of the constraint.
//! Closure is Floyd–Warshall over these difference bounds: it derives the
//! tightest `u - v <= c` between every pair of terms, which subsumes the
//! dissertation's strength order (`=` where the bounds meet, `<` where the
//! bound is negative, `<=` otherwise), and it always terminates.

use std::collections::HashMap;

use iegen::{Atom, Conjunction, ConstraintKind, Expr};
use petgraph::graph::{DiGraph, NodeIndex};

/// The constraints of one conjunction as a graph of difference bounds.
#[derive(Clone, Debug, Default)]
pub struct ConstraintGraph {
    graph: DiGraph<Expr, i64>,
    index: HashMap<Expr, NodeIndex>,
}

/// The constraints are contradictory (a negative cycle).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the constraints are contradictory")]
pub struct Contradiction;

/// A derived relation between two terms: `lhs <= rhs + offset`, or
/// `lhs = rhs + offset` when both directions meet.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Derived {
    /// The left term.
    pub lhs: Expr,
    /// `=` (`Eq`) or `<=` (`Geq` read as `rhs + offset - lhs >= 0`).
    pub kind: ConstraintKind,
    /// The right term.
    pub rhs: Expr,
    /// The constant on the right.
    pub offset: i64,
    /// Whether the bound holds only through a constant: every tightest
    /// path passes the node `0`, so `lhs <= c1` and `c2 <= rhs` give it
    /// (BCSR → DCSR's `r - 1 <= rp(p)`, from `r <= 1` and `0 <= rp(p)`). As
    /// a definition (a max or min over entries) it says no more than the
    /// constant bound itself.
    pub via_constant: bool,
}

impl ConstraintGraph {
    /// The graph of `c`'s constraints.
    pub fn from_conjunction(c: &Conjunction) -> Self {
        let mut g = ConstraintGraph::default();
        g.vertex(&Expr::constant(0));
        for k in c.constraints() {
            let e = k.expr();
            let c0 = e.constant_term();
            for (atom, coef) in e.terms() {
                if coef.abs() != 1 {
                    continue;
                }
                // e = coef*a + r + c0, with r the other atoms.
                let a = Expr::atom(atom.clone());
                let mut r = e.clone();
                r.add_term(atom.clone(), -coef);
                r.add_constant(-c0);
                match (k.kind(), coef) {
                    // a + r + c0 >= 0  =>  (-r) - a <= c0
                    (ConstraintKind::Geq, 1) => g.bound(&r.negate(), &a, c0),
                    // -a + r + c0 >= 0  =>  a - r <= c0
                    (ConstraintKind::Geq, _) => g.bound(&a, &r, c0),
                    // a + r + c0 = 0  =>  a - (-r) = -c0
                    (ConstraintKind::Eq, 1) => {
                        g.bound(&a, &r.negate(), -c0);
                        g.bound(&r.negate(), &a, c0);
                    }
                    // -a + r + c0 = 0  =>  a - r = c0
                    (ConstraintKind::Eq, _) => {
                        g.bound(&a, &r, c0);
                        g.bound(&r, &a, -c0);
                    }
                }
            }
        }
        g
    }

    fn vertex(&mut self, t: &Expr) -> NodeIndex {
        if let Some(i) = self.index.get(t) {
            return *i;
        }
        let i = self.graph.add_node(t.clone());
        self.index.insert(t.clone(), i);
        i
    }

    /// Records `u - v <= c`, keeping the tighter of parallel bounds.
    fn bound(&mut self, u: &Expr, v: &Expr, c: i64) {
        if u == v {
            return;
        }
        let (a, b) = (self.vertex(u), self.vertex(v));
        match self.graph.find_edge(a, b) {
            Some(e) => {
                let w = &mut self.graph[e];
                *w = (*w).min(c);
            }
            None => {
                self.graph.add_edge(a, b, c);
            }
        }
    }

    /// The terms, in insertion order.
    pub fn terms(&self) -> impl Iterator<Item = &Expr> + '_ {
        self.graph.node_weights()
    }

    /// The number of edges before closure.
    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// Closes the graph: the tightest derived bound between every pair of
    /// terms, as constraints. `Err` when the constraints are contradictory.
    pub fn closure(&self) -> Result<Vec<Derived>, Contradiction> {
        // Algorithm 1: Floyd–Warshall over the adjacency matrix of bounds,
        // with `None` for "no bound" and exact (checked) sums.
        let n = self.graph.node_count();
        let mut dist: Vec<Vec<Option<i64>>> = vec![vec![None; n]; n];
        for (i, row) in dist.iter_mut().enumerate() {
            row[i] = Some(0);
        }
        for e in self.graph.edge_indices() {
            let (a, b) = self.graph.edge_endpoints(e).expect("edge exists");
            let w = self.graph[e];
            let cell = &mut dist[a.index()][b.index()];
            *cell = Some(cell.map_or(w, |x| x.min(w)));
        }
        // The same closure with the node `0` never an intermediate node.
        let mut direct = dist.clone();
        let zero = self.index.get(&Expr::constant(0)).map(|i| i.index());
        floyd_warshall(&mut direct, zero);
        floyd_warshall(&mut dist, None);
        if (0..n).any(|i| dist[i][i].is_some_and(|d| d < 0)) {
            return Err(Contradiction);
        }
        let mut out = Vec::new();
        for (a, row) in dist.iter().enumerate() {
            for (b, cell) in row.iter().enumerate() {
                let Some(d) = *cell else { continue };
                if a == b {
                    continue;
                }
                let (u, v) = (
                    &self.graph[NodeIndex::new(a)],
                    &self.graph[NodeIndex::new(b)],
                );
                if dist[b][a] == Some(-d) {
                    // Report each equality once, in a canonical direction.
                    if u < v {
                        out.push(Derived {
                            lhs: u.clone(),
                            kind: ConstraintKind::Eq,
                            rhs: v.clone(),
                            offset: d,
                            via_constant: false,
                        });
                    }
                } else {
                    let constant_end = Some(a) == zero || Some(b) == zero;
                    out.push(Derived {
                        lhs: u.clone(),
                        kind: ConstraintKind::Geq,
                        rhs: v.clone(),
                        offset: d,
                        via_constant: !constant_end && direct[a][b] != Some(d),
                    });
                }
            }
        }
        out.sort();
        Ok(out)
    }
}

/// Tightens `dist` to the shortest paths through every node but `skip`
/// (exact, checked sums; `None` is "no bound").
fn floyd_warshall(dist: &mut [Vec<Option<i64>>], skip: Option<usize>) {
    for k in (0..dist.len()).filter(|&k| Some(k) != skip) {
        let through = dist[k].clone();
        for row in dist.iter_mut() {
            let Some(ik) = row[k] else { continue };
            for (cell, kj) in row.iter_mut().zip(&through) {
                let Some(kj) = *kj else { continue };
                let Some(via) = ik.checked_add(kj) else {
                    continue;
                };
                if cell.is_none_or(|x| via < x) {
                    *cell = Some(via);
                }
            }
        }
    }
}

impl Derived {
    /// `lhs - rhs - offset`, which is `= 0` or `<= 0`.
    pub fn difference(&self) -> Expr {
        let mut e = self.lhs.minus(&self.rhs);
        e.add_constant(-self.offset);
        e
    }

    /// The atoms of both sides.
    pub fn mentions_call(&self, name: &str) -> bool {
        let mut found = false;
        for side in [&self.lhs, &self.rhs] {
            side.for_each_call(&mut |n, _| found |= n == name);
        }
        found
    }
}

/// Whether `t` is exactly one atom with coefficient one.
pub fn single_atom(t: &Expr) -> Option<&Atom> {
    let mut terms = t.terms();
    match (terms.next(), terms.next()) {
        (Some((a, 1)), None) if t.constant_term() == 0 => Some(a),
        _ => None,
    }
}
