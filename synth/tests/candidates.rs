//! Composition, the closed constraint graph and candidate classification on
//! the dissertation's running examples (4.1.2–4.1.3).

use synth::builtin::load_format;
use synth::candidate::{candidates, display_names, Candidate, SynthesisCase};
use synth::constraint_graph::ConstraintGraph;
use synth::conversion::{Conversion, ConversionError};

fn conversion(src: &str, dst: &str) -> Conversion {
    let s = load_format(src).expect("source format");
    let d = load_format(dst).expect("destination format");
    Conversion::new(&s, &d).expect("pair")
}

/// The candidates of `unknown` as `(text, case number)`.
fn listed(conv: &Conversion, unknown: &str) -> Vec<(String, Option<u8>)> {
    let all = candidates(conv).expect("consistent");
    let names = display_names(conv);
    all.by_unknown[unknown]
        .iter()
        .map(|c: &Candidate| (c.describe(&names), c.case.map(SynthesisCase::number)))
        .collect()
}

fn has(list: &[(String, Option<u8>)], text: &str, case: Option<u8>) -> bool {
    list.iter().any(|(t, c)| t == text && *c == case)
}

#[test]
fn coo_to_csr_candidates_match_the_dissertation() {
    let conv = conversion("coo", "csr");
    assert_eq!(
        conv.positions(),
        vec![1],
        "k is the only unresolved position"
    );
    assert_eq!(conv.renames.get("col").map(String::as_str), Some("col_out"));
    assert_eq!(conv.unknown_symbols, vec!["NNZ_out".to_string()]);
    let rowptr = listed(&conv, "rowptr");
    assert!(has(&rowptr, "rowptr(ii) <= k", Some(2)), "{rowptr:?}");
    assert!(
        has(&rowptr, "rowptr(ii + 1) >= k + 1", Some(3)),
        "{rowptr:?}"
    );
    assert!(
        has(&rowptr, "rowptr(ii) <= rowptr(ii + 1) - 1", None),
        "a candidate reading the unknown itself fits no case: {rowptr:?}"
    );
    let col = listed(&conv, "col_out");
    assert!(has(&col, "col_out(k) = col(n)", Some(4)), "{col:?}");
    let nnz = listed(&conv, "NNZ_out");
    assert!(has(&nnz, "NNZ_out >= k + 1", Some(3)), "{nnz:?}");
}

#[test]
fn coo_to_dia_offsets_are_an_ordered_insert() {
    let conv = conversion("coo", "dia");
    // jj' = ii + off(d) = jj: only the closure shows it; d is the one position.
    assert_eq!(conv.positions(), vec![1]);
    let off = listed(&conv, "off");
    // off(d) = j - i, over the source tuple and over its arrays.
    assert!(has(&off, "off(d) = -ii + jj", Some(5)), "{off:?}");
    assert!(has(&off, "off(d) = -ii + col(n)", Some(5)), "{off:?}");
    let nd = listed(&conv, "ND");
    assert!(has(&nd, "ND >= d + 1", Some(3)), "{nd:?}");
}

#[test]
fn coo_to_mcoo_coordinates_go_through_the_permutation() {
    let conv = conversion("coo", "mcoo");
    let row = listed(&conv, "row_out");
    assert!(has(&row, "row_out(n') = row(n)", Some(4)), "{row:?}");
    let col = listed(&conv, "col_out");
    assert!(has(&col, "col_out(n') = col(n)", Some(4)), "{col:?}");
}

#[test]
fn csr_to_coo_needs_no_search_for_rows() {
    let conv = conversion("csr", "coo");
    // CSR has no `row` array, so COO's keeps its name.
    assert!(!conv.renames.contains_key("row"));
    let row = listed(&conv, "row");
    assert!(has(&row, "row(n) = ii", Some(4)), "{row:?}");
}

#[test]
fn dense_arity_mismatch_is_an_error() {
    let s = load_format("coo").expect("coo");
    let d = load_format("coo3d").expect("coo3d");
    let err = Conversion::new(&s, &d).unwrap_err();
    assert!(
        matches!(
            err,
            ConversionError::DenseArity {
                src_dims: 2,
                dst_dims: 3,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn closure_derives_transitive_bounds_with_offsets() {
    // i < j && j <= k + 2  =>  i <= k + 1
    let s: iegen::Set = "{[i, j, k] : i < j && j <= k + 2}".parse().expect("parses");
    let g = ConstraintGraph::from_conjunction(&s.conjunctions()[0]);
    let derived = g.closure().expect("consistent");
    let i = iegen::Expr::var(iegen::Var::Tuple(0));
    let k = iegen::Expr::var(iegen::Var::Tuple(2));
    assert!(
        derived.iter().any(|d| d.lhs == i
            && d.rhs == k
            && d.offset == 1
            && d.kind == iegen::ConstraintKind::Geq),
        "{derived:?}"
    );
}

#[test]
fn closure_detects_contradictions() {
    let s: iegen::Set = "{[i, j, k] : i < j && j < k && k <= i}"
        .parse()
        .expect("parses");
    let g = ConstraintGraph::from_conjunction(&s.conjunctions()[0]);
    assert!(g.closure().is_err());
}
