//! The extended PDFG (dissertation §3.7–3.9) of the forward solve
//! (Figure 3.4) and of sparse matrix-vector multiply (Figure 3.2), built
//! through the Computation IR API.

use std::collections::BTreeMap;

use iegen::computation::{
    Access, BinOp, Body, Computation, DataSpace, ElemType, Role, RuntimeObject, Stmt, UpdateOp,
    ValueExpr,
};
use iegen::eval::{enumerate_set, Bounds, Interpretation, UfTable};
use iegen::pdfg::{DataKind, Pdfg, PdfgEdge, PdfgError, PdfgNode};
use iegen::{Expr, Monotonicity, Prover, Relation, Set, UfDecl, UfEnvironment, Var, Verdict};

// ---------------------------------------------------------------- helpers

fn it(p: usize) -> Expr {
    Expr::var(Var::Tuple(p))
}

fn acc(space: &str, index: Vec<Expr>) -> Access {
    Access {
        space: space.into(),
        index,
    }
}

fn read(space: &str, index: Vec<Expr>) -> ValueExpr {
    ValueExpr::Read(acc(space, index))
}

fn bin(op: BinOp, a: ValueExpr, b: ValueExpr) -> ValueExpr {
    ValueExpr::Binary(op, Box::new(a), Box::new(b))
}

fn update(space: &str, index: Vec<Expr>, op: UpdateOp, value: ValueExpr) -> Body {
    Body::Update {
        target: acc(space, index),
        op,
        value,
    }
}

fn space(name: &str, elem: ElemType, extents: Vec<Expr>, role: Role) -> DataSpace {
    DataSpace {
        name: name.into(),
        elem,
        extents,
        role,
    }
}

fn stmt(name: &str, body: Body, domain: &str, schedule: &str) -> Stmt {
    Stmt {
        name: name.into(),
        body,
        domain: domain.parse::<Set>().expect("domain parses"),
        schedule: schedule.parse::<Relation>().expect("schedule parses"),
    }
}

fn n() -> Expr {
    Expr::sym("N")
}

/// Figure 3.4:
/// ```text
/// for (i = 0; i < N; i++) {
///   S0: tmp(i) = f(i);
///   for (j = 0; j < i; j++)
///     S1: tmp(i) -= A(i, j) * u(j);
///   S2: u(i) = tmp(i) / A(i, i);
/// }
/// ```
fn forward_solve() -> Computation {
    Computation {
        name: "forward_solve".into(),
        symbols: vec!["N".into()],
        spaces: vec![
            space("f", ElemType::Real, vec![n()], Role::In),
            space("A", ElemType::Real, vec![n(), n()], Role::In),
            space("u", ElemType::Real, vec![n()], Role::Out),
            space("tmp", ElemType::Real, vec![n()], Role::Temp),
        ],
        objects: vec![],
        stmts: vec![
            stmt(
                "S0",
                update("tmp", vec![it(0)], UpdateOp::Assign, read("f", vec![it(0)])),
                "{[i] : 0 <= i < N}",
                "{[i] -> [0, i, 0]}",
            ),
            stmt(
                "S1",
                update(
                    "tmp",
                    vec![it(0)],
                    UpdateOp::Sub,
                    bin(
                        BinOp::Mul,
                        read("A", vec![it(0), it(1)]),
                        read("u", vec![it(1)]),
                    ),
                ),
                "{[i, j] : 0 <= i < N && 0 <= j < i}",
                "{[i, j] -> [0, i, 1, j, 0]}",
            ),
            stmt(
                "S2",
                update(
                    "u",
                    vec![it(0)],
                    UpdateOp::Assign,
                    bin(
                        BinOp::Div,
                        read("tmp", vec![it(0)]),
                        read("A", vec![it(0), it(0)]),
                    ),
                ),
                "{[i] : 0 <= i < N}",
                "{[i] -> [0, i, 2]}",
            ),
        ],
    }
}

/// Figure 3.2's sparse matrix-vector multiply, with the initialization of y:
/// ```text
/// for (i = 0; i < N; i++) {
///   S0: y(i) = 0;
///   for (k = rowptr(i); k < rowptr(i + 1); k++) { j = col(k);
///     S1: y(i) += A(k) * x(j); }
/// }
/// ```
fn spmv() -> Computation {
    Computation {
        name: "spmv".into(),
        symbols: vec!["N".into(), "NNZ".into()],
        spaces: vec![
            space("y", ElemType::Real, vec![n()], Role::Out),
            space("A", ElemType::Real, vec![Expr::sym("NNZ")], Role::In),
            space("x", ElemType::Real, vec![n()], Role::In),
        ],
        objects: vec![],
        stmts: vec![
            stmt(
                "S0",
                update("y", vec![it(0)], UpdateOp::Assign, ValueExpr::Int(0)),
                "{[i] : 0 <= i < N}",
                "{[i] -> [0, i, 0]}",
            ),
            stmt(
                "S1",
                update(
                    "y",
                    vec![it(0)],
                    UpdateOp::Add,
                    bin(BinOp::Mul, read("A", vec![it(1)]), read("x", vec![it(2)])),
                ),
                "{[i, k, j] : 0 <= i < N && rowptr(i) <= k < rowptr(i + 1) && j = col(k)}",
                "{[i, k, j] -> [0, i, 1, k, 0, j, 0]}",
            ),
        ],
    }
}

fn csr_env() -> UfEnvironment {
    let mut env = UfEnvironment::new();
    env.declare(UfDecl {
        name: "rowptr".into(),
        domain: "{[i] : 0 <= i <= N}".parse().unwrap(),
        range: "{[v] : 0 <= v <= NNZ}".parse().unwrap(),
        monotonicity: vec![Monotonicity::Nondecreasing],
    })
    .unwrap();
    env.declare(UfDecl {
        name: "col".into(),
        domain: "{[k] : 0 <= k < NNZ}".parse().unwrap(),
        range: "{[j] : 0 <= j < N}".parse().unwrap(),
        monotonicity: vec![],
    })
    .unwrap();
    env
}

fn build(c: &Computation, env: &UfEnvironment) -> Pdfg {
    Pdfg::build(c, env).expect("the PDFG builds")
}

/// Every node as (kind, label), in graph order.
fn nodes(p: &Pdfg) -> Vec<(&'static str, String)> {
    p.graph()
        .node_weights()
        .map(|n| {
            let kind = match n {
                PdfgNode::Statement(_) => "stmt",
                PdfgNode::Data(d) => match d.kind {
                    DataKind::Space { .. } => "data",
                    DataKind::Object { .. } => "object",
                },
            };
            (kind, n.label())
        })
        .collect()
}

/// Every edge as (kind, source name, target name, label), sorted.
fn edges(p: &Pdfg) -> Vec<(&'static str, String, String, String)> {
    let g = p.graph();
    let mut out: Vec<_> = g
        .edge_indices()
        .map(|e| {
            let (a, b) = g.edge_endpoints(e).unwrap();
            let (kind, label) = match &g[e] {
                PdfgEdge::Read(x) => ("read", x.label.clone()),
                PdfgEdge::Write(x) => ("write", x.label.clone()),
                PdfgEdge::Fused(d) => ("fused", d.label()),
                PdfgEdge::Carried(d) => ("carried", d.label()),
            };
            (
                kind,
                g[a].name().to_string(),
                g[b].name().to_string(),
                label,
            )
        })
        .collect();
    out.sort();
    out
}

fn e(
    kind: &'static str,
    from: &str,
    to: &str,
    label: &str,
) -> (&'static str, String, String, String) {
    (kind, from.into(), to.into(), label.into())
}

/// The clusters around each node of a DOT text, by node label: the labels
/// of the enclosing `subgraph cluster_...`, outermost first.
fn dot_clusters(dot: &str) -> BTreeMap<String, Vec<String>> {
    let mut stack: Vec<Option<String>> = Vec::new();
    let mut out = BTreeMap::new();
    for line in dot.lines().map(str::trim) {
        if line.starts_with("subgraph cluster_") && line.ends_with('{') {
            stack.push(None);
        } else if line == "}" {
            stack.pop();
        } else if let Some(label) = line.strip_prefix("label=\"") {
            // A cluster's own label line.
            let label = label.trim_end_matches("\";").to_string();
            if let Some(top) = stack.last_mut() {
                *top = Some(label);
            }
        } else if !line.contains("->") && line.starts_with('n') && line.contains("[label=\"") {
            let start = line.find("[label=\"").unwrap() + "[label=\"".len();
            let end = line[start..].find("\", ").unwrap() + start;
            let path = stack
                .iter()
                .map(|l| l.clone().unwrap_or_default())
                .collect();
            // The node's first line (a statement's box has more).
            let label = line[start..end].split("\\n").next().unwrap_or_default();
            out.insert(label.to_string(), path);
        }
    }
    out
}

fn assert_well_formed_svg(svg: &str) {
    assert!(
        svg.starts_with("<svg") || svg.starts_with("<?xml"),
        "not an SVG: {}",
        &svg[..svg.len().min(80)]
    );
    let doc = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
}

/// The text of every `<text>` element of an SVG, one string per element.
fn svg_texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|t| {
            t.descendants()
                .filter(|d| d.is_text())
                .filter_map(|d| d.text())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect()
}

// ---------------------------------------------------------- forward solve

#[test]
fn forward_solve_nodes() {
    let c = forward_solve();
    let p = build(&c, &UfEnvironment::new());
    assert_eq!(
        nodes(&p),
        vec![
            ("data", "f".to_string()),
            ("data", "A".to_string()),
            ("data", "u".to_string()),
            ("data", "tmp".to_string()),
            ("stmt", "S0: tmp(i) = f(i)".to_string()),
            ("stmt", "S1: tmp(i) -= A(i, j) * u(j)".to_string()),
            ("stmt", "S2: u(i) = tmp(i) / A(i, i)".to_string()),
        ]
    );
    // The box shows the domain's constraints under the body.
    let s1 = p.statement_node("S1").unwrap();
    assert_eq!(s1.domain, "{[i, j] : 0 <= i < N && 0 <= j < i}");
    assert_eq!(
        s1.lines(),
        ["S1: tmp(i) -= A(i, j) * u(j)", "0 <= i < N && 0 <= j < i"]
    );
    assert_eq!(p.statement_node("S1").unwrap().iterators, vec!["i", "j"]);
    assert!(p.statement("S3").is_none());
    assert!(p.data("u").is_some());
    assert!(p.data("S1").is_none());
}

#[test]
fn forward_solve_reads_and_writes() {
    let p = build(&forward_solve(), &UfEnvironment::new());
    let labels = |v: Vec<&iegen::pdfg::AccessEdge>| -> Vec<String> {
        v.into_iter().map(|a| a.label.clone()).collect()
    };
    assert_eq!(labels(p.reads_of("S0")), vec!["f(i)"]);
    assert_eq!(labels(p.writes_of("S0")), vec!["tmp(i)"]);
    // `-=` reads its target too.
    assert_eq!(labels(p.reads_of("S1")), vec!["tmp(i)", "A(i, j)", "u(j)"]);
    assert_eq!(labels(p.writes_of("S1")), vec!["tmp(i)"]);
    assert_eq!(labels(p.reads_of("S2")), vec!["tmp(i)", "A(i, i)"]);
    assert_eq!(labels(p.writes_of("S2")), vec!["u(i)"]);
    assert_eq!(labels(p.readers_of("u")), vec!["u(j)"]);
    assert_eq!(labels(p.writers_of("u")), vec!["u(i)"]);
    assert_eq!(p.writers_of("tmp").len(), 2);

    assert_eq!(
        edges(&p),
        vec![
            e("carried", "S1", "S1", "tmp: carried by j"),
            e("carried", "S2", "S1", "u: carried by i"),
            // What S0 writes, S1 and S2 read in the same iteration of i.
            e("fused", "S0", "S1", "tmp: fused in i"),
            e("fused", "S0", "S2", "tmp: fused in i"),
            e("fused", "S1", "S2", "tmp: fused in i"),
            e("read", "A", "S1", "A(i, j)"),
            e("read", "A", "S2", "A(i, i)"),
            e("read", "f", "S0", "f(i)"),
            e("read", "tmp", "S1", "tmp(i)"),
            e("read", "tmp", "S2", "tmp(i)"),
            e("read", "u", "S1", "u(j)"),
            e("write", "S0", "tmp", "tmp(i)"),
            e("write", "S1", "tmp", "tmp(i)"),
            e("write", "S2", "u", "u(i)"),
        ]
    );
}

#[test]
fn forward_solve_carries_u_by_i_and_tmp_by_j() {
    let env = UfEnvironment::new();
    let p = build(&forward_solve(), &env);
    let deps = p.carried_dependences();
    assert_eq!(deps.len(), 2, "{deps:#?}");

    let u = &deps[0];
    assert_eq!(
        (u.space.as_str(), u.writer.as_str(), u.reader.as_str()),
        ("u", "S2", "S1")
    );
    assert_eq!((u.write.as_str(), u.read.as_str()), ("u(i)", "u(j)"));
    assert_eq!(u.iterator, "i");
    assert_eq!(p.loops()[u.loop_id].label(), "for i");
    // u(i) is written before u(j), j < i, is read: a flow dependence only.
    assert!(u.flow && !u.anti);
    assert_eq!(u.verdict, Verdict::NotProved);
    assert_eq!(u.pairs.arity(), 3);
    assert_eq!(Prover::new(&env).is_empty(&u.pairs), Verdict::NotProved);

    // The reduction into tmp(i) is carried by the inner loop (not by i).
    let tmp = &deps[1];
    assert_eq!(
        (tmp.space.as_str(), tmp.writer.as_str(), tmp.reader.as_str()),
        ("tmp", "S1", "S1")
    );
    assert_eq!(tmp.iterator, "j");
    assert!(tmp.flow && tmp.anti);
    assert_eq!(tmp.label(), "tmp: carried by j");
    assert!(!deps.iter().any(|d| d.space == "tmp" && d.iterator == "i"));
}

#[test]
fn forward_solve_loops_are_an_imperfect_nest() {
    let p = build(&forward_solve(), &UfEnvironment::new());
    let loops = p.loops();
    assert_eq!(loops.len(), 2);
    assert_eq!(
        (loops[0].label(), loops[0].parent, loops[0].depth),
        ("for i".to_string(), None, 0)
    );
    assert_eq!(loops[0].statements, vec!["S0", "S2"]);
    assert_eq!(
        (loops[1].label(), loops[1].parent, loops[1].depth),
        ("for j".to_string(), Some(0), 1)
    );
    assert_eq!(loops[1].statements, vec!["S1"]);
    let nest = |s: &str| -> Vec<String> { p.loop_nest(s).iter().map(|l| l.label()).collect() };
    assert_eq!(nest("S0"), vec!["for i"]);
    assert_eq!(nest("S1"), vec!["for i", "for j"]);
    assert_eq!(nest("S2"), vec!["for i"]);
}

#[test]
fn forward_solve_dot_nests_clusters() {
    let p = build(&forward_solve(), &UfEnvironment::new());
    let dot = p.to_dot();
    assert!(dot.starts_with("digraph \"forward_solve\" {"), "{dot}");
    assert!(dot.trim_end().ends_with('}'));
    assert_eq!(dot.matches('{').count(), dot.matches('}').count());
    let clusters = dot_clusters(&dot);
    let path = |label: &str| {
        clusters
            .get(label)
            .cloned()
            .unwrap_or_else(|| panic!("{label} in {dot}"))
    };
    assert_eq!(path("S0: tmp(i) = f(i)"), vec!["for i"]);
    assert_eq!(path("S1: tmp(i) -= A(i, j) * u(j)"), vec!["for i", "for j"]);
    assert_eq!(path("S2: u(i) = tmp(i) / A(i, i)"), vec!["for i"]);
    // Data spaces stand outside every loop.
    for d in ["f", "A", "u", "tmp"] {
        assert_eq!(path(d), Vec::<String>::new(), "{d}");
    }
    // Shapes and edge styles.
    let line = |needle: &str| {
        dot.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle} in {dot}"))
            .to_string()
    };
    assert!(line("S1: tmp(i)").contains("style=rounded"));
    assert!(line("label=\"tmp\"").contains("shape=box"));
    // Inputs, intermediates and outputs are filled apart.
    let fill = |name: &str| {
        line(&format!("label=\"{name}\""))
            .split("fillcolor=")
            .nth(1)
            .map(str::to_string)
    };
    assert!(fill("f").is_some() && fill("f") != fill("u") && fill("f") == fill("A"));
    assert!(line("S1: tmp(i)").contains("0 <= i < N && 0 <= j < i"));
    let carried = line("u: carried by i");
    assert!(carried.contains("color=\"#c62828\"") && carried.contains("style=dashed"));
    let s2 = p.statement("S2").unwrap().index();
    let s1 = p.statement("S1").unwrap().index();
    assert!(carried
        .trim_start()
        .starts_with(&format!("n{s2} -> n{s1} ")));
    let u = p.data("u").unwrap().index();
    assert!(line(&format!("n{u} -> n{s1} ")).contains("label=\"u(j)\""));
}

#[test]
fn forward_solve_svg() {
    let p = build(&forward_solve(), &UfEnvironment::new());
    let svg = p.to_svg();
    assert_well_formed_svg(&svg);
    let texts = svg_texts(&svg);
    for want in [
        "S0: tmp(i) = f(i)",
        "S1: tmp(i) -= A(i, j) * u(j)",
        "S2: u(i) = tmp(i) / A(i, i)",
        "0 <= i < N && 0 <= j < i",
        "for i",
        "for j",
        "u: carried by i",
        "tmp: carried by j",
        "u(j)",
        "tmp",
    ] {
        assert!(texts.iter().any(|t| t == want), "{want} in {texts:?}");
    }
    // The dependence edge is drawn red and dashed.
    assert!(svg.contains("#c62828"), "no red in the SVG");
    assert!(
        svg.contains("stroke-dasharray"),
        "no dashed line in the SVG"
    );
}

// ------------------------------------------------------------------- SpMV

#[test]
fn spmv_nodes_and_edges() {
    let c = spmv();
    let p = build(&c, &csr_env());
    let expected = vec![
        ("data", "y".to_string()),
        ("data", "A".to_string()),
        ("data", "x".to_string()),
        ("stmt", "S0: y(i) = 0".to_string()),
        ("stmt", "S1: y(i) += A(k) * x(j)".to_string()),
    ];
    assert_eq!(nodes(&p), expected);
    assert_eq!(
        edges(&p),
        vec![
            e("carried", "S1", "S1", "y: carried by k"),
            // S1 accumulates on the y(i) S0 zeroed in the same i.
            e("fused", "S0", "S1", "y: fused in i"),
            e("read", "A", "S1", "A(k)"),
            e("read", "x", "S1", "x(j)"),
            e("read", "y", "S1", "y(i)"),
            e("write", "S0", "y", "y(i)"),
            e("write", "S1", "y", "y(i)"),
        ]
    );
}

#[test]
fn spmv_carries_the_reduction_on_y_by_k_only() {
    let p = build(&spmv(), &csr_env());
    let deps = p.carried_dependences();
    // Rows are independent (nothing carried by i); y(i) accumulates over the
    // nonzeros of row i (carried by k); within one k there is one j = col(k),
    // so nothing is carried by j; S0's y(i) = 0 and S1's read share only
    // the i loop, where they touch y(i) in the same iteration.
    assert_eq!(deps.len(), 1, "{deps:#?}");
    let d = &deps[0];
    assert_eq!(
        (
            d.space.as_str(),
            d.writer.as_str(),
            d.reader.as_str(),
            d.iterator.as_str()
        ),
        ("y", "S1", "S1", "k")
    );
    assert_eq!(p.loops()[d.loop_id].depth, 1);
    assert!(d.flow && d.anti);
    assert!(!deps.iter().any(|d| d.space == "u" || d.iterator == "i"));

    let nest: Vec<String> = p.loop_nest("S1").iter().map(|l| l.label()).collect();
    // j = col(k) is a let, not a loop.
    assert_eq!(nest, vec!["for i", "for k"]);
    assert_eq!(p.statement_node("S1").unwrap().lets, ["j = col(k)"]);
    let nest: Vec<String> = p.loop_nest("S0").iter().map(|l| l.label()).collect();
    assert_eq!(nest, vec!["for i"]);
}

#[test]
fn spmv_dot_and_svg() {
    let p = build(&spmv(), &csr_env());
    let dot = p.to_dot();
    let clusters = dot_clusters(&dot);
    assert_eq!(clusters["S0: y(i) = 0"], vec!["for i"]);
    assert_eq!(clusters["S1: y(i) += A(k) * x(j)"], vec!["for i", "for k"]);
    assert_eq!(clusters["y"], Vec::<String>::new());
    let svg = p.to_svg();
    assert_well_formed_svg(&svg);
    let texts = svg_texts(&svg);
    for want in [
        "S0: y(i) = 0",
        "S1: y(i) += A(k) * x(j)",
        "y: carried by k",
        "for k",
    ] {
        assert!(texts.iter().any(|t| t == want), "{want} in {texts:?}");
    }
}

// ------------------------------------------------------------ dependences

/// `w(g(i)) = x(i)` then `z(i) = w(g(i))`: whether iteration i reads what
/// another iteration wrote depends on whether g can repeat a value.
fn gather_scatter() -> Computation {
    let g = Expr::call("g", vec![it(0)]);
    Computation {
        name: "scatter".into(),
        symbols: vec!["N".into()],
        spaces: vec![
            space("x", ElemType::Real, vec![n()], Role::In),
            space("w", ElemType::Real, vec![n()], Role::Temp),
            space("z", ElemType::Real, vec![n()], Role::Out),
        ],
        objects: vec![],
        stmts: vec![
            stmt(
                "S0",
                update(
                    "w",
                    vec![g.clone()],
                    UpdateOp::Assign,
                    read("x", vec![it(0)]),
                ),
                "{[i] : 0 <= i < N}",
                "{[i] -> [i, 0]}",
            ),
            stmt(
                "S1",
                update("z", vec![it(0)], UpdateOp::Assign, read("w", vec![g])),
                "{[i] : 0 <= i < N}",
                "{[i] -> [i, 1]}",
            ),
        ],
    }
}

#[test]
fn environment_facts_rule_out_dependences() {
    let c = gather_scatter();
    let p = build(&c, &UfEnvironment::new());
    let deps = p.carried_dependences();
    assert_eq!(deps.len(), 1, "{deps:#?}");
    assert_eq!(deps[0].label(), "w: carried by i");
    assert!(deps[0].flow && deps[0].anti);

    let mut env = UfEnvironment::new();
    env.declare(UfDecl {
        name: "g".into(),
        domain: "{[i] : 0 <= i < N}".parse().unwrap(),
        range: "{[v] : 0 <= v < N}".parse().unwrap(),
        monotonicity: vec![Monotonicity::Increasing],
    })
    .unwrap();
    let p = build(&c, &env);
    assert!(
        p.carried_dependences().is_empty(),
        "{:#?}",
        p.carried_dependences()
    );
    assert!(!p.to_dot().contains("carried by"));
}

#[test]
fn statements_in_separate_loops_carry_nothing() {
    // The i loops of S0 and S1 are different loops ([0, i] and [1, i]).
    let mut c = forward_solve();
    c.stmts.truncate(1);
    c.stmts.push(stmt(
        "S1",
        update(
            "u",
            vec![it(0)],
            UpdateOp::Assign,
            read("tmp", vec![it(0).plus(&Expr::constant(1))]),
        ),
        "{[i] : 0 <= i < N - 1}",
        "{[i] -> [1, i]}",
    ));
    let p = build(&c, &UfEnvironment::new());
    assert!(p.carried_dependences().is_empty());
    assert_eq!(p.loops().len(), 2);
    assert!(p
        .loops()
        .iter()
        .all(|l| l.parent.is_none() && l.label() == "for i"));
    // Two sibling clusters, not nested.
    let clusters = dot_clusters(&p.to_dot());
    assert_eq!(clusters["S0: tmp(i) = f(i)"], vec!["for i"]);
    assert_eq!(clusters["S1: u(i) = tmp(i + 1)"], vec!["for i"]);
    let dot = p.to_dot();
    assert!(dot.contains("cluster_loop0") && dot.contains("cluster_loop1"));

    // Fused into one loop, reading tmp(i + 1) before it is written is an
    // anti dependence carried by i.
    c.stmts[1].schedule = "{[i] -> [0, i, 1]}".parse().unwrap();
    let p = build(&c, &UfEnvironment::new());
    let deps = p.carried_dependences();
    assert_eq!(deps.len(), 1, "{deps:#?}");
    assert_eq!(deps[0].label(), "tmp: carried by i");
    assert!(!deps[0].flow && deps[0].anti);
}

// ----------------------------------------------------- objects and errors

#[test]
fn runtime_objects_are_data_nodes() {
    let c = Computation {
        name: "insert".into(),
        symbols: vec!["NNZ".into()],
        spaces: vec![
            space("row", ElemType::Int, vec![Expr::sym("NNZ")], Role::In),
            space("pos", ElemType::Int, vec![Expr::sym("NNZ")], Role::Out),
        ],
        objects: vec![RuntimeObject {
            name: "P".into(),
            kind: "OrderedSet".into(),
            args: vec![],
        }],
        stmts: vec![
            stmt(
                "S0",
                Body::Call {
                    object: "P".into(),
                    method: "insert".into(),
                    args: vec![read("row", vec![it(0)]), ValueExpr::Index(it(0))],
                },
                "{[n] : 0 <= n < NNZ}",
                "{[n] -> [0, n]}",
            ),
            stmt(
                "S1",
                update(
                    "pos",
                    vec![it(0)],
                    UpdateOp::Assign,
                    ValueExpr::Call {
                        object: "P".into(),
                        method: "get".into(),
                        args: vec![ValueExpr::Index(it(0))],
                    },
                ),
                "{[n] : 0 <= n < NNZ}",
                "{[n] -> [1, n]}",
            ),
        ],
    };
    let p = build(&c, &UfEnvironment::new());
    assert_eq!(
        p.statement_node("S0").unwrap().label(),
        "S0: P.insert(row(n), n)"
    );
    assert_eq!(
        p.data_nodes().map(|d| d.label()).collect::<Vec<_>>(),
        vec!["row", "pos", "P: OrderedSet"]
    );
    assert_eq!(
        edges(&p)
            .into_iter()
            .filter(|x| x.0 != "domain")
            .collect::<Vec<_>>(),
        vec![
            e("read", "P", "S1", "P.get(n)"),
            e("read", "row", "S0", "row(n)"),
            e("write", "S0", "P", "P.insert(row(n), n)"),
            e("write", "S1", "pos", "pos(n)"),
        ]
    );
    assert!(p
        .to_dot()
        .contains("label=\"P: OrderedSet\", shape=box, style=\"filled,dashed\""));
    let svg = p.to_svg();
    assert_well_formed_svg(&svg);
    assert!(svg_texts(&svg).iter().any(|t| t == "P.insert(row(n), n)"));
}

#[test]
fn malformed_computations_are_typed_errors() {
    let env = UfEnvironment::new();
    let check = |c: Computation, want: fn(&PdfgError) -> bool| {
        let err = Pdfg::build(&c, &env).expect_err("must fail");
        assert!(want(&err), "{err:?}");
        assert!(!err.to_string().is_empty());
    };

    let mut c = forward_solve();
    c.stmts[2].name = "S0".into();
    check(
        c,
        |e| matches!(e, PdfgError::DuplicateStatement(s) if s == "S0"),
    );

    let mut c = forward_solve();
    c.spaces
        .push(space("u", ElemType::Real, vec![], Role::Temp));
    check(c, |e| matches!(e, PdfgError::DuplicateData(s) if s == "u"));

    let mut c = forward_solve();
    c.spaces.retain(|d| d.name != "f");
    check(
        c,
        |e| matches!(e, PdfgError::UnknownSpace { stmt, space } if stmt == "S0" && space == "f"),
    );

    let mut c = forward_solve();
    c.stmts[0].body = Body::Call {
        object: "Q".into(),
        method: "sort".into(),
        args: vec![],
    };
    check(
        c,
        |e| matches!(e, PdfgError::UnknownObject { object, .. } if object == "Q"),
    );

    let mut c = forward_solve();
    c.stmts[1].schedule = "{[i, j] -> [0, i + j, 0]}".parse().unwrap();
    check(
        c,
        |e| matches!(e, PdfgError::Schedule { stmt, .. } if stmt == "S1"),
    );

    let mut c = forward_solve();
    c.stmts[0].schedule = "{[i, j] -> [0, i, 0]}".parse().unwrap();
    check(
        c,
        |e| matches!(e, PdfgError::Schedule { stmt, .. } if stmt == "S0"),
    );

    let mut c = forward_solve();
    c.stmts[0].body = update("tmp", vec![it(3)], UpdateOp::Assign, ValueExpr::Int(0));
    check(
        c,
        |e| matches!(e, PdfgError::IndexVariable { space, .. } if space == "tmp"),
    );

    let mut c = forward_solve();
    c.stmts[0].body = update(
        "tmp",
        vec![Expr::var(Var::Exist(0))],
        UpdateOp::Assign,
        ValueExpr::Int(0),
    );
    check(c, |e| matches!(e, PdfgError::IndexVariable { .. }));

    let mut c = forward_solve();
    c.stmts[2].body = update("u", vec![it(0), it(0)], UpdateOp::Assign, ValueExpr::Int(0));
    check(
        c,
        |e| matches!(e, PdfgError::AccessArity { space, first: 1, second: 2, stmt } if space == "u" && stmt == "S2"),
    );
}

#[test]
fn degenerate_computations_build_and_render() {
    let env = UfEnvironment::new();
    // Nothing at all.
    let p = build(&Computation::default(), &env);
    assert_eq!(p.graph().node_count(), 0);
    assert!(p.to_dot().starts_with("digraph \"pdfg\" {"));
    assert_well_formed_svg(&p.to_svg());

    // A scalar statement outside every loop, an empty domain, a data space
    // nobody touches, a union domain, quotes in a name.
    let c = Computation {
        name: "odd \"name\"".into(),
        symbols: vec!["N".into()],
        spaces: vec![
            space("s", ElemType::Real, vec![], Role::Out),
            space("v", ElemType::Real, vec![n()], Role::In),
            space("unused", ElemType::Int, vec![], Role::Temp),
        ],
        objects: vec![],
        stmts: vec![
            stmt(
                "S0",
                update("s", vec![], UpdateOp::Assign, ValueExpr::Real(0.0)),
                "{[]}",
                "{[] -> [0]}",
            ),
            stmt(
                "S1",
                update("s", vec![], UpdateOp::Add, read("v", vec![it(0)])),
                "{[i] : 0 <= i < 3 || 5 <= i < N}",
                "{[i] -> [1, i]}",
            ),
            stmt(
                "S2",
                update(
                    "v",
                    vec![it(0)],
                    UpdateOp::Assign,
                    ValueExpr::Neg(Box::new(read("s", vec![]))),
                ),
                "{[i] : 0 <= i < 0}",
                "{[i] -> [2, i]}",
            ),
        ],
    };
    let p = build(&c, &env);
    assert_eq!(p.statement_node("S0").unwrap().label(), "S0: s = 0.0");
    assert_eq!(p.statement_node("S2").unwrap().label(), "S2: v(i) = -s");
    assert!(p.loop_nest("S0").is_empty());
    // The scalar sum is carried by S1's loop; S2 never runs.
    let labels: Vec<String> = p.carried_dependences().iter().map(|d| d.label()).collect();
    assert_eq!(labels, vec!["s: carried by i"]);
    let dot = p.to_dot();
    assert!(dot.starts_with("digraph \"odd \\\"name\\\"\" {"), "{dot}");
    assert_eq!(dot_clusters(&dot)["S0: s = 0.0"], Vec::<String>::new());
    let svg = p.to_svg();
    assert_well_formed_svg(&svg);
    assert!(svg_texts(&svg).iter().any(|t| t == "unused"));
}

#[test]
fn dependence_pairs_match_brute_force() {
    // Forward solve, N = 5: S2 writes u(iw) at [iw], S1 reads u(j) at
    // [i, j] with j < i; the pairs carried by i have iw = j and iw != i.
    let p = build(&forward_solve(), &UfEnvironment::new());
    let u = &p.carried_dependences()[0];
    let interp = Interpretation::new().with_symbol("N", 5);
    let got = enumerate_set(&u.pairs, &interp, &Bounds::unboxed()).unwrap();
    let mut want = std::collections::BTreeSet::new();
    for i in 0..5 {
        for j in 0..i {
            want.insert(vec![j, i, j]);
        }
    }
    assert_eq!(got, want);

    // SpMV on a 4x5 CSR matrix: pairs of distinct nonzeros of one row.
    let rowptr = [0, 2, 3, 3, 6];
    let col = [1, 3, 0, 2, 4, 0];
    let p = build(&spmv(), &csr_env());
    let y = &p.carried_dependences()[0];
    let interp = Interpretation::new()
        .with_symbol("N", 4)
        .with_symbol("NNZ", 6)
        .with_uf("rowptr", UfTable::from_array(&rowptr, -100))
        .with_uf("col", UfTable::from_array(&col, -100));
    let got = enumerate_set(&y.pairs, &interp, &Bounds::boxed(-1, 7)).unwrap();
    let mut want = std::collections::BTreeSet::new();
    for (i, row) in (0i64..).zip(rowptr.windows(2)) {
        for k in row[0]..row[1] {
            for k2 in (row[0]..row[1]).filter(|&k2| k2 != k) {
                want.insert(vec![i, k, col[k as usize], i, k2, col[k2 as usize]]);
            }
        }
    }
    assert_eq!(want.len(), 2 + 6);
    assert_eq!(got, want);
}

#[test]
fn svg_draws_a_self_dependence() {
    // A statement that carries a dependence on itself: an edge from a
    // node to itself, which the SVG must still draw and label.
    let c = Computation {
        name: "trip".into(),
        symbols: vec!["N".into()],
        spaces: vec![space("a", ElemType::Real, vec![n()], Role::InOut)],
        objects: vec![],
        stmts: vec![stmt(
            "S0",
            update(
                "a",
                vec![Expr::constant(0)],
                UpdateOp::Add,
                read("a", vec![it(0).plus(&Expr::constant(1))]),
            ),
            "{[i] : 0 <= i < N}",
            "{[i] -> [0, i, 0]}",
        )],
    };
    let p = build(&c, &UfEnvironment::new());
    assert_eq!(
        p.statement_node("S0").unwrap().label(),
        "S0: a(0) += a(i + 1)"
    );
    let labels: Vec<String> = p.carried_dependences().iter().map(|d| d.label()).collect();
    // a(0) is updated by every iteration; a(i + 1) never reads a(0).
    assert_eq!(labels, vec!["a: carried by i"]);
    assert_eq!(p.carried_dependences()[0].read, "a(0)");
    let svg = p.to_svg();
    assert_well_formed_svg(&svg);
    let texts = svg_texts(&svg);
    for want in [
        "S0: a(0) += a(i + 1)",
        "a: carried by i",
        "for i",
        "a(i + 1)",
    ] {
        assert!(texts.iter().any(|t| t == want), "{want} in {texts:?}");
    }
}

// ------------------------------------------- random computations (oracle)

mod random {
    use super::*;
    use iegen::computation::{schedule_dims, ScheduleDim};
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    const DOMAINS: [&str; 4] = [
        "{[]}",
        "{[i] : 0 <= i < N}",
        "{[i, j] : 0 <= i < N && 0 <= j < i}",
        "{[i, j] : 0 <= i < N && 0 <= j < N}",
    ];

    /// An index of a 1-D space: an iterator plus an offset, or a constant.
    fn index(arity: usize) -> impl Strategy<Value = Expr> {
        (0..=arity, -1i64..=1, 0i64..=2).prop_map(move |(p, off, c)| {
            if p < arity {
                it(p).plus(&Expr::constant(off))
            } else {
                Expr::constant(c)
            }
        })
    }

    /// `a(e)`, `b(e)` or the scalar `s`.
    fn access(arity: usize) -> impl Strategy<Value = Access> {
        (0..3usize, index(arity)).prop_map(|(which, e)| match which {
            0 => acc("a", vec![e]),
            1 => acc("b", vec![e]),
            _ => acc("s", vec![]),
        })
    }

    fn statement(k: usize) -> impl Strategy<Value = Stmt> {
        (0..DOMAINS.len()).prop_flat_map(move |d| {
            let arity = d.min(2);
            (
                access(arity),
                any::<bool>(),
                proptest::collection::vec(access(arity), 1..=2),
                proptest::collection::vec(0i64..2, arity + 1),
            )
                .prop_map(move |(target, add, reads, consts)| {
                    let value = reads
                        .into_iter()
                        .map(ValueExpr::Read)
                        .reduce(|x, y| bin(BinOp::Add, x, y))
                        .unwrap();
                    let op = if add { UpdateOp::Add } else { UpdateOp::Assign };
                    let names = ["i", "j"];
                    let mut time = vec![consts[0].to_string()];
                    for p in 0..arity {
                        time.push(names[p].to_string());
                        time.push(consts[p + 1].to_string());
                    }
                    let tuple = names[..arity].join(", ");
                    let schedule = format!("{{[{tuple}] -> [{}]}}", time.join(", "));
                    stmt(
                        &format!("S{k}"),
                        Body::Update { target, op, value },
                        DOMAINS[d],
                        &schedule,
                    )
                })
        })
    }

    pub fn computation() -> impl Strategy<Value = Computation> {
        (1usize..=4)
            .prop_flat_map(|n| (0..n).map(statement).collect::<Vec<_>>())
            .prop_map(|stmts| Computation {
                name: "random".into(),
                symbols: vec!["N".into()],
                spaces: vec![
                    space("a", ElemType::Real, vec![n()], Role::InOut),
                    space("b", ElemType::Real, vec![n()], Role::InOut),
                    space("s", ElemType::Real, vec![], Role::InOut),
                ],
                objects: vec![],
                stmts,
            })
    }

    fn accesses(s: &Stmt, write: bool) -> Vec<Access> {
        let mut out = Vec::new();
        if write {
            s.body.for_each_write(&mut |a| out.push(a.clone()));
        } else {
            s.body.for_each_read(&mut |a| out.push(a.clone()));
        }
        out
    }

    fn eval_index(index: &[Expr], point: &[i64]) -> Vec<i64> {
        index
            .iter()
            .map(|e| {
                e.evaluate(
                    &mut |v| match v {
                        Var::Tuple(p) => point.get(p).copied(),
                        Var::Exist(_) => None,
                    },
                    &mut |_| None,
                    &mut |_, _| None,
                )
                .expect("closed index")
            })
            .collect()
    }

    /// (space, writer, reader, time dimension of the loop) → (flow, anti),
    /// by enumerating every pair of instances for N = 0..=6.
    pub type Deps = BTreeSet<(String, String, String, usize, bool, bool)>;

    pub fn brute_force(c: &Computation) -> Deps {
        let mut found: BTreeMap<(String, String, String, usize), (bool, bool)> = BTreeMap::new();
        for n in 0..=6 {
            let interp = Interpretation::new().with_symbol("N", n);
            let points = |s: &Stmt| -> Vec<Vec<i64>> {
                enumerate_set(&s.domain, &interp, &Bounds::unboxed())
                    .unwrap()
                    .into_iter()
                    .collect()
            };
            for w in &c.stmts {
                let wd = schedule_dims(&w.schedule, w.domain.arity()).unwrap();
                for r in &c.stmts {
                    let rd = schedule_dims(&r.schedule, r.domain.arity()).unwrap();
                    // The loops both are in: a common schedule prefix.
                    let mut shared = Vec::new();
                    for (t, (x, y)) in wd.iter().zip(&rd).enumerate() {
                        match (x, y) {
                            (ScheduleDim::Const(a), ScheduleDim::Const(b)) if a == b => {}
                            (ScheduleDim::Iter(p), ScheduleDim::Iter(q)) => {
                                shared.push((t, *p, *q))
                            }
                            _ => break,
                        }
                    }
                    for wa in accesses(w, true) {
                        for ra in accesses(r, false).iter().filter(|ra| ra.space == wa.space) {
                            for iw in points(w) {
                                for ir in points(r) {
                                    if eval_index(&wa.index, &iw) != eval_index(&ra.index, &ir) {
                                        continue;
                                    }
                                    // The outermost shared loop where they differ carries it.
                                    if let Some(&(t, p, q)) =
                                        shared.iter().find(|(_, p, q)| iw[*p] != ir[*q])
                                    {
                                        let e = found
                                            .entry((
                                                wa.space.clone(),
                                                w.name.clone(),
                                                r.name.clone(),
                                                t,
                                            ))
                                            .or_default();
                                        if iw[p] < ir[q] {
                                            e.0 = true;
                                        } else {
                                            e.1 = true;
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        found
            .into_iter()
            .map(|((d, w, r, t), (f, a))| (d, w, r, t, f, a))
            .collect()
    }

    /// The same aggregation of what the PDFG reports.
    pub fn reported(p: &Pdfg) -> Deps {
        let mut found: BTreeMap<(String, String, String, usize), (bool, bool)> = BTreeMap::new();
        for d in p.carried_dependences() {
            let t = p.loops()[d.loop_id].time_dim;
            let e = found
                .entry((d.space.clone(), d.writer.clone(), d.reader.clone(), t))
                .or_default();
            e.0 |= d.flow;
            e.1 |= d.anti;
        }
        found
            .into_iter()
            .map(|((d, w, r, t), (f, a))| (d, w, r, t, f, a))
            .collect()
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// On affine computations without UFs, the carried dependences the
    /// prover reports are exactly those found by enumerating instances, and
    /// every computation renders to DOT and to well-formed SVG.
    #[test]
    fn random_computations_match_enumeration(c in random::computation()) {
        let p = Pdfg::build(&c, &UfEnvironment::new()).unwrap();
        proptest::prop_assert_eq!(random::reported(&p), random::brute_force(&c));
        let dot = p.to_dot();
        proptest::prop_assert_eq!(dot.matches('{').count(), dot.matches('}').count());
        let svg = p.to_svg();
        assert_well_formed_svg(&svg);
        let texts = svg_texts(&svg);
        for s in p.statements() {
            proptest::prop_assert!(texts.contains(&s.label()), "{} in {:?}", s.label(), texts);
        }
    }
}

// ------------------------------------------------- scalars and index reads

/// `t = x(i); y(i) = t` in one loop, with `t` a temporary scalar that
/// the second statement reads in the schedule position `late`.
fn scalar_flow(reader_first: bool) -> Computation {
    let (w, r) = if reader_first { (1, 0) } else { (0, 1) };
    let text = format!(
        "computation scalar(N) {{
            in real x[N];
            out real y[N];
            temp real t;
            S0: t = x(i)
                domain {{[i] : 0 <= i < N}}
                schedule {{[i] -> [0, i, {w}]}};
            S1: y(i) = t
                domain {{[i] : 0 <= i < N}}
                schedule {{[i] -> [0, i, {r}]}};
        }}"
    );
    iegen::computation::parse_computation(&text).expect("parses")
}

#[test]
fn a_scalar_written_first_in_each_iteration_carries_nothing() {
    let p = build(&scalar_flow(false), &UfEnvironment::new());
    assert!(
        p.carried_dependences().is_empty(),
        "{:#?}",
        p.carried_dependences()
    );
    let fused: Vec<String> = p.fused_dependences().iter().map(|d| d.label()).collect();
    assert_eq!(fused, ["t: fused in i"]);
    // Used by two statements, `t` is a data node, not a local.
    assert!(p.data("t").is_some());
    assert!(p.statements().all(|s| s.locals.is_empty()));

    // Read before it is written, `t` brings each iteration the previous
    // one's value: carried, and nothing fused.
    let p = build(&scalar_flow(true), &UfEnvironment::new());
    let carried: Vec<String> = p.carried_dependences().iter().map(|d| d.label()).collect();
    assert_eq!(carried, ["t: carried by i"]);
    assert!(p.fused_dependences().is_empty());
}

#[test]
fn index_arrays_read_by_domains_and_indices_are_edges() {
    let text = "computation gather(N, M) {
        in int idx[M];
        in int start[N + 1];
        in real x[N];
        out real y[M];
        S0: y(k) = x(idx(k))
            domain {[i, k] : 0 <= i < N && start(i) <= k < start(i + 1)}
            schedule {[i, k] -> [0, i, 0, k, 0]};
    }";
    let c = iegen::computation::parse_computation(text).expect("parses");
    let p = build(&c, &UfEnvironment::new());
    let reads: Vec<(String, String, bool)> = p
        .reads_of("S0")
        .iter()
        .map(|a| (a.data.clone(), a.label.clone(), a.in_domain))
        .collect();
    assert_eq!(
        reads,
        [
            ("x".to_string(), "x(idx(k))".to_string(), false),
            ("idx".to_string(), "idx(k)".to_string(), false),
            ("start".to_string(), "start(i + 1)".to_string(), true),
            ("start".to_string(), "start(i)".to_string(), true),
        ]
    );
    let nest: Vec<String> = p.loop_nest("S0").iter().map(|l| l.label()).collect();
    assert_eq!(nest, ["for i", "for k"]);
}
