//! The runtime objects (`Permutation`, `OrderedSet`, `Scatter`;
//! docs/runtime.md) in every backend.
//!
//! Computations written in the `.comp` format call the objects; each is
//! scanned, run by the interpreter, printed as C and Rust, compiled and run
//! (through the backend harness) on random inputs — empty ones and ones full
//! of duplicate keys included — and all three must agree with a reference
//! written here: a stable sort by key (ties keep insertion order), Morton
//! codes built bit by bit, sets from `BTreeSet`, a scatter's positions from a
//! stable sort by key. The Rust runtime is also
//! checked in-process on many more inputs, the interpreter's typed errors
//! one by one, and the C and Rust runtimes' aborts on misuse.

mod harness;

use std::collections::BTreeSet;
use std::process::Command;

use codegen::ast::LoopProgram;
use codegen::c::emit_c;
use codegen::emit::EmitError;
use codegen::interp::{run, Array, Memory, RunError, Site};
use codegen::runtime::spf_runtime::{Order, OrderedSet, Permutation, Scatter};
use codegen::runtime::{CallError, ObjectFault, SpecError};
use codegen::rust::emit_rust;
use iegen::computation::{parse_computation, Computation};
use iegen::UfEnvironment;

use harness::{c_driver, check_cases, rust_driver, tool, Outputs, Rng, CFLAGS};

fn computation(text: &str) -> Computation {
    parse_computation(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn scanned(c: &Computation) -> LoopProgram {
    codegen::scan(c, &UfEnvironment::new()).unwrap_or_else(|e| panic!("{e}"))
}

fn program(text: &str) -> LoopProgram {
    scanned(&computation(text))
}

fn ints(v: Vec<i64>) -> Array {
    Array::Int(v)
}

fn out_ints(outs: &mut Outputs, name: &str, v: Vec<i64>) {
    outs.insert(name.to_string(), Array::Int(v));
}

// ---------------------------------------------------------------------------
// References

/// The entries `0..n` in stable order of `key`.
fn stable_order<K: Ord>(n: usize, key: impl Fn(usize) -> K) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&e| key(e)); // stable
    order
}

/// `interleave(k1, ..., kK)`: bit `b` of component `d` is bit `b·K + d`.
fn morton(key: &[i64]) -> u128 {
    let k = key.len();
    let mut code = 0u128;
    for (d, &v) in key.iter().enumerate() {
        assert!(v >= 0);
        for b in 0..63 {
            if (v >> b) & 1 == 1 {
                let bit = b * k + d;
                assert!(bit < 128, "the reference needs codes of at most 128 bits");
                code |= 1u128 << bit;
            }
        }
    }
    code
}

/// Random COO entries of an `n × m` matrix (duplicates likely when small).
struct Coo {
    n: usize,
    m: usize,
    row: Vec<i64>,
    col: Vec<i64>,
    val: Vec<f64>,
}

fn coo(n: usize, m: usize, nnz: usize, r: &mut Rng) -> Coo {
    assert!(nnz == 0 || n * m > 0);
    let row = (0..nnz).map(|_| r.below(n as u64) as i64).collect();
    let col = (0..nnz).map(|_| r.below(m as u64) as i64).collect();
    Coo {
        n,
        m,
        row,
        col,
        val: r.reals(nnz),
    }
}

/// Shapes: empty, one entry, tiny with many duplicates, larger.
const SHAPES: &[(usize, usize, usize)] = &[
    (0, 0, 0),
    (3, 4, 0),
    (1, 1, 1),
    (1, 1, 9),
    (2, 3, 25),
    (5, 7, 40),
    (9, 2, 60),
    (40, 33, 500),
];

fn coo_memory(c: &Coo) -> Memory {
    let nnz = c.row.len();
    Memory::new()
        .with_symbol("N", c.n as i64)
        .with_symbol("M", c.m as i64)
        .with_symbol("NNZ", nnz as i64)
        .with_array("row", ints(c.row.clone()))
        .with_array("col", ints(c.col.clone()))
        .with_array("val", Array::Real(c.val.clone()))
}

// ---------------------------------------------------------------------------
// Sorting COO entries

/// Sorts COO entries by `(row, col)` with `Permutation(2, ORDER)` and writes
/// the sorted rows, columns and values, the permutation both ways, and what
/// `map` and `size` give while inserting (before `sort`).
fn coo_sort(order: &str) -> LoopProgram {
    program(&format!(
        "computation coo_sort(N, M, NNZ) {{
            in   int  row[NNZ];
            in   int  col[NNZ];
            in   real val[NNZ];
            out  int  srow[NNZ];
            out  int  scol[NNZ];
            out  real sval[NNZ];
            out  int  ent[NNZ];
            out  int  where[NNZ];
            out  int  pre[NNZ];
            out  int  size;
            object P : Permutation(2, {order});

            S0: {{ P.insert(row(n), col(n)); pre(n) = P.map(n) + P.size() }}
                domain {{[n] : 0 <= n < NNZ}} schedule {{[n] -> [0, n, 0]}};
            S1: P.sort() domain {{[]}} schedule {{[] -> [1, 0, 0]}};
            S2: {{ srow(p) = P.key(0, p); scol(p) = P.key(1, p); ent(p) = P.entry(p);
                   where(p) = P.map(p) }}
                domain {{[p] : 0 <= p < NNZ}} schedule {{[p] -> [2, p, 0]}};
            S3: sval(p) = val(ent(p))
                domain {{[p] : 0 <= p < NNZ}} schedule {{[p] -> [3, p, 0]}};
            S4: size = P.size() domain {{[]}} schedule {{[] -> [4, 0, 0]}};
        }}"
    ))
}

/// What `coo_sort` must output for entries sorted in `order`.
fn coo_sort_reference(c: &Coo, order: &[usize]) -> Outputs {
    let nnz = order.len();
    let mut where_ = vec![0; nnz];
    for (p, &e) in order.iter().enumerate() {
        where_[e] = p as i64;
    }
    let mut outs = Outputs::new();
    out_ints(&mut outs, "srow", order.iter().map(|&e| c.row[e]).collect());
    out_ints(&mut outs, "scol", order.iter().map(|&e| c.col[e]).collect());
    outs.insert(
        "sval".into(),
        Array::Real(order.iter().map(|&e| c.val[e]).collect()),
    );
    out_ints(&mut outs, "ent", order.iter().map(|&e| e as i64).collect());
    out_ints(&mut outs, "where", where_);
    out_ints(
        &mut outs,
        "pre",
        (0..nnz as i64).map(|n| 2 * n + 1).collect(),
    );
    out_ints(&mut outs, "size", vec![nnz as i64]);
    outs
}

fn coo_sort_cases(seed: u64, key: impl Fn(&Coo, usize) -> u128) -> Vec<(Memory, Outputs)> {
    let mut r = Rng(seed);
    SHAPES
        .iter()
        .map(|&(n, m, nnz)| {
            let c = coo(n, m, nnz, &mut r);
            let order = stable_order(nnz, |e| key(&c, e));
            let mem = coo_memory(&c)
                .with_array("srow", ints(vec![0; nnz]))
                .with_array("scol", ints(vec![0; nnz]))
                .with_array("sval", Array::Real(vec![0.0; nnz]))
                .with_array("ent", ints(vec![0; nnz]))
                .with_array("where", ints(vec![0; nnz]))
                .with_array("pre", ints(vec![0; nnz]))
                .with_array("size", ints(vec![7]));
            (mem, coo_sort_reference(&c, &order))
        })
        .collect()
}

fn lex_key(c: &Coo, e: usize) -> u128 {
    ((c.row[e] as u128) << 64) | c.col[e] as u128
}

/// `Permutation(2, counting(N, M))` is written `Permutation(2, counting, N,
/// M)` in `.comp` files: the grammar takes only names and literals as
/// object arguments.
const COUNTING: &str = "counting, N, M";

#[test]
fn counting_sort_of_coo_entries_is_stable_in_every_backend() {
    let p = coo_sort(COUNTING);
    check_cases(&p, &coo_sort_cases(11, lex_key));
}

#[test]
fn counting_extents_may_be_given_nested_as_synthesis_builds_them() {
    let flat = coo_sort(COUNTING);
    let mut nested = flat.clone();
    nested.computation.objects[0].args = vec!["2".into(), "counting(N, M)".into()];
    assert_eq!(emit_c(&flat).unwrap(), emit_c(&nested).unwrap());
    assert_eq!(emit_rust(&flat).unwrap(), emit_rust(&nested).unwrap());
}

#[test]
fn lex_sort_of_coo_entries_is_stable_in_every_backend() {
    check_cases(&coo_sort("lex"), &coo_sort_cases(12, lex_key));
}

#[test]
fn morton_sort_of_coo_entries_is_stable_in_every_backend() {
    check_cases(
        &coo_sort("morton"),
        &coo_sort_cases(13, |c, e| morton(&[c.row[e], c.col[e]])),
    );
}

#[test]
fn morton_order_of_three_wide_components_matches_the_interleaved_code() {
    let p = program(
        "computation morton3(NNZ) {
            in  int a[NNZ];
            in  int b[NNZ];
            in  int c[NNZ];
            out int ent[NNZ];
            object P : Permutation(3, morton);
            S0: P.insert(a(n), b(n), c(n))
                domain {[n] : 0 <= n < NNZ} schedule {[n] -> [0, n, 0]};
            S1: P.sort() domain {[]} schedule {[] -> [1, 0, 0]};
            S2: ent(p) = P.entry(p)
                domain {[p] : 0 <= p < NNZ} schedule {[p] -> [2, p, 0]};
        }",
    );
    let mut r = Rng(14);
    let cases: Vec<(Memory, Outputs)> = [0usize, 1, 7, 300]
        .iter()
        .map(|&nnz| {
            // Components of up to 42 bits (codes of up to 126 bits), drawn
            // from a small pool half of the time so that keys repeat and
            // components tie.
            let pool: Vec<i64> = (0..6).map(|_| (r.next() >> 22) as i64).collect();
            let draw = |r: &mut Rng| {
                if r.below(2) == 0 {
                    pool[r.below(6) as usize]
                } else {
                    (r.next() >> (22 + r.below(40))) as i64
                }
            };
            let keys: Vec<[i64; 3]> = (0..nnz)
                .map(|_| [draw(&mut r), draw(&mut r), draw(&mut r)])
                .collect();
            let order = stable_order(nnz, |e| morton(&keys[e]));
            let column = |d: usize| ints(keys.iter().map(|k| k[d]).collect());
            let mem = Memory::new()
                .with_symbol("NNZ", nnz as i64)
                .with_array("a", column(0))
                .with_array("b", column(1))
                .with_array("c", column(2))
                .with_array("ent", ints(vec![0; nnz]));
            let mut outs = Outputs::new();
            out_ints(&mut outs, "ent", order.iter().map(|&e| e as i64).collect());
            (mem, outs)
        })
        .collect();
    check_cases(&p, &cases);
}

// ---------------------------------------------------------------------------
// COO to CSR: the pointer array from `start`, counts from `count`

fn coo_csr(order: &str) -> LoopProgram {
    let counting = order.starts_with("counting");
    let counts = if counting {
        "S5: rowcount(i) = P.count(0, i)
             domain {[i] : 0 <= i < N} schedule {[i] -> [5, i, 0]};
         S6: colcount(j) = P.count(1, j - 1)
             domain {[j] : 0 <= j < M + 2} schedule {[j] -> [6, j, 0]};"
    } else {
        ""
    };
    let spaces = if counting {
        "out int rowcount[N]; out int colcount[M + 2];"
    } else {
        ""
    };
    program(&format!(
        "computation coo_csr(N, M, NNZ) {{
            in   int  row[NNZ];
            in   int  col[NNZ];
            in   real val[NNZ];
            out  int  rowptr[N + 1];
            out  int  colidx[NNZ];
            out  real a[NNZ];
            out  int  probe[N + 4];
            {spaces}
            temp int  ent[NNZ];
            object P : Permutation(2, {order});

            S0: P.insert(row(n), col(n))
                domain {{[n] : 0 <= n < NNZ}} schedule {{[n] -> [0, n, 0]}};
            S1: P.sort() domain {{[]}} schedule {{[] -> [1, 0, 0]}};
            S2: rowptr(i) = P.start(i)
                domain {{[i] : 0 <= i <= N}} schedule {{[i] -> [2, i, 0]}};
            S3: {{ colidx(p) = P.key(1, p); ent(p) = P.entry(p) }}
                domain {{[p] : 0 <= p < NNZ}} schedule {{[p] -> [3, p, 0]}};
            S4: a(p) = val(ent(p))
                domain {{[p] : 0 <= p < NNZ}} schedule {{[p] -> [4, p, 0]}};
            S7: probe(v) = P.start(v - 2)
                domain {{[v] : 0 <= v < N + 4}} schedule {{[v] -> [7, v, 0]}};
            {counts}
        }}"
    ))
}

fn coo_csr_cases(seed: u64, counting: bool) -> Vec<(Memory, Outputs)> {
    let mut r = Rng(seed);
    SHAPES
        .iter()
        .map(|&(n, m, nnz)| {
            let c = coo(n, m, nnz, &mut r);
            let order = stable_order(nnz, |e| (c.row[e], c.col[e]));
            let below = |v: i64| c.row.iter().filter(|&&x| x < v).count() as i64;
            let mut mem = coo_memory(&c)
                .with_array("rowptr", ints(vec![0; n + 1]))
                .with_array("colidx", ints(vec![0; nnz]))
                .with_array("a", Array::Real(vec![0.0; nnz]))
                .with_array("probe", ints(vec![0; n + 4]));
            let mut outs = Outputs::new();
            out_ints(&mut outs, "rowptr", (0..=n as i64).map(below).collect());
            out_ints(
                &mut outs,
                "colidx",
                order.iter().map(|&e| c.col[e]).collect(),
            );
            outs.insert(
                "a".into(),
                Array::Real(order.iter().map(|&e| c.val[e]).collect()),
            );
            out_ints(
                &mut outs,
                "probe",
                (0..n as i64 + 4).map(|v| below(v - 2)).collect(),
            );
            if counting {
                mem = mem
                    .with_array("rowcount", ints(vec![0; n]))
                    .with_array("colcount", ints(vec![0; m + 2]));
                let count = |xs: &[i64], v: i64| xs.iter().filter(|&&x| x == v).count() as i64;
                out_ints(
                    &mut outs,
                    "rowcount",
                    (0..n as i64).map(|i| count(&c.row, i)).collect(),
                );
                out_ints(
                    &mut outs,
                    "colcount",
                    (0..m as i64 + 2).map(|j| count(&c.col, j - 1)).collect(),
                );
            }
            (mem, outs)
        })
        .collect()
}

#[test]
fn counting_permutation_fills_a_pointer_array_with_start_and_count() {
    check_cases(&coo_csr(COUNTING), &coo_csr_cases(21, true));
}

#[test]
fn lex_permutation_fills_a_pointer_array_with_start() {
    check_cases(&coo_csr("lex"), &coo_csr_cases(22, false));
}

// ---------------------------------------------------------------------------
// DIA offsets: an ordered set

const DIA: &str = "computation dia(N, M, NNZ) {
    in  int row[NNZ];
    in  int col[NNZ];
    out int nd;
    out int off[N + M];
    out int dpos[NNZ];
    out int probe[2N + 2M + 1];
    object S : OrderedSet();

    S0: S.insert(col(n) - row(n))
        domain {[n] : 0 <= n < NNZ} schedule {[n] -> [0, n, 0]};
    S1: S.sort() domain {[]} schedule {[] -> [1, 0, 0]};
    S2: nd = S.size() domain {[]} schedule {[] -> [2, 0, 0]};
    S3: if (d < S.size()) off(d) = S.value(d)
        domain {[d] : 0 <= d < N + M} schedule {[d] -> [3, d, 0]};
    S4: dpos(n) = S.index(col(n) - row(n))
        domain {[n] : 0 <= n < NNZ} schedule {[n] -> [4, n, 0]};
    S5: probe(v + N + M) = S.index(v)
        domain {[v] : -N - M <= v <= N + M} schedule {[v] -> [5, v, 0]};
}";

fn dia_cases(seed: u64) -> Vec<(Memory, Outputs)> {
    let mut r = Rng(seed);
    SHAPES
        .iter()
        .map(|&(n, m, nnz)| {
            let c = coo(n, m, nnz, &mut r);
            let set: BTreeSet<i64> = c.row.iter().zip(&c.col).map(|(i, j)| j - i).collect();
            let values: Vec<i64> = set.iter().copied().collect();
            let index = |v: i64| values.binary_search(&v).map_or(-1, |p| p as i64);
            let mut off = values.clone();
            off.resize(n + m, 0);
            let span = (n + m) as i64;
            let mem = coo_memory(&c)
                .with_array("nd", ints(vec![0]))
                .with_array("off", ints(vec![0; n + m]))
                .with_array("dpos", ints(vec![0; nnz]))
                .with_array("probe", ints(vec![0; 2 * (n + m) + 1]));
            let mut outs = Outputs::new();
            out_ints(&mut outs, "nd", vec![values.len() as i64]);
            out_ints(&mut outs, "off", off);
            out_ints(
                &mut outs,
                "dpos",
                c.row
                    .iter()
                    .zip(&c.col)
                    .map(|(i, j)| index(j - i))
                    .collect(),
            );
            out_ints(&mut outs, "probe", (-span..=span).map(index).collect());
            (mem, outs)
        })
        .collect()
}

#[test]
fn ordered_set_without_bounds_collects_dia_offsets() {
    check_cases(&program(DIA), &dia_cases(31));
}

#[test]
fn ordered_set_with_bounds_collects_dia_offsets() {
    // `OrderedSet(1 - N, M - 1)`, the range of `j - i`, as synthesis builds
    // it (the `.comp` grammar takes only names and literals as arguments).
    let mut c = computation(DIA);
    c.objects[0].args = vec!["1 - N".into(), "M - 1".into()];
    let p = scanned(&c);
    let code = emit_c(&p).unwrap();
    assert!(
        code.contains("spf_oset S = spf_oset_new_bounded(-N + 1, M - 1);"),
        "{code}"
    );
    check_cases(&p, &dia_cases(32));
}

/// The rank of each sorted entry's row among the rows (an ordered set's
/// index of a counting permutation's first key component, as COO → DCSR
/// looks its rows up), and the same in a set whose bounds leave the last
/// row out.
const ROW_RANKS: &str = "computation row_ranks(N, M, NNZ) {
    in  int row[NNZ];
    in  int col[NNZ];
    out int rank[NNZ];
    out int absent[NNZ];
    temp int r;
    object S : OrderedSet(0, N);
    object T : OrderedSet(0, N);
    object P : Permutation(2, counting, N, M);
    S0: S.insert(row(n)) domain {[n] : 0 <= n < NNZ} schedule {[n] -> [0, n, 0]};
    S1: P.insert(row(n), col(n)) domain {[n] : 0 <= n < NNZ} schedule {[n] -> [0, n, 1]};
    S2: S.sort() domain {[]} schedule {[] -> [1, 0, 0]};
    S3: T.sort() domain {[]} schedule {[] -> [2, 0, 0]};
    S4: P.sort() domain {[]} schedule {[] -> [3, 0, 0]};
    S5: { r = P.key(0, p); rank(p) = S.index(r); absent(p) = T.index(r) }
        domain {[p] : 0 <= p < NNZ} schedule {[p] -> [4, p, 0]};
}";

#[test]
fn set_lookups_of_keys_in_bounds_skip_the_bounds_test() {
    let mut c = computation(ROW_RANKS);
    // S covers the rows 0..N: unchecked; T's 0..N - 2 does not: checked.
    c.objects[0].args = vec!["0".into(), "N - 1".into()];
    c.objects[1].args = vec!["0".into(), "N - 2".into()];
    let p = scanned(&c);
    let code = emit_c(&p).unwrap();
    assert!(
        code.contains("rank[p] = spf_oset_index_in(&S, r);"),
        "{code}"
    );
    assert!(
        code.contains("absent[p] = spf_oset_index(&T, r);"),
        "{code}"
    );
    let mut rng = Rng(41);
    let cases: Vec<(Memory, Outputs)> = SHAPES
        .iter()
        .map(|&(n, m, nnz)| {
            let c = coo(n, m, nnz, &mut rng);
            let mut rows = c.row.clone();
            rows.sort_unstable();
            let distinct: Vec<i64> = rows
                .iter()
                .copied()
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            let rank = |v: i64| distinct.binary_search(&v).map_or(-1, |p| p as i64);
            let mut outs = Outputs::new();
            out_ints(&mut outs, "rank", rows.iter().map(|&v| rank(v)).collect());
            // nothing inserted into T: every lookup is absent
            out_ints(&mut outs, "absent", vec![-1; nnz]);
            let mem = coo_memory(&c)
                .with_array("rank", ints(vec![0; nnz]))
                .with_array("absent", ints(vec![0; nnz]));
            (mem, outs)
        })
        .collect();
    check_cases(&p, &cases);
}

/// Ordered sets filled in the loop that fills two counting permutations:
/// `S` with the rows `P` counts first, `V` with the columns `Q` counts
/// first (C: no inserts, each sorted from its permutation's counts), `U`
/// with the rows over a longer range and `W` with other values than any
/// permutation's first component (C: inserted as written).
const COUNTED_SETS: &str = "computation counted_sets(N, M, NNZ) {
    in  int row[NNZ];
    in  int col[NNZ];
    out int sidx[N];
    out int uidx[N];
    out int vidx[M];
    out int widx[N];
    out int sizes[4];
    object S : OrderedSet(0, N);
    object U : OrderedSet(0, N);
    object V : OrderedSet(0, M);
    object W : OrderedSet(0, N);
    object P : Permutation(2, counting, N, M);
    object Q : Permutation(2, counting, M, N);
    S0: { S.insert(row(n)); U.insert(row(n)); V.insert(col(n)); W.insert(N - 1 - row(n));
          P.insert(row(n), col(n)); Q.insert(col(n), row(n)) }
        domain {[n] : 0 <= n < NNZ} schedule {[n] -> [0, n, 0]};
    S1: { S.sort(); U.sort(); V.sort(); W.sort(); P.sort() } domain {[]} schedule {[] -> [1, 0, 0]};
    S2: { sidx(i) = S.index(i); uidx(i) = U.index(i); widx(i) = W.index(i) }
        domain {[i] : 0 <= i < N} schedule {[i] -> [2, i, 0]};
    S3: vidx(j) = V.index(j) domain {[j] : 0 <= j < M} schedule {[j] -> [3, j, 0]};
    S4: { sizes(0) = S.size(); sizes(1) = U.size(); sizes(2) = V.size(); sizes(3) = W.size() }
        domain {[]} schedule {[] -> [4, 0, 0]};
}";

#[test]
fn sets_of_counted_first_components_are_sorted_from_the_counts() {
    let mut c = computation(COUNTED_SETS);
    // S and W over the rows 0..N, U over 0..N, V over the columns 0..M.
    for (o, hi) in [(0, "N - 1"), (1, "N"), (2, "M - 1"), (3, "N - 1")] {
        c.objects[o].args = vec!["0".into(), hi.into()];
    }
    let p = scanned(&c);
    let code = emit_c(&p).unwrap();
    for counted in [
        "spf_oset_sort_counted(&S, &P);",
        "spf_oset_sort_counted(&V, &Q);",
    ] {
        assert!(code.contains(counted), "{code}");
    }
    for inserted in ["spf_oset_insert(&U, ", "spf_oset_insert(&W, "] {
        assert!(code.contains(inserted), "{code}");
    }
    for left_out in ["spf_oset_insert(&S, ", "spf_oset_insert(&V, "] {
        assert!(!code.contains(left_out), "{code}");
    }
    let mut rng = Rng(43);
    let cases: Vec<(Memory, Outputs)> = SHAPES
        .iter()
        .map(|&(n, m, nnz)| {
            let c = coo(n, m, nnz, &mut rng);
            let set = |values: Vec<i64>| values.into_iter().collect::<BTreeSet<i64>>();
            let index = |s: &BTreeSet<i64>, len: usize| -> Vec<i64> {
                (0..len as i64)
                    .map(|v| s.iter().position(|&x| x == v).map_or(-1, |p| p as i64))
                    .collect()
            };
            let rows = set(c.row.clone());
            let cols = set(c.col.clone());
            let flipped = set(c.row.iter().map(|&r| n as i64 - 1 - r).collect());
            let mut outs = Outputs::new();
            out_ints(&mut outs, "sidx", index(&rows, n));
            out_ints(&mut outs, "uidx", index(&rows, n));
            out_ints(&mut outs, "vidx", index(&cols, m));
            out_ints(&mut outs, "widx", index(&flipped, n));
            let sizes = [&rows, &rows, &cols, &flipped].map(|s| s.len() as i64);
            out_ints(&mut outs, "sizes", sizes.to_vec());
            let mem = coo_memory(&c)
                .with_array("sidx", ints(vec![0; n]))
                .with_array("uidx", ints(vec![0; n]))
                .with_array("vidx", ints(vec![0; m]))
                .with_array("widx", ints(vec![0; n]))
                .with_array("sizes", ints(vec![0; 4]));
            (mem, outs)
        })
        .collect();
    check_cases(&p, &cases);
}

// ---------------------------------------------------------------------------
// The generated code

#[test]
fn generated_calls_are_readable() {
    let p = coo_sort(COUNTING);
    let c = emit_c(&p).unwrap();
    for line in [
        "#ifndef SPF_RUNTIME_H",
        "    spf_perm P = spf_perm_new(2, SPF_COUNTING, (int64_t[]){N, M});",
        "        spf_perm_insert(&P, (int64_t[]){row[n], col[n]});",
        "    spf_perm_sort_counting(&P);",
        "        srow[p] = spf_perm_key(&P, 0, p);",
        "        ent[p] = spf_perm_entry(&P, p);",
        "    spf_perm_free(&P);",
    ] {
        assert!(c.contains(line), "missing {line:?} in\n{c}");
    }
    let r = emit_rust(&p).unwrap();
    for line in [
        "    let mut p = spf_runtime::Permutation::new(2, spf_runtime::Order::Counting(vec![n, m]));",
        "        p.insert(&[row[n_2 as usize], col[n_2 as usize]]);",
        "    p.sort();",
        "        srow[p_2 as usize] = p.key(0, p_2);",
        "        where_[p_2 as usize] = p.map(p_2);",
        "    mod spf_runtime {",
    ] {
        assert!(r.contains(line), "missing {line:?} in\n{r}");
    }
    // No object, no runtime.
    let plain = program(
        "computation copy(N) { in int x[N]; out int y[N];
            S0: y(i) = x(i) domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]}; }",
    );
    assert!(!emit_c(&plain).unwrap().contains("spf_perm"));
    assert!(!emit_rust(&plain).unwrap().contains("spf_runtime"));
}

#[test]
fn generated_functions_share_a_file() {
    let a = coo_sort("lex");
    let mut b = computation(DIA);
    b.name = "dia2".into();
    let b = scanned(&b);
    let s = program(COO_CSC);
    let dir = tempfile::tempdir().unwrap();
    let c_src = dir.path().join("two.c");
    std::fs::write(
        &c_src,
        format!(
            "{}\n{}\n{}",
            emit_c(&a).unwrap(),
            emit_c(&b).unwrap(),
            emit_c(&s).unwrap()
        ),
    )
    .unwrap();
    let rs_src = dir.path().join("two.rs");
    std::fs::write(
        &rs_src,
        format!(
            "{}\n{}\n{}",
            emit_rust(&a).unwrap(),
            emit_rust(&b).unwrap(),
            emit_rust(&s).unwrap()
        ),
    )
    .unwrap();
    std::thread::scope(|s| {
        s.spawn(|| {
            tool(
                Command::new("cc")
                    .args(CFLAGS)
                    .args(["-c", "-o"])
                    .arg(dir.path().join("two.o"))
                    .arg(&c_src),
                "cc",
            )
        });
        tool(
            Command::new("rustc")
                .args(["--edition", "2021", "-D", "warnings", "--crate-type", "lib"])
                .arg("-o")
                .arg(dir.path().join("libtwo.rlib"))
                .arg(&rs_src),
            "rustc",
        );
    });
}

/// Inserting outside an ordered set's bounds: a typed error in the
/// interpreter, an abort in C, a panic in Rust, each with a message.
#[test]
fn misuse_aborts_the_compiled_runtimes() {
    let p = program(
        "computation misuse(N) {
            in  int x[N];
            out int y[N];
            object S : OrderedSet(0, 3);
            S0: S.insert(x(i)) domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
            S1: S.sort() domain {[]} schedule {[] -> [1, 0, 0]};
            S2: y(i) = S.index(x(i)) domain {[i] : 0 <= i < N} schedule {[i] -> [2, i, 0]};
        }",
    );
    let mem = Memory::new()
        .with_symbol("N", 3)
        .with_array("x", ints(vec![1, 5, 2]))
        .with_array("y", ints(vec![0; 3]));
    let e = run(&p, &mut mem.clone(), None).unwrap_err();
    assert_eq!(
        e,
        RunError::ObjectFault {
            site: Site::Statement {
                name: "S0".into(),
                point: vec![1]
            },
            call: "S.insert".into(),
            fault: ObjectFault::OutsideBounds {
                value: 5,
                lo: 0,
                hi: 3
            },
        }
    );
    assert_eq!(
        e.to_string(),
        "statement S0 at [1]: `S.insert`: 5 is outside the set's bounds 0..=3"
    );
    let dir = tempfile::tempdir().unwrap();
    let mems = [mem];
    let c_src = dir.path().join("misuse.c");
    std::fs::write(&c_src, c_driver(&p, &mems)).unwrap();
    let rs_src = dir.path().join("misuse.rs");
    std::fs::write(&rs_src, rust_driver(&p, &mems)).unwrap();
    let (c_exe, rs_exe) = (dir.path().join("misuse_c"), dir.path().join("misuse_rs"));
    std::thread::scope(|s| {
        s.spawn(|| {
            tool(
                Command::new("cc")
                    .args(CFLAGS)
                    .arg(&c_src)
                    .arg("-o")
                    .arg(&c_exe),
                "cc",
            )
        });
        tool(
            Command::new("rustc")
                .args(["--edition", "2021", "-D", "warnings", "-o"])
                .arg(&rs_exe)
                .arg(&rs_src),
            "rustc",
        );
    });
    for (exe, message) in [
        (
            &c_exe,
            "spf runtime: value outside the ordered set's bounds (5)",
        ),
        (&rs_exe, "spf runtime: 5 is outside the set's bounds 0..=3"),
    ] {
        let out = Command::new(exe).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{exe:?} should fail");
        assert!(stderr.contains(message), "{exe:?}: {stderr}");
    }
}

// ---------------------------------------------------------------------------
// Errors

/// A computation over `x[N]`, `y[N]` and the object `DECL`, whose statement
/// `S0` (over `[i] : 0 <= i < N`) does `BODY`, after a statement `F0` (a
/// loop over `[i]` too) does `FIRST`.
fn with_object(decl: &str, first: &str, body: &str) -> LoopProgram {
    program(&format!(
        "computation e(N) {{
            in  int x[N];
            out int y[N];
            object P : {decl};
            F0: {first} domain {{[i] : 0 <= i < N}} schedule {{[i] -> [0, i, 0]}};
            S0: {body} domain {{[i] : 0 <= i < N}} schedule {{[i] -> [1, i, 0]}};
        }}"
    ))
}

fn run_error(p: &LoopProgram) -> RunError {
    let mut mem = Memory::new()
        .with_symbol("N", 3)
        .with_array("x", ints(vec![2, 0, 1]))
        .with_array("y", ints(vec![0; 3]));
    run(p, &mut mem, None).unwrap_err()
}

/// The error of a call checked before the run: the same in every backend.
fn call_error(p: &LoopProgram) -> CallError {
    let e = run_error(p);
    let RunError::Call { stmt, error } = e else {
        panic!("expected a call error, got {e}")
    };
    assert_eq!(stmt, "S0");
    for emitted in [emit_c(p).unwrap_err(), emit_rust(p).unwrap_err()] {
        assert_eq!(
            emitted,
            EmitError::Call {
                stmt: "S0".into(),
                error: error.clone()
            }
        );
    }
    error
}

/// The fault of a call while running, in `S0` at `[1]`.
fn fault(p: &LoopProgram, call: &str) -> ObjectFault {
    match run_error(p) {
        RunError::ObjectFault {
            site: Site::Statement { name, point },
            call: c,
            fault,
        } => {
            assert_eq!(
                (name.as_str(), point.as_slice(), c.as_str()),
                ("S0", &[1][..], call)
            );
            fault
        }
        e => panic!("expected an object fault, got {e}"),
    }
}

const LEX: &str = "Permutation(1, lex)";
const COUNT: &str = "Permutation(1, counting, N)";
const SET: &str = "OrderedSet(0, 2)";

#[test]
fn invalid_calls_are_typed_errors_in_every_backend() {
    let insert = "P.insert(x(i))";
    assert!(matches!(
        call_error(&with_object("Permutation(2, lex)", "y(i) = 0", insert)),
        CallError::Arity { .. }
    ));
    assert!(matches!(
        call_error(&with_object(LEX, insert, "y(i) = P.frobnicate(i)")),
        CallError::UnknownMethod { .. }
    ));
    assert!(matches!(
        call_error(&with_object(LEX, insert, "y(i) = P.key(1, i)")),
        CallError::Component {
            component: 1,
            arity: 1,
            ..
        }
    ));
    assert!(matches!(
        call_error(&with_object(LEX, insert, "y(i) = P.count(0, i)")),
        CallError::Order { order: "lex", .. }
    ));
    assert!(matches!(
        call_error(&with_object(SET, insert, "y(i) = P.map(i)")),
        CallError::UnknownMethod {
            kind: "OrderedSet",
            ..
        }
    ));
    assert!(matches!(
        call_error(&with_object(LEX, insert, "P.size()")),
        CallError::NotAStatement { .. }
    ));
    assert!(matches!(
        call_error(&with_object(LEX, insert, "y(i) = P.sort()")),
        CallError::NotAValue { .. }
    ));
    assert!(matches!(
        call_error(&with_object(LEX, insert, "P.insert(0.5)")),
        CallError::RealArgument { position: 1, .. }
    ));
    // An object the computation does not declare (built in code: the parser
    // rejects it).
    let mut p = with_object(LEX, insert, "y(i) = P.size()");
    p.computation.objects[0].name = "Q".into();
    match run_error(&p) {
        RunError::Call { stmt, error } => {
            assert_eq!(stmt, "F0");
            assert_eq!(error, CallError::UnknownObject { object: "P".into() });
        }
        e => panic!("{e}"),
    }
}

#[test]
fn invalid_declarations_are_typed_errors_in_every_backend() {
    let p = with_object("Permutation(2, hilbert)", "y(i) = 0", "y(i) = 1");
    let want = SpecError::UnknownOrder("hilbert".into());
    match run_error(&p) {
        RunError::Object { object, error } => {
            assert_eq!((object, error), ("P".into(), want.clone()))
        }
        e => panic!("{e}"),
    }
    let emitted = EmitError::Object {
        object: "P".into(),
        error: want,
    };
    assert_eq!(emit_c(&p).unwrap_err(), emitted);
    assert_eq!(emit_rust(&p).unwrap_err(), emitted);
    assert!(matches!(
        run_error(&with_object("Heap()", "y(i) = 0", "y(i) = 1")),
        RunError::Object {
            error: SpecError::UnknownKind(_),
            ..
        }
    ));
}

#[test]
fn misuse_while_running_is_a_typed_error_naming_the_statement() {
    let insert = "P.insert(x(i))";
    let sorted = "{ P.insert(x(i)); if (i == N - 1) P.sort() }";
    // Out of range: map, entry, key, value.
    assert_eq!(
        fault(&with_object(LEX, insert, "y(i) = P.map(i + 2)"), "P.map"),
        ObjectFault::OutOfRange {
            argument: "entry",
            value: 3,
            len: 3
        }
    );
    assert_eq!(
        fault(&with_object(LEX, sorted, "y(i) = P.entry(-i)"), "P.entry"),
        ObjectFault::OutOfRange {
            argument: "position",
            value: -1,
            len: 3
        }
    );
    assert_eq!(
        fault(&with_object(LEX, sorted, "y(i) = P.key(i, 0)"), "P.key"),
        ObjectFault::OutOfRange {
            argument: "key component",
            value: 1,
            len: 1
        }
    );
    assert_eq!(
        fault(
            &with_object(SET, sorted, "y(i) = P.value(i + 2)"),
            "P.value"
        ),
        ObjectFault::OutOfRange {
            argument: "position",
            value: 3,
            len: 3
        }
    );
    // Inserting after sort, outside the bounds, outside a counting range.
    assert_eq!(
        fault(
            &with_object(LEX, sorted, "if (i > 0) P.insert(i)"),
            "P.insert"
        ),
        ObjectFault::InsertAfterSort
    );
    assert_eq!(
        fault(
            &with_object(SET, "P.sort()", "if (i > 0) P.insert(i)"),
            "P.insert"
        ),
        ObjectFault::InsertAfterSort
    );
    assert_eq!(
        fault(
            &with_object("OrderedSet(-1, 1)", "y(i) = 0", "P.insert(2i)"),
            "P.insert"
        ),
        ObjectFault::OutsideBounds {
            value: 2,
            lo: -1,
            hi: 1
        }
    );
    assert_eq!(
        fault(&with_object(COUNT, "y(i) = 0", "P.insert(3i)"), "P.insert"),
        ObjectFault::KeyOutOfRange {
            component: 0,
            value: 3,
            extent: 3
        }
    );
    assert_eq!(
        fault(
            &with_object("Permutation(1, morton)", "y(i) = 0", "P.insert(-i)"),
            "P.insert"
        ),
        ObjectFault::NegativeKey {
            component: 0,
            value: -1
        }
    );
    // Methods of a sorted object before sort.
    assert_eq!(
        fault(
            &with_object(COUNT, "y(i) = 0", "if (i > 0) y(i) = P.start(i)"),
            "P.start"
        ),
        ObjectFault::NotSorted
    );
    assert_eq!(
        fault(
            &with_object(SET, insert, "if (i > 0) y(i) = P.index(i)"),
            "P.index"
        ),
        ObjectFault::NotSorted
    );
    // A negative counting extent when the object is created.
    let mut mem = Memory::new()
        .with_symbol("N", -1)
        .with_array("x", ints(vec![]))
        .with_array("y", ints(vec![]));
    let p = program(
        "computation neg(N) { in int x[0]; out int y[0];
            object P : Permutation(1, counting, N);
            S0: P.sort() domain {[]} schedule {[] -> [0]}; }",
    );
    assert!(matches!(
        run(&p, &mut mem, None).unwrap_err(),
        RunError::ObjectFault {
            site: Site::Object(_),
            fault: ObjectFault::NegativeExtent {
                component: 0,
                extent: -1
            },
            ..
        }
    ));
}

// ---------------------------------------------------------------------------
// The Rust runtime in-process, on many inputs

#[test]
fn rust_runtime_permutations_agree_with_the_references() {
    let mut r = Rng(41);
    for round in 0..300 {
        let k = 1 + r.below(4) as usize;
        let n = [0, 1, 2, 17, 100, 1000][round % 6];
        let extents: Vec<i64> = (0..k).map(|_| 1 + r.below(6) as i64).collect();
        let keys: Vec<Vec<i64>> = (0..n)
            .map(|_| extents.iter().map(|&e| r.below(e as u64) as i64).collect())
            .collect();
        for order in [Order::Lex, Order::Counting(extents.clone()), Order::Morton] {
            let morton_order = order == Order::Morton;
            let mut p = Permutation::new(k, order.clone());
            for key in &keys {
                p.insert(key);
            }
            if n > 0 {
                // Before sort, positions are entries.
                assert_eq!(p.map(n as i64 / 2), n as i64 / 2);
                assert_eq!(p.entry(n as i64 - 1), n as i64 - 1);
            }
            p.sort();
            p.sort(); // idempotent
            let want = if morton_order {
                stable_order(n, |e| morton(&keys[e]))
            } else {
                stable_order(n, |e| keys[e].clone())
            };
            assert_eq!(p.size(), n as i64);
            for (pos, &e) in want.iter().enumerate() {
                assert_eq!(p.entry(pos as i64), e as i64, "{order:?} {keys:?}");
                assert_eq!(p.map(e as i64), pos as i64);
                for (d, &v) in keys[e].iter().enumerate() {
                    assert_eq!(p.key(d as i64, pos as i64), v);
                }
            }
            if let Order::Counting(_) = order {
                for (d, &extent) in extents.iter().enumerate() {
                    for v in -1..=extent {
                        let count = keys.iter().filter(|key| key[d] == v).count() as i64;
                        assert_eq!(p.count(d as i64, v), count);
                    }
                }
            }
            if !morton_order {
                for v in -2..=extents[0] + 1 {
                    let below = keys.iter().filter(|key| key[0] < v).count() as i64;
                    assert_eq!(p.start(v), below, "{order:?}");
                }
            }
        }
    }
}

#[test]
fn rust_runtime_ordered_sets_agree_with_the_references() {
    let mut r = Rng(42);
    for round in 0..200 {
        let n = [0, 1, 5, 50, 400][round % 5];
        let (lo, hi) = (-(r.below(20) as i64), r.below(20) as i64);
        let values: Vec<i64> = (0..n)
            .map(|_| lo + r.below((hi - lo + 1) as u64) as i64)
            .collect();
        let want: Vec<i64> = values
            .iter()
            .copied()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        for mut s in [OrderedSet::new(), OrderedSet::with_bounds(lo, hi)] {
            for &v in &values {
                s.insert(v);
            }
            s.sort();
            assert_eq!(s.size(), want.len() as i64);
            for (i, &v) in want.iter().enumerate() {
                assert_eq!(s.value(i as i64), v);
            }
            for v in lo - 3..=hi + 3 {
                assert_eq!(s.index(v), want.binary_search(&v).map_or(-1, |p| p as i64));
            }
        }
    }
}

#[test]
fn rust_runtime_counting_sort_is_linear() {
    // One million entries sort in well under a second even unoptimized
    // (a quadratic or comparison-heavy sort would not).
    let (n, rows, cols) = (1_000_000usize, 1000i64, 1000i64);
    let mut r = Rng(43);
    let mut p = Permutation::new(2, Order::Counting(vec![rows, cols]));
    for _ in 0..n {
        p.insert(&[r.below(rows as u64) as i64, r.below(cols as u64) as i64]);
    }
    let t = std::time::Instant::now();
    p.sort();
    let took = t.elapsed();
    for pos in 1..n as i64 {
        let (a, b) = (
            (p.key(0, pos - 1), p.key(1, pos - 1)),
            (p.key(0, pos), p.key(1, pos)),
        );
        assert!(a < b || (a == b && p.entry(pos - 1) < p.entry(pos)));
    }
    assert!(took.as_secs_f64() < 2.0, "counting sort took {took:?}");
}

#[test]
#[should_panic(expected = "spf runtime: insert after sort()")]
fn rust_runtime_rejects_inserts_after_sort() {
    let mut p = Permutation::new(1, Order::Lex);
    p.sort();
    p.insert(&[1]);
}

#[test]
#[should_panic(expected = "spf runtime: key component 0 is 4, outside its counting range 0..4")]
fn rust_runtime_rejects_keys_outside_the_counting_range() {
    Permutation::new(1, Order::Counting(vec![4])).insert(&[4]);
}

/// Object declarations take nested and affine arguments in files:
/// `Permutation(2, counting(N, M))`, `OrderedSet(1 - N, M - 1)`.
#[test]
fn nested_and_affine_object_arguments_in_files() {
    let src = "computation offsets(N, M, NNZ) {
        in int row[NNZ];
        in int col[NNZ];
        out int rank[NNZ];
        out int pos[NNZ];
        object P : Permutation(2, counting(N, M));
        object S : OrderedSet(1 - N, M - 1);
        S0: { P.insert(row(n), col(n)); S.insert(col(n) - row(n)) }
            domain {[n] : 0 <= n < NNZ} schedule {[n] -> [0, n, 0]};
        S1: { P.sort(); S.sort() } domain {[]} schedule {[] -> [1]};
        S2: { rank(n) = P.map(n); pos(n) = S.index(col(n) - row(n)) }
            domain {[n] : 0 <= n < NNZ} schedule {[n] -> [2, n, 0]};
    }";
    let comp = iegen::computation::parse_computation(src).expect("parses");
    let printed = comp.to_string();
    assert!(
        printed.contains("Permutation(2, counting(N, M))"),
        "{printed}"
    );
    assert!(printed.contains("OrderedSet(1 - N, M - 1)"), "{printed}");
    assert_eq!(
        iegen::computation::parse_computation(&printed).expect("reparses"),
        comp
    );
    let program = codegen::scan(&comp, &iegen::UfEnvironment::new()).expect("scans");
    let c = codegen::c::emit_c(&program).expect("emits C");
    assert!(c.contains("spf_perm_new"), "{c}");
    let mut memory = codegen::interp::Memory::new()
        .with_symbol("N", 3)
        .with_symbol("M", 3)
        .with_symbol("NNZ", 3)
        .with_array("row", codegen::interp::Array::Int(vec![2, 0, 1]))
        .with_array("col", codegen::interp::Array::Int(vec![0, 2, 1]))
        .with_array("rank", codegen::interp::Array::Int(vec![0; 3]))
        .with_array("pos", codegen::interp::Array::Int(vec![0; 3]));
    codegen::interp::run(&program, &mut memory, None).expect("runs");
    // Sorted by (row, col): (0,2) (1,1) (2,0) -> entries 1, 2, 0.
    assert_eq!(memory.int("rank"), Some(&[2, 0, 1][..]));
    // Offsets col - row: -2, 2, 0 -> sorted -2, 0, 2.
    assert_eq!(memory.int("pos"), Some(&[0, 2, 1][..]));
}

// ---------------------------------------------------------------------------
// Payloads: components the sort carries along but does not compare

/// Sorts COO entries by `(row, col)` with the source index `n` as a payload
/// (`Permutation(3, ORDER)` comparing two components) and copies the values
/// through it: `src(p) = P.key(2, p)`, `sval(p) = val(src(p))`.
fn coo_payload(order: &str) -> LoopProgram {
    program(&format!(
        "computation coo_payload(N, M, NNZ) {{
            in   int  row[NNZ];
            in   int  col[NNZ];
            in   real val[NNZ];
            out  int  srow[NNZ];
            out  int  scol[NNZ];
            out  int  src[NNZ];
            out  real sval[NNZ];
            object P : Permutation(3, {order});

            S0: P.insert(row(n), col(n), n)
                domain {{[n] : 0 <= n < NNZ}} schedule {{[n] -> [0, n, 0]}};
            S1: P.sort() domain {{[]}} schedule {{[] -> [1, 0, 0]}};
            S2: {{ srow(p) = P.key(0, p); scol(p) = P.key(1, p); src(p) = P.key(2, p) }}
                domain {{[p] : 0 <= p < NNZ}} schedule {{[p] -> [2, p, 0]}};
            S3: sval(p) = val(src(p))
                domain {{[p] : 0 <= p < NNZ}} schedule {{[p] -> [3, p, 0]}};
        }}"
    ))
}

fn coo_payload_cases(seed: u64, key: impl Fn(&Coo, usize) -> u128) -> Vec<(Memory, Outputs)> {
    let mut r = Rng(seed);
    SHAPES
        .iter()
        .map(|&(n, m, nnz)| {
            let c = coo(n, m, nnz, &mut r);
            let order = stable_order(nnz, |e| key(&c, e));
            let mem = coo_memory(&c)
                .with_array("srow", ints(vec![0; nnz]))
                .with_array("scol", ints(vec![0; nnz]))
                .with_array("src", ints(vec![0; nnz]))
                .with_array("sval", Array::Real(vec![0.0; nnz]));
            let mut want = Outputs::new();
            out_ints(&mut want, "srow", order.iter().map(|&e| c.row[e]).collect());
            out_ints(&mut want, "scol", order.iter().map(|&e| c.col[e]).collect());
            out_ints(&mut want, "src", order.iter().map(|&e| e as i64).collect());
            want.insert(
                "sval".into(),
                Array::Real(order.iter().map(|&e| c.val[e]).collect()),
            );
            (mem, want)
        })
        .collect()
}

#[test]
fn counting_sort_carries_the_source_index_as_a_payload_in_every_backend() {
    // `Permutation(3, counting(N, M))`: two extents, so two compared
    // components and one payload.
    let flat = coo_payload(COUNTING);
    check_cases(&flat, &coo_payload_cases(21, lex_key));
    let mut nested = flat.clone();
    nested.computation.objects[0].args = vec!["3".into(), "counting(N, M)".into()];
    let c = emit_c(&nested).unwrap();
    assert!(
        c.contains("spf_perm P = spf_perm_new_compared(3, 2, SPF_COUNTING, (int64_t[]){N, M});"),
        "{c}"
    );
    assert_eq!(c, emit_c(&flat).unwrap());
    let rs = emit_rust(&nested).unwrap();
    assert!(
        rs.contains(
            "spf_runtime::Permutation::with_compared(3, 2, spf_runtime::Order::Counting(vec![n, m]))"
        ),
        "{rs}"
    );
}

#[test]
fn comparison_sorts_carry_payloads_in_every_backend() {
    check_cases(&coo_payload("lex, 2"), &coo_payload_cases(22, lex_key));
    let morton_key = |c: &Coo, e: usize| morton(&[c.row[e], c.col[e]]);
    check_cases(
        &coo_payload("morton, 2"),
        &coo_payload_cases(23, morton_key),
    );
}

#[test]
fn lex_of_a_prefix_keeps_insertion_order_among_ties() {
    // Compared by row only: entries of a row keep their insertion order,
    // whatever their columns and source indices.
    let flat = coo_payload("lex, 1");
    let mut nested = flat.clone();
    nested.computation.objects[0].args = vec!["3".into(), "lex(1)".into()];
    assert_eq!(emit_c(&flat).unwrap(), emit_c(&nested).unwrap());
    assert_eq!(emit_rust(&flat).unwrap(), emit_rust(&nested).unwrap());
    let row_key = |c: &Coo, e: usize| c.row[e] as u128;
    check_cases(&nested, &coo_payload_cases(24, row_key));
    // A reversed column order shows the payload is not compared.
    let mem = Memory::new()
        .with_symbol("N", 2)
        .with_symbol("M", 3)
        .with_symbol("NNZ", 4)
        .with_array("row", ints(vec![1, 0, 1, 0]))
        .with_array("col", ints(vec![2, 2, 0, 1]))
        .with_array("val", Array::Real(vec![0.5, 1.5, 2.5, 3.5]))
        .with_array("srow", ints(vec![0; 4]))
        .with_array("scol", ints(vec![0; 4]))
        .with_array("src", ints(vec![0; 4]))
        .with_array("sval", Array::Real(vec![0.0; 4]));
    let mut want = Outputs::new();
    out_ints(&mut want, "srow", vec![0, 0, 1, 1]);
    out_ints(&mut want, "scol", vec![2, 1, 2, 0]);
    out_ints(&mut want, "src", vec![1, 3, 0, 2]);
    want.insert("sval".into(), Array::Real(vec![1.5, 3.5, 0.5, 2.5]));
    check_cases(&nested, &[(mem, want)]);
}

#[test]
fn payload_components_are_not_checked_against_the_order() {
    // Negative payloads are fine in counting and morton orders; `count`
    // reads compared components only.
    let p = with_object(
        "Permutation(2, counting, N)",
        "P.insert(0, -5 - i)",
        "y(i) = P.key(1, i)",
    );
    let mut mem = Memory::new()
        .with_symbol("N", 1)
        .with_array("x", ints(vec![0]))
        .with_array("y", ints(vec![0]));
    run(&p, &mut mem, None).unwrap();
    assert_eq!(mem.int("y"), Some(&[-5][..]));
    let p = with_object(
        "Permutation(2, counting, N)",
        "P.insert(0, 1)",
        "y(i) = P.count(1, 0)",
    );
    assert!(matches!(
        call_error(&p),
        CallError::Component {
            component: 1,
            arity: 1,
            ..
        }
    ));
}

#[test]
fn rust_runtime_payloads_follow_their_keys() {
    for order in [Order::Lex, Order::Counting(vec![3]), Order::Morton] {
        let mut p = Permutation::with_compared(2, 1, order);
        for (e, k) in [2, 0, 2, 1, 0, 2].into_iter().enumerate() {
            p.insert(&[k, 10 * e as i64 - 30]);
        }
        p.sort();
        let keys: Vec<(i64, i64)> = (0..6).map(|q| (p.key(0, q), p.key(1, q))).collect();
        assert_eq!(
            keys,
            [(0, -20), (0, 10), (1, 0), (2, -30), (2, -10), (2, 20)]
        );
        let entries: Vec<i64> = (0..6).map(|q| p.entry(q)).collect();
        assert_eq!(entries, [1, 4, 3, 0, 2, 5]);
    }
}

// ---------------------------------------------------------------------------
// Scatter: the streaming counting-sort scatter (Gustavson's algorithm)

/// COO to CSC-like arrays with `Scatter(M)`: counts the entries of each
/// column, fills `colptr` with `start`, then places every entry at the next
/// free position of its column (`k = B.place(col(n))`), so that the entries
/// of a column keep their input order.
const COO_CSC: &str = "computation coo_csc(N, M, NNZ) {
    in   int  row[NNZ];
    in   int  col[NNZ];
    in   real val[NNZ];
    out  int  colptr[M + 1];
    out  int  row_out[NNZ];
    out  real val_out[NNZ];
    out  int  dest[NNZ];
    out  int  size;
    out  int  rank[NNZ];
    out  int  counts[M + 1];
    temp int  k;
    temp int  r;
    object B : Scatter(M);

    S0: B.insert(col(n)) domain {[n] : 0 <= n < NNZ} schedule {[n] -> [0, n, 0]};
    S1: B.sort() domain {[]} schedule {[] -> [1, 0, 0]};
    S2: { colptr(j) = B.start(j); counts(j) = B.count(j) }
        domain {[j] : 0 <= j <= M} schedule {[j] -> [2, j, 0]};
    S3: { k = B.place(col(n)); row_out(k) = row(n); val_out(k) = val(n); dest(n) = k;
          r = B.slot(col(n)); rank(n) = r }
        domain {[n] : 0 <= n < NNZ} schedule {[n] -> [3, n, 0]};
    S4: size = B.size() domain {[]} schedule {[] -> [4, 0, 0]};
}";

/// Shapes for the scatter: those of the sorts, plus many empty columns and
/// rows without columns.
const SCATTER_SHAPES: &[(usize, usize, usize)] = &[
    (0, 0, 0),
    (3, 4, 0),
    (1, 1, 1),
    (1, 1, 9),
    (2, 3, 25),
    (5, 7, 40),
    (9, 2, 60),
    (4, 50, 6),
    (3, 200, 30),
    (40, 33, 500),
];

fn coo_csc_cases(seed: u64) -> Vec<(Memory, Outputs)> {
    let mut r = Rng(seed);
    SCATTER_SHAPES
        .iter()
        .map(|&(n, m, nnz)| {
            let c = coo(n, m, nnz, &mut r);
            // The reference: a stable sort by column, written independently.
            let order = stable_order(nnz, |e| c.col[e]);
            let mut dest = vec![0; nnz];
            for (p, &e) in order.iter().enumerate() {
                dest[e] = p as i64;
            }
            let below = |v: i64| c.col.iter().filter(|&&x| x < v).count() as i64;
            let mem = coo_memory(&c)
                .with_array("colptr", ints(vec![0; m + 1]))
                .with_array("row_out", ints(vec![0; nnz]))
                .with_array("val_out", Array::Real(vec![0.0; nnz]))
                .with_array("dest", ints(vec![0; nnz]))
                .with_array("size", ints(vec![7]));
            let mut outs = Outputs::new();
            out_ints(&mut outs, "colptr", (0..=m as i64).map(below).collect());
            out_ints(
                &mut outs,
                "row_out",
                order.iter().map(|&e| c.row[e]).collect(),
            );
            outs.insert(
                "val_out".into(),
                Array::Real(order.iter().map(|&e| c.val[e]).collect()),
            );
            out_ints(&mut outs, "dest", dest);
            out_ints(&mut outs, "size", vec![nnz as i64]);
            // slot: an entry's rank among the earlier entries of its
            // column; count: per column.
            let rank: Vec<i64> = (0..nnz)
                .map(|e| c.col[..e].iter().filter(|&&x| x == c.col[e]).count() as i64)
                .collect();
            out_ints(&mut outs, "rank", rank);
            out_ints(
                &mut outs,
                "counts",
                (0..=m as i64)
                    .map(|j| c.col.iter().filter(|&&x| x == j).count() as i64)
                    .collect(),
            );
            let mem = mem
                .with_array("rank", ints(vec![0; nnz]))
                .with_array("counts", ints(vec![0; m + 1]));
            (mem, outs)
        })
        .collect()
}

#[test]
fn scatter_transposes_coo_by_column_in_every_backend() {
    check_cases(&program(COO_CSC), &coo_csc_cases(51));
}

/// Slots handed out on both sides of `sort()`: the first `H` entries take
/// their slots before it (the counts read between them), the rest after,
/// and the ranks continue across; the transposition's positions come from
/// the same scatter.
const SLOTS_ACROSS_SORT: &str = "computation slots_across_sort(N, M, NNZ, H) {
    in   int  row[NNZ];
    in   int  col[NNZ];
    in   real val[NNZ];
    out  int  colptr[M + 1];
    out  int  rank[NNZ];
    out  int  counts[M + 1];
    out  int  dest[NNZ];
    temp int  r;
    object B : Scatter(M);

    S0: B.insert(col(n)) domain {[n] : 0 <= n < NNZ} schedule {[n] -> [0, n, 0]};
    S1: { r = B.slot(col(n)); rank(n) = r } domain {[n] : 0 <= n < H} schedule {[n] -> [1, n, 0]};
    S2: counts(j) = B.count(j) domain {[j] : 0 <= j <= M} schedule {[j] -> [2, j, 0]};
    S3: B.sort() domain {[]} schedule {[] -> [3, 0, 0]};
    S4: colptr(j) = B.start(j) domain {[j] : 0 <= j <= M} schedule {[j] -> [4, j, 0]};
    S5: { r = B.slot(col(n)); rank(n) = r } domain {[n] : H <= n < NNZ} schedule {[n] -> [5, n, 0]};
    S6: dest(n) = B.place(col(n)) domain {[n] : 0 <= n < NNZ} schedule {[n] -> [6, n, 0]};
}";

#[test]
fn scatter_slots_continue_across_sort_in_every_backend() {
    let cases: Vec<(Memory, Outputs)> = coo_csc_cases(57)
        .into_iter()
        .map(|(mem, all)| {
            let nnz = mem.symbols["NNZ"];
            let m = mem.symbols["M"] as usize;
            let mem = Memory::new()
                .with_symbol("N", mem.symbols["N"])
                .with_symbol("M", m as i64)
                .with_symbol("NNZ", nnz)
                .with_symbol("H", nnz / 2)
                .with_array("row", mem.arrays["row"].clone())
                .with_array("col", mem.arrays["col"].clone())
                .with_array("val", mem.arrays["val"].clone())
                .with_array("colptr", ints(vec![0; m + 1]))
                .with_array("rank", ints(vec![0; nnz as usize]))
                .with_array("counts", ints(vec![0; m + 1]))
                .with_array("dest", ints(vec![0; nnz as usize]));
            let mut outs = Outputs::new();
            for name in ["colptr", "rank", "counts", "dest"] {
                outs.insert(name.into(), all[name].clone());
            }
            (mem, outs)
        })
        .collect();
    check_cases(&program(SLOTS_ACROSS_SORT), &cases);
}

/// The transposition's pointer array as its own loop, `colptr(j) =
/// B.start(j)` for `0 <= j <= M` (SHIFT 0), or `colptr(j + 1) = B.start(j +
/// 1)` for `0 <= j < M` (SHIFT 1, as synthesis writes it), after the sort:
/// the C backend sorts into `colptr` and leaves the loop out; `READ` adds a
/// statement that reads `colptr`, which keeps the loop.
fn transposition_text(shift: i64, read: bool) -> String {
    let copy = if shift == 0 {
        "colptr(j) = B.start(j) domain {[j] : 0 <= j <= M}"
    } else {
        "colptr(j + 1) = B.start(j + 1) domain {[j] : 0 <= j < M}"
    };
    let read = if read {
        "S4: first(n) = colptr(col(n)) domain {[n] : 0 <= n < NNZ} schedule {[n] -> [4, n, 0]};"
    } else {
        "S4: first(n) = 0 domain {[n] : 0 <= n < NNZ} schedule {[n] -> [4, n, 0]};"
    };
    format!(
        "computation transpose(N, M, NNZ) {{
    in   int  row[NNZ];
    in   int  col[NNZ];
    in   real val[NNZ];
    out  int  colptr[M + 1];
    out  int  row_out[NNZ];
    out  real val_out[NNZ];
    out  int  first[NNZ];
    temp int  k;
    object B : Scatter(M);

    S0: B.insert(col(n)) domain {{[n] : 0 <= n < NNZ}} schedule {{[n] -> [0, n, 0]}};
    S1: B.sort() domain {{[]}} schedule {{[] -> [1, 0, 0]}};
    S2: {{ k = B.place(col(n)); row_out(k) = row(n); val_out(k) = val(n) }}
        domain {{[n] : 0 <= n < NNZ}} schedule {{[n] -> [2, n, 0]}};
    S3: {copy} schedule {{[j] -> [3, j, 0]}};
    {read}
}}"
    )
}

fn transposition(shift: i64, read: bool) -> LoopProgram {
    program(&transposition_text(shift, read))
}

#[test]
fn scatter_sorts_into_the_pointer_array_it_is_copied_to() {
    for (shift, read) in [(0, false), (1, false), (0, true), (1, true)] {
        let p = transposition(shift, read);
        let c = emit_c(&p).unwrap();
        let into = c.contains("spf_scatter_sort_into(&B, colptr);");
        assert_eq!(into, !read, "shift {shift}, read {read}:\n{c}");
        assert_eq!(c.contains("= spf_scatter_start(&B, "), read, "{c}");
        // Filled whole by the sort: no zero fill either.
        assert_eq!(c.contains("colptr[spf_z] = 0"), read, "{c}");
        let cases: Vec<(Memory, Outputs)> = coo_csc_cases(53 + shift as u64)
            .into_iter()
            .map(|(mem, all)| {
                let nnz = mem.arrays["row"].len();
                let Array::Int(colptr) = &all["colptr"] else {
                    unreachable!()
                };
                let Array::Int(cols) = &mem.arrays["col"] else {
                    unreachable!()
                };
                let first: Vec<i64> = if read {
                    cols.iter().map(|&j| colptr[j as usize]).collect()
                } else {
                    vec![0; nnz]
                };
                let mut outs = Outputs::new();
                for name in ["colptr", "row_out", "val_out"] {
                    outs.insert(name.into(), all[name].clone());
                }
                out_ints(&mut outs, "first", first);
                let mem = mem
                    .with_array("row_out", ints(vec![0; nnz]))
                    .with_array("val_out", Array::Real(vec![0.0; nnz]))
                    .with_array("first", ints(vec![0; nnz]));
                (mem, outs)
            })
            .collect();
        check_cases(&p, &cases);
    }
    // An affine extent, `Scatter(M + 1)` copied to `colptr[M + 2]`: the
    // loop's bound `M + 2` is the extent plus one.
    let text = transposition_text(0, false)
        .replace("Scatter(M)", "Scatter(M + 1)")
        .replace("colptr[M + 1]", "colptr[M + 2]")
        .replace("0 <= j <= M}", "0 <= j <= M + 1}");
    let p = program(&text);
    let c = emit_c(&p).unwrap();
    assert!(c.contains("spf_scatter_sort_into(&B, colptr);"), "{c}");
    assert!(!c.contains("colptr[spf_z] = 0"), "{c}");
}

#[test]
fn scatter_extents_are_affine() {
    // `Scatter(M + 1)`: one more (empty) key; `start(M + 1)` is still NNZ.
    let text = COO_CSC
        .replace("Scatter(M)", "Scatter(M + 1)")
        .replace("colptr[M + 1]", "colptr[M + 2]")
        .replace("counts[M + 1]", "counts[M + 2]")
        .replace("0 <= j <= M}", "0 <= j <= M + 1}");
    let p = program(&text);
    let c = emit_c(&p).unwrap();
    assert!(
        c.contains("    spf_scatter B = spf_scatter_new(M + 1);"),
        "{c}"
    );
    let cases: Vec<(Memory, Outputs)> = coo_csc_cases(52)
        .into_iter()
        .map(|(mem, mut outs)| {
            let nnz = mem.arrays["row"].len();
            let Array::Int(colptr) = outs.get_mut("colptr").unwrap() else {
                unreachable!()
            };
            colptr.push(nnz as i64);
            let m = colptr.len() - 1;
            // Key M + 1 has no entry.
            let Array::Int(counts) = outs.get_mut("counts").unwrap() else {
                unreachable!()
            };
            counts.push(0);
            let mem = mem
                .with_array("colptr", ints(vec![0; m + 1]))
                .with_array("counts", ints(vec![0; m + 1]));
            (mem, outs)
        })
        .collect();
    check_cases(&p, &cases);
}

#[test]
fn generated_scatter_calls_are_readable() {
    let p = program(COO_CSC);
    let c = emit_c(&p).unwrap();
    for line in [
        "    spf_scatter B = spf_scatter_new(M);",
        "        spf_scatter_insert(&B, col[n]);",
        "    spf_scatter_sort(&B);",
        "        colptr[j] = spf_scatter_start(&B, j);",
        "        k = spf_scatter_place(&B, col[n]);",
        "        row_out[k] = row[n];",
        "    *size = spf_scatter_size(&B);",
        "    spf_scatter_free(&B);",
    ] {
        assert!(c.contains(line), "missing {line:?} in\n{c}");
    }
    let r = emit_rust(&p).unwrap();
    for line in [
        "    let mut b = spf_runtime::Scatter::new(m);",
        "        b.insert(col[n_2 as usize]);",
        "    b.sort();",
        "        colptr[j as usize] = b.start(j);",
        "        k = b.place(col[n_2 as usize]);",
        "    *size = b.size();",
    ] {
        assert!(r.contains(line), "missing {line:?} in\n{r}");
    }
    // `place` alone changes the object: still `let mut`.
    let only_place = with_object("Scatter(N)", "y(i) = P.size()", "y(i) = P.place(i)");
    let r = emit_rust(&only_place).unwrap();
    assert!(
        r.contains("let mut p = spf_runtime::Scatter::new(n);"),
        "{r}"
    );
    let read_only = with_object("Scatter(N)", "y(i) = P.size()", "y(i) = P.size()");
    let r = emit_rust(&read_only).unwrap();
    assert!(r.contains("let p = spf_runtime::Scatter::new(n);"), "{r}");
}

const SCATTER: &str = "Scatter(N)";

#[test]
fn invalid_scatter_calls_and_declarations_are_typed_errors_in_every_backend() {
    let insert = "P.insert(x(i))";
    assert!(matches!(
        call_error(&with_object(SCATTER, "y(i) = 0", "P.insert(x(i), 0)")),
        CallError::Arity {
            expected: 1,
            found: 2,
            ..
        }
    ));
    assert!(matches!(
        call_error(&with_object(SCATTER, insert, "y(i) = P.place(i, 0)")),
        CallError::Arity {
            expected: 1,
            found: 2,
            ..
        }
    ));
    assert!(matches!(
        call_error(&with_object(SCATTER, insert, "y(i) = P.start()")),
        CallError::Arity {
            expected: 1,
            found: 0,
            ..
        }
    ));
    assert!(matches!(
        call_error(&with_object(SCATTER, insert, "P.place(i)")),
        CallError::NotAStatement { .. }
    ));
    assert!(matches!(
        call_error(&with_object(SCATTER, insert, "P.start(i)")),
        CallError::NotAStatement { .. }
    ));
    assert!(matches!(
        call_error(&with_object(SCATTER, insert, "y(i) = P.sort()")),
        CallError::NotAValue { .. }
    ));
    assert!(matches!(
        call_error(&with_object(SCATTER, insert, "y(i) = P.map(i)")),
        CallError::UnknownMethod {
            kind: "Scatter",
            ..
        }
    ));
    assert!(matches!(
        call_error(&with_object(SCATTER, insert, "P.insert(0.5)")),
        CallError::RealArgument { position: 1, .. }
    ));
    // `place` only as the whole value of an assignment.
    for body in [
        "y(i) = P.place(i) + 1",
        "y(i) = -P.place(i)",
        "y(i) += P.place(i)",
        "y(i) = P.start(P.place(i))",
        "if (P.place(i) > 0) y(i) = 1",
        "P.insert(P.place(i))",
    ] {
        let e = call_error(&with_object(SCATTER, insert, body));
        assert_eq!(
            e,
            CallError::PlaceNotAssigned {
                call: "P.place".into()
            },
            "{body}"
        );
    }
    assert_eq!(
        CallError::PlaceNotAssigned {
            call: "P.place".into()
        }
        .to_string(),
        "`P.place` hands out a new value each time it is evaluated; it must be the whole \
         value of an assignment (`k = P.place(v)`)"
    );
    // Under a condition and in a sequence, an assignment is fine.
    for body in [
        "if (i > 0) y(i) = P.place(0)",
        "{ y(i) = 0; y(i) = P.place(0) }",
    ] {
        let p = with_object(SCATTER, insert, body);
        assert!(emit_c(&p).is_ok() && emit_rust(&p).is_ok(), "{body}");
    }
    // Declarations: one extent or several (the row-major linear keys of a
    // tuple), never none.
    {
        let p = with_object("Scatter()", "y(i) = 0", "y(i) = 1");
        let want = SpecError::ArgumentCount {
            kind: "Scatter",
            expected: "(E) or (E1, E2, ...)",
            found: 0,
        };
        match run_error(&p) {
            RunError::Object { object, error } => {
                assert_eq!((object, error), ("P".into(), want.clone()))
            }
            e => panic!("{e}"),
        }
        let emitted = EmitError::Object {
            object: "P".into(),
            error: want,
        };
        assert_eq!(emit_c(&p).unwrap_err(), emitted);
        assert_eq!(emit_rust(&p).unwrap_err(), emitted);
    }
}

/// `Scatter(N, 2)` counts the `2 N` linear keys of pairs: the key
/// `2 x(i) + 1` of the last of them counts once per entry, and a key past
/// `2 N` is out of range.
#[test]
fn a_scatter_over_pairs_counts_their_linear_keys() {
    let p = with_object(
        "Scatter(N, 2)",
        "P.insert(2 * x(i) + 1)",
        "y(i) = P.count(2 * x(i) + 1)",
    );
    let mut mem = Memory::new()
        .with_symbol("N", 3)
        .with_array("x", ints(vec![2, 0, 1]))
        .with_array("y", ints(vec![0; 3]));
    run(&p, &mut mem, None).expect("runs");
    assert_eq!(mem.int("y"), Some(&[1, 1, 1][..]));
    assert!(emit_c(&p)
        .expect("emits")
        .contains("spf_scatter_new(N * 2)"));
    let past = with_object("Scatter(N, 2)", "P.insert(2 * x(i) + 4)", "y(i) = 0");
    assert!(
        run_error(&past).to_string().contains("P.insert"),
        "{}",
        run_error(&past)
    );
}

#[test]
fn scatter_misuse_while_running_is_a_typed_error_naming_the_statement() {
    // x = [2, 0, 1]: each key of 0..3 inserted once.
    let insert = "P.insert(x(i))";
    let sorted = "{ P.insert(x(i)); if (i == N - 1) P.sort() }";
    // A key outside 0..E, either side.
    let key_out = |value| ObjectFault::KeyOutOfRange {
        component: 0,
        value,
        extent: 3,
    };
    assert_eq!(
        fault(
            &with_object(SCATTER, "y(i) = 0", "P.insert(3i)"),
            "P.insert"
        ),
        key_out(3)
    );
    assert_eq!(
        fault(
            &with_object(SCATTER, "y(i) = 0", "P.insert(-i)"),
            "P.insert"
        ),
        key_out(-1)
    );
    // Insert after sort.
    assert_eq!(
        fault(
            &with_object(SCATTER, sorted, "if (i > 0) P.insert(0)"),
            "P.insert"
        ),
        ObjectFault::InsertAfterSort
    );
    // Place more often than inserted: key 2 once, at position 2.
    assert_eq!(
        fault(
            &with_object(SCATTER, sorted, "y(i) = P.place(2)"),
            "P.place"
        ),
        ObjectFault::PlacedTooOften {
            key: 2,
            inserted: 1
        }
    );
    // `place_inserted` states that no key is placed more often than it was
    // inserted: the compiled runtimes trust it, the interpreter checks it
    // as for `place`.
    assert_eq!(
        fault(
            &with_object(SCATTER, sorted, "y(i) = P.place_inserted(2)"),
            "P.place_inserted"
        ),
        ObjectFault::PlacedTooOften {
            key: 2,
            inserted: 1
        }
    );
    assert_eq!(
        fault(
            &with_object(SCATTER, insert, "if (i > 0) y(i) = P.place_inserted(0)"),
            "P.place_inserted"
        ),
        ObjectFault::NotSorted
    );
    // So for slots, sorted or not; the first slot ends the inserts. The
    // interpreter checks what `slot_inserted` states as for `slot`.
    for before in [sorted, insert] {
        assert_eq!(
            fault(&with_object(SCATTER, before, "y(i) = P.slot(2)"), "P.slot"),
            ObjectFault::PlacedTooOften {
                key: 2,
                inserted: 1
            }
        );
        assert_eq!(
            fault(
                &with_object(SCATTER, before, "y(i) = P.slot_inserted(2)"),
                "P.slot_inserted"
            ),
            ObjectFault::PlacedTooOften {
                key: 2,
                inserted: 1
            }
        );
    }
    assert_eq!(
        fault(
            &with_object(
                SCATTER,
                insert,
                "{ if (i == 0) y(i) = P.slot(0); if (i == 1) P.insert(0) }"
            ),
            "P.insert"
        ),
        ObjectFault::InsertAfterSlot
    );
    assert_eq!(
        fault(
            // Nothing inserted; a second sort does nothing.
            &with_object(
                SCATTER,
                "y(i) = 0",
                "{ P.sort(); if (i > 0) y(i) = P.place(0) }"
            ),
            "P.place"
        ),
        ObjectFault::PlacedTooOften {
            key: 0,
            inserted: 0
        }
    );
    // Place and start before sort.
    assert_eq!(
        fault(
            &with_object(SCATTER, insert, "if (i > 0) y(i) = P.place(0)"),
            "P.place"
        ),
        ObjectFault::NotSorted
    );
    assert_eq!(
        fault(
            &with_object(SCATTER, insert, "if (i > 0) y(i) = P.start(0)"),
            "P.start"
        ),
        ObjectFault::NotSorted
    );
    // Keys out of range: start takes 0..=E, place 0..E.
    assert_eq!(
        fault(
            &with_object(SCATTER, sorted, "y(i) = P.start(i + 3)"),
            "P.start"
        ),
        ObjectFault::OutOfRange {
            argument: "key",
            value: 4,
            len: 4
        }
    );
    assert_eq!(
        fault(
            &with_object(SCATTER, sorted, "y(i) = P.place(3i)"),
            "P.place"
        ),
        ObjectFault::OutOfRange {
            argument: "key",
            value: 3,
            len: 3
        }
    );
    assert_eq!(
        fault(
            &with_object(SCATTER, sorted, "y(i) = P.start(-i)"),
            "P.start"
        ),
        ObjectFault::OutOfRange {
            argument: "key",
            value: -1,
            len: 4
        }
    );
    // What works: size any time, start(E), place as many times as inserted.
    let run_ok = |first: &str, body: &str| {
        let p = with_object(SCATTER, first, body);
        let mut mem = Memory::new()
            .with_symbol("N", 3)
            .with_array("x", ints(vec![2, 0, 1]))
            .with_array("y", ints(vec![0; 3]));
        run(&p, &mut mem, None).unwrap_or_else(|e| panic!("{body}: {e}"));
        mem.int("y").unwrap().to_vec()
    };
    assert_eq!(run_ok(insert, "y(i) = P.size()"), [3, 3, 3]);
    assert_eq!(
        run_ok(sorted, "{ P.sort(); y(i) = P.start(3) - P.size() }"),
        [0, 0, 0]
    );
    assert_eq!(run_ok(sorted, "y(i) = P.place(x(i))"), [2, 0, 1]);
    // A negative extent when the object is created.
    let p = program(
        "computation neg(N) { in int x[0]; out int y[0];
            object P : Scatter(N);
            S0: P.sort() domain {[]} schedule {[] -> [0]}; }",
    );
    let mut mem = Memory::new()
        .with_symbol("N", -1)
        .with_array("x", ints(vec![]))
        .with_array("y", ints(vec![]));
    let e = run(&p, &mut mem, None).unwrap_err();
    assert_eq!(
        e,
        RunError::ObjectFault {
            site: Site::Object("P".into()),
            call: "P : Scatter(N)".into(),
            fault: ObjectFault::NegativeExtent {
                component: 0,
                extent: -1
            },
        }
    );
}

/// Misuse of a scatter in compiled code: an abort with a message in C, a
/// panic in Rust.
#[test]
fn scatter_misuse_aborts_the_compiled_runtimes() {
    let mem = Memory::new()
        .with_symbol("N", 3)
        .with_array("x", ints(vec![2, 0, 2]))
        .with_array("y", ints(vec![0; 3]));
    let sorted = "{ P.insert(x(i)); if (i == N - 1) P.sort() }";
    let cases = [
        (
            "too_often",
            with_object(SCATTER, sorted, "y(i) = P.place(0)"),
            "spf runtime: place() more often than insert() of the key (0)",
            "spf runtime: place(0) called more often than key 0 was inserted",
        ),
        (
            "never_inserted",
            with_object(SCATTER, sorted, "y(i) = P.place(1)"),
            "spf runtime: place() more often than insert() of the key (1)",
            "spf runtime: place(1) called more often than key 1 was inserted",
        ),
        (
            "before_sort",
            with_object(SCATTER, "P.insert(x(i))", "y(i) = P.place(0)"),
            "spf runtime: place() before sort() (0)",
            "spf runtime: place() before sort()",
        ),
        // C's insert has no branch: keys outside 0..E, and any key once
        // sort() or slot() closed the inserts, count in a sink that sort(),
        // slot() and free test; the message gives how many went there.
        (
            "outside",
            with_object(SCATTER, "y(i) = 0", "P.insert(x(i) + 1)"),
            "spf runtime: key outside the scatter's range 0..3 (2 inserts)",
            "spf runtime: key 3 is outside the scatter's range 0..3",
        ),
        (
            "outside_negative",
            with_object(SCATTER, "y(i) = 0", "P.insert(x(i) - 2)"),
            "spf runtime: key outside the scatter's range 0..3 (1 insert)",
            "spf runtime: key -2 is outside the scatter's range 0..3",
        ),
        (
            // Found by sort(), before any position is handed out.
            "outside_then_sorted",
            with_object(
                SCATTER,
                "{ P.insert(x(i) + 1); if (i == N - 1) P.sort() }",
                "y(i) = P.start(i)",
            ),
            "spf runtime: key outside the scatter's range 0..3 (2 inserts)",
            "spf runtime: key 3 is outside the scatter's range 0..3",
        ),
        (
            "after_sort",
            with_object(SCATTER, sorted, "P.insert(0)"),
            "spf runtime: insert after sort() (3 inserts)",
            "spf runtime: insert after sort()",
        ),
        (
            // An out-of-range key after sort is an insert after sort.
            "after_sort_outside",
            with_object(SCATTER, sorted, "if (i == 1) P.insert(7)"),
            "spf runtime: insert after sort() (1 insert)",
            "spf runtime: insert after sort()",
        ),
        (
            // Positions are handed out in between (the sink is checked
            // when the scatter is freed): they are still right.
            "after_sort_then_place",
            with_object(
                SCATTER,
                sorted,
                "{ P.insert(x(i)); y(i) = P.place_inserted(x(i)) }",
            ),
            "spf runtime: insert after sort() (3 inserts)",
            "spf runtime: insert after sort()",
        ),
        (
            "place_inserted_before_sort",
            with_object(SCATTER, "P.insert(x(i))", "y(i) = P.place_inserted(0)"),
            "spf runtime: place_inserted() before sort() (0)",
            "spf runtime: place_inserted() before sort()",
        ),
        (
            // place_inserted() is trusted, but one place() in the mix
            // brings back the check of every key when the scatter is freed.
            "place_mixed_too_often",
            with_object(
                SCATTER,
                sorted,
                "{ if (i < 2) y(i) = P.place_inserted(2); if (i == 2) y(i) = P.place(2) }",
            ),
            "spf runtime: place() more often than insert() of the key (2)",
            "spf runtime: place(2) called more often than key 2 was inserted",
        ),
        (
            "slot_too_often",
            with_object(SCATTER, "P.insert(x(i))", "y(i) = P.slot(2)"),
            "spf runtime: slot() more often than insert() of the key (2)",
            "spf runtime: slot(2) called more often than key 2 was inserted",
        ),
        (
            // slot_inserted() is trusted, but one slot() in the mix brings
            // back the check of every key when the scatter is freed.
            "slot_mixed_too_often",
            with_object(
                SCATTER,
                "P.insert(x(i))",
                "{ if (i < 2) y(i) = P.slot_inserted(2); if (i == 2) y(i) = P.slot(2) }",
            ),
            "spf runtime: slot() more often than insert() of the key (2)",
            "spf runtime: slot(2) called more often than key 2 was inserted",
        ),
        (
            "slot_too_often_after_sort",
            with_object(SCATTER, sorted, "y(i) = P.slot(2)"),
            "spf runtime: slot() more often than insert() of the key (2)",
            "spf runtime: slot(2) called more often than key 2 was inserted",
        ),
        (
            "after_slot",
            with_object(
                SCATTER,
                "P.insert(x(i))",
                "{ if (i == 0) y(i) = P.slot(0); if (i == 1) P.insert(0) }",
            ),
            "spf runtime: insert after slot() (1 insert)",
            "spf runtime: insert after slot()",
        ),
        (
            // Inserts after slot(), then sort(): found by the sort.
            "after_slot_then_sort",
            with_object(
                SCATTER,
                "P.insert(x(i))",
                "{ if (i == 0) y(i) = P.slot(0); P.insert(0); if (i == N - 1) P.sort() }",
            ),
            "spf runtime: insert after slot() (3 inserts)",
            "spf runtime: insert after slot()",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mems = [mem];
    std::thread::scope(|s| {
        for (name, p, _, _) in &cases {
            let (dir, mems) = (dir.path(), &mems);
            s.spawn(move || {
                let c_src = dir.join(format!("{name}.c"));
                std::fs::write(&c_src, c_driver(p, mems)).unwrap();
                tool(
                    Command::new("cc")
                        .args(CFLAGS)
                        .arg(&c_src)
                        .arg("-o")
                        .arg(dir.join(format!("{name}_c"))),
                    "cc",
                );
            });
            s.spawn(move || {
                let rs_src = dir.join(format!("{name}.rs"));
                std::fs::write(&rs_src, rust_driver(p, mems)).unwrap();
                tool(
                    Command::new("rustc")
                        .args(["--edition", "2021", "-D", "warnings", "-o"])
                        .arg(dir.join(format!("{name}_rs")))
                        .arg(&rs_src),
                    "rustc",
                );
            });
        }
    });
    for (name, _, c_message, rs_message) in &cases {
        for (exe, message) in [
            (dir.path().join(format!("{name}_c")), c_message),
            (dir.path().join(format!("{name}_rs")), rs_message),
        ] {
            let out = Command::new(&exe).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{exe:?} should fail");
            assert!(stderr.contains(message), "{exe:?}: {stderr}");
        }
    }
}

/// `place_inserted` in the transposition: the same positions as `place` in
/// every backend; C calls the runtime's `spf_scatter_place_inserted`.
#[test]
fn scatter_place_inserted_transposes_in_every_backend() {
    let text = COO_CSC.replace("B.place(col(n))", "B.place_inserted(col(n))");
    assert!(text.contains("B.place_inserted(col(n))"));
    let p = program(&text);
    let c = emit_c(&p).unwrap();
    assert!(
        c.contains("k = spf_scatter_place_inserted(&B, col[n]);"),
        "{c}"
    );
    let r = emit_rust(&p).unwrap();
    assert!(r.contains(".place_inserted("), "{r}");
    check_cases(&p, &coo_csc_cases(59));
}

/// What `place_inserted` states is trusted by the compiled runtimes: a key
/// placed more often than it was inserted (here key 0, inserted once,
/// placed three times) is not checked in C or Rust, which hand out the
/// next positions (0, 1, 2) as `place` would before its check; the
/// interpreter checks the claim and reports the third call's fault. A
/// hand-written computation that cannot state it calls `place`, checked in
/// every backend (`scatter_misuse_aborts_the_compiled_runtimes`).
#[test]
fn place_inserted_is_trusted_by_the_compiled_runtimes_and_checked_by_the_interpreter() {
    let p = with_object(
        SCATTER,
        "{ P.insert(x(i)); if (i == N - 1) P.sort() }",
        "y(i) = P.place_inserted(0)",
    );
    trusted_by_the_compiled_runtimes_and_checked_by_the_interpreter(&p, "P.place_inserted");
}

/// Runs `p` (its statement `S0` hands out three positions or slots of key
/// 0, which `x = [2, 0, 2]` inserts once, with `call`): C and Rust hand
/// out 0, 1, 2 unchecked, the interpreter reports the second call's fault.
fn trusted_by_the_compiled_runtimes_and_checked_by_the_interpreter(p: &LoopProgram, call: &str) {
    let mem = Memory::new()
        .with_symbol("N", 3)
        .with_array("x", ints(vec![2, 0, 2]))
        .with_array("y", ints(vec![0; 3]));
    let dir = tempfile::tempdir().unwrap();
    let mems = [mem.clone()];
    let c = harness::run_c(dir.path(), p, &mems);
    assert_eq!(c[0]["y"], ints(vec![0, 1, 2]), "{call}");
    let r = harness::run_rust(dir.path(), p, &mems);
    assert_eq!(r[0]["y"], ints(vec![0, 1, 2]), "{call}");
    let mut interp = mem;
    assert_eq!(
        run(p, &mut interp, None).unwrap_err(),
        RunError::ObjectFault {
            site: Site::Statement {
                name: "S0".into(),
                point: vec![1],
            },
            call: call.into(),
            fault: ObjectFault::PlacedTooOften {
                key: 0,
                inserted: 1
            },
        }
    );
}

/// So for `slot_inserted`: key 0, inserted once, given three slots, is
/// not checked in C or Rust (slots 0, 1, 2, as `slot` hands them out before
/// its check); the interpreter reports the second call's fault.
#[test]
fn slot_inserted_is_trusted_by_the_compiled_runtimes_and_checked_by_the_interpreter() {
    let p = with_object(SCATTER, "P.insert(x(i))", "y(i) = P.slot_inserted(0)");
    trusted_by_the_compiled_runtimes_and_checked_by_the_interpreter(&p, "P.slot_inserted");
}

#[test]
fn rust_runtime_scatter_agrees_with_the_reference() {
    let mut r = Rng(53);
    for round in 0..300 {
        let e = [0usize, 1, 2, 7, 100][round % 5];
        let n = if e == 0 {
            0
        } else {
            [0, 1, 5, 60, 1000][round / 5 % 5]
        };
        let keys: Vec<i64> = (0..n).map(|_| r.below(e as u64) as i64).collect();
        let mut b = Scatter::new(e as i64);
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(b.size(), i as i64);
            b.insert(k);
        }
        b.sort();
        b.sort(); // idempotent
        assert_eq!(b.size(), n as i64);
        for v in 0..=e as i64 {
            let below = keys.iter().filter(|&&k| k < v).count() as i64;
            assert_eq!(b.start(v), below);
        }
        // Placing every entry in input order gives the stable order.
        let order = stable_order(n, |i| keys[i]);
        let mut got = vec![usize::MAX; n];
        // `place_inserted` hands out the same positions.
        let mut twin = b.clone();
        for (i, &k) in keys.iter().enumerate() {
            let p = b.place(k);
            assert_eq!(twin.place_inserted(k), p);
            got[p as usize] = i;
        }
        assert_eq!(got, order);
        assert_eq!(b.size(), n as i64);
    }
}

#[test]
#[should_panic(expected = "spf runtime: place_inserted() before sort()")]
fn rust_runtime_scatter_rejects_place_inserted_before_sort() {
    let mut b = Scatter::new(3);
    b.insert(1);
    b.place_inserted(1);
}

#[test]
#[should_panic(expected = "spf runtime: key 3 is out of range 0..3")]
fn rust_runtime_scatter_rejects_place_inserted_outside_the_range() {
    let mut b = Scatter::new(3);
    b.sort();
    b.place_inserted(3);
}

#[test]
#[should_panic(expected = "spf runtime: place(1) called more often than key 1 was inserted")]
fn rust_runtime_scatter_rejects_places_beyond_the_count() {
    let mut b = Scatter::new(3);
    b.insert(1);
    b.sort();
    assert_eq!(b.place(1), 0);
    b.place(1);
}

#[test]
#[should_panic(expected = "spf runtime: place() before sort()")]
fn rust_runtime_scatter_rejects_places_before_sort() {
    let mut b = Scatter::new(3);
    b.insert(1);
    b.place(1);
}

#[test]
#[should_panic(expected = "spf runtime: key 3 is out of range 0..3")]
fn rust_runtime_scatter_rejects_places_outside_the_range() {
    let mut b = Scatter::new(3);
    b.sort();
    b.place(3);
}

#[test]
#[should_panic(expected = "spf runtime: start() before sort()")]
fn rust_runtime_scatter_rejects_start_before_sort() {
    Scatter::new(3).start(0);
}

// ---------------------------------------------------------------------------
// Key views: C reads a permutation's key components in the input arrays

/// The COO -> CSR computation synthesis builds (`spf synth coo csr --emit
/// ir`): the keys are inserted from `row(n)` and `col(n)` through `let`s, the
/// payload is the entry number.
const SYNTH_COO_CSR: &str = "computation coo_to_csr(NR, NC, NNZ) {
    in int row[NNZ];
    in int col[NNZ];
    in real A[NNZ];
    out int NNZ_out;
    out int rowptr[NR + 1];
    out int col_out[NNZ_out];
    out real A_out[NNZ_out];
    temp int jj_out;
    temp int n_src;
    temp int NP;
    object P : Permutation(3, counting(NR, NC));

    S0: P.reserve(NNZ)
        domain {[]}
        schedule {[] -> [0]};

    S1: P.insert(ii, jj, n)
        domain {[n, ii, jj] : ii = row(n) && jj = col(n) && 0 <= n < NNZ}
        schedule {[n, ii, jj] -> [1, n, 0, ii, 0, jj, 0]};

    S2: P.sort()
        domain {[]}
        schedule {[] -> [2]};

    S3: NP = P.size()
        domain {[]}
        schedule {[] -> [3]};

    S4: NNZ_out max= NP
        domain {[] : 1 <= NP}
        schedule {[] -> [4]};

    S5: {
            jj_out = P.key(1, p);
            col_out(p) = jj_out;
        }
        domain {[p] : 0 <= p < NP}
        schedule {[p] -> [5, p, 0]};

    S6: {
            n_src = P.key(2, p);
            A_out(p) = A(n_src);
        }
        domain {[p] : 0 <= p < NP}
        schedule {[p] -> [5, p, 1]};

    S7: rowptr(g + 1) = P.start(g + 1)
        domain {[g] : 0 <= g < NR}
        schedule {[g] -> [6, g, 0]};
}";

/// The COO3D -> MCOO3 computation synthesis builds: Morton order of three
/// components read from the inputs.
const SYNTH_COO3D_MCOO3: &str = "computation coo3d_to_mcoo3(NR, NC, NZ, NNZ) {
    in int row[NNZ];
    in int col[NNZ];
    in int z[NNZ];
    in real A[NNZ];
    out int NNZ_out;
    out int row_out[NNZ_out];
    out int col_out[NNZ_out];
    out int z_out[NNZ_out];
    out real A_out[NNZ_out];
    temp int jj_out;
    temp int ii_out;
    temp int kk_out;
    temp int n_src;
    temp int NP;
    object P : Permutation(4, morton(3));

    S0: P.reserve(NNZ)
        domain {[]}
        schedule {[] -> [0]};

    S1: P.insert(ii, jj, kk, n)
        domain {[n, ii, jj, kk] : ii = row(n) && jj = col(n) && kk = z(n) && 0 <= n < NNZ}
        schedule {[n, ii, jj, kk] -> [1, n, 0, ii, 0, jj, 0, kk, 0]};

    S2: P.sort()
        domain {[]}
        schedule {[] -> [2]};

    S3: NP = P.size()
        domain {[]}
        schedule {[] -> [3]};

    S4: NNZ_out max= NP
        domain {[] : 1 <= NP}
        schedule {[] -> [4]};

    S5: {
            jj_out = P.key(1, p);
            col_out(p) = jj_out;
        }
        domain {[p] : 0 <= p < NP}
        schedule {[p] -> [5, p, 0]};

    S6: {
            ii_out = P.key(0, p);
            row_out(p) = ii_out;
        }
        domain {[p] : 0 <= p < NP}
        schedule {[p] -> [5, p, 1]};

    S7: {
            kk_out = P.key(2, p);
            z_out(p) = kk_out;
        }
        domain {[p] : 0 <= p < NP}
        schedule {[p] -> [5, p, 2]};

    S8: {
            n_src = P.key(3, p);
            A_out(p) = A(n_src);
        }
        domain {[p] : 0 <= p < NP}
        schedule {[p] -> [5, p, 3]};
}";

/// The line that views `P`'s components in `arrays`.
fn view_line(arrays: &[&str]) -> String {
    format!(
        "    spf_perm_view(&P, {}, (const int64_t *const[]){{{}}});",
        arrays.len(),
        arrays.join(", ")
    )
}

#[test]
fn c_views_the_keys_of_synthesized_sorts() {
    // COO -> CSC: the same computation with the components swapped.
    let csc = SYNTH_COO_CSR
        .replace("counting(NR, NC)", "counting(NC, NR)")
        .replace("P.insert(ii, jj, n)", "P.insert(jj, ii, n)");
    for (text, arrays, created) in [
        (
            SYNTH_COO_CSR.to_string(),
            &["row", "col"][..],
            "spf_perm_new_compared(3, 2, SPF_COUNTING, (int64_t[]){NR, NC});",
        ),
        (
            csc,
            &["col", "row"][..],
            "spf_perm_new_compared(3, 2, SPF_COUNTING, (int64_t[]){NC, NR});",
        ),
        (
            SYNTH_COO3D_MCOO3.to_string(),
            &["row", "col", "z"][..],
            "spf_perm_new_compared(4, 3, SPF_MORTON, NULL);",
        ),
    ] {
        let c = emit_c(&program(&text)).unwrap();
        // right after the creation, before the reservation and the inserts
        let expected = format!("    spf_perm P = {created}\n{}\n", view_line(arrays));
        assert!(c.contains(&expected), "missing {expected:?} in\n{c}");
        assert_eq!(c.matches("spf_perm_view(&P").count(), 1, "{c}");
    }
}

#[test]
fn c_views_keys_only_where_they_are_inputs_read_at_the_entry_numbers() {
    let viewed = |text: &str| emit_c(&program(text)).unwrap().contains("spf_perm_view(&P");
    assert!(viewed(SYNTH_COO_CSR));
    // Every component viewed, the payload too (read from an input).
    let all = SYNTH_COO_CSR
        .replace("in real A[NNZ];", "in real A[NNZ]; in int perm[NNZ];")
        .replace("P.insert(ii, jj, n)", "P.insert(ii, jj, perm(n))");
    let c = emit_c(&program(&all)).unwrap();
    assert!(c.contains(&view_line(&["row", "col", "perm"])), "{c}");
    // Directly, without `let`s.
    let direct = coo_csr(COUNTING);
    let c = emit_c(&direct).unwrap();
    assert!(c.contains(&view_line(&["row", "col"])), "{c}");
    // Beside other actions and statements in the loop (DCSR's ordered set
    // of rows), which run once an iteration as the insert does.
    for (what, text) in [
        (
            "other action",
            SYNTH_COO_CSR.replace(
                "S1: P.insert(ii, jj, n)",
                "S1: { NP += 1; P.insert(ii, jj, n) }",
            ),
        ),
        (
            "other statement",
            SYNTH_COO_CSR.replace(
                "S1: P.insert(ii, jj, n)",
                "S9: NP += ii domain {[n, ii, jj] : ii = row(n) && jj = col(n) && 0 <= n < NNZ} \
                 schedule {[n, ii, jj] -> [1, n, 0, ii, 0, jj, 0]}; S1: P.insert(ii, jj, n)",
            ),
        ),
    ] {
        assert_ne!(text, SYNTH_COO_CSR, "{what}: nothing replaced");
        let c = emit_c(&program(&text)).unwrap();
        assert!(
            c.contains(&view_line(&["row", "col"])),
            "{what}: not viewed in\n{c}"
        );
    }
    let not_viewed = [
        // the insert under a guard: entry numbers are not the loop's
        (
            "guarded",
            SYNTH_COO_CSR.replace("&& 0 <= n < NNZ}", "&& 0 <= n < NNZ && 1 <= ii}"),
        ),
        // a component computed from the read
        (
            "computed",
            SYNTH_COO_CSR.replace("P.insert(ii, jj, n)", "P.insert(ii, NC - 1 - jj, n)"),
        ),
        // a read at another index
        (
            "index",
            SYNTH_COO_CSR.replace("jj = col(n)", "jj = col(NNZ - 1 - n)"),
        ),
        // an array the function may write
        (
            "inout",
            SYNTH_COO_CSR.replace("in int col[NNZ];", "inout int col[NNZ];"),
        ),
        // a loop that does not start at 0
        (
            "lower bound",
            SYNTH_COO_CSR.replace("&& 0 <= n < NNZ}", "&& 1 <= n < NNZ}"),
        ),
        // another insert (the loop's entry numbers start at 1)
        (
            "second insert",
            SYNTH_COO_CSR.replace("S0: P.reserve(NNZ)", "S0: P.insert(0, 0, 0)"),
        ),
        // the insert under a condition of its statement
        (
            "conditional action",
            SYNTH_COO_CSR.replace(
                "S1: P.insert(ii, jj, n)",
                "S1: { NP += 1; if (jj > 0) P.insert(ii, jj, n) }",
            ),
        ),
        // a compared last component that is not an input
        (
            "compared payload",
            SYNTH_COO_CSR.replace("counting(NR, NC)", "counting(NR, NC, NNZ)"),
        ),
    ];
    for (what, text) in not_viewed {
        assert_ne!(text, SYNTH_COO_CSR, "{what}: nothing replaced");
        assert!(!viewed(&text), "{what}: viewed in\n{text}");
    }
}

/// Random COO entries, sorted by `(row, col)` when `sorted`.
fn coo_cases(sorted: bool, r: &mut Rng) -> Vec<Coo> {
    SHAPES
        .iter()
        .map(|&(n, m, nnz)| {
            let mut c = coo(n, m, nnz, r);
            if sorted {
                let order = stable_order(nnz, |e| (c.row[e], c.col[e]));
                c.row = order.iter().map(|&e| c.row[e]).collect();
                c.col = order.iter().map(|&e| c.col[e]).collect();
            }
            c
        })
        .collect()
}

#[test]
fn viewed_keys_convert_coo_to_csr_in_every_backend() {
    let p = program(SYNTH_COO_CSR);
    assert!(emit_c(&p).unwrap().contains("spf_perm_view(&P"));
    let mut r = Rng(41);
    let mut cases = Vec::new();
    for sorted in [true, false] {
        for c in coo_cases(sorted, &mut r) {
            let nnz = c.row.len();
            let order = stable_order(nnz, |e| (c.row[e], c.col[e]));
            let mem = Memory::new()
                .with_symbol("NR", c.n as i64)
                .with_symbol("NC", c.m as i64)
                .with_symbol("NNZ", nnz as i64)
                .with_array("row", ints(c.row.clone()))
                .with_array("col", ints(c.col.clone()))
                .with_array("A", Array::Real(c.val.clone()))
                .with_array("NNZ_out", ints(vec![0]))
                .with_array("rowptr", ints(vec![0; c.n + 1]))
                .with_array("col_out", ints(Vec::new()))
                .with_array("A_out", Array::Real(Vec::new()));
            let mut outs = Outputs::new();
            out_ints(&mut outs, "NNZ_out", vec![nnz as i64]);
            out_ints(
                &mut outs,
                "rowptr",
                (0..=c.n as i64)
                    .map(|v| c.row.iter().filter(|&&x| x < v).count() as i64)
                    .collect(),
            );
            out_ints(
                &mut outs,
                "col_out",
                order.iter().map(|&e| c.col[e]).collect(),
            );
            outs.insert(
                "A_out".into(),
                Array::Real(order.iter().map(|&e| c.val[e]).collect()),
            );
            cases.push((mem, outs));
        }
    }
    check_cases(&p, &cases);
}

#[test]
fn viewed_keys_convert_coo3d_to_mcoo3_in_every_backend() {
    let p = program(SYNTH_COO3D_MCOO3);
    assert!(emit_c(&p).unwrap().contains("spf_perm_view(&P"));
    let mut r = Rng(43);
    let mut cases = Vec::new();
    for sorted in [true, false] {
        for c in coo_cases(false, &mut r) {
            let nnz = c.row.len();
            let nz = c.m.max(1) + 2;
            let mut row = c.row.clone();
            let mut col = c.col.clone();
            let mut z: Vec<i64> = (0..nnz).map(|_| r.below(nz as u64) as i64).collect();
            if sorted {
                let order = stable_order(nnz, |e| morton(&[row[e], col[e], z[e]]));
                row = order.iter().map(|&e| c.row[e]).collect();
                col = order.iter().map(|&e| c.col[e]).collect();
                z = order.iter().map(|&e| z[e]).collect();
            }
            let order = stable_order(nnz, |e| morton(&[row[e], col[e], z[e]]));
            let mem = Memory::new()
                .with_symbol("NR", c.n as i64)
                .with_symbol("NC", c.m as i64)
                .with_symbol("NZ", nz as i64)
                .with_symbol("NNZ", nnz as i64)
                .with_array("row", ints(row.clone()))
                .with_array("col", ints(col.clone()))
                .with_array("z", ints(z.clone()))
                .with_array("A", Array::Real(c.val.clone()))
                .with_array("NNZ_out", ints(vec![0]))
                .with_array("row_out", ints(Vec::new()))
                .with_array("col_out", ints(Vec::new()))
                .with_array("z_out", ints(Vec::new()))
                .with_array("A_out", Array::Real(Vec::new()));
            let mut outs = Outputs::new();
            out_ints(&mut outs, "NNZ_out", vec![nnz as i64]);
            out_ints(
                &mut outs,
                "row_out",
                order.iter().map(|&e| row[e]).collect(),
            );
            out_ints(
                &mut outs,
                "col_out",
                order.iter().map(|&e| col[e]).collect(),
            );
            out_ints(&mut outs, "z_out", order.iter().map(|&e| z[e]).collect());
            outs.insert(
                "A_out".into(),
                Array::Real(order.iter().map(|&e| c.val[e]).collect()),
            );
            cases.push((mem, outs));
        }
    }
    check_cases(&p, &cases);
}

// ---------------------------------------------------------------------------
// Prefix ranks: the positions of nested levels

/// Sorts COO entries by `(row, col)` and numbers the distinct rows
/// (`prefix_rank(1, p)`) and the distinct `(row, col)` pairs
/// (`prefix_rank(2, p)`) in sorted order, with their counts.
fn prefix_ranks(order: &str) -> LoopProgram {
    program(&format!(
        "computation prefix_ranks(N, M, NNZ) {{
            in   int  row[NNZ];
            in   int  col[NNZ];
            in   real val[NNZ];
            out  int  rows[NNZ];
            out  int  pairs[NNZ];
            out  int  nrows;
            out  int  npairs;
            object P : Permutation(2, {order});

            S0: P.insert(row(n), col(n)) domain {{[n] : 0 <= n < NNZ}} schedule {{[n] -> [0, n, 0]}};
            S1: P.sort() domain {{[]}} schedule {{[] -> [1, 0, 0]}};
            S2: {{ rows(p) = P.prefix_rank(1, p); pairs(p) = P.prefix_rank(2, p) }}
                domain {{[p] : 0 <= p < NNZ}} schedule {{[p] -> [2, p, 0]}};
            S3: {{ nrows = P.prefix_ranks(1); npairs = P.prefix_ranks(2) }}
                domain {{[]}} schedule {{[] -> [3, 0, 0]}};
        }}"
    ))
}

#[test]
fn prefix_ranks_number_nested_levels_in_every_backend() {
    let mut r = Rng(23);
    let cases: Vec<(Memory, Outputs)> = SHAPES
        .iter()
        .map(|&(n, m, nnz)| {
            let c = coo(n, m, nnz, &mut r);
            let order = stable_order(nnz, |e| lex_key(&c, e));
            let distinct = |len: usize| -> (Vec<i64>, i64) {
                let key = |e: usize| (c.row[e], if len == 2 { c.col[e] } else { 0 });
                let mut rank = -1;
                let ranks = (0..nnz)
                    .map(|p| {
                        if p == 0 || key(order[p]) != key(order[p - 1]) {
                            rank += 1;
                        }
                        rank
                    })
                    .collect();
                (ranks, rank + 1)
            };
            let (rows, nrows) = distinct(1);
            let (pairs, npairs) = distinct(2);
            let mut outs = Outputs::new();
            out_ints(&mut outs, "rows", rows);
            out_ints(&mut outs, "pairs", pairs);
            out_ints(&mut outs, "nrows", vec![nrows]);
            out_ints(&mut outs, "npairs", vec![npairs]);
            let mem = coo_memory(&c)
                .with_array("rows", ints(vec![0; nnz]))
                .with_array("pairs", ints(vec![0; nnz]))
                .with_array("nrows", ints(vec![7]))
                .with_array("npairs", ints(vec![7]));
            (mem, outs)
        })
        .collect();
    check_cases(&prefix_ranks(COUNTING), &cases);
    check_cases(&prefix_ranks("lex"), &cases);
}

#[test]
fn a_prefix_longer_than_the_key_is_a_typed_error() {
    let p = with_object(
        "Permutation(2, lex)",
        "P.insert(1, 2)",
        "y(i) = P.prefix_rank(3, 0)",
    );
    let e = call_error(&p);
    assert!(e.to_string().contains("a prefix of 3 components"), "{e}");
}
