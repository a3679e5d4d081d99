//! The extended polyhedral dataflow graph (PDFG) of a [`Computation`]
//! (dissertation §3.7–3.9).
//!
//! The graph has two kinds of nodes and four kinds of edges:
//!
//! - **statement** nodes (rounded boxes) labelled with the statement's name
//!   and body, printed with the iterator names of its domain
//!   (`S1: tmp(i) -= A(i, j) * u(j)`), its domain's constraints
//!   (`0 <= j < i`), and the scalars local to it (`local jj_out`: a
//!   temporary without dimensions that only this statement uses, writing
//!   it before reading it, is part of the statement, not a data node);
//! - **data** nodes: the data spaces and the runtime objects that
//!   statements call methods on, classed as inputs, outputs and
//!   intermediates ([`DataClass`]; the sizes an inspector computes, such as
//!   `NP = P.size()`, are intermediates);
//! - **read** edges data → statement and **write** edges statement → data,
//!   labelled with the access (`u(j)`, `tmp(i)`; `P.insert(i, j)` for a call
//!   on a runtime object: a call made for its effect is a write, a call whose
//!   value is used is a read). An update other than `=` both reads and
//!   writes its target. Every index array and scalar an index expression
//!   reads is a read too: in the domain (`row(n)` in `ii = row(n)`, `NP` in
//!   `p < NP`: a loop bound, `let` or guard; [`AccessEdge::in_domain`]) and
//!   inside an access's index (`col(k)` in `x(col(k))`);
//! - **carried-dependence** edges writer → reader (`u: carried by i`) for
//!   every loop-carried dependence found, and **fused-dependence** edges
//!   writer → reader (`x: fused in i`) where a statement reads, in the same
//!   iteration of the loops it shares with an earlier statement, what that
//!   statement wrote (the two were fused into one loop).
//!
//! **Loops.** The loops are those polyhedra scanning emits (module
//! `loops`, the rule of `codegen`'s scanner): statements share a loop when
//! their schedules agree on every dimension before it; an iterator fixed by
//! an equality over the enclosing iterators (`ii = row(n)`) is a `let`
//! ([`StatementNode::lets`]), not a loop. The loops form a tree ([`Loop`]);
//! the DOT and SVG outputs draw it as nested clusters labelled `for i`, so
//! an imperfect nest (the forward solve's S0 and S2 in the `i` loop, S1 in
//! the nested `j` loop) is visible, and a conversion's graph has one
//! cluster per loop of its generated code.
//!
//! **Loop-carried dependences.** For a write `(Sw, D, Aw)` and a read
//! `(Sr, D, Ar)` of the same data space by statements sharing a loop `L`, the
//! dependence is carried by `L` when the set of pairs of iterations
//! `[Iw, Ir]` (the two tuples renamed apart and concatenated) with
//! `Iw ∈ domain(Sw)`, `Ir ∈ domain(Sr)`, `Aw(Iw) = Ar(Ir)`, the iterators of
//! the shared loops and `let`s outside `L` equal and the iterators of `L`
//! different is not proved empty by the [`Prover`] (under the UF
//! environment's facts). The "different" is split into write-first
//! (`Iw[L] < Ir[L]`, a flow dependence) and read-first (`Ir[L] < Iw[L]`, an
//! anti dependence), each tested on its own. A fused dependence is the same
//! test with every shared iterator equal, for a writer that runs before the
//! reader in the iteration. Only write/read pairs of data spaces are
//! analyzed (index reads included): write/write (output) dependences, calls
//! on runtime objects (which have no index relation) and scalars local to a
//! statement are not. A temporary scalar that every statement reading it
//! finds written earlier in the same iteration (by itself, or by a
//! statement in the same loops that runs first whenever it runs) has a
//! value per iteration: nothing on it is carried, its fused edges show
//! where the values flow.
//!
//! **Drawing.** [`Pdfg::to_dot`] prints graphviz DOT with nested clusters
//! and a legend; [`Pdfg::to_svg`] lays the graph out itself (no graphviz):
//! the program in execution order down the middle, loops as nested
//! rectangles, inputs on the left, intermediates and outputs on the right
//! (see `svg.rs`).

mod deps;
mod dot;
mod loops;
mod svg;
mod text;
mod uses;

use std::collections::{HashMap, HashSet};

use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;

use crate::computation::{
    schedule_dims, Computation, ElemType, Role, ScheduleDim, ScheduleError, Stmt,
};
use crate::set::Set;
use crate::solver::{Prover, Verdict};
use crate::uf_env::UfEnvironment;

use loops::Nest;
use text::Namer;
use uses::{Use, UseKind};

/// Why a computation has no PDFG.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PdfgError {
    /// Two statements with one name.
    #[error("statement `{0}` is defined twice")]
    DuplicateStatement(String),
    /// Two data spaces or runtime objects with one name.
    #[error("data space or runtime object `{0}` is declared twice")]
    DuplicateData(String),
    /// A statement accesses a data space that is not declared.
    #[error("statement `{stmt}` accesses `{space}`, which is not a declared data space")]
    UnknownSpace {
        /// The statement.
        stmt: String,
        /// The undeclared name.
        space: String,
    },
    /// A statement calls a method on an undeclared runtime object.
    #[error("statement `{stmt}` calls `{object}`, which is not a declared runtime object")]
    UnknownObject {
        /// The statement.
        stmt: String,
        /// The undeclared name.
        object: String,
    },
    /// A schedule that is not of the supported form.
    #[error("statement `{stmt}`: {source}")]
    Schedule {
        /// The statement.
        stmt: String,
        /// What is wrong with its schedule.
        #[source]
        source: ScheduleError,
    },
    /// An index expression that uses a variable outside the iteration tuple.
    #[error(
        "statement `{stmt}`: an index of `{space}` uses a variable outside the iteration tuple"
    )]
    IndexVariable {
        /// The statement.
        stmt: String,
        /// The data space accessed.
        space: String,
    },
    /// One data space accessed with different numbers of indices.
    #[error("`{space}` is accessed with {first} indices and with {second} (in `{stmt}`)")]
    AccessArity {
        /// The data space.
        space: String,
        /// The number of indices of its first access.
        first: usize,
        /// The number of indices of a later access.
        second: usize,
        /// The statement of the later access.
        stmt: String,
    },
}

/// A statement node.
#[derive(Clone, Debug, PartialEq)]
pub struct StatementNode {
    /// The statement's name.
    pub name: String,
    /// Its body, with the domain's iterator names.
    pub body: String,
    /// Its iteration domain, as text.
    pub domain: String,
    /// The domain's constraints, without the tuple (`0 <= j < i`; empty
    /// for an unconstrained domain such as `{[]}`).
    pub constraints: String,
    /// The iterator names of its domain.
    pub iterators: Vec<String>,
    /// The loops around it, outermost first (indices into [`Pdfg::loops`]).
    pub loops: Vec<usize>,
    /// The iterators fixed by an equality (`ii = row(n)`), bound by a `let`
    /// rather than a loop, outermost first.
    pub lets: Vec<String>,
    /// The scalars local to this statement (no data node of their own).
    pub locals: Vec<String>,
    /// Whether it ever runs: false when its domain is empty.
    pub runs: bool,
}

impl StatementNode {
    /// `S1: tmp(i) -= A(i, j) * u(j)`.
    pub fn label(&self) -> String {
        format!("{}: {}", self.name, self.body)
    }

    /// What its box shows, one line each: the label, the domain's
    /// constraints (when there are any), the local scalars (when there are
    /// any).
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![self.label()];
        if !self.runs {
            out.push("(empty domain: never runs)".to_string());
        } else if !self.constraints.is_empty() {
            out.push(self.constraints.clone());
        }
        if !self.locals.is_empty() {
            out.push(format!("local {}", self.locals.join(", ")));
        }
        out
    }
}

/// What a data node stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DataKind {
    /// A data space.
    Space {
        /// Element type.
        elem: ElemType,
        /// Role for the caller.
        role: Role,
        /// Number of dimensions (0 for a scalar).
        dims: usize,
    },
    /// A runtime object.
    Object {
        /// Its runtime type (`OrderedSet`).
        kind: String,
    },
}

/// How a data node is drawn: what the caller passes in, what it gets
/// back, or what the computation keeps to itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DataClass {
    /// An input (`in`).
    Input,
    /// An intermediate: a temporary data space or a runtime object.
    Intermediate,
    /// An output (`out` or `inout`).
    Output,
}

/// A data node: a data space or a runtime object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataNode {
    /// Its name.
    pub name: String,
    /// Data space or runtime object.
    pub kind: DataKind,
}

impl DataNode {
    /// The name; `P: OrderedSet` for a runtime object.
    pub fn label(&self) -> String {
        match &self.kind {
            DataKind::Space { .. } => self.name.clone(),
            DataKind::Object { kind } => format!("{}: {kind}", self.name),
        }
    }

    /// Input, output or intermediate.
    pub fn class(&self) -> DataClass {
        match &self.kind {
            DataKind::Space { role: Role::In, .. } => DataClass::Input,
            DataKind::Space {
                role: Role::Out | Role::InOut,
                ..
            } => DataClass::Output,
            DataKind::Space {
                role: Role::Temp, ..
            }
            | DataKind::Object { .. } => DataClass::Intermediate,
        }
    }
}

/// A node of the PDFG.
#[derive(Clone, Debug, PartialEq)]
pub enum PdfgNode {
    /// A statement (rounded box).
    Statement(StatementNode),
    /// A data space or runtime object (plain box).
    Data(DataNode),
}

impl PdfgNode {
    /// The first line of text drawn in the node.
    pub fn label(&self) -> String {
        match self {
            PdfgNode::Statement(s) => s.label(),
            PdfgNode::Data(d) => d.label(),
        }
    }

    /// Every line of text drawn in the node.
    pub fn lines(&self) -> Vec<String> {
        match self {
            PdfgNode::Statement(s) => s.lines(),
            PdfgNode::Data(d) => vec![d.label()],
        }
    }

    /// The statement, data space or object name.
    pub fn name(&self) -> &str {
        match self {
            PdfgNode::Statement(s) => &s.name,
            PdfgNode::Data(d) => &d.name,
        }
    }
}

/// A read or a write of a data node by a statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessEdge {
    /// The statement.
    pub stmt: String,
    /// The data space or runtime object.
    pub data: String,
    /// The access, with the statement's iterator names: `u(j)`, `P.get(i, j)`,
    /// `row(n)` for an index array read by the domain.
    pub label: String,
    /// Whether the read is in the statement's domain (a loop bound, `let`
    /// or guard) rather than its body.
    pub in_domain: bool,
}

/// The two ends of a dependence between statements, and the loop it is
/// about.
#[derive(Clone, Debug, PartialEq)]
pub struct DependenceEnds {
    /// The data space.
    pub space: String,
    /// The writing statement.
    pub writer: String,
    /// The reading statement.
    pub reader: String,
    /// The write access (`u(i)`), with the writer's iterator names.
    pub write: String,
    /// The read access (`u(j)`), with the reader's iterator names.
    pub read: String,
    /// The loop (index into [`Pdfg::loops`]): the one that carries a
    /// carried dependence, the innermost shared one of a fused dependence.
    pub loop_id: usize,
    /// The loop's iterator name, as in its label.
    pub iterator: String,
    /// [`Verdict::NotProved`] when z3 found a model of a dependence set,
    /// [`Verdict::Unknown`] when it only gave up (the dependence is then
    /// assumed, conservatively).
    pub verdict: Verdict,
}

impl DependenceEnds {
    /// `u: carried by i` / `x: fused in i`, with `?` when the solver gave up.
    fn label(&self, relation: &str) -> String {
        let doubt = if self.verdict == Verdict::Unknown {
            "?"
        } else {
            ""
        };
        format!("{}: {relation} {}{doubt}", self.space, self.iterator)
    }
}

/// A loop-carried dependence: its ends (`dep.space`, `dep.writer`, … read
/// through to [`DependenceEnds`]), directions and pairs of iterations.
#[derive(Clone, Debug, PartialEq)]
pub struct CarriedDependence {
    /// Data space, statements, accesses, carrying loop, verdict.
    pub ends: DependenceEnds,
    /// Whether an instance of the write may come in an earlier iteration of
    /// the loop than an instance of the read touching the same element (a
    /// flow dependence): the write-first set was not proved empty.
    pub flow: bool,
    /// Whether a read may come in an earlier iteration than a write touching
    /// the same element (an anti dependence).
    pub anti: bool,
    /// The pairs of iterations `[writer's tuple, reader's tuple]` tested:
    /// both directions that were not proved empty.
    pub pairs: Set,
}

impl std::ops::Deref for CarriedDependence {
    type Target = DependenceEnds;
    fn deref(&self) -> &DependenceEnds {
        &self.ends
    }
}

impl CarriedDependence {
    /// `u: carried by i` (`carried by i?` when the solver gave up).
    pub fn label(&self) -> String {
        self.ends.label("carried by")
    }
}

/// A fused dependence: in one iteration of the loops two statements share,
/// the later statement (the reader) reads an element the earlier one wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct FusedDependence {
    /// Data space, statements, accesses, innermost shared loop, verdict.
    pub ends: DependenceEnds,
}

impl std::ops::Deref for FusedDependence {
    type Target = DependenceEnds;
    fn deref(&self) -> &DependenceEnds {
        &self.ends
    }
}

impl FusedDependence {
    /// `x: fused in i` (`fused in i?` when the solver gave up).
    pub fn label(&self) -> String {
        self.ends.label("fused in")
    }
}

/// An edge of the PDFG.
#[derive(Clone, Debug, PartialEq)]
pub enum PdfgEdge {
    /// Data → statement.
    Read(AccessEdge),
    /// Statement → data.
    Write(AccessEdge),
    /// Writer → reader, a dependence carried by a loop.
    Carried(CarriedDependence),
    /// Writer → reader, a dependence within one iteration.
    Fused(FusedDependence),
}

/// A loop of the computation, as the scanner emits it: one iterator
/// dimension of the schedules of the statements inside it that no
/// equality fixes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// Its index in [`Pdfg::loops`].
    pub id: usize,
    /// The enclosing loop.
    pub parent: Option<usize>,
    /// The iterator name (names, joined by `/`, when the statements inside
    /// name it differently).
    pub iterator: String,
    /// The position of the loop's dimension in the schedules' time tuples
    /// (the tuples' length for an iterator the schedule leaves out).
    pub time_dim: usize,
    /// Nesting depth: 0 for an outermost loop.
    pub depth: usize,
    /// The statements whose innermost loop this is, in declaration order.
    pub statements: Vec<String>,
}

impl Loop {
    /// `for i`.
    pub fn label(&self) -> String {
        format!("for {}", self.iterator)
    }
}

/// The extended PDFG of a computation.
#[derive(Clone, Debug)]
pub struct Pdfg {
    name: String,
    graph: DiGraph<PdfgNode, PdfgEdge>,
    loops: Vec<Loop>,
    carried: Vec<CarriedDependence>,
    fused: Vec<FusedDependence>,
    /// The statements in execution order (schedule order).
    order: Vec<String>,
}

/// What the builder knows of one statement.
struct Info<'c> {
    stmt: &'c Stmt,
    iterators: Vec<String>,
    dims: Vec<ScheduleDim>,
    node: NodeIndex,
    uses: Vec<Use>,
    nest: Nest,
}

impl Pdfg {
    /// Builds the PDFG of `comp`, proving dependences absent with the facts
    /// of `env`.
    ///
    /// A running sum `s(i) = s(i - 1) + x(i)` has a dependence on `s`
    /// carried by its loop:
    ///
    /// ```
    /// use iegen::computation::{Access, BinOp, Body, Computation, DataSpace, ElemType, Role,
    ///     Stmt, UpdateOp, ValueExpr};
    /// use iegen::pdfg::Pdfg;
    /// use iegen::{Expr, UfEnvironment, Var};
    ///
    /// let i = Expr::var(Var::Tuple(0));
    /// let access = |space: &str, index: Expr| Access { space: space.into(), index: vec![index] };
    /// let space = |name: &str, role| DataSpace {
    ///     name: name.into(), elem: ElemType::Real, extents: vec![Expr::sym("N")], role,
    /// };
    /// let comp = Computation {
    ///     name: "running_sum".into(),
    ///     symbols: vec!["N".into()],
    ///     spaces: vec![space("s", Role::Out), space("x", Role::In)],
    ///     objects: vec![],
    ///     stmts: vec![Stmt {
    ///         name: "S0".into(),
    ///         body: Body::Update {
    ///             target: access("s", i.clone()),
    ///             op: UpdateOp::Assign,
    ///             value: ValueExpr::Binary(
    ///                 BinOp::Add,
    ///                 Box::new(ValueExpr::Read(access("s", i.minus(&Expr::constant(1))))),
    ///                 Box::new(ValueExpr::Read(access("x", i.clone()))),
    ///             ),
    ///         },
    ///         domain: "{[i] : 1 <= i < N}".parse().unwrap(),
    ///         schedule: "{[i] -> [0, i, 0]}".parse().unwrap(),
    ///     }],
    /// };
    /// let pdfg = Pdfg::build(&comp, &UfEnvironment::new()).unwrap();
    /// assert_eq!(pdfg.statement_node("S0").unwrap().label(), "S0: s(i) = s(i - 1) + x(i)");
    /// let deps = pdfg.carried_dependences();
    /// assert_eq!(deps.len(), 1);
    /// assert_eq!(deps[0].label(), "s: carried by i");
    /// assert!(deps[0].flow && !deps[0].anti);
    /// assert!(pdfg.to_dot().contains("subgraph cluster_loop0"));
    /// ```
    pub fn build(comp: &Computation, env: &UfEnvironment) -> Result<Pdfg, PdfgError> {
        Self::build_with(comp, &Prover::new(env))
    }

    /// [`Pdfg::build`] with a given prover (to choose its time limit).
    pub fn build_with(comp: &Computation, prover: &Prover<'_>) -> Result<Pdfg, PdfgError> {
        let mut graph = DiGraph::new();
        let mut data: HashMap<String, NodeIndex> = HashMap::new();
        let objects: HashSet<&str> = comp.objects.iter().map(|o| o.name.as_str()).collect();
        let spaces: HashSet<&str> = comp.spaces.iter().map(|d| d.name.as_str()).collect();

        // Statements, their schedules and their uses of data.
        let mut infos: Vec<Info<'_>> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        let mut arity: HashMap<String, usize> = HashMap::new();
        for (index, stmt) in comp.stmts.iter().enumerate() {
            if !seen.insert(stmt.name.as_str()) {
                return Err(PdfgError::DuplicateStatement(stmt.name.clone()));
            }
            let dims = schedule_dims(&stmt.schedule, stmt.domain.arity()).map_err(|source| {
                PdfgError::Schedule {
                    stmt: stmt.name.clone(),
                    source,
                }
            })?;
            let iterators = stmt.iterators();
            let mut uses = uses::uses_of(stmt, &iterators, &spaces);
            uses::check_uses(stmt, &mut uses, &spaces, &objects, &mut arity)?;
            let nest = loops::nest_of(index, stmt, &dims, &iterators);
            infos.push(Info {
                stmt,
                iterators,
                dims,
                node: NodeIndex::end(),
                uses,
                nest,
            });
        }
        for info in &mut infos {
            uses::drop_unfit_indices(&mut info.uses, &arity, comp);
        }
        let all_uses: Vec<Vec<Use>> = infos
            .iter_mut()
            .map(|i| std::mem::take(&mut i.uses))
            .collect();
        let locals = uses::locals(comp, &all_uses);
        for (info, u) in infos.iter_mut().zip(all_uses) {
            info.uses = u;
        }
        let local_names: HashSet<&str> = locals.iter().flatten().map(String::as_str).collect();

        // Data nodes: every data space but the locals, and the objects.
        for d in comp
            .spaces
            .iter()
            .filter(|d| !local_names.contains(d.name.as_str()))
        {
            let kind = DataKind::Space {
                elem: d.elem,
                role: d.role,
                dims: d.extents.len(),
            };
            add_data(&mut graph, &mut data, &d.name, kind)?;
        }
        for o in &comp.objects {
            let kind = DataKind::Object {
                kind: o.kind.clone(),
            };
            add_data(&mut graph, &mut data, &o.name, kind)?;
        }

        // Loops, as the scanner emits them.
        let mut nests: Vec<Nest> = infos
            .iter_mut()
            .map(|i| std::mem::replace(&mut i.nest, Nest::empty()))
            .collect();
        loops::decide(&mut nests);
        let names: Vec<Vec<String>> = infos.iter().map(|i| i.iterators.clone()).collect();
        let stmts: Vec<&Stmt> = infos.iter().map(|i| i.stmt).collect();
        let (loops, around, loop_of_key) = loops::loop_tree(&nests, &names, &stmts);

        // Statement nodes and accesses.
        for (((info, nest), nest_loops), locals) in
            infos.iter_mut().zip(nests).zip(around).zip(&locals)
        {
            let namer = Namer::new(&info.iterators);
            info.node = graph.add_node(PdfgNode::Statement(StatementNode {
                name: info.stmt.name.clone(),
                body: namer.body(&info.stmt.body),
                domain: info.stmt.domain.to_string(),
                constraints: constraints_text(&info.stmt.domain),
                iterators: info.iterators.clone(),
                loops: nest_loops,
                lets: nest.lets(),
                locals: locals.clone(),
                runs: nest.runs,
            }));
            info.nest = nest;
            for u in &info.uses {
                let Some(&d) = data.get(&u.data) else {
                    continue; // a local
                };
                let edge = AccessEdge {
                    stmt: info.stmt.name.clone(),
                    data: u.data.clone(),
                    label: u.label.clone(),
                    in_domain: u.kind == UseKind::Index { in_domain: true },
                };
                if u.write {
                    graph.add_edge(info.node, d, PdfgEdge::Write(edge));
                } else {
                    graph.add_edge(d, info.node, PdfgEdge::Read(edge));
                }
            }
        }

        // Dependences.
        let found = deps::dependences(comp, &infos, &loops, &loop_of_key, &local_names, prover);
        let mut carried = Vec::with_capacity(found.carried.len());
        for (writer, reader, dep) in found.carried {
            graph.add_edge(writer, reader, PdfgEdge::Carried(dep.clone()));
            carried.push(dep);
        }
        let mut fused = Vec::with_capacity(found.fused.len());
        for (writer, reader, dep) in found.fused {
            graph.add_edge(writer, reader, PdfgEdge::Fused(dep.clone()));
            fused.push(dep);
        }

        let mut order: Vec<&Info<'_>> = infos.iter().collect();
        order.sort_by_key(|i| i.dims.iter().map(|&d| loops::step(d)).collect::<Vec<_>>());
        Ok(Pdfg {
            name: comp.name.clone(),
            graph,
            loops,
            carried,
            fused,
            order: order.iter().map(|i| i.stmt.name.clone()).collect(),
        })
    }

    /// The computation's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The underlying graph.
    pub fn graph(&self) -> &DiGraph<PdfgNode, PdfgEdge> {
        &self.graph
    }

    /// The loops, outer loops before the loops nested in them.
    pub fn loops(&self) -> &[Loop] {
        &self.loops
    }

    /// The loop-carried dependences found, data space by data space (in
    /// declaration order), then writer, reader and loop.
    pub fn carried_dependences(&self) -> &[CarriedDependence] {
        &self.carried
    }

    /// The fused dependences found (a statement reading in the same
    /// iteration what an earlier statement of the loop wrote), in the
    /// order of [`Pdfg::carried_dependences`].
    pub fn fused_dependences(&self) -> &[FusedDependence] {
        &self.fused
    }

    /// The node of the statement called `name`.
    pub fn statement(&self, name: &str) -> Option<NodeIndex> {
        self.graph
            .node_indices()
            .find(|&i| matches!(&self.graph[i], PdfgNode::Statement(s) if s.name == name))
    }

    /// The statement called `name`.
    pub fn statement_node(&self, name: &str) -> Option<&StatementNode> {
        self.statement(name).and_then(|i| match &self.graph[i] {
            PdfgNode::Statement(s) => Some(s),
            _ => None,
        })
    }

    /// The node of the data space or runtime object called `name`.
    pub fn data(&self, name: &str) -> Option<NodeIndex> {
        self.graph
            .node_indices()
            .find(|&i| matches!(&self.graph[i], PdfgNode::Data(d) if d.name == name))
    }

    /// The statements (`Statement` nodes) in graph order.
    pub fn statements(&self) -> impl Iterator<Item = &StatementNode> + '_ {
        self.graph.node_weights().filter_map(|n| match n {
            PdfgNode::Statement(s) => Some(s),
            _ => None,
        })
    }

    /// The data nodes in graph order (data spaces, then runtime objects).
    pub fn data_nodes(&self) -> impl Iterator<Item = &DataNode> + '_ {
        self.graph.node_weights().filter_map(|n| match n {
            PdfgNode::Data(d) => Some(d),
            _ => None,
        })
    }

    /// The reads of statement `stmt`, in body order.
    pub fn reads_of(&self, stmt: &str) -> Vec<&AccessEdge> {
        self.access_edges(|e| match e {
            PdfgEdge::Read(a) if a.stmt == stmt => Some(a),
            _ => None,
        })
    }

    /// The writes of statement `stmt`, in body order.
    pub fn writes_of(&self, stmt: &str) -> Vec<&AccessEdge> {
        self.access_edges(|e| match e {
            PdfgEdge::Write(a) if a.stmt == stmt => Some(a),
            _ => None,
        })
    }

    /// The reads of data node `data`, in statement order.
    pub fn readers_of(&self, data: &str) -> Vec<&AccessEdge> {
        self.access_edges(|e| match e {
            PdfgEdge::Read(a) if a.data == data => Some(a),
            _ => None,
        })
    }

    /// The writes of data node `data`, in statement order.
    pub fn writers_of(&self, data: &str) -> Vec<&AccessEdge> {
        self.access_edges(|e| match e {
            PdfgEdge::Write(a) if a.data == data => Some(a),
            _ => None,
        })
    }

    fn access_edges<'s>(
        &'s self,
        pick: impl Fn(&'s PdfgEdge) -> Option<&'s AccessEdge>,
    ) -> Vec<&'s AccessEdge> {
        self.graph.edge_weights().filter_map(pick).collect()
    }

    /// The loops around statement `stmt`, outermost first (empty for an
    /// unknown statement).
    pub fn loop_nest(&self, stmt: &str) -> Vec<&Loop> {
        self.statement_node(stmt)
            .map(|s| s.loops.iter().filter_map(|&l| self.loops.get(l)).collect())
            .unwrap_or_default()
    }

    /// The edges leaving `node` (a convenience over [`Pdfg::graph`]).
    pub fn out_edges(&self, node: NodeIndex) -> Vec<(EdgeIndex, NodeIndex, &PdfgEdge)> {
        self.graph
            .edges_directed(node, Direction::Outgoing)
            .map(|e| (e.id(), e.target(), e.weight()))
            .collect()
    }

    /// The graph in graphviz DOT, loops as nested clusters.
    pub fn to_dot(&self) -> String {
        dot::to_dot(self)
    }

    /// The graph as SVG, laid out here (no graphviz needed): loops as
    /// nested rectangles; see the module documentation.
    pub fn to_svg(&self) -> String {
        svg::to_svg(self)
    }

    /// The statements in execution order (by schedule).
    pub fn execution_order(&self) -> &[String] {
        &self.order
    }
}

/// Adds the data node `name` (an error if the name is taken).
fn add_data(
    graph: &mut DiGraph<PdfgNode, PdfgEdge>,
    data: &mut HashMap<String, NodeIndex>,
    name: &str,
    kind: DataKind,
) -> Result<(), PdfgError> {
    if data.contains_key(name) {
        return Err(PdfgError::DuplicateData(name.to_string()));
    }
    let ix = graph.add_node(PdfgNode::Data(DataNode {
        name: name.to_string(),
        kind,
    }));
    data.insert(name.to_string(), ix);
    Ok(())
}

/// A domain's constraints without its tuple: `0 <= p < NP` for
/// `{[p] : 0 <= p < NP}`, empty for `{[]}`; a union stays whole.
fn constraints_text(domain: &Set) -> String {
    let text = domain.to_string();
    if domain.conjunctions().len() != 1 {
        return text;
    }
    let inner = text
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .unwrap_or(&text);
    // The tuple ends at the first `]` (tuples hold no brackets).
    match inner.find(']') {
        Some(end) => inner[end + 1..]
            .trim_start()
            .strip_prefix(':')
            .unwrap_or("")
            .trim()
            .to_string(),
        None => text.clone(),
    }
}

pub(super) fn tuple_name(iterators: &[String], p: usize) -> String {
    iterators
        .get(p)
        .filter(|n| !n.is_empty())
        .cloned()
        .unwrap_or_else(|| format!("t{p}"))
}
