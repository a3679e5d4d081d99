//! `spf check` and `spf dump` through the command line.

use std::process::{Command, Output};

fn spf(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spf"))
        .args(args)
        .output()
        .expect("spf runs")
}

#[test]
fn every_builtin_format_checks() {
    for &f in spf::synth::builtin::builtin_names() {
        let out = spf(&["check", f]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{f}: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("ok: map is a function"), "{f}: {text}");
        assert!(!text.contains("error:"), "{f}: {text}");
    }
}

#[test]
fn a_map_that_is_not_a_function_fails_with_an_explanation() {
    let dir = std::env::temp_dir().join(format!("spf-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("broken.desc");
    // Two coordinates for one stored entry: j is not determined by n.
    std::fs::write(
        &path,
        "format BROKEN {\n    dense [NR, NC];\n    map {[n] -> [i, j] : i = row(n) && 0 <= j < NC && 0 <= n < NNZ};\n    data A : {[n] -> [n]} size NNZ;\n    uf row : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < NR};\n}\n",
    )
    .expect("write");
    let out = spf(&["check", path.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("error: map is a function"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_syntax_error_is_located() {
    let dir = std::env::temp_dir().join(format!("spf-check-syntax-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("bad.desc");
    std::fs::write(&path, "format X {\n    dense [NR, NC]\n}\n").expect("write");
    let p = path.to_str().expect("utf-8");
    let out = spf(&["check", p]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with(&format!("{p}:3:1: ")), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unknown_format_lists_the_builtins() {
    let out = spf(&["check", "nosuchformat"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("coo, scoo, mcoo"), "{err}");
}

fn data(name: &str) -> String {
    format!("{}/synth/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn dump_writes_matrix_market_and_frostt() {
    let dir = std::env::temp_dir().join(format!("spf-dump-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mtx = dir.join("out.mtx");
    let out = spf(&[
        "dump",
        "csr",
        &data("csr_small.json"),
        "-o",
        mtx.to_str().expect("utf-8"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&mtx).expect("written"),
        "%%MatrixMarket matrix coordinate real general\n4 4 5\n1 2 1.5\n1 4 2\n3 1 -3\n3 3 4\n4 4 0.25\n"
    );
    let tns = dir.join("out.tns");
    let out = spf(&[
        "dump",
        "csr",
        &data("csr_small.json"),
        "-o",
        tns.to_str().expect("utf-8"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::read_to_string(&tns)
        .expect("written")
        .contains("1 2 1.5"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dump_rejects_an_invalid_instance_without_writing() {
    let dir = std::env::temp_dir().join(format!("spf-dump-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let text = std::fs::read_to_string(data("csr_small.json")).expect("read");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, text.replace("[0, 2, 2, 4, 5]", "[0, 3, 2, 4, 5]")).expect("write");
    let target = dir.join("out.mtx");
    let out = spf(&[
        "dump",
        "csr",
        bad.to_str().expect("utf-8"),
        "-o",
        target.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("rowptr is not nondecreasing"), "{err}");
    assert!(!target.exists());
    // The instance names its format; another format is refused.
    let out = spf(&[
        "dump",
        "coo",
        &data("csr_small.json"),
        "-o",
        target.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not `COO`"));
    let _ = std::fs::remove_dir_all(&dir);
}
