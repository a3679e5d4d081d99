//! `spf generate` through the command line.

use std::path::PathBuf;
use std::process::{Command, Output};

use synth::tensor_io::read_file;

fn spf(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spf"))
        .args(args)
        .output()
        .expect("spf runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh directory for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spf-generate-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn a_scaled_matrix_reads_back_with_its_targets() {
    let dir = scratch("matrix");
    let out = dir.join("eco.mtx");
    let o = spf(&[
        "generate",
        "ecology1",
        "--scale",
        "0.001",
        "--seed",
        "3",
        "-o",
        out.to_str().expect("utf-8"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m = read_file(&out, None).expect("reads back");
    // 0.001 of a 1000x1000 grid: 32x32, a 5-point stencil.
    assert_eq!(m.dims, vec![1024, 1024]);
    assert_eq!(m.entries.len(), 5 * 1024 - 4 * 32);
    let mut diagonals: Vec<i64> = m.entries.iter().map(|(ij, _)| ij[1] - ij[0]).collect();
    diagonals.sort_unstable();
    diagonals.dedup();
    assert_eq!(diagonals, vec![-32, -1, 0, 1, 32]);
    // The library gives the same entries.
    let spec = matgen::find("ecology1").expect("in the catalog");
    assert_eq!(m, matgen::generate(spec, 0.001, 3));

    // Same seed, same bytes; another seed, other values.
    let again = dir.join("again.mtx");
    let o = spf(&[
        "generate",
        "ecology1",
        "--scale",
        "0.001",
        "--seed",
        "3",
        "-o",
        again.to_str().expect("utf-8"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(&out).expect("file"),
        std::fs::read(&again).expect("file")
    );
    let other = dir.join("other.mtx");
    let o = spf(&[
        "generate",
        "ecology1",
        "--scale",
        "0.001",
        "--seed",
        "4",
        "-o",
        other.to_str().expect("utf-8"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_ne!(
        std::fs::read(&out).expect("file"),
        std::fs::read(&other).expect("file")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_shuffled_tensor_reads_back() {
    let dir = scratch("tensor");
    let out = dir.join("darpa.tns");
    let o = spf(&[
        "generate",
        "darpa",
        "--scale",
        "0.0005",
        "--shuffle",
        "-o",
        out.to_str().expect("utf-8"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let spec = matgen::find("darpa").expect("in the catalog");
    let t = matgen::targets(spec, 0.0005);
    let back = read_file(&out, Some(&t.dims)).expect("reads back");
    assert_eq!(back.dims, t.dims);
    assert_eq!(back.entries.len() as u64, t.nnz);
    let mut sorted = back.entries.clone();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    assert_ne!(sorted, back.entries, "--shuffle leaves row-major order");
    let mut expected = matgen::generate(spec, 0.0005, 1).entries;
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(sorted, expected);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_list_shows_every_entry() {
    let o = spf(&["generate", "--list"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for spec in matgen::catalog() {
        assert!(text.contains(spec.name), "{}: {text}", spec.name);
    }
    assert!(text.contains("atmosmodd"), "{text}");
    let line = text
        .lines()
        .find(|l| l.starts_with("atmosmodd"))
        .expect("a line");
    assert!(
        line.contains("1270432 x 1270432") && line.contains("8814880") && line.contains("stencil"),
        "{line}"
    );
    let o = spf(&["generate", "--list", "--scale", "0.01"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("# at scale 0.01"), "{}", stdout(&o));
}

#[test]
fn errors_are_clear_and_leave_no_file() {
    let dir = scratch("errors");
    let out = dir.join("x.mtx");
    let p = out.to_str().expect("utf-8");

    let o = spf(&["generate", "nosuch", "-o", p]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("unknown matrix `nosuch`")
            && err.contains("ecology1")
            && err.contains("webbase-1M"),
        "{err}"
    );

    for bad in ["0", "1.5", "-1", "nan"] {
        let o = spf(&["generate", "ecology1", "--scale", bad, "-o", p]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(
            stderr(&o).contains("the scale must be in (0, 1]"),
            "{bad}: {}",
            stderr(&o)
        );
    }

    let o = spf(&["generate", "darpa", "--scale", "0.001", "-o", p]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("write it as .tns"), "{}", stderr(&o));

    let o = spf(&[
        "generate",
        "ecology1",
        "-o",
        dir.join("x.txt").to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(".mtx or .tns"), "{}", stderr(&o));

    let o = spf(&[
        "generate",
        "ecology1",
        "--scale",
        "0.001",
        "-o",
        dir.join("missing/x.mtx").to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot write"), "{}", stderr(&o));

    assert!(!out.exists());
    let left: Vec<_> = std::fs::read_dir(&dir).expect("dir").collect();
    assert!(left.is_empty(), "{left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
