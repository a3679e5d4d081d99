//! The coordinate readers' throughput in MB/s of file text: a synthetic
//! Matrix Market file of 2M entries (shuffled coordinates, so the
//! duplicate check sorts, and 17-digit values) and its FROSTT form.
//! Run with `cargo bench -p synth --bench read_coo`.

use std::fmt::Write as _;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use synth::tensor_io::{parse_mtx, parse_tns, ReadOptions};

const N: u64 = 1_000_000;
const NNZ: u64 = 2_000_000;

/// The entries: distinct coordinates in a scrambled order, values with
/// full precision.
fn entries() -> impl Iterator<Item = (u64, u64, f64)> {
    (0..NNZ).map(|e| {
        // 1_000_003 is a prime, coprime with N * N: distinct keys.
        let k = e * 1_000_003 % (N * N);
        (k / N + 1, k % N + 1, (e as f64 + 0.5) / 7.0)
    })
}

fn mtx_text() -> String {
    let mut s = format!("%%MatrixMarket matrix coordinate real general\n{N} {N} {NNZ}\n");
    for (i, j, v) in entries() {
        let _ = writeln!(s, "{i} {j} {v}");
    }
    s
}

fn tns_text() -> String {
    let mut s = String::new();
    for (i, j, v) in entries() {
        let _ = writeln!(s, "{i} {j} {} {v}", i % 7 + 1);
    }
    s
}

fn readers(c: &mut Criterion) {
    let options = ReadOptions::default();
    let mut group = c.benchmark_group("read_coo");
    group.sample_size(10);
    let mtx = mtx_text();
    group.throughput(Throughput::Bytes(mtx.len() as u64));
    group.bench_function("mtx_2M", |b| {
        b.iter(|| parse_mtx(mtx.as_bytes(), &options).expect("valid"))
    });
    let tns = tns_text();
    group.throughput(Throughput::Bytes(tns.len() as u64));
    group.bench_function("tns_2M", |b| {
        b.iter(|| parse_tns(tns.as_bytes(), &options).expect("valid"))
    });
    group.finish();
}

criterion_group!(benches, readers);
criterion_main!(benches);
