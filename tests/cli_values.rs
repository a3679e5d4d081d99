//! Values keep their type through `spf convert`: a float32 scipy `.npz`
//! converts to every 2-D built-in format and back as float32, bit for
//! bit; int64 values beyond 2^53 convert exactly; the interpreter and the
//! compiled library agree; JSON records the value type; a Matrix Market
//! `integer` file reads as int64, exactly, and int64 values write as one.

mod common;

use std::io::Cursor;
use std::path::{Path, PathBuf};

use common::{s, spf, text};
use spf::synth::builtin::{builtin_names_of_order, load_format};
use spf::synth::instance::{Instance, ValueType, Values};
use spf::synth::npz::{read_npz, write_npz};
use spf::synth::oracle::entries;
use spf::synth::representable::Representable;
use spf::synth::tensor_io::Coordinates;

fn temp(test: &str) -> PathBuf {
    common::temp("cli-values", test)
}

fn read(path: &Path, format: &str) -> Instance {
    let bytes = std::fs::read(path).expect("readable");
    read_npz(Cursor::new(bytes), &load_format(format).expect("built-in")).expect("an instance")
}

/// A 6 × 5 matrix whose float32 values a double rounding or a trip
/// through `double` arithmetic would not all keep: tiny, huge, and ones
/// with every mantissa bit set.
fn coordinates() -> Coordinates {
    let values: [f32; 9] = [
        0.1,
        -7.25,
        1.0e-30,
        3.4e38,
        1.0 + f32::EPSILON,
        16_777_215.0,
        -0.333_333_34,
        2.5e-7,
        f32::MIN_POSITIVE,
    ];
    let at = [
        (0, 0),
        (0, 3),
        (1, 1),
        (2, 0),
        (2, 4),
        (3, 2),
        (4, 1),
        (5, 3),
        (5, 4),
    ];
    Coordinates {
        dims: vec![6, 5],
        entries: at
            .iter()
            .zip(values)
            .map(|(&(i, j), v)| (vec![i, j], f64::from(v)))
            .collect(),
    }
}

/// `c` as a float32 COO instance.
fn float32_coo(c: &Coordinates) -> Instance {
    let mut inst = Instance::from_coordinates(c);
    let a = inst.arrays["A"].to_reals();
    inst.arrays.insert(
        "A".into(),
        Values::Real32(a.iter().map(|&x| x as f32).collect()),
    );
    inst.value_type = ValueType::F32;
    inst
}

/// A COO instance's entries sorted by coordinate, each value exactly (its
/// bits, or the integer): what the oracle's entries are, without their
/// trip through doubles.
fn exact_entries(coo: &Instance) -> Vec<(i64, i64, u64)> {
    let ints = |name: &str| coo.arrays[name].as_ints().expect("indices").into_owned();
    let (row, col) = (ints("row"), ints("col"));
    let values: Vec<u64> = match &coo.arrays["A"] {
        Values::Real32(v) => v.iter().map(|x| u64::from(x.to_bits())).collect(),
        Values::Real(v) => v.iter().map(|x| x.to_bits()).collect(),
        ints => ints
            .as_ints()
            .expect("values")
            .iter()
            .map(|&x| x as u64)
            .collect(),
    };
    let mut out: Vec<_> = (0..row.len())
        .map(|k| (row[k], col[k], values[k]))
        .collect();
    out.sort_unstable();
    out
}

fn convert(args: &[&str]) {
    let out = spf(args);
    assert!(
        out.status.success(),
        "spf {}: {}",
        args.join(" "),
        text(&out.stderr)
    );
}

#[test]
fn float32_npz_converts_to_every_two_d_format_and_back_as_float32() {
    let dir = temp("float32");
    let coo = load_format("coo").expect("built-in");
    let formats = builtin_names_of_order(2);
    assert!(formats.len() >= 10, "{formats:?}");
    for name in formats {
        let d = load_format(name).expect("built-in");
        // What the format stores of the matrix (a skyline one triangle).
        let c = Representable::of(&d).restrict(&coordinates());
        let input = float32_coo(&c);
        let src = dir.join(format!("{name}.in.npz"));
        let mut bytes = Cursor::new(Vec::new());
        write_npz(&coo, &input, &mut bytes).expect("writes");
        std::fs::write(&src, bytes.into_inner()).expect("write");
        let mut again = read(&src, "coo");
        again.index_width = None;
        assert_eq!(again, input, "the float32 archive reads back");
        let (there, back) = (
            dir.join(format!("{name}.npz")),
            dir.join(format!("{name}.back.npz")),
        );
        let eng = ["--engine", "interp"];
        convert(
            &[
                &["convert", "coo", name, s(&src), "-o", s(&there)],
                &eng[..],
            ]
            .concat(),
        );
        convert(
            &[
                &["convert", name, "coo", s(&there), "-o", s(&back)],
                &eng[..],
            ]
            .concat(),
        );
        let mid = read(&there, name);
        assert_eq!(mid.value_type, ValueType::F32, "{name}");
        assert!(
            matches!(mid.arrays[&d.data_name], Values::Real32(_)),
            "{name} holds float32 values"
        );
        assert_eq!(
            entries(&d, &mid).expect("entries"),
            entries(&coo, &input).expect("entries"),
            "{name}: the entries"
        );
        let out = read(&back, "coo");
        assert_eq!(out.value_type, ValueType::F32, "{name}");
        assert!(
            matches!(out.arrays["A"], Values::Real32(_)),
            "{name}: back as float32"
        );
        assert_eq!(
            entries(&coo, &out).expect("entries"),
            entries(&coo, &input).expect("entries"),
            "{name}: back"
        );
        assert_eq!(
            exact_entries(&out),
            exact_entries(&input),
            "{name}: bit for bit"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The compiled library takes and returns the value arrays at their type:
/// its results equal the interpreter's, float32 and int64 alike.
#[test]
fn the_compiled_library_agrees_with_the_interpreter_at_every_value_type() {
    let dir = temp("engines");
    let c = coordinates();
    let float = float32_coo(&c);
    let mut int = Instance::from_coordinates(&c);
    // Beyond 2^53: a double would round them.
    let big: Vec<i64> = (0..c.entries.len() as i64)
        .map(|k| (1 << 60) + 2 * k + 1)
        .collect();
    int.arrays
        .insert("A".into(), Values::Int(big.clone().into()));
    int.value_type = ValueType::I64;
    for (input, what) in [(&float, "float32"), (&int, "int64")] {
        let src = dir.join(format!("{what}.json"));
        std::fs::write(&src, input.to_json()).expect("write");
        let read_json = |p: &Path| {
            Instance::from_json(&std::fs::read_to_string(p).expect("readable")).expect("json")
        };
        for dst in ["csr", "csc", "dia", "ell"] {
            let mut results = Vec::new();
            for engine in ["interp", "native"] {
                let out = dir.join(format!("{what}.{dst}.{engine}.json"));
                let back = dir.join(format!("{what}.{dst}.{engine}.back.json"));
                let e = ["--engine", engine];
                convert(&[&["convert", "coo", dst, s(&src), "-o", s(&out)], &e[..]].concat());
                convert(&[&["convert", dst, "coo", s(&out), "-o", s(&back)], &e[..]].concat());
                let (there, back) = (read_json(&out), read_json(&back));
                assert_eq!(there.value_type, input.value_type, "{what} {dst} {engine}");
                assert_eq!(back.value_type, input.value_type, "{what} {dst} {engine}");
                // Back to COO: the input's entries, exactly.
                let coo = load_format("coo").expect("built-in");
                assert_eq!(
                    entries(&coo, &back).expect("entries"),
                    entries(&coo, input).expect("entries"),
                    "{what} through {dst} ({engine})"
                );
                assert_eq!(
                    exact_entries(&back),
                    exact_entries(input),
                    "{what} through {dst} ({engine}), exactly"
                );
                results.push(there);
            }
            assert_eq!(results[0].arrays, results[1].arrays, "{what} {dst}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn json_instances_record_their_value_type() {
    let c = coordinates();
    let float = float32_coo(&c);
    let json = float.to_json();
    assert!(json.contains("\"value_type\": \"float32\""), "{json}");
    assert_eq!(Instance::from_json(&json).expect("reads"), float);
    let mut int = Instance::from_coordinates(&c);
    int.arrays.insert(
        "A".into(),
        Values::Int(vec![i64::MAX - 1; c.entries.len()].into()),
    );
    int.value_type = ValueType::I64;
    let json = int.to_json();
    assert!(json.contains(&(i64::MAX - 1).to_string()), "{json}");
    assert_eq!(Instance::from_json(&json).expect("reads"), int);
    // Absent, the values are float64; a type spf does not know is refused.
    let plain = Instance::from_coordinates(&c);
    assert!(!plain.to_json().contains("value_type"));
    let bad = json.replace("\"int64\"", "\"float16\"");
    let e = Instance::from_json(&bad).expect_err("refused");
    assert!(e.to_string().contains("value_type"), "{e}");
}

/// A Matrix Market `integer` file reads as int64 values, exactly beyond
/// 2^53: into an `.npz` (int64 `data`) and JSON (`"value_type": "int64"`),
/// and back to `.mtx` as an `integer` file with the same integers; a
/// value that is not an integer, or beyond int64, is refused where it is.
#[test]
fn integer_matrix_market_files_keep_exact_int64_values() {
    let dir = temp("mtx-integer");
    let big = (1i64 << 60) + 3;
    let src = dir.join("int.mtx");
    std::fs::write(
        &src,
        format!(
            "%%MatrixMarket matrix coordinate integer general\n3 4 4\n1 1 {big}\n2 4 -{big}\n\
             3 2 9007199254740993\n3 2 -2\n"
        ),
    )
    .expect("write");
    let want: Vec<(i64, i64, u64)> = {
        let mut w = vec![
            (0, 0, big as u64),
            (1, 3, (-big) as u64),
            (2, 1, 9_007_199_254_740_991u64),
        ];
        w.sort_unstable();
        w
    };
    let (npz, json, back) = (dir.join("x.npz"), dir.join("x.json"), dir.join("back.mtx"));
    convert(&["convert", "coo", "csr", s(&src), "-o", s(&npz)]);
    let csr = read(&npz, "csr");
    assert_eq!(csr.value_type, ValueType::I64);
    assert!(matches!(csr.arrays["A"], Values::Int(_)), "int64 data");
    convert(&["convert", "coo", "csr", s(&src), "-o", s(&json)]);
    let text_json = std::fs::read_to_string(&json).expect("readable");
    assert!(
        text_json.contains("\"value_type\": \"int64\""),
        "{text_json}"
    );
    assert_eq!(Instance::from_json(&text_json).expect("json"), csr);
    convert(&["convert", "csr", "coo", s(&json), "-o", s(&back)]);
    let written = std::fs::read_to_string(&back).expect("readable");
    assert!(
        written.starts_with("%%MatrixMarket matrix coordinate integer general\n"),
        "{written}"
    );
    let again = dir.join("again.npz");
    convert(&["convert", "coo", "coo", s(&back), "-o", s(&again)]);
    assert_eq!(exact_entries(&read(&again, "coo")), want, "{written}");
    for (body, line_col, why) in [
        ("1 1 1.5", "3:5", "is not an integer"),
        (
            "1 1 9223372036854775808",
            "3:5",
            "does not fit in a 64-bit integer",
        ),
    ] {
        let bad = dir.join("bad.mtx");
        std::fs::write(
            &bad,
            format!("%%MatrixMarket matrix coordinate integer general\n3 3 1\n{body}\n"),
        )
        .expect("write");
        let out = spf(&["convert", "coo", "csr", s(&bad), "-o", s(&json)]);
        let e = text(&out.stderr);
        assert!(!out.status.success(), "{body}");
        assert!(
            e.contains(&format!("bad.mtx:{line_col}: ")) && e.contains(why),
            "{e}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
