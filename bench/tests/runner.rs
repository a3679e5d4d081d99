//! The `bench` command itself at a tiny scale: its files and its errors.
//! (The runner's library end to end is tested in the root package,
//! tests/bench_runner.rs, with the `spf` binary built for it.)

use std::process::Command;

use bench::spf::Spf;

/// The spf command: the one `cargo test --workspace` built next to this
/// test, else built now (with cargo, in this test's profile).
fn spf() -> Spf {
    Spf::sibling()
        .or_else(|| Spf::build_with_cargo().ok())
        .expect("the spf command is built or buildable")
}

#[test]
fn the_command_writes_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args([
            "--scale",
            "0.0005",
            "--repeat",
            "1",
            "--only",
            "jnlbrng1",
            "--conversions",
            "coo_csr_sorted,scoo_csr",
            "--no-scipy",
            "--quiet",
            "--spf",
        ])
        .arg(spf().exe)
        .arg("-o")
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("SCOO→CSR"), "{stdout}");
    assert!(stdout.contains("| conversion | baseline | geomean ratio"));
    assert!(dir.path().join("results.json").is_file());
    assert!(dir.path().join("scoo_csr.csv").is_file());
    assert!(
        !dir.path().join("work").exists(),
        "the scratch directory is removed"
    );

    let bad = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(["--conversions", "coo_bcsr", "--spf", "/nonexistent"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown conversion"));
}
