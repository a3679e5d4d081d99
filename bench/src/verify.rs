//! Correctness before speed: every output, the generated converter's and
//! each baseline's, is checked before its time counts.
//!
//! [`check`] is the full check: the instance satisfies the destination's
//! descriptor (names, lengths, ranges, monotonicity, ordering rules:
//! `synth::instance_validation::validate`) and stores exactly the input's entries
//! (`synth::oracle`). [`check_against`] first compares a baseline's arrays
//! with a reference output that passed [`check`] (the generated
//! converter's): equal arrays are equally correct, and anything else gets
//! the full check, so a baseline that lays its output out differently but
//! correctly still passes.

use std::collections::BTreeMap;

use synth::instance::{Instance, Values};
use synth::Descriptor;

/// The full check of `out` against the descriptor `dst` and the entries
/// `expected` the input stores.
pub fn check(
    dst: &Descriptor,
    expected: &BTreeMap<Vec<i64>, f64>,
    out: &Instance,
) -> Result<(), String> {
    synth::instance_validation::validate(dst, out)
        .map_err(|e| format!("not a valid {}: {e}", dst.name))?;
    let got = synth::oracle::sorted_entries(dst, out).map_err(|e| format!("oracle: {e}"))?;
    synth::oracle::compare_sorted(expected, &got).map_err(|m| m.to_string())
}

/// Whether two instances hold the same symbols and arrays (integer arrays
/// exactly, value arrays by `==` on reals).
pub fn same(a: &Instance, b: &Instance) -> bool {
    if a.symbols != b.symbols || a.arrays.len() != b.arrays.len() {
        return false;
    }
    let real = |v: &Values, k: usize| match v {
        Values::Real(v) => v[k],
        ints => ints.int_at(k).unwrap_or_default() as f64,
    };
    a.arrays
        .iter()
        .all(|(name, x)| match (x, b.arrays.get(name)) {
            (Values::Real(x), Some(Values::Real(y))) => x == y,
            (Values::Int(_) | Values::Int32(_), Some(y @ (Values::Int(_) | Values::Int32(_)))) => {
                x == y
            }
            (x, Some(y)) => x.len() == y.len() && (0..x.len()).all(|k| real(x, k) == real(y, k)),
            (_, None) => false,
        })
}

/// [`check`], skipped when `out` equals `reference`, an output that passed
/// it.
pub fn check_against(
    reference: Option<&Instance>,
    dst: &Descriptor,
    expected: &BTreeMap<Vec<i64>, f64>,
    out: &Instance,
) -> Result<(), String> {
    match reference {
        Some(r) if same(r, out) => Ok(()),
        _ => check(dst, expected, out),
    }
}
