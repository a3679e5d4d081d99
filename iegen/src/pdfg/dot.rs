//! The PDFG in graphviz DOT: loops as nested clusters, data nodes filled
//! by class, and a legend.

use std::fmt::Write;

use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;

use super::text::dot_escape;
use super::{DataClass, DataKind, Pdfg, PdfgEdge, PdfgNode};

/// The fill of a data node of each class (shared with the SVG).
pub(super) fn class_fill(c: DataClass) -> &'static str {
    match c {
        DataClass::Input => "#d8f0d8",
        DataClass::Intermediate => "#fff1c9",
        DataClass::Output => "#d6e4fa",
    }
}

/// What the legend calls each class.
pub(super) fn class_name(c: DataClass) -> &'static str {
    match c {
        DataClass::Input => "input",
        DataClass::Intermediate => "intermediate",
        DataClass::Output => "output",
    }
}

/// The colours of the dependence edges (shared with the SVG).
pub(super) const CARRIED: &str = "#c62828";
pub(super) const FUSED: &str = "#1565c0";

/// The DOT identifier of a node.
fn id(n: NodeIndex) -> String {
    format!("n{}", n.index())
}

fn node_line(out: &mut String, indent: &str, p: &Pdfg, n: NodeIndex) {
    let node = &p.graph[n];
    let style = match node {
        PdfgNode::Statement(_) => "shape=box, style=rounded".to_string(),
        PdfgNode::Data(d) => {
            let border = match d.kind {
                DataKind::Space { .. } => "filled",
                DataKind::Object { .. } => "\"filled,dashed\"",
            };
            format!(
                "shape=box, style={border}, fillcolor=\"{}\"",
                class_fill(d.class())
            )
        }
    };
    let _ = writeln!(
        out,
        "{indent}{} [label=\"{}\", {style}];",
        id(n),
        dot_escape(&node.lines().join("\n"))
    );
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
        if let Some(n) = p.statement(stmt) {
            node_line(out, &inner, p, n);
        }
    }
    for child in p.loops.iter().filter(|c| c.parent == Some(loop_id)) {
        cluster(out, p, child.id, depth + 1);
    }
    let _ = writeln!(out, "{indent}}}");
}

/// A cluster explaining the fills and the edge styles.
fn legend(out: &mut String) {
    out.push_str("  subgraph cluster_legend {\n    label=\"legend\";\n    style=dashed;\n    color=gray60;\n");
    for c in [DataClass::Input, DataClass::Intermediate, DataClass::Output] {
        let _ = writeln!(
            out,
            "    legend_{0} [label=\"{0}\", shape=box, style=filled, fillcolor=\"{1}\"];",
            class_name(c),
            class_fill(c)
        );
    }
    out.push_str("    legend_object [label=\"runtime object\", shape=box, style=\"filled,dashed\", fillcolor=\"#fff1c9\"];\n");
    out.push_str("    legend_stmt [label=\"statement\", shape=box, style=rounded];\n");
    let _ = writeln!(
        out,
        "    legend_stmt -> legend_stmt [label=\"carried\", color=\"{CARRIED}\", fontcolor=\"{CARRIED}\", style=dashed];"
    );
    let _ = writeln!(
        out,
        "    legend_input -> legend_stmt [label=\"domain read\", style=dotted];\n    legend_intermediate -> legend_output [label=\"fused\", color=\"{FUSED}\", fontcolor=\"{FUSED}\", style=dashed];"
    );
    out.push_str("  }\n");
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
            PdfgEdge::Read(a) if a.in_domain => {
                format!("label=\"{}\", style=dotted", dot_escape(&a.label))
            }
            PdfgEdge::Read(a) | PdfgEdge::Write(a) => {
                format!("label=\"{}\"", dot_escape(&a.label))
            }
            PdfgEdge::Carried(d) => format!(
                "label=\"{}\", color=\"{CARRIED}\", fontcolor=\"{CARRIED}\", style=dashed, constraint=false",
                dot_escape(&d.label())
            ),
            PdfgEdge::Fused(d) => format!(
                "label=\"{}\", color=\"{FUSED}\", fontcolor=\"{FUSED}\", style=dashed, constraint=false",
                dot_escape(&d.label())
            ),
        };
        let _ = writeln!(out, "  {from} -> {to} [{attrs}];");
    }
    legend(&mut out);
    out.push_str("}\n");
    out
}
