//! Criterion benches of synthesis itself: descriptors in, C out
//! (`synthesize_unvalidated` + `program()` + `emit_c`), for the
//! dissertation's conversions one by one, and for every ordered pair of
//! built-in formats that synthesizes; and of translation validation, which
//! `synthesize` adds once per pair and process (`validate::validate` on the
//! whole battery, the test instances made by an unvalidated COO → source
//! conversion). docs/benchmarks.md has the figures.
//!
//! `cargo bench -p bench --bench synthesis`

use criterion::{criterion_group, criterion_main, Criterion};
use synth::builtin::{builtin_names, load_format};
use synth::synthesize::synthesize_unvalidated;
use synth::validate::validate;
use synth::Descriptor;

/// Synthesizes `src` → `dst`, scans it and prints C; `None` when the pair
/// does not synthesize (BCSR, or different orders).
fn to_c(src: &Descriptor, dst: &Descriptor) -> Option<String> {
    let s = synthesize_unvalidated(src, dst).ok()?;
    let program = s.program().ok()?;
    codegen::c::emit_c(&program).ok()
}

fn formats() -> Vec<Descriptor> {
    builtin_names()
        .iter()
        .map(|n| load_format(n).expect("built-in descriptors load"))
        .collect()
}

fn dissertation(c: &mut Criterion) {
    let mut group = c.benchmark_group("synthesize+scan+emit_c");
    for (src, dst) in [
        ("coo", "csr"),
        ("csr", "csc"),
        ("coo", "dia"),
        ("coo3d", "mcoo3"),
    ] {
        let s = load_format(src).expect("built-in");
        let d = load_format(dst).expect("built-in");
        assert!(to_c(&s, &d).is_some(), "{src} -> {dst} synthesizes");
        group.bench_function(format!("{src}->{dst}"), |b| b.iter(|| to_c(&s, &d)));
    }
    group.finish();
}

fn all_pairs(c: &mut Criterion) {
    let formats = formats();
    let pairs: Vec<(&Descriptor, &Descriptor)> = formats
        .iter()
        .flat_map(|s| formats.iter().map(move |d| (s, d)))
        .filter(|(s, d)| to_c(s, d).is_some())
        .collect();
    let mut group = c.benchmark_group("all pairs");
    group.sample_size(10);
    group.bench_function(format!("{} ordered pairs", pairs.len()), |b| {
        b.iter(|| {
            for (s, d) in &pairs {
                std::hint::black_box(to_c(s, d));
            }
        })
    });
    group.finish();
}

/// Validation of one synthesized conversion: every test tensor converted
/// (through COO → source first when the source is not COO) and checked.
fn validation(c: &mut Criterion) {
    let maker =
        |a: &Descriptor, b: &Descriptor| synthesize_unvalidated(a, b).map_err(|e| e.to_string());
    let mut group = c.benchmark_group("validate");
    group.sample_size(10);
    for (src, dst) in [
        ("coo", "csr"),
        ("csr", "csc"),
        ("coo", "dia"),
        ("dia", "ell"),
        ("coo3d", "mcoo3"),
    ] {
        let s = load_format(src).expect("built-in");
        let d = load_format(dst).expect("built-in");
        let conversion = synthesize_unvalidated(&s, &d).expect("synthesizes");
        assert!(
            validate(&conversion, &maker).is_ok(),
            "{src} -> {dst} validates"
        );
        group.bench_function(format!("{src}->{dst}"), |b| {
            b.iter(|| validate(&conversion, &maker))
        });
    }
    group.finish();
}

criterion_group!(benches, dissertation, all_pairs, validation);
criterion_main!(benches);
