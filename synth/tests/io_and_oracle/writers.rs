//! The Matrix Market and FROSTT writers: exact round trips, and refusing what
//! the readers would refuse.

use synth::tensor_io::{
    parse_mtx, parse_tns, read_mtx, read_tns, write_mtx, write_tns, Coordinates, ReadOptions,
    WriteError,
};

use crate::matrix_market::MATRICES;
use crate::read_matrix;

#[test]
fn mtx_round_trips_exactly() {
    for &(name, ..) in MATRICES {
        let m = read_matrix(name);
        let mut out = Vec::new();
        write_mtx(&m, &mut out).unwrap();
        let back = read_mtx(&out).unwrap();
        assert_eq!(back, m, "{name}");
        assert!(out.starts_with(b"%%MatrixMarket matrix coordinate real general\n"));
    }
    let awkward = Coordinates {
        dims: vec![3, 2],
        entries: vec![
            (vec![0, 0], 0.1),
            (vec![2, 1], -1e300),
            (vec![1, 0], 5e-324),
            (vec![1, 1], -0.0),
            (vec![0, 1], 1.0 / 3.0),
            (vec![2, 0], 123456789012345680.0),
        ],
    };
    let mut out = Vec::new();
    write_mtx(&awkward, &mut out).unwrap();
    let back = read_mtx(&out).unwrap();
    assert_eq!(back.dims, awkward.dims);
    for (a, b) in back.entries.iter().zip(&awkward.entries) {
        assert_eq!(a.0, b.0);
        assert_eq!(a.1.to_bits(), b.1.to_bits());
    }
}

#[test]
fn tns_round_trips_exactly() {
    let t = Coordinates {
        dims: vec![4, 3, 5],
        entries: vec![
            (vec![3, 2, 4], 0.1),
            (vec![0, 0, 0], -2.5e-310),
            (vec![1, 2, 3], 1e22),
            (vec![2, 1, 0], -7.0),
        ],
    };
    let mut out = Vec::new();
    write_tns(&t, &mut out).unwrap();
    assert_eq!(read_tns(&out, Some(&t.dims)).unwrap(), t);
    // Without the extents, they are the largest index of each mode.
    assert_eq!(read_tns(&out, None).unwrap().dims, vec![4, 3, 5]);
}

#[test]
fn writers_refuse_what_readers_would_refuse() {
    let mut out = Vec::new();
    let t = Coordinates {
        dims: vec![2, 2, 2],
        entries: vec![],
    };
    assert!(matches!(
        write_mtx(&t, &mut out),
        Err(WriteError::Order {
            expected: 2,
            found: 3,
            ..
        })
    ));
    let bad = Coordinates {
        dims: vec![2, 2],
        entries: vec![(vec![0, 2], 1.0)],
    };
    assert_eq!(
        write_mtx(&bad, &mut out).unwrap_err().to_string(),
        "entry 0 has index 2 in dimension 1, outside 0..2"
    );
    // Values that are not finite are written as the readers (and scipy)
    // read them back, with `allow_nonfinite`.
    let nan = Coordinates {
        dims: vec![2, 2],
        entries: vec![
            (vec![0, 0], f64::INFINITY),
            (vec![0, 1], f64::NEG_INFINITY),
            (vec![1, 1], f64::NAN),
        ],
    };
    let allowed = ReadOptions {
        allow_nonfinite: true,
        ..ReadOptions::default()
    };
    let mut text = Vec::new();
    write_mtx(&nan, &mut text).expect("written");
    assert!(String::from_utf8_lossy(&text).contains("1 1 inf\n1 2 -inf\n2 2 nan\n"));
    let back = parse_mtx(&text, &allowed)
        .expect("read back")
        .to_coordinates();
    let mut tns = Vec::new();
    write_tns(&nan, &mut tns).expect("written");
    let dims = ReadOptions {
        dims: Some(vec![2, 2]),
        ..allowed
    };
    let back_tns = parse_tns(&tns, &dims).expect("read back").to_coordinates();
    for got in [back, back_tns] {
        assert_eq!(got.dims, nan.dims);
        let bits = |c: &Coordinates| -> Vec<(Vec<i64>, u64)> {
            c.entries
                .iter()
                .map(|(i, v)| (i.clone(), v.to_bits()))
                .collect()
        };
        assert_eq!(bits(&got), bits(&nan));
    }
    let short = Coordinates {
        dims: vec![2, 2],
        entries: vec![(vec![0], 1.0)],
    };
    assert!(matches!(
        write_tns(&short, &mut out),
        Err(WriteError::EntryOrder {
            entry: 0,
            expected: 2,
            found: 1
        })
    ));
}
