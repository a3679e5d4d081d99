//! `spf codegen`, `spf run` and `spf pdfg` through the command line.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn spf(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spf"))
        .args(args)
        .output()
        .expect("spf runs")
}

fn example(name: &str) -> String {
    format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh directory for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spf-cli-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p.to_string_lossy().into_owned()
}

#[test]
fn codegen_c_compiles_warning_free() {
    let dir = scratch("codegen-c");
    for name in ["dense_mv", "spmv_csr", "forward_solve"] {
        let out_path = dir.join(format!("{name}.c"));
        let out = spf(&[
            "codegen",
            &example(&format!("{name}.comp")),
            "--emit",
            "c",
            "-o",
            out_path.to_str().expect("utf-8"),
        ]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let cc = Command::new("cc")
            .args(["-std=c99", "-O3", "-Wall", "-Werror", "-c", "-o"])
            .arg(dir.join(format!("{name}.o")))
            .arg(&out_path)
            .output()
            .expect("cc runs (install gcc)");
        assert!(cc.status.success(), "{name}: {}", stderr(&cc));
    }
}

#[test]
fn codegen_rust_prints_to_stdout() {
    let out = spf(&["codegen", &example("spmv_csr.comp"), "--emit", "rust"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let code = stdout(&out);
    assert!(code.contains("pub fn spmv_csr("), "{code}");
    assert!(
        code.contains("for k in rowptr[i as usize]..rowptr[(i + 1) as usize]"),
        "{code}"
    );
    assert!(code.contains("// S0"), "{code}");
}

#[test]
fn run_with_command_line_data() {
    let out = spf(&[
        "run",
        &example("spmv_csr.comp"),
        "N=3",
        "NC=3",
        "NNZ=4",
        "rowptr=0,2,2,4",
        "col=0,2,1,2",
        "A=1,2,3,4",
        "x=1,1,2",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Row 0: 1*x0 + 2*x2 = 5; row 1 empty; row 2: 3*x1 + 4*x2 = 11.
    assert_eq!(stdout(&out), "{\"y\":[5.0,0.0,11.0]}\n");
}

#[test]
fn run_with_json_data_and_output_file() {
    let dir = scratch("run-json");
    let data = write(
        &dir,
        "fs.json",
        r#"{"symbols": {"N": 2}, "arrays": {"A": [2, 0, 1, 4], "f": [2, 9]}}"#,
    );
    let result = dir.join("u.json");
    let out = spf(&[
        "run",
        &example("forward_solve.comp"),
        "--data",
        &data,
        "-o",
        result.to_str().expect("utf-8"),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // 2 u0 = 2; u0 + 4 u1 = 9.
    assert_eq!(
        std::fs::read_to_string(&result).expect("written"),
        "{\"u\":[1.0,2.0]}\n"
    );
}

#[test]
fn run_reports_bad_data_clearly() {
    let dir = scratch("run-bad");
    let bad_json = write(&dir, "bad.json", "{\"symbols\": {\"N\": 2,}\n");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["--data".into(), bad_json.clone()],
            "bad.json:1:21: invalid JSON",
        ),
        (vec!["N=two".into()], "symbol `N` needs an integer"),
        (
            vec!["Q=1".into()],
            "`Q` is neither a symbol nor a data space",
        ),
        (
            vec![
                "N=3",
                "NC=3",
                "NNZ=4",
                "rowptr=0,2,2,9",
                "col=0,2,1,2",
                "A=1,2,3,4",
                "x=1,1,2",
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            "out of bounds for `col`",
        ),
    ];
    for (args, expected) in cases {
        let mut full = vec!["run".to_string(), example("spmv_csr.comp")];
        full.extend(args);
        let refs: Vec<&str> = full.iter().map(String::as_str).collect();
        let out = spf(&refs);
        assert_eq!(out.status.code(), Some(2), "{full:?}");
        let err = stderr(&out);
        assert!(err.contains(expected), "{full:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(stdout(&out).is_empty());
    }
}

#[test]
fn pdfg_writes_dot_and_svg() {
    let dir = scratch("pdfg");
    let dot = dir.join("fs.dot");
    let out = spf(&[
        "pdfg",
        &example("forward_solve.comp"),
        "-o",
        dot.to_str().expect("utf-8"),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&dot).expect("dot written");
    assert!(text.starts_with("digraph"), "{text}");
    assert!(
        text.contains("carried by i"),
        "the loop-carried dependence is drawn: {text}"
    );
    let svg = dir.join("fs.svg");
    let out = spf(&[
        "pdfg",
        &example("forward_solve.comp"),
        "-o",
        svg.to_str().expect("utf-8"),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&svg).expect("svg written");
    assert!(text.contains("<svg"), "{}", &text[..text.len().min(200)]);
    assert!(text.contains("S1"), "statement names are drawn");
}

#[test]
fn failures_leave_no_output_file() {
    let dir = scratch("no-partial");
    let broken = write(
        &dir,
        "broken.comp",
        "computation c(N) {\n  out real y[N];\n  S0: y(i) = z(i) domain {[i] : 0 <= i < N} schedule {[i] -> [i]};\n}\n",
    );
    let target = dir.join("out.svg");
    let out = spf(&["pdfg", &broken, "-o", target.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.starts_with(&format!("{broken}:3:")), "{err}");
    assert!(!target.exists(), "no file is written on failure");
    // An existing file is not clobbered by a failing run either.
    std::fs::write(&target, "keep").expect("write");
    let out = spf(&[
        "codegen",
        &broken,
        "--emit",
        "c",
        "-o",
        target.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(&target).expect("still there"),
        "keep"
    );
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().contains("spf-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary files remain");
}

#[test]
fn pdfg_needs_a_known_extension() {
    let out = spf(&[
        "pdfg",
        &example("spmv_csr.comp"),
        "-o",
        "/tmp/spf-graph.png",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("must end in .dot or .svg"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn missing_computation_file() {
    let out = spf(&["codegen", "/nonexistent/x.comp", "--emit", "c"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("/nonexistent/x.comp"),
        "{}",
        stderr(&out)
    );
}
