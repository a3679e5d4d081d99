//! The PDFG of every built-in conversion and of the example computations:
//! its loops are the scanner's loops (one per loop of the generated code),
//! every index array the code reads is connected to the statements that
//! read it, and its structure (nodes, edges, cluster nesting) matches the
//! golden summaries in `tests/data/pdfg/` (`SPF_BLESS=1` rewrites them;
//! review the diff). The SVG is checked as a picture: rendered with resvg,
//! loops are nested rectangles around their statements, no two texts
//! overlap. `SPF_PDFG_PNG=DIR` also writes the PNGs there, to look at.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::OnceLock;

use spf::codegen::ast::{LoopProgram, Node};
use spf::codegen::scan::scan;
use spf::iegen::computation::{parse_computation, Computation};
use spf::iegen::pdfg::{Pdfg, PdfgEdge, PdfgNode};
use spf::iegen::UfEnvironment;
use spf::synth::builtin::{builtin_names_of_order, builtin_orders, load_format};
use spf::synth::synthesize::synthesize;

/// A case: its name, the computation, its UF environment.
struct Case {
    name: String,
    comp: Computation,
    env: UfEnvironment,
}

fn pair(src: &str, dst: &str) -> Case {
    let s = synthesize(
        &load_format(src).expect("built-in"),
        &load_format(dst).expect("built-in"),
    )
    .unwrap_or_else(|e| panic!("{src} -> {dst}: {e}"));
    Case {
        name: format!("{src}-{dst}"),
        env: s.env(),
        comp: s.computation,
    }
}

fn example(file: &str) -> Case {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(file);
    let text = std::fs::read_to_string(&path).expect("example exists");
    Case {
        name: file.trim_end_matches(".comp").to_string(),
        comp: parse_computation(&text).expect("example parses"),
        env: UfEnvironment::new(),
    }
}

fn examples() -> Vec<Case> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .expect("examples/")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|f| f.ends_with(".comp"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "examples/ has computations");
    files.iter().map(|f| example(f)).collect()
}

/// Every ordered pair of distinct built-in formats of one order.
fn all_pairs() -> Vec<(&'static str, &'static str)> {
    let mut out = Vec::new();
    for order in builtin_orders() {
        let names = builtin_names_of_order(order);
        for a in &names {
            for b in &names {
                if a != b {
                    out.push((*a, *b));
                }
            }
        }
    }
    out
}

// ------------------------------------------------------- the scanner's loops

/// Each loop of a nest as (its iterator without the scanner's `_`
/// suffixes, the statements inside it, the statements inside its parent).
type LoopShape = BTreeSet<(String, BTreeSet<String>, Option<BTreeSet<String>>)>;

fn scanner_loops(program: &LoopProgram) -> LoopShape {
    /// Returns the statements under `nodes`, adding the loops found.
    fn walk(
        program: &LoopProgram,
        nodes: &[Node],
        out: &mut Vec<(String, BTreeSet<String>, usize, Option<usize>)>,
        parent: Option<usize>,
    ) -> BTreeSet<String> {
        let mut all = BTreeSet::new();
        for n in nodes {
            match n {
                Node::For { var, body, .. } => {
                    let me = out.len();
                    out.push((
                        var.trim_end_matches('_').to_string(),
                        BTreeSet::new(),
                        me,
                        parent,
                    ));
                    let inner = walk(program, body, out, Some(me));
                    out[me].1 = inner.clone();
                    all.extend(inner);
                }
                Node::Let { body, .. } | Node::If { body, .. } => {
                    all.extend(walk(program, body, out, parent));
                }
                Node::Stmt { stmt, .. } => {
                    all.insert(program.computation.stmts[*stmt].name.clone());
                }
            }
        }
        all
    }
    let mut loops = Vec::new();
    walk(program, &program.body, &mut loops, None);
    loops
        .iter()
        .map(|(v, s, _, parent)| (v.clone(), s.clone(), parent.map(|p| loops[p].1.clone())))
        .collect()
}

fn pdfg_loops(p: &Pdfg) -> LoopShape {
    let inside = |id: usize| -> BTreeSet<String> {
        p.statements()
            .filter(|s| s.loops.contains(&id))
            .map(|s| s.name.clone())
            .collect()
    };
    p.loops()
        .iter()
        .map(|l| (l.iterator.clone(), inside(l.id), l.parent.map(inside)))
        .collect()
}

// ------------------------------------------------------------ the summary

/// The structure of a PDFG, one fact per line, sorted: nodes, edges, and
/// each statement's loops (cluster nesting), `let`s and locals.
fn summary(p: &Pdfg) -> String {
    let mut lines = BTreeSet::new();
    for n in p.graph().node_weights() {
        lines.insert(match n {
            PdfgNode::Data(d) => format!("data {} ({:?})", d.label(), d.class()),
            PdfgNode::Statement(s) => {
                let loops: Vec<String> = s.loops.iter().map(|&l| p.loops()[l].label()).collect();
                format!(
                    "stmt {} | loops [{}] | lets [{}] | locals [{}]{}",
                    s.label(),
                    loops.join(" / "),
                    s.lets.join(", "),
                    s.locals.join(", "),
                    if s.runs { "" } else { " | never runs" }
                )
            }
        });
    }
    let g = p.graph();
    for e in g.edge_indices() {
        let (a, b) = g.edge_endpoints(e).expect("edge");
        let (a, b) = (g[a].name(), g[b].name());
        lines.insert(match &g[e] {
            PdfgEdge::Read(x) if x.in_domain => format!("read {a} -> {b} : {} (domain)", x.label),
            PdfgEdge::Read(x) => format!("read {a} -> {b} : {}", x.label),
            PdfgEdge::Write(x) => format!("write {a} -> {b} : {}", x.label),
            PdfgEdge::Carried(d) => format!("carried {a} -> {b} : {}", d.label()),
            PdfgEdge::Fused(d) => format!("fused {a} -> {b} : {}", d.label()),
        });
    }
    let mut out: String = lines.into_iter().map(|l| l + "\n").collect();
    out.insert_str(0, &format!("# PDFG of {}\n", p.name()));
    out
}

fn golden(case: &Case, p: &Pdfg) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/pdfg")
        .join(format!("{}.txt", case.name));
    let got = summary(p);
    if std::env::var_os("SPF_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().expect("dir")).expect("golden dir");
        std::fs::write(&path, &got).expect("golden written");
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} is missing (SPF_BLESS=1 writes it)", path.display()));
    assert_eq!(got, want, "{}: the PDFG's structure changed", case.name);
}

// ------------------------------------------------------- checks of a case

/// The names of the data spaces that an index expression of `comp` reads
/// (UF calls and symbols naming a data space), by statement.
fn index_reads(comp: &Computation) -> BTreeMap<String, BTreeSet<String>> {
    let spaces: BTreeSet<&str> = comp.spaces.iter().map(|d| d.name.as_str()).collect();
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for s in &comp.stmts {
        let mut names = BTreeSet::new();
        let mut visit = |e: &spf::iegen::Expr| {
            e.for_each_call(&mut |f, _| {
                if spaces.contains(f) {
                    names.insert(f.to_string());
                }
            });
            e.for_each_sym(&mut |x| {
                if spaces.contains(x) {
                    names.insert(x.to_string());
                }
            });
        };
        for c in s.domain.conjunctions() {
            c.constraints().for_each(|k| visit(k.expr()));
        }
        s.body.for_each_expr(&mut visit);
        out.insert(s.name.clone(), names);
    }
    out
}

/// What holds for every PDFG: the scanner's loops, every index read an
/// edge (or a local of the statement), every data node drawn, the DOT's
/// clusters, the SVG's geometry.
fn check(case: &Case) -> Pdfg {
    // What `spf synth --emit ir` prints, `spf pdfg FILE` reads back, to
    // its canonical form (`8 * t` of a scalar `t` reads back as an index
    // expression), which reads back to itself.
    let read = |text: &str| {
        spf::iegen::computation::parse_computation(text)
            .unwrap_or_else(|e| {
                panic!(
                    "{}: the printed computation does not parse: {e}\n{text}",
                    case.name
                )
            })
            .to_string()
    };
    let canonical = read(&case.comp.to_string());
    assert_eq!(
        read(&canonical),
        canonical,
        "{}: read and printed again",
        case.name
    );
    let p = Pdfg::build(&case.comp, &case.env).unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let program = scan(&case.comp, &case.env).expect("scans");
    assert_eq!(
        pdfg_loops(&p),
        scanner_loops(&program),
        "{}: the PDFG's loops are not the scanner's",
        case.name
    );
    for (stmt, names) in index_reads(&case.comp) {
        let s = p.statement_node(&stmt).expect("statement node");
        for name in names {
            let edge = p.reads_of(&stmt).iter().any(|a| a.data == name);
            assert!(
                edge || s.locals.contains(&name),
                "{}: {stmt} reads {name} in an index expression but has no edge from it",
                case.name
            );
        }
    }
    let dot = p.to_dot();
    assert_eq!(
        dot.matches("subgraph cluster_loop").count(),
        p.loops().len(),
        "{}: one DOT cluster per loop",
        case.name
    );
    svg_geometry(&case.name, &p, &p.to_svg());
    p
}

// ------------------------------------------------------------- the picture

#[derive(Clone, Copy, Debug)]
struct Box2 {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

impl Box2 {
    fn contains(&self, o: &Box2) -> bool {
        o.x >= self.x
            && o.y >= self.y
            && o.x + o.w <= self.x + self.w
            && o.y + o.h <= self.y + self.h
    }
    fn overlaps(&self, o: &Box2) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }
}

fn attr(n: roxmltree::Node<'_, '_>, a: &str) -> f64 {
    n.attribute(a)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("<{}> has a numeric {a}", n.tag_name().name()))
}

fn rect_of(n: roxmltree::Node<'_, '_>) -> Box2 {
    Box2 {
        x: attr(n, "x"),
        y: attr(n, "y"),
        w: attr(n, "width"),
        h: attr(n, "height"),
    }
}

/// The box of a `<text>` as drawn: monospace at 0.6 em per character,
/// from the baseline up by the font size.
fn text_box(n: roxmltree::Node<'_, '_>) -> Box2 {
    let size = attr(n, "font-size");
    let chars = n.text().unwrap_or("").chars().count() as f64;
    Box2 {
        x: attr(n, "x"),
        y: attr(n, "y") - size * 0.8,
        w: chars * size * 0.6,
        h: size,
    }
}

/// Loops are rectangles nested as the loops are, around their statements'
/// boxes; statement and data boxes do not overlap; no two texts overlap.
fn svg_geometry(name: &str, p: &Pdfg, svg: &str) {
    let doc = roxmltree::Document::parse(svg).expect("the SVG is XML");
    let mut loops: BTreeMap<usize, Box2> = BTreeMap::new();
    let mut boxes: BTreeMap<String, Box2> = BTreeMap::new();
    for n in doc.descendants() {
        if n.has_tag_name("rect") && n.attribute("class") == Some("loop") {
            loops.insert(attr(n, "data-loop") as usize, rect_of(n));
        }
        let class = n.attribute("class").unwrap_or("");
        if n.has_tag_name("g") && (class == "stmt" || class.starts_with("data ")) {
            let rect = n
                .children()
                .find(|c| c.has_tag_name("rect"))
                .expect("a box");
            boxes.insert(
                n.attribute("data-name").expect("named").to_string(),
                rect_of(rect),
            );
        }
    }
    assert_eq!(
        loops.len(),
        p.loops().len(),
        "{name}: one rectangle per loop"
    );
    for l in p.loops() {
        if let Some(parent) = l.parent {
            assert!(
                loops[&parent].contains(&loops[&l.id]),
                "{name}: loop {} outside its parent",
                l.id
            );
        }
    }
    for s in p.statements() {
        let b = boxes[&s.name];
        for &l in &s.loops {
            assert!(
                loops[&l].contains(&b),
                "{name}: {} outside {}",
                s.name,
                p.loops()[l].label()
            );
        }
        for l in p.loops().iter().filter(|l| !s.loops.contains(&l.id)) {
            assert!(
                !loops[&l.id].overlaps(&b),
                "{name}: {} inside {}",
                s.name,
                l.label()
            );
        }
    }
    let all: Vec<(&String, &Box2)> = boxes.iter().collect();
    for (i, (a, ra)) in all.iter().enumerate() {
        for (b, rb) in &all[i + 1..] {
            assert!(!ra.overlaps(rb), "{name}: the boxes of {a} and {b} overlap");
        }
    }
    let texts: Vec<(String, Box2)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| (n.text().unwrap_or("").to_string(), text_box(n)))
        .collect();
    for (i, (a, ra)) in texts.iter().enumerate() {
        for (b, rb) in &texts[i + 1..] {
            assert!(
                !ra.overlaps(rb),
                "{name}: the texts `{a}` and `{b}` overlap"
            );
        }
    }
}

/// Renders the SVG with resvg; returns the pixmap.
fn render(svg: &str) -> resvg::tiny_skia::Pixmap {
    let mut options = resvg::usvg::Options::default();
    options.fontdb_mut().load_system_fonts();
    let tree = resvg::usvg::Tree::from_str(svg, &options).expect("resvg parses the SVG");
    let size = tree.size().to_int_size();
    let mut pixmap =
        resvg::tiny_skia::Pixmap::new(size.width(), size.height()).expect("a non-empty picture");
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    pixmap
}

/// What is missing to draw text in one of `families` (an SVG
/// `font-family` list), or `None` when a system font of one of them is
/// installed.
fn missing_font(families: &str) -> Option<String> {
    use resvg::usvg::fontdb::{Database, Family, Query};
    // The system's fonts, read once for every picture.
    static FONTS: OnceLock<Database> = OnceLock::new();
    let db = FONTS.get_or_init(|| {
        let mut db = Database::new();
        db.load_system_fonts();
        db
    });
    let wanted: Vec<Family<'_>> = families
        .split(',')
        .map(|f| match f.trim() {
            "serif" => Family::Serif,
            "sans-serif" => Family::SansSerif,
            "monospace" => Family::Monospace,
            name => Family::Name(name),
        })
        .collect();
    let query = Query {
        families: &wanted,
        ..Query::default()
    };
    db.query(&query)
        .is_none()
        .then(|| format!("a system font of the family {families} (Debian: fonts-dejavu-core)"))
}

/// The rendered picture: its natural size is the SVG's; each loop's
/// border is drawn in the loop colour; each statement box is white inside
/// with a dark border; and text is drawn, in a font of the picture's
/// families (a prerequisite CI installs, see `common::report`).
fn check_png(case: &Case, p: &Pdfg) {
    let svg = p.to_svg();
    let png = render(&svg);
    let doc = roxmltree::Document::parse(&svg).expect("XML");
    if let Some(dir) = std::env::var_os("SPF_PDFG_PNG") {
        let path = PathBuf::from(dir).join(format!("{}.png", case.name));
        png.save_png(&path).expect("PNG written");
        std::fs::write(path.with_extension("svg"), &svg).expect("SVG written");
    }
    let root = doc.root_element();
    assert_eq!(png.width() as f64, attr(root, "width"));
    assert_eq!(png.height() as f64, attr(root, "height"));
    let pixel = |x: f64, y: f64| {
        let c = png
            .pixel(x.round() as u32, y.round() as u32)
            .expect("inside");
        (c.red(), c.green(), c.blue())
    };
    let dark = |(r, g, b): (u8, u8, u8)| (r as u32 + g as u32 + b as u32) < 3 * 200;
    // A border: the darkest pixel across a 1.2 px line, wherever
    // antialiasing put it.
    let border = |x: f64, y: f64| (-1..=1).any(|d| dark(pixel((x + d as f64).max(0.0), y)));
    for n in doc.descendants().filter(|n| n.has_tag_name("rect")) {
        let r = rect_of(n);
        if n.attribute("class") == Some("loop") {
            // The middle of the left border.
            assert!(
                border(r.x, r.y + r.h / 2.0),
                "{}: a loop's border is drawn",
                case.name
            );
        }
    }
    for g in doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("stmt"))
    {
        let r = rect_of(g.children().find(|c| c.has_tag_name("rect")).expect("box"));
        assert!(
            border(r.x, r.y + r.h / 2.0),
            "{}: a statement's border is drawn",
            case.name
        );
        assert_eq!(
            pixel(r.x + 3.0, r.y + r.h / 2.0),
            (255, 255, 255),
            "{}: inside is white",
            case.name
        );
    }
    let families = root
        .attribute("font-family")
        .expect("the picture names its fonts");
    if common::report::require("the check of the pictures' text", missing_font(families)) {
        // The title's first letters are ink.
        let title = doc
            .descendants()
            .find(|n| n.has_tag_name("text"))
            .expect("a title");
        let b = text_box(title);
        let mut ink = 0;
        for dx in 0..(b.w as u32) {
            for dy in 0..(b.h as u32) {
                if dark(pixel(b.x + dx as f64, b.y + dy as f64)) {
                    ink += 1;
                }
            }
        }
        assert!(ink > 20, "{}: the title is drawn", case.name);
    }
}

// ------------------------------------------------------------------ tests

/// Named pairs, checked by hand: golden structure and picture.
#[test]
fn named_pairs_structure_and_picture() {
    for (src, dst) in [
        ("coo", "csr"),
        ("csr", "csc"),
        ("coo", "dia"),
        ("coo", "mcoo"),
    ] {
        let case = pair(src, dst);
        let p = check(&case);
        golden(&case, &p);
        check_png(&case, &p);
    }
}

#[test]
fn coo_to_csr_reads_row_and_col_in_one_loop() {
    let case = pair("coo", "csr");
    let p = check(&case);
    let insert = p.statement_node("S1").expect("the insert");
    assert_eq!(insert.lets, ["ii = row(n)", "jj = col(n)"]);
    assert_eq!(insert.loops.len(), 1, "one loop, over n");
    let reads: BTreeSet<&str> = p.reads_of("S1").iter().map(|a| a.data.as_str()).collect();
    assert_eq!(reads, BTreeSet::from(["row", "col"]));
    // The scalars local to one statement are inside it, not data nodes.
    assert!(p.data("jj_out").is_none() && p.data("n_src").is_none());
    assert!(
        p.data("NP").is_some(),
        "the size the inspector computes is a node"
    );
}

#[test]
fn every_builtin_pair_and_example() {
    for (src, dst) in all_pairs() {
        let case = pair(src, dst);
        let p = check(&case);
        golden(&case, &p);
    }
    for case in examples() {
        let p = check(&case);
        golden(&case, &p);
        check_png(&case, &p);
    }
}

/// `spf pdfg` writes both outputs for the examples and a pair: the DOT
/// with one cluster per loop, the SVG with one rectangle per loop.
#[test]
fn the_command_writes_dot_and_svg() {
    let dir = std::env::temp_dir().join(format!("spf-pdfg-pairs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let examples_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut inputs: Vec<(Vec<String>, Pdfg)> = examples()
        .into_iter()
        .map(|c| {
            let file = examples_dir.join(format!("{}.comp", c.name));
            let p = Pdfg::build(&c.comp, &c.env).expect("builds");
            (vec![file.to_string_lossy().into_owned()], p)
        })
        .collect();
    let case = pair("coo", "csr");
    inputs.push((
        vec!["coo".into(), "csr".into()],
        Pdfg::build(&case.comp, &case.env).expect("builds"),
    ));
    for (args, p) in inputs {
        for ext in ["dot", "svg"] {
            let out = dir.join(format!("g.{ext}"));
            let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_spf"));
            cmd.arg("pdfg").args(&args).arg("-o").arg(&out);
            let status = cmd.output().expect("spf runs");
            assert!(status.status.success(), "{args:?} -o g.{ext}: {status:?}");
            let text = std::fs::read_to_string(&out).expect("written");
            let (needle, want) = if ext == "dot" {
                ("subgraph cluster_loop", p.loops().len())
            } else {
                ("class=\"loop\"", p.loops().len())
            };
            assert_eq!(text.matches(needle).count(), want, "{args:?} -o g.{ext}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The corners of the scanner's rule, checked against the scanner: a
/// dimension two statements share where only one fixes the iterator by an
/// equality (a loop), where both fix it alike (a `let`), and iterators the
/// schedule leaves out (bound innermost, a `let` before a loop).
#[test]
fn the_scanners_corner_cases() {
    let texts = [
        "computation mixed(N, M) {
            in int f[N];
            out real y[N];
            S0: y(j) = 1.0
                domain {[i, j] : 0 <= i < N && j = f(i)}
                schedule {[i, j] -> [0, i, 0, j, 0]};
            S1: y(i) += 2.0
                domain {[i, j] : 0 <= i < N && 0 <= j < M}
                schedule {[i, j] -> [0, i, 0, j, 1]};
        }",
        "computation alike(N) {
            in int f[N];
            out real y[N];
            S0: y(j) = 1.0
                domain {[i, j] : 0 <= i < N && j = f(i)}
                schedule {[i, j] -> [0, i, 0, j, 0]};
            S1: y(j) += 2.0
                domain {[i, j] : 0 <= i < N && j = f(i)}
                schedule {[i, j] -> [0, i, 0, j, 1]};
        }",
        "computation unscheduled(N, M) {
            in int f[N];
            out real y[N];
            S0: y(j) += 1.0
                domain {[i, j, k] : 0 <= i < N && 0 <= k < M && j = f(i)}
                schedule {[i, j, k] -> [0, i, 0]};
        }",
    ];
    let mut shapes = Vec::new();
    for text in texts {
        let comp = parse_computation(text).expect("parses");
        let case = Case {
            name: comp.name.clone(),
            comp,
            env: UfEnvironment::new(),
        };
        let p = check(&case);
        let lets: Vec<Vec<String>> = p.statements().map(|s| s.lets.clone()).collect();
        shapes.push((p.loops().len(), lets));
    }
    let no = Vec::<String>::new;
    assert_eq!(shapes[0], (2, vec![no(), no()]), "mixed: i and j are loops");
    assert_eq!(
        shapes[1],
        (1, vec![vec!["j = f(i)".to_string()]; 2]),
        "alike: j is one let"
    );
    assert_eq!(
        shapes[2],
        (2, vec![vec!["j = f(i)".to_string()]]),
        "unscheduled: j a let, k a loop"
    );
}
