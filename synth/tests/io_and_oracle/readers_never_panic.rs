//! Properties over arbitrary input (proptest): the readers never panic on
//! random or mutated bytes, and written matrices read back exactly.

use proptest::prelude::*;
use synth::instance::Instance;
use synth::instance_validation::validate;
use synth::oracle::entries;
use synth::tensor_io::{read_mtx, read_tns, write_mtx, write_tns, Coordinates};

use crate::{csr, data};

fn mutate(base: &[u8], edits: &[(usize, u8, u8)]) -> Vec<u8> {
    let mut b = base.to_vec();
    for &(at, kind, byte) in edits {
        let at = if b.is_empty() { 0 } else { at % (b.len() + 1) };
        match kind % 3 {
            0 => b.insert(at, byte),
            1 if at < b.len() => {
                b.remove(at);
            }
            _ if at < b.len() => b[at] = byte,
            _ => b.push(byte),
        }
    }
    b
}

fn interesting_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        Just(b'0'),
        Just(b'1'),
        Just(b'9'),
        Just(b' '),
        Just(b'\n'),
        Just(b'-'),
        Just(b'.'),
        Just(b'e'),
        Just(b'%'),
        Just(b'#'),
        Just(b'"'),
        Just(b'{'),
        Just(b'['),
        Just(b','),
        any::<u8>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = read_mtx(&bytes);
        let _ = read_tns(&bytes, None);
        let _ = read_tns(&bytes, Some(&[3, 3]));
        let _ = Instance::from_json_bytes(&bytes);
    }

    #[test]
    fn mutated_files_never_panic(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), interesting_byte()), 1..8)
    ) {
        let mtx = std::fs::read(data("small.mtx")).unwrap();
        let _ = read_mtx(&mutate(&mtx, &edits));
        let sym = b"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n";
        let _ = read_mtx(&mutate(sym, &edits));
        let tns = std::fs::read(data("small.tns")).unwrap();
        let _ = read_tns(&mutate(&tns, &edits), None);
        let json = std::fs::read(data("csr_small.json")).unwrap();
        if let Ok(inst) = Instance::from_json_bytes(&mutate(&json, &edits)) {
            // Whatever parses validates or fails cleanly, quickly.
            let _ = validate(&csr(), &inst);
            let _ = entries(&csr(), &inst);
        }
    }

    #[test]
    fn written_matrices_read_back_exactly(
        values in proptest::collection::vec(
            prop_oneof![any::<f64>().prop_filter("finite", |v| v.is_finite()), Just(-0.0), Just(0.1)],
            1..20,
        ),
        rows in 1i64..50,
        cols in 1i64..50,
    ) {
        // Distinct coordinates in a shuffled-looking order.
        let entries: Vec<(Vec<i64>, f64)> = values
            .iter()
            .enumerate()
            .map(|(k, v)| {
                let k = k as i64 * 7919;
                (vec![k % rows, (k / rows) % cols], *v)
            })
            .collect();
        let mut seen = std::collections::HashSet::new();
        let entries: Vec<_> = entries.into_iter().filter(|e| seen.insert(e.0.clone())).collect();
        let c = Coordinates { dims: vec![rows, cols], entries };
        let mut out = Vec::new();
        write_mtx(&c, &mut out).unwrap();
        let back = read_mtx(&out).unwrap();
        prop_assert_eq!(back.dims, c.dims.clone());
        prop_assert_eq!(back.entries.len(), c.entries.len());
        for (a, b) in back.entries.iter().zip(&c.entries) {
            prop_assert_eq!(&a.0, &b.0);
            prop_assert_eq!(a.1.to_bits(), b.1.to_bits());
        }
        let mut out = Vec::new();
        write_tns(&c, &mut out).unwrap();
        let back = read_tns(&out, Some(&c.dims)).unwrap();
        for (a, b) in back.entries.iter().zip(&c.entries) {
            prop_assert_eq!(a.1.to_bits(), b.1.to_bits());
        }
    }
}
