//! The correctness oracle: formats of one matrix store the same entries,
//! corruption is reported at the first differing coordinate, and the oracle
//! is linear on the real matrices.

use std::time::Instant;

use iegen::Expr;
use synth::descriptor::Descriptor;
use synth::instance::{Instance, InstanceError, Values};
use synth::instance_validation::validate;
use synth::oracle::{compare, coordinate_entries, coordinates_from, entries, OracleError};
use synth::tensor_io::read_file;

use crate::matrix_market::MATRICES;
use crate::{
    coo, coo_instance, csr, csr_instance, data, dia, dia_instance, instance, read_matrix, rel,
    set_array, small, strings, uf,
};

#[test]
fn coo_csr_and_dia_of_one_matrix_store_the_same_entries() {
    let m = small();
    let expected = coordinate_entries(&m);
    assert_eq!(expected.len(), 5);
    assert_eq!(entries(&coo(), &coo_instance(&m)).unwrap(), expected);
    assert_eq!(entries(&csr(), &csr_instance(&m)).unwrap(), expected);
    assert_eq!(entries(&dia(), &dia_instance(&m)).unwrap(), expected);
    compare(
        &entries(&coo(), &coo_instance(&m)).unwrap(),
        &entries(&csr(), &csr_instance(&m)).unwrap(),
    )
    .unwrap();
    // The JSON file gives the same.
    let json =
        Instance::from_json(&std::fs::read_to_string(data("csr_small.json")).unwrap()).unwrap();
    assert_eq!(entries(&csr(), &json).unwrap(), expected);
    // `spf dump`: CSR lists its entries row by row.
    let dumped = coordinates_from(&csr(), &json).unwrap();
    assert_eq!(dumped.dims, vec![4, 4]);
    assert_eq!(dumped.entries, m.entries);
    let from_coo = coordinates_from(
        &coo(),
        &coo_instance(&read_file(&data("small.mtx"), None).unwrap()),
    )
    .unwrap();
    assert_eq!(from_coo.entries[0], (vec![2, 0], -3.0));
}

#[test]
fn a_corrupted_csr_is_reported_at_the_first_differing_coordinate() {
    let m = small();
    let expected = entries(&coo(), &coo_instance(&m)).unwrap();
    let mut bad = csr_instance(&m);
    // The entry (2, 2) = 4 moves to column 1.
    set_array(&mut bad, "col", Values::Int(vec![1, 3, 0, 1, 3].into()));
    let actual = entries(&csr(), &bad).unwrap();
    let mismatch = compare(&expected, &actual).unwrap_err();
    assert_eq!(mismatch.coordinate, vec![2, 1]);
    assert_eq!(
        mismatch.to_string(),
        "the entries differ first at (2, 1): expected no entry, found 4.0 \
         (5 entries expected, 5 found)"
    );
    // A changed value.
    let mut bad = csr_instance(&m);
    set_array(
        &mut bad,
        "A",
        Values::Real(vec![1.5, 2.0, -3.0, 4.5, 0.25].into()),
    );
    let mismatch = compare(&expected, &entries(&csr(), &bad).unwrap()).unwrap_err();
    assert_eq!(
        mismatch.to_string(),
        "the entries differ first at (2, 2): expected 4.0, found 4.5 \
         (5 entries expected, 5 found)"
    );
    // A missing entry.
    let mut fewer = m.clone();
    fewer.entries.pop();
    let mismatch = compare(&expected, &coordinate_entries(&fewer)).unwrap_err();
    assert_eq!(mismatch.coordinate, vec![3, 3]);
    assert_eq!((mismatch.expected, mismatch.actual), (Some(0.25), None));
}

#[test]
fn stored_zeros_padding_and_coinciding_entries() {
    // Stored zeros are ignored.
    let mut z = small();
    z.entries.push((vec![1, 1], 0.0));
    z.entries.push((vec![1, 2], -0.0));
    assert_eq!(
        entries(&coo(), &coo_instance(&z)).unwrap(),
        coordinate_entries(&small())
    );
    // DIA pads with zeros: the instance stores 16 values for 5 entries.
    let i = dia_instance(&small());
    assert_eq!(i.arrays["A"].len(), 16);
    assert_eq!(
        coordinates_from(&dia(), &i).unwrap().entries.len(),
        5,
        "zeros dropped"
    );
    // Two nonzero entries at one coordinate.
    let mut dup = small();
    dup.entries.push((vec![0, 1], 2.0));
    let mut d = coo();
    d.rules.clear();
    assert_eq!(
        entries(&d, &coo_instance(&dup)).unwrap_err().to_string(),
        "two nonzero entries at (0, 1): A(0) = 1.5 and A(5) = 2"
    );
    // With padding, the message says what padding slots must hold. An ELL
    // whose padded slot of row 0 repeats column 1 with a nonzero value:
    let ell = Descriptor {
        name: "ELL".into(),
        dense: strings(&["NR", "NC"]),
        symbols: strings(&["NR", "NC", "W"]),
        map: rel(
            "{[ii, w, jj] -> [i, j] : i = ii && j = jj && 0 <= ii < NR && 0 <= w < W \
             && jj = col(ii, w)}",
        ),
        data_name: "A".into(),
        data: rel("{[ii, w, jj] -> [ii, w]}"),
        data_size: vec![Expr::sym("NR"), Expr::sym("W")],
        ufs: vec![uf(
            "col",
            "{[x, y] : 0 <= x < NR && 0 <= y < W}",
            "{[z] : 0 <= z < NC}",
            vec![],
        )],
        rules: vec![],
        comparators: vec![],
        padding: true,
        lines: Default::default(),
    };
    let good = instance(
        "ell",
        &[("NR", 2), ("NC", 3), ("W", 2)],
        vec![
            ("col", Values::Int(vec![1, 1, 0, 2].into())),
            ("A", Values::Real(vec![5.0, 0.0, 6.0, 7.0].into())),
        ],
    );
    validate(&ell, &good).unwrap();
    assert_eq!(
        entries(&ell, &good).unwrap(),
        [(vec![0, 1], 5.0), (vec![1, 0], 6.0), (vec![1, 2], 7.0)].into()
    );
    let mut bad = good.clone();
    set_array(&mut bad, "A", Values::Real(vec![5.0, 8.0, 6.0, 7.0].into()));
    assert_eq!(
        entries(&ell, &bad).unwrap_err().to_string(),
        "two nonzero entries at (0, 1): A(0, 0) = 5 and A(0, 1) = 8 \
         (padding slots must hold zeros)"
    );
    // The oracle checks shapes too.
    let mut short = csr_instance(&small());
    set_array(&mut short, "col", Values::Int(vec![0].into()));
    assert!(matches!(
        entries(&csr(), &short),
        Err(OracleError::Instance(InstanceError::Length { .. }))
    ));
}

#[test]
fn oracle_on_the_real_matrices_is_linear_and_agrees() {
    let mut slowest = (String::new(), 0.0f64);
    for &(name, ..) in MATRICES {
        let m = read_matrix(name);
        let expected = coordinate_entries(&m);
        let (coo_i, csr_i) = (coo_instance(&m), csr_instance(&m));
        let start = Instant::now();
        let from_csr = entries(&csr(), &csr_i).unwrap();
        let csr_time = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let from_coo = entries(&coo(), &coo_i).unwrap();
        let coo_time = start.elapsed().as_secs_f64();
        compare(&expected, &from_csr).unwrap_or_else(|e| panic!("{name}: {e}"));
        compare(&expected, &from_coo).unwrap_or_else(|e| panic!("{name}: {e}"));
        let start = Instant::now();
        validate(&csr(), &csr_i).unwrap_or_else(|e| panic!("{name}: {e}"));
        validate(&coo(), &coo_i).unwrap_or_else(|e| panic!("{name}: {e}"));
        let validate_time = start.elapsed().as_secs_f64();
        eprintln!(
            "{name}: {} entries; oracle CSR {csr_time:.3} s, COO {coo_time:.3} s; \
             validate CSR+COO {validate_time:.3} s",
            m.len()
        );
        if csr_time + coo_time > slowest.1 {
            slowest = (name.to_string(), csr_time + coo_time);
        }
    }
    eprintln!("slowest oracle: {} ({:.3} s)", slowest.0, slowest.1);
    // Generous: the largest matrix takes well under a second in release.
    assert!(slowest.1 < 60.0, "{slowest:?}");
}

#[test]
fn dia_oracle_on_a_banded_matrix() {
    let m = read_matrix("circulant_1000_1_2_3.mtx");
    let i = dia_instance(&m);
    // Offsets ±1, ±2, ±3 and their wrap-arounds ±997, ±998, ±999.
    assert_eq!(i.symbols["ND"], 12);
    validate(&dia(), &i).unwrap();
    compare(&coordinate_entries(&m), &entries(&dia(), &i).unwrap()).unwrap();
}
