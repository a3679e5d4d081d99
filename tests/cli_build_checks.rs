//! A built program checks a JSON instance exactly as `spf convert` does:
//! a differential test of the C checks `spf build` prints
//! (`drv_check_source` and `drv_check_rules`) against the validator
//! (`synth::instance_validation::validate`), on valid instances of every built-in
//! format and on systematic one-number mutations of them. Every instance
//! the validator refuses, the program refuses with exit status 2 and no
//! output file; every instance it accepts, the program converts, and the
//! result holds the input's entries.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{on_every_processor, s, spf, temp, text};
use spf::synth::builtin::{builtin_names_of_order, coordinate_format_name, load_format};
use spf::synth::instance::{Instance, Values};
use spf::synth::instance_validation::validate;
use spf::synth::oracle;
use spf::synth::synthesize::synthesize;
use spf::synth::tensor_io::Coordinates;

/// Small tensors with empty rows and columns, repeated rows and columns
/// (so that sorted and unique rules have something to break), and values
/// that are all distinct.
fn tensors(order: usize) -> Vec<Coordinates> {
    let e = |c: &[i64], v: f64| (c.to_vec(), v);
    if order == 2 {
        vec![
            Coordinates {
                dims: vec![4, 5],
                entries: vec![
                    e(&[0, 1], 1.0),
                    e(&[0, 3], 2.0),
                    e(&[2, 0], 3.0),
                    e(&[2, 2], 4.0),
                    e(&[2, 4], 5.0),
                    e(&[3, 3], 6.0),
                ],
            },
            Coordinates {
                dims: vec![3, 3],
                entries: vec![e(&[1, 1], 7.0), e(&[1, 2], 8.0), e(&[2, 1], 9.0)],
            },
        ]
    } else {
        vec![Coordinates {
            dims: vec![3, 2, 4],
            entries: vec![
                e(&[0, 0, 1], 1.0),
                e(&[0, 1, 3], 2.0),
                e(&[2, 0, 0], 3.0),
                e(&[2, 0, 2], 4.0),
                e(&[2, 1, 2], 5.0),
            ],
        }]
    }
}

/// Every instance one number away from `inst`: each symbol changed by ±1
/// or set to 0 or -1, each of the first elements of each array changed by
/// ±1 or set to 0, and each pair of neighbouring elements swapped.
fn mutants(inst: &Instance) -> Vec<Instance> {
    let mut out = Vec::new();
    for (name, &value) in &inst.symbols {
        for new in [value - 1, value + 1, 0, -1] {
            if new != value {
                let mut m = inst.clone();
                m.symbols.insert(name.clone(), new);
                out.push(m);
            }
        }
    }
    for name in inst.arrays.keys() {
        let len = inst.arrays[name].len();
        for k in 0..len.min(12) {
            for change in 0..4 {
                let mut m = inst.clone();
                let changed = match m.arrays.get_mut(name).expect("listed") {
                    Values::Int(v) => edit(v.to_mut(), k, change, |x, d| x + d, 0),
                    Values::Int32(v) => edit(v.to_mut(), k, change, |x, d| x + d as i32, 0),
                    Values::Real(v) => edit(v.to_mut(), k, change, |x, d| x + d as f64, 0.0),
                    Values::Real32(v) => edit(v.to_mut(), k, change, |x, d| x + d as f32, 0.0),
                };
                if changed {
                    out.push(m);
                }
            }
        }
    }
    out
}

/// Change `change` (0: +1, 1: -1, 2: set to zero, 3: swap with the next)
/// at `k`; whether anything changed.
fn edit<T: Copy + PartialEq>(
    v: &mut [T],
    k: usize,
    change: usize,
    add: impl Fn(T, i64) -> T,
    zero: T,
) -> bool {
    let old = v[k];
    match change {
        0 => v[k] = add(old, 1),
        1 => v[k] = add(old, -1),
        2 => v[k] = zero,
        _ if k + 1 < v.len() => v.swap(k, k + 1),
        _ => return false,
    }
    v[k] != old || (change == 3 && v[k + 1] != old)
}

fn build(dir: &Path, src: &str, dst: &str) -> PathBuf {
    let bin = dir.join(format!("{src}_{dst}"));
    let out = spf(&["build", src, dst, "-o", s(&bin)]);
    assert!(
        out.status.success(),
        "spf build {src} {dst}: {}",
        text(&out.stderr)
    );
    bin
}

#[test]
fn built_programs_accept_exactly_what_the_validator_accepts() {
    let dir = temp("cli_build_checks", "differential");
    let formats: Vec<(usize, &str)> = [2, 3]
        .into_iter()
        .flat_map(|order| {
            builtin_names_of_order(order)
                .into_iter()
                .map(move |n| (order, n))
        })
        .collect();
    // Each format's program built and run on every processor: (checked,
    // refused) per format.
    let counts = on_every_processor(formats.len(), |k| {
        let (order, name) = formats[k];
        differential(&dir, order, name)
    });
    let checked: usize = counts.iter().map(|c| c.0).sum();
    let refused: usize = counts.iter().map(|c| c.1).sum();
    // The mutations must exercise both verdicts.
    assert!(refused > checked / 4, "{refused} of {checked} refused");
    assert!(refused < checked, "{refused} of {checked} refused");
}

/// The program of built-in format `name` (of `order` dimensions) run on
/// valid instances and their mutants, each verdict the validator's:
/// (instances checked, instances refused).
fn differential(dir: &Path, order: usize, name: &str) -> (usize, usize) {
    let coo_name = coordinate_format_name(order).expect("a coordinate format");
    let coo = load_format(coo_name).expect("built-in");
    let (mut checked, mut refused) = (0, 0);
    let f = load_format(name).expect("built-in");
    let dst = if name.eq_ignore_ascii_case(coo_name) {
        builtin_names_of_order(order)
            .into_iter()
            .find(|n| !n.eq_ignore_ascii_case(coo_name))
            .expect("another format")
    } else {
        coo_name
    };
    let dst_format = load_format(dst).expect("built-in");
    let bin = build(dir, name, dst);
    let make = synthesize(&coo, &f).expect("a conversion from coordinates");
    let storable = spf::synth::representable::Representable::of(&f);
    for t in tensors(order) {
        let t = storable.restrict(&t);
        let valid = make.run(&Instance::from_coordinates(&t)).expect("converts");
        validate(&f, &valid).expect("the conversion's output is valid");
        for (k, inst) in std::iter::once(valid.clone())
            .chain(mutants(&valid))
            .enumerate()
        {
            let input = dir.join(format!("{name}_{k}.json"));
            let output = dir.join(format!("{name}_{k}.out.json"));
            std::fs::write(&input, inst.to_json()).expect("written");
            let _ = std::fs::remove_file(&output);
            let run = Command::new(&bin)
                .args([s(&input), "-o", s(&output)])
                .output()
                .expect("runs");
            let verdict = validate(&f, &inst);
            let why = format!(
                "{name} -> {dst}, instance {}: validator {verdict:?}, program exit {:?}: {}",
                inst.to_json(),
                run.status.code(),
                text(&run.stderr)
            );
            checked += 1;
            match verdict {
                Ok(()) => {
                    assert_eq!(run.status.code(), Some(0), "{why}");
                    let got =
                        Instance::from_json(&std::fs::read_to_string(&output).expect("an output"))
                            .expect("JSON");
                    validate(&dst_format, &got).expect("a valid output");
                    assert_eq!(
                        oracle::entries(&dst_format, &got).expect("entries"),
                        oracle::entries(&f, &inst).expect("entries"),
                        "{why}"
                    );
                }
                Err(_) => {
                    refused += 1;
                    assert_eq!(run.status.code(), Some(2), "{why}");
                    assert!(!output.exists(), "{why}: an output was written");
                    assert!(!text(&run.stderr).contains("internal error"), "{why}");
                }
            }
        }
    }
    (checked, refused)
}

#[test]
fn unchecked_skips_the_rules_but_not_the_ranges() {
    let dir = temp("cli_build_checks", "unchecked");
    let bin = build(&dir, "csr", "csc");
    let input = dir.join("repeated.json");
    // Row 0 stores column 1 twice: the rule of sorted columns fails.
    std::fs::write(
        &input,
        r#"{"format": "CSR", "symbols": {"NR": 2, "NC": 3, "NNZ": 3},
            "arrays": {"rowptr": [0, 2, 3], "col": [1, 1, 0], "A": [1.0, 2.0, 3.0]}}"#,
    )
    .expect("written");
    let checked = Command::new(&bin).arg(s(&input)).output().expect("runs");
    assert_eq!(checked.status.code(), Some(2));
    let err = text(&checked.stderr);
    assert!(err.contains("rule `forall i, k1, k2"), "{err}");
    assert!(
        err.contains("does not hold at i = 0, k1 = 0, k2 = 1"),
        "{err}"
    );
    let unchecked = Command::new(&bin)
        .args([s(&input), "--unchecked"])
        .output()
        .expect("runs");
    assert_eq!(
        unchecked.status.code(),
        Some(0),
        "{}",
        text(&unchecked.stderr)
    );
    // A column outside the matrix is a range error, checked always.
    std::fs::write(
        &input,
        r#"{"format": "CSR", "symbols": {"NR": 2, "NC": 3, "NNZ": 3},
            "arrays": {"rowptr": [0, 2, 3], "col": [1, 5, 0], "A": [1.0, 2.0, 3.0]}}"#,
    )
    .expect("written");
    let range = Command::new(&bin)
        .args([s(&input), "--unchecked"])
        .output()
        .expect("runs");
    assert_eq!(range.status.code(), Some(2));
    assert!(
        text(&range.stderr).contains("outside its range"),
        "{}",
        text(&range.stderr)
    );
}
