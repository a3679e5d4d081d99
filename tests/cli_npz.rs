//! `.npz` through the `spf` command: scipy's files in, converted through
//! formats scipy lacks, scipy's files out (checked by scipy itself, a
//! prerequisite CI installs: see `common::report`), and damaged or
//! mismatched archives refused with exit status 2 and no output file.

mod common;

use std::io::Cursor;
use std::path::{Path, PathBuf};

use common::scipy_files::{unsorted_bsr, unsorted_csr};
use common::{s, spf, text};
use spf::synth::builtin::load_format;
use spf::synth::instance::{Instance, Values};
use spf::synth::npz::{read_npz, write_npz};
use spf::synth::oracle::coordinate_entries;
use spf::synth::tensor_io::read_file;

fn temp(test: &str) -> PathBuf {
    common::temp("cli-npz", test)
}

/// A fixture scipy wrote (synth/tests/data/npz/make_fixtures.py).
fn fixture(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/synth/tests/data/npz")).join(name)
}

fn read(path: &Path, format: &str) -> Instance {
    let bytes = std::fs::read(path).expect("readable");
    read_npz(Cursor::new(bytes), &load_format(format).expect("built-in")).expect("an instance")
}

/// The files of a directory, temporaries included.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("readable")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn npz_converts_through_formats_scipy_lacks_and_back() {
    let dir = temp("through");
    let (dcsr, ell, back) = (
        dir.join("a.dcsr.npz"),
        dir.join("a.ell.npz"),
        dir.join("b.npz"),
    );
    let src = fixture("csr32.npz");
    for (args, what) in [
        (
            vec!["convert", "csr", "dcsr", s(&src), "-o", s(&dcsr)],
            "to DCSR",
        ),
        (
            vec!["convert", "dcsr", "ell", s(&dcsr), "-o", s(&ell)],
            "to ELL",
        ),
        (
            vec!["convert", "ell", "csr", s(&ell), "-o", s(&back)],
            "back to CSR",
        ),
    ] {
        let out = spf(&args);
        assert!(out.status.success(), "{what}: {}", text(&out.stderr));
    }
    assert_eq!(read(&back, "csr"), read(&src, "csr"));
    // The generic layout names the format.
    assert_eq!(read(&dcsr, "dcsr").format, "DCSR");
    // Coordinates out, and in again.
    let mtx = dir.join("b.mtx");
    let out = spf(&["convert", "csr", "csc", s(&back), "-o", s(&mtx)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let again = dir.join("c.npz");
    let out = spf(&["convert", "coo", "csr", s(&mtx), "-o", s(&again)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(read(&again, "csr"), read(&src, "csr"));
    // `spf dump` reads .npz.
    let dumped = dir.join("d.mtx");
    let out = spf(&["dump", "csr", s(&src), "-o", s(&dumped)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let entries = |p: &Path| coordinate_entries(&read_file(p, None).expect("readable"));
    assert_eq!(entries(&dumped), entries(&mtx));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn symmetric_inputs_keep_one_triangle_on_request() {
    let dir = temp("triangle");
    let m = dir.join("s.mtx");
    std::fs::write(
        &m,
        "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 5\n3 3 1\n",
    )
    .expect("write");
    let out_file = dir.join("s.npz");
    for (flag, nnz) in [(None, 3), (Some("--keep-triangle"), 2)] {
        let mut args = vec!["convert", "coo", "csr", s(&m), "-o", s(&out_file)];
        args.extend(flag);
        let out = spf(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(read(&out_file, "csr").symbols["NNZ"], nnz, "{flag:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// scipy's own check: python3 with numpy and scipy reads what spf writes
/// (a prerequisite: missing, it fails the test under CI, which installs it,
/// and is reported skipped elsewhere).
#[test]
fn scipy_reads_what_spf_writes() {
    let ready = std::process::Command::new("python3")
        .args(["-c", "import numpy, scipy.sparse; print(scipy.__version__)"])
        .output();
    let missing = match &ready {
        Ok(out) if out.status.success() => None,
        Ok(out) => Some(format!(
            "python3 with numpy and scipy (pip install numpy scipy): {}",
            text(&out.stderr).lines().last().unwrap_or_default()
        )),
        Err(e) => Some(format!("python3 ({e})")),
    };
    if !common::report::require("the round trip through scipy", missing) {
        return;
    }
    let dir = temp("scipy");
    let script = common::test_data("scipy_round_trip.py");
    let out = std::process::Command::new("python3")
        .args([s(&script), env!("CARGO_BIN_EXE_spf"), s(&dir)])
        .output()
        .expect("python3 runs");
    let report = text(&out.stdout);
    assert!(out.status.success(), "{report}{}", text(&out.stderr));
    assert!(report.contains("all round trips agree"), "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each bad archive: exit status 2, a message naming the problem, and
/// neither the output nor a temporary left in its directory.
#[test]
fn bad_archives_are_refused_without_output() {
    let dir = temp("bad");
    let csr = load_format("csr").expect("built-in");
    let good = read(&fixture("csr32.npz"), "csr");
    let write = |name: &str, inst: &Instance| {
        let path = dir.join(name);
        let mut bytes = Cursor::new(Vec::new());
        write_npz(&csr, inst, &mut bytes).expect("written");
        std::fs::write(&path, bytes.into_inner()).expect("write");
        path
    };
    let truncated = dir.join("truncated.npz");
    let bytes = std::fs::read(fixture("csr32.npz")).expect("readable");
    std::fs::write(&truncated, &bytes[..bytes.len() - 40]).expect("write");
    let mut short = good.clone();
    short
        .arrays
        .insert("rowptr".into(), Values::Int(vec![0, 2, 4, 7].into()));
    let mut far = good.clone();
    far.arrays
        .insert("col".into(), Values::Int(vec![0, 3, 1, 9, 0, 2, 5].into()));
    let cases = [
        (truncated, "not a readable .npz archive"),
        (
            fixture("float_indices.npz"),
            "array `indices` has dtype `<f8`, but an index array holds integers",
        ),
        (write("short.npz", &short), "rowptr has 4 values but"),
        (write("far.npz", &far), "col(3) = 9 is outside its range"),
        (
            fixture("csc.npz"),
            "holds a scipy `csc` matrix, but CSR does not have scipy's `csc` layout",
        ),
    ];
    let out_dir = dir.join("out");
    std::fs::create_dir_all(&out_dir).expect("dir");
    let target = out_dir.join("result.npz");
    for (input, message) in &cases {
        let out = spf(&["convert", "csr", "dcsr", s(input), "-o", s(&target)]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}: {err}", input.display());
        assert!(err.contains(message), "{}: {err}", input.display());
        assert!(err.starts_with(s(input)), "names the input: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(listing(&out_dir).is_empty(), "{:?}", listing(&out_dir));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The entries of a Matrix Market file, explicit zeros included.
fn listed(path: &Path) -> Vec<(Vec<i64>, f64)> {
    let mut e = read_file(path, None).expect("readable").entries;
    e.sort_by(|a, b| a.0.cmp(&b.0));
    e
}

/// What scipy writes by default converts: a csr whose rows are unsorted
/// and repeat a column, a bsr of `tobsr(blocksize=(2, 2))` with its block
/// columns out of order, and a 3 × 3 bsr of 3 × 3 blocks named `bcsr`.
#[test]
fn scipy_files_convert_as_scipy_means_them() {
    let dir = temp("as-scipy");
    let unsorted = unsorted_csr(&dir);
    let out = dir.join("unsorted.mtx");
    let run = spf(&["convert", "csr", "csc", s(&unsorted), "-o", s(&out)]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    // Summed, sorted, and the explicit zero kept.
    let want = vec![(vec![0, 0], 2.0), (vec![0, 2], 4.0), (vec![1, 1], 0.0)];
    assert_eq!(listed(&out), want);
    let blocks = unsorted_bsr(&dir);
    let out = dir.join("blocks.mtx");
    let run = spf(&["convert", "bcsr", "coo", s(&blocks), "-o", s(&out)]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let entries = coordinate_entries(&read_file(&out, None).expect("readable"));
    assert_eq!(entries[&vec![0, 2]], 1.0);
    assert_eq!(entries[&vec![1, 1]], 8.0);
    assert_eq!(entries.len(), 8);
    let out = dir.join("eye.mtx");
    let run = spf(&[
        "convert",
        "bcsr",
        "csr",
        s(&fixture("bsr3.npz")),
        "-o",
        s(&out),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let eye: Vec<(Vec<i64>, f64)> = (0..3).map(|i| (vec![i, i], 1.0)).collect();
    assert_eq!(listed(&out), eye);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Explicit zeros are kept in every output kind, as scipy keeps them,
/// except by a padded format (whose stored zeros are padding);
/// `--drop-zeros` removes them.
#[test]
fn explicit_zeros_are_kept_in_every_output_kind_unless_dropped() {
    let dir = temp("zeros");
    let input = dir.join("z.mtx");
    std::fs::write(
        &input,
        "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1.0\n2 2 0.0\n3 1 2.0\n",
    )
    .expect("write");
    let csr = dir.join("z.npz");
    let run = spf(&["convert", "coo", "csr", s(&input), "-o", s(&csr)]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(read(&csr, "csr").symbols["NNZ"], 3);
    let all = listed(&input);
    let nonzero: Vec<(Vec<i64>, f64)> = all.iter().filter(|e| e.1 != 0.0).cloned().collect();
    for (dst, kind, flag, want) in [
        ("coo", "z.mtx", None, &all),
        ("coo", "z.json", None, &all),
        ("dcsr", "z.npz", None, &all),
        ("coo", "d.mtx", Some("--drop-zeros"), &nonzero),
        ("csc", "d.npz", Some("--drop-zeros"), &nonzero),
        ("ell", "e.npz", None, &nonzero),
    ] {
        let out = dir.join(format!("{dst}.{kind}"));
        let mut args = vec!["convert", "csr", dst, s(&csr), "-o", s(&out)];
        args.extend(flag);
        let run = spf(&args);
        assert!(run.status.success(), "{dst} {kind}: {}", text(&run.stderr));
        let back = if kind.ends_with(".mtx") {
            out
        } else {
            let back = dir.join(format!("{dst}.{kind}.mtx"));
            let run = spf(&["dump", dst, s(&out), "-o", s(&back)]);
            assert!(run.status.success(), "{dst} {kind}: {}", text(&run.stderr));
            back
        };
        assert_eq!(&listed(&back), want, "csr -> {dst} {kind} {flag:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
