//! Descriptor files: the built-in formats, validation errors, `check`.

#[path = "../../tests/common/report.rs"]
mod report;

use iegen::syntax::{parse_formula, parse_program};
use iegen::{Expr, Monotonicity, Relation, Set};
use proptest::prelude::*;
use synth::builtin::{builtin, builtin_names, load_format, LoadError};
use synth::check::{check, check_with_timeout, Finding, Property, Severity};
use synth::descriptor_file::parse_descriptor;
use synth::{Descriptor, KeyExpr};

fn load(name: &str) -> Descriptor {
    load_format(name).unwrap_or_else(|e| panic!("{e}"))
}

fn parse(src: &str) -> Descriptor {
    parse_descriptor(src).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

fn err(src: &str) -> String {
    match parse_descriptor(src) {
        Ok(_) => panic!("accepted:\n{src}"),
        Err(e) => e.to_string(),
    }
}

fn rel(s: &str) -> Relation {
    s.parse().unwrap_or_else(|e| panic!("{e}"))
}

fn set(s: &str) -> Set {
    s.parse().unwrap_or_else(|e| panic!("{e}"))
}

fn sym(s: &str) -> Expr {
    Expr::sym(s)
}

/// A small COO, line by line, for the error tests.
const BASE: [&str; 8] = [
    "format T {",
    "    dense [NR, NC];",
    "    map {[n, ii, jj] -> [i, j] : i = ii && j = jj && 0 <= n < NNZ && ii = row(n) && jj = col(n)};",
    "    data A : {[n, ii, jj] -> [n]} size NNZ;",
    "    uf row : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < NR};",
    "    uf col : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < NC};",
    "    forall a, b : 0 <= a < NNZ && 0 <= b < NNZ && row(a) = row(b) && col(a) = col(b) => a = b;",
    "}",
];

/// `BASE` with line `line` (1-based) replaced by `text`.
fn base_with(line: usize, text: &str) -> String {
    let mut v: Vec<&str> = BASE.to_vec();
    v[line - 1] = text;
    v.join("\n")
}

/// `BASE` with `text` inserted as line 7, before the rule.
fn base_plus(text: &str) -> String {
    let mut v: Vec<&str> = BASE.to_vec();
    v.insert(6, text);
    v.join("\n")
}

fn severities(findings: &[Finding]) -> Vec<(Property, Severity)> {
    findings.iter().map(|f| (f.property, f.severity)).collect()
}

fn errors(findings: &[Finding]) -> Vec<&Finding> {
    findings.iter().filter(|f| f.is_error()).collect()
}

fn show(findings: &[Finding]) -> String {
    findings
        .iter()
        .map(|f| f.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

// ----------------------------------------------------------- the builtins

#[test]
fn builtin_registry_matches_the_descriptor_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../descriptors");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".desc").map(str::to_string)
        })
        .collect();
    files.sort();
    let mut names: Vec<String> = builtin_names().iter().map(|s| s.to_string()).collect();
    names.sort();
    assert_eq!(files, names);
    for name in builtin_names() {
        let text = std::fs::read_to_string(dir.join(format!("{name}.desc"))).unwrap();
        assert_eq!(builtin(name), Some(text.as_str()), "{name}");
        assert_eq!(builtin(&name.to_uppercase()), Some(text.as_str()), "{name}");
        // Every file starts with a header comment explaining the format.
        assert!(text.starts_with("# "), "{name}");
    }
    assert_eq!(
        builtin_names(),
        [
            "coo", "scoo", "mcoo", "tcoo8", "coo3d", "mcoo3", "scoo3", "csf3", "csr", "ucsr",
            "dcsr", "lcsr", "csc", "dia", "ell", "bcsr", "skyl", "skyu", "nm24", "jad"
        ]
    );
    assert!(builtin("nope").is_none());
}

#[test]
fn every_builtin_parses_and_passes_check() {
    use Property::*;
    // BCSR of other block shapes (`bcsrRxC`) is trusted as built in too.
    for name in builtin_names().iter().chain(&["bcsr3x2", "bcsr5x4"]) {
        let d = load(name);
        assert!(d.name.eq_ignore_ascii_case(name), "{}", d.name);
        let findings = check(&d);
        let mut expected = vec![
            (NonEmpty, Severity::Ok),
            (MapFunction, Severity::Ok),
            (MapInjective, Severity::Ok),
            (MapInBounds, Severity::Ok),
            (CallsInDomain, Severity::Ok),
            (DataFunction, Severity::Ok),
            (DataTotal, Severity::Ok),
            (DataInjective, Severity::Ok),
            (DataInBounds, Severity::Ok),
            (Solvable, Severity::Ok),
        ];
        if !d.comparators.is_empty() {
            expected.push((ComparatorUsed, Severity::Ok));
        }
        assert_eq!(
            severities(&findings),
            expected,
            "{name}:\n{}",
            show(&findings)
        );
        // Only ELL's and NM24's padded slots may share a coordinate with an
        // entry.
        let injective = &findings[2];
        let slot = match *name {
            "ell" => Some("`w`"),
            "nm24" => Some("`s`"),
            _ => None,
        };
        if let Some(slot) = slot {
            assert!(
                injective
                    .message
                    .starts_with("not injective, as `padding` allows")
                    && injective.message.contains(slot),
                "{injective}"
            );
        } else {
            assert!(
                injective
                    .message
                    .starts_with("distinct stored entries have distinct coordinates"),
                "{name}: {injective}"
            );
        }
    }
}

#[test]
fn csr_key_facts() {
    let d = load("csr");
    assert_eq!(d.name, "CSR");
    assert_eq!(d.dense, ["NR", "NC"]);
    assert_eq!(d.symbols, ["NR", "NC", "NNZ"]);
    assert_eq!((d.sparse_arity(), d.dense_arity()), (3, 2));
    assert_eq!(
        d.map,
        rel("{[ii, k, jj] -> [i, j] : i = ii && j = jj && 0 <= ii < NR && rowptr(ii) <= k < rowptr(ii + 1) && j = col(k)}")
    );
    assert_eq!(d.data_name, "A");
    assert_eq!(d.data, rel("{[ii, k, jj] -> [k]}"));
    assert_eq!(d.data_size, [sym("NNZ")]);
    let names: Vec<&str> = d.ufs.iter().map(|u| u.name.as_str()).collect();
    assert_eq!(names, ["rowptr", "col"]);
    let rowptr = d.uf("rowptr").unwrap();
    assert_eq!(rowptr.domain, set("{[x] : 0 <= x <= NR}"));
    assert_eq!(rowptr.range, set("{[y] : 0 <= y <= NNZ}"));
    assert_eq!(rowptr.monotonicity, [Monotonicity::Nondecreasing]);
    assert!(d.uf("col").unwrap().monotonicity.is_empty());
    assert_eq!(d.rules.len(), 1);
    assert_eq!(d.rules[0].vars, ["i", "k1", "k2"]);
    assert_eq!(d.rules[0].conclusion.len(), 1);
    assert!(d.comparators.is_empty());
    assert!(!d.padding);
    // The environment knows the arrays and the rule.
    let env = d.env();
    assert!(env.decl("rowptr").is_some() && env.decl("col").is_some());
    assert_eq!(env.rules().len(), 1);
}

#[test]
fn other_builtins_key_facts() {
    let csc = load("csc");
    assert_eq!(
        csc.map,
        rel("{[jj, k, ii] -> [i, j] : i = ii && j = jj && 0 <= jj < NC && colptr(jj) <= k < colptr(jj + 1) && i = row(k)}")
    );
    assert_eq!(csc.data, rel("{[jj, k, ii] -> [k]}"));

    let coo = load("coo");
    assert_eq!(coo.symbols, ["NR", "NC", "NNZ"]);
    assert_eq!(coo.rules.len(), 1, "the uniqueness rule");
    assert_eq!(coo.rules[0].vars, ["n1", "n2"]);
    let scoo = load("scoo");
    assert_eq!(
        scoo.rules.len(),
        3,
        "row order, column order within a row, uniqueness"
    );

    let coo3d = load("coo3d");
    assert_eq!(coo3d.dense, ["NR", "NC", "NZ"]);
    assert_eq!(coo3d.symbols, ["NR", "NC", "NZ", "NNZ"]);
    assert_eq!((coo3d.sparse_arity(), coo3d.dense_arity()), (4, 3));

    let mcoo = load("mcoo");
    let morton = mcoo.comparator("MORTON").unwrap();
    assert_eq!(morton.params, ["i", "j"]);
    assert_eq!(
        morton.key,
        [KeyExpr::Interleave(vec![
            KeyExpr::Param(0),
            KeyExpr::Param(1)
        ])]
    );
    assert_eq!(mcoo.rules.len(), 1);
    let mcoo3 = load("mcoo3");
    assert_eq!(mcoo3.comparator("MORTON").unwrap().params.len(), 3);

    let dia = load("dia");
    assert_eq!(dia.symbols, ["NR", "NC", "ND"]);
    assert_eq!(dia.data, rel("{[ii, d, jj] -> [ii, d]}"));
    assert_eq!(dia.data_size, [sym("NR"), sym("ND")]);
    assert_eq!(
        dia.uf("off").unwrap().monotonicity,
        [Monotonicity::Increasing]
    );
    assert_eq!(dia.uf("off").unwrap().domain, set("{[x] : 0 <= x < ND}"));
    assert!(dia.padding);

    let ell = load("ell");
    assert_eq!(ell.symbols, ["NR", "NC", "W"]);
    assert_eq!(ell.uf("col").unwrap().domain.arity(), 2);
    assert_eq!(ell.data_size, [sym("NR"), sym("W")]);
    assert!(ell.padding);

    let bcsr = load("bcsr");
    assert_eq!(bcsr.symbols, ["NR", "NC", "NNZB"]);
    assert_eq!((bcsr.sparse_arity(), bcsr.dense_arity()), (6, 2));
    assert_eq!(bcsr.data_size, [sym("NNZB").scale(4)]);
    assert_eq!(bcsr.data, rel("{[bi, kb, r, c, ii, jj] -> [4kb + 2r + c]}"));
    assert!(bcsr.padding);
}

#[test]
fn load_format_names_paths_and_errors() {
    assert_eq!(load("Csr"), load("csr"));
    // A path.
    let dir = std::env::temp_dir().join(format!("spf-desc-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("mine.desc");
    std::fs::write(&good, builtin("dia").unwrap()).unwrap();
    let path = good.to_str().unwrap();
    assert_eq!(load_format(path).unwrap(), load("dia"));
    // A syntax error carries the file name, line and column.
    let bad = dir.join("bad.desc");
    std::fs::write(&bad, "format B {\n    dense [N]\n}\n").unwrap();
    let bad_path = bad.to_str().unwrap().to_string();
    match load_format(&bad_path) {
        Err(LoadError::Syntax { file, error }) => {
            assert_eq!(file, bad_path);
            assert_eq!((error.line, error.column), (3, 1));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        load_format(&bad_path).unwrap_err().to_string(),
        format!("{bad_path}:3:1: unexpected `}}`, expected `;`")
    );
    // A missing file; a word that is no built-in name lists them.
    match load_format("no/such.desc") {
        Err(LoadError::Io { file, .. }) => assert_eq!(file, "no/such.desc"),
        other => panic!("{other:?}"),
    }
    // A misspelled name is given the nearest built-in one.
    let msg = load_format("csr5").unwrap_err().to_string();
    let listed = format!(
        "csr5: not a built-in format ({}) nor a descriptor file; did you mean `csr`? (",
        builtin_names().join(", ")
    );
    assert!(msg.starts_with(&listed), "{msg}");
    assert!(msg.contains("coo, scoo"), "{msg}");
    for (typo, name) in [
        ("ccs", "csc"),
        ("CSSR", "csr"),
        ("dai", "dia"),
        ("jda", "jad"),
    ] {
        let msg = load_format(typo).unwrap_err().to_string();
        assert!(
            msg.contains(&format!("did you mean `{name}`?")),
            "{typo}: {msg}"
        );
    }
    let msg = load_format("nosuchformat").unwrap_err().to_string();
    assert!(!msg.contains("did you mean"), "{msg}");
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------- the file format

#[test]
fn base_is_valid_and_symbols_are_ordered() {
    let d = parse(&BASE.join("\n"));
    assert_eq!(d.symbols, ["NR", "NC", "NNZ"]);
    // Dense extents first, then by first appearance: here `M` (in the map)
    // before `K` (in the size) before `Q` (in a domain) before `P` (a rule).
    let d = parse(
        "format S { dense [N];
           map {[k, i] -> [i] : 0 <= k < M && i = f(k)};
           data V : {[k, i] -> [k]} size K;
           uf f : {[x] : 0 <= x < Q} -> {[y] : 0 <= y < N};
           forall a, b : 0 <= a < b < P => f(a) <= f(b); }",
    );
    assert_eq!(d.symbols, ["N", "M", "K", "Q", "P"]);
}

#[test]
fn every_construct_parses() {
    let d = parse(
        "# a comment
         format X {
           dense [N];
           map {[k, i] -> [i] : 0 <= k < NNZ && i = f(k)};
           data V : {[k, i] -> [k, 0]} size [NNZ, 1];
           uf f : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < N} nondecreasing increasing;
           uf g : {[x, y] : 0 <= x < N && 0 <= y < N} -> {[z] : true};
           comparator C(a, b) = (a / 2 - -b, 2a % 3, interleave(a, b + 1) * 2, -7, 3(a + b));
           comparator D(p) = p;
           forall k1, k2 : k1 < k2 <=> C(f(k1), f(k2)) < D(f(k2));
           forall u : 0 <= u < N => g(u, u) >= 0;
           padding;
         }",
    );
    assert_eq!(d.data_size, [sym("NNZ"), Expr::constant(1)]);
    assert_eq!(
        d.uf("f").unwrap().monotonicity,
        [Monotonicity::Nondecreasing, Monotonicity::Increasing]
    );
    assert_eq!(d.rules.len(), 3, "`<=>` gives two rules");
    assert_eq!(d.rules[0].premise, d.rules[1].conclusion);
    use KeyExpr::*;
    let b = Box::new;
    assert_eq!(
        d.comparator("C").unwrap().key,
        [
            Sub(b(Div(b(Param(0)), b(Int(2)))), b(Neg(b(Param(1))))),
            Rem(b(Mul(b(Int(2)), b(Param(0)))), b(Int(3))),
            Mul(
                b(Interleave(vec![Param(0), Add(b(Param(1)), b(Int(1)))])),
                b(Int(2))
            ),
            Neg(b(Int(7))),
            Mul(b(Int(3)), b(Add(b(Param(0)), b(Param(1))))),
        ]
    );
    assert_eq!(d.comparator("D").unwrap().key, [Param(0)]);
    assert!(d.padding);
}

#[test]
fn keywords_stay_contextual() {
    // The descriptor words are names in sets and calculator programs.
    let f = parse_formula(
        "{[format, dense] -> [map] : 0 <= data < size && padding = comparator + interleave}",
    );
    assert!(f.is_ok(), "{f:?}");
    assert!(parse_program("map := {[data] : data < size}; map; size(map);").is_ok());
    // And in a descriptor too, as variables, symbols and array names.
    let d = parse(
        "format format { dense [size];
           map {[map, data] -> [data] : 0 <= map < padding && data = dense(map)};
           data comparator : {[map, data] -> [map]} size padding;
           uf dense : {[x] : 0 <= x < padding} -> {[y] : 0 <= y < size}; }",
    );
    assert_eq!(d.name, "format");
    assert_eq!(d.data_name, "comparator");
    assert_eq!(d.symbols, ["size", "padding"]);
}

#[test]
fn validation_errors_are_located() {
    let cases: Vec<(String, &str)> = vec![
        // Keywords.
        (
            base_with(2, "    dens [NR, NC];"),
            "2:5: expected `dense`, found `dens`",
        ),
        (
            "formt T { }".to_string(),
            "1:1: expected `format`, found `formt`",
        ),
        (
            base_with(4, "    data A : {[n, ii, jj] -> [n]} sise NNZ;"),
            "4:35: expected `size`, found `sise`",
        ),
        (base_plus("    pading;"), "7:5: expected `padding`, found `pading`"),
        (
            base_plus("    comparatr M(i) = i;"),
            "7:5: expected `comparator`, found `comparatr`",
        ),
        // Missing and duplicate items.
        (
            "format T {\n    dense [N];\n}".to_string(),
            "1:8: format `T` has no `map` item; give its sparse-to-dense map with `map {[..] -> [..] : ..};`",
        ),
        (
            "format T { map {[i] -> [i]}; }".to_string(),
            "1:8: format `T` has no `dense` item; declare its dense extents with `dense [NR, NC];`",
        ),
        (
            "format T { dense [N]; map {[i] -> [i]}; }".to_string(),
            "1:8: format `T` has no `data` item; give its value array with `data A : {[..] -> [..]} size ..;`",
        ),
        (
            base_plus("    map {[n, ii, jj] -> [ii, jj]};"),
            "7:5: a format has one `map` item; the first is at 3:5",
        ),
        (base_plus("    dense [N];"), "7:5: a format has one `dense` item; the first is at 2:5"),
        (
            base_plus("    data B : {[n, ii, jj] -> [n]} size NNZ;"),
            "7:5: a format has one `data` item; the first is at 4:5",
        ),
        (
            base_plus("    padding;\n    padding;"),
            "8:5: a format has one `padding` item; the first is at 7:5",
        ),
        (
            base_plus("    uf col : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < NC};"),
            "7:8: index array `col` is declared twice (at 6:8)",
        ),
        (
            base_plus("    comparator M(i) = i;\n    comparator M(j) = j;"),
            "8:16: comparator `M` is declared twice (at 7:16)",
        ),
        (base_with(2, "    dense [NR, NR];"), "2:16: dense extent `NR` is listed twice"),
        (
            base_plus("    comparator row(i) = i;"),
            "7:16: `row` cannot be a comparator: it is already an index array (at 5:8)",
        ),
        (
            base_plus("    uf NR : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < NR};"),
            "7:8: `NR` cannot be an index array: it is already a dense extent (at 2:12)",
        ),
        (
            base_plus("    comparator interleave(i) = i;"),
            "7:16: `interleave` is the builtin of comparator keys; choose another name",
        ),
        // Unknown and misused names.
        (
            base_with(6, "    uf cl : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < NC};"),
            "3:90: `col` is not a declared index array; did you mean `cl`? else declare it with `uf col : DOMAIN -> RANGE;`",
        ),
        (
            base_plus("    comparator M(i, j) = i;\n    forall n : 0 <= n < NNZ => M(row(n), col(n)) >= 0 && P(n) = 0;"),
            "8:58: `P` is not a declared index array; declare it with `uf P : DOMAIN -> RANGE;` or a comparator with `comparator P(..) = KEY;`",
        ),
        (
            base_with(3, "    map {[n, ii, jj] -> [i, j] : i = ii && j = jj && 0 <= n < NNZ && ii = row(n) && jj = M(n)};")
                .replace("    forall", "    comparator M(i) = i;\n    forall"),
            "3:90: comparator `M` may be called only inside `forall` rules, not in the map",
        ),
        (
            base_with(4, "    data A : {[n, ii, jj] -> [n]} size row(0);"),
            "4:40: a size is an expression over symbols; it cannot call `row`",
        ),
        (
            base_with(4, "    data A : {[n, ii, jj] -> [A(n)]} size NNZ;"),
            "4:31: `A` is the value array; its values cannot appear in the data relation",
        ),
        (
            base_with(5, "    uf row : {[x] : 0 <= x < col} -> {[y] : 0 <= y < NR};"),
            "5:30: `col` is an index array, not a symbol; call it as `col(...)`",
        ),
        (
            base_with(3, "    map {[n, ii, row] -> [i, j] : i = ii && j = row && 0 <= n < NNZ && ii = row(n)};"),
            "3:18: `row` is an index array; it cannot be a variable in the map",
        ),
        (
            base_plus("    comparator M(i, j) = i + k;"),
            "7:30: unknown name `k` in the key of comparator `M`; its parameters are i, j",
        ),
        (
            base_plus("    comparator M(i, j) = morton(i, j);"),
            "7:26: unknown function `morton` in a comparator key; the only builtin is `interleave(..)`",
        ),
        (
            base_plus("    comparator M(i, i) = i;"),
            "7:21: parameter `i` of comparator `M` is listed twice",
        ),
        // Arities.
        (
            base_with(3, "    map {[n, ii, jj] -> [i] : i = ii && 0 <= n < NNZ && ii = row(n) && jj = col(n)};"),
            "3:9: the map has 1 output but `dense` declares 2 extents",
        ),
        (
            base_with(3, "    map {[n, ii, jj] : 0 <= n < NNZ && ii = row(n) && jj = col(n)};"),
            "3:9: the map must be a relation `{[sparse] -> [dense] : ...}`, not a set",
        ),
        (
            base_with(4, "    data A : {[n, ii, jj] -> [n, 0]} size NNZ;"),
            "4:14: the data relation has 2 outputs but the size of `A` has 1 extent",
        ),
        (
            base_with(4, "    data A : {[n, ii] -> [n]} size NNZ;"),
            "4:14: the data relation's input tuple has 2 positions but the map's has 3",
        ),
        (
            base_with(4, "    data A : {[n, ii, jj]} size NNZ;"),
            "4:14: the data relation of `A` must be a relation `{[sparse] -> [position]}`, not a set",
        ),
        (
            base_with(3, "    map {[n, ii, jj] -> [i, j] : i = ii && j = jj && 0 <= n < NNZ && ii = row(n) && jj = col(n, n)};"),
            "3:90: index array `col` takes 1 argument (the arity of its domain), not 2",
        ),
        (
            base_plus("    comparator M(i, j) = i;\n    forall n : 0 <= n < NNZ => M(row(n)) >= 0;"),
            "8:32: comparator `M` takes 2 arguments, not 1",
        ),
        (
            base_with(5, "    uf row : {[x] : 0 <= x < NNZ} -> {[y, z] : 0 <= y < NR};"),
            "5:38: the range of `row` must be a set of 1-tuples, not of 2-tuples",
        ),
        (
            base_with(5, "    uf row : {[x] -> [z] : 0 <= x < NNZ} -> {[y] : 0 <= y < NR};"),
            "5:14: the domain of `row` must be a set, not a relation",
        ),
        (
            base_plus("    uf g : {[x, y] : 0 <= x < y < NNZ} -> {[z] : true} nondecreasing;"),
            "7:56: `g` takes 2 arguments; monotonicity applies to unary index arrays only",
        ),
        (
            base_plus("    uf g : {[x] : 0 <= x < NNZ} -> {[z] : true} sorted;"),
            "7:49: unknown UF property `sorted`; expected nondecreasing, increasing, nonincreasing or decreasing",
        ),
        // Rules.
        (
            base_plus("    forall n1, n2, n3 : 0 <= n1 < n2 < NNZ => row(n1) <= row(n2);"),
            "7:20: rule variable `n3` is not an argument of any call in the rule",
        ),
        (
            base_plus("    forall n1, n2 : 0 <= n1 < n2 < NNZ => row(n1 + 1) <= row(n2);"),
            "7:12: rule variable `n1` is passed to calls only inside larger arguments; the solver instantiates rules on direct arguments, so pass `n1` itself to some call",
        ),
        (
            base_plus("    forall n, n : 0 <= n => row(n) >= 0;"),
            "7:15: `n` is quantified twice",
        ),
        (
            base_plus("    forall n : row(n) >= 0 => false;"),
            "7:5: a rule side is trivially false",
        ),
        // Layouts: products of symbols are not affine.
        (
            base_with(4, "    data A : {[n, ii, jj] -> [n]} size NR * NC;"),
            "4:40: non-affine product: one factor of `*` must be a constant; in the size, write a layout with a symbolic stride with several extents, as in `data A : {[ii, d, jj] -> [ii, d]} size [NR, ND];`",
        ),
        (
            base_with(4, "    data A : {[n, ii, jj] -> [NC * ii + jj]} size NNZ;"),
            "4:31: non-affine product: one factor of `*` must be a constant; in the data relation, write a layout with a symbolic stride with several extents, as in `data A : {[ii, d, jj] -> [ii, d]} size [NR, ND];`",
        ),
        // Syntax.
        (
            base_with(2, "    dense [NR, NC]"),
            "3:5: unexpected `map`, expected `;`",
        ),
        (
            base_plus("    comparator M(i) = (i, );"),
            "7:27: unexpected `)`, expected one of: name, integer, `(`, `-`",
        ),
        (
            "format T { dense [N]; } trailing".to_string(),
            "1:25: unexpected `trailing`, expected end of input",
        ),
    ];
    let mut failures = Vec::new();
    for (src, expected) in &cases {
        let got = err(src);
        if got != *expected {
            failures.push(format!("expected {expected}\n     got {got}\n{src}\n"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    for key in [
        format!("{}i", "i / ".repeat(3000)),
        format!("{}i", "i * ".repeat(3000)),
        format!("{}i", "i % ".repeat(3000)),
        format!("{}i{}", "(".repeat(5000), ")".repeat(5000)),
        format!("{}i", "-".repeat(5000)),
        format!("i + {}i", "- ".repeat(5000)),
        // A key's sum is a binary tree: nested sums count up to 64 levels.
        format!(
            "{}i{}",
            "(i + i + i + i + i + i + i + i + i + ".repeat(200),
            ")".repeat(200)
        ),
    ] {
        let src = base_plus(&format!("    comparator M(i) = {key};"));
        let e = err(&src);
        assert!(e.contains("nested too deeply"), "{e}");
    }
    // Flat sums are not limited, in a map either.
    let map = format!(
        "    map {{[n, ii, jj] -> [i, j] : i = ii{} && j = jj && 0 <= n < NNZ && ii = row(n) && jj = col(n)}};",
        " + n - n".repeat(50_000)
    );
    assert_eq!(
        parse(&base_with(3, &map)).map,
        parse(&base_with(3, BASE[2])).map
    );
}

#[test]
fn a_comparator_key_may_be_a_flat_sum_of_any_length() {
    use synth::concrete::comparator_key;
    for n in [3, 64, 65, 1001, 100_000] {
        // `i + 2j - 1 + i + 2j - 1 + ...`, n terms.
        let pieces = ["i", "2j", "1"];
        let mut key = String::from("i");
        let (mut a, mut b, mut c) = (1_i128, 0_i128, 0_i128);
        for k in 1..n {
            let (sign, piece) = (if k % 3 == 2 { '-' } else { '+' }, pieces[k % 3]);
            key.push_str(&format!(" {sign} {piece}"));
            let s = if sign == '+' { 1 } else { -1 };
            match k % 3 {
                0 => a += s,
                1 => b += 2 * s,
                _ => c += s,
            }
        }
        let d = parse(&base_plus(&format!("    comparator M(i, j) = ({key}, j);")));
        let cmp = &d.comparators[0];
        assert_eq!(cmp.key.len(), 2);
        for (x, y) in [(0_i64, 0_i64), (3, -7), (-11, 5)] {
            let got = comparator_key(cmp, &[x, y]).unwrap_or_else(|e| panic!("{e}"));
            let want = a * i128::from(x) + b * i128::from(y) + c;
            assert_eq!(got, vec![want, i128::from(y)], "{n} terms at ({x}, {y})");
        }
        // Clone, compare and drop on this test thread's small stack.
        assert_eq!(d.comparators.clone(), d.comparators);
    }
}

// ------------------------------------------------------------------ check

#[test]
fn a_map_that_is_not_a_function_is_caught() {
    // `j` is not determined by the sparse point.
    let d = parse(&base_with(
        3,
        "    map {[n, ii, jj] -> [i, j] : i = ii && 0 <= n < NNZ && ii = row(n) && jj = col(n) && 0 <= j < NC};",
    ));
    let findings = check(&d);
    let errs = errors(&findings);
    // With `j` free, two entries may also share a coordinate.
    assert_eq!(errs.len(), 2, "{}", show(&findings));
    assert_eq!(errs[1].property, Property::MapInjective);
    assert_eq!(errs[0].property, Property::MapFunction);
    assert_eq!(
        errs[0].message,
        "one sparse point may map to two coordinates that differ in `j` (dimension 1, extent `NC`): \
         the map's constraints do not determine it"
    );
}

#[test]
fn coo_without_its_uniqueness_rule_is_not_injective() {
    let text = builtin("coo").unwrap();
    let without: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("forall"))
        .collect::<Vec<_>>()
        .join("\n");
    let d = parse(&without);
    let findings = check(&d);
    let errs = errors(&findings);
    assert_eq!(errs.len(), 1, "{}", show(&findings));
    assert_eq!(errs[0].property, Property::MapInjective);
    assert!(
        errs[0].message.starts_with(
            "two distinct stored entries may have the same coordinate (differing in `n`): nothing in \
             the map's constraints, the declarations of `row`, `col` or the rules rules it out."
        ),
        "{}",
        errs[0]
    );
    // Declaring padding makes it allowed (and says so).
    let padded = parse(&without.replace("format COO {", "format COO { padding;"));
    let findings = check(&padded);
    assert!(errors(&findings).is_empty(), "{}", show(&findings));
    assert!(findings[2]
        .message
        .starts_with("not injective, as `padding` allows"));
}

#[test]
fn csr_with_unordered_columns_is_not_injective() {
    let text = builtin("csr")
        .unwrap()
        .replace("col(k1) < col(k2)", "col(k1) <= col(k2)");
    let findings = check(&parse(&text));
    let errs = errors(&findings);
    assert_eq!(errs.len(), 1, "{}", show(&findings));
    assert_eq!(errs[0].property, Property::MapInjective);
    assert!(
        errs[0].message.contains("(differing in `k`)"),
        "{}",
        errs[0]
    );
}

#[test]
fn an_index_array_not_in_the_map_is_caught() {
    let d = parse(&base_plus(
        "    uf perm : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < NNZ};\n    forall n : 0 <= n < NNZ => perm(n) >= 0;",
    ));
    let findings = check(&d);
    let errs = errors(&findings);
    assert_eq!(errs.len(), 1, "{}", show(&findings));
    assert_eq!(errs[0].property, Property::Solvable);
    assert_eq!(
        errs[0].message,
        "index array `perm` appears in neither the map nor the data relation, so nothing \
         determines it when the format is a destination"
    );
}

#[test]
fn broken_data_relations_are_caught() {
    // Every entry in one slot.
    let d = parse(&base_with(4, "    data A : {[n, ii, jj] -> [0]} size 1;"));
    let errs: Vec<Property> = errors(&check(&d)).iter().map(|f| f.property).collect();
    assert_eq!(errs, [Property::DataInjective]);
    // A size one too small.
    let d = parse(&base_with(
        4,
        "    data A : {[n, ii, jj] -> [n]} size NNZ - 1;",
    ));
    let findings = check(&d);
    let errs = errors(&findings);
    assert_eq!(errs.len(), 1, "{}", show(&findings));
    assert_eq!(errs[0].property, Property::DataInBounds);
    assert_eq!(
        errs[0].message,
        "position `n` in `A` may lie outside 0 .. NNZ - 1 - 1"
    );
    // Not defined on every entry.
    let d = parse(&base_with(
        4,
        "    data A : {[n, ii, jj] -> [n] : n < 5} size NNZ;",
    ));
    let errs: Vec<Property> = errors(&check(&d)).iter().map(|f| f.property).collect();
    assert_eq!(errs, [Property::DataTotal]);
    // Two positions for one entry.
    let d = parse(&base_with(
        4,
        "    data A : {[n, ii, jj] -> [k] : n <= k <= n + 1} size NNZ + 1;",
    ));
    let errs: Vec<Property> = errors(&check(&d)).iter().map(|f| f.property).collect();
    assert_eq!(errs, [Property::DataFunction, Property::DataInjective]);
}

#[test]
fn calls_outside_domains_and_coordinates_outside_the_shape_are_caught() {
    // CSR whose col is declared over 0 .. NR - 1 only.
    let text = builtin("csr").unwrap().replace(
        "uf col : {[x] : 0 <= x < NNZ}",
        "uf col : {[x] : 0 <= x < NR}",
    );
    let findings = check(&parse(&text));
    let errs = errors(&findings);
    // Outside its domain, nothing bounds col(k): the column is unbounded too.
    assert_eq!(errs.len(), 2, "{}", show(&findings));
    assert_eq!(errs[0].property, Property::MapInBounds);
    assert!(errs[0]
        .message
        .starts_with("coordinate `j` may lie outside 0 .. NC - 1"));
    assert_eq!(errs[1].property, Property::CallsInDomain);
    assert_eq!(
        errs[1].message,
        "in the map, `col(k)` may be called outside its domain {[x] : 0 <= x < NR}"
    );
    // Rows not bounded by NR.
    let d = parse(&base_with(
        5,
        "    uf row : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y <= NR};",
    ));
    let findings = check(&d);
    let errs = errors(&findings);
    assert_eq!(errs.len(), 1, "{}", show(&findings));
    assert_eq!(errs[0].property, Property::MapInBounds);
    assert_eq!(
        errs[0].message,
        "coordinate `i` may lie outside 0 .. NR - 1: bound it in the map or through the range of an index array"
    );
}

#[test]
fn vacuous_descriptors_are_reported() {
    // An empty map would make every other property hold vacuously.
    let d = parse(&base_with(
        3,
        "    map {[n, ii, jj] -> [i, j] : i = ii && j = jj && 0 <= n < NNZ && ii = row(n) && jj = col(n) && ii < 0};",
    ));
    let findings = check(&d);
    assert_eq!(findings[0].property, Property::NonEmpty);
    assert_eq!(findings[0].severity, Severity::Error, "{}", show(&findings));
    // Rules that contradict each other as soon as two entries exist.
    let d = parse(&base_plus(
        "    forall n1, n2 : 0 <= n1 < n2 < NNZ => row(n1) < row(n2) && row(n2) < row(n1);",
    ));
    let findings = check(&d);
    assert_eq!(
        (findings[0].property, findings[0].severity),
        (Property::NonEmpty, Severity::Warning),
        "{}",
        show(&findings)
    );
    // An unused comparator.
    let d = parse(&base_plus("    comparator M(i) = i;"));
    let findings = check(&d);
    let last = findings.last().unwrap();
    assert_eq!(
        (last.property, last.severity),
        (Property::ComparatorUsed, Severity::Warning)
    );
    assert_eq!(
        last.to_string(),
        "warning: comparators used: comparator `M` is not called by any rule"
    );
}

#[test]
fn findings_display_severity_property_and_message() {
    let findings = check_with_timeout(&load("csr"), 5_000);
    assert_eq!(
        findings[1].to_string(),
        "ok: map is a function: every sparse point maps to one coordinate"
    );
}

// ------------------------------------------------------------ robustness

/// Text pieces that random edits insert.
const PIECES: &[&str] = &[
    "",
    " ",
    ";",
    ",",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ":",
    "->",
    "=>",
    "<=>",
    "=",
    "<",
    "<=",
    "&&",
    "||",
    "+",
    "-",
    "*",
    "/",
    "%",
    "0",
    "1",
    "99999999999999999999",
    "n",
    "k",
    "NR",
    "col",
    "row(n)",
    "MORTON",
    "interleave(i, j)",
    "uf",
    "forall",
    "format",
    "dense",
    "map",
    "data",
    "size",
    "comparator",
    "padding",
    "union",
    "exists e :",
    "true",
    "false",
    "#",
    "\n",
    "é",
    "\u{0}",
];

fn mutated(src: &'static str) -> impl Strategy<Value = String> {
    let n = src.chars().count();
    prop::collection::vec((0..=n, 0usize..6, prop::sample::select(PIECES)), 1..5).prop_map(
        move |edits| {
            let mut chars: Vec<char> = src.chars().collect();
            for (at, len, piece) in edits {
                let at = at.min(chars.len());
                let end = (at + len).min(chars.len());
                chars.splice(at..end, piece.chars());
            }
            chars.into_iter().collect()
        },
    )
}

fn builtin_texts() -> Vec<&'static str> {
    builtin_names().iter().filter_map(|n| builtin(n)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Random edits of the built-in files give a descriptor or a located
    /// error, never a panic.
    #[test]
    fn mutated_builtins_never_panic_the_parser(
        src in prop::sample::select(builtin_texts()).prop_flat_map(mutated)
    ) {
        match parse_descriptor(&src) {
            Ok(d) => {
                prop_assert_eq!(&d.symbols[..d.dense.len()], &d.dense[..]);
                prop_assert_eq!(d.data.out_arity(), d.data_size.len());
                prop_assert_eq!(d.map.out_arity(), d.dense.len());
            }
            Err(e) => {
                prop_assert!(e.line >= 1 && e.column >= 1);
                prop_assert!(e.span.start <= src.len());
            }
        }
    }

    /// Arbitrary text never panics the parser either.
    #[test]
    fn garbage_never_panics(src in "\\PC{0,120}") {
        let _ = parse_descriptor(&src);
    }
}

/// The properties `check` decides of every descriptor, in its order: each
/// is reported (an error, a warning or that it holds), so a property that
/// `check` stopped deciding shows as missing.
const DECIDED: [Property; 10] = [
    Property::NonEmpty,
    Property::MapFunction,
    Property::MapInjective,
    Property::MapInBounds,
    Property::CallsInDomain,
    Property::DataFunction,
    Property::DataTotal,
    Property::DataInjective,
    Property::DataInBounds,
    Property::Solvable,
];

/// `check` never panics on what the parser accepts, reports every property
/// of [`DECIDED`] in that order, and finds no error in a mutant that parses
/// to its built-in format unchanged (an edit in a comment or in spacing).
/// At least a tenth of the mutants parse and are checked (the count is
/// printed): edits that stopped yielding descriptors would leave the
/// property checking nothing.
#[test]
fn check_never_panics_on_mutants() {
    let strategy = prop::sample::select(builtin_texts()).prop_flat_map(mutated);
    let (tried, checked) = report::checked_cases(file!(), 48, &strategy, |src| {
        let Ok(d) = parse_descriptor(&src) else {
            return Ok(false);
        };
        let findings = check_with_timeout(&d, 2_000);
        let mut reported: Vec<Property> = findings.iter().map(|f| f.property).collect();
        reported.dedup();
        let decided: Vec<Property> = reported
            .into_iter()
            .filter(|p| DECIDED.contains(p))
            .collect();
        prop_assert_eq!(&decided[..], &DECIDED[..], "{}\n{}", show(&findings), src);
        if synth::builtin::is_builtin(&d) {
            prop_assert!(errors(&findings).is_empty(), "{}", show(&findings));
        }
        Ok(true)
    });
    report::counted(
        checked,
        &format!("of {tried} mutants parsed and checked"),
        tried / 10,
    );
}

#[test]
fn weakened_orders_are_caught() {
    // A Morton order that allows ties allows duplicates.
    let text = builtin("mcoo").unwrap().replace(
        "MORTON(row(n1), col(n1)) < MORTON",
        "MORTON(row(n1), col(n1)) <= MORTON",
    );
    let findings = check(&parse(&text));
    let errs: Vec<Property> = errors(&findings).iter().map(|f| f.property).collect();
    assert_eq!(errs, [Property::MapInjective], "{}", show(&findings));
    // DIA offsets that may repeat give two diagonals one coordinate; DIA
    // declares padding, so that is reported, not an error, but the data
    // relation stays injective. The conversion synthesized from COO does
    // not order such offsets (only an `increasing` rule makes the lowering
    // sort them), and validation catches it: the one error is that the
    // format cannot be made correctly from COO, with a counterexample.
    let text = builtin("dia")
        .unwrap()
        .replace("increasing;", "nondecreasing;");
    let findings = check(&parse(&text));
    let errs = errors(&findings);
    assert_eq!(errs.len(), 1, "{}", show(&findings));
    assert_eq!(errs[0].property, Property::Solvable, "{}", show(&findings));
    assert!(
        errs[0]
            .message
            .contains("COO -> DIA is wrong on the test tensor")
            && errs[0].message.contains("off is not nondecreasing"),
        "{}",
        errs[0]
    );
    assert!(
        findings[2]
            .message
            .starts_with("not injective, as `padding` allows")
            && findings[2].message.contains("`d`"),
        "{}",
        findings[2]
    );
    let without_padding = text.replace("    padding;\n", "");
    let findings = check(&parse(&without_padding));
    let errs: Vec<Property> = errors(&findings).iter().map(|f| f.property).collect();
    assert_eq!(errs, [Property::MapInjective], "{}", show(&findings));
}

#[test]
fn an_index_array_synthesis_cannot_compute_is_caught() {
    // `start` is only bounded from above by the entries (`start(ii) <= k`):
    // a `min=` candidate, which synthesis does not lower; check says so and
    // names the array.
    let d = parse(
        "format HALF {\n    dense [NR, NC];\n    map {[ii, k, jj] -> [i, j] : i = ii && j = jj && 0 <= ii < NR && start(ii) <= k < end(ii) && jj = col(k)};\n    data A : {[ii, k, jj] -> [k]} size NNZ;\n    uf start : {[x] : 0 <= x < NR} -> {[y] : 0 <= y <= NNZ};\n    uf end : {[x] : 0 <= x < NR} -> {[y] : 0 <= y <= NNZ};\n    uf col : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < NC};\n    forall a, b : 0 <= a < b < NR => end(a) <= start(b);\n    forall a, k1, k2 : 0 <= a < NR && start(a) <= k1 < k2 < end(a) => col(k1) < col(k2);\n}\n",
    );
    let findings = check(&d);
    let solvable: Vec<&Finding> = errors(&findings)
        .into_iter()
        .filter(|f| f.property == Property::Solvable)
        .collect();
    assert_eq!(solvable.len(), 1, "{}", show(&findings));
    assert!(
        solvable[0]
            .message
            .starts_with("as a destination from COO: ")
            && solvable[0].message.contains("start"),
        "{}",
        solvable[0]
    );
}
