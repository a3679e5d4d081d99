//! JSON instances: round trips, and errors located in the text or naming
//! the key.

use synth::instance::{Instance, InstanceError, Values};
use synth::instance_validation::validate;
use synth::oracle::entries;

use crate::{csr, csr_instance, data, set_array, small};

#[test]
fn json_instances_round_trip() {
    let text = std::fs::read_to_string(data("csr_small.json")).unwrap();
    let inst = Instance::from_json(&text).unwrap();
    assert_eq!(inst, csr_instance(&small()));
    assert_eq!(Instance::from_json(&inst.to_json()).unwrap(), inst);
    // Awkward reals survive exactly; integers stay integers.
    let mut odd = inst.clone();
    set_array(
        &mut odd,
        "A",
        Values::Real(vec![0.1, -0.0, 1e300, 5e-324, 2.0].into()),
    );
    let back = Instance::from_json(&odd.to_json()).unwrap();
    let (Values::Real(a), Values::Real(b)) = (&back.arrays["A"], &odd.arrays["A"]) else {
        panic!("reals expected")
    };
    assert!(a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()));
    // A value array written with integers reads as integers and validates.
    let ints = Instance::from_json(
        r#"{"format": "csr", "symbols": {"NR": 1, "NC": 1, "NNZ": 1},
            "arrays": {"rowptr": [0, 1], "col": [0], "A": [3]}}"#,
    )
    .unwrap();
    assert_eq!(ints.arrays["A"], Values::Int(vec![3].into()));
    validate(&csr(), &ints).unwrap();
    assert_eq!(entries(&csr(), &ints).unwrap(), [(vec![0, 0], 3.0)].into());
    // Empty instance parts.
    let empty = Instance::from_json(r#"{"format": "x"}"#).unwrap();
    assert_eq!(Instance::from_json(&empty.to_json()).unwrap(), empty);
}

#[test]
fn json_errors_are_located_or_named() {
    let syntax = |text: &str| match Instance::from_json(text).unwrap_err() {
        InstanceError::Json { line, column, .. } => (line, column),
        other => panic!("{other}"),
    };
    assert_eq!(
        syntax("{\"format\": \"csr\",\n  \"symbols\": {\"NR\": 4,}}"),
        (2, 23)
    );
    assert_eq!(syntax("{\"format\": \"csr\""), (1, 16));
    assert_eq!(syntax(""), (1, 1));
    let e = Instance::from_json("[1,\n 2,\n x]").unwrap_err();
    assert_eq!(e.to_string(), "3:2: invalid JSON: expected value");
    let e = Instance::from_json_bytes(b"{\"format\": \"\xff\"}").unwrap_err();
    assert!(matches!(e, InstanceError::Json { line: 1, .. }), "{e}");

    let structure = |text: &str| Instance::from_json(text).unwrap_err().to_string();
    assert_eq!(
        structure("[1, 2]"),
        "at `(top level)`: expected an object with \"format\", \"symbols\" and \"arrays\", \
         found an array"
    );
    assert_eq!(
        structure(r#"{"format": "csr", "array": {}}"#),
        "at `array`: unknown key; an instance has \"format\", \"symbols\", \"arrays\" and \
         optionally \"index_width\" and \"value_type\""
    );
    assert_eq!(
        structure(r#"{"format": "csr", "value_type": "float16"}"#),
        "at `value_type`: expected \"float64\", \"float32\", \"int64\" or \"int32\", \
         found \"float16\""
    );
    assert_eq!(
        structure(r#"{"format": "csr", "index_width": 16}"#),
        "at `index_width`: expected 32 or 64, or {\"positions\": 32|64, \"coordinates\": \
         32|64}, found the number 16"
    );
    assert!(
        structure(r#"{"format": "csr", "index_width": {"positions": 64}}"#)
            .starts_with("at `index_width`: expected 32 or 64")
    );
    assert_eq!(
        structure(r#"{"symbols": {}}"#),
        "at `format`: missing: the format's name"
    );
    assert_eq!(
        structure(r#"{"format": 3}"#),
        "at `format`: expected the format's name (a string), found the number 3"
    );
    assert_eq!(
        structure(r#"{"format": "csr", "symbols": [4]}"#),
        "at `symbols`: expected an object of integers, found an array"
    );
    assert_eq!(
        structure(r#"{"format": "csr", "symbols": {"NR": 4.5}}"#),
        "at `symbols.NR`: expected an integer, found the number 4.5"
    );
    assert_eq!(
        structure(r#"{"format": "csr", "arrays": 1}"#),
        "at `arrays`: expected an object of arrays, found the number 1"
    );
    assert_eq!(
        structure(r#"{"format": "csr", "arrays": {"col": "0 1"}}"#),
        "at `arrays.col`: expected an array of numbers, found a string"
    );
    assert_eq!(
        structure(r#"{"format": "csr", "arrays": {"col": [0, 1, null]}}"#),
        "at `arrays.col[2]`: expected a number, found null"
    );
    // Integers beyond 64 bits are named as such, never taken for reals.
    assert_eq!(
        structure(r#"{"format": "csr", "symbols": {"NR": 9223372036854775808}}"#),
        "at `symbols.NR`: expected an integer, found the integer 9223372036854775808, which is \
         beyond the 64-bit range (at most 9223372036854775807)"
    );
    assert_eq!(
        structure(r#"{"format": "csr", "arrays": {"col": [0, 9223372036854775808]}}"#),
        "at `arrays.col[1]`: the integer 9223372036854775808, which is beyond the 64-bit range \
         (at most 9223372036854775807); write a value with a decimal point if it is a real"
    );
    assert!(
        structure(r#"{"format": "csr", "symbols": {"NR": 100000000000000000000000}}"#)
            .contains("beyond the 64-bit integer range"),
    );
    // A key given twice is an error where it repeats, never "the last wins".
    let e = Instance::from_json("{\"format\": \"CSR\",\n \"symbols\": {\"NR\": 4, \"NR\": 5}}")
        .unwrap_err();
    assert!(matches!(e, InstanceError::Json { line: 2, .. }), "{e}");
    assert!(
        e.to_string().contains("the key \"NR\" is given twice"),
        "{e}"
    );
}
