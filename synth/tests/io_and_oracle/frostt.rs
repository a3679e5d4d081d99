//! FROSTT `.tns` files: what the reader accepts and the errors it reports.

use synth::tensor_io::{read_file, read_tns, Coordinates};

use crate::data;
use crate::matrix_market::err;

#[test]
fn frostt_reads_and_reports() {
    let t = read_file(&data("small.tns"), None).unwrap();
    assert_eq!(t.dims, vec![3, 4, 2]);
    assert_eq!(
        t.entries,
        vec![
            (vec![0, 0, 0], 1.5),
            (vec![2, 3, 1], -2.0),
            (vec![1, 1, 0], 0.1),
            (vec![0, 3, 1], 1e-300),
            (vec![2, 0, 0], 7.0),
        ]
    );
    let t = read_file(&data("small.tns"), Some(&[5, 5, 5])).unwrap();
    assert_eq!(t.dims, vec![5, 5, 5]);
    // Duplicates are summed.
    let t = read_tns(b"1 2 1\n1 2 2.5\n", None).unwrap();
    assert_eq!(t.entries, vec![(vec![0, 1], 3.5)]);
    // An empty file tells neither its order nor its extents: an error
    // that says so; with the extents given, an empty tensor.
    let e = read_tns(b"# nothing\n\n", None).unwrap_err();
    assert!(e.message.starts_with("the file is empty"), "{e}");
    assert_eq!(
        read_tns(b"# nothing\n\n", Some(&[2, 3])).unwrap(),
        Coordinates {
            dims: vec![2, 3],
            entries: vec![]
        }
    );

    let tns_err = |text: &str, dims: Option<&[i64]>| {
        let e = read_tns(text.as_bytes(), dims).expect_err(text);
        (e.line, e.column, e.message)
    };
    assert_eq!(
        tns_err("1 1 1 1.0\n2 2 1.0\n", None),
        err(
            2,
            8,
            "this entry has 2 indices and a value but the first entry (line 1) has 3"
        )
    );
    assert_eq!(
        tns_err("1 1 1.0\n2 2 2 1.0\n", None),
        err(
            2,
            7,
            "this entry has 3 indices and a value but the first entry (line 1) has 2"
        )
    );
    assert_eq!(
        tns_err("# c\n1 0 1.0\n", None),
        err(
            2,
            3,
            "index of mode 2 0 is below 1: FROSTT indices are 1-based, and this one looks 0-based"
        )
    );
    assert_eq!(
        tns_err("1 3 1.0\n", Some(&[2, 2])),
        err(2 - 1, 3, "index of mode 2 3 is out of range 1..=2")
    );
    assert_eq!(
        tns_err("1 1 1.0\n", Some(&[2, 2, 2])),
        err(1, 1, "this entry has 2 indices but the tensor has 3 modes")
    );
    assert_eq!(
        tns_err("\n  7\n", None),
        err(2, 4, "an entry needs at least one index and a value")
    );
    assert_eq!(
        tns_err("1 1 x1\n", None),
        err(1, 5, "value `x1` is not a number")
    );
    assert_eq!(
        tns_err("1 1 inf\n", None),
        err(
            1,
            5,
            "value `inf` is not a finite number (NaN and infinities are accepted with --allow-nonfinite, allow_nonfinite in the library and Python)"
        )
    );
}

/// A FROSTT value that is not finite is refused naming the flag, and read
/// when allowed.
#[test]
fn frostt_nonfinite_values_read_only_when_allowed() {
    use synth::tensor_io::{parse_tns, ReadOptions};
    let text = b"1 1 1 1.5\n2 1 2 -INF\n1 2 2 nan\n";
    let refused = parse_tns(text, &ReadOptions::default()).unwrap_err();
    assert_eq!((refused.line, refused.column), (2, 7));
    assert!(refused.message.contains("--allow-nonfinite"), "{refused}");
    let allowed = ReadOptions {
        allow_nonfinite: true,
        ..ReadOptions::default()
    };
    let t = parse_tns(text, &allowed).expect("read");
    assert_eq!(t.dims, vec![2, 2, 2]);
    assert_eq!(t.values[..2], [1.5, f64::NEG_INFINITY]);
    assert!(t.values[2].is_nan());
}
