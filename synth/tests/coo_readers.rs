//! Property tests of the coordinate readers against a simple reference:
//! files generated from known entries, each field spelled in one of the
//! ways the format allows (so lines go through the fast path or the
//! careful one at random), read back to exactly those entries; symmetric,
//! skew-symmetric and array files against the expansion written out by
//! hand; and damaged files refused with a position inside the file, never
//! a panic.

use proptest::prelude::*;
use synth::tensor_io::{parse_mtx, parse_tns, ReadOptions, Symmetry, TensorIoError};

/// A spelling of a 1-based index: plain, `+`, leading zeros.
fn spell_index(i: i64, style: u8) -> String {
    match style % 4 {
        0 | 1 => format!("{i}"),
        2 => format!("+{i}"),
        _ => format!("00{i}"),
    }
}

/// A spelling of a value that reads back exactly: Rust's shortest form,
/// its exponent form, a Fortran `D` exponent, a leading `+`.
fn spell_value(v: f64, style: u8) -> String {
    match style % 5 {
        0 | 1 => format!("{v}"),
        2 => format!("{v:e}"),
        3 => format!("{v:e}").replace('e', "D"),
        _ if v >= 0.0 && !v.is_sign_negative() => format!("+{v}"),
        _ => format!("{v}"),
    }
}

/// A separator: a space, several, a tab.
fn sep(style: u8) -> &'static str {
    ["  ", " ", "\t", " \t "][(style % 4) as usize]
}

fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |v| v.is_finite()),
        (-1000i32..1000).prop_map(f64::from),
        Just(0.1),
        Just(-0.0),
    ]
}

/// Distinct coordinates of a `rows × cols` matrix, in a scrambled order.
fn coordinates(n: usize, rows: i64, cols: i64) -> Vec<(i64, i64)> {
    let total = rows * cols;
    let mut seen = std::collections::BTreeSet::new();
    (0..n as i64)
        .map(|k| (k * 7919 + 13) % total)
        .filter(|k| seen.insert(*k))
        .map(|k| (k / cols, k % cols))
        .collect()
}

fn located(e: &TensorIoError, text: &[u8]) {
    let lines = text.split(|&b| b == b'\n').count();
    assert!(e.line >= 1 && e.line <= lines + 1, "{e} in {lines} lines");
    assert!(e.column >= 1, "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn spelled_matrix_market_reads_as_written(
        values in proptest::collection::vec(value(), 0..30),
        styles in proptest::collection::vec(any::<u8>(), 120),
        rows in 1i64..40,
        cols in 1i64..40,
        crlf in any::<bool>(),
    ) {
        let coords = coordinates(values.len(), rows, cols);
        let eol = if crlf { "\r\n" } else { "\n" };
        let mut text = format!("%%MatrixMarket matrix coordinate real general{eol}% c{eol}");
        text.push_str(&format!("{rows} {cols} {}{eol}", coords.len()));
        for (k, ((i, j), v)) in coords.iter().zip(&values).enumerate() {
            let s = |x: usize| styles[(4 * k + x) % styles.len()];
            if s(3) % 7 == 0 {
                text.push_str(&format!("%comment{eol}{eol}"));
            }
            text.push_str(&format!(
                "{}{}{}{}{}{}{eol}",
                if s(3) % 3 == 0 { " " } else { "" },
                spell_index(i + 1, s(0)),
                sep(s(1)),
                spell_index(j + 1, s(1) / 4),
                sep(s(2)),
                spell_value(*v, s(2) / 4),
            ));
        }
        let t = parse_mtx(text.as_bytes(), &ReadOptions::default()).unwrap_or_else(|e| panic!("{e}\n{text}"));
        prop_assert_eq!(&t.dims, &vec![rows, cols]);
        let want_rows: Vec<i64> = coords.iter().map(|c| c.0).collect();
        let want_cols: Vec<i64> = coords.iter().map(|c| c.1).collect();
        prop_assert_eq!(&t.indices, &vec![want_rows, want_cols]);
        let got: Vec<u64> = t.values.iter().map(|v| v.to_bits()).collect();
        let want: Vec<u64> = values[..coords.len()].iter().map(|v| v.to_bits()).collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn symmetric_files_expand_as_the_reference_does(
        values in proptest::collection::vec(-100i32..100, 0..25),
        n in 1i64..20,
        skew in any::<bool>(),
        duplicate in any::<bool>(),
    ) {
        // The lower triangle (strictly, when skew-symmetric).
        let mut lower: Vec<(i64, i64)> = coordinates(values.len(), n, n)
            .into_iter()
            .map(|(i, j)| (i.max(j), i.min(j)))
            .filter(|(i, j)| !skew || i != j)
            .collect();
        lower.sort_unstable();
        lower.dedup();
        let vals: Vec<f64> = values.iter().map(|&v| f64::from(v)).collect();
        let mut entries: Vec<((i64, i64), f64)> = lower.iter().copied().zip(vals.iter().copied()).collect();
        let kind = if skew { "skew-symmetric" } else { "symmetric" };
        let mut body: Vec<String> = entries.iter().map(|((i, j), v)| format!("{} {} {v}", i + 1, j + 1)).collect();
        if duplicate && !entries.is_empty() {
            // The first entry again: summed into it.
            body.push(body[0].clone());
            entries[0].1 *= 2.0;
        }
        let text = format!("%%MatrixMarket matrix coordinate integer {kind}\n{n} {n} {}\n{}\n", body.len(), body.join("\n"));
        let full = parse_mtx(text.as_bytes(), &ReadOptions::default()).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let keep = ReadOptions { symmetry: Symmetry::KeepTriangle, ..ReadOptions::default() };
        let tri = parse_mtx(text.as_bytes(), &keep).unwrap();
        let sign = if skew { -1.0 } else { 1.0 };
        let mut want = (Vec::new(), Vec::new(), Vec::new());
        for ((i, j), v) in &entries {
            want.0.push(*i);
            want.1.push(*j);
            want.2.push(*v);
            if i != j {
                want.0.push(*j);
                want.1.push(*i);
                want.2.push(sign * v);
            }
        }
        prop_assert_eq!(&full.indices, &vec![want.0, want.1]);
        prop_assert_eq!(&full.values, &want.2);
        prop_assert_eq!(tri.len(), entries.len());
    }

    #[test]
    fn array_files_read_their_nonzeros_column_by_column(
        cells in proptest::collection::vec(prop_oneof![Just(0.0), value()], 0..64),
        rows in 0i64..8,
        symmetric in any::<bool>(),
    ) {
        let (rows, cols) = if symmetric { (rows, rows) } else { (rows, (cells.len() as i64 / rows.max(1)).min(8)) };
        let mut listed = Vec::new();
        let mut want = (Vec::new(), Vec::new(), Vec::new());
        let mut k = 0;
        for j in 0..cols {
            for i in (if symmetric { j } else { 0 })..rows {
                let v = cells.get(k).copied().unwrap_or(1.5);
                k += 1;
                listed.push(format!("{v}"));
                if v != 0.0 {
                    want.0.push(i);
                    want.1.push(j);
                    want.2.push(v);
                    if symmetric && i != j {
                        want.0.push(j);
                        want.1.push(i);
                        want.2.push(v);
                    }
                }
            }
        }
        let kind = if symmetric { "symmetric" } else { "general" };
        let text = format!("%%MatrixMarket matrix array real {kind}\n{rows} {cols}\n{}\n", listed.join("\n"));
        let t = parse_mtx(text.as_bytes(), &ReadOptions::default()).unwrap_or_else(|e| panic!("{e}\n{text}"));
        prop_assert_eq!(&t.indices, &vec![want.0, want.1]);
        prop_assert_eq!(&t.values, &want.2);
    }

    #[test]
    fn spelled_frostt_reads_as_written(
        values in proptest::collection::vec(value(), 0..30),
        styles in proptest::collection::vec(any::<u8>(), 90),
        extent in 1i64..30,
    ) {
        let coords = coordinates(values.len(), extent, extent);
        let mut text = String::from("# a tensor\n");
        for (k, ((i, j), v)) in coords.iter().zip(&values).enumerate() {
            let s = |x: usize| styles[(3 * k + x) % styles.len()];
            let comment = if s(2) % 5 == 0 { " # c" } else { "" };
            text.push_str(&format!(
                "{}{}{}{}{}{}{comment}\n",
                spell_index(i + 1, s(0)),
                sep(s(0) / 4),
                spell_index(j + 1, s(1)),
                sep(s(1) / 4),
                spell_index(k as i64 % 3 + 1, 0),
                format_args!(" {}", spell_value(*v, s(2) / 8)),
            ));
        }
        if coords.is_empty() {
            // No entry tells the order or the extents: an error that says so.
            let e = parse_tns(text.as_bytes(), &ReadOptions::default()).unwrap_err();
            prop_assert!(e.message.contains("the file is empty"), "{}", e);
            return Ok(());
        }
        let t = parse_tns(text.as_bytes(), &ReadOptions::default()).unwrap_or_else(|e| panic!("{e}\n{text}"));
        prop_assert_eq!(t.len(), coords.len());
        let got: Vec<u64> = t.values.iter().map(|v| v.to_bits()).collect();
        let want: Vec<u64> = values[..coords.len()].iter().map(|v| v.to_bits()).collect();
        prop_assert_eq!(got, want);
        if !coords.is_empty() {
            prop_assert_eq!(&t.indices[0], &coords.iter().map(|c| c.0).collect::<Vec<_>>());
        }
    }

    #[test]
    fn damaged_files_fail_inside_the_file(
        keep in 0usize..200,
        byte in any::<u8>(),
        at in any::<usize>(),
        which in 0usize..4,
    ) {
        let files: [&[u8]; 4] = [
            b"%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1.5\n3 2 -2\n",
            b"%%MatrixMarket matrix array integer symmetric\n2 2\n1\n2\n3\n",
            b"%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n3 3\n",
            b"1 2 3 1.0\n2 2 2 -3e5\n",
        ];
        let mut text = files[which].to_vec();
        text.truncate(keep.min(text.len()));
        if !text.is_empty() {
            let at = at % text.len();
            text[at] = byte;
        }
        let options = ReadOptions::default();
        let result = if which == 3 { parse_tns(&text, &options) } else { parse_mtx(&text, &options) };
        if let Err(e) = result {
            located(&e, &text);
        }
    }
}

/// A body of over a megabyte is read in two halves on two threads: the
/// entries come back in file order, and a problem in either half is found
/// where the file has it (the whole body read again line by line).
#[test]
fn large_bodies_read_in_two_halves_as_line_by_line() {
    let n = 90_000usize;
    let entries: Vec<(i64, i64, f64)> = (0..n)
        .map(|k| {
            let k = k as i64;
            (
                (k * 7919) % 1000 + 1,
                (k * 104_729) % 997 + 1,
                k as f64 * 0.5 - 3.0,
            )
        })
        .collect();
    let file = |kind: &str, lines: &[String]| {
        let mut text = format!("%%MatrixMarket matrix coordinate real {kind}\n% a comment\n");
        text.push_str(&format!("1000 1000 {}\n", lines.len()));
        for l in lines {
            text.push_str(l);
            text.push('\n');
        }
        text.into_bytes()
    };
    let lines: Vec<String> = entries
        .iter()
        .map(|(i, j, v)| format!("{i} {j} {v}"))
        .collect();
    let text = file("general", &lines);
    assert!(text.len() > 1 << 20, "{} bytes", text.len());
    let t = parse_mtx(&text, &ReadOptions::default()).expect("a valid file");
    let rows: Vec<i64> = entries.iter().map(|e| e.0 - 1).collect();
    let cols: Vec<i64> = entries.iter().map(|e| e.1 - 1).collect();
    let values: Vec<f64> = entries.iter().map(|e| e.2).collect();
    assert_eq!(
        (&t.indices[0], &t.indices[1], &t.values),
        (&rows, &cols, &values)
    );
    // A damaged line late in the file: its line is named (3 header lines).
    let mut damaged = lines.clone();
    damaged[n - 10] = "5 x 1.0".into();
    let e = parse_mtx(&file("general", &damaged), &ReadOptions::default()).unwrap_err();
    assert_eq!((e.line, e.column), (n - 10 + 4, 3), "{e}");
    // An index out of range in the first half, by the careful path.
    let mut damaged = lines.clone();
    damaged[10] = "1001 1 1.0".into();
    let e = parse_mtx(&file("general", &damaged), &ReadOptions::default()).unwrap_err();
    assert_eq!(e.line, 14, "{e}");
    // A skew-symmetric diagonal entry late in the file.
    let skew: Vec<String> = (0..n)
        .map(|k| format!("{} {} 1.5", k % 999 + 2, k % 999 + 1))
        .chain(["7 7 1.0".to_string()])
        .collect();
    let e = parse_mtx(&file("skew-symmetric", &skew), &ReadOptions::default()).unwrap_err();
    assert_eq!(e.line, n + 4, "{e}");
    // One entry more than announced.
    let mut text = file("general", &lines);
    text.extend_from_slice(b"1 1 1.0\n");
    let e = parse_mtx(&text, &ReadOptions::default()).unwrap_err();
    assert_eq!(e.line, n + 4, "{e}");
}
