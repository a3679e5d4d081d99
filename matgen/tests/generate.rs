//! The generator's promises, on every catalog entry at small scales, and
//! property tests over seeds and scales.

use matgen::{catalog, check_scale, find, generate, generate_coo, targets, Coo, Kind, MatrixSpec};
use proptest::prelude::*;

/// Small enough for every entry to take milliseconds.
const SMALL: f64 = 0.001;

fn is_matrix(spec: &MatrixSpec) -> bool {
    spec.dims.len() == 2
}

/// Coordinates strictly increasing in row-major order, and inside the extents.
fn assert_well_formed(name: &str, c: &Coo) {
    let order = c.dims.len();
    assert_eq!(c.indices.len(), order, "{name}");
    for mode in &c.indices {
        assert_eq!(mode.len(), c.len(), "{name}");
    }
    let key = |e: usize| -> Vec<i64> { c.indices.iter().map(|m| m[e]).collect() };
    for e in 0..c.len() {
        for (k, mode) in c.indices.iter().enumerate() {
            assert!(
                (0..c.dims[k]).contains(&mode[e]),
                "{name}: entry {e} mode {k}"
            );
        }
        assert!(c.values[e] > 0.0 && c.values[e] <= 16.0, "{name}: value");
        if e > 0 {
            assert!(
                key(e - 1) < key(e),
                "{name}: entries {} and {e} out of order or duplicated",
                e - 1
            );
        }
    }
}

fn nnz_tolerance(spec: &MatrixSpec) -> f64 {
    match spec.kind {
        Kind::Fem(_) => 0.10,
        Kind::Stencil(_) => 0.03,
        Kind::PowerLaw(_) | Kind::Random(_) => 0.0,
    }
}

#[test]
fn every_entry_is_well_formed_and_meets_its_targets() {
    for spec in catalog() {
        for scale in [SMALL, 0.01] {
            let t = targets(spec, scale);
            let c = generate_coo(spec, scale, 7);
            assert_eq!(c.dims, t.dims, "{}", spec.name);
            assert_well_formed(spec.name, &c);
            let stats = c.stats();
            let (got, want) = (stats.nnz as f64, t.nnz as f64);
            let slack =
                nnz_tolerance(spec) * want + 16.0 * f64::from(u8::from(nnz_tolerance(spec) > 0.0));
            assert!(
                (got - want).abs() <= slack,
                "{} at {scale}: nnz {got}, target {want}",
                spec.name
            );
            if is_matrix(spec) {
                assert_eq!(stats.diagonals, t.diagonals, "{} at {scale}", spec.name);
            }
            if let Kind::PowerLaw(_) = spec.kind {
                assert_eq!(stats.max_row, t.max_row, "{} at {scale}", spec.name);
            }
        }
    }
}

#[test]
fn scaled_nnz_is_proportional() {
    for spec in catalog() {
        let t = targets(spec, 0.01);
        let proportional = spec.nnz as f64 * t.scale;
        let slack = match spec.kind {
            // Boundary rows are a larger share of a small grid.
            Kind::Stencil(_) => 0.10,
            _ => 0.03,
        };
        assert!(
            (t.nnz as f64 - proportional).abs() <= slack * proportional,
            "{}: {} vs {proportional}",
            spec.name,
            t.nnz
        );
        let rows = t.dims[0] as f64;
        assert!(
            (rows - spec.dims[0] as f64 * t.scale).abs() <= 0.01 * rows + 1.0
                || matches!(spec.kind, Kind::Random(_)),
            "{}",
            spec.name
        );
    }
}

#[test]
fn full_scale_targets_match_the_papers() {
    for spec in catalog() {
        let t = targets(spec, 1.0);
        assert_eq!(t.dims, spec.dims, "{}", spec.name);
        let slack = match spec.kind {
            Kind::Fem(_) => 0.001,
            _ => 0.0002,
        };
        assert!(
            (t.nnz as f64 - spec.nnz as f64).abs() <= slack * spec.nnz as f64,
            "{}: {} vs {}",
            spec.name,
            t.nnz,
            spec.nnz
        );
        if let (Some(got), Some(want)) = (t.diagonals, spec.diagonals) {
            let block = match spec.kind {
                Kind::Fem(f) => 2 * f.block as u64,
                _ => 0,
            };
            assert!(
                got.abs_diff(want) <= block + 1,
                "{}: {got} vs {want}",
                spec.name
            );
        }
        if let Kind::Stencil(_) = spec.kind {
            assert_eq!(t.diagonals, spec.diagonals, "{}", spec.name);
        }
    }
}

#[test]
fn stencils_keep_their_diagonals_and_uniform_rows_at_every_scale() {
    for spec in catalog()
        .iter()
        .filter(|s| matches!(s.kind, Kind::Stencil(_)))
    {
        for scale in [0.0001, SMALL, 0.003, 0.02] {
            let s = generate_coo(spec, scale, 3).stats();
            assert_eq!(s.diagonals, spec.diagonals, "{} at {scale}", spec.name);
            let max = s.max_row.unwrap_or(0);
            assert!(max <= spec.max_row.unwrap_or(0), "{} at {scale}", spec.name);
            assert!(
                (max as f64) <= 2.0 * s.mean_row.unwrap_or(0.0),
                "{} at {scale}: max {max}, mean {:?}",
                spec.name,
                s.mean_row
            );
        }
    }
}

#[test]
fn power_law_rows_are_spread_and_fem_rows_bounded() {
    for spec in catalog() {
        let s = generate_coo(spec, 0.01, 11).stats();
        let (max, mean) = (s.max_row.unwrap_or(0) as f64, s.mean_row.unwrap_or(0.0));
        match spec.kind {
            Kind::PowerLaw(_) => {
                assert!(max >= 5.0 * mean, "{}: max {max}, mean {mean}", spec.name);
                assert_eq!(s.min_row, Some(1), "{}", spec.name);
            }
            Kind::Fem(_) => {
                assert!(max <= spec.max_row.unwrap_or(0) as f64, "{}", spec.name);
                assert!(
                    max >= mean && max < 5.0 * mean,
                    "{}: max {max}, mean {mean}",
                    spec.name
                );
            }
            _ => {}
        }
    }
}

#[test]
fn symmetric_specs_are_symmetric() {
    for spec in catalog().iter().filter(|s| s.symmetric) {
        let c = generate_coo(spec, SMALL, 5);
        let mut entries: Vec<(i64, i64, u64)> = (0..c.len())
            .map(|e| (c.indices[0][e], c.indices[1][e], c.values[e].to_bits()))
            .collect();
        let mut mirrored: Vec<(i64, i64, u64)> =
            entries.iter().map(|&(i, j, v)| (j, i, v)).collect();
        entries.sort_unstable();
        mirrored.sort_unstable();
        assert_eq!(entries, mirrored, "{}", spec.name);
    }
}

#[test]
fn seeds_decide_everything() {
    for spec in catalog() {
        let a = generate_coo(spec, SMALL, 1);
        assert_eq!(a, generate_coo(spec, SMALL, 1), "{}", spec.name);
        let b = generate_coo(spec, SMALL, 2);
        assert_ne!(a.values, b.values, "{}", spec.name);
        // A stencil that drops nothing has one pattern; only values differ.
        let fixed_pattern = matches!(spec.kind, Kind::Stencil(_)) && stencil_full(spec) == spec.nnz;
        if !fixed_pattern {
            assert_ne!(a.indices, b.indices, "{}", spec.name);
        }
    }
}

/// A stencil's entries when nothing is dropped (the spec's nnz when exact).
fn stencil_full(spec: &MatrixSpec) -> u64 {
    let probe = MatrixSpec {
        nnz: u64::MAX,
        ..*spec
    };
    targets(&probe, 1.0).nnz
}

#[test]
fn outputs_are_pinned_across_platforms() {
    // A fingerprint of a few instances: a change here changes every
    // benchmark input, so it must be deliberate.
    let fingerprint = |name: &str| -> u64 {
        let c = generate_coo(find(name).expect("in the catalog"), SMALL, 42);
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for e in 0..c.len() {
            for mode in &c.indices {
                h = (h ^ mode[e] as u64).wrapping_mul(0x100_0000_01b3);
            }
            h = (h ^ c.values[e].to_bits()).wrapping_mul(0x100_0000_01b3);
        }
        h
    };
    let got: Vec<(&str, u64)> = ["ecology1", "shyy161", "cant", "scircuit", "darpa"]
        .iter()
        .map(|&n| (n, fingerprint(n)))
        .collect();
    let want = PINNED;
    assert_eq!(got, want);
}

const PINNED: [(&str, u64); 5] = [
    ("ecology1", 5936721475994625397),
    ("shyy161", 10823558911020135286),
    ("cant", 14538407439646920855),
    ("scircuit", 8924726893415529471),
    ("darpa", 12876263580517938410),
];

#[test]
fn shuffle_permutes_and_is_seeded() {
    let spec = find("majorbasis").expect("in the catalog");
    let sorted = generate_coo(spec, SMALL, 9);
    let mut a = sorted.clone();
    a.shuffle(4);
    let mut b = sorted.clone();
    b.shuffle(4);
    assert_eq!(a, b);
    assert_ne!(a, sorted);
    let triples = |c: &Coo| -> Vec<(i64, i64, u64)> {
        let mut t: Vec<_> = (0..c.len())
            .map(|e| (c.indices[0][e], c.indices[1][e], c.values[e].to_bits()))
            .collect();
        t.sort_unstable();
        t
    };
    assert_eq!(triples(&a), triples(&sorted));
}

#[test]
fn coordinates_round_trip_through_matrix_market() {
    let spec = find("denormal").expect("in the catalog");
    let c = generate(spec, SMALL, 1);
    let mut bytes = Vec::new();
    synth::tensor_io::write_mtx(&c, &mut bytes).expect("writes");
    let back = synth::tensor_io::read_mtx(&bytes).expect("reads");
    assert_eq!(back, c);
}

#[test]
fn scales_outside_the_unit_interval_are_refused() {
    for bad in [0.0, -0.5, 1.5, f64::NAN, f64::INFINITY] {
        assert!(check_scale(bad).is_err(), "{bad}");
    }
    assert!(check_scale(1.0).is_ok());
    assert!(check_scale(1e-9).is_ok());
    let e = check_scale(2.0).unwrap_err();
    assert_eq!(e.to_string(), "the scale must be in (0, 1], not 2");
}

#[test]
#[should_panic(expected = "the scale must be in (0, 1]")]
fn generate_panics_on_a_bad_scale() {
    let _ = generate(&catalog()[0], 0.0, 1);
}

fn small_specs() -> Vec<&'static MatrixSpec> {
    catalog().iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn any_seed_and_small_scale_gives_a_valid_instance(
        which in 0usize..24,
        seed in any::<u64>(),
        scale in 0.0002f64..0.004,
    ) {
        let specs = small_specs();
        let spec = specs[which % specs.len()];
        let t = targets(spec, scale);
        let c = generate_coo(spec, scale, seed);
        assert_well_formed(spec.name, &c);
        prop_assert_eq!(&c.dims, &t.dims);
        let s = c.stats();
        if is_matrix(spec) {
            prop_assert_eq!(s.diagonals, t.diagonals);
        }
        let tol = nnz_tolerance(spec) * t.nnz as f64 + if nnz_tolerance(spec) > 0.0 { 16.0 } else { 0.0 };
        prop_assert!((s.nnz as f64 - t.nnz as f64).abs() <= tol, "{}: {} vs {}", spec.name, s.nnz, t.nnz);
        prop_assert_eq!(&c, &generate_coo(spec, scale, seed));
    }
}

#[test]
fn a_custom_uniform_matrix() {
    let spec = MatrixSpec {
        name: "uniform",
        kind: Kind::Random(matgen::Random {
            skew: &[0.0, 0.0],
            scaled: &[true, true],
        }),
        dims: &[2000, 3000],
        nnz: 50_000,
        diagonals: None,
        max_row: None,
        symmetric: false,
        spread: "binomial",
        notes: "a test",
    };
    let c = generate_coo(&spec, 0.5, 1);
    assert_eq!(c.dims, vec![1000, 1500]);
    assert_eq!(c.len(), 25_000);
    assert_well_formed("uniform", &c);
    let s = c.stats();
    // 25 entries per row on average, binomially spread.
    assert!(s.max_row.unwrap_or(0) < 60, "{s:?}");
    assert!(s.min_row.unwrap_or(0) > 5, "{s:?}");
}
