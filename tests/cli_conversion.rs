//! `spf synth`, `spf convert`, `spf build` and `spf pdfg SRC DST` end to end.
//!
//! Every converted instance is checked against its descriptor
//! (`synth::instance_validation::validate`) and against the input's entries with the
//! format-independent oracle. Each program is compiled once and run on
//! several matrices.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use spf::synth::instance::Instance;
use spf::synth::instance_validation::validate;
use spf::synth::oracle::{compare, coordinate_entries, entries};
use spf::synth::tensor_io::read_file;
use spf::synth::Descriptor;

mod common;

use common::{s, spf, text};

fn temp(test: &str) -> PathBuf {
    common::temp("cli-conv", test)
}

/// A test matrix of the repository; a missing file fails the test.
fn matrix(name: &str) -> PathBuf {
    common::test_data(&format!("matrices/{name}"))
}

fn data(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/synth/tests/data")).join(name)
}

fn format(name: &str) -> Descriptor {
    spf::synth::builtin::load_format(name).expect("built-in format")
}

fn file_entries(path: &Path) -> BTreeMap<Vec<i64>, f64> {
    coordinate_entries(&read_file(path, None).expect("readable"))
}

/// Checks a converted instance: valid, and storing the file's entries.
fn check(dst: &str, inst: &Instance, input: &Path) {
    let d = format(dst);
    validate(&d, inst).unwrap_or_else(|e| panic!("{dst} from {}: {e}", input.display()));
    let got = entries(&d, inst).expect("readable");
    compare(&file_entries(input), &got)
        .unwrap_or_else(|e| panic!("{dst} from {}: {e}", input.display()));
}

fn read_instance(path: &Path) -> Instance {
    Instance::from_json(&std::fs::read_to_string(path).expect("written")).expect("an instance")
}

// ---------------------------------------------------------------------------
// Errors (no synthesis needed)

#[test]
fn unknown_formats_and_missing_files_are_errors_without_output() {
    let dir = temp("errors");
    let out_json = dir.join("out.json");
    let bin = dir.join("bin");
    for args in [
        vec!["synth", "nosuchformat", "csr", "--emit", "c"],
        vec![
            "convert",
            "coo",
            "nosuchformat",
            s(&data("small.mtx")),
            "-o",
            s(&out_json),
        ],
        vec!["build", "nosuchformat", "csr", "-o", s(&bin)],
        vec!["pdfg", "coo", "nosuchformat", "-o", "x.dot"],
    ] {
        let out = spf(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(err.contains("coo, scoo, mcoo"), "{args:?}: {err}");
    }
    let missing = dir.join("missing.mtx");
    let out = spf(&["convert", "coo", "csr", s(&missing), "-o", s(&out_json)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("missing.mtx"),
        "{}",
        text(&out.stderr)
    );
    assert!(!out_json.exists());
    assert!(!bin.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn malformed_and_invalid_inputs_are_located_errors() {
    let dir = temp("inputs");
    let out_json = dir.join("out.json");
    // A malformed Matrix Market file: FILE:LINE:COL.
    let wrong = matrix("wrong.mtx");
    let out = spf(&["convert", "coo", "csr", s(&wrong), "-o", s(&out_json)]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!(
            "{}:3:1: row index 0 is out of range 1..=2: Matrix Market indices are 1-based, and \
             this one looks 0-based\n",
            wrong.display()
        )
    );
    // A JSON instance that violates its descriptor.
    let good = std::fs::read_to_string(data("csr_small.json")).expect("read");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, good.replace("[0, 2, 2, 4, 5]", "[0, 3, 2, 4, 5]")).expect("write");
    let out = spf(&["convert", "csr", "coo", s(&bad), "-o", s(&out_json)]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.starts_with(&format!("{}: ", bad.display())), "{err}");
    assert!(err.contains("rowptr is not nondecreasing"), "{err}");
    // Malformed JSON.
    std::fs::write(&bad, "{\"format\": \"CSR\",\n \"symbols\": }").expect("write");
    let out = spf(&["convert", "csr", "coo", s(&bad), "-o", s(&out_json)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with(&format!("{}:2:", bad.display())),
        "{}",
        text(&out.stderr)
    );
    // Coordinates of the wrong order.
    let out = spf(&[
        "convert",
        "coo",
        "csr",
        s(&data("small.tns")),
        "-o",
        s(&out_json),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("3 dimensions but COO has 2"));
    assert!(!out_json.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pdfg_takes_a_file_or_two_formats() {
    let dir = temp("pdfg");
    let out = spf(&["pdfg", "a", "b", "c", "-o", s(&dir.join("x.dot"))]);
    assert_eq!(out.status.code(), Some(2));
    let comp = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/spmv_csr.comp");
    let dot = dir.join("spmv.dot");
    let out = spf(&["pdfg", comp, "-o", s(&dot)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(std::fs::read_to_string(&dot)
        .expect("written")
        .starts_with("digraph"));
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------
// The synthesized pairs

/// The 2-D pairs checked end to end, and the matrices each runs on in the
/// interpreter (`spf convert`) — the compiled programs run on all of them.
const PAIRS: &[(&str, &str)] = &[
    ("coo", "csr"),
    ("csr", "csc"),
    ("csc", "csr"),
    ("csr", "coo"),
    ("coo", "csc"),
    ("coo", "dia"),
    ("dia", "csr"),
    ("csr", "dia"),
    ("coo", "ell"),
    ("ell", "csr"),
    ("coo", "scoo"),
    ("coo", "mcoo"),
];

/// Small matrices for the interpreter.
fn small_matrices() -> Vec<PathBuf> {
    vec![
        data("small.mtx"),
        matrix("jgl009.mtx"),
        matrix("pores_1.mtx"),
        matrix("lund_a.mtx"),
    ]
}

/// Real matrices of every kind for the compiled programs.
fn all_matrices() -> Vec<PathBuf> {
    let mut m = small_matrices();
    m.extend(
        [
            "1138_bus.mtx",
            "bp_200.mtx",
            "can_1072.mtx",
            "balanced_tree_2_10.mtx",
            "circulant_1000_1_2_3.mtx",
            "bcsstm24.mtx",
            "dwt_2680.mtx",
        ]
        .map(matrix),
    );
    m
}

#[test]
fn synth_prints_c_rust_ir_and_dot() {
    let dir = temp("synth");
    let ir = dir.join("coo_csr.comp");
    let out = spf(&["synth", "coo", "csr", "--emit", "ir", "-o", s(&ir)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let comp =
        spf::iegen::computation::parse_computation(&std::fs::read_to_string(&ir).expect("written"))
            .expect("the IR parses back");
    assert!(comp.space("rowptr").is_some());
    for (emit, marker) in [("c", "void "), ("rust", "pub fn "), ("dot", "digraph")] {
        let out = spf(&["synth", "coo", "csr", "--emit", emit]);
        assert!(out.status.success(), "{emit}: {}", text(&out.stderr));
        assert!(text(&out.stdout).contains(marker), "{emit}");
    }
    // The PDFG of a pair, as SVG.
    let svg = dir.join("coo_csr.svg");
    let out = spf(&["pdfg", "coo", "csr", "-o", s(&svg)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(std::fs::read_to_string(&svg)
        .expect("written")
        .contains("<svg"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `spf convert SRC DST M -o OUT --engine interp`, which must succeed: the
/// pair loops run in the interpreter (the native engine compiles a library
/// per pair; `tests/cli_native.rs` compares the two on a selection).
fn convert_interp(src: &str, dst: &str, m: &Path, out_json: &Path) -> std::process::Output {
    let out = spf(&[
        "convert",
        src,
        dst,
        s(m),
        "-o",
        s(out_json),
        "--engine",
        "interp",
    ]);
    assert!(
        out.status.success(),
        "{src} -> {dst} on {}: {}",
        m.display(),
        text(&out.stderr)
    );
    out
}

#[test]
fn convert_checks_every_pair_with_the_oracle() {
    let dir = temp("convert");
    for (src, dst) in PAIRS {
        for m in small_matrices() {
            let out_json = dir.join(format!("{src}_{dst}.json"));
            let out = convert_interp(src, dst, &m, &out_json);
            assert!(out.stdout.is_empty());
            check(dst, &read_instance(&out_json), &m);
        }
    }
    // A JSON instance of the source.
    let out_json = dir.join("csc.json");
    let out = spf(&[
        "convert",
        "csr",
        "csc",
        s(&data("csr_small.json")),
        "-o",
        s(&out_json),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    check("csc", &read_instance(&out_json), &data("small.mtx"));
    // Without -o the instance goes to standard output.
    let out = spf(&["convert", "csr", "csc", s(&data("csr_small.json"))]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let inst = Instance::from_json(&text(&out.stdout)).expect("an instance on stdout");
    check("csc", &inst, &data("small.mtx"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn convert_3d_tensors() {
    let dir = temp("convert3d");
    let t = data("small.tns");
    for (src, dst) in [("coo3d", "mcoo3"), ("mcoo3", "coo3d")] {
        let out_json = dir.join(format!("{src}_{dst}.json"));
        let out = spf(&["convert", src, dst, s(&t), "-o", s(&out_json)]);
        assert!(
            out.status.success(),
            "{src} -> {dst}: {}",
            text(&out.stderr)
        );
        check(dst, &read_instance(&out_json), &t);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs a built program with `-o` and returns its JSON line and instance.
fn run_program(bin: &Path, input: &Path, out_json: &Path) -> (serde_json::Value, Instance) {
    let out = Command::new(bin)
        .args([s(input), "-o", s(out_json), "--repeat", "2"])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{} on {}: {}",
        bin.display(),
        input.display(),
        text(&out.stderr)
    );
    let line: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("one JSON line on stdout");
    (line, read_instance(out_json))
}

/// Ordered pairs of the 2-D built-ins in which every format is a source
/// `per_format` times and a destination `per_format` times: format `k`
/// converts into formats `k + 1`, `k + 1 + stride`, ... (mod their number),
/// in the registry's order. All of them with `SPF_EXHAUSTIVE` set. The
/// interpreter and backend tests (synth/tests) run every pair either way;
/// the tests here check what the command adds (reading, the driver's
/// checks, writing) for every format on both sides.
fn rotating_pairs(per_format: usize) -> Vec<(&'static str, &'static str)> {
    let formats = spf::synth::builtin::builtin_names_of_order(2);
    let n = formats.len();
    if std::env::var_os("SPF_EXHAUSTIVE").is_some() {
        return formats
            .iter()
            .flat_map(|&s| formats.iter().map(move |&d| (s, d)))
            .collect();
    }
    let stride = (n / per_format.max(1)).max(1);
    let mut out: Vec<_> = (0..n)
        .flat_map(|k| (0..per_format).map(move |r| (k, (k + 1 + r * stride) % n)))
        .map(|(s, d)| (formats[s], formats[d]))
        .collect();
    out.dedup();
    out
}

#[test]
fn built_programs_check_with_the_oracle_on_real_matrices() {
    // The pairs of `rotating_pairs`, each built once and run on every test
    // matrix; two builds at a time.
    let pairs = rotating_pairs(1);
    assert!(pairs.len() >= 13, "{pairs:?}");
    let dir = temp("build");
    let matrices = all_matrices();
    let check_pair = |src: &str, dst: &str| {
        let bin = dir.join(format!("{src}_{dst}"));
        let c_file = dir.join(format!("{src}_{dst}.c"));
        let out = spf(&[
            "build",
            src,
            dst,
            "-o",
            s(&bin),
            "--emit-source",
            s(&c_file),
        ]);
        assert!(
            out.status.success(),
            "{src} -> {dst}: {}",
            text(&out.stderr)
        );
        assert!(std::fs::read_to_string(&c_file)
            .expect("source written")
            .contains("int main("));
        for m in &matrices {
            let m = &common::storable(m, src, dst, &dir);
            let out_json = dir.join(format!("{src}_{dst}.json"));
            let (line, inst) = run_program(&bin, m, &out_json);
            assert_eq!(line["runs"], 2);
            assert!(line["median_seconds"].as_f64().is_some_and(|t| t >= 0.0));
            assert_eq!(
                line["nnz"],
                file_entries(m).len(),
                "{src} -> {dst} on {}",
                m.display()
            );
            assert_eq!(line["src"].as_str(), Some(format(src).name.as_str()));
            check(dst, &inst, m);
        }
    };
    let (even, odd): (Vec<_>, Vec<_>) = pairs.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    std::thread::scope(|scope| {
        let a = scope.spawn(|| even.iter().for_each(|(_, (s, d))| check_pair(s, d)));
        let b = scope.spawn(|| odd.iter().for_each(|(_, (s, d))| check_pair(s, d)));
        for h in [a, b] {
            if let Err(e) = h.join() {
                std::panic::resume_unwind(e);
            }
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn built_program_for_3d_tensors() {
    let dir = temp("build3d");
    let bin = dir.join("mcoo3_coo3d");
    let out = spf(&["build", "mcoo3", "coo3d", "-o", s(&bin)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let t = data("small.tns");
    let (_, inst) = run_program(&bin, &t, &dir.join("out.json"));
    check("coo3d", &inst, &t);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The README's main job, as written there.
#[test]
fn readme_main_job_converts_the_bundled_matrix() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let line = readme
        .lines()
        .find(|l| l.starts_with("cargo run --release -- convert "))
        .expect("the README gives the main job");
    let args: Vec<&str> = line
        .trim_start_matches("cargo run --release -- ")
        .split_whitespace()
        .collect();
    assert_eq!(&args[..3], ["convert", "coo", "csr"], "{line}");
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join(args[3]);
    assert_eq!(args[4], "-o", "{line}");
    let dir = temp("readme");
    // The README's output file, in a scratch directory; its extension
    // chooses the form (scipy's .npz there).
    let output = dir.join(args[5]);
    let out = spf(&["convert", args[1], args[2], s(&input), "-o", s(&output)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let inst = if args[5].ends_with(".npz") {
        spf::synth::npz::read_npz_file(&output, &format("csr"), None).expect("an .npz of CSR")
    } else {
        read_instance(&output)
    };
    assert_eq!(
        inst.symbols["NNZ"], 25026,
        "dwt_2680 expanded to both triangles"
    );
    check("csr", &inst, &input);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every 2-D format as a source and as a destination of `spf convert` (the
/// interpreter), twice each, on a matrix with empty rows and columns and on
/// a rectangular one; `PAIRS` run on more matrices above.
#[test]
fn convert_every_format_both_ways() {
    let dir = temp("convert-all");
    for m in [matrix("jgl009.mtx"), data("small.mtx")] {
        for (src, dst) in rotating_pairs(2) {
            let m = common::storable(&m, src, dst, &dir);
            let out_json = dir.join(format!("{src}_{dst}.json"));
            convert_interp(src, dst, &m, &out_json);
            check(dst, &read_instance(&out_json), &m);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A loose compressed source (LCSR) with slack between its rows: the slack
/// is skipped in both engines (the same CSR); a nonzero value in the slack
/// is refused (it belongs to no entry and would be lost), as are rows that
/// overlap, each with the reason.
#[test]
fn loose_compressed_sources_skip_their_slack() {
    let dir = temp("loose");
    let slack = r#"{"format": "LCSR", "symbols": {"NR": 4, "NC": 5, "NNZ": 9},
 "arrays": {"lo": [0, 4, 5, 7], "hi": [2, 4, 7, 8],
            "col": [1, 3, 4, 0, 2, 0, 4, 2, 1],
            "A": [1.0, 2.0, 0.0, 0.0, 0.0, 3.0, 4.0, 5.0, 0.0]}}"#;
    let input = dir.join("slack.json");
    std::fs::write(&input, slack).unwrap();
    for engine in ["native", "interp"] {
        let out = spf(&["convert", "lcsr", "csr", s(&input), "--engine", engine]);
        assert!(out.status.success(), "{engine}: {}", text(&out.stderr));
        let csr = Instance::from_json(&text(&out.stdout)).expect("a CSR");
        validate(&format("csr"), &csr).expect("a valid CSR");
        assert_eq!(
            csr.arrays["rowptr"],
            spf::synth::instance::Values::Int(vec![0, 2, 2, 4, 5].into())
        );
        assert_eq!(
            csr.arrays["col"],
            spf::synth::instance::Values::Int(vec![1, 3, 0, 4, 2].into())
        );
    }
    for (from, to, why) in [
        (
            "0.0, 0.0, 0.0, 3.0",
            "0.0, 7.0, 0.0, 3.0",
            "A(3) = 7 belongs to no stored entry",
        ),
        (
            r#""hi": [2, 4, 7, 8]"#,
            r#""hi": [2, 6, 7, 8]"#,
            "hi(1) = 6, lo(2) = 5",
        ),
    ] {
        std::fs::write(&input, slack.replace(from, to)).unwrap();
        let out = spf(&["convert", "lcsr", "csr", s(&input), "--engine", "interp"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(text(&out.stderr).contains(why), "{}", text(&out.stderr));
    }
}
