//! JSON numbers read exactly: every real an instance file gives is the
//! double nearest to its decimal text (ties to even), as Rust's `f64`
//! parser, Python's `float()`, numpy and C's `strtod` read it; and every
//! real an instance is written with is the shortest text that reads back
//! as the same double.
//!
//! The reference is `str::parse::<f64>`, which rounds correctly. The texts
//! cover random doubles (every exponent, subnormals included) in several
//! spellings, the exact midpoints between neighbouring doubles and the
//! texts just above and below them (where an inexact parser goes wrong),
//! the boundaries of the normal and subnormal ranges, and digit strings of
//! hundreds of digits.

use synth::instance::{Instance, Values};

#[path = "support/json_texts.rs"]
mod json_texts;
use json_texts::{instance_text, texts, Rng};

fn reals(i: &Instance, name: &str) -> Vec<f64> {
    match &i.arrays[name] {
        Values::Real(v) => v.to_vec(),
        other => panic!("{name} is not real: {other:?}"),
    }
}

#[test]
fn every_real_reads_as_the_nearest_double() {
    let texts = texts(2_000);
    assert!(texts.len() > 12_000, "{} texts", texts.len());
    let read = Instance::from_json(&instance_text(&texts)).unwrap();
    let got = reals(&read, "A");
    let mut wrong = Vec::new();
    for (t, g) in texts.iter().zip(&got) {
        let want = t.parse::<f64>().unwrap();
        if want.to_bits() != g.to_bits() {
            wrong.push(format!("{t} read as {g:e}, not {want:e}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} numbers misread, e.g. {:?}",
        wrong.len(),
        texts.len(),
        &wrong[..wrong.len().min(5)]
    );
}

#[test]
fn a_real_beyond_the_double_range_is_refused() {
    for t in ["1.7976931348623159e308", "1e309", "-2e308"] {
        let e = Instance::from_json(&instance_text(&[t.to_string()])).unwrap_err();
        assert!(e.to_string().contains("out of range"), "{t}: {e}");
    }
}

#[test]
fn every_real_is_written_shortest_and_reads_back() {
    let mut rng = Rng(7);
    let mut values: Vec<f64> = (0..5_000).map(|_| rng.double()).collect();
    values.extend([
        0.0,
        -0.0,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        -f64::MAX,
        0.1,
        1.0,
        -1.5,
        1e22,
        1e23,
        123456789.0,
    ]);
    let n = values.len();
    let mut i = Instance::from_json(&instance_text(&vec!["1.5".to_string(); n])).unwrap();
    i.arrays
        .insert("A".into(), Values::Real(values.clone().into()));
    let text = i.to_json();
    let back = Instance::from_json(&text).unwrap();
    let got = reals(&back, "A");
    for (x, g) in values.iter().zip(&got) {
        assert_eq!(
            x.to_bits(),
            g.to_bits(),
            "{x:e} wrote as something read as {g:e}"
        );
    }
    // Each written number has as many digits as the shortest text that
    // reads back (Rust's `{:e}` prints one).
    let line = text.lines().find(|l| l.contains("\"A\"")).unwrap();
    let list = line.split('[').nth(1).unwrap().trim_end_matches([']', ',']);
    for (token, x) in list.split(',').zip(&values) {
        let digits = |s: &str| {
            let mantissa = s.split(['e', 'E']).next().unwrap();
            let d: String = mantissa.chars().filter(char::is_ascii_digit).collect();
            let d = d.trim_start_matches('0').trim_end_matches('0').to_string();
            if d.is_empty() {
                "0".to_string()
            } else {
                d
            }
        };
        // As short as the shortest (at a tie between two texts of that
        // length, either one).
        assert_eq!(
            digits(token).len(),
            digits(&format!("{x:e}")).len(),
            "{token} is not the shortest text of {x:e}"
        );
        assert!(
            token.contains(['.', 'e', 'E']),
            "{token} would read back as an integer"
        );
    }
}
