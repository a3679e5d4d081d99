//! Index widths through the `spf` command (`--index-width 32|64|auto`):
//! an instance that needs 64-bit indices is refused by a 32-bit build and
//! a 32-bit `spf convert` with exit status 2 and a message naming the size;
//! auto runs it at 64 bits and everything else at 32, with the results of
//! a 64-bit run. Two programs are compiled (a 32-bit and an auto build).

mod common;

use std::path::Path;

use common::{s, spf, test_data, text};

/// A COO instance whose column count needs 64-bit indices (its arrays
/// stay tiny).
const WIDE: &str = r#"{"format": "COO", "symbols": {"NR": 4, "NC": 3000000000, "NNZ": 2},
 "arrays": {"row": [0, 3], "col": [1, 2999999999], "A": [1.0, 2.0]}}"#;

fn json_line(out: &[u8]) -> serde_json::Value {
    serde_json::from_str(text(out).trim()).expect("one JSON line")
}

fn build(dir: &Path, width: &str) -> std::path::PathBuf {
    let bin = dir.join(format!("coo-csr-{width}"));
    let out = spf(&["build", "coo", "csr", "-o", s(&bin), "--index-width", width]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    bin
}

#[test]
fn built_programs_refuse_or_widen_what_does_not_fit() {
    let dir = common::temp("cli-width", "build");
    let wide = dir.join("wide.json");
    std::fs::write(&wide, WIDE).unwrap();
    let matrix = test_data("matrices/jgl009.mtx");
    let (narrow, auto) = (build(&dir, "32"), build(&dir, "auto"));

    let out = std::process::Command::new(&narrow)
        .arg(&wide)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("the symbol NC is 3000000000: more than 32-bit indices hold"),
        "{err}"
    );

    let (from_auto, from_narrow) = (dir.join("auto.json"), dir.join("narrow.json"));
    let out = std::process::Command::new(&auto)
        .args([s(&wide), "-o", s(&from_auto)])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(json_line(&out.stdout)["index_width"], 64);
    let written = std::fs::read_to_string(&from_auto).unwrap();
    assert!(written.contains("2999999999"), "{written}");

    // An instance that records 32-bit indices must fit them.
    let recorded = dir.join("recorded.json");
    std::fs::write(&recorded, WIDE.replace("}}", "}, \"index_width\": 32}")).unwrap();
    let out = std::process::Command::new(&auto)
        .arg(&recorded)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("the instance records 32-bit indices, but the symbol NC"),
        "{}",
        text(&out.stderr)
    );

    // A matrix that fits: both at 32 bits, with one result.
    let mut results = Vec::new();
    for (bin, file) in [(&narrow, &from_narrow), (&auto, &from_auto)] {
        let out = std::process::Command::new(bin)
            .args([s(&matrix), "-o", s(file)])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        let line = json_line(&out.stdout);
        assert_eq!(line["index_width"], 32);
        // 4 bytes an index: COO's row and col, and 8 a value.
        let nnz = line["nnz"].as_i64().unwrap();
        assert_eq!(line["input_bytes"].as_i64(), Some(nnz * (4 + 4 + 8)));
        results.push(std::fs::read_to_string(file).unwrap());
    }
    assert_eq!(results[0], results[1]);
    assert!(results[0].contains("\"index_width\": 32"), "{}", results[0]);
}

#[test]
fn json_instances_record_their_width() {
    let dir = common::temp("cli-width", "record");
    let matrix = test_data("matrices/jgl009.mtx");
    let (csr, coo) = (dir.join("a.json"), dir.join("b.json"));
    for (src, dst, input, output) in [("coo", "csr", &matrix, &csr), ("csr", "coo", &csr, &coo)] {
        let out = spf(&[
            "convert",
            src,
            dst,
            s(input),
            "-o",
            s(output),
            "--engine",
            "interp",
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let written = std::fs::read_to_string(output).unwrap();
        assert!(written.contains("\"index_width\": 32"), "{written}");
    }
    let recorded = dir.join("recorded.json");
    std::fs::write(&recorded, WIDE.replace("}}", "}, \"index_width\": 32}")).unwrap();
    let out = spf(&["convert", "coo", "csr", s(&recorded), "--engine", "interp"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("the instance records 32-bit indices, but the symbol NC"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn convert_refuses_a_32_bit_run_that_does_not_fit_in_both_engines() {
    let dir = common::temp("cli-width", "convert");
    let wide = dir.join("wide.json");
    std::fs::write(&wide, WIDE).unwrap();
    for engine in ["native", "interp"] {
        let out = spf(&[
            "convert",
            "coo",
            "csr",
            s(&wide),
            "--index-width",
            "32",
            "--engine",
            engine,
        ]);
        assert_eq!(out.status.code(), Some(2), "{engine}");
        let err = text(&out.stderr);
        assert!(
            err.contains("the symbol NC is 3000000000: more than 32-bit indices hold"),
            "{engine}: {err}"
        );
        // auto converts it at 64 bits
        let out = spf(&["convert", "coo", "csr", s(&wide), "--engine", engine]);
        assert!(out.status.success(), "{engine}: {}", text(&out.stderr));
        assert!(text(&out.stdout).contains("2999999999"), "{engine}");
    }
}

#[test]
fn synth_prints_each_width() {
    for (emit, width, wanted) in [
        ("c", "32", "const int32_t *restrict col"),
        ("c", "64", "const int64_t *restrict col"),
        ("rust", "32", "col: &[i32]"),
        ("rust", "auto", "col: &[i64]"),
    ] {
        let out = spf(&[
            "synth",
            "coo",
            "csr",
            "--emit",
            emit,
            "--index-width",
            width,
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let code = text(&out.stdout);
        assert!(code.contains(wanted), "{emit} {width}: {code}");
    }
    let out = spf(&["synth", "coo", "csr", "--emit", "c", "--index-width", "16"]);
    assert_eq!(out.status.code(), Some(2));
}

/// `--pos-width` and `--crd-width` (MLIR's `posWidth` and `crdWidth`):
/// pointer arrays and coordinate arrays at their own widths in the printed
/// code, in both engines (one result), recorded in the instance written,
/// enforced when it is read; `spf build` takes one width and says so.
#[test]
fn positions_and_coordinates_take_their_own_widths() {
    let dir = common::temp("cli-width", "kinds");
    let mixed = ["--pos-width", "64", "--crd-width", "32"];
    let out = spf(&[&["synth", "coo", "dcsr", "--emit", "c"][..], &mixed[..]].concat());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let code = text(&out.stdout);
    for want in [
        "const int32_t *restrict row",
        "int32_t **rowidx,",
        "int64_t **rp,",
        "int32_t **col_out",
    ] {
        assert!(code.contains(want), "{want} not in\n{code}");
    }
    let matrix = test_data("matrices/jgl009.mtx");
    let mut results = Vec::new();
    for engine in ["native", "interp"] {
        let file = dir.join(format!("{engine}.json"));
        let args = [
            &["convert", "coo", "dcsr", s(&matrix), "-o", s(&file)][..],
            &["--engine", engine],
            &mixed[..],
        ]
        .concat();
        let out = spf(&args);
        assert!(out.status.success(), "{engine}: {}", text(&out.stderr));
        results.push(std::fs::read_to_string(&file).unwrap());
    }
    assert_eq!(results[0], results[1]);
    assert!(
        results[0].contains("\"index_width\": {\"positions\": 64, \"coordinates\": 32}"),
        "{}",
        results[0]
    );
    // Read back: the record is kept apart from the conversion's own widths.
    let back = dir.join("back.json");
    let out = spf(&[
        "convert",
        "dcsr",
        "coo",
        s(&dir.join("interp.json")),
        "-o",
        s(&back),
        "--engine",
        "interp",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // A record the sizes do not fit.
    let recorded = dir.join("recorded.json");
    let record = "}, \"index_width\": {\"positions\": 64, \"coordinates\": 32}}";
    std::fs::write(&recorded, WIDE.replace("}}", record)).unwrap();
    let out = spf(&["convert", "coo", "csr", s(&recorded), "--engine", "interp"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(
            "the instance records 64-bit positions and 32-bit coordinates, but the symbol NC"
        ),
        "{}",
        text(&out.stderr)
    );
    // spf build: one width.
    let bin = dir.join("mixed-build");
    let out = spf(&[&["build", "coo", "csr", "-o", s(&bin)][..], &mixed[..]].concat());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("spf build compiles one width"),
        "{}",
        text(&out.stderr)
    );
}
