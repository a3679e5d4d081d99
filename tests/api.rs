//! The library's entry points (`spf::Format`, `Instance`, `Converter`,
//! `read`, `write`, `check`) on good input and on the bad input the
//! command's tests use: every bad input is an `Err` of the variant a
//! caller matches, with the message the command prints, never a panic.

use std::path::{Path, PathBuf};

use spf::{Converter, Engine, Error, Format, Instance, Options};

mod common;

use common::bad_inputs::{bad_inputs, BadInput, Kind, BANNER};

fn temp(test: &str) -> PathBuf {
    common::temp("api", test)
}

fn format(name: &str) -> Format {
    Format::builtin(name).expect("a built-in format")
}

/// Reads `input` as `src` and converts it to `dst`: the first error.
fn read_and_convert(src: &str, dst: &str, input: &Path) -> Result<Instance, Error> {
    let (s, d) = (format(src), format(dst));
    let a = spf::read(input, &s)?;
    Converter::new(&s, &d, &Options::default())?.convert(&a)
}

#[test]
fn bad_files_are_errors_with_the_commands_messages() {
    let dir = temp("files");
    let file = |name: &str, body: &str| {
        let p = dir.join(name);
        std::fs::write(&p, body).expect("write");
        p
    };
    // The command's bad inputs, and two its tests meet elsewhere.
    let mut cases = bad_inputs(&dir);
    let huge = format!("{BANNER}1099511627776 1099511627776 1\n1 1 1.0\n");
    let more = [
        (
            "bad.json",
            "{\"format\": \"COO\", ",
            "csr",
            "bad.json:1:",
            Kind::Located,
        ),
        (
            "huge.mtx",
            huge.as_str(),
            "dia",
            "too large",
            Kind::TooLarge,
        ),
    ];
    for (name, body, dst, message, kind) in more {
        cases.push(BadInput {
            src: "coo",
            dst,
            input: file(name, body),
            message,
            kind,
        });
    }
    for BadInput {
        src,
        dst,
        input,
        message,
        kind,
    } in cases
    {
        let e = read_and_convert(src, dst, &input).expect_err(message);
        let matches = matches!(
            (kind, &e),
            (Kind::Located, Error::Located { .. })
                | (Kind::Input, Error::Input { .. })
                | (Kind::Unstorable, Error::Unstorable(_))
                | (Kind::TooLarge, Error::TooLarge(_))
        );
        assert!(matches, "{src} -> {dst} on {}: {e:?}", input.display());
        assert!(e.to_string().contains(message), "{e}");
        // The command prints the same message.
        let out = common::spf(&["convert", src, dst, common::s(&input)]);
        assert_eq!(out.status.code(), Some(2));
        let err = common::text(&out.stderr);
        assert!(err.contains(message), "{err}");
    }
    let missing = dir.join("missing.mtx");
    let e = read_and_convert("coo", "csr", &missing).unwrap_err();
    assert!(matches!(e, Error::Read { .. }), "{e:?}");
    assert!(e.to_string().contains("missing.mtx"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_formats_are_errors() {
    let e = Format::builtin("csx").unwrap_err();
    assert!(matches!(e, Error::Format(_)), "{e:?}");
    assert!(e.to_string().contains("did you mean `csr`"), "{e}");
    let e = Format::from_file("no/such/format.desc").unwrap_err();
    assert!(matches!(e, Error::Read { .. }), "{e:?}");
    let e = Format::parse("format X {\n  dense [N];\n  map oops\n}").unwrap_err();
    assert!(matches!(e, Error::Located { .. }), "{e:?}");
    assert!(e.to_string().starts_with("<descriptor>:4:1: "), "{e}");
    // A descriptor z3 rejects is refused before synthesis.
    let nonunique = Format::from_file(common::test_data("descriptors/nonunique.desc")).unwrap();
    let e = Converter::new(&nonunique, &format("coo"), &Options::default())
        .err()
        .expect("refused");
    assert!(matches!(e, Error::Format(_)), "{e:?}");
    assert!(e.to_string().contains("not a well-formed format"), "{e}");
    let report = spf::check(&nonunique).expect("a report");
    assert!(!report.holds() && report.errors() > 0, "{report}");
    // A pair validation refuses, with no route either, names the tensor
    // it gets wrong.
    let pairs = Format::from_file(common::test_data("descriptors/csr_pairs.desc")).unwrap();
    let e = Converter::new(&pairs, &format("coo"), &Options::default())
        .err()
        .expect("refused");
    assert!(matches!(e, Error::Refused { .. }), "{e:?}");
    assert!(e.to_string().contains("%%MatrixMarket"), "{e}");
    assert!(e.to_string().contains("no built-in format converts"), "{e}");
}

#[test]
fn a_pair_without_a_direct_conversion_converts_through_a_builtin() {
    let rcsr = Format::from_file(common::test_data("descriptors/rcsr.desc")).unwrap();
    let (coo, jad) = (format("coo"), format("jad"));
    let to_jad = Converter::new(&rcsr, &jad, &Options::default()).expect("routed");
    assert_eq!(to_jad.via().map(Format::name), Some("COO"));
    assert!(Converter::new(&coo, &jad, &Options::default())
        .expect("direct")
        .via()
        .is_none());
    let a = spf::read(common::test_data("matrices/jgl009.mtx"), &rcsr).expect("read");
    let b = to_jad.convert(&a).expect("converted");
    assert_eq!(b.format(), &jad);
    assert_eq!(b.entries().unwrap(), a.entries().unwrap());
    let report = spf::check(&rcsr).expect("a report");
    assert!(report.holds(), "{report}");
    assert_eq!(report.routed_pairs(), 1, "{report}");
}

#[test]
fn bad_instances_are_errors_naming_the_array() {
    let csr = format("csr");
    let build = |col: Vec<i64>| {
        Instance::builder(&csr)
            .symbol("NR", 2)
            .symbol("NC", 2)
            .symbol("NNZ", 2)
            .array("rowptr", vec![0i64, 1, 2])
            .array("col", col)
            .array("A", vec![1.0, 2.0])
            .build()
    };
    assert!(build(vec![1, 0]).is_ok());
    let e = build(vec![1, 7]).unwrap_err();
    assert!(matches!(e, Error::Invalid { .. }), "{e:?}");
    assert!(
        e.to_string().contains("col(1) = 7 is outside its range"),
        "{e}"
    );
    let e = Instance::builder(&csr).symbol("NR", 2).build().unwrap_err();
    assert!(matches!(e, Error::Invalid { .. }), "{e:?}");
    // An instance of another format is refused by a converter.
    let to_coo = Converter::new(&format("csc"), &format("coo"), &Options::default()).unwrap();
    let e = to_coo.convert(&build(vec![1, 0]).unwrap()).unwrap_err();
    assert!(
        e.to_string().contains("takes CSC instances, not CSR"),
        "{e}"
    );
}

#[test]
fn bad_outputs_are_errors_and_good_ones_read_back() {
    let dir = temp("outputs");
    let coo = format("coo");
    let a = spf::read(common::test_data("matrices/jgl009.mtx"), &coo).unwrap();
    let e = spf::write(dir.join("out.xyz"), &a).unwrap_err();
    assert!(matches!(e, Error::Usage(_)), "{e:?}");
    let e = spf::write(dir.join("no/such/dir/out.json"), &a).unwrap_err();
    assert!(matches!(e, Error::Write { .. }), "{e:?}");
    for name in ["out.json", "out.npz", "out.mtx", "out.mtx.gz"] {
        let path = dir.join(name);
        spf::write(&path, &a).unwrap();
        let back = spf::read(&path, &coo).unwrap();
        assert_eq!(back.entries().unwrap(), a.entries().unwrap(), "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// One converter, eight threads, the interpreter and the compiled engine:
/// every result stores its input's entries. The compiled calls overlap
/// (each thread converts ten times, inputs of thousands of entries): the
/// compiled libraries keep a call's state in statics, which the engine
/// must not let two threads share.
#[test]
fn a_converter_serves_threads_and_engines_agree() {
    let (coo, csr) = (format("coo"), format("csr"));
    let dir = temp("threads");
    let cache = dir.join("cache");
    let native = Options {
        engine: Engine::Native,
        cache_dir: Some(cache),
        ..Options::default()
    };
    let interp = Options {
        engine: Engine::Interp,
        ..Options::default()
    };
    let cc = std::process::Command::new("cc").arg("--version").output();
    let missing = (!cc.is_ok_and(|o| o.status.success())).then(|| "a C compiler (cc)".to_string());
    let native = if common::report::require("the compiled engine", missing) {
        Some(Converter::new(&coo, &csr, &native).unwrap())
    } else {
        None
    };
    let interp = Converter::new(&coo, &csr, &interp).unwrap();
    let inputs: Vec<Instance> = (1..=8i64)
        .map(|k| {
            let n = 700 * k + 3;
            let entries: Vec<(i64, i64)> = (0..n).map(|i| ((i * 7 + k) % n, (i * 5) % n)).collect();
            Instance::builder(&coo)
                .symbol("NR", n)
                .symbol("NC", n)
                .symbol("NNZ", n)
                .array("row", entries.iter().map(|e| e.0).collect::<Vec<i64>>())
                .array("col", entries.iter().map(|e| e.1).collect::<Vec<i64>>())
                .array("A", (1..=n).map(|v| v as f64).collect::<Vec<f64>>())
                .build()
                .unwrap()
        })
        .collect();
    std::thread::scope(|scope| {
        for a in &inputs {
            let (native, interp) = (native.as_ref(), &interp);
            scope.spawn(move || {
                let want = a.entries().unwrap();
                let b = interp.convert(a).unwrap();
                assert_eq!(b.entries().unwrap(), want);
                if let Some(native) = native {
                    for _ in 0..10 {
                        let c = native.convert(a).unwrap();
                        assert_eq!(c, b);
                    }
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// A float32 (and an int64) value array keeps its type through a
/// conversion in memory, in both engines.
#[test]
fn values_keep_their_type_through_the_api() {
    let (csr, csc) = (format("csr"), format("csc"));
    let build = |values: spf::Array| {
        Instance::builder(&csr)
            .symbol("NR", 2)
            .symbol("NC", 3)
            .symbol("NNZ", 3)
            .array("rowptr", vec![0i32, 2, 3])
            .array("col", vec![0i32, 2, 1])
            .array("A", values)
            .build()
            .unwrap()
    };
    let f32s = build(vec![0.1f32, 1e-40, -3.5].into());
    let i64s = build(vec![(1i64 << 60) + 1, -7, 3].into());
    for engine in [Engine::Interp, Engine::Auto] {
        let options = Options {
            engine,
            ..Options::default()
        };
        let to_csc = Converter::new(&csr, &csc, &options).unwrap();
        let b = to_csc.convert(&f32s).unwrap();
        assert_eq!(b.value_type(), spf::ValueType::F32);
        assert_eq!(b.array("A"), Some(spf::ArrayRef::F32(&[0.1, -3.5, 1e-40])));
        let c = to_csc.convert(&i64s).unwrap();
        assert_eq!(c.value_type(), spf::ValueType::I64);
        assert_eq!(
            c.array("A"),
            Some(spf::ArrayRef::I64(&[(1 << 60) + 1, 3, -7]))
        );
    }
}

/// NaN and infinities through the library: an instance holding them is
/// refused unless built with `allow_nonfinite`, a converter converts them
/// only with `Options::allow_nonfinite` (NaN where the input has NaN),
/// `read_with` reads them from a `.mtx`, `write` keeps them in `.npz` and
/// refuses JSON.
#[test]
fn nonfinite_values_pass_only_when_allowed() {
    let (coo, csr) = (format("coo"), format("csr"));
    let build = |allow: bool| {
        Instance::builder(&coo)
            .symbol("NR", 2)
            .symbol("NC", 3)
            .symbol("NNZ", 3)
            .array("row", vec![1i64, 0, 1])
            .array("col", vec![0i64, 2, 2])
            .array("A", vec![f64::NAN, f64::INFINITY, -1.5])
            .allow_nonfinite(allow)
            .build()
    };
    let refused = build(false).unwrap_err();
    assert!(matches!(refused, Error::Invalid { .. }), "{refused}");
    assert!(
        refused.to_string().contains("--allow-nonfinite"),
        "{refused}"
    );
    let a = build(true).expect("accepted");
    let strict = Converter::new(&coo, &csr, &Options::default()).expect("synthesized");
    assert!(strict
        .convert(&a)
        .unwrap_err()
        .to_string()
        .contains("not a finite number"));
    let allowing = Options {
        allow_nonfinite: true,
        ..Options::default()
    };
    let to_csr = Converter::new(&coo, &csr, &allowing).expect("synthesized");
    let b = to_csr.convert(&a).expect("converted");
    let shown = |i: &Instance| -> Vec<(Vec<i64>, String)> {
        let e = i.entries().expect("entries");
        e.into_iter().map(|(c, v)| (c, v.to_string())).collect()
    };
    assert_eq!(shown(&b), shown(&a));
    assert_eq!(shown(&b)[0], (vec![0, 2], "inf".to_string()));
    assert_eq!(shown(&b)[1], (vec![1, 0], "NaN".to_string()));
    let dir = temp("nonfinite");
    let npz = dir.join("b.npz");
    spf::write(&npz, &b).expect("written");
    assert!(spf::read(&npz, &csr).is_err());
    assert_eq!(
        shown(&spf::read_with(&npz, &csr, &allowing).expect("read")),
        shown(&a)
    );
    let json = dir.join("b.json");
    let e = spf::write(&json, &b).unwrap_err();
    assert!(
        matches!(e, Error::Input { .. }) && e.to_string().contains("JSON"),
        "{e}"
    );
    assert!(!json.exists());
    let mtx = dir.join("b.mtx");
    spf::write(&mtx, &b).expect("written");
    assert!(spf::read(&mtx, &csr).is_err());
    assert_eq!(
        shown(&spf::read_with(&mtx, &csr, &allowing).expect("read")),
        shown(&a)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
