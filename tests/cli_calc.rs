//! `spf calc` through the command line: output, exit status, error format.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn spf(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_spf"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spf starts");
    {
        let mut input = child.stdin.take().expect("stdin is piped");
        if let Some(text) = stdin {
            input
                .write_all(text.as_bytes())
                .expect("stdin accepts the program");
        }
    }
    child.wait_with_output().expect("spf finishes")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn example_file_prints_true_for_every_check() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/csr.calc");
    let out = spf(&["calc", path], None);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "{[x, z, r] -> [w, t] : w = x + z - r - 5 && t = f(r + 2)}",
            "true",
            "{[i, k, j] : j = col(k) && 0 <= i < NR && rowptr(i) <= k < rowptr(i + 1)}",
            "true",
            "true",
            "{[i2, j2] -> [i2, k, j2] : j2 = col(k) && 0 <= i2 < NR && rowptr(i2) <= k < rowptr(i2 + 1)}",
        ]
    );
}

#[test]
fn reads_standard_input_without_a_file() {
    let out = spf(
        &["calc"],
        Some("{[i] : 0 <= i < 3} ; is_empty({[i] : i < 0 && i > 0});"),
    );
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "{[i] : 0 <= i <= 2}\ntrue\n");
}

#[test]
fn a_flat_sum_of_any_length_is_read() {
    // 100,001 terms: i - i + i - ... + i + 1000 - 1000, that is i.
    let sum = format!("i{} + 1000 - 1000", " - i + i".repeat(50_000));
    let program = format!("{{[i] : 0 <= {sum} < 3}};\n");
    let out = spf(&["calc"], Some(&program));
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "{[i] : 0 <= i <= 2}\n");
    // Deep nesting is still refused, with a located error.
    let deep = format!("{{[i] : {}i = 0}};\n", "-".repeat(100_000));
    let out = spf(&["calc"], Some(&deep));
    assert_eq!(out.status.code(), Some(2), "stderr: {}", stderr(&out));
    assert!(
        stderr(&out).contains("nested too deeply"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn without_uf_declaration_the_bound_is_not_provable() {
    let out = spf(
        &["calc"],
        Some("is_empty({[i,k] : 0 <= i < NR && rowptr(i) <= k < rowptr(i+1) && k >= NNZ});"),
    );
    assert_eq!(stdout(&out), "false\n");
}

#[test]
fn error_is_file_line_column_and_exit_status_2() {
    let dir = std::env::temp_dir().join(format!("spf-calc-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("bad.calc");
    std::fs::write(&file, "A := {[i] : i < 3};\nA;\ncompose(A, A);\nA;\n").expect("write");
    let path = file.to_str().expect("utf-8 path");
    let out = spf(&["calc", path], None);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stdout(&out),
        "{[i] : i <= 2}\n",
        "statements before the error print, the failing one does not"
    );
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!("{path}:3:9: ")),
        "error must start with FILE:LINE:COL: {err}"
    );
    assert_eq!(err.lines().count(), 1, "one line of error: {err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn syntax_error_in_stdin_is_located() {
    let out = spf(
        &["calc"],
        Some("A := {[i] : i < 3};\n  B := {[i] : i $ 3};"),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("<stdin>:2:17: "),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).is_empty());
}

#[test]
fn missing_file_is_reported_without_panic() {
    let out = spf(&["calc", "/nonexistent/program.calc"], None);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("/nonexistent/program.calc"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn binary_input_is_an_error_not_a_panic() {
    let matrix = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/matrices/wrong.mtx");
    let out = spf(&["calc", matrix], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains(":1:1: "), "{}", stderr(&out));
}
