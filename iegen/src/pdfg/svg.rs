//! The PDFG as SVG, laid out here: no graphviz, and the loop nests kept.
//!
//! The layout follows the program. Down the middle, the statements in
//! execution order, each loop a rectangle labelled `for i` around the
//! statements and loops inside it (nested loops are nested rectangles).
//! Inputs and intermediates stand in a column on the left, outputs in a
//! column on the right, each data node level with the statements that use
//! it (the mean of its edges' ends, pushed down where boxes would overlap).
//! Every edge ends at a port of its own on the side of its statement's box
//! (the box is tall enough for all of them), so no two edge labels share a
//! line: a label sits in a lane beside the program, above its edge (cut
//! at 32 characters; the statement's box shows the whole access).
//! Dependences between statements (carried, fused) run through a lane
//! right of the program, in columns that keep their labels apart. Text is
//! monospace, measured as 0.6 em per character; the picture is drawn at
//! its natural size (`width` and `height` in pixels), so a browser opens it
//! with the text at 13 px. A legend at the bottom explains fills and
//! strokes.
//!
//! The elements carry their meaning for tests and tools: `class="loop"`
//! rectangles with `data-loop`, `class="stmt"` and `class="data input"`
//! (`intermediate`, `output`) groups with `data-name`, and `class="edge
//! read"` (`write`, `domain`, `carried`, `fused`) paths with `data-from`
//! and `data-to`.

use std::collections::HashMap;
use std::fmt::Write;

use petgraph::graph::{EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;

use super::dot::{class_fill, class_name, CARRIED, FUSED};
use super::{DataClass, DataKind, Pdfg, PdfgEdge, PdfgNode};

const FONT: f64 = 13.0;
const SMALL: f64 = 11.0;
/// Advance of one monospace character, per px of font size.
const ADVANCE: f64 = 0.6;
const LINE: f64 = 18.0;
const PAD: f64 = 8.0;
const GAP: f64 = 12.0;
const INDENT: f64 = 16.0;
const HEADER: f64 = 24.0;
const ROUTE: f64 = 110.0;
const MARGIN: f64 = 16.0;

fn width_of(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * ADVANCE
}

/// A rectangle.
#[derive(Clone, Copy, Debug, Default)]
struct Rect {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

impl Rect {
    fn right(&self) -> f64 {
        self.x + self.w
    }
    fn bottom(&self) -> f64 {
        self.y + self.h
    }
}

/// Which column a data node stands in.
fn on_left(p: &Pdfg, n: NodeIndex) -> bool {
    match &p.graph[n] {
        PdfgNode::Data(d) => d.class() != DataClass::Output,
        PdfgNode::Statement(_) => false,
    }
}

/// An item of the program column: a statement or a loop.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Item {
    Stmt(NodeIndex),
    Loop(usize),
}

/// The layout under construction.
struct Layout<'p> {
    p: &'p Pdfg,
    /// Execution rank of each statement node.
    rank: HashMap<NodeIndex, usize>,
    /// The edges at the left and right sides of each statement, in port order.
    left: HashMap<NodeIndex, Vec<EdgeIndex>>,
    right: HashMap<NodeIndex, Vec<EdgeIndex>>,
    boxes: HashMap<NodeIndex, Rect>,
    loops: HashMap<usize, Rect>,
}

impl<'p> Layout<'p> {
    fn new(p: &'p Pdfg) -> Self {
        let rank: HashMap<NodeIndex, usize> = p
            .order
            .iter()
            .enumerate()
            .filter_map(|(r, s)| Some((p.statement(s)?, r)))
            .collect();
        let mut left: HashMap<NodeIndex, Vec<EdgeIndex>> = HashMap::new();
        let mut right: HashMap<NodeIndex, Vec<EdgeIndex>> = HashMap::new();
        for e in p.graph.edge_references() {
            match e.weight() {
                PdfgEdge::Read(_) => {
                    let side = if on_left(p, e.source()) {
                        &mut left
                    } else {
                        &mut right
                    };
                    side.entry(e.target()).or_default().push(e.id());
                }
                PdfgEdge::Write(_) => {
                    let side = if on_left(p, e.target()) {
                        &mut left
                    } else {
                        &mut right
                    };
                    side.entry(e.source()).or_default().push(e.id());
                }
                PdfgEdge::Carried(_) | PdfgEdge::Fused(_) => {
                    right.entry(e.source()).or_default().push(e.id());
                    if e.source() != e.target() {
                        right.entry(e.target()).or_default().push(e.id());
                    } else {
                        right.entry(e.source()).or_default().push(e.id());
                    }
                }
            }
        }
        // Ports in the order of the data nodes (graph order), dependences last.
        for ports in left.values_mut().chain(right.values_mut()) {
            ports.sort_by_key(|&e| {
                let (a, b) = p.graph.edge_endpoints(e).expect("edge");
                match p.graph[e] {
                    PdfgEdge::Read(_) => (0, a.index(), e.index()),
                    PdfgEdge::Write(_) => (0, b.index(), e.index()),
                    _ => (1, e.index(), 0),
                }
            });
        }
        Layout {
            p,
            rank,
            left,
            right,
            boxes: HashMap::new(),
            loops: HashMap::new(),
        }
    }

    fn ports(&self, n: NodeIndex) -> usize {
        let count = |m: &HashMap<NodeIndex, Vec<EdgeIndex>>| m.get(&n).map_or(0, Vec::len);
        count(&self.left).max(count(&self.right))
    }

    fn statement_size(&self, n: NodeIndex) -> (f64, f64) {
        let lines = self.p.graph[n].lines();
        let w = lines.iter().map(|l| width_of(l, FONT)).fold(0.0, f64::max) + 2.0 * PAD;
        let rows = lines.len().max(self.ports(n)) as f64;
        (w, rows * LINE + 8.0)
    }

    /// The items directly inside `parent` (`None`: the top level), in
    /// execution order.
    fn children(&self, parent: Option<usize>) -> Vec<Item> {
        let mut items: Vec<(usize, Item)> = Vec::new();
        for (&n, &r) in &self.rank {
            if let PdfgNode::Statement(s) = &self.p.graph[n] {
                if s.loops.last().copied() == parent {
                    items.push((r, Item::Stmt(n)));
                }
            }
        }
        for l in self.p.loops.iter().filter(|l| l.parent == parent) {
            if let Some(first) = self.first_rank(l.id) {
                items.push((first, Item::Loop(l.id)));
            }
        }
        items.sort_by_key(|(r, _)| *r);
        items.into_iter().map(|(_, i)| i).collect()
    }

    /// The earliest execution rank inside loop `id`.
    fn first_rank(&self, id: usize) -> Option<usize> {
        self.rank
            .iter()
            .filter(|(n, _)| {
                matches!(&self.p.graph[**n], PdfgNode::Statement(s) if s.loops.contains(&id))
            })
            .map(|(_, r)| *r)
            .min()
    }

    fn size(&self, item: Item) -> (f64, f64) {
        match item {
            Item::Stmt(n) => self.statement_size(n),
            Item::Loop(id) => {
                let children = self.children(Some(id));
                let (mut w, mut h) = (width_of(&self.p.loops[id].label(), FONT) + 2.0 * PAD, 0.0);
                for (k, c) in children.iter().enumerate() {
                    let (cw, ch) = self.size(*c);
                    w = f64::max(w, cw + 2.0 * INDENT);
                    h += ch + if k > 0 { GAP } else { 0.0 };
                }
                (w, HEADER + h + INDENT * 0.75)
            }
        }
    }

    /// Places `item` with its top-left corner at (x, y).
    fn place(&mut self, item: Item, x: f64, y: f64) -> f64 {
        let (w, h) = self.size(item);
        match item {
            Item::Stmt(n) => {
                self.boxes.insert(n, Rect { x, y, w, h });
            }
            Item::Loop(id) => {
                self.loops.insert(id, Rect { x, y, w, h });
                let mut cy = y + HEADER;
                for c in self.children(Some(id)) {
                    cy = self.place(c, x + INDENT, cy) + GAP;
                }
            }
        }
        y + h
    }

    /// The y of port `k` of a statement box.
    fn port_y(&self, n: NodeIndex, k: usize) -> f64 {
        self.boxes[&n].y + 4.0 + (k as f64 + 0.5) * LINE
    }

    /// The y of the port of edge `e` on the given side of statement `n`
    /// (the `nth` port of that edge there, for a dependence from a
    /// statement to itself).
    fn port_of(&self, n: NodeIndex, e: EdgeIndex, left: bool, nth: usize) -> f64 {
        let side = if left { &self.left } else { &self.right };
        let k = side
            .get(&n)
            .and_then(|ports| ports.iter().enumerate().filter(|(_, x)| **x == e).nth(nth))
            .map_or(0, |(k, _)| k);
        self.port_y(n, k)
    }
}

/// The longest edge label drawn whole; the statement's box shows the
/// full access.
const LABEL_CHARS: usize = 32;

/// An edge label, cut to [`LABEL_CHARS`] characters with `…`.
fn short(label: &str) -> String {
    if label.chars().count() <= LABEL_CHARS {
        label.to_string()
    } else {
        let mut cut: String = label.chars().take(LABEL_CHARS - 1).collect();
        cut.push('…');
        cut
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn text(out: &mut String, x: f64, y: f64, size: f64, fill: &str, extra: &str, s: &str) {
    let _ = writeln!(
        out,
        "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"{size}\" fill=\"{fill}\"{extra}>{}</text>",
        esc(s)
    );
}

/// A data node's box, placed in its column.
struct DataBox {
    node: NodeIndex,
    rect: Rect,
}

/// Stacks the data nodes of one column, each as near as it can be to the
/// mean y of its ports.
fn column(ideal: Vec<(NodeIndex, f64, f64)>, x: f64, top: f64) -> Vec<DataBox> {
    let mut ideal = ideal;
    ideal.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let h = LINE + 8.0;
    let mut next = top;
    let mut out = Vec::new();
    for (node, want, w) in ideal {
        let y = f64::max(want - h / 2.0, next);
        next = y + h + GAP;
        out.push(DataBox {
            node,
            rect: Rect { x, y, w, h },
        });
    }
    out
}

/// A dependence edge routed through the dependence lane.
struct DepRoute {
    edge: EdgeIndex,
    from: (f64, f64),
    to: (f64, f64),
    label: String,
    color: &'static str,
    class: &'static str,
    column: usize,
}

pub(super) fn to_svg(p: &Pdfg) -> String {
    let mut lay = Layout::new(p);
    let title = if p.name.is_empty() {
        "PDFG".to_string()
    } else {
        format!("PDFG of {}", p.name)
    };

    // Widths of the columns and lanes.
    let data_width = |left: bool| {
        p.graph
            .node_indices()
            .filter(|&n| matches!(p.graph[n], PdfgNode::Data(_)) && on_left(p, n) == left)
            .map(|n| width_of(&p.graph[n].label(), FONT) + 2.0 * PAD)
            .fold(0.0, f64::max)
    };
    let label_width = |side: &HashMap<NodeIndex, Vec<EdgeIndex>>| {
        side.values()
            .flatten()
            .filter_map(|&e| match &p.graph[e] {
                PdfgEdge::Read(a) | PdfgEdge::Write(a) => {
                    Some(width_of(&short(&a.label), SMALL) + 12.0)
                }
                _ => None,
            })
            .fold(0.0, f64::max)
    };
    let (wl, wr) = (data_width(true), data_width(false));
    let (ll, lr) = (label_width(&lay.left), label_width(&lay.right));
    let program_x = MARGIN + wl + if wl > 0.0 { ROUTE } else { 0.0 } + ll;
    let top = MARGIN + 2.0 * LINE;

    // The program column.
    let mut y = top;
    let mut program_w: f64 = 0.0;
    for item in lay.children(None) {
        program_w = program_w.max(lay.size(item).0);
        y = lay.place(item, program_x, y) + GAP;
    }
    let program_bottom = y;
    let program_right = program_x + program_w;

    // Dependences, in columns of the lane right of the program.
    let mut deps: Vec<DepRoute> = Vec::new();
    for e in p.graph.edge_references() {
        let (label, color, class) = match e.weight() {
            PdfgEdge::Carried(d) => (d.label(), CARRIED, "carried"),
            PdfgEdge::Fused(d) => (d.label(), FUSED, "fused"),
            _ => continue,
        };
        let (a, b) = (e.source(), e.target());
        let from = (lay.boxes[&a].right(), lay.port_of(a, e.id(), false, 0));
        let to_nth = usize::from(a == b);
        let to = (lay.boxes[&b].right(), lay.port_of(b, e.id(), false, to_nth));
        deps.push(DepRoute {
            edge: e.id(),
            from,
            to,
            label,
            color,
            class,
            column: 0,
        });
    }
    let dep_col_w = deps
        .iter()
        .map(|d| width_of(&d.label, SMALL) + 18.0)
        .fold(0.0, f64::max);
    let mut column_bottoms: Vec<f64> = Vec::new();
    deps.sort_by(|a, b| a.from.1.min(a.to.1).total_cmp(&b.from.1.min(b.to.1)));
    for d in &mut deps {
        let (lo, hi) = (
            d.from.1.min(d.to.1),
            d.from.1.max(d.to.1).max(d.from.1.min(d.to.1) + LINE),
        );
        let k = column_bottoms
            .iter()
            .position(|&b| b + 6.0 < lo)
            .unwrap_or(column_bottoms.len());
        if k == column_bottoms.len() {
            column_bottoms.push(hi);
        } else {
            column_bottoms[k] = hi;
        }
        d.column = k;
    }
    let dep_lane = column_bottoms.len() as f64 * dep_col_w;
    let lane_x = program_right + 10.0;
    let right_labels_x = lane_x + dep_lane;
    let right_data_x = right_labels_x + lr + ROUTE;

    // Data columns.
    let mut ideal: HashMap<NodeIndex, Vec<f64>> = HashMap::new();
    for (side, is_left) in [(&lay.left, true), (&lay.right, false)] {
        for (&n, ports) in side {
            for (k, &e) in ports.iter().enumerate() {
                let (a, b) = p.graph.edge_endpoints(e).expect("edge");
                let other = if a == n { b } else { a };
                if matches!(p.graph[other], PdfgNode::Data(_)) && on_left(p, other) == is_left {
                    ideal.entry(other).or_default().push(lay.port_y(n, k));
                }
            }
        }
    }
    let mut boxes: Vec<DataBox> = Vec::new();
    for (left, x, w) in [(true, MARGIN, wl), (false, right_data_x, wr)] {
        let wants: Vec<(NodeIndex, f64, f64)> = p
            .graph
            .node_indices()
            .filter(|&n| matches!(p.graph[n], PdfgNode::Data(_)) && on_left(p, n) == left)
            .map(|n| {
                let ys = ideal.get(&n).cloned().unwrap_or_default();
                let want = if ys.is_empty() {
                    program_bottom
                } else {
                    ys.iter().sum::<f64>() / ys.len() as f64
                };
                (n, want, w)
            })
            .collect();
        boxes.extend(column(wants, x, top));
    }
    let data_rect: HashMap<NodeIndex, Rect> = boxes.iter().map(|b| (b.node, b.rect)).collect();

    let content_bottom = boxes
        .iter()
        .map(|b| b.rect.bottom())
        .fold(program_bottom, f64::max);
    let legend_y = content_bottom + LINE;
    let width = (right_data_x + wr + MARGIN).max(legend_width() + 2.0 * MARGIN);
    let height = legend_y + 3.0 * LINE + MARGIN;

    // Drawing.
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\">"
    );
    out.push_str("<defs>\n");
    for (id, color) in [("ink", "#333333"), ("carried", CARRIED), ("fused", FUSED)] {
        let _ = writeln!(
            out,
            "<marker id=\"arrow-{id}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"{color}\"/></marker>"
        );
    }
    out.push_str("</defs>\n");
    let _ = writeln!(
        out,
        "<rect x=\"0\" y=\"0\" width=\"{width:.0}\" height=\"{height:.0}\" fill=\"white\"/>"
    );
    text(
        &mut out,
        MARGIN,
        MARGIN + FONT,
        FONT + 2.0,
        "#000",
        " font-weight=\"bold\"",
        &title,
    );

    // Loops, outermost first, so inner ones are drawn on top.
    let mut loop_ids: Vec<usize> = lay.loops.keys().copied().collect();
    loop_ids.sort_by_key(|&id| (p.loops[id].depth, id));
    for id in loop_ids {
        let r = lay.loops[&id];
        let _ = writeln!(
            out,
            "<rect class=\"loop\" data-loop=\"{id}\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"8\" fill=\"#7f7f7f\" fill-opacity=\"0.07\" stroke=\"#5f5f5f\" stroke-width=\"1.4\"/>",
            r.x, r.y, r.w, r.h
        );
        text(
            &mut out,
            r.x + PAD,
            r.y + FONT + 4.0,
            FONT,
            "#333",
            " class=\"loop-label\" font-weight=\"bold\"",
            &p.loops[id].label(),
        );
    }

    // Statement boxes.
    let mut stmts: Vec<(&NodeIndex, &Rect)> = lay.boxes.iter().collect();
    stmts.sort_by_key(|(n, _)| n.index());
    for (&n, r) in stmts {
        let PdfgNode::Statement(s) = &p.graph[n] else {
            continue;
        };
        let dash = if s.runs {
            ""
        } else {
            " stroke-dasharray=\"4,3\""
        };
        let _ = writeln!(out, "<g class=\"stmt\" data-name=\"{}\">", esc(&s.name));
        let _ = writeln!(
            out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"6\" fill=\"white\" stroke=\"#000\" stroke-width=\"1.2\"{dash}/>",
            r.x, r.y, r.w, r.h
        );
        for (k, line) in s.lines().iter().enumerate() {
            let fill = if k == 0 { "#000" } else { "#555" };
            text(
                &mut out,
                r.x + PAD,
                r.y + 4.0 + (k as f64 + 0.5) * LINE + FONT * 0.35,
                FONT,
                fill,
                "",
                line,
            );
        }
        out.push_str("</g>\n");
    }

    // Data boxes.
    for b in &boxes {
        let PdfgNode::Data(d) = &p.graph[b.node] else {
            continue;
        };
        let r = b.rect;
        let dash = match d.kind {
            DataKind::Space { .. } => "",
            DataKind::Object { .. } => " stroke-dasharray=\"5,3\"",
        };
        let _ = writeln!(
            out,
            "<g class=\"data {}\" data-name=\"{}\">",
            class_name(d.class()),
            esc(&d.name)
        );
        let _ = writeln!(
            out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\" stroke=\"#000\" stroke-width=\"1.2\"{dash}/>",
            r.x, r.y, r.w, r.h, class_fill(d.class())
        );
        text(
            &mut out,
            r.x + PAD,
            r.y + r.h / 2.0 + FONT * 0.35,
            FONT,
            "#000",
            "",
            &d.label(),
        );
        out.push_str("</g>\n");
    }

    // Reads and writes: a curve through the routing lane, a straight run
    // to the port, the label above the straight run.
    let left_labels_x = program_x - ll;
    for (side, is_left) in [(&lay.left, true), (&lay.right, false)] {
        let mut nodes: Vec<&NodeIndex> = side.keys().collect();
        nodes.sort();
        for &n in nodes {
            for (k, &e) in side[&n].iter().enumerate() {
                let (label, class, dotted) = match &p.graph[e] {
                    PdfgEdge::Read(a) if a.in_domain => (&a.label, "domain", true),
                    PdfgEdge::Read(a) => (&a.label, "read", false),
                    PdfgEdge::Write(a) => (&a.label, "write", false),
                    _ => continue,
                };
                let (a, b) = p.graph.edge_endpoints(e).expect("edge");
                let data = if a == n { b } else { a };
                let d = data_rect[&data];
                let s = lay.boxes[&n];
                let py = lay.port_y(n, k);
                let (dx, sx, lane) = if is_left {
                    (d.right(), s.x, left_labels_x)
                } else {
                    (d.x, s.right(), right_labels_x + lr)
                };
                let dy = d.y + d.h / 2.0;
                let bend = if is_left { ROUTE / 2.0 } else { -ROUTE / 2.0 };
                let curve = format!(
                    "M{dx:.1},{dy:.1} C{:.1},{dy:.1} {:.1},{py:.1} {lane:.1},{py:.1} L{sx:.1},{py:.1}",
                    dx + bend,
                    lane - bend
                );
                let reversed = format!(
                    "M{sx:.1},{py:.1} L{lane:.1},{py:.1} C{:.1},{py:.1} {:.1},{dy:.1} {dx:.1},{dy:.1}",
                    lane - bend,
                    dx + bend
                );
                let path = if class == "write" { reversed } else { curve };
                let dash = if dotted {
                    " stroke-dasharray=\"2,3\""
                } else {
                    ""
                };
                let (from, to) = (p.graph[a].name(), p.graph[b].name());
                let _ = writeln!(
                    out,
                    "<path class=\"edge {class}\" data-from=\"{}\" data-to=\"{}\" d=\"{path}\" fill=\"none\" stroke=\"#333333\" stroke-width=\"1.1\"{dash} marker-end=\"url(#arrow-ink)\"/>",
                    esc(from),
                    esc(to)
                );
                let lx = if is_left {
                    left_labels_x + 4.0
                } else {
                    right_labels_x + 4.0
                };
                text(
                    &mut out,
                    lx,
                    py - 4.0,
                    SMALL,
                    "#222",
                    " class=\"edge-label\"",
                    &short(label),
                );
            }
        }
    }

    // Dependences.
    for d in &deps {
        let x = lane_x + d.column as f64 * dep_col_w + 6.0;
        let (a, b) = p.graph.edge_endpoints(d.edge).expect("edge");
        let _ = writeln!(
            out,
            "<path class=\"edge {}\" data-from=\"{}\" data-to=\"{}\" d=\"M{:.1},{:.1} L{x:.1},{:.1} L{x:.1},{:.1} L{:.1},{:.1}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.3\" stroke-dasharray=\"6,4\" marker-end=\"url(#arrow-{})\"/>",
            d.class,
            esc(p.graph[a].name()),
            esc(p.graph[b].name()),
            d.from.0, d.from.1, d.from.1, d.to.1, d.to.0, d.to.1, d.color, d.class
        );
        let ly = d.from.1.min(d.to.1) + SMALL + 2.0;
        text(
            &mut out,
            x + 5.0,
            ly,
            SMALL,
            d.color,
            " class=\"edge-label\"",
            &d.label,
        );
    }

    legend(&mut out, MARGIN, legend_y);
    out.push_str("</svg>\n");
    out
}

const LEGEND_ITEMS: [(&str, f64); 8] = [
    ("input", 70.0),
    ("intermediate", 120.0),
    ("runtime object", 140.0),
    ("output", 75.0),
    ("read / write", 130.0),
    ("domain read", 120.0),
    ("carried", 95.0),
    ("fused", 80.0),
];

fn legend_width() -> f64 {
    LEGEND_ITEMS.iter().map(|(_, w)| w + 10.0).sum()
}

/// Swatches for the fills and strokes, in one row.
fn legend(out: &mut String, x0: f64, y: f64) {
    let _ = writeln!(out, "<g class=\"legend\">");
    text(
        out,
        x0,
        y + SMALL,
        SMALL,
        "#333",
        " font-weight=\"bold\"",
        "legend",
    );
    let y = y + LINE;
    let mut x = x0;
    for (k, (name, w)) in LEGEND_ITEMS.iter().enumerate() {
        match k {
            0..=3 => {
                let class = [
                    DataClass::Input,
                    DataClass::Intermediate,
                    DataClass::Intermediate,
                    DataClass::Output,
                ][k];
                let dash = if k == 2 {
                    " stroke-dasharray=\"5,3\""
                } else {
                    ""
                };
                let _ = writeln!(
                    out,
                    "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{LINE}\" fill=\"{}\" stroke=\"#000\"{dash}/>",
                    w, class_fill(class)
                );
                text(
                    out,
                    x + 4.0,
                    y + LINE / 2.0 + SMALL * 0.35,
                    SMALL,
                    "#000",
                    "",
                    name,
                );
            }
            _ => {
                let (color, dash, marker) = match k {
                    4 => ("#333333", "", "ink"),
                    5 => ("#333333", " stroke-dasharray=\"2,3\"", "ink"),
                    6 => (CARRIED, " stroke-dasharray=\"6,4\"", "carried"),
                    _ => (FUSED, " stroke-dasharray=\"6,4\"", "fused"),
                };
                let ly = y + LINE / 2.0;
                let _ = writeln!(
                    out,
                    "<path d=\"M{x:.1},{ly:.1} L{:.1},{ly:.1}\" stroke=\"{color}\" stroke-width=\"1.3\"{dash} marker-end=\"url(#arrow-{marker})\"/>",
                    x + 28.0
                );
                text(out, x + 34.0, ly + SMALL * 0.35, SMALL, color, "", name);
            }
        }
        x += w + 10.0;
    }
    out.push_str("</g>\n");
}
