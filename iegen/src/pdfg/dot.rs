//! The PDFG in graphviz DOT: loops as nested clusters.

use std::fmt::Write;

use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;

use super::text::dot_escape;
use super::{DataKind, Pdfg, PdfgEdge, PdfgNode};

/// The DOT identifier of a node.
fn id(n: NodeIndex) -> String {
    format!("n{}", n.index())
}

fn node_line(out: &mut String, indent: &str, p: &Pdfg, n: NodeIndex) {
    let node = &p.graph[n];
    let style = match node {
        PdfgNode::Statement(_) => "shape=box, style=rounded",
        PdfgNode::Data(d) => match d.kind {
            DataKind::Space { .. } => "shape=box",
            DataKind::Object { .. } => "shape=box, style=dashed",
        },
        PdfgNode::Domain(_) => "shape=box, style=filled, fillcolor=lightgray",
    };
    let _ = writeln!(
        out,
        "{indent}{} [label=\"{}\", {style}];",
        id(n),
        dot_escape(&node.label())
    );
}

/// The statement node called `name` and its domain node.
fn statement_and_domain(p: &Pdfg, name: &str) -> Vec<NodeIndex> {
    p.graph
        .node_indices()
        .filter(|&i| match &p.graph[i] {
            PdfgNode::Statement(s) => s.name == name,
            PdfgNode::Domain(d) => d.stmt == name,
            PdfgNode::Data(_) => false,
        })
        .collect()
}

fn cluster(out: &mut String, p: &Pdfg, loop_id: usize, depth: usize) {
    let indent = "  ".repeat(depth + 1);
    let l = &p.loops[loop_id];
    let _ = writeln!(out, "{indent}subgraph cluster_loop{} {{", l.id);
    let inner = format!("{indent}  ");
    let _ = writeln!(out, "{inner}label=\"{}\";", dot_escape(&l.label()));
    let _ = writeln!(out, "{inner}style=rounded;");
    let _ = writeln!(out, "{inner}color=gray40;");
    for stmt in &l.statements {
        for n in statement_and_domain(p, stmt) {
            node_line(out, &inner, p, n);
        }
    }
    for child in p.loops.iter().filter(|c| c.parent == Some(loop_id)) {
        cluster(out, p, child.id, depth + 1);
    }
    let _ = writeln!(out, "{indent}}}");
}

pub(super) fn to_dot(p: &Pdfg) -> String {
    let name = if p.name.is_empty() { "pdfg" } else { &p.name };
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", dot_escape(name));
    out.push_str("  graph [rankdir=TB, compound=true];\n");
    out.push_str("  node [fontname=\"Helvetica\"];\n");
    out.push_str("  edge [fontname=\"Helvetica\"];\n");

    // Data nodes and the statements outside every loop.
    for n in p.graph.node_indices() {
        let top = match &p.graph[n] {
            PdfgNode::Data(_) => true,
            PdfgNode::Statement(s) => s.loops.is_empty(),
            PdfgNode::Domain(d) => p.statement_node(&d.stmt).is_none_or(|s| s.loops.is_empty()),
        };
        if top {
            node_line(&mut out, "  ", p, n);
        }
    }
    for l in p.loops.iter().filter(|l| l.parent.is_none()) {
        cluster(&mut out, p, l.id, 0);
    }

    for e in p.graph.edge_references() {
        let (from, to) = (id(e.source()), id(e.target()));
        let attrs = match e.weight() {
            PdfgEdge::Read(a) | PdfgEdge::Write(a) => {
                format!("label=\"{}\"", dot_escape(&a.label))
            }
            PdfgEdge::Domain => "style=dotted, arrowhead=none".to_string(),
            PdfgEdge::Carried(d) => format!(
                "label=\"{}\", color=red, fontcolor=red, style=dashed, constraint=false",
                dot_escape(&d.label())
            ),
        };
        let _ = writeln!(out, "  {from} -> {to} [{attrs}];");
    }
    out.push_str("}\n");
    out
}
