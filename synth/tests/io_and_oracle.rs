//! Coordinate files, JSON instances, validation and the correctness oracle.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use iegen::{Constraint, Expr, Monotonicity, Relation, Set, UfDecl, UfRule};
use proptest::prelude::*;
use synth::descriptor::{Comparator, Descriptor, KeyExpr};
use synth::instance::{Instance, InstanceError, Values};
use synth::instance_validation::{validate, validate_with_budget};
use synth::oracle::{compare, coordinate_entries, coordinates_from, entries, OracleError};
use synth::tensor_io::{
    read_file, read_mtx, read_tns, write_mtx, write_tns, Coordinates, FileError, TensorIoError,
    WriteError,
};

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
            ("rowptr", Values::Int(rowptr)),
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
        vec![("off", Values::Int(offsets)), ("A", Values::Real(a))],
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

// ---------------------------------------------------------------------------
// Matrix Market: the real matrices

/// (file, rows, columns, entries announced, entries after symmetric
/// expansion, pattern). The expansion is 2 · stored − diagonal.
const MATRICES: &[(&str, i64, i64, usize, usize, bool)] = &[
    ("pores_1.mtx", 30, 30, 180, 180, false),
    ("lund_a.mtx", 147, 147, 1298, 2449, false),
    ("jgl009.mtx", 9, 9, 50, 50, true),
    ("1138_bus.mtx", 1138, 1138, 2596, 2 * 2596 - 1138, false),
    ("bp_200.mtx", 822, 822, 3802, 3802, false),
    ("can_1072.mtx", 1072, 1072, 6758, 2 * 6758 - 1072, true),
    ("dwt_2680.mtx", 2680, 2680, 13853, 2 * 13853 - 2680, true),
    ("balanced_tree_2_10.mtx", 2047, 2047, 4092, 4092, false),
    ("circulant_1000_1_2_3.mtx", 1000, 1000, 6000, 6000, false),
    ("bcsstm24.mtx", 3562, 3562, 3562, 3562, false),
];

#[test]
fn every_real_matrix_reads_with_the_readme_counts() {
    let mut files: Vec<String> = std::fs::read_dir(matrices())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".mtx") && n != "wrong.mtx")
        .collect();
    files.sort();
    let mut listed: Vec<String> = MATRICES.iter().map(|m| m.0.to_string()).collect();
    listed.sort();
    assert_eq!(files, listed, "every matrix of the directory is checked");
    for &(name, rows, cols, announced, expanded, pattern) in MATRICES {
        let m = read_matrix(name);
        assert_eq!(m.dims, vec![rows, cols], "{name}");
        assert_eq!(m.len(), expanded, "{name}");
        let text = std::fs::read_to_string(matrices().join(name)).unwrap();
        let size_line = text
            .lines()
            .skip(1)
            .find(|l| !l.starts_with('%') && !l.trim().is_empty())
            .unwrap();
        assert_eq!(
            size_line.split_whitespace().nth(2).unwrap(),
            announced.to_string(),
            "{name}"
        );
        if pattern {
            assert!(m.entries.iter().all(|e| e.1 == 1.0), "{name}");
        }
        // Distinct coordinates, all in range.
        let map: BTreeMap<&[i64], f64> = m.entries.iter().map(|(i, v)| (&i[..], *v)).collect();
        assert_eq!(map.len(), m.len(), "{name}");
        assert!(m
            .entries
            .iter()
            .all(|(i, _)| (0..rows).contains(&i[0]) && (0..cols).contains(&i[1])));
        // A symmetric file gives a symmetric matrix.
        if expanded != announced {
            for (i, v) in &m.entries {
                assert_eq!(map.get(&[i[1], i[0]][..]), Some(v), "{name} at {i:?}");
            }
        }
    }
    // File order: the first entries of lund_a (symmetric) are (1,1), then
    // (2,1) followed by its mirror (1,2).
    let lund = read_matrix("lund_a.mtx");
    assert_eq!(lund.entries[0], (vec![0, 0], 7.5e7));
    assert_eq!(lund.entries[1].0, vec![1, 0]);
    assert_eq!(lund.entries[2].0, vec![0, 1]);
    assert_eq!(lund.entries[1].1, lund.entries[2].1);
}

#[test]
fn wrong_mtx_fails_at_its_zero_based_index() {
    let path = matrices().join("wrong.mtx");
    let err = read_mtx(&std::fs::read(&path).unwrap()).unwrap_err();
    assert_eq!(
        err,
        TensorIoError {
            line: 3,
            column: 1,
            message: "row index 0 is out of range 1..=2: Matrix Market indices are 1-based, \
                      and this one looks 0-based"
                .into()
        }
    );
    let err = read_file(&path, None).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:3:1: row index 0 is out of range 1..=2: Matrix Market indices are 1-based, \
             and this one looks 0-based",
            path.display()
        )
    );
    assert!(matches!(err, FileError::Parse { .. }));
}

// ---------------------------------------------------------------------------
// Matrix Market: malformed variants

const HEADER: &str = "%%MatrixMarket matrix coordinate real general\n";

fn mtx_err(text: &str) -> (usize, usize, String) {
    let e = read_mtx(text.as_bytes()).expect_err(text);
    (e.line, e.column, e.message)
}

fn err(line: usize, column: usize, message: &str) -> (usize, usize, String) {
    (line, column, message.to_string())
}

/// pores_1.mtx with its lines changed by `edit`, written to a temporary
/// directory and read back through `read_file`.
fn pores_variant(
    dir: &Path,
    name: &str,
    edit: impl FnOnce(&mut Vec<String>),
) -> Result<Coordinates, FileError> {
    let text = std::fs::read_to_string(matrices().join("pores_1.mtx")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    edit(&mut lines);
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    read_file(&path, None)
}

fn parse_error(r: Result<Coordinates, FileError>) -> (usize, usize, String) {
    match r {
        Err(FileError::Parse { error, .. }) => (error.line, error.column, error.message),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn truncated_extra_and_garbage_files_fail_at_the_exact_position() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(matrices().join("pores_1.mtx")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let size_line = 1
        + lines
            .iter()
            .skip(1)
            .position(|l| !l.starts_with('%'))
            .unwrap()
        + 1;
    assert_eq!(lines[size_line - 1].split_whitespace().count(), 3);
    let n = lines.len();

    // Truncated: the last two entries removed; reported at the end of file.
    let e = parse_error(pores_variant(dir.path(), "truncated.mtx", |l| {
        l.truncate(n - 2)
    }));
    assert_eq!(
        e,
        err(
            n - 1,
            1,
            &format!("the file ends after 178 of the 180 entries announced on line {size_line}")
        )
    );
    // Truncated in the middle of the last line: its value is missing.
    let e = parse_error(pores_variant(dir.path(), "cut.mtx", |l| {
        let last = l.last_mut().unwrap();
        let fields: Vec<&str> = last.split_whitespace().collect();
        *last = format!("{} {}", fields[0], fields[1]);
    }));
    let cut_len = lines[n - 1]
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
        .len();
    assert_eq!(
        e,
        err(
            n,
            cut_len + 1,
            "missing value: an entry is `row column value`"
        )
    );
    // One entry more than announced.
    let e = parse_error(pores_variant(dir.path(), "extra.mtx", |l| {
        l.push("30 30 1.0".into())
    }));
    assert_eq!(
        e,
        err(
            n + 1,
            1,
            &format!("more entries than the 180 announced on line {size_line}")
        )
    );
    // Garbage in a value field.
    let e = parse_error(pores_variant(dir.path(), "garbage.mtx", |l| {
        l[size_line] = "1 1 abc".into()
    }));
    assert_eq!(e, err(size_line + 1, 5, "value `abc` is not a number"));
    // Garbage in an index field.
    let e = parse_error(pores_variant(dir.path(), "garbage2.mtx", |l| {
        l[size_line + 3] = "  x 2 1.0".into()
    }));
    assert_eq!(e, err(size_line + 4, 3, "row index `x` is not an integer"));
    // Out of range, both ends.
    let e = parse_error(pores_variant(dir.path(), "range.mtx", |l| {
        l[size_line + 1] = "2 31 1.0".into()
    }));
    assert_eq!(
        e,
        err(size_line + 2, 3, "column index 31 is out of range 1..=30")
    );
    let e = parse_error(pores_variant(dir.path(), "range2.mtx", |l| {
        l[size_line + 1] = "-1 3 1.0".into()
    }));
    assert_eq!(
        e,
        err(size_line + 2, 1, "row index -1 is out of range 1..=30")
    );
    // An extra field.
    let e = parse_error(pores_variant(dir.path(), "field.mtx", |l| {
        l[size_line] = "1 1 2.0 3.0".into()
    }));
    assert_eq!(
        e,
        err(
            size_line + 1,
            9,
            "unexpected field `3.0`: an entry is `row column value`"
        )
    );
    // A size line that does not parse.
    let e = parse_error(pores_variant(dir.path(), "size.mtx", |l| {
        l[size_line - 1] = "30 30".into()
    }));
    assert_eq!(
        e,
        err(
            size_line,
            6,
            "the size line needs 3 fields (rows, columns, entries) but has 2"
        )
    );
    let e = parse_error(pores_variant(dir.path(), "size2.mtx", |l| {
        l[size_line - 1] = "30 3O 180".into()
    }));
    assert_eq!(
        e,
        err(size_line, 4, "number of columns `3O` is not an integer")
    );
}

#[test]
fn malformed_matrix_market_texts() {
    let cases: Vec<(String, (usize, usize, String))> =
        vec![
        (
            "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 1\n3 3 2\n1 2 3\n".into(),
            err(
                5,
                1,
                "entry (1, 2) mirrors the entry (2, 1) of line 3: a symmetric file lists one \
                 triangle, and expanding both would add them into both positions; keep one of \
                 them, or declare the matrix general",
            ),
        ),
        (
            String::new(),
            err(
                1,
                1,
                "the file does not start with the Matrix Market banner \
                 `%%MatrixMarket matrix coordinate|array real|integer|pattern \
                 general|symmetric|skew-symmetric`",
            ),
        ),
        (
            "3 3 1\n1 1 1\n".into(),
            err(
                1,
                1,
                "the file does not start with the Matrix Market banner \
                 `%%MatrixMarket matrix coordinate|array real|integer|pattern \
                 general|symmetric|skew-symmetric`",
            ),
        ),
        (
            "%%MatrixMarket matrix array pattern general\n2 2\n".into(),
            err(
                1,
                29,
                "a dense `array` file has a value for every position; `pattern` is for \
                 `coordinate` files",
            ),
        ),
        (
            "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n".into(),
            err(6, 1, "the file ends after 3 of the 4 values announced on line 2"),
        ),
        (
            "%%MatrixMarket matrix array real general\n1 1\n1 2\n".into(),
            err(3, 3, "unexpected field `2`: a line of an array file holds one value"),
        ),
        (
            "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n4\n".into(),
            err(6, 1, "more values than the 3 announced on line 2"),
        ),
        (
            "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n".into(),
            err(
                1,
                34,
                "complex matrices are not supported; the field must be real, integer or pattern",
            ),
        ),
        (
            "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n 2 2 1\n".into(),
            err(
                3,
                2,
                "entry (2, 2) is on the diagonal, which a skew-symmetric matrix has zero and its \
                 file does not list",
            ),
        ),
        (
            "%%MatrixMarket matrix coordinate pattern skew-symmetric\n".into(),
            err(
                1,
                42,
                "a `pattern` matrix cannot be skew-symmetric: it has no values to negate",
            ),
        ),
        (
            "%%MatrixMarket matrix coordinate real Hermitian\n2 2 1\n2 1 1\n".into(),
            err(
                1,
                39,
                "hermitian matrices are not supported (they are complex); the symmetry must be \
                 general, symmetric or skew-symmetric",
            ),
        ),
        (
            "%%MatrixMarket matrix coordinate real\n".into(),
            err(
                1,
                38,
                "the banner ends before the symmetry (general, symmetric or skew-symmetric); \
                 expected `%%MatrixMarket matrix coordinate|array real|integer|pattern \
                 general|symmetric|skew-symmetric`",
            ),
        ),
        (
            format!("{HEADER}% only comments\n\n"),
            err(4, 1, "the file ends before the size line (`rows columns entries`)"),
        ),
        (
            format!("{HEADER}2 2 1\n1 1 nan\n"),
            err(
                3,
                5,
                "value `nan` is not a finite number (NaN and infinities are not accepted)",
            ),
        ),
        (
            format!("{HEADER}2 2 1\n1 1 1e999\n"),
            err(
                3,
                5,
                "value `1e999` is not a finite number (NaN and infinities are not accepted)",
            ),
        ),
        (
            format!("{HEADER}2 2 1\n1\n"),
            err(3, 2, "missing column index: an entry is `row column value`"),
        ),
        (
            format!("{HEADER}2 2 -1\n"),
            err(2, 5, "number of entries -1 is negative"),
        ),
        (
            format!("{HEADER}2 2 1 7\n"),
            err(
                2,
                7,
                "unexpected `7` after the number of entries; the size line of a coordinate \
                 matrix has 3 fields",
            ),
        ),
        (
            format!("{HEADER}2 2 1\n99999999999999999999 1 1\n"),
            err(3, 1, "row index `99999999999999999999` does not fit in a 64-bit integer"),
        ),
        (
            "%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n".into(),
            err(2, 1, "a symmetric matrix must be square, but this one is 2 × 3"),
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1.0\n".into(),
            err(3, 5, "unexpected field `1.0`: an entry is `row column`"),
        ),
        (
            "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n".into(),
            err(3, 5, "integer value `1.5` is not an integer"),
        ),
        (
            "%%MatrixMarket matrix coordinate real general extra\n".into(),
            err(1, 47, "unexpected `extra` after the banner's symmetry"),
        ),
        (
            "%%MatrixMarket vector coordinate real general\n".into(),
            err(
                1,
                16,
                "unsupported Matrix Market object `vector`; only `matrix` is supported",
            ),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(mtx_err(&text), expected, "{text:?}");
    }
    // Invalid UTF-8 is located at its first byte.
    let mut bytes = format!("{HEADER}2 2 1\n1 ").into_bytes();
    bytes.extend([0xff, b'\n']);
    let e = read_mtx(&bytes).unwrap_err();
    assert_eq!(
        (e.line, e.column, e.message.as_str()),
        (3, 3, "the file is not valid UTF-8 text")
    );
}

#[test]
fn matrix_market_details() {
    // Duplicates are summed at their first position; comments, blank lines,
    // CRLF, tabs and upper-case keywords are accepted.
    let text = "%%matrixmarket MATRIX Coordinate REAL General\r\n% c\r\n\r\n3 3 4\r\n\
                2\t1 1.0\r\n1 1 5\r\n% middle comment\r\n2 1 0.5\r\n3 3 -0\r\n\r\n";
    let m = read_mtx(text.as_bytes()).unwrap();
    assert_eq!(m.dims, vec![3, 3]);
    assert_eq!(
        m.entries,
        vec![(vec![1, 0], 1.5), (vec![0, 0], 5.0), (vec![2, 2], -0.0)]
    );
    // Symmetric mirrors: (2,1) and (1,2) are the same pair of entries, so a
    // file that gives both is refused (it was summed into both positions);
    // the same entry twice is a duplicate, summed as in a general file.
    let text = "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n2 1 3\n1 2 4\n";
    let e = read_mtx(text.as_bytes()).unwrap_err();
    assert_eq!((e.line, e.column), (4, 1), "{}", e.message);
    assert!(e
        .message
        .starts_with("entry (1, 2) mirrors the entry (2, 1) of line 3"));
    let text = "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n2 1 3\n2 1 4\n";
    let m = read_mtx(text.as_bytes()).unwrap();
    assert_eq!(m.entries, vec![(vec![1, 0], 7.0), (vec![0, 1], 7.0)]);
    // An empty matrix, and a last line without a newline.
    let m = read_mtx(format!("{HEADER}0 0 0").as_bytes()).unwrap();
    assert_eq!(
        m,
        Coordinates {
            dims: vec![0, 0],
            entries: vec![]
        }
    );
    let m = read_mtx(format!("{HEADER}1 2 1\n1 2 -7.25e-3").as_bytes()).unwrap();
    assert_eq!(m.entries, vec![(vec![0, 1], -7.25e-3)]);
    // A truncated file without a final newline: reported just past its end.
    let e = read_mtx(format!("{HEADER}1 2 2\n1 2 3").as_bytes()).unwrap_err();
    assert_eq!(
        (e.line, e.column, e.message.as_str()),
        (
            3,
            6,
            "the file ends after 1 of the 2 entries announced on line 2"
        )
    );
    // The small file of tests/data.
    let m = read_file(&data("small.mtx"), None).unwrap();
    assert_eq!(coordinate_entries(&m), coordinate_entries(&small()));
    // Unknown extensions and missing files.
    assert!(matches!(
        read_file(Path::new("matrix.txt"), None),
        Err(FileError::UnknownKind { .. })
    ));
    assert!(matches!(
        read_file(Path::new("/no/such/file.mtx"), None),
        Err(FileError::Io { .. })
    ));
}

// ---------------------------------------------------------------------------
// FROSTT

#[test]
fn frostt_reads_and_reports() {
    let t = read_file(&data("small.tns"), None).unwrap();
    assert_eq!(t.dims, vec![3, 4, 2]);
    assert_eq!(
        t.entries,
        vec![
            (vec![0, 0, 0], 1.5),
            (vec![2, 3, 1], -2.0),
            (vec![1, 1, 0], 0.1),
            (vec![0, 3, 1], 1e-300),
            (vec![2, 0, 0], 7.0),
        ]
    );
    let t = read_file(&data("small.tns"), Some(&[5, 5, 5])).unwrap();
    assert_eq!(t.dims, vec![5, 5, 5]);
    // Duplicates are summed.
    let t = read_tns(b"1 2 1\n1 2 2.5\n", None).unwrap();
    assert_eq!(t.entries, vec![(vec![0, 1], 3.5)]);
    // An empty file: no modes.
    assert_eq!(
        read_tns(b"# nothing\n\n", None).unwrap(),
        Coordinates::default()
    );

    let tns_err = |text: &str, dims: Option<&[i64]>| {
        let e = read_tns(text.as_bytes(), dims).expect_err(text);
        (e.line, e.column, e.message)
    };
    assert_eq!(
        tns_err("1 1 1 1.0\n2 2 1.0\n", None),
        err(
            2,
            8,
            "this entry has 2 indices and a value but the first entry (line 1) has 3"
        )
    );
    assert_eq!(
        tns_err("1 1 1.0\n2 2 2 1.0\n", None),
        err(
            2,
            7,
            "this entry has 3 indices and a value but the first entry (line 1) has 2"
        )
    );
    assert_eq!(
        tns_err("# c\n1 0 1.0\n", None),
        err(
            2,
            3,
            "index of mode 2 0 is below 1: FROSTT indices are 1-based, and this one looks 0-based"
        )
    );
    assert_eq!(
        tns_err("1 3 1.0\n", Some(&[2, 2])),
        err(2 - 1, 3, "index of mode 2 3 is out of range 1..=2")
    );
    assert_eq!(
        tns_err("1 1 1.0\n", Some(&[2, 2, 2])),
        err(1, 1, "this entry has 2 indices but the tensor has 3 modes")
    );
    assert_eq!(
        tns_err("\n  7\n", None),
        err(2, 4, "an entry needs at least one index and a value")
    );
    assert_eq!(
        tns_err("1 1 x1\n", None),
        err(1, 5, "value `x1` is not a number")
    );
    assert_eq!(
        tns_err("1 1 inf\n", None),
        err(
            1,
            5,
            "value `inf` is not a finite number (NaN and infinities are not accepted)"
        )
    );
}

// ---------------------------------------------------------------------------
// Writers and round trips

#[test]
fn mtx_round_trips_exactly() {
    for &(name, ..) in MATRICES {
        let m = read_matrix(name);
        let mut out = Vec::new();
        write_mtx(&m, &mut out).unwrap();
        let back = read_mtx(&out).unwrap();
        assert_eq!(back, m, "{name}");
        assert!(out.starts_with(b"%%MatrixMarket matrix coordinate real general\n"));
    }
    let awkward = Coordinates {
        dims: vec![3, 2],
        entries: vec![
            (vec![0, 0], 0.1),
            (vec![2, 1], -1e300),
            (vec![1, 0], 5e-324),
            (vec![1, 1], -0.0),
            (vec![0, 1], 1.0 / 3.0),
            (vec![2, 0], 123456789012345680.0),
        ],
    };
    let mut out = Vec::new();
    write_mtx(&awkward, &mut out).unwrap();
    let back = read_mtx(&out).unwrap();
    assert_eq!(back.dims, awkward.dims);
    for (a, b) in back.entries.iter().zip(&awkward.entries) {
        assert_eq!(a.0, b.0);
        assert_eq!(a.1.to_bits(), b.1.to_bits());
    }
}

#[test]
fn tns_round_trips_exactly() {
    let t = Coordinates {
        dims: vec![4, 3, 5],
        entries: vec![
            (vec![3, 2, 4], 0.1),
            (vec![0, 0, 0], -2.5e-310),
            (vec![1, 2, 3], 1e22),
            (vec![2, 1, 0], -7.0),
        ],
    };
    let mut out = Vec::new();
    write_tns(&t, &mut out).unwrap();
    assert_eq!(read_tns(&out, Some(&t.dims)).unwrap(), t);
    // Without the extents, they are the largest index of each mode.
    assert_eq!(read_tns(&out, None).unwrap().dims, vec![4, 3, 5]);
}

#[test]
fn writers_refuse_what_readers_would_refuse() {
    let mut out = Vec::new();
    let t = Coordinates {
        dims: vec![2, 2, 2],
        entries: vec![],
    };
    assert!(matches!(
        write_mtx(&t, &mut out),
        Err(WriteError::Order {
            expected: 2,
            found: 3,
            ..
        })
    ));
    let bad = Coordinates {
        dims: vec![2, 2],
        entries: vec![(vec![0, 2], 1.0)],
    };
    assert_eq!(
        write_mtx(&bad, &mut out).unwrap_err().to_string(),
        "entry 0 has index 2 in dimension 1, outside 0..2"
    );
    let nan = Coordinates {
        dims: vec![2, 2],
        entries: vec![(vec![0, 0], 1.0), (vec![1, 1], f64::NAN)],
    };
    assert_eq!(
        write_tns(&nan, &mut out).unwrap_err().to_string(),
        "entry 1 has the non-finite value NaN"
    );
    let short = Coordinates {
        dims: vec![2, 2],
        entries: vec![(vec![0], 1.0)],
    };
    assert!(matches!(
        write_tns(&short, &mut out),
        Err(WriteError::EntryOrder {
            entry: 0,
            expected: 2,
            found: 1
        })
    ));
}

// ---------------------------------------------------------------------------
// JSON instances

#[test]
fn json_instances_round_trip() {
    let text = std::fs::read_to_string(data("csr_small.json")).unwrap();
    let inst = Instance::from_json(&text).unwrap();
    assert_eq!(inst, csr_instance(&small()));
    assert_eq!(Instance::from_json(&inst.to_json()).unwrap(), inst);
    // Awkward reals survive exactly; integers stay integers.
    let mut odd = inst.clone();
    set_array(
        &mut odd,
        "A",
        Values::Real(vec![0.1, -0.0, 1e300, 5e-324, 2.0]),
    );
    let back = Instance::from_json(&odd.to_json()).unwrap();
    let (Values::Real(a), Values::Real(b)) = (&back.arrays["A"], &odd.arrays["A"]) else {
        panic!("reals expected")
    };
    assert!(a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()));
    // A value array written with integers reads as integers and validates.
    let ints = Instance::from_json(
        r#"{"format": "csr", "symbols": {"NR": 1, "NC": 1, "NNZ": 1},
            "arrays": {"rowptr": [0, 1], "col": [0], "A": [3]}}"#,
    )
    .unwrap();
    assert_eq!(ints.arrays["A"], Values::Int(vec![3]));
    validate(&csr(), &ints).unwrap();
    assert_eq!(entries(&csr(), &ints).unwrap(), [(vec![0, 0], 3.0)].into());
    // Empty instance parts.
    let empty = Instance::from_json(r#"{"format": "x"}"#).unwrap();
    assert_eq!(Instance::from_json(&empty.to_json()).unwrap(), empty);
}

#[test]
fn json_errors_are_located_or_named() {
    let syntax = |text: &str| match Instance::from_json(text).unwrap_err() {
        InstanceError::Json { line, column, .. } => (line, column),
        other => panic!("{other}"),
    };
    assert_eq!(
        syntax("{\"format\": \"csr\",\n  \"symbols\": {\"NR\": 4,}}"),
        (2, 23)
    );
    assert_eq!(syntax("{\"format\": \"csr\""), (1, 16));
    assert_eq!(syntax(""), (1, 1));
    let e = Instance::from_json("[1,\n 2,\n x]").unwrap_err();
    assert_eq!(e.to_string(), "3:2: invalid JSON: expected value");
    let e = Instance::from_json_bytes(b"{\"format\": \"\xff\"}").unwrap_err();
    assert!(matches!(e, InstanceError::Json { line: 1, .. }), "{e}");

    let structure = |text: &str| Instance::from_json(text).unwrap_err().to_string();
    assert_eq!(
        structure("[1, 2]"),
        "at `(top level)`: expected an object with \"format\", \"symbols\" and \"arrays\", \
         found an array"
    );
    assert_eq!(
        structure(r#"{"format": "csr", "array": {}}"#),
        "at `array`: unknown key; an instance has \"format\", \"symbols\", \"arrays\" and \
         optionally \"index_width\""
    );
    assert_eq!(
        structure(r#"{"format": "csr", "index_width": 16}"#),
        "at `index_width`: expected 32 or 64, or {\"positions\": 32|64, \"coordinates\": \
         32|64}, found the number 16"
    );
    assert!(
        structure(r#"{"format": "csr", "index_width": {"positions": 64}}"#)
            .starts_with("at `index_width`: expected 32 or 64")
    );
    assert_eq!(
        structure(r#"{"symbols": {}}"#),
        "at `format`: missing: the format's name"
    );
    assert_eq!(
        structure(r#"{"format": 3}"#),
        "at `format`: expected the format's name (a string), found the number 3"
    );
    assert_eq!(
        structure(r#"{"format": "csr", "symbols": [4]}"#),
        "at `symbols`: expected an object of integers, found an array"
    );
    assert_eq!(
        structure(r#"{"format": "csr", "symbols": {"NR": 4.5}}"#),
        "at `symbols.NR`: expected an integer, found the number 4.5"
    );
    assert_eq!(
        structure(r#"{"format": "csr", "arrays": 1}"#),
        "at `arrays`: expected an object of arrays, found the number 1"
    );
    assert_eq!(
        structure(r#"{"format": "csr", "arrays": {"col": "0 1"}}"#),
        "at `arrays.col`: expected an array of numbers, found a string"
    );
    assert_eq!(
        structure(r#"{"format": "csr", "arrays": {"col": [0, 1, null]}}"#),
        "at `arrays.col[2]`: expected a number, found null"
    );
    // Integers beyond 64 bits are named as such, never taken for reals.
    assert_eq!(
        structure(r#"{"format": "csr", "symbols": {"NR": 9223372036854775808}}"#),
        "at `symbols.NR`: expected an integer, found the integer 9223372036854775808, which is \
         beyond the 64-bit range (at most 9223372036854775807)"
    );
    assert_eq!(
        structure(r#"{"format": "csr", "arrays": {"col": [0, 9223372036854775808]}}"#),
        "at `arrays.col[1]`: the integer 9223372036854775808, which is beyond the 64-bit range \
         (at most 9223372036854775807); write a value with a decimal point if it is a real"
    );
    assert!(
        structure(r#"{"format": "csr", "symbols": {"NR": 100000000000000000000000}}"#)
            .contains("beyond the 64-bit integer range"),
    );
    // A key given twice is an error where it repeats, never "the last wins".
    let e = Instance::from_json("{\"format\": \"CSR\",\n \"symbols\": {\"NR\": 4, \"NR\": 5}}")
        .unwrap_err();
    assert!(matches!(e, InstanceError::Json { line: 2, .. }), "{e}");
    assert!(
        e.to_string().contains("the key \"NR\" is given twice"),
        "{e}"
    );
}

// ---------------------------------------------------------------------------
// Validation

fn invalid(d: &Descriptor, inst: &Instance) -> String {
    validate(d, inst).unwrap_err().to_string()
}

#[test]
fn valid_instances_validate() {
    let m = small();
    validate(&csr(), &csr_instance(&m)).unwrap();
    validate(&coo(), &coo_instance(&m)).unwrap();
    validate(&dia(), &dia_instance(&m)).unwrap();
    // Morton order: sort the entries by their Morton codes.
    let morton = |i: &Vec<i64>| {
        synth::concrete::comparator_key(&mcoo().comparators[0], &[i[0], i[1]]).unwrap()
    };
    let mut sorted = m.clone();
    sorted.entries.sort_by_key(|e| morton(&e.0));
    let mut inst = coo_instance(&sorted);
    inst.format = "MCOO".into();
    validate(&mcoo(), &inst).unwrap();
    // COO in another order is not Morton-ordered.
    let mut unsorted = coo_instance(&m);
    unsorted.format = "mcoo".into();
    assert_eq!(
        invalid(&mcoo(), &unsorted),
        "rule `forall n1, n2 : n1 < n2 && 0 <= n1 && n2 < NNZ => \
         MORTON(row(n1), col(n1)) < MORTON(row(n2), col(n2))` does not hold at n1 = 1, n2 = 2: \
         row(1) = 0, col(1) = 3, row(2) = 2, col(2) = 0, MORTON(0, 3) has key (10), \
         MORTON(2, 0) has key (4)"
    );
}

#[test]
fn every_validation_error_names_the_array_index_and_property() {
    let d = csr();
    let good = csr_instance(&small());

    let mut i = good.clone();
    i.format = "COO".into();
    assert_eq!(
        invalid(&d, &i),
        "the instance is of format `COO`, not `CSR`"
    );

    let mut i = good.clone();
    i.symbols.remove("NC");
    assert_eq!(
        invalid(&d, &i),
        "symbol `NC` has no value (the format's symbols: NR, NC, NNZ)"
    );
    let mut i = good.clone();
    i.symbols.insert("ND".into(), 3);
    assert_eq!(
        invalid(&d, &i),
        "`ND` is not a symbol of CSR (its symbols: NR, NC, NNZ)"
    );
    let mut i = good.clone();
    i.arrays.remove("col");
    assert_eq!(
        invalid(&d, &i),
        "array `col` is missing (the format's arrays: rowptr, col, A)"
    );
    let mut i = good.clone();
    set_array(&mut i, "row", Values::Int(vec![]));
    assert_eq!(
        invalid(&d, &i),
        "`row` is not an array of CSR (its arrays: rowptr, col, A)"
    );
    let mut i = good.clone();
    set_array(&mut i, "col", Values::Real(vec![1.0, 3.0, 0.0, 2.0, 3.5]));
    assert_eq!(
        invalid(&d, &i),
        "col is an index array and must hold integers, but it holds reals"
    );
    let mut i = good.clone();
    set_array(&mut i, "rowptr", Values::Int(vec![0, 2, 2, 4]));
    assert_eq!(
        invalid(&d, &i),
        "rowptr has 4 values but its domain 0 <= x <= NR (NR = 4) needs 5"
    );
    let mut i = good.clone();
    set_array(&mut i, "A", Values::Real(vec![1.0; 6]));
    assert_eq!(
        invalid(&d, &i),
        "A has 6 values but the descriptor's size NNZ is 5"
    );
    let mut i = good.clone();
    set_array(&mut i, "col", Values::Int(vec![1, 3, 0, 9, 3]));
    assert_eq!(
        invalid(&d, &i),
        "col(3) = 9 is outside its range 0 <= y < NC (NC = 4)"
    );
    let mut i = good.clone();
    set_array(&mut i, "rowptr", Values::Int(vec![0, 2, 1, 4, 5]));
    assert_eq!(
        invalid(&d, &i),
        "rowptr is not nondecreasing: rowptr(1) = 2 > rowptr(2) = 1"
    );
    let mut i = good.clone();
    set_array(&mut i, "rowptr", Values::Int(vec![0, 2, 2, 4, 6]));
    assert_eq!(
        invalid(&d, &i),
        "rowptr(4) = 6 is outside its range 0 <= y <= NNZ (NNZ = 5)"
    );
    let mut i = good.clone();
    set_array(&mut i, "col", Values::Int(vec![3, 1, 0, 2, 3]));
    assert_eq!(
        invalid(&d, &i),
        "rule `forall i, k1, k2 : i < NR && 0 <= i && k1 < k2 && rowptr(i) <= k1 \
         && k2 < rowptr(i + 1) => col(k1) < col(k2)` does not hold at i = 0, k1 = 0, k2 = 1: \
         rowptr(0) = 0, rowptr(1) = 2, col(0) = 3, col(1) = 1"
    );
    let mut i = good.clone();
    set_array(
        &mut i,
        "A",
        Values::Real(vec![1.0, f64::NAN, 0.0, 0.0, 0.0]),
    );
    assert_eq!(invalid(&d, &i), "A(1) = NaN is not a finite number");

    // COO: two entries at one coordinate break the uniqueness rule (checked
    // by a join on the keys row, col).
    let mut dup = small();
    dup.entries.push((vec![2, 2], 1.0));
    let i = coo_instance(&dup);
    assert_eq!(
        invalid(&coo(), &i),
        "rule `forall n1, n2 : col(n1) = col(n2) && row(n1) = row(n2) && n1 < NNZ && 0 <= n1 \
         && n2 < NNZ && 0 <= n2 => n1 = n2` does not hold at n1 = 3, n2 = 5: col(3) = 2, \
         col(5) = 2, row(3) = 2, row(5) = 2"
    );

    // DIA: off must be increasing; the multi-extent value array.
    let mut i = dia_instance(&small());
    set_array(&mut i, "off", Values::Int(vec![-2, 1, 0, 2]));
    assert_eq!(
        invalid(&dia(), &i),
        "off is not increasing: off(1) = 1 >= off(2) = 0"
    );
    let mut i = dia_instance(&small());
    set_array(&mut i, "A", Values::Real(vec![0.0; 15]));
    assert_eq!(
        invalid(&dia(), &i),
        "A has 15 values but the descriptor's size [NR, ND] is 4 × 4 = 16 (ND = 4, NR = 4)"
    );
    // Two-argument index arrays are row-major over their domain's box.
    let mut ell = csr();
    ell.ufs = vec![uf(
        "col",
        "{[x, y] : 0 <= x < NR && 0 <= y < 3}",
        "{[z] : 0 <= z < NC}",
        vec![],
    )];
    ell.rules.clear();
    let mut i = good.clone();
    i.arrays.remove("rowptr");
    assert_eq!(
        invalid(&ell, &i),
        "col has 5 values but its domain 0 <= x < NR && 0 <= y <= 2 (NR = 4) needs 12 \
         (4 × 3, row-major)"
    );
}

#[test]
fn comparator_and_evaluation_failures_are_named() {
    // A key that goes negative: interleave refuses it.
    let mut d = mcoo();
    d.comparators[0].key = vec![KeyExpr::Interleave(vec![
        KeyExpr::Sub(Box::new(KeyExpr::Param(0)), Box::new(KeyExpr::Int(1))),
        KeyExpr::Param(1),
    ])];
    let mut i = coo_instance(&small());
    i.format = "MCOO".into();
    assert_eq!(
        invalid(&d, &i),
        "comparator MORTON: interleave needs non-negative values, but argument 1 is -1"
    );
    // A comparator of several components compares keys lexicographically.
    let mut d = mcoo();
    d.comparators[0].key = vec![KeyExpr::Param(0), KeyExpr::Param(1)];
    let mut sorted = small();
    sorted.entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut i = coo_instance(&sorted);
    i.format = "MCOO".into();
    validate(&d, &i).unwrap();
    sorted.entries.swap(1, 2);
    let mut i = coo_instance(&sorted);
    i.format = "MCOO".into();
    assert!(invalid(&d, &i).ends_with(
        "does not hold at n1 = 1, n2 = 2: row(1) = 2, col(1) = 0, row(2) = 0, col(2) = 3, \
         MORTON(2, 0) has key (2, 0), MORTON(0, 3) has key (0, 3)"
    ));
    // An index array whose domain has no bound.
    let mut d = coo();
    d.ufs[0].domain = set("{[x] : x >= 0}");
    assert_eq!(
        invalid(&d, &coo_instance(&small())),
        "cannot evaluate the domain of row: tuple variable `x` (position 0) has no finite \
         bound; give the enumeration a box"
    );
}

#[test]
fn rules_without_a_shortcut_are_enumerated_within_a_budget() {
    let mut d = coo();
    // Every row index is at most every column index plus 3: no ordering,
    // no join; all NNZ² pairs.
    d.rules = vec![rule(
        &["n1", "n2"],
        "0 <= n1 < NNZ && 0 <= n2 < NNZ",
        "row(n1) <= col(n2) + 3",
    )];
    let i = coo_instance(&small());
    validate(&d, &i).unwrap();
    assert_eq!(
        validate_with_budget(&d, &i, 10).unwrap_err().to_string(),
        "cannot check rule `forall n1, n2 : n1 < NNZ && 0 <= n1 && n2 < NNZ && 0 <= n2 => \
         row(n1) <= col(n2) + 3`: it needs more than 10 evaluations (neither the adjacent-pair \
         check of an ordering nor a join on equal keys applies)"
    );
    d.rules = vec![rule(
        &["n1", "n2"],
        "0 <= n1 < NNZ && 0 <= n2 < NNZ",
        "row(n1) <= col(n2) + 2",
    )];
    assert_eq!(
        invalid(&d, &i),
        "rule `forall n1, n2 : n1 < NNZ && 0 <= n1 && n2 < NNZ && 0 <= n2 => \
         row(n1) <= col(n2) + 2` does not hold at n1 = 4, n2 = 2: col(2) = 0, row(4) = 3"
    );
    // Sorted rows, stated through the contrapositive form (linear).
    d.rules = vec![rule(
        &["n1", "n2"],
        "0 <= n1 < NNZ && 0 <= n2 < NNZ && row(n1) < row(n2)",
        "n1 < n2",
    )];
    validate_with_budget(&d, &coo_instance(&small()), 0).unwrap();
    let mut unsorted = small();
    unsorted.entries.swap(0, 4);
    // Rows 3, 0, 2, 2, 0: the reported assignment violates the rule as written.
    assert!(invalid(&d, &coo_instance(&unsorted))
        .ends_with("does not hold at n1 = 1, n2 = 0: row(1) = 0, row(0) = 3"));
}

// ---------------------------------------------------------------------------
// The oracle

#[test]
fn coo_csr_and_dia_of_one_matrix_store_the_same_entries() {
    let m = small();
    let expected = coordinate_entries(&m);
    assert_eq!(expected.len(), 5);
    assert_eq!(entries(&coo(), &coo_instance(&m)).unwrap(), expected);
    assert_eq!(entries(&csr(), &csr_instance(&m)).unwrap(), expected);
    assert_eq!(entries(&dia(), &dia_instance(&m)).unwrap(), expected);
    compare(
        &entries(&coo(), &coo_instance(&m)).unwrap(),
        &entries(&csr(), &csr_instance(&m)).unwrap(),
    )
    .unwrap();
    // The JSON file gives the same.
    let json =
        Instance::from_json(&std::fs::read_to_string(data("csr_small.json")).unwrap()).unwrap();
    assert_eq!(entries(&csr(), &json).unwrap(), expected);
    // `spf dump`: CSR lists its entries row by row.
    let dumped = coordinates_from(&csr(), &json).unwrap();
    assert_eq!(dumped.dims, vec![4, 4]);
    assert_eq!(dumped.entries, m.entries);
    let from_coo = coordinates_from(
        &coo(),
        &coo_instance(&read_file(&data("small.mtx"), None).unwrap()),
    )
    .unwrap();
    assert_eq!(from_coo.entries[0], (vec![2, 0], -3.0));
}

#[test]
fn a_corrupted_csr_is_reported_at_the_first_differing_coordinate() {
    let m = small();
    let expected = entries(&coo(), &coo_instance(&m)).unwrap();
    let mut bad = csr_instance(&m);
    // The entry (2, 2) = 4 moves to column 1.
    set_array(&mut bad, "col", Values::Int(vec![1, 3, 0, 1, 3]));
    let actual = entries(&csr(), &bad).unwrap();
    let mismatch = compare(&expected, &actual).unwrap_err();
    assert_eq!(mismatch.coordinate, vec![2, 1]);
    assert_eq!(
        mismatch.to_string(),
        "the entries differ first at (2, 1): expected no entry, found 4.0 \
         (5 entries expected, 5 found)"
    );
    // A changed value.
    let mut bad = csr_instance(&m);
    set_array(&mut bad, "A", Values::Real(vec![1.5, 2.0, -3.0, 4.5, 0.25]));
    let mismatch = compare(&expected, &entries(&csr(), &bad).unwrap()).unwrap_err();
    assert_eq!(
        mismatch.to_string(),
        "the entries differ first at (2, 2): expected 4.0, found 4.5 \
         (5 entries expected, 5 found)"
    );
    // A missing entry.
    let mut fewer = m.clone();
    fewer.entries.pop();
    let mismatch = compare(&expected, &coordinate_entries(&fewer)).unwrap_err();
    assert_eq!(mismatch.coordinate, vec![3, 3]);
    assert_eq!((mismatch.expected, mismatch.actual), (Some(0.25), None));
}

#[test]
fn stored_zeros_padding_and_coinciding_entries() {
    // Stored zeros are ignored.
    let mut z = small();
    z.entries.push((vec![1, 1], 0.0));
    z.entries.push((vec![1, 2], -0.0));
    assert_eq!(
        entries(&coo(), &coo_instance(&z)).unwrap(),
        coordinate_entries(&small())
    );
    // DIA pads with zeros: the instance stores 16 values for 5 entries.
    let i = dia_instance(&small());
    assert_eq!(i.arrays["A"].len(), 16);
    assert_eq!(
        coordinates_from(&dia(), &i).unwrap().entries.len(),
        5,
        "zeros dropped"
    );
    // Two nonzero entries at one coordinate.
    let mut dup = small();
    dup.entries.push((vec![0, 1], 2.0));
    let mut d = coo();
    d.rules.clear();
    assert_eq!(
        entries(&d, &coo_instance(&dup)).unwrap_err().to_string(),
        "two nonzero entries at (0, 1): A(0) = 1.5 and A(5) = 2"
    );
    // With padding, the message says what padding slots must hold. An ELL
    // whose padded slot of row 0 repeats column 1 with a nonzero value:
    let ell = Descriptor {
        name: "ELL".into(),
        dense: strings(&["NR", "NC"]),
        symbols: strings(&["NR", "NC", "W"]),
        map: rel(
            "{[ii, w, jj] -> [i, j] : i = ii && j = jj && 0 <= ii < NR && 0 <= w < W \
             && jj = col(ii, w)}",
        ),
        data_name: "A".into(),
        data: rel("{[ii, w, jj] -> [ii, w]}"),
        data_size: vec![Expr::sym("NR"), Expr::sym("W")],
        ufs: vec![uf(
            "col",
            "{[x, y] : 0 <= x < NR && 0 <= y < W}",
            "{[z] : 0 <= z < NC}",
            vec![],
        )],
        rules: vec![],
        comparators: vec![],
        padding: true,
        lines: Default::default(),
    };
    let good = instance(
        "ell",
        &[("NR", 2), ("NC", 3), ("W", 2)],
        vec![
            ("col", Values::Int(vec![1, 1, 0, 2])),
            ("A", Values::Real(vec![5.0, 0.0, 6.0, 7.0])),
        ],
    );
    validate(&ell, &good).unwrap();
    assert_eq!(
        entries(&ell, &good).unwrap(),
        [(vec![0, 1], 5.0), (vec![1, 0], 6.0), (vec![1, 2], 7.0)].into()
    );
    let mut bad = good.clone();
    set_array(&mut bad, "A", Values::Real(vec![5.0, 8.0, 6.0, 7.0]));
    assert_eq!(
        entries(&ell, &bad).unwrap_err().to_string(),
        "two nonzero entries at (0, 1): A(0, 0) = 5 and A(0, 1) = 8 \
         (padding slots must hold zeros)"
    );
    // The oracle checks shapes too.
    let mut short = csr_instance(&small());
    set_array(&mut short, "col", Values::Int(vec![0]));
    assert!(matches!(
        entries(&csr(), &short),
        Err(OracleError::Instance(InstanceError::Length { .. }))
    ));
}

#[test]
fn oracle_on_the_real_matrices_is_linear_and_agrees() {
    let mut slowest = (String::new(), 0.0f64);
    for &(name, ..) in MATRICES {
        let m = read_matrix(name);
        let expected = coordinate_entries(&m);
        let (coo_i, csr_i) = (coo_instance(&m), csr_instance(&m));
        let start = Instant::now();
        let from_csr = entries(&csr(), &csr_i).unwrap();
        let csr_time = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let from_coo = entries(&coo(), &coo_i).unwrap();
        let coo_time = start.elapsed().as_secs_f64();
        compare(&expected, &from_csr).unwrap_or_else(|e| panic!("{name}: {e}"));
        compare(&expected, &from_coo).unwrap_or_else(|e| panic!("{name}: {e}"));
        let start = Instant::now();
        validate(&csr(), &csr_i).unwrap_or_else(|e| panic!("{name}: {e}"));
        validate(&coo(), &coo_i).unwrap_or_else(|e| panic!("{name}: {e}"));
        let validate_time = start.elapsed().as_secs_f64();
        eprintln!(
            "{name}: {} entries; oracle CSR {csr_time:.3} s, COO {coo_time:.3} s; \
             validate CSR+COO {validate_time:.3} s",
            m.len()
        );
        if csr_time + coo_time > slowest.1 {
            slowest = (name.to_string(), csr_time + coo_time);
        }
    }
    eprintln!("slowest oracle: {} ({:.3} s)", slowest.0, slowest.1);
    // Generous: the largest matrix takes well under a second in release.
    assert!(slowest.1 < 60.0, "{slowest:?}");
}

#[test]
fn dia_oracle_on_a_banded_matrix() {
    let m = read_matrix("circulant_1000_1_2_3.mtx");
    let i = dia_instance(&m);
    // Offsets ±1, ±2, ±3 and their wrap-arounds ±997, ±998, ±999.
    assert_eq!(i.symbols["ND"], 12);
    validate(&dia(), &i).unwrap();
    compare(&coordinate_entries(&m), &entries(&dia(), &i).unwrap()).unwrap();
}

// ---------------------------------------------------------------------------
// The readers never panic

fn mutate(base: &[u8], edits: &[(usize, u8, u8)]) -> Vec<u8> {
    let mut b = base.to_vec();
    for &(at, kind, byte) in edits {
        let at = if b.is_empty() { 0 } else { at % (b.len() + 1) };
        match kind % 3 {
            0 => b.insert(at, byte),
            1 if at < b.len() => {
                b.remove(at);
            }
            _ if at < b.len() => b[at] = byte,
            _ => b.push(byte),
        }
    }
    b
}

fn interesting_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        Just(b'0'),
        Just(b'1'),
        Just(b'9'),
        Just(b' '),
        Just(b'\n'),
        Just(b'-'),
        Just(b'.'),
        Just(b'e'),
        Just(b'%'),
        Just(b'#'),
        Just(b'"'),
        Just(b'{'),
        Just(b'['),
        Just(b','),
        any::<u8>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = read_mtx(&bytes);
        let _ = read_tns(&bytes, None);
        let _ = read_tns(&bytes, Some(&[3, 3]));
        let _ = Instance::from_json_bytes(&bytes);
    }

    #[test]
    fn mutated_files_never_panic(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), interesting_byte()), 1..8)
    ) {
        let mtx = std::fs::read(data("small.mtx")).unwrap();
        let _ = read_mtx(&mutate(&mtx, &edits));
        let sym = b"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n";
        let _ = read_mtx(&mutate(sym, &edits));
        let tns = std::fs::read(data("small.tns")).unwrap();
        let _ = read_tns(&mutate(&tns, &edits), None);
        let json = std::fs::read(data("csr_small.json")).unwrap();
        if let Ok(inst) = Instance::from_json_bytes(&mutate(&json, &edits)) {
            // Whatever parses validates or fails cleanly, quickly.
            let _ = validate(&csr(), &inst);
            let _ = entries(&csr(), &inst);
        }
    }

    #[test]
    fn written_matrices_read_back_exactly(
        values in proptest::collection::vec(
            prop_oneof![any::<f64>().prop_filter("finite", |v| v.is_finite()), Just(-0.0), Just(0.1)],
            1..20,
        ),
        rows in 1i64..50,
        cols in 1i64..50,
    ) {
        // Distinct coordinates in a shuffled-looking order.
        let entries: Vec<(Vec<i64>, f64)> = values
            .iter()
            .enumerate()
            .map(|(k, v)| {
                let k = k as i64 * 7919;
                (vec![k % rows, (k / rows) % cols], *v)
            })
            .collect();
        let mut seen = std::collections::HashSet::new();
        let entries: Vec<_> = entries.into_iter().filter(|e| seen.insert(e.0.clone())).collect();
        let c = Coordinates { dims: vec![rows, cols], entries };
        let mut out = Vec::new();
        write_mtx(&c, &mut out).unwrap();
        let back = read_mtx(&out).unwrap();
        prop_assert_eq!(back.dims, c.dims.clone());
        prop_assert_eq!(back.entries.len(), c.entries.len());
        for (a, b) in back.entries.iter().zip(&c.entries) {
            prop_assert_eq!(&a.0, &b.0);
            prop_assert_eq!(a.1.to_bits(), b.1.to_bits());
        }
        let mut out = Vec::new();
        write_tns(&c, &mut out).unwrap();
        let back = read_tns(&out, Some(&c.dims)).unwrap();
        for (a, b) in back.entries.iter().zip(&c.entries) {
            prop_assert_eq!(a.1.to_bits(), b.1.to_bits());
        }
    }
}

// ---------------------------------------------------------------------------
// The built-in descriptors

/// An instance of the built-in format `name` holding the matrix `m`.
fn builtin_instance(d: &Descriptor, name: &str, m: &Coordinates) -> Instance {
    let (nr, nc) = (m.dims[0], m.dims[1]);
    let mut sorted = m.entries.clone();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut inst = match name {
        "coo" => coo_instance(m),
        "scoo" => coo_instance(&Coordinates {
            dims: m.dims.clone(),
            entries: sorted.clone(),
        }),
        "mcoo" => {
            let morton = d.comparator("MORTON").unwrap();
            let mut by_key = m.entries.clone();
            by_key.sort_by_key(|e| synth::concrete::comparator_key(morton, &e.0).unwrap());
            coo_instance(&Coordinates {
                dims: m.dims.clone(),
                entries: by_key,
            })
        }
        "csr" => csr_instance(m),
        "tcoo8" => {
            // COO with its entries sorted 8 x 8 tile by tile, row-major inside.
            let mut tiled = m.clone();
            tiled
                .entries
                .sort_by_key(|(x, _)| (x[0] / 8, x[1] / 8, x[0], x[1]));
            let mut inst = Instance::from_coordinates(&tiled);
            inst.format = d.name.clone();
            inst
        }
        "ucsr" => {
            // CSR with every row's columns reversed: unsorted, still distinct.
            let mut u = csr_instance(m);
            let rowptr = u.arrays["rowptr"].as_ints().expect("ints").to_vec();
            for name in ["col", "A"] {
                for w in rowptr.windows(2) {
                    let (a, b) = (w[0] as usize, w[1] as usize);
                    match u.arrays.get_mut(name).expect("array") {
                        Values::Int(v) => v[a..b].reverse(),
                        Values::Int32(v) => v[a..b].reverse(),
                        Values::Real(v) => v[a..b].reverse(),
                    }
                }
            }
            u
        }
        "lcsr" => {
            // CSR with one slot of slack after every row (column 0, value
            // 0): row i at rowptr(i) + i .. rowptr(i + 1) + i.
            let c = csr_instance(m);
            let rowptr = c.arrays["rowptr"].as_ints().expect("ints").to_vec();
            let (col, a) = (
                c.arrays["col"].as_ints().expect("ints"),
                c.arrays["A"].to_reals(),
            );
            let (mut lo, mut hi, mut cols, mut vals) = (vec![], vec![], vec![], vec![]);
            for w in rowptr.windows(2) {
                lo.push(cols.len() as i64);
                cols.extend_from_slice(&col[w[0] as usize..w[1] as usize]);
                vals.extend_from_slice(&a[w[0] as usize..w[1] as usize]);
                hi.push(cols.len() as i64);
                cols.push(0);
                vals.push(0.0);
            }
            instance(
                "lcsr",
                &[("NR", nr), ("NC", nc), ("NNZ", cols.len() as i64)],
                vec![
                    ("lo", Values::Int(lo)),
                    ("hi", Values::Int(hi)),
                    ("col", Values::Int(cols)),
                    ("A", Values::Real(vals)),
                ],
            )
        }
        "dcsr" => {
            // CSR with its empty rows left out: the stored rows and their
            // pointers.
            let c = csr_instance(m);
            let rowptr = c.arrays["rowptr"].as_ints().expect("ints").to_vec();
            let (mut rowidx, mut rp) = (Vec::new(), Vec::new());
            for (i, w) in rowptr.windows(2).enumerate() {
                if w[1] > w[0] {
                    rowidx.push(i as i64);
                    rp.push(w[0]);
                }
            }
            rp.push(*rowptr.last().expect("NR + 1 pointers"));
            let nnz = c.symbols["NNZ"];
            instance(
                "dcsr",
                &[
                    ("NR", nr),
                    ("NC", nc),
                    ("NP", rowidx.len() as i64),
                    ("NNZ", nnz),
                ],
                vec![
                    ("rowidx", Values::Int(rowidx)),
                    ("rp", Values::Int(rp)),
                    ("col", c.arrays["col"].clone()),
                    ("A", c.arrays["A"].clone()),
                ],
            )
        }
        "csc" => {
            let transposed = Coordinates {
                dims: vec![nc, nr],
                entries: m
                    .entries
                    .iter()
                    .map(|(i, v)| (vec![i[1], i[0]], *v))
                    .collect(),
            };
            let t = csr_instance(&transposed);
            instance(
                "csc",
                &[("NR", nr), ("NC", nc), ("NNZ", m.len() as i64)],
                vec![
                    ("colptr", t.arrays["rowptr"].clone()),
                    ("row", t.arrays["col"].clone()),
                    ("A", t.arrays["A"].clone()),
                ],
            )
        }
        "dia" => dia_instance(m),
        "ell" => {
            let mut rows: Vec<Vec<(i64, f64)>> = vec![Vec::new(); nr as usize];
            for (i, v) in &sorted {
                rows[i[0] as usize].push((i[1], *v));
            }
            let w = rows.iter().map(Vec::len).max().unwrap_or(0);
            let (mut col, mut a) = (Vec::new(), Vec::new());
            for row in &rows {
                for k in 0..w {
                    // Padded slots repeat the row's last column with a zero.
                    let (j, v) = row
                        .get(k)
                        .copied()
                        .unwrap_or((row.last().map_or(0, |e| e.0), 0.0));
                    col.push(j);
                    a.push(v);
                }
            }
            instance(
                "ell",
                &[("NR", nr), ("NC", nc), ("W", w as i64)],
                vec![("col", Values::Int(col)), ("A", Values::Real(a))],
            )
        }
        "nm24" => {
            // Row ii's block b of four columns: two slots, filled in
            // column order (the matrix is restricted to two per block).
            let nb = (nc + 3) / 4;
            let mut crd = vec![0i64; (nr * nb * 2) as usize];
            let mut a = vec![0.0; (nr * nb * 2) as usize];
            let mut used = vec![0usize; (nr * nb) as usize];
            for (i, v) in &sorted {
                let group = (i[0] * nb + i[1] / 4) as usize;
                let at = 2 * group + used[group];
                crd[at] = i[1] % 4;
                a[at] = *v;
                used[group] += 1;
            }
            instance(
                "nm24",
                &[("NR", nr), ("NC", nc), ("NB", nb)],
                vec![("crd", Values::Int(crd)), ("A", Values::Real(a))],
            )
        }
        "jad" => {
            // Jagged diagonals: the rows ranked by their number of entries,
            // most first (ties by row), entry d of a row (by column) in
            // diagonal d at jd(d) + its row's rank.
            let mut rows: Vec<Vec<(i64, f64)>> = vec![Vec::new(); nr as usize];
            for (i, v) in &sorted {
                rows[i[0] as usize].push((i[1], *v));
            }
            let mut perm: Vec<i64> = (0..nr).collect();
            perm.sort_by_key(|&r| std::cmp::Reverse(rows[r as usize].len()));
            let nd = rows.iter().map(Vec::len).max().unwrap_or(0);
            let mut jd = vec![0i64; nd + 1];
            for d in 0..nd {
                let len = rows.iter().filter(|r| r.len() > d).count() as i64;
                jd[d + 1] = jd[d] + len;
            }
            let nnz = jd[nd] as usize;
            let (mut col, mut a) = (vec![0i64; nnz], vec![0.0; nnz]);
            for (rank, &row) in perm.iter().enumerate() {
                for (d, &(j, v)) in rows[row as usize].iter().enumerate() {
                    let k = jd[d] as usize + rank;
                    col[k] = j;
                    a[k] = v;
                }
            }
            instance(
                "jad",
                &[
                    ("NR", nr),
                    ("NC", nc),
                    ("ND", nd as i64),
                    ("NNZ", nnz as i64),
                ],
                vec![
                    ("jd", Values::Int(jd)),
                    ("perm", Values::Int(perm)),
                    ("col", Values::Int(col)),
                    ("A", Values::Real(a)),
                ],
            )
        }
        "bcsr" => {
            let nbr = (nr + 1) / 2;
            let mut blocks: BTreeMap<(i64, i64), [f64; 4]> = BTreeMap::new();
            for (i, v) in &m.entries {
                let b = blocks.entry((i[0] / 2, i[1] / 2)).or_insert([0.0; 4]);
                b[(2 * (i[0] % 2) + i[1] % 2) as usize] = *v;
            }
            let mut browptr = vec![0i64; nbr as usize + 1];
            let (mut bcol, mut a) = (Vec::new(), Vec::new());
            for (&(bi, bj), vals) in &blocks {
                browptr[bi as usize + 1] += 1;
                bcol.push(bj);
                a.extend(vals);
            }
            for i in 0..nbr as usize {
                browptr[i + 1] += browptr[i];
            }
            instance(
                "bcsr",
                &[("NR", nr), ("NC", nc), ("NNZB", bcol.len() as i64)],
                vec![
                    ("browptr", Values::Int(browptr)),
                    ("bcol", Values::Int(bcol)),
                    ("A", Values::Real(a)),
                ],
            )
        }
        // Skylines: each row (column) from its first nonzero to the
        // diagonal, densely; `m` holds only the triangle they store.
        "skyl" | "skyu" => {
            let lower = name == "skyl";
            let (lines, line_of, other_of) = if lower { (nr, 0, 1) } else { (nc, 1, 0) };
            let mut first = vec![i64::MAX; lines as usize];
            for (x, _) in &m.entries {
                let f = &mut first[x[line_of] as usize];
                *f = (*f).min(x[other_of]);
            }
            let mut sky = vec![0i64; lines as usize + 1];
            for l in 0..lines as usize {
                let len = if first[l] == i64::MAX {
                    0
                } else {
                    l as i64 - first[l] + 1
                };
                sky[l + 1] = sky[l] + len;
            }
            let mut a = vec![0.0; sky[lines as usize] as usize];
            for (x, v) in &m.entries {
                let (l, o) = (x[line_of], x[other_of]);
                a[(sky[l as usize + 1] - 1 - (l - o)) as usize] = *v;
            }
            instance(
                name,
                &[("NR", nr), ("NC", nc), ("NNZ", a.len() as i64)],
                vec![("sky", Values::Int(sky)), ("A", Values::Real(a))],
            )
        }
        other => panic!("no instance builder for {other}"),
    };
    inst.format = d.name.clone();
    inst
}

#[test]
fn builtin_descriptors_validate_and_agree_on_real_matrices() {
    let formats = synth::builtin::builtin_names_of_order(2);
    for file in ["pores_1.mtx", "lund_a.mtx", "jgl009.mtx", "bp_200.mtx"] {
        let m = read_matrix(file);
        for &name in &formats {
            let d = synth::builtin::load_format(name).unwrap_or_else(|e| panic!("{e}"));
            // What the format can store (a skyline: one triangle).
            let m = synth::representable::Representable::of(&d).restrict(&m);
            let expected = coordinate_entries(&m);
            let inst = builtin_instance(&d, name, &m);
            let start = Instant::now();
            validate(&d, &inst).unwrap_or_else(|e| panic!("{file} as {name}: {e}"));
            let got = entries(&d, &inst).unwrap_or_else(|e| panic!("{file} as {name}: {e}"));
            compare(&expected, &got).unwrap_or_else(|e| panic!("{file} as {name}: {e}"));
            let back = Instance::from_json(&inst.to_json()).unwrap();
            assert_eq!(back, inst, "{file} as {name}");
            eprintln!(
                "{file} as {name}: validate + oracle {:.3} s",
                start.elapsed().as_secs_f64()
            );
        }
    }
}

/// UCSR's uniqueness rule relates `k1` and `k2` by `col(k1) = col(k2)`
/// within a row `i` both share: a join on `(i, col)`, linear in the row's
/// length, not the full enumeration of pairs that a row of 5,000 entries
/// (25 million pairs) would exceed the budget with.
#[test]
fn a_uniqueness_rule_with_a_shared_variable_is_a_join() {
    let n = 5000i64;
    let d = synth::builtin::load_format("ucsr").unwrap();
    let cols: Vec<i64> = (0..n).map(|k| (k * 7919) % n).collect();
    let make = |cols: Vec<i64>| {
        instance(
            "UCSR",
            &[("NR", 2), ("NC", n), ("NNZ", n)],
            vec![
                ("rowptr", Values::Int(vec![0, n, n])),
                ("col", Values::Int(cols)),
                ("A", Values::Real(vec![1.0; n as usize])),
            ],
        )
    };
    let start = Instant::now();
    validate(&d, &make(cols.clone())).expect("distinct columns");
    assert!(start.elapsed().as_secs_f64() < 5.0, "{:?}", start.elapsed());
    let mut repeated = cols;
    repeated[4000] = repeated[17];
    let e = validate(&d, &make(repeated)).unwrap_err().to_string();
    assert!(
        e.contains("does not hold at i = 0, k1 = 17, k2 = 4000"),
        "{e}"
    );
}
