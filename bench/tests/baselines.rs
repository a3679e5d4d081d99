//! The baselines agree with the oracle: every C, sprs and nalgebra-sparse
//! conversion on small generated matrices (and on random ones) stores
//! exactly the input's entries and satisfies the destination's descriptor.

use bench::c::{self, COutput};
use bench::input::{self, Compressed, Tensor};
use bench::{rustlibs, scipy, verify, Conversion};
use proptest::prelude::*;
use synth::builtin::load_format;
use synth::instance::Instance;

/// The C baseline of `conv` on `t` (entries in `t`'s order), as an
/// instance; `None` for a conversion whose C exists only paired with its
/// converter (`bench/c/paired/`, checked by the root package's
/// tests/bench_paired.rs).
fn c_output(conv: Conversion, t: &Tensor) -> Option<Instance> {
    let csr = Compressed::from_coo(t, true);
    let csc = Compressed::from_coo(t, false);
    if !c::in_process(conv) {
        return None;
    }
    let r: Result<(f64, COutput), String> = match conv {
        Conversion::CooCsrUnsorted | Conversion::CooCsrSorted => c::coo_to_compressed(t, true),
        // SCOO's entries are row-major: sort a copy first.
        Conversion::ScooCsr => {
            let mut sorted = t.clone();
            let mut order: Vec<usize> = (0..t.len()).collect();
            order.sort_by_key(|&e| (t.indices[0][e], t.indices[1][e]));
            for (mode, src) in sorted.indices.iter_mut().zip(&t.indices) {
                *mode = order.iter().map(|&e| src[e]).collect();
            }
            sorted.values = order.iter().map(|&e| t.values[e]).collect();
            c::sorted_coo_to_csr(&sorted)
        }
        Conversion::CooCsc => c::coo_to_compressed(t, false),
        Conversion::CsrCsc => c::transpose(&csr),
        Conversion::CooDia => c::coo_to_dia(t),
        Conversion::CsrDia => c::compressed_to_dia(&csr),
        Conversion::CscDia => c::compressed_to_dia(&csc),
        Conversion::CsrEll => c::compressed_to_ell(&csr),
        Conversion::CscEll => c::compressed_to_ell(&csc),
        Conversion::Coo3dMcoo3 => c::coo3_to_mcoo3(t),
        Conversion::CooUcsr
        | Conversion::CooDcsr
        | Conversion::CooTcoo8
        | Conversion::Coo3dCsf3 => unreachable!("{conv} has no in-process C"),
    };
    let (seconds, out) = r.unwrap_or_else(|e| panic!("{conv}: {e}"));
    assert!(seconds >= 0.0);
    Some(out.into_instance(conv.dst_format(), &t.dims))
}

fn check(conv: Conversion, t: &Tensor, out: &Instance, who: &str) {
    let dst = load_format(conv.dst()).unwrap();
    let expected = input::entries(t);
    if let Err(e) = verify::check(&dst, &expected, out) {
        panic!("{who} {conv}: {e}");
    }
}

fn check_all_c(t: &Tensor) {
    for conv in Conversion::ALL
        .into_iter()
        .filter(|c| c.order() == t.dims.len())
        .filter(|c| bench::runner::padding_skip(*c, t, 16.0).is_none())
    {
        if let Some(out) = c_output(conv, t) {
            check(conv, t, &out, "C");
        }
    }
}

#[test]
fn c_baselines_agree_with_the_oracle_on_generated_matrices() {
    for (name, scale) in [
        ("ecology1", 0.0005),
        ("pwtk", 0.002),
        ("webbase-1M", 0.0005),
        ("shyy161", 0.005),
        ("majorbasis", 0.002),
        ("darpa", 0.0002),
        ("freebase-music", 0.0002),
    ] {
        let spec = matgen::find(name).unwrap();
        for shuffle in [false, true] {
            check_all_c(&input::generate(spec, scale, 7, shuffle));
        }
    }
}

#[test]
fn rust_libraries_agree_with_the_oracle() {
    let spec = matgen::find("scircuit").unwrap();
    let t = input::generate(spec, 0.002, 3, true);
    let csr = Compressed::from_coo(&t, true);
    for (conv, to_rows) in [
        (Conversion::CooCsrUnsorted, true),
        (Conversion::CooCsc, false),
    ] {
        let (_, out) = rustlibs::sprs_convert(&rustlibs::sprs_from_coo(&t), to_rows).unwrap();
        check(conv, &t, &out, "sprs");
        let input = rustlibs::nalgebra_from_coo(&t).unwrap();
        let (_, out) = rustlibs::nalgebra_convert(&input, to_rows).unwrap();
        check(conv, &t, &out, "nalgebra");
    }
    let (_, out) = rustlibs::sprs_convert(&rustlibs::sprs_from_compressed(&csr), false).unwrap();
    check(Conversion::CsrCsc, &t, &out, "sprs");
    let input = rustlibs::nalgebra_from_csr(&csr).unwrap();
    let (_, out) = rustlibs::nalgebra_convert(&input, false).unwrap();
    check(Conversion::CsrCsc, &t, &out, "nalgebra");
    // Asking for the storage the input already has is refused, not faked.
    assert!(rustlibs::sprs_convert(&rustlibs::sprs_from_compressed(&csr), true).is_err());
}

#[test]
fn scipy_dia_layout_becomes_spf_dia() {
    // 3 x 4, entries (0,0)=1, (1,2)=2, (2,1)=3: offsets 0, 1, -1 in scipy's
    // column-indexed layout data[d, j] = A[j - off[d], j].
    let offsets = [0, 1, -1];
    let width = 4;
    let mut data = vec![0.0; 3 * width];
    data[0] = 1.0; // d=0 (off 0), j=0: (0,0)
    data[width + 2] = 2.0; // d=1 (off 1), j=2: (1,2)
    data[2 * width + 1] = 3.0; // d=2 (off -1), j=1: (2,1)
    let inst = scipy::dia_instance(3, 4, &offsets, &data, width as i64);
    let t = Tensor {
        dims: vec![3, 4],
        indices: vec![vec![0, 1, 2], vec![0, 2, 1]],
        values: vec![1.0, 2.0, 3.0],
    };
    check(Conversion::CooDia, &t, &inst, "scipy layout");
}

#[test]
fn a_wrong_output_is_caught() {
    let spec = matgen::find("ecology1").unwrap();
    let t = input::generate(spec, 0.0005, 1, true);
    let mut out = c_output(Conversion::CooCsrUnsorted, &t).expect("in-process C");
    if let Some(synth::instance::Values::Real(a)) = out.arrays.get_mut("A") {
        a.to_mut().swap(0, 1);
    }
    let dst = load_format("csr").unwrap();
    assert!(verify::check(&dst, &input::entries(&t), &out).is_err());
    // and the fast path does not hide it
    let good = c_output(Conversion::CooCsrUnsorted, &t).expect("in-process C");
    assert!(verify::check_against(Some(&good), &dst, &input::entries(&t), &out).is_err());
}

/// Random small matrices (empty rows and columns, a single entry, none).
fn matrix() -> impl Strategy<Value = Tensor> {
    (1i64..12, 1i64..12)
        .prop_flat_map(|(nr, nc)| {
            (
                Just((nr, nc)),
                proptest::collection::btree_map((0..nr, 0..nc), 1i64..100, 0..40),
                any::<u64>(),
            )
        })
        .prop_map(|((nr, nc), entries, seed)| {
            let mut t = Tensor {
                dims: vec![nr, nc],
                indices: vec![
                    entries.keys().map(|k| k.0).collect(),
                    entries.keys().map(|k| k.1).collect(),
                ],
                values: entries.values().map(|&v| v as f64 / 4.0).collect(),
            };
            t.shuffle(seed);
            t
        })
}

fn tensor() -> impl Strategy<Value = Tensor> {
    (1i64..40, 1i64..9, 1i64..300)
        .prop_flat_map(|(a, b, c)| {
            (
                Just((a, b, c)),
                proptest::collection::btree_map((0..a, 0..b, 0..c), 1i64..100, 0..60),
                any::<u64>(),
            )
        })
        .prop_map(|((a, b, c), entries, seed)| {
            let mut t = Tensor {
                dims: vec![a, b, c],
                indices: vec![
                    entries.keys().map(|k| k.0).collect(),
                    entries.keys().map(|k| k.1).collect(),
                    entries.keys().map(|k| k.2).collect(),
                ],
                values: entries.values().map(|&v| v as f64).collect(),
            };
            t.shuffle(seed);
            t
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn c_baselines_agree_with_the_oracle_on_random_matrices(t in matrix()) {
        check_all_c(&t);
    }

    #[test]
    fn morton_radix_sort_agrees_with_the_oracle(t in tensor()) {
        check_all_c(&t);
    }
}
