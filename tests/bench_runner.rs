//! The bench's runner end to end at a tiny scale, with the `spf` command
//! this package's tests are built with: converters built with `spf build`,
//! every baseline measured and verified, ratios in well-formed JSON. (Here
//! rather than in bench/tests, which has no `spf` binary of its own: a test
//! there that built one with cargo would build the workspace a second time
//! in another profile.)

use std::path::PathBuf;

use bench::runner::{self, Config, Outcome};
use bench::spf::Spf;
use bench::{report, Baseline, Conversion};

/// The `spf` command cargo built for these tests.
fn spf() -> Spf {
    Spf {
        exe: PathBuf::from(env!("CARGO_BIN_EXE_spf")),
    }
}

fn config(work: PathBuf, matrices: &[&str], conversions: &[Conversion]) -> Config {
    Config {
        scale: 0.0005,
        repeat: 1,
        min_time: 0.0,
        rounds: 2,
        seed: 42,
        matrices: matrices.iter().map(|s| s.to_string()).collect(),
        conversions: conversions.to_vec(),
        work_dir: work,
        spf: spf(),
        python: None,
        max_padding: 16.0,
        progress: false,
        index_width: spf::codegen::width::IndexWidth::W32,
    }
}

#[test]
fn runs_end_to_end_with_ratios_in_json() {
    let dir = tempfile::tempdir().unwrap();
    // Every conversion: each builds its converter with its paired C
    // baseline (bench/c/paired), whose parameters must match the generated
    // function's.
    let convs = Conversion::ALL;
    let cfg = config(dir.path().join("work"), &["ecology1", "darpa"], &convs);
    let results = runner::run(&cfg).unwrap();
    // ecology1 gets every matrix conversion, darpa every tensor one.
    assert_eq!(
        results.rows.len(),
        Conversion::ALL.len(),
        "{:?}",
        results.skipped
    );
    for row in &results.rows {
        assert!(
            matches!(row.spf, Outcome::Time(_)),
            "spf {} {}: {:?}",
            row.conversion,
            row.matrix,
            row.spf
        );
        assert!(row.input_bytes > 0 && row.output_bytes > 0);
        for (b, o) in &row.baselines {
            assert!(
                matches!(o, Outcome::Time(_)),
                "{b} {} {}: {o:?}",
                row.conversion,
                row.matrix
            );
            assert!(row.ratio(*b).unwrap() > 0.0);
        }
        // The C ran in the converter's program, as often as the generated
        // code.
        let c = &row
            .baselines
            .iter()
            .find(|(b, _)| *b == Baseline::C)
            .unwrap()
            .1;
        match (&row.spf, c) {
            (Outcome::Time(ours), Outcome::Time(theirs)) => assert_eq!(ours.runs, theirs.runs),
            other => panic!("{other:?}"),
        }
        let names: Vec<Baseline> = row.baselines.iter().map(|(b, _)| *b).collect();
        let mut expected = row.conversion.baselines();
        expected.retain(|b| *b != Baseline::Scipy);
        assert_eq!(names, expected);
    }
    assert!(results.notes.iter().any(|n| n.contains("scipy")));

    let out = dir.path().join("out");
    let written = report::write_all(&results, &out).unwrap();
    assert!(written.iter().any(|p| p.ends_with("summary.md")));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), Conversion::ALL.len());
    let csr_csc = rows.iter().find(|r| r["conversion"] == "csr_csc").unwrap();
    for b in ["c", "sprs", "nalgebra", "memcpy"] {
        let ratio = csr_csc["baselines"][b]["ratio"].as_f64().unwrap();
        let median = csr_csc["baselines"][b]["median_seconds"].as_f64().unwrap();
        let ours = csr_csc["spf"]["median_seconds"].as_f64().unwrap();
        assert!(
            (ratio - median / ours).abs() <= 1e-9 * ratio.max(1.0),
            "{b}"
        );
    }
    let summary = json["summary"].as_array().unwrap();
    assert!(summary
        .iter()
        .any(|s| s["conversion"] == "coo3d_mcoo3" && s["baseline"] == "c"));
    let svg = std::fs::read_to_string(out.join("csr_csc.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("geomean"));
    let csv = std::fs::read_to_string(out.join("coo_csr.csv")).unwrap();
    assert!(csv.starts_with("matrix,nnz,input_bytes,output_bytes,spf_seconds,c_seconds,c_ratio"));
    assert_eq!(csv.lines().count(), 2);
}

#[test]
fn padded_destinations_of_unbanded_matrices_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path().join("work"),
        &["webbase-1M"],
        &[Conversion::CooDia],
    );
    let results = runner::run(&cfg).unwrap();
    assert!(results.rows.is_empty());
    assert_eq!(results.skipped.len(), 1);
    assert!(results.skipped[0].reason.contains("diagonals"));
}
