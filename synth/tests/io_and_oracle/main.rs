//! Coordinate files, JSON instances, validation and the correctness oracle.
//!
//! One test binary; this file holds the fixtures (descriptors, instances,
//! the small matrix), each module one subject.

mod builtin_descriptors;
mod frostt;
mod json_instances;
mod matrix_market;
mod oracle;
mod readers_never_panic;
mod validation;
mod writers;

use std::path::PathBuf;

use iegen::{Constraint, Expr, Monotonicity, Relation, Set, UfDecl, UfRule};
use synth::descriptor::{Comparator, Descriptor, KeyExpr};
use synth::instance::{Instance, Values};
use synth::tensor_io::{read_file, Coordinates};

// ---------------------------------------------------------------------------
// Fixtures

fn matrices() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/matrices")
}

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn read_matrix(name: &str) -> Coordinates {
    read_file(&matrices().join(name), None).unwrap_or_else(|e| panic!("{e}"))
}

fn set(s: &str) -> Set {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn rel(s: &str) -> Relation {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn uf(name: &str, domain: &str, range: &str, monotonicity: Vec<Monotonicity>) -> UfDecl {
    UfDecl {
        name: name.into(),
        domain: set(domain),
        range: set(range),
        monotonicity,
    }
}

/// `forall vars : premise => conclusion`, both sides written as set bodies.
fn rule(vars: &[&str], premise: &str, conclusion: &str) -> UfRule {
    let side = |body: &str| -> Vec<Constraint> {
        let s = set(&format!("{{[{}] : {body}}}", vars.join(", ")));
        let [c] = s.conjunctions() else {
            panic!("{body}: one conjunction expected")
        };
        assert_eq!(c.num_exists(), 0, "{body}");
        c.constraints().cloned().collect()
    };
    UfRule {
        vars: vars.iter().map(|v| v.to_string()).collect(),
        premise: side(premise),
        conclusion: side(conclusion),
    }
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn coo() -> Descriptor {
    Descriptor {
        name: "COO".into(),
        dense: strings(&["NR", "NC"]),
        symbols: strings(&["NR", "NC", "NNZ"]),
        map: rel(
            "{[n, ii, jj] -> [i, j] : i = ii && j = jj && ii = row(n) && jj = col(n) \
             && 0 <= n < NNZ && 0 <= i < NR && 0 <= j < NC}",
        ),
        data_name: "A".into(),
        data: rel("{[n, ii, jj] -> [n]}"),
        data_size: vec![Expr::sym("NNZ")],
        ufs: vec![
            uf("row", "{[x] : 0 <= x < NNZ}", "{[y] : 0 <= y < NR}", vec![]),
            uf("col", "{[x] : 0 <= x < NNZ}", "{[y] : 0 <= y < NC}", vec![]),
        ],
        rules: vec![rule(
            &["n1", "n2"],
            "0 <= n1 < NNZ && 0 <= n2 < NNZ && row(n1) = row(n2) && col(n1) = col(n2)",
            "n1 = n2",
        )],
        comparators: vec![],
        padding: false,
        lines: Default::default(),
    }
}

fn csr() -> Descriptor {
    Descriptor {
        name: "CSR".into(),
        dense: strings(&["NR", "NC"]),
        symbols: strings(&["NR", "NC", "NNZ"]),
        map: rel("{[ii, k, jj] -> [i, j] : i = ii && j = jj && 0 <= ii < NR \
             && rowptr(ii) <= k < rowptr(ii + 1) && j = col(k)}"),
        data_name: "A".into(),
        data: rel("{[ii, k, jj] -> [k]}"),
        data_size: vec![Expr::sym("NNZ")],
        ufs: vec![
            uf(
                "rowptr",
                "{[x] : 0 <= x <= NR}",
                "{[y] : 0 <= y <= NNZ}",
                vec![Monotonicity::Nondecreasing],
            ),
            uf("col", "{[x] : 0 <= x < NNZ}", "{[y] : 0 <= y < NC}", vec![]),
        ],
        rules: vec![rule(
            &["i", "k1", "k2"],
            "0 <= i < NR && rowptr(i) <= k1 < k2 < rowptr(i + 1)",
            "col(k1) < col(k2)",
        )],
        comparators: vec![],
        padding: false,
        lines: Default::default(),
    }
}

/// DIA-like: `j = i + off(d)`, values in an NR × ND array.
fn dia() -> Descriptor {
    Descriptor {
        name: "DIA".into(),
        dense: strings(&["NR", "NC"]),
        symbols: strings(&["NR", "NC", "ND"]),
        map: rel(
            "{[ii, d, jj] -> [i, j] : i = ii && j = jj && 0 <= ii < NR && 0 <= d < ND \
             && jj = ii + off(d) && 0 <= jj < NC}",
        ),
        data_name: "A".into(),
        data: rel("{[ii, d, jj] -> [ii, d]}"),
        data_size: vec![Expr::sym("NR"), Expr::sym("ND")],
        ufs: vec![uf(
            "off",
            "{[x] : 0 <= x < ND}",
            "{[y] : -NR < y < NC}",
            vec![Monotonicity::Increasing],
        )],
        rules: vec![rule(&["e1", "e2"], "e1 < e2", "off(e1) < off(e2)")],
        comparators: vec![],
        padding: true,
        lines: Default::default(),
    }
}

/// COO in Morton order, with both halves of the `<=>` rule.
fn mcoo() -> Descriptor {
    let mut d = coo();
    d.name = "MCOO".into();
    d.comparators = vec![Comparator {
        name: "MORTON".into(),
        params: strings(&["i", "j"]),
        key: vec![KeyExpr::Interleave(vec![
            KeyExpr::Param(0),
            KeyExpr::Param(1),
        ])],
    }];
    d.rules = vec![
        rule(
            &["n1", "n2"],
            "0 <= n1 < n2 < NNZ",
            "MORTON(row(n1), col(n1)) < MORTON(row(n2), col(n2))",
        ),
        rule(
            &["n1", "n2"],
            "0 <= n1 < NNZ && 0 <= n2 < NNZ && MORTON(row(n1), col(n1)) < MORTON(row(n2), col(n2))",
            "n1 < n2",
        ),
    ];
    d
}

fn instance(format: &str, symbols: &[(&str, i64)], arrays: Vec<(&str, Values)>) -> Instance {
    Instance {
        format: format.into(),
        symbols: symbols.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        arrays: arrays
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        index_width: None,
        value_type: Default::default(),
    }
}

fn coo_instance(c: &Coordinates) -> Instance {
    instance(
        "COO",
        &[
            ("NR", c.dims[0]),
            ("NC", c.dims[1]),
            ("NNZ", c.len() as i64),
        ],
        vec![
            (
                "row",
                Values::Int(c.entries.iter().map(|e| e.0[0]).collect()),
            ),
            (
                "col",
                Values::Int(c.entries.iter().map(|e| e.0[1]).collect()),
            ),
            ("A", Values::Real(c.entries.iter().map(|e| e.1).collect())),
        ],
    )
}

fn csr_instance(c: &Coordinates) -> Instance {
    let mut sorted = c.entries.clone();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let nr = c.dims[0];
    let mut rowptr = vec![0i64; nr as usize + 1];
    for (index, _) in &sorted {
        rowptr[index[0] as usize + 1] += 1;
    }
    for i in 0..nr as usize {
        rowptr[i + 1] += rowptr[i];
    }
    instance(
        "CSR",
        &[("NR", nr), ("NC", c.dims[1]), ("NNZ", c.len() as i64)],
        vec![
            ("rowptr", Values::Int(rowptr.into())),
            ("col", Values::Int(sorted.iter().map(|e| e.0[1]).collect())),
            ("A", Values::Real(sorted.iter().map(|e| e.1).collect())),
        ],
    )
}

fn dia_instance(c: &Coordinates) -> Instance {
    let (nr, nc) = (c.dims[0], c.dims[1]);
    let mut offsets: Vec<i64> = c.entries.iter().map(|e| e.0[1] - e.0[0]).collect();
    offsets.sort_unstable();
    offsets.dedup();
    let nd = offsets.len();
    let mut a = vec![0.0; nr as usize * nd];
    for (index, v) in &c.entries {
        let d = offsets.binary_search(&(index[1] - index[0])).unwrap();
        a[index[0] as usize * nd + d] = *v;
    }
    instance(
        "DIA",
        &[("NR", nr), ("NC", nc), ("ND", nd as i64)],
        vec![
            ("off", Values::Int(offsets.into())),
            ("A", Values::Real(a.into())),
        ],
    )
}

/// The 4 × 4 matrix of tests/data/csr_small.json (row 1 is empty).
fn small() -> Coordinates {
    Coordinates {
        dims: vec![4, 4],
        entries: vec![
            (vec![0, 1], 1.5),
            (vec![0, 3], 2.0),
            (vec![2, 0], -3.0),
            (vec![2, 2], 4.0),
            (vec![3, 3], 0.25),
        ],
    }
}

fn set_array(inst: &mut Instance, name: &str, values: Values) {
    inst.arrays.insert(name.into(), values);
}
