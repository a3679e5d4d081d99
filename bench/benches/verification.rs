//! Criterion benches of output verification (what the benchmark runner
//! does before a converter's time counts): `verify::check` on the outputs
//! of the hand-written C baselines for a generated matrix.
//!
//! `cargo bench -p bench --bench verification`; `VERIFY_BENCH_MATRIX`
//! (default `rma10`) and `VERIFY_BENCH_SCALE` (default 0.05) choose the
//! input.

use criterion::{criterion_group, criterion_main, Criterion};

use bench::c;
use bench::input::{self, Compressed};
use bench::{verify, Conversion};
use synth::builtin::load_format;

fn verification(cr: &mut Criterion) {
    let name = std::env::var("VERIFY_BENCH_MATRIX").unwrap_or_else(|_| "rma10".into());
    let scale: f64 = std::env::var("VERIFY_BENCH_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.05);
    let spec = matgen::find(&name).expect("a catalog entry");
    let t = input::generate(spec, scale, 42, false);
    let expected = input::entries(&t);
    let csr = Compressed::from_coo(&t, true);
    let csc = Compressed::from_coo(&t, false);
    let outputs = [
        (Conversion::CooCsrSorted, c::coo_to_compressed(&t, true)),
        (Conversion::CooCsc, c::coo_to_compressed(&t, false)),
        (Conversion::CsrDia, c::compressed_to_dia(&csr)),
        (Conversion::CscEll, c::compressed_to_ell(&csc)),
    ];
    let mut group = cr.benchmark_group(format!("verify::check {name} at {scale}"));
    group.sample_size(10);
    for (conv, out) in outputs {
        if bench::runner::padding_skip(conv, &t, 16.0).is_some() {
            continue;
        }
        let (_, out) = out.expect("the C baseline runs");
        let inst = out.into_instance(conv.dst_format(), &t.dims);
        let dst = load_format(conv.dst()).expect("built-in");
        verify::check(&dst, &expected, &inst).expect("the baseline's output verifies");
        group.bench_function(conv.to_string(), |b| {
            b.iter(|| verify::check(&dst, &expected, &inst))
        });
    }
    group.finish();
}

criterion_group!(benches, verification);
criterion_main!(benches);
