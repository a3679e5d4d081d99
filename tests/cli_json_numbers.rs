//! JSON numbers read exactly on every path: `spf convert`, `spf dump` and
//! the programs `spf build` makes read a real as the double nearest to its
//! text (`str::parse::<f64>`, which rounds correctly, is the reference),
//! and write it so that it reads back as the same double.

use std::path::Path;
use std::process::Command;

use spf::synth::instance::{Instance, Values};
use spf::synth::tensor_io::read_file;

mod common;

use common::{s, spf, text};

#[path = "../synth/tests/support/json_texts.rs"]
mod json_texts;
use json_texts::{instance_text, texts};

fn reals(path: &Path, name: &str) -> Vec<f64> {
    let i = Instance::from_json(&std::fs::read_to_string(path).expect("written")).expect("JSON");
    match &i.arrays[name] {
        Values::Real(v) => v.to_vec(),
        other => panic!("{name}: {other:?}"),
    }
}

/// The values given, in the order of the rows (one entry a row).
fn assert_exact(what: &str, texts: &[String], got: &[f64]) {
    assert_eq!(got.len(), texts.len(), "{what}");
    let wrong: Vec<String> = texts
        .iter()
        .zip(got)
        .filter(|(t, g)| t.parse::<f64>().unwrap().to_bits() != g.to_bits())
        .map(|(t, g)| format!("{t} read as {g:e}"))
        .take(3)
        .collect();
    assert!(wrong.is_empty(), "{what}: {wrong:?}");
}

/// A COO instance in `dir` with the JSON text `json`.
fn instance_file(dir: &Path, name: &str, json: &str) -> std::path::PathBuf {
    let input = dir.join(name);
    std::fs::write(&input, json).unwrap();
    input
}

/// `spf convert coo csr INPUT -o DIR/convert.json` and a program of `spf
/// build coo csr` run on INPUT with `-o DIR/program.json`: both results.
fn convert_and_program(dir: &Path, input: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let converted = dir.join("convert.json");
    let out = spf(&["convert", "coo", "csr", s(input), "-o", s(&converted)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let bin = dir.join("coo_csr");
    let out = spf(&["build", "coo", "csr", "-o", s(&bin)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let programmed = dir.join("program.json");
    let out = Command::new(&bin)
        .args([s(input), "-o", s(&programmed)])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    (converted, programmed)
}

#[test]
fn a_least_subnormal_entry_is_kept() {
    let dir = common::temp("cli-json-numbers", "subnormal");
    let input = instance_file(
        &dir,
        "a.json",
        r#"{"format":"COO","symbols":{"NR":2,"NC":3,"NNZ":2},"arrays":{"row":[0,1],"col":[2,0],"A":[2.4703282292062328e-324,1]}}"#,
    );
    let mtx = dir.join("o.mtx");
    let out = spf(&["convert", "coo", "csr", s(&input), "-o", s(&mtx)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let c = read_file(&mtx, None).unwrap();
    assert_eq!(
        c.entries,
        vec![(vec![0, 2], 5e-324), (vec![1, 0], 1.0)],
        "{}",
        std::fs::read_to_string(&mtx).unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn convert_dump_and_built_programs_read_every_real_exactly() {
    let dir = common::temp("cli-json-numbers", "every");
    // Zeros are stored entries too; COO -> CSR keeps every entry, in the
    // order of the rows.
    let texts = texts(400);
    assert!(texts.len() > 2_500, "{}", texts.len());
    let input = instance_file(&dir, "in.json", &instance_text(&texts));
    let (converted, programmed) = convert_and_program(&dir, &input);
    assert_exact("spf convert", &texts, &reals(&converted, "A"));
    assert_exact("the built program", &texts, &reals(&programmed, "A"));

    let dumped = dir.join("dump.mtx");
    let out = spf(&["dump", "coo", s(&input), "-o", s(&dumped)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut c = read_file(&dumped, None).unwrap();
    c.entries.sort_by_key(|e| e.0.clone());
    let nonzero: Vec<String> = texts
        .iter()
        .filter(|t| t.parse::<f64>().unwrap() != 0.0)
        .cloned()
        .collect();
    let dumped_values: Vec<f64> = c
        .entries
        .iter()
        .map(|e| e.1)
        .filter(|v| *v != 0.0)
        .collect();
    assert_exact("spf dump", &nonzero, &dumped_values);

    // Both writers print each real as the shortest text that reads back:
    // as many digits as Rust's `{:e}` prints.
    for written in [&converted, &programmed] {
        let json = std::fs::read_to_string(written).unwrap();
        let line = json.lines().find(|l| l.contains("\"A\"")).unwrap();
        let list = line.split('[').nth(1).unwrap().trim_end_matches([']', ',']);
        for token in list.split(',') {
            let x: f64 = token.trim().parse().unwrap();
            let digits = |s: &str| {
                let mantissa = s.split(['e', 'E']).next().unwrap();
                let d: String = mantissa.chars().filter(char::is_ascii_digit).collect();
                d.trim_start_matches('0').trim_end_matches('0').len()
            };
            assert_eq!(
                digits(token.trim()),
                digits(&format!("{x:e}")),
                "{}: {token} is not the shortest text of {x:e}",
                written.display()
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_index_written_minus_zero_gets_one_verdict() {
    // `-0` is the integer 0 to spf's reader and to a built program's.
    let dir = common::temp("cli-json-numbers", "minus-zero");
    let input = instance_file(
        &dir,
        "z.json",
        r#"{"format":"COO","symbols":{"NR":2,"NC":3,"NNZ":2},"arrays":{"row":[-0,1],"col":[2,0],"A":[1.5,1]}}"#,
    );
    let (converted, programmed) = convert_and_program(&dir, &input);
    let read = |p: &Path| {
        let mut i = Instance::from_json(&std::fs::read_to_string(p).unwrap()).unwrap();
        i.index_width = None;
        i
    };
    assert_eq!(read(&converted), read(&programmed));
    assert_eq!(
        read(&converted).arrays["rowptr"],
        Values::Int(vec![0, 1, 2].into())
    );
    let _ = std::fs::remove_dir_all(&dir);
}
