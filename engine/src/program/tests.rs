//! Tests of the programs `spf build` writes ([`super`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use rayon::prelude::*;
use synth::instance::Instance;
use synth::instance_validation::validate;
use synth::oracle::{compare, coordinate_entries, entries};
use synth::tensor_io::{read_file, read_mtx};
use synth::Descriptor;

use super::{Error, WidthChoice, WidthChoices};
use crate::program::build::build_source;

use codegen::width::{IndexWidth, IndexWidths};

const W64: WidthChoices = WidthChoices {
    positions: WidthChoice::Fixed(IndexWidth::W64),
    coordinates: WidthChoice::Fixed(IndexWidth::W64),
};
const AUTO: WidthChoices = WidthChoices {
    positions: WidthChoice::Auto,
    coordinates: WidthChoice::Auto,
};
use crate::synthesis::testing::{altered, data, format, matrix, synthesized};

/// Flags that keep the driver honest: the program must compile without
/// a warning.
const STRICT: &[&str] = &["-Wall", "-Wextra", "-pedantic", "-Werror"];

fn dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("spf-driver-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("temp dir");
        d
    })
}

/// The program of a synthesized pair, without a baseline or `--verify`.
fn synthesized_source(src: &Descriptor, dst: &Descriptor) -> String {
    build_source(
        src,
        dst,
        &crate::synthesis::synthesize_pair,
        None,
        false,
        AUTO,
    )
    .expect("a program")
    .0
}

/// Builds the program of a synthesized pair once per test process.
fn built(src: &str, dst: &str) -> PathBuf {
    static BUILT: OnceLock<std::sync::Mutex<BTreeMap<String, PathBuf>>> = OnceLock::new();
    let cache = BUILT.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    let key = format!("{src}_{dst}");
    if let Some(p) = cache.get(&key) {
        return p.clone();
    }
    let (sd, dd) = (format(src), format(dst));
    let (source, note) =
        build_source(&sd, &dd, &synthesized, None, false, AUTO).expect("a program");
    assert!(note.is_none(), "{note:?}");
    std::fs::write(dir().join(format!("{key}.c")), &source).expect("write");
    let bin = dir().join(&key);
    // With zlib where the compiler finds it, as spf build compiles.
    let flags: Vec<&str> = STRICT
        .iter()
        .chain(crate::c_compiler::zlib_flags())
        .copied()
        .collect();
    crate::c_compiler::compile(&source, &bin, &flags).expect("compiles without warnings");
    cache.insert(key, bin.clone());
    bin
}

/// Runs a program, glibc filling what `malloc` returns with a pattern:
/// an output element the program does not write is not zero by chance.
fn run(bin: &Path, args: &[&str]) -> Output {
    Command::new(bin)
        .args(args)
        .env("MALLOC_PERTURB_", "165")
        .output()
        .expect("runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs a program with `-o`, checks its JSON line, and returns the
/// destination instance it wrote.
fn convert(bin: &Path, input: &Path, extra: &[&str]) -> (serde_json::Value, Instance) {
    let name = input.file_name().expect("a file").to_string_lossy();
    let bin_name = bin.file_name().expect("a file").to_string_lossy();
    let out_json = dir().join(format!("{bin_name}-{name}.out.json"));
    let mut args = vec![input.to_str().expect("utf-8"), "-o"];
    args.push(out_json.to_str().expect("utf-8"));
    args.extend_from_slice(extra);
    let out = run(bin, &args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let line: serde_json::Value = serde_json::from_str(&stdout).expect("a JSON line");
    for key in [
        "nnz",
        "runs",
        "median_seconds",
        "min_seconds",
        "max_seconds",
    ] {
        assert!(line[key].is_number(), "{key} in {stdout}");
    }
    let inst = Instance::from_json(&std::fs::read_to_string(&out_json).expect("written"))
        .expect("the schema of Instance::to_json");
    (line, inst)
}

/// The coordinates of a file, read by spf's reader.
fn file_entries(path: &Path) -> BTreeMap<Vec<i64>, f64> {
    coordinate_entries(&read_file(path, None).expect("readable"))
}

/// Asserts that `inst` is a valid instance of `dst` holding exactly
/// `want`'s entries (the oracle); `what` names the case in a failure.
fn assert_holds(dst: &Descriptor, inst: &Instance, want: &BTreeMap<Vec<i64>, f64>, what: &str) {
    validate(dst, inst).unwrap_or_else(|e| panic!("{what}: {e}"));
    compare(want, &entries(dst, inst).expect("readable")).unwrap_or_else(|e| panic!("{what}: {e}"));
}

#[test]
fn coo_to_csr_on_real_matrices_agrees_with_the_oracle_and_the_interpreter() {
    let bin = built("coo", "csr");
    let csr = format("csr");
    let coo = format("coo");
    for m in [
        data("small.mtx"),
        matrix("pores_1.mtx"),
        matrix("jgl009.mtx"),
        matrix("lund_a.mtx"),
        matrix("1138_bus.mtx"),
        matrix("bp_200.mtx"),
        matrix("can_1072.mtx"),
        matrix("balanced_tree_2_10.mtx"),
        matrix("circulant_1000_1_2_3.mtx"),
        matrix("bcsstm24.mtx"),
        matrix("dwt_2680.mtx"),
    ] {
        let (line, inst) = convert(&bin, &m, &[]);
        let want = file_entries(&m);
        assert_holds(&csr, &inst, &want, &m.display().to_string());
        assert_eq!(line["nnz"], want.len(), "{}", m.display());
        assert_eq!(line["runs"], 1);
        assert_eq!(line["src"], "COO");
        assert_eq!(line["dst"], "CSR");
        // The interpreter gives exactly the same instance.
        if std::fs::metadata(&m).expect("exists").len() < 50_000 {
            let mut interpreted = crate::pipeline::convert_file(
                &coo,
                &csr,
                &m,
                &synthesized,
                &crate::runner::Runner::interp(),
            )
            .expect("converted");
            // The interpreter ran at 64 bits, the program (auto) at 32.
            assert_eq!(
                inst.index_width,
                Some(IndexWidths::uniform(IndexWidth::W32))
            );
            interpreted.index_width = inst.index_width;
            // An `integer` file converts at int64; a built program holds
            // float64 values, the doubles equal to those integers.
            if interpreted.value_type.is_integer() {
                let a = interpreted.arrays[&csr.data_name].to_reals();
                interpreted.arrays.insert(
                    csr.data_name.clone(),
                    synth::instance::Values::Real(a.into()),
                );
                interpreted.value_type = inst.value_type;
            }
            assert_eq!(interpreted, inst, "{}", m.display());
        }
    }
}

#[test]
fn a_source_that_is_not_coo_is_read_through_a_second_conversion() {
    let bin = built("csr", "coo");
    let coo = format("coo");
    let m = matrix("lund_a.mtx");
    let (line, inst) = convert(&bin, &m, &["--repeat", "3"]);
    assert_eq!(line["runs"], 3);
    assert!(line["min_seconds"].as_f64() <= line["median_seconds"].as_f64());
    assert!(line["median_seconds"].as_f64() <= line["max_seconds"].as_f64());
    assert_holds(&coo, &inst, &file_entries(&m), "COO");
    // A JSON instance of the source, in any layout spf's reader accepts.
    let json = std::fs::read_to_string(data("csr_small.json")).expect("read");
    let value: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let compact = dir().join("compact.json");
    std::fs::write(&compact, serde_json::to_string(&value).expect("text")).expect("w");
    let pretty = dir().join("pretty.json");
    let reordered = json
        .replace(
            "\"A\": [1.5, 2.0, -3.0, 4.0, 0.25]",
            "\"A\": [1.5, 2, -3, 4e0, 25E-2]",
        )
        .replace(
            "{\"NC\": 4, \"NNZ\": 5, \"NR\": 4}",
            "{ \"NR\" : 4 ,\"NNZ\":5,\n\"NC\":4 }",
        );
    std::fs::write(&pretty, reordered).expect("w");
    let want = Instance {
        format: "COO".into(),
        symbols: [("NR", 4), ("NC", 4), ("NNZ", 5)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        arrays: [
            (
                "row",
                synth::instance::Values::Int(vec![0, 0, 2, 2, 3].into()),
            ),
            (
                "col",
                synth::instance::Values::Int(vec![1, 3, 0, 2, 3].into()),
            ),
            (
                "A",
                synth::instance::Values::Real(vec![1.5, 2.0, -3.0, 4.0, 0.25].into()),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect(),
        index_width: None,
        value_type: Default::default(),
    };
    for input in [data("csr_small.json"), compact, pretty] {
        let (line, mut inst) = convert(&bin, &input, &[]);
        // The program (auto) ran at 32 bits and says so.
        assert_eq!(
            inst.index_width,
            Some(IndexWidths::uniform(IndexWidth::W32))
        );
        inst.index_width = None;
        assert_eq!(inst, want, "{}", input.display());
        assert_eq!(line["nnz"], 5);
    }
}

#[test]
fn edge_cases_of_coordinates() {
    let bin = built("coo", "csr");
    let csr = format("csr");
    for (name, content) in EDGE_CASES {
        let path = dir().join(name);
        std::fs::write(&path, content).expect("write");
        let (line, inst) = convert(&bin, &path, &[]);
        let coords = read_mtx(content.as_bytes()).expect("valid");
        let want = coordinate_entries(&coords);
        assert_holds(&csr, &inst, &want, name);
        // Explicit zeros are stored entries; `nnz` counts nonzero values.
        assert_eq!(inst.symbols["NNZ"], coords.len() as i64, "{name}");
        assert_eq!(line["nnz"], want.len(), "{name}");
    }
}

/// Coordinate files at the edges: no entries, duplicates, a symmetric
/// pattern, integers, one entry, a rectangle with empty rows and
/// columns and a row longer than the others.
const EDGE_CASES: [(&str, &str); 6] = [
    ("empty.mtx", "%%MatrixMarket matrix coordinate real general\n2 3 0\n"),
    (
        "dups.mtx",
        "%%matrixmarket MATRIX Coordinate Real General\r\n% comment\r\n\r\n3 3 4\r\n1 1 1.5D+02\r\n3 2 -1\r\n1 1 2\n2 2 0\n",
    ),
    (
        "sym.mtx",
        "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n2 1\n3 3\n3 1\n",
    ),
    (
        "int.mtx",
        "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 -7\n2 1 +9007199254740993\n",
    ),
    (
        "tiny.mtx",
        "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 0.1\n",
    ),
    (
        "rect.mtx",
        "%%MatrixMarket matrix coordinate real general\n5 4 5\n1 4 1\n5 1 2\n5 3 3\n5 2 -4\n5 4 5\n",
    ),
];

/// ELL from CSR pads each row right after its entries, ELL from CSC
/// zero-fills first: both agree with the oracle on the edge cases and
/// on real matrices, and under AddressSanitizer and UBSan (no padding
/// written outside its row, or past the array).
#[test]
fn padded_rows_agree_with_the_oracle() {
    let mut inputs: Vec<PathBuf> = EDGE_CASES
        .iter()
        .map(|(name, content)| {
            let path = dir().join(format!("padded_{name}"));
            std::fs::write(&path, content).expect("write");
            path
        })
        .collect();
    inputs.extend([
        data("small.mtx"),
        matrix("jgl009.mtx"),
        matrix("bp_200.mtx"),
    ]);
    let dd = format("ell");
    let mut programs = Vec::new();
    for src in ["csr", "csc"] {
        let source = synthesized_source(&format(src), &dd);
        assert_eq!(
            source.contains("SPF_KEEP_LOOPS void convert("),
            src == "csr",
            "{src} -> ELL"
        );
        for (tag, flags) in [("strict", STRICT), ("sanitized", &SANITIZE[..])] {
            let bin = dir().join(format!("{src}_ell_padded_{tag}"));
            programs.push((
                format!("{tag} {src} -> ELL"),
                source.clone(),
                flags.to_vec(),
                bin,
            ));
        }
    }
    compile_all(&programs);
    for (what, _, _, bin) in &programs {
        for m in &inputs {
            let (_, inst) = convert(bin, m, &[]);
            let what = format!("{what}, {}", m.display());
            assert_holds(&dd, &inst, &file_entries(m), &what);
        }
    }
}

/// AddressSanitizer and UBSan, a first error fatal, at -O1 as the
/// sanitizers are meant to run (the same reads and writes as -O3, in half
/// the compilation).
const SANITIZE: [&str; 3] = [
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
    "-O1",
];

/// Compiles each of `programs` (what it is, its C, the flags, the
/// executable) on every processor; a failure reported is the first in
/// the order of `programs`.
fn compile_all(programs: &[(String, String, Vec<&str>, PathBuf)]) {
    let results: Vec<_> = programs
        .par_iter()
        .map(|(_, text, flags, bin)| crate::c_compiler::compile(text, bin, flags))
        .collect();
    for ((what, ..), result) in programs.iter().zip(results) {
        result.unwrap_or_else(|e| panic!("{what} compiles: {e}"));
    }
}

/// Malformed coordinate files: the program's message is spf's, with the
/// file name in front, and no output file appears.
#[test]
fn malformed_coordinates_are_reported_like_spf() {
    let bin = built("coo", "csr");
    let banner = "%%MatrixMarket matrix coordinate real general\n";
    let cases: Vec<(String, String)> = [
        ("empty", String::new()),
        ("array", "%%MatrixMarket matrix array real general\n".into()),
        (
            "vector",
            "%%MatrixMarket vector coordinate real general\n".into(),
        ),
        (
            "complex",
            "%%MatrixMarket matrix coordinate complex general\n".into(),
        ),
        (
            "hermitian",
            "%%MatrixMarket matrix coordinate real hermitian\n".into(),
        ),
        (
            "skew",
            "%%MatrixMarket matrix coordinate real Skew-Symmetric\n".into(),
        ),
        ("short_banner", "%%MatrixMarket matrix coordinate\n".into()),
        (
            "extra_banner",
            "%%MatrixMarket matrix coordinate real general x\n".into(),
        ),
        ("no_size", format!("{banner}% only a comment\n")),
        ("size_fields", format!("{banner}2 2\n")),
        ("size_extra", format!("{banner}2 2 1 4\n")),
        ("negative", format!("{banner}2 -2 1\n")),
        (
            "not_square",
            "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n".into(),
        ),
        ("zero_index", format!("{banner}2 2 1\n0 1 1\n")),
        ("big_index", format!("{banner}2 2 1\n1 3 1\n")),
        (
            "overflow",
            format!("{banner}2 2 1\n99999999999999999999 1 1\n"),
        ),
        ("not_int", format!("{banner}2 2 1\n1.0 1 1\n")),
        ("no_column", format!("{banner}2 2 1\n1\n")),
        ("no_value", format!("{banner}2 2 1\n1 1\n")),
        ("bad_value", format!("{banner}2 2 1\n1 1 x1\n")),
        ("nan", format!("{banner}2 2 1\n1 1 NaN\n")),
        ("huge", format!("{banner}2 2 1\n1 1 1e999\n")),
        ("extra_field", format!("{banner}2 2 1\n1 1 1 1\n")),
        ("too_many", format!("{banner}2 2 1\n1 1 1\n2 2 2\n")),
        ("too_few", format!("{banner}2 2 3\n1 1 1\n2 2 2")),
        (
            "pattern_extra",
            "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 5\n".into(),
        ),
        (
            "symmetric_mirror",
            "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 1\n3 3 2\n1 2 3\n".into(),
        ),
        (
            "skew_diagonal",
            "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 2 1\n".into(),
        ),
        (
            "array_short",
            "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n".into(),
        ),
        (
            "array_pattern",
            "%%MatrixMarket matrix array pattern general\n2 2\n".into(),
        ),
        (
            "array_extra",
            "%%MatrixMarket matrix array integer symmetric\n2 2\n1 2\n".into(),
        ),
    ]
    .into_iter()
    .map(|(n, c)| (n.to_string(), c))
    .collect();
    let target = dir().join("never.json");
    for (name, content) in &cases {
        let path = dir().join(format!("bad_{name}.mtx"));
        std::fs::write(&path, content).expect("write");
        // Told by content, as spf tells it: a file without the banner is
        // FROSTT, whatever its name.
        let err = if content.starts_with("%%") {
            read_mtx(content.as_bytes()).expect_err(name)
        } else {
            synth::tensor_io::read_tns(content.as_bytes(), None).expect_err(name)
        };
        let out = run(
            &bin,
            &[
                path.to_str().expect("utf-8"),
                "-o",
                target.to_str().expect("utf-8"),
            ],
        );
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert_eq!(
            text(&out.stderr),
            format!("{}:{err}\n", path.display()),
            "{name}"
        );
        assert!(out.stdout.is_empty(), "{name}");
        assert!(!target.exists(), "{name}");
    }
    // A `.mtx` without the banner reads as FROSTT, as `spf convert` reads it.
    let path = dir().join("no_banner.mtx");
    std::fs::write(&path, "1 1 1\n2 2 1\n").expect("write");
    let out = run(&bin, &[path.to_str().expect("utf-8")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The shared malformed matrix.
    let wrong = matrix("wrong.mtx");
    let out = run(&bin, &[wrong.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!(
            "{}:3:1: row index 0 is out of range 1..=2: Matrix Market indices are 1-based, \
             and this one looks 0-based\n",
            wrong.display()
        )
    );
    // FROSTT: a 3-D file for a 2-D format, 0-based indices, ragged lines.
    let tns = [
        ("three", "1 1 1 1.5\n"),
        ("zero", "0 1 1.5\n"),
        ("ragged", "1 1 1.5\n1 1 1 2\n"),
        ("lonely", "5\n"),
    ];
    for (name, content) in tns {
        let path = dir().join(format!("bad_{name}.tns"));
        std::fs::write(&path, content).expect("write");
        let out = run(&bin, &[path.to_str().expect("utf-8")]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let stderr = text(&out.stderr);
        match synth::tensor_io::read_tns(content.as_bytes(), None) {
            Err(e) => assert_eq!(stderr, format!("{}:{e}\n", path.display()), "{name}"),
            Ok(_) => assert_eq!(
                stderr,
                format!(
                    "{}: the input has 3 dimensions but COO has 2; {}\n",
                    path.display(),
                    synth::builtin::formats_of_order_hint(3)
                )
            ),
        }
    }
    // Skew-symmetric and array files read as spf's reader reads them.
    for (name, content) in [
        (
            "skew",
            "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1.5\n3 1 -2\n",
        ),
        (
            "array",
            "%%MatrixMarket matrix array real symmetric\n3 3\n1\n0\n2\n4\n0\n5\n",
        ),
    ] {
        let path = dir().join(format!("{name}.mtx"));
        std::fs::write(&path, content).expect("write");
        let (_, inst) = convert(&bin, &path, &[]);
        let want = coordinate_entries(&read_mtx(content.as_bytes()).expect("valid"));
        let csr = synth::builtin::load_format("csr").expect("built-in");
        let got = entries(&csr, &inst).expect("readable");
        assert_eq!(got, want, "{name}");
    }
    // A 2-D FROSTT file is fine.
    let path = dir().join("two.tns");
    std::fs::write(&path, "2 3 1.5\n1 1 -2 # comment\n").expect("write");
    let (_, inst) = convert(&bin, &path, &[]);
    assert_eq!(inst.symbols["NR"], 2);
    assert_eq!(inst.symbols["NC"], 3);
    // A missing file.
    let out = run(&bin, &["/nonexistent/file.mtx"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("/nonexistent/file.mtx: "));
}

/// JSON instances that are malformed or violate the source descriptor.
#[test]
fn invalid_json_instances_are_rejected() {
    let bin = built("csr", "coo");
    let good = std::fs::read_to_string(data("csr_small.json")).expect("read");
    let cases = [
        ("syntax", good.replace("\"NR\": 4}", "\"NR\": 4,}"), "3:"),
        (
            "trailing",
            format!("{good} x"),
            "invalid JSON: trailing characters",
        ),
        (
            "monotone",
            good.replace("[0, 2, 2, 4, 5]", "[0, 3, 2, 4, 5]"),
            "rowptr is not nondecreasing",
        ),
        (
            "range",
            good.replace("[1, 3, 0, 2, 3]", "[1, 3, 0, 2, 4]"),
            "col[4] = 4 is outside its range {[y] : 0 <= y < NC}",
        ),
        (
            "length",
            good.replace("[1, 3, 0, 2, 3]", "[1, 3, 0, 2]"),
            "col has 4 values but its domain {[x] : 0 <= x < NNZ} needs 5",
        ),
        (
            "format",
            good.replace("\"CSR\"", "\"COO\""),
            "the instance is of format `COO`, not `CSR`",
        ),
        (
            "unknown",
            good.replace("\"A\":", "\"B\": [], \"A\":"),
            "`B` is not an array of CSR",
        ),
        (
            "missing",
            good.replace("\"NNZ\": 5, ", ""),
            "symbol `NNZ` has no value",
        ),
        (
            "reals",
            good.replace("[1, 3, 0, 2, 3]", "[1, 3, 0.5, 2, 3]"),
            "col is an index array and must hold integers",
        ),
        (
            "key",
            good.replace("\"format\"", "\"fmt\""),
            "at `fmt`: unknown key",
        ),
        (
            "string",
            good.replace("[1, 3, 0, 2, 3]", "[1, 3, \"0\", 2, 3]"),
            "expected a number, found a string",
        ),
        (
            "symbol",
            good.replace("\"NR\": 4", "\"NR\": 4.5"),
            "at `symbols.NR`: expected an integer",
        ),
    ];
    let target = dir().join("never_json.json");
    for (name, content, expected) in cases {
        let path = dir().join(format!("bad_{name}.json"));
        std::fs::write(&path, &content).expect("write");
        let out = run(
            &bin,
            &[
                path.to_str().expect("utf-8"),
                "-o",
                target.to_str().expect("utf-8"),
            ],
        );
        assert_eq!(out.status.code(), Some(2), "{name}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.starts_with(&format!("{}:", path.display())),
            "{name}: {stderr}"
        );
        assert!(stderr.contains(expected), "{name}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
        assert!(!target.exists(), "{name}");
        // spf agrees that the instance is not a valid CSR instance.
        let rust = Instance::from_json(&content)
            .map_err(|e| e.to_string())
            .and_then(|i| validate(&format("csr"), &i).map_err(|e| e.to_string()));
        assert!(rust.is_err(), "{name}");
    }
}

#[test]
fn command_line_errors() {
    let bin = built("coo", "csr");
    let small = data("small.mtx");
    let small = small.to_str().expect("utf-8");
    for (args, expected) in [
        (vec![], "missing INPUT"),
        (
            vec![small, "--repeat", "0"],
            "--repeat needs a positive integer",
        ),
        (vec![small, "--repeat"], "--repeat needs a number"),
        (vec![small, "-o"], "-o needs a file name"),
        (vec![small, "--frobnicate"], "unknown option `--frobnicate`"),
        (vec![small, small], "only one INPUT"),
    ] {
        let out = run(&bin, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains(expected),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    let out = run(&bin, &["--help"]);
    assert!(out.status.success());
    assert!(text(&out.stdout).contains("usage:"));
    // Without -o nothing is written, the JSON line is printed.
    let out = run(&bin, &[small, "--repeat=2"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(line["runs"], 2);
    // An output in a missing directory: an error, no partial file.
    let out = run(&bin, &[small, "-o", "/nonexistent/dir/out.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("cannot write"),
        "{}",
        text(&out.stderr)
    );
}

/// `-o` on a special file (a FIFO here, `/dev/null` in practice) writes
/// into it instead of renaming a temporary file over it.
#[test]
fn special_output_files_are_written_in_place() {
    let bin = built("coo", "csr");
    let fifo = dir().join("fifo");
    let _ = std::fs::remove_file(&fifo);
    // The C library's mkfifo (no program that may be missing).
    let path = std::ffi::CString::new(fifo.to_str().expect("utf-8")).expect("no NUL");
    // SAFETY: a NUL-terminated path.
    let made = unsafe { libc::mkfifo(path.as_ptr(), 0o600) };
    assert_eq!(made, 0, "mkfifo: {}", std::io::Error::last_os_error());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).expect("read the FIFO"))
    };
    let out = run(
        &bin,
        &[
            data("small.mtx").to_str().expect("utf-8"),
            "-o",
            fifo.to_str().expect("utf-8"),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let written = reader.join().expect("reader");
    assert!(Instance::from_json(&written).is_ok(), "{written}");
    use std::os::unix::fs::FileTypeExt;
    let kind = std::fs::metadata(&fifo).expect("exists").file_type();
    assert!(kind.is_fifo());
}

/// When COO → source cannot be synthesized, the program takes JSON only.
#[test]
fn without_a_conversion_from_coo_the_program_reads_json_only() {
    let no_coo = |s: &Descriptor, d: &Descriptor| {
        if s.name == "COO" {
            Err(crate::Error::Usage("no COO today".into()))
        } else {
            synthesized(s, d)
        }
    };
    let (source, note) =
        build_source(&format("csr"), &format("coo"), &no_coo, None, false, W64).expect("ok");
    let note = note.expect("a note");
    assert!(note.contains("no COO today"), "{note}");
    let bin = dir().join("json_only");
    crate::c_compiler::compile(&source, &bin, STRICT).expect("compiles");
    let out = run(&bin, &[data("small.mtx").to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("coordinate files are not accepted"));
    let (_, inst) = convert(&bin, &data("csr_small.json"), &[]);
    validate(&format("coo"), &inst).expect("valid");
}

/// `spf build --verify`: the program converts its input and its result
/// to coordinates and compares them; a wrong result (here the synthesized
/// COO → CSR changed to add 1 to every value) exits with status 3 and writes
/// no output file, a right one reports `"verified": true`.
#[test]
fn verify_catches_a_wrong_result_before_writing_it() {
    let (coo, csr) = (format("coo"), format("csr"));
    let wrong_csr = altered(
        &coo,
        &csr,
        "A_out(p) = A(n_src)",
        "A_out(p) = A(n_src) + 1.0",
    );
    let wrong = |s: &Descriptor, d: &Descriptor| {
        if *s == coo && *d == csr {
            Ok(wrong_csr.clone())
        } else {
            synthesized(s, d)
        }
    };
    let input = matrix("pores_1.mtx");
    let input = input.to_str().expect("utf-8");
    for (name, synth, wrong_result) in [
        (
            "verify_right",
            &synthesized as &crate::synthesis::Synthesizer,
            false,
        ),
        ("verify_wrong", &wrong, true),
    ] {
        let (source, _) = build_source(&format("coo"), &format("csr"), synth, None, true, W64)
            .expect("a program");
        assert!(source.contains("drv_dst_to_coo"), "CSR is converted back");
        let bin = dir().join(name);
        crate::c_compiler::compile(&source, &bin, STRICT).expect("compiles without warnings");
        let out_json = dir().join(format!("{name}.json"));
        let _ = std::fs::remove_file(&out_json);
        let out = run(&bin, &[input, "-o", out_json.to_str().expect("utf-8")]);
        if wrong_result {
            assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
            let err = text(&out.stderr);
            assert!(err.contains("verification failed: the entry ("), "{err}");
            assert!(err.contains("in the input but"), "{err}");
            assert!(!out_json.exists(), "nothing is written");
        } else {
            assert!(out.status.success(), "{}", text(&out.stderr));
            assert!(text(&out.stdout).contains("\"verified\": true"));
            assert!(out_json.exists());
        }
    }
}

/// A hand-written COO → CSR with the synthesized computation's
/// parameters: counting by rows, columns in input order within a row.
const COO_CSR_BASELINE: &str = "
void baseline(int64_t NR, int64_t NC, int64_t NNZ, const int64_t *row, const int64_t *col,
          const double *A, int64_t *NNZ_out, int64_t *rowptr, int64_t **col_out,
          double **A_out)
{
int64_t i, n;
(void)NC;
memset(rowptr, 0, (size_t)(NR + 1) * sizeof *rowptr);
*col_out = malloc((size_t)(NNZ > 0 ? NNZ : 1) * sizeof **col_out);
*A_out = malloc((size_t)(NNZ > 0 ? NNZ : 1) * sizeof **A_out);
for (n = 0; n < NNZ; n++)
    rowptr[row[n] + 1]++;
for (i = 0; i < NR; i++)
    rowptr[i + 1] += rowptr[i];
for (n = 0; n < NNZ; n++) {
    const int64_t q = rowptr[row[n]]++;
    (*col_out)[q] = col[n];
    (*A_out)[q] = A[n];
}
for (i = NR; i > 0; i--)
    rowptr[i] = rowptr[i - 1];
rowptr[0] = 0;
*NNZ_out = NNZ;
}
";

/// Builds the synthesized COO → CSR with `baseline_text` as its baseline.
fn built_with_baseline(name: &str, baseline_text: &str) -> Result<PathBuf, Error> {
    let file = dir().join(format!("{name}.c"));
    std::fs::write(&file, baseline_text).expect("write");
    let baseline = super::Baseline::new(&file)?;
    let (source, _) = build_source(
        &format("coo"),
        &format("csr"),
        &synthesized,
        Some(&baseline),
        false,
        AUTO,
    )?;
    assert!(source.contains(&format!("#include \"{}\"", baseline.path.display())));
    let bin = dir().join(format!("{name}-program"));
    crate::c_compiler::compile(&source, &bin, STRICT)?;
    Ok(bin)
}

#[test]
fn a_baseline_is_timed_beside_the_conversion_and_writes_its_output() {
    let bin = built_with_baseline("coo-csr-baseline", COO_CSR_BASELINE).expect("builds");
    let input = matrix("pores_1.mtx");
    let b_json = dir().join("coo-csr-baseline.b.json");
    let (line, inst) = convert(
        &bin,
        &input,
        &[
            "--repeat",
            "4",
            "--baseline-output",
            b_json.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(line["runs"], 4);
    for key in [
        "baseline_median_seconds",
        "baseline_min_seconds",
        "baseline_max_seconds",
    ] {
        assert!(
            line[key].as_f64().is_some_and(|t| t >= 0.0),
            "{key}: {line}"
        );
    }
    assert!(line["baseline_min_seconds"].as_f64() <= line["baseline_median_seconds"].as_f64());
    assert_eq!(line["baseline_output_bytes"], line["output_bytes"]);
    let b = Instance::from_json(&std::fs::read_to_string(&b_json).expect("written"))
        .expect("the schema of Instance::to_json");
    let csr = format("csr");
    let want = file_entries(&input);
    for got in [&inst, &b] {
        compare(&want, &entries(&csr, got).expect("readable")).expect("the input's entries");
    }
    // The same destination symbols (the baseline's NNZ_out, the
    // source's extents).
    assert_eq!(b.symbols, inst.symbols);
    // Without a baseline the option is unknown.
    let plain = built("coo", "csr");
    let out = run(
        &plain,
        &[
            input.to_str().expect("utf-8"),
            "--baseline-output",
            "x.json",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown option `--baseline-output`"));
}

#[test]
fn a_baseline_with_other_parameters_or_no_file_is_an_error() {
    let wrong = COO_CSR_BASELINE.replace("int64_t *rowptr", "int32_t *rowptr");
    let e = built_with_baseline("coo-csr-wrong-baseline", &wrong).unwrap_err();
    let message = e.to_string();
    assert!(message.contains("conflicting types for"), "{message}");
    assert!(message.contains("baseline"), "{message}");
    let e = super::Baseline::new(&dir().join("no-such-baseline.c")).unwrap_err();
    assert!(
        e.to_string().contains("no-such-baseline.c: No such file"),
        "{e}"
    );
}

#[test]
fn compiler_problems_are_clear_errors() {
    let bin = dir().join("never");
    let e = crate::c_compiler::compile_with(&["/nonexistent/cc".to_string()], "", &bin, &[])
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("cannot run the C compiler `/nonexistent/cc`"),
        "{e}"
    );
    let e = crate::c_compiler::compile("int main(void) { return nope; }", &bin, &[]).unwrap_err();
    assert!(e.to_string().contains("nope"), "{e}");
    assert!(!bin.exists());
    // No temporary directory is left behind.
    let left: Vec<_> = std::fs::read_dir(dir())
        .expect("dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("never.spf-build"))
        .collect();
    assert!(left.is_empty());
}

/// The program states `SPF_INPUT_VALIDATED` (the runtime leaves out
/// its inserts' range checks) exactly when `drv_check_source` checks
/// every index array's range: for every built-in format, not for a
/// range with a disjunction, which the check does not print.
#[test]
fn input_validation_is_stated_only_when_every_range_is_checked() {
    for name in synth::builtin::builtin_names() {
        let (check, complete) = super::source_check(&format(name)).expect("a check");
        assert!(complete, "{name}: {check}");
    }
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../descriptors/csr.desc"
    ))
    .expect("read")
    .replace(
        "uf col : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < NC};",
        "uf col : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < 2 || 4 <= y < NC};",
    );
    let odd = synth::descriptor_file::parse_descriptor(&text).expect("parses");
    let (check, complete) = super::source_check(&odd).expect("a check");
    assert!(!complete, "{check}");
    let (source, _) = build_source(
        &format("csr"),
        &format("coo"),
        &synthesized,
        None,
        false,
        W64,
    )
    .expect("a program");
    assert!(source.contains("#define SPF_INPUT_VALIDATED 1"));
    // The odd format's columns skip 2 and 3, which COO -> odd cannot make
    // (so odd -> COO cannot be validated): its program is CSR's, with
    // odd as the source whose ranges the program checks.
    let as_odd = |s: &Descriptor, d: &Descriptor| {
        if *s != odd {
            return synthesized(s, d);
        }
        let mut c = synthesized(&format("csr"), d)?;
        c.conversion.src = odd.clone();
        Ok(c)
    };
    let (source, _) =
        build_source(&odd, &format("coo"), &as_odd, None, false, W64).expect("a program");
    assert!(!source.contains("SPF_INPUT_VALIDATED 1"), "{source}");
}

/// The transpositions' placing loops (and CSC -> ELL's slot loop) look
/// ahead where the entries are out of cache and written to many lines
/// at a time (`spf_scatter_far`, docs/runtime.md). With
/// `SPF_LOOKAHEAD_BYTES` and `SPF_LOOKAHEAD_LINES` 0 every run takes
/// that loop: the results agree with the oracle with the input
/// validated (the prefetches unchecked) and without (checked), and
/// under AddressSanitizer and UBSan (the keys read ahead, near the end
/// of the array too, are read in bounds). With the first alone, the
/// write streams are counted on sampled keys (in bounds too), and the
/// loop they choose agrees as well.
#[test]
fn lookahead_loops_agree_with_the_oracle() {
    let validated = "#define SPF_INPUT_VALIDATED 1";
    let always = ["-DSPF_LOOKAHEAD_BYTES=0", "-DSPF_LOOKAHEAD_LINES=0"];
    let (mut programs, mut formats) = (Vec::new(), Vec::new());
    for (src, dst) in [("csr", "csc"), ("csc", "csr"), ("csc", "ell")] {
        let (sd, dd) = (format(src), format(dst));
        let source = synthesized_source(&sd, &dd);
        assert!(
            source.contains("if (SPF_UNLIKELY(spf_scatter_far(&"),
            "{src} -> {dst}"
        );
        assert!(source.contains(validated), "{src} -> {dst}");
        let checked = source.replace(validated, "");
        for (tag, text, sanitized, defines) in [
            ("validated", source.clone(), false, &always[..]),
            ("checked", checked, false, &always[..]),
            ("sanitized", source.clone(), true, &always[..]),
            // The write streams counted on the keys (spf_scatter_lines).
            ("sampled", source.clone(), true, &always[..1]),
        ] {
            // Not -Werror under the sanitizers: with them GCC 12 warns
            // of bounds its inlining cannot rule out (spf_copy's
            // unrolled cases past the permutation's arity).
            let mut flags = if sanitized {
                SANITIZE.to_vec()
            } else {
                STRICT.to_vec()
            };
            flags.extend(defines);
            let bin = dir().join(format!("{src}_{dst}_lookahead_{tag}"));
            programs.push((format!("{tag} {src} -> {dst}"), text, flags, bin));
            formats.push(dd.clone());
        }
    }
    compile_all(&programs);
    for ((what, _, _, bin), dd) in programs.iter().zip(&formats) {
        for m in [
            data("small.mtx"),
            matrix("jgl009.mtx"),
            matrix("lund_a.mtx"),
            matrix("bp_200.mtx"),
            matrix("dwt_2680.mtx"),
        ] {
            let (_, inst) = convert(bin, &m, &[]);
            let what = format!("{what}, {}", m.display());
            assert_holds(dd, &inst, &file_entries(&m), &what);
        }
    }
}

#[test]
fn c_expressions() {
    use iegen::Expr;
    let mut atom = |a: &iegen::Atom| match a {
        iegen::Atom::Sym(s) => Some(s.to_lowercase()),
        _ => None,
    };
    let e = Expr::sym("N")
        .add_scaled(&Expr::sym("M"), -2)
        .plus(&Expr::constant(-1));
    assert_eq!(
        super::c_expr(&e, &mut atom).as_deref(),
        Some("(-INT64_C(2) * m + n - INT64_C(1))")
    );
    assert_eq!(
        super::c_expr(&Expr::constant(0), &mut atom).as_deref(),
        Some("(INT64_C(0))")
    );
    assert_eq!(super::c_expr(&Expr::call("f", vec![]), &mut atom), None);
    assert_eq!(
        super::c_expr(
            &Expr::floor_div(&Expr::sym("N").plus(&Expr::constant(1)), 2),
            &mut atom
        )
        .as_deref(),
        Some("(drv_floordiv((n + INT64_C(1)), INT64_C(2)))")
    );
    assert_eq!(super::c_str("a\"b\\c?\n"), "\"a\\\"b\\\\c\\?\\012\"");
}
