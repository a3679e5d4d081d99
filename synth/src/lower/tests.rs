//! Tests of what the lowering promises the backends: scatters that place
//! what they inserted, and placing loops the C backend looks ahead in.

use crate::builtin::load_format;
use crate::synthesize::synthesize;

/// A streaming scatter's placing pass places the entries its counting
/// pass inserted, under the same key: the lowering says so with
/// `place_inserted`, and the C backend then calls the runtime's
/// unchecked place (no `O(E)` over-placement check when the scatter is
/// freed). The interpreter still checks the claim: the synthesis tests
/// run every conversion through it.
#[test]
fn streaming_scatters_place_what_they_inserted() {
    for (src, dst) in [
        ("csr", "csc"),
        ("csc", "csr"),
        ("dia", "csr"),
        ("scoo", "csc"),
        ("csr", "coo"),
        ("bcsr", "coo"),
    ] {
        let s = synthesize(&load_format(src).unwrap(), &load_format(dst).unwrap()).unwrap();
        let text = s.computation.to_string();
        assert!(text.contains(".place_inserted("), "{src} -> {dst}:\n{text}");
        assert!(!text.contains(".place("), "{src} -> {dst}:\n{text}");
        let c = codegen::c::emit_c(&s.program().unwrap()).unwrap();
        assert!(
            c.contains("spf_scatter_place_inserted(&"),
            "{src} -> {dst}:\n{c}"
        );
        assert!(!c.contains("spf_scatter_place(&"), "{src} -> {dst}");
    }
}

/// The transpositions' placing loops read their keys from the source's
/// index array at the loop variable, and so does CSC -> ELL's loop that
/// gives each entry its slot in its row: the C backend prints them
/// twice, looking ahead when the entries are out of cache
/// (docs/runtime.md), the prefetches just before the placing statement,
/// at the targets' indices with the key and position read ahead. A
/// scatter keyed otherwise (DIA's rows, COO's rows in any order: `ii`
/// is no array element at the loop variable) is printed once.
#[test]
fn transpositions_look_ahead_in_their_placing_loops() {
    for (src, dst, keys, call, prefetch) in [
        (
            "csr",
            "csc",
            "col",
            "spf_scatter_place_inserted(&P, ",
            "spf_prefetch_at(*row, sizeof **row, *NNZ_out, ahead);",
        ),
        (
            "csc",
            "csr",
            "row",
            "spf_scatter_place_inserted(&P, ",
            "spf_prefetch_at(*col, sizeof **col, *NNZ_out, ahead);",
        ),
        (
            "csc",
            "ell",
            "row",
            "spf_scatter_slot_inserted(&P, ",
            "spf_prefetch_in(*col, sizeof **col, NR * *W, ahead_key * *W + ahead);",
        ),
    ] {
        let s = synthesize(&load_format(src).unwrap(), &load_format(dst).unwrap()).unwrap();
        let c = codegen::c::emit_c(&s.program().unwrap()).unwrap();
        let far = "if (SPF_UNLIKELY(spf_scatter_far(&P, sizeof **";
        assert_eq!(c.matches(far).count(), 1, "{src} -> {dst}:\n{c}");
        let ahead = format!("(&P, spf_ahead_key({keys}, NNZ, k + 2 * SPF_LOOKAHEAD));");
        let at = c
            .find(&ahead)
            .unwrap_or_else(|| panic!("{src} -> {dst}:\n{c}"));
        let place = c[at..].find(call).expect("the place after");
        assert!(c[at..at + place].contains(prefetch), "{src} -> {dst}:\n{c}");
        // Both versions place: the one looking ahead and the other.
        assert_eq!(
            c.matches(&format!("= {call}")).count(),
            2,
            "{src} -> {dst}:\n{c}"
        );
    }
    for (src, dst) in [
        ("dia", "csr"),
        ("csr", "coo"),
        ("dia", "ell"),
        ("coo", "csr"),
    ] {
        let s = synthesize(&load_format(src).unwrap(), &load_format(dst).unwrap()).unwrap();
        let c = codegen::c::emit_c(&s.program().unwrap()).unwrap();
        assert!(!c.contains("spf_scatter_far(&"), "{src} -> {dst}:\n{c}");
    }
}

/// A source coordinate the sort key determines is read back from the key
/// over sorted positions, not carried as a payload: TCOO8's row and
/// column are `8 * tile + offset` of its compared components, so only the
/// source index rides along (`P.insert(.., n)`, five components); the
/// key's components are read where the copy needs the coordinates.
#[test]
fn coordinates_the_key_determines_are_read_from_it() {
    let s = synthesize(&load_format("coo").unwrap(), &load_format("tcoo8").unwrap()).unwrap();
    let text = s.computation.to_string();
    assert!(text.contains("Permutation(5, counting("), "{text}");
    for c in 0..4 {
        assert!(text.contains(&format!(".key({c}, p)")), "{text}");
    }
    // COO -> CSR: the column is a key component itself, the row pointers
    // come from the counts; only the source index is a payload.
    let s = synthesize(&load_format("coo").unwrap(), &load_format("csr").unwrap()).unwrap();
    let text = s.computation.to_string();
    assert!(text.contains("Permutation(3, counting("), "{text}");
}
