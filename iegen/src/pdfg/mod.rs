//! The extended polyhedral dataflow graph (PDFG) of a [`Computation`]
//! (dissertation §3.7–3.9).
//!
//! The graph has four kinds of nodes and four kinds of edges:
//!
//! - **statement** nodes (rounded boxes) labelled with the statement's name
//!   and body, printed with the iterator names of its domain
//!   (`S1: tmp(i) -= A(i, j) * u(j)`);
//! - **data** nodes (plain boxes): the data spaces, and the runtime objects
//!   (dashed boxes) that statements call methods on;
//! - **domain** nodes (shaded boxes) holding the iteration domain of one
//!   statement, connected to it;
//! - **read** edges data → statement and **write** edges statement → data,
//!   labelled with the access (`u(j)`, `tmp(i)`; `P.insert(i, j)` for a call
//!   on a runtime object: a call made for its effect is a write, a call whose
//!   value is used is a read). An update other than `=` both reads and
//!   writes its target;
//! - **carried-dependence** edges writer → reader (red, dashed,
//!   `u: carried by i`) for every loop-carried dependence found.
//!
//! **Loops.** The loops of a statement are the iterator dimensions of its
//! schedule ([`schedule_dims`]); two statements share a loop when their
//! schedules agree on every dimension before it (equal constants, loops at
//! the same positions). The loops form a tree ([`Loop`]); the DOT output
//! draws it as nested clusters labelled `for i`, so an imperfect nest (the
//! forward solve's S0 and S2 in the `i` loop, S1 in the nested `j` loop) is
//! visible.
//!
//! **Loop-carried dependences.** For a write `(Sw, D, Aw)` and a read
//! `(Sr, D, Ar)` of the same data space by statements sharing a loop `L`, the
//! dependence is carried by `L` when the set of pairs of iterations
//! `[Iw, Ir]` (the two tuples renamed apart and concatenated) with
//! `Iw ∈ domain(Sw)`, `Ir ∈ domain(Sr)`, `Aw(Iw) = Ar(Ir)`, the iterators of
//! the shared loops outside `L` equal and the iterators of `L` different is
//! not proved empty by the [`Prover`] (under the UF environment's facts). The
//! "different" is split into write-first (`Iw[L] < Ir[L]`, a flow
//! dependence) and read-first (`Ir[L] < Iw[L]`, an anti dependence), each
//! tested on its own. Only write/read pairs of data spaces are analyzed:
//! write/write (output) dependences and calls on runtime objects (which have
//! no index relation) are not.
//!
//! **SVG.** [`Pdfg::to_svg`] renders without graphviz, with the `layout-rs`
//! crate, which cannot draw clusters (nested subgraphs). The SVG is therefore
//! an equivalent flat graph: every loop is an ellipse node `for i`, with a
//! gray dotted edge to each loop nested in it and to each statement directly
//! inside it. Everything else (shapes, fills, labels, red dashed dependence
//! edges) is as in the DOT output, except that runtime objects are drawn
//! with a gray border (layout-rs has no dashed node borders) and dotted
//! lines come out dashed. layout-rs asserts its invariants and some graphs
//! trip them; `to_svg` then retries without layout-rs's crossing
//! optimizations, then without its placement passes, and reports
//! [`PdfgError::Layout`] only if every attempt fails (never seen in the
//! property tests).

mod dot;
mod svg;
mod text;

use std::collections::{BTreeMap, HashMap, HashSet};

use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;

use crate::computation::{
    schedule_dims, Access, Body, Computation, ElemType, Role, ScheduleDim, ScheduleError, Stmt,
    ValueExpr,
};
use crate::conjunction::Conjunction;
use crate::constraint::{Constraint, Normalized};
use crate::expr::{Expr, Var};
use crate::formula::Formula;
use crate::set::Set;
use crate::solver::{Prover, Verdict};
use crate::uf_env::UfEnvironment;

use text::Namer;

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
    /// The layout engine of [`Pdfg::to_svg`] failed.
    #[error("the SVG layout failed: {0}")]
    Layout(String),
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
    /// The iterator names of its domain.
    pub iterators: Vec<String>,
    /// The loops around it, outermost first (indices into [`Pdfg::loops`]).
    pub loops: Vec<usize>,
}

impl StatementNode {
    /// `S1: tmp(i) -= A(i, j) * u(j)`.
    pub fn label(&self) -> String {
        format!("{}: {}", self.name, self.body)
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
}

/// A domain node: the iteration domain of one statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DomainNode {
    /// The statement whose domain this is.
    pub stmt: String,
    /// The set, as text.
    pub set: String,
}

/// A node of the PDFG.
#[derive(Clone, Debug, PartialEq)]
pub enum PdfgNode {
    /// A statement (rounded box).
    Statement(StatementNode),
    /// A data space or runtime object (plain box).
    Data(DataNode),
    /// A statement's iteration domain (shaded box).
    Domain(DomainNode),
}

impl PdfgNode {
    /// The text drawn in the node.
    pub fn label(&self) -> String {
        match self {
            PdfgNode::Statement(s) => s.label(),
            PdfgNode::Data(d) => d.label(),
            PdfgNode::Domain(d) => d.set.clone(),
        }
    }

    /// The statement, data space, object, or (for a domain) statement name.
    pub fn name(&self) -> &str {
        match self {
            PdfgNode::Statement(s) => &s.name,
            PdfgNode::Data(d) => &d.name,
            PdfgNode::Domain(d) => &d.stmt,
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
    /// The access, with the statement's iterator names: `u(j)`, `P.get(i, j)`.
    pub label: String,
}

/// A loop-carried dependence.
#[derive(Clone, Debug, PartialEq)]
pub struct CarriedDependence {
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
    /// The loop that carries it (index into [`Pdfg::loops`]).
    pub loop_id: usize,
    /// The loop's iterator name, as in its label.
    pub iterator: String,
    /// Whether an instance of the write may come in an earlier iteration of
    /// the loop than an instance of the read touching the same element (a
    /// flow dependence): the write-first set was not proved empty.
    pub flow: bool,
    /// Whether a read may come in an earlier iteration than a write touching
    /// the same element (an anti dependence).
    pub anti: bool,
    /// [`Verdict::NotProved`] when z3 found a model of a dependence set,
    /// [`Verdict::Unknown`] when it only gave up (the dependence is then
    /// assumed, conservatively).
    pub verdict: Verdict,
    /// The pairs of iterations `[writer's tuple, reader's tuple]` tested:
    /// both directions that were not proved empty.
    pub pairs: Set,
}

impl CarriedDependence {
    /// `u: carried by i` (`carried by i?` when the solver gave up).
    pub fn label(&self) -> String {
        let doubt = if self.verdict == Verdict::Unknown {
            "?"
        } else {
            ""
        };
        format!("{}: carried by {}{doubt}", self.space, self.iterator)
    }
}

/// An edge of the PDFG.
#[derive(Clone, Debug, PartialEq)]
pub enum PdfgEdge {
    /// Data → statement.
    Read(AccessEdge),
    /// Statement → data.
    Write(AccessEdge),
    /// Domain → its statement.
    Domain,
    /// Writer → reader.
    Carried(CarriedDependence),
}

/// A loop of the computation: one iterator dimension of the schedules of
/// the statements inside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// Its index in [`Pdfg::loops`].
    pub id: usize,
    /// The enclosing loop.
    pub parent: Option<usize>,
    /// The iterator name (names, joined by `/`, when the statements inside
    /// name it differently).
    pub iterator: String,
    /// The position of the loop's dimension in the schedules' time tuples.
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
}

/// One step of a schedule, for grouping statements into loops: loops at
/// the same position are the same loop whatever their iterator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Step {
    Const(i64),
    Loop,
}

fn step(d: ScheduleDim) -> Step {
    match d {
        ScheduleDim::Const(c) => Step::Const(c),
        ScheduleDim::Iter(_) => Step::Loop,
    }
}

/// A use of a data node by a statement, before it becomes an edge.
struct Use {
    data: String,
    label: String,
    /// The index of an access to a data space; `None` for a method call.
    index: Option<Vec<Expr>>,
    write: bool,
}

/// What the builder knows of one statement.
struct Info<'c> {
    stmt: &'c Stmt,
    iterators: Vec<String>,
    dims: Vec<ScheduleDim>,
    node: NodeIndex,
    uses: Vec<Use>,
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
        let mut add_data = |graph: &mut DiGraph<PdfgNode, PdfgEdge>, node: DataNode| {
            if data.contains_key(&node.name) {
                return Err(PdfgError::DuplicateData(node.name));
            }
            let name = node.name.clone();
            let ix = graph.add_node(PdfgNode::Data(node));
            data.insert(name, ix);
            Ok(())
        };
        for d in &comp.spaces {
            add_data(
                &mut graph,
                DataNode {
                    name: d.name.clone(),
                    kind: DataKind::Space {
                        elem: d.elem,
                        role: d.role,
                        dims: d.extents.len(),
                    },
                },
            )?;
        }
        for o in &comp.objects {
            add_data(
                &mut graph,
                DataNode {
                    name: o.name.clone(),
                    kind: DataKind::Object {
                        kind: o.kind.clone(),
                    },
                },
            )?;
        }
        let objects: HashSet<&str> = comp.objects.iter().map(|o| o.name.as_str()).collect();
        let spaces: HashSet<&str> = comp.spaces.iter().map(|d| d.name.as_str()).collect();

        // Statements, their schedules and their uses of data.
        let mut infos: Vec<Info<'_>> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        let mut arity: HashMap<String, usize> = HashMap::new();
        for stmt in &comp.stmts {
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
            let uses = uses_of(stmt, &iterators);
            check_uses(stmt, &uses, &spaces, &objects, &mut arity)?;
            let namer = Namer::new(&iterators);
            let node = graph.add_node(PdfgNode::Statement(StatementNode {
                name: stmt.name.clone(),
                body: namer.body(&stmt.body),
                domain: stmt.domain.to_string(),
                iterators: iterators.clone(),
                loops: Vec::new(),
            }));
            infos.push(Info {
                stmt,
                iterators,
                dims,
                node,
                uses,
            });
        }

        // Loops.
        let tree = loop_tree(&infos);
        let loop_of_key: HashMap<Vec<Step>, usize> =
            tree.iter().map(|(key, l)| (key.clone(), l.id)).collect();
        // Keys are numbered in order, so the values come sorted by id.
        let mut loops: Vec<Loop> = tree.into_values().collect();
        for info in &infos {
            let nest: Vec<usize> = loop_keys(&info.dims)
                .iter()
                .filter_map(|k| loop_of_key.get(k).copied())
                .collect();
            if let Some(&inner) = nest.last() {
                loops[inner].statements.push(info.stmt.name.clone());
            }
            if let PdfgNode::Statement(s) = &mut graph[info.node] {
                s.loops = nest;
            }
        }

        // Domains and accesses.
        for info in &infos {
            let domain = graph.add_node(PdfgNode::Domain(DomainNode {
                stmt: info.stmt.name.clone(),
                set: info.stmt.domain.to_string(),
            }));
            graph.add_edge(domain, info.node, PdfgEdge::Domain);
            for u in &info.uses {
                let Some(&d) = data.get(&u.data) else {
                    continue;
                };
                let edge = AccessEdge {
                    stmt: info.stmt.name.clone(),
                    data: u.data.clone(),
                    label: u.label.clone(),
                };
                if u.write {
                    graph.add_edge(info.node, d, PdfgEdge::Write(edge));
                } else {
                    graph.add_edge(d, info.node, PdfgEdge::Read(edge));
                }
            }
        }

        // Loop-carried dependences.
        let found = carried_dependences(comp, &infos, &loops, &loop_of_key, prover);
        let mut carried = Vec::with_capacity(found.len());
        for (writer, reader, dep) in found {
            graph.add_edge(writer, reader, PdfgEdge::Carried(dep.clone()));
            carried.push(dep);
        }

        Ok(Pdfg {
            name: comp.name.clone(),
            graph,
            loops,
            carried,
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

    /// The domain node of the statement called `stmt`.
    pub fn domain_of(&self, stmt: &str) -> Option<&DomainNode> {
        self.graph.node_weights().find_map(|n| match n {
            PdfgNode::Domain(d) if d.stmt == stmt => Some(d),
            _ => None,
        })
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

    /// The graph as SVG, laid out by `layout-rs` (no graphviz needed).
    /// Loops are drawn as `for i` nodes rather than clusters; see the module
    /// documentation.
    pub fn to_svg(&self) -> Result<String, PdfgError> {
        svg::to_svg(self)
    }
}

/// The reads and writes of a statement, deduplicated, in body order:
/// data-space accesses first, then method calls on runtime objects.
fn uses_of(stmt: &Stmt, iterators: &[String]) -> Vec<Use> {
    let namer = Namer::new(iterators);
    let mut out: Vec<Use> = Vec::new();
    let mut push = |u: Use| {
        if !out
            .iter()
            .any(|o| o.write == u.write && o.data == u.data && o.label == u.label)
        {
            out.push(u);
        }
    };
    let access = |a: &Access, write: bool| Use {
        data: a.space.clone(),
        label: namer.access(a),
        index: Some(a.index.clone()),
        write,
    };
    let mut reads = Vec::new();
    stmt.body
        .for_each_read(&mut |a| reads.push(access(a, false)));
    let mut writes = Vec::new();
    stmt.body
        .for_each_write(&mut |a| writes.push(access(a, true)));
    reads.into_iter().chain(writes).for_each(&mut push);
    let mut calls = Vec::new();
    body_calls(&stmt.body, &namer, &mut calls);
    calls.into_iter().for_each(push);
    out
}

/// Method calls on runtime objects: a call made for its effect writes the
/// object, a call whose value is used reads it.
fn body_calls(b: &Body, namer: &Namer<'_>, out: &mut Vec<Use>) {
    match b {
        Body::Update { value, .. } => value_calls(value, namer, out),
        Body::If { conditions, then } => {
            for c in conditions {
                value_calls(&c.lhs, namer, out);
                value_calls(&c.rhs, namer, out);
            }
            body_calls(then, namer, out);
        }
        Body::Call {
            object,
            method,
            args,
        } => {
            args.iter().for_each(|a| value_calls(a, namer, out));
            out.push(Use {
                data: object.clone(),
                label: namer.call(object, method, args),
                index: None,
                write: true,
            });
        }
        Body::Seq(bs) => bs.iter().for_each(|b| body_calls(b, namer, out)),
    }
}

fn value_calls(v: &ValueExpr, namer: &Namer<'_>, out: &mut Vec<Use>) {
    match v {
        ValueExpr::Int(_) | ValueExpr::Real(_) | ValueExpr::Index(_) | ValueExpr::Read(_) => {}
        ValueExpr::Neg(inner) => value_calls(inner, namer, out),
        ValueExpr::Binary(_, a, b) => {
            value_calls(a, namer, out);
            value_calls(b, namer, out);
        }
        ValueExpr::Call {
            object,
            method,
            args,
        } => {
            args.iter().for_each(|a| value_calls(a, namer, out));
            out.push(Use {
                data: object.clone(),
                label: namer.call(object, method, args),
                index: None,
                write: false,
            });
        }
    }
}

/// Every access names a declared data space with a consistent number of
/// indices over the statement's tuple; every call names a declared object.
fn check_uses(
    stmt: &Stmt,
    uses: &[Use],
    spaces: &HashSet<&str>,
    objects: &HashSet<&str>,
    arity: &mut HashMap<String, usize>,
) -> Result<(), PdfgError> {
    for u in uses {
        match &u.index {
            Some(index) => {
                if !spaces.contains(u.data.as_str()) {
                    return Err(PdfgError::UnknownSpace {
                        stmt: stmt.name.clone(),
                        space: u.data.clone(),
                    });
                }
                check_index(stmt, &u.data, index)?;
                let first = *arity.entry(u.data.clone()).or_insert(index.len());
                if first != index.len() {
                    return Err(PdfgError::AccessArity {
                        space: u.data.clone(),
                        first,
                        second: index.len(),
                        stmt: stmt.name.clone(),
                    });
                }
            }
            None => {
                if !objects.contains(u.data.as_str()) {
                    return Err(PdfgError::UnknownObject {
                        stmt: stmt.name.clone(),
                        object: u.data.clone(),
                    });
                }
            }
        }
    }
    Ok(())
}

/// Index expressions may only use the statement's tuple variables.
fn check_index(stmt: &Stmt, space: &str, index: &[Expr]) -> Result<(), PdfgError> {
    let n = stmt.domain.arity();
    let mut ok = true;
    for e in index {
        e.for_each_var(&mut |v| {
            ok &= matches!(v, Var::Tuple(p) if p < n);
        });
    }
    if ok {
        Ok(())
    } else {
        Err(PdfgError::IndexVariable {
            stmt: stmt.name.clone(),
            space: space.to_string(),
        })
    }
}

/// The keys of the loops around a statement, outermost first: each is the
/// schedule prefix ending with the loop's dimension.
fn loop_keys(dims: &[ScheduleDim]) -> Vec<Vec<Step>> {
    dims.iter()
        .enumerate()
        .filter(|(_, d)| matches!(d, ScheduleDim::Iter(_)))
        .map(|(t, _)| dims[..=t].iter().copied().map(step).collect())
        .collect()
}

/// Every loop of the computation, by key, numbered in schedule order (so a
/// loop comes before the loops nested in it).
fn loop_tree(infos: &[Info<'_>]) -> BTreeMap<Vec<Step>, Loop> {
    let mut names: BTreeMap<Vec<Step>, Vec<String>> = BTreeMap::new();
    for info in infos {
        for (t, d) in info.dims.iter().enumerate() {
            if let ScheduleDim::Iter(p) = d {
                let key: Vec<Step> = info.dims[..=t].iter().copied().map(step).collect();
                let name = tuple_name(&info.iterators, *p);
                let entry = names.entry(key).or_default();
                if !entry.contains(&name) {
                    entry.push(name);
                }
            }
        }
    }
    let ids: HashMap<Vec<Step>, usize> = names
        .keys()
        .enumerate()
        .map(|(id, k)| (k.clone(), id))
        .collect();
    names
        .into_iter()
        .enumerate()
        .map(|(id, (key, iters))| {
            let parent = (0..key.len().saturating_sub(1))
                .rev()
                .find_map(|end| ids.get(&key[..=end]).copied());
            let depth = key.iter().filter(|s| **s == Step::Loop).count() - 1;
            let l = Loop {
                id,
                parent,
                iterator: iters.join("/"),
                time_dim: key.len() - 1,
                depth,
                statements: Vec::new(),
            };
            (key, l)
        })
        .collect()
}

/// A loop shared by two statements: its key and the positions of its
/// iterator in each statement's tuple.
struct SharedLoop {
    key: Vec<Step>,
    writer_pos: usize,
    reader_pos: usize,
}

/// The loops two statements share, outermost first: the iterator
/// dimensions of the longest common prefix of their schedules.
fn shared_loops(w: &[ScheduleDim], r: &[ScheduleDim]) -> Vec<SharedLoop> {
    let mut out = Vec::new();
    for (t, (a, b)) in w.iter().zip(r).enumerate() {
        match (a, b) {
            (ScheduleDim::Const(x), ScheduleDim::Const(y)) if x == y => {}
            (ScheduleDim::Iter(p), ScheduleDim::Iter(q)) => out.push(SharedLoop {
                key: w[..=t].iter().copied().map(step).collect(),
                writer_pos: *p,
                reader_pos: *q,
            }),
            _ => break,
        }
    }
    out
}

/// The loop-carried dependences with the nodes of their writer and reader:
/// data space by data space (declaration order), then writer, write,
/// reader, read, and loop (outermost first).
fn carried_dependences(
    comp: &Computation,
    infos: &[Info<'_>],
    loops: &[Loop],
    loop_of_key: &HashMap<Vec<Step>, usize>,
    prover: &Prover<'_>,
) -> Vec<(NodeIndex, NodeIndex, CarriedDependence)> {
    let mut out = Vec::new();
    for space in &comp.spaces {
        // The accesses (not method calls) of this space that write or read.
        let accesses = |write: bool| {
            infos.iter().flat_map(move |info| {
                info.uses
                    .iter()
                    .filter(move |u| u.write == write && u.data == space.name)
                    .filter_map(move |u| Some((info, u, u.index.as_deref()?)))
            })
        };
        for (w, wu, windex) in accesses(true) {
            for (r, ru, rindex) in accesses(false) {
                let shared = shared_loops(&w.dims, &r.dims);
                for k in 0..shared.len() {
                    let Some(l) = loop_of_key
                        .get(&shared[k].key)
                        .and_then(|&id| loops.get(id))
                    else {
                        continue;
                    };
                    let test = DependenceTest {
                        writer: w,
                        reader: r,
                        windex,
                        rindex,
                        shared: &shared[..=k],
                    };
                    if let Some(dep) = test.run(prover, &space.name, (wu, ru), l) {
                        out.push((w.node, r.node, dep));
                    }
                }
            }
        }
    }
    out
}

/// One question: is the dependence of a read on a write carried by the last
/// of `shared`?
struct DependenceTest<'a, 'c> {
    writer: &'a Info<'c>,
    reader: &'a Info<'c>,
    windex: &'a [Expr],
    rindex: &'a [Expr],
    shared: &'a [SharedLoop],
}

impl DependenceTest<'_, '_> {
    /// The pairs `[Iw, Ir]` of the dependence set where, at the carrying
    /// loop, the writer's iteration comes first (`write_first`) or the
    /// reader's does.
    fn pairs(&self, write_first: bool) -> Set {
        let wd = &self.writer.stmt.domain;
        let rd = &self.reader.stmt.domain;
        let (nw, nr) = (wd.arity(), rd.arity());
        let mut names: Vec<String> = (0..nw)
            .map(|p| tuple_name(&self.writer.iterators, p))
            .collect();
        names.extend((0..nr).map(|p| format!("{}'", tuple_name(&self.reader.iterators, p))));
        let reader_var = |p: usize| Var::Tuple(nw + p);
        let shift = |e: &Expr| {
            e.rename_vars(&mut |v| match v {
                Var::Tuple(p) => reader_var(p),
                other => other,
            })
        };
        let wvar = |p: usize| Expr::var(Var::Tuple(p));
        let rvar = |p: usize| Expr::var(reader_var(p));

        let mut linking: Vec<Normalized> = Vec::new();
        for (a, b) in self.windex.iter().zip(self.rindex) {
            linking.push(Constraint::equal(a, &shift(b)));
        }
        let (outer, carrier) = match self.shared.split_last() {
            Some((c, o)) => (o, c),
            None => return Set::empty(nw + nr),
        };
        for l in outer {
            linking.push(Constraint::equal(&wvar(l.writer_pos), &rvar(l.reader_pos)));
        }
        let (wi, ri) = (wvar(carrier.writer_pos), rvar(carrier.reader_pos));
        linking.push(if write_first {
            Constraint::lt(&wi, &ri)
        } else {
            Constraint::lt(&ri, &wi)
        });

        let mut conjunctions = Vec::new();
        for cw in wd.conjunctions() {
            for cr in rd.conjunctions() {
                let mut constraints = cw.embedded_constraints(&Var::Tuple, 0);
                constraints.extend(cr.embedded_constraints(&reader_var, cw.num_exists()));
                constraints.extend(linking.iter().cloned());
                let mut exists = cw.exist_names().to_vec();
                exists.extend(cr.exist_names().iter().cloned());
                if let Some(c) = Conjunction::from_parts(names.clone(), exists, constraints) {
                    conjunctions.push(c);
                }
            }
        }
        Set::from_formula(Formula::from_conjunctions(nw + nr, conjunctions))
    }

    /// The dependence carried by `carrier` (the last shared loop), unless
    /// the prover rules it out.
    fn run(
        &self,
        prover: &Prover<'_>,
        space: &str,
        (wu, ru): (&Use, &Use),
        carrier: &Loop,
    ) -> Option<CarriedDependence> {
        let flow_set = self.pairs(true);
        let anti_set = self.pairs(false);
        let flow = prover.is_empty(&flow_set);
        let anti = prover.is_empty(&anti_set);
        if flow == Verdict::Proved && anti == Verdict::Proved {
            return None;
        }
        let verdict = if flow == Verdict::NotProved || anti == Verdict::NotProved {
            Verdict::NotProved
        } else {
            Verdict::Unknown
        };
        let pairs = match (flow, anti) {
            (Verdict::Proved, _) => anti_set,
            (_, Verdict::Proved) => flow_set,
            _ => flow_set.union(&anti_set).unwrap_or(flow_set),
        };
        Some(CarriedDependence {
            space: space.to_string(),
            writer: self.writer.stmt.name.clone(),
            reader: self.reader.stmt.name.clone(),
            write: wu.label.clone(),
            read: ru.label.clone(),
            loop_id: carrier.id,
            iterator: carrier.iterator.clone(),
            flow: flow != Verdict::Proved,
            anti: anti != Verdict::Proved,
            verdict,
            pairs,
        })
    }
}

fn tuple_name(iterators: &[String], p: usize) -> String {
    iterators
        .get(p)
        .filter(|n| !n.is_empty())
        .cloned()
        .unwrap_or_else(|| format!("t{p}"))
}
