//! Criterion benches for the relation operations on the dissertation's
//! COO→CSR example: parsing, inverse, composition, simplification and one
//! z3 query under the UF environment.

use criterion::{criterion_group, criterion_main, Criterion};
use iegen::calc::Calculator;
use iegen::{Prover, Relation};
use std::hint::black_box;

const COO: &str = "{[n, ii, jj] -> [i, j] : row1(n) = i && col1(n) = j && ii = i && jj = j \
                   && 0 <= i < NR && 0 <= n < NNZ && 0 <= j < NC}";
const CSR: &str = "{[ii, k, jj] -> [i, j] : ii = i && jj = j && col2(k) = j && 0 <= ii < NR \
                   && rowptr(ii) <= k < rowptr(ii + 1)}";

const ENV: &str = "
uf rowptr : {[x] : 0 <= x <= NR} -> {[y] : 0 <= y <= NNZ} nondecreasing;
uf col2 : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < NC};
uf row1 : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < NR};
uf col1 : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < NC};
";

fn relations(c: &mut Criterion) {
    let coo: Relation = COO.parse().expect("COO map parses");
    let csr: Relation = CSR.parse().expect("CSR map parses");
    let csr_inv = csr.inverse();
    let composed = csr_inv.compose(&coo).expect("arities fit");

    c.bench_function("parse CSR map", |b| {
        b.iter(|| black_box(CSR).parse::<Relation>().expect("parses"))
    });
    c.bench_function("inverse CSR map", |b| b.iter(|| black_box(&csr).inverse()));
    c.bench_function("compose inverse(CSR) with COO", |b| {
        b.iter(|| {
            black_box(&csr_inv)
                .compose(black_box(&coo))
                .expect("arities fit")
        })
    });
    c.bench_function("simplify composed COO->CSR", |b| {
        b.iter(|| black_box(&composed).simplify())
    });

    let mut calc = Calculator::new();
    calc.run(ENV, &mut |_| {}).expect("environment declares");
    let prover = Prover::new(calc.env());
    let domain = csr.domain();
    let out_of_bounds: iegen::Set =
        "{[i, k, j] : 0 <= i < NR && rowptr(i) <= k < rowptr(i + 1) && k >= NNZ}"
            .parse()
            .expect("parses");
    c.bench_function("z3: CSR iterations stay below NNZ", |b| {
        b.iter(|| {
            let verdict = prover.is_empty(black_box(&out_of_bounds));
            assert!(verdict.holds());
        })
    });
    c.bench_function("z3: is_equal(domain(CSR), domain(CSR))", |b| {
        b.iter(|| {
            prover
                .is_equal(black_box(&domain), black_box(&domain))
                .expect("arity")
        })
    });
}

criterion_group!(benches, relations);
criterion_main!(benches);
