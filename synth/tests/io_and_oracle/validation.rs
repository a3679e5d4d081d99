//! Validating instances against their descriptors: each error names the
//! array, index and property; comparator and evaluation failures; rules
//! enumerated within a budget.

use synth::descriptor::{Descriptor, KeyExpr};
use synth::instance::{Instance, Values};
use synth::instance_validation::{
    validate, validate_allowing, validate_entries_allowing, validate_with_budget,
};
use synth::tensor_io::Coordinates;
use synth::tensor_io::NONFINITE_HINT;

use crate::{
    coo, coo_instance, csr, csr_instance, dia, dia_instance, mcoo, rule, set, set_array, small, uf,
};

fn invalid(d: &Descriptor, inst: &Instance) -> String {
    validate(d, inst).unwrap_err().to_string()
}

#[test]
fn valid_instances_validate() {
    let m = small();
    validate(&csr(), &csr_instance(&m)).unwrap();
    validate(&coo(), &coo_instance(&m)).unwrap();
    validate(&dia(), &dia_instance(&m)).unwrap();
    // Morton order: sort the entries by their Morton codes.
    let morton = |i: &Vec<i64>| {
        synth::concrete::comparator_key(&mcoo().comparators[0], &[i[0], i[1]]).unwrap()
    };
    let mut sorted = m.clone();
    sorted.entries.sort_by_key(|e| morton(&e.0));
    let mut inst = coo_instance(&sorted);
    inst.format = "MCOO".into();
    validate(&mcoo(), &inst).unwrap();
    // COO in another order is not Morton-ordered.
    let mut unsorted = coo_instance(&m);
    unsorted.format = "mcoo".into();
    assert_eq!(
        invalid(&mcoo(), &unsorted),
        "rule `forall n1, n2 : n1 < n2 && 0 <= n1 && n2 < NNZ => \
         MORTON(row(n1), col(n1)) < MORTON(row(n2), col(n2))` does not hold at n1 = 1, n2 = 2: \
         row(1) = 0, col(1) = 3, row(2) = 2, col(2) = 0, MORTON(0, 3) has key (10), \
         MORTON(2, 0) has key (4)"
    );
}

#[test]
fn every_validation_error_names_the_array_index_and_property() {
    let d = csr();
    let good = csr_instance(&small());

    let mut i = good.clone();
    i.format = "COO".into();
    assert_eq!(
        invalid(&d, &i),
        "the instance is of format `COO`, not `CSR`"
    );

    let mut i = good.clone();
    i.symbols.remove("NC");
    assert_eq!(
        invalid(&d, &i),
        "symbol `NC` has no value (the format's symbols: NR, NC, NNZ)"
    );
    let mut i = good.clone();
    i.symbols.insert("ND".into(), 3);
    assert_eq!(
        invalid(&d, &i),
        "`ND` is not a symbol of CSR (its symbols: NR, NC, NNZ)"
    );
    let mut i = good.clone();
    i.arrays.remove("col");
    assert_eq!(
        invalid(&d, &i),
        "array `col` is missing (the format's arrays: rowptr, col, A)"
    );
    // A misspelled name is pointed at.
    let mut i = good.clone();
    let col = i.arrays.remove("col").unwrap();
    i.arrays.insert("cols".into(), col);
    assert_eq!(
        invalid(&d, &i),
        "array `col` is missing (the format's arrays: rowptr, col, A); \"cols\" is given: \
         did you mean \"col\"?"
    );
    let mut i = good.clone();
    let nc = i.symbols.remove("NC").unwrap();
    i.symbols.insert("Nc".into(), nc);
    assert_eq!(
        invalid(&d, &i),
        "symbol `NC` has no value (the format's symbols: NR, NC, NNZ); \"Nc\" is given: did \
         you mean \"NC\"?"
    );
    let mut i = good.clone();
    set_array(&mut i, "row", Values::Int(vec![].into()));
    assert_eq!(
        invalid(&d, &i),
        "`row` is not an array of CSR (its arrays: rowptr, col, A)"
    );
    let mut i = good.clone();
    set_array(
        &mut i,
        "col",
        Values::Real(vec![1.0, 3.0, 0.0, 2.0, 3.5].into()),
    );
    assert_eq!(
        invalid(&d, &i),
        "col is an index array and must hold integers, but it holds reals"
    );
    let mut i = good.clone();
    set_array(&mut i, "rowptr", Values::Int(vec![0, 2, 2, 4].into()));
    assert_eq!(
        invalid(&d, &i),
        "rowptr has 4 values but its domain 0 <= x <= NR (NR = 4) needs 5"
    );
    let mut i = good.clone();
    set_array(&mut i, "A", Values::Real(vec![1.0; 6].into()));
    assert_eq!(
        invalid(&d, &i),
        "A has 6 values but the descriptor's size NNZ is 5"
    );
    let mut i = good.clone();
    set_array(&mut i, "col", Values::Int(vec![1, 3, 0, 9, 3].into()));
    assert_eq!(
        invalid(&d, &i),
        "col(3) = 9 is outside its range 0 <= y < NC (NC = 4)"
    );
    let mut i = good.clone();
    set_array(&mut i, "rowptr", Values::Int(vec![0, 2, 1, 4, 5].into()));
    assert_eq!(
        invalid(&d, &i),
        "rowptr is not nondecreasing: rowptr(1) = 2 > rowptr(2) = 1"
    );
    let mut i = good.clone();
    set_array(&mut i, "rowptr", Values::Int(vec![0, 2, 2, 4, 6].into()));
    assert_eq!(
        invalid(&d, &i),
        "rowptr(4) = 6 is outside its range 0 <= y <= NNZ (NNZ = 5)"
    );
    let mut i = good.clone();
    set_array(&mut i, "col", Values::Int(vec![3, 1, 0, 2, 3].into()));
    assert_eq!(
        invalid(&d, &i),
        "rule `forall i, k1, k2 : i < NR && 0 <= i && k1 < k2 && rowptr(i) <= k1 \
         && k2 < rowptr(i + 1) => col(k1) < col(k2)` does not hold at i = 0, k1 = 0, k2 = 1: \
         rowptr(0) = 0, rowptr(1) = 2, col(0) = 3, col(1) = 1"
    );
    let mut i = good.clone();
    set_array(
        &mut i,
        "A",
        Values::Real(vec![1.0, f64::NAN, 0.0, 0.0, 0.0].into()),
    );
    assert_eq!(
        invalid(&d, &i),
        format!("A(1) = NaN is not a finite number ({NONFINITE_HINT})")
    );
    // Accepted when asked: the entries hold the NaN where the array does.
    let entries = validate_entries_allowing(&d, &i, true).expect("accepted");
    assert!(
        entries.values.iter().any(|v| v.is_nan()),
        "{:?}",
        entries.values
    );
    assert!(validate_allowing(&d, &i, false).is_err());

    // COO: two entries at one coordinate break the uniqueness rule (checked
    // by a join on the keys row, col).
    let mut dup = small();
    dup.entries.push((vec![2, 2], 1.0));
    let i = coo_instance(&dup);
    assert_eq!(
        invalid(&coo(), &i),
        "rule `forall n1, n2 : col(n1) = col(n2) && row(n1) = row(n2) && n1 < NNZ && 0 <= n1 \
         && n2 < NNZ && 0 <= n2 => n1 = n2` does not hold at n1 = 3, n2 = 5: col(3) = 2, \
         col(5) = 2, row(3) = 2, row(5) = 2"
    );

    // DIA: off must be increasing; the multi-extent value array.
    let mut i = dia_instance(&small());
    set_array(&mut i, "off", Values::Int(vec![-2, 1, 0, 2].into()));
    assert_eq!(
        invalid(&dia(), &i),
        "off is not increasing: off(1) = 1 >= off(2) = 0"
    );
    let mut i = dia_instance(&small());
    set_array(&mut i, "A", Values::Real(vec![0.0; 15].into()));
    assert_eq!(
        invalid(&dia(), &i),
        "A has 15 values but the descriptor's size [NR, ND] is 4 × 4 = 16 (ND = 4, NR = 4)"
    );
    // Two-argument index arrays are row-major over their domain's box.
    let mut ell = csr();
    ell.ufs = vec![uf(
        "col",
        "{[x, y] : 0 <= x < NR && 0 <= y < 3}",
        "{[z] : 0 <= z < NC}",
        vec![],
    )];
    ell.rules.clear();
    let mut i = good.clone();
    i.arrays.remove("rowptr");
    assert_eq!(
        invalid(&ell, &i),
        "col has 5 values but its domain 0 <= x < NR && 0 <= y <= 2 (NR = 4) needs 12 \
         (4 × 3, row-major)"
    );
}

#[test]
fn comparator_and_evaluation_failures_are_named() {
    // A key that goes negative: interleave refuses it.
    let mut d = mcoo();
    d.comparators[0].key = vec![KeyExpr::Interleave(vec![
        KeyExpr::Sub(Box::new(KeyExpr::Param(0)), Box::new(KeyExpr::Int(1))),
        KeyExpr::Param(1),
    ])];
    let mut i = coo_instance(&small());
    i.format = "MCOO".into();
    assert_eq!(
        invalid(&d, &i),
        "comparator MORTON: interleave needs non-negative values, but argument 1 is -1"
    );
    // A comparator of several components compares keys lexicographically.
    let mut d = mcoo();
    d.comparators[0].key = vec![KeyExpr::Param(0), KeyExpr::Param(1)];
    let mut sorted = small();
    sorted.entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut i = coo_instance(&sorted);
    i.format = "MCOO".into();
    validate(&d, &i).unwrap();
    sorted.entries.swap(1, 2);
    let mut i = coo_instance(&sorted);
    i.format = "MCOO".into();
    assert!(invalid(&d, &i).ends_with(
        "does not hold at n1 = 1, n2 = 2: row(1) = 2, col(1) = 0, row(2) = 0, col(2) = 3, \
         MORTON(2, 0) has key (2, 0), MORTON(0, 3) has key (0, 3)"
    ));
    // An index array whose domain has no bound.
    let mut d = coo();
    d.ufs[0].domain = set("{[x] : x >= 0}");
    assert_eq!(
        invalid(&d, &coo_instance(&small())),
        "cannot evaluate the domain of row: tuple variable `x` (position 0) has no finite \
         bound; give the enumeration a box"
    );
}

#[test]
fn rules_without_a_shortcut_are_enumerated_within_a_budget() {
    let mut d = coo();
    // Every row index is at most every column index plus 3: no ordering,
    // no join; all NNZ² pairs.
    d.rules = vec![rule(
        &["n1", "n2"],
        "0 <= n1 < NNZ && 0 <= n2 < NNZ",
        "row(n1) <= col(n2) + 3",
    )];
    let i = coo_instance(&small());
    validate(&d, &i).unwrap();
    assert_eq!(
        validate_with_budget(&d, &i, 10).unwrap_err().to_string(),
        "cannot check rule `forall n1, n2 : n1 < NNZ && 0 <= n1 && n2 < NNZ && 0 <= n2 => \
         row(n1) <= col(n2) + 3`: it needs more than 10 evaluations (neither the adjacent-pair \
         check of an ordering nor a join on equal keys applies)"
    );
    d.rules = vec![rule(
        &["n1", "n2"],
        "0 <= n1 < NNZ && 0 <= n2 < NNZ",
        "row(n1) <= col(n2) + 2",
    )];
    assert_eq!(
        invalid(&d, &i),
        "rule `forall n1, n2 : n1 < NNZ && 0 <= n1 && n2 < NNZ && 0 <= n2 => \
         row(n1) <= col(n2) + 2` does not hold at n1 = 4, n2 = 2: col(2) = 0, row(4) = 3"
    );
    // Sorted rows, stated through the contrapositive form (linear).
    d.rules = vec![rule(
        &["n1", "n2"],
        "0 <= n1 < NNZ && 0 <= n2 < NNZ && row(n1) < row(n2)",
        "n1 < n2",
    )];
    validate_with_budget(&d, &coo_instance(&small()), 0).unwrap();
    // A join's pairs as many as its points are linear work, whatever the
    // budget: COO's rule meets each entry with itself only.
    let coo = coo();
    validate_with_budget(&coo, &coo_instance(&small()), 0).unwrap();
    // A join whose groups grow with the input is stopped: 60 entries of
    // one row make 3,600 pairs, beyond 4 per point.
    let mut join = coo.clone();
    join.rules = vec![rule(
        &["n1", "n2"],
        "0 <= n1 < NNZ && 0 <= n2 < NNZ && row(n1) = row(n2)",
        "col(n1) + col(n2) >= 0",
    )];
    let one_row = Coordinates {
        dims: vec![1, 60],
        entries: (0..60).map(|c| (vec![0, c], 1.0)).collect(),
    };
    validate(&join, &coo_instance(&one_row)).unwrap();
    let e = validate_with_budget(&join, &coo_instance(&one_row), 0).unwrap_err();
    assert!(
        e.to_string().contains("it needs more than 480 evaluations"),
        "{e}"
    );
    let mut unsorted = small();
    unsorted.entries.swap(0, 4);
    // Rows 3, 0, 2, 2, 0: the reported assignment violates the rule as written.
    assert!(invalid(&d, &coo_instance(&unsorted))
        .ends_with("does not hold at n1 = 1, n2 = 0: row(1) = 0, row(0) = 3"));
}
