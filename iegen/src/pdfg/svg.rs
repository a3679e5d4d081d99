//! The PDFG as SVG, laid out and drawn by `layout-rs`.
//!
//! layout-rs has no clusters, so each loop becomes an ellipse node `for i`
//! with gray dotted edges to the loops and statements directly inside it.

use std::any::Any;
use std::cell::Cell;
use std::collections::HashMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use layout::backends::svg::SVGWriter;
use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::style::{LineStyleKind, StyleAttr};
use layout::std_shapes::render::get_shape_size;
use layout::std_shapes::shapes::{Arrow, Element, LineEndKind, ShapeKind};
use layout::topo::layout::VisualGraph;
use petgraph::visit::EdgeRef;

use super::{DataKind, Pdfg, PdfgEdge, PdfgError, PdfgNode};

const FONT: usize = 14;
const DIR: Orientation = Orientation::TopToBottom;

fn style(line: &str, fill: &str, rounded: usize) -> StyleAttr {
    StyleAttr::new(Color::fast(line), 1, Some(Color::fast(fill)), rounded, FONT)
}

fn element(shape: ShapeKind, look: StyleAttr) -> Element {
    let size = get_shape_size(DIR, &shape, FONT, false);
    Element::create(shape, look, DIR, size)
}

fn arrow(text: &str, color: &str, line: LineStyleKind, end: LineEndKind) -> Arrow {
    let look = StyleAttr::new(Color::fast(color), 1, None, 0, FONT);
    Arrow::new(LineEndKind::None, end, line, text, &look, &None, &None)
}

/// The graph as layout-rs sees it.
fn visual_graph(p: &Pdfg) -> VisualGraph {
    let mut vg = VisualGraph::new(DIR);
    let mut handles = HashMap::new();
    for n in p.graph.node_indices() {
        let node = &p.graph[n];
        let label = node.label();
        let look = match node {
            PdfgNode::Statement(_) => style("black", "white", 12),
            PdfgNode::Data(d) => match d.kind {
                DataKind::Space { .. } => style("black", "white", 0),
                DataKind::Object { .. } => style("gray", "white", 0),
            },
            PdfgNode::Domain(_) => style("black", "lightgray", 0),
        };
        handles.insert(n, vg.add_node(element(ShapeKind::Box(label), look)));
    }
    let loops: Vec<_> = p
        .loops
        .iter()
        .map(|l| {
            vg.add_node(element(
                ShapeKind::Circle(l.label()),
                style("gray40", "whitesmoke", 0),
            ))
        })
        .collect();
    let nesting = || arrow("", "gray", LineStyleKind::Dotted, LineEndKind::Arrow);
    for l in &p.loops {
        if let Some(parent) = l.parent.and_then(|q| loops.get(q)) {
            vg.add_edge(nesting(), *parent, loops[l.id]);
        }
    }
    for n in p.graph.node_indices() {
        if let PdfgNode::Statement(s) = &p.graph[n] {
            if let Some(inner) = s.loops.last().and_then(|&l| loops.get(l)) {
                vg.add_edge(nesting(), *inner, handles[&n]);
            }
        }
    }
    for e in p.graph.edge_references() {
        let a = match e.weight() {
            PdfgEdge::Read(a) | PdfgEdge::Write(a) => {
                arrow(&a.label, "black", LineStyleKind::Normal, LineEndKind::Arrow)
            }
            PdfgEdge::Domain => arrow("", "black", LineStyleKind::Dotted, LineEndKind::None),
            PdfgEdge::Carried(d) => {
                arrow(&d.label(), "red", LineStyleKind::Dashed, LineEndKind::Arrow)
            }
        };
        vg.add_edge(a, handles[&e.source()], handles[&e.target()]);
    }
    if vg.num_nodes() == 0 {
        // layout-rs cannot lay out an empty graph: draw a placeholder.
        let name = if p.name.is_empty() {
            "empty computation"
        } else {
            &p.name
        };
        vg.add_node(element(
            ShapeKind::Box(format!("{name} (no statements)")),
            style("gray", "white", 0),
        ));
    }
    vg
}

/// How hard layout-rs tries: its optimizations (edge-crossing reduction)
/// and its layout passes (Brandes–Köpf placement, edge straightening) each
/// have assertions that some graphs trip, so the later attempts drop them.
const ATTEMPTS: [(bool, bool); 3] = [(false, false), (true, false), (true, true)];

thread_local! {
    /// Set while this thread runs layout-rs, whose panics are expected.
    static IN_LAYOUT: Cell<bool> = const { Cell::new(false) };
}

/// Installs (once) a panic hook that keeps quiet about panics inside
/// layout-rs and hands every other panic to the previous hook.
fn quiet_layout_panics() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !IN_LAYOUT.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

fn message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "layout-rs panicked".to_string())
}

pub(super) fn to_svg(p: &Pdfg) -> Result<String, PdfgError> {
    quiet_layout_panics();
    let mut failure = String::new();
    for (disable_opt, disable_layout) in ATTEMPTS {
        let mut vg = visual_graph(p);
        IN_LAYOUT.with(|f| f.set(true));
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            let mut svg = SVGWriter::new();
            vg.do_it(false, disable_opt, disable_layout, &mut svg);
            svg.finalize()
        }));
        IN_LAYOUT.with(|f| f.set(false));
        match result {
            Ok(svg) => return Ok(svg),
            Err(payload) => failure = message(payload.as_ref()),
        }
    }
    Err(PdfgError::Layout(failure))
}
