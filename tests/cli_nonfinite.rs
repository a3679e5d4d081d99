//! NaN and infinities: refused by default (exit status 2, naming
//! `--allow-nonfinite`), read and converted with the flag by `spf
//! convert`, `spf dump` and built programs, written to `.npz`, `.mtx` and
//! `.tns` as the readers read them back, and refused as JSON, which
//! cannot carry them.

mod common;

use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{s, spf, text};
use spf::synth::builtin::load_format;
use spf::synth::npz::read_npz;
use spf::synth::oracle::entries;
use spf::synth::tensor_io::{read_coo_file, ReadOptions};

fn temp(test: &str) -> PathBuf {
    common::temp("cli-nonfinite", test)
}

/// A 4 × 3 matrix with NaN, both infinities (spelled as scipy and
/// fast_matrix_market write them, and other cases) and finite values.
const MATRIX: &str = "%%MatrixMarket matrix coordinate real general\n4 3 6\n1 1 nan\n2 3 inf\n\
                      3 1 -inf\n3 2 2.5\n4 3 -Infinity\n4 1 NaN\n";

/// The entries of `matrix`: (coordinate, value) with NaN shown as such
/// and every other value by its bits.
type Shown = BTreeMap<Vec<i64>, Result<u64, &'static str>>;

fn shown(m: impl IntoIterator<Item = (Vec<i64>, f64)>) -> Shown {
    m.into_iter()
        .map(|(c, v)| {
            (
                c,
                if v.is_nan() {
                    Err("NaN")
                } else {
                    Ok(v.to_bits())
                },
            )
        })
        .collect()
}

/// The matrix's entries as spf's reader reads them with the flag.
fn expected(path: &Path) -> Shown {
    let options = ReadOptions {
        allow_nonfinite: true,
        ..ReadOptions::default()
    };
    let t = read_coo_file(path, &options).expect("readable with the flag");
    shown(t.to_coordinates().entries)
}

/// The entries of an `.npz` instance of `format`.
fn npz_entries(path: &Path, format: &str) -> Shown {
    let d = load_format(format).expect("built-in");
    let bytes = std::fs::read(path).expect("written");
    let inst = read_npz(Cursor::new(bytes), &d).expect("an instance");
    shown(entries(&d, &inst).expect("enumerable"))
}

fn refused(out: &std::process::Output, words: &[&str]) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for w in words {
        assert!(err.contains(w), "`{w}` missing from: {err}");
    }
}

#[test]
fn nonfinite_values_convert_with_the_flag_and_are_refused_without() {
    let dir = temp("convert");
    let input = dir.join("a.mtx");
    std::fs::write(&input, MATRIX).expect("written");
    let want = expected(&input);
    assert_eq!(want.len(), 6);
    assert_eq!(want[&vec![0, 0]], Err("NaN"));
    assert_eq!(want[&vec![1, 2]], Ok(f64::INFINITY.to_bits()));
    let csr = dir.join("a.csr.npz");
    // Without the flag: refused at the value, naming the flag; nothing written.
    let out = spf(&["convert", "coo", "csr", s(&input), "-o", s(&csr)]);
    refused(
        &out,
        &[
            "a.mtx:3:5: value `nan` is not a finite number",
            "--allow-nonfinite",
        ],
    );
    assert!(!csr.exists());
    let out = spf(&[
        "convert",
        "--allow-nonfinite",
        "coo",
        "csr",
        s(&input),
        "-o",
        s(&csr),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(npz_entries(&csr, "csr"), want);
    // An .npz holding them is refused without the flag too.
    let csc = dir.join("a.csc.npz");
    let out = spf(&["convert", "csr", "csc", s(&csr), "-o", s(&csc)]);
    refused(&out, &["is not a finite number", "--allow-nonfinite"]);
    assert!(!csc.exists());
    // csr -> csc, compiled and interpreted, to .npz and .mtx: the entries
    // are the input's, NaN where it has NaN.
    for engine in ["native", "interp"] {
        let flags = [
            "--allow-nonfinite",
            "--engine",
            engine,
            "csr",
            "csc",
            s(&csr),
        ];
        let out = spf(&[&["convert"][..], &flags, &["-o", s(&csc)]].concat());
        assert!(out.status.success(), "{engine}: {}", text(&out.stderr));
        assert_eq!(npz_entries(&csc, "csc"), want, "{engine}");
        let mtx = dir.join(format!("a.{engine}.mtx"));
        let out = spf(&[&["convert"][..], &flags, &["-o", s(&mtx)]].concat());
        assert!(out.status.success(), "{engine}: {}", text(&out.stderr));
        assert_eq!(expected(&mtx), want, "{engine}");
        let written = std::fs::read_to_string(&mtx).expect("written");
        assert!(
            written.contains(" nan\n") && written.contains(" -inf\n"),
            "{written}"
        );
    }
    // JSON cannot carry them: refused, to a file and to standard output,
    // naming the kinds that can.
    let json = dir.join("a.json");
    for output in [&["-o", s(&json)][..], &[]] {
        let args = [
            &["convert", "--allow-nonfinite", "coo", "csc", s(&input)][..],
            output,
        ];
        let out = spf(&args.concat());
        refused(
            &out,
            &[
                "is not a finite number, which JSON cannot carry",
                ".npz",
                ".mtx",
            ],
        );
        assert!(out.stdout.is_empty());
    }
    assert!(!json.exists());
    // spf dump writes them as coordinates with the flag.
    let dumped = dir.join("dumped.mtx");
    let out = spf(&["dump", "csc", s(&csc), "-o", s(&dumped)]);
    refused(&out, &["--allow-nonfinite"]);
    let out = spf(&[
        "dump",
        "--allow-nonfinite",
        "csc",
        s(&csc),
        "-o",
        s(&dumped),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(expected(&dumped), want);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A FROSTT tensor with NaN and infinities converts to a 3-D format and
/// back to `.tns` with the flag.
#[test]
fn a_frostt_tensor_with_nonfinite_values_converts_with_the_flag() {
    let dir = temp("frostt");
    let input = dir.join("t.tns");
    std::fs::write(&input, "1 1 1 nan\n2 1 2 -inf\n2 2 2 1.5\n1 2 1 INF\n").expect("written");
    let want = expected(&input);
    let out_tns = dir.join("out.tns");
    let out = spf(&["convert", "coo3d", "csf3", s(&input), "-o", s(&out_tns)]);
    refused(
        &out,
        &[
            "t.tns:1:7: value `nan` is not a finite number",
            "--allow-nonfinite",
        ],
    );
    let args = [
        "convert",
        "--allow-nonfinite",
        "coo3d",
        "csf3",
        s(&input),
        "-o",
        s(&out_tns),
    ];
    let out = spf(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(expected(&out_tns), want);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A built program refuses them as spf does by default; with
/// `--allow-nonfinite` it reads and converts them (from `.mtx` and
/// `.npz`), writes them to `.npz`, and refuses to write the JSON that
/// cannot carry them.
#[test]
fn built_programs_read_nonfinite_values_only_with_the_flag() {
    let dir = temp("build");
    let input = dir.join("a.mtx");
    std::fs::write(&input, MATRIX).expect("written");
    let bin = dir.join("coo2csr");
    let out = spf(&["build", "coo", "csr", "--verify", "-o", s(&bin)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let run = |args: &[&str]| Command::new(&bin).args(args).output().expect("runs");
    let json = dir.join("out.json");
    // The message spf gives, word for word after the path.
    let by_spf = text(&spf(&["convert", "coo", "csr", s(&input)]).stderr);
    let reason = by_spf
        .split_once("a.mtx:")
        .map(|(_, r)| r.trim().to_string())
        .expect("located");
    let out = run(&[s(&input), "-o", s(&json)]);
    refused(&out, &[&reason, "--allow-nonfinite"]);
    assert!(!json.exists());
    // With the flag the conversion runs (and its check passes: NaN is
    // NaN), and the result is refused as JSON.
    let out = run(&["--allow-nonfinite", s(&input)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(&["--allow-nonfinite", s(&input), "-o", s(&json)]);
    refused(
        &out,
        &["is not a finite number, which JSON cannot carry", ".npz"],
    );
    assert!(!json.exists());
    // An .npz output keeps them: the entries spf reads from the file.
    let npz = dir.join("out.npz");
    let out = run(&["--allow-nonfinite", s(&input), "-o", s(&npz)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(npz_entries(&npz, "csr"), expected(&input));
    // An .npz input holding them: refused without the flag, as spf
    // convert refuses it, and read with it.
    let csr_csc = dir.join("csr2csc");
    let out = spf(&["build", "csr", "csc", "--verify", "-o", s(&csr_csc)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let from_npz = dir.join("from-npz.npz");
    let out = Command::new(&csr_csc)
        .args([s(&npz), "-o", s(&from_npz)])
        .output()
        .expect("runs");
    refused(&out, &["not a finite number", "--allow-nonfinite"]);
    assert!(!from_npz.exists());
    refused(
        &spf(&["convert", "csr", "csc", s(&npz)]),
        &["--allow-nonfinite"],
    );
    let out = Command::new(&csr_csc)
        .args(["--allow-nonfinite", s(&npz), "-o", s(&from_npz)])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(npz_entries(&from_npz, "csc"), expected(&input));
    let help = text(&run(&["--help"]).stdout);
    assert!(help.contains("--allow-nonfinite"), "{help}");
    let _ = std::fs::remove_dir_all(&dir);
}
