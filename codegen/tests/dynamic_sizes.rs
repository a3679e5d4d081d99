//! Arrays sized by the computation (docs/computations.md, "Sizes computed by
//! the computation"): a COO matrix's entries above the diagonal are counted
//! into `out int K`, then copied into `out int kept[K]`, which every backend
//! allocates right before the first statement touching it — the interpreter
//! in its memory, C through an `int64_t **` the caller frees, Rust through a
//! `&mut Vec<i64>`.

mod harness;

use codegen::ast::LoopProgram;
use codegen::c::{c_parameters, emit_c};
use codegen::emit::ParamKind;
use codegen::interp::{run, Array, Memory, RunError, Site};
use codegen::rust::{emit_rust, rust_parameters};
use codegen::width::{Elem, IndexWidth};
use iegen::computation::{parse_computation, Computation};
use iegen::UfEnvironment;

use harness::{check_cases, Outputs, Rng};

fn computation(text: &str) -> Computation {
    parse_computation(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn program(text: &str) -> LoopProgram {
    codegen::scan(&computation(text), &UfEnvironment::new()).unwrap_or_else(|e| panic!("{e}"))
}

/// Counts the entries with `row < col`, then keeps their columns and values
/// (in a 2-D array `both[K, 2]` too, to linearize with a size space) and
/// their positions in a temporary sized by a temporary size space `T`.
const UPPER: &str = "computation upper(NNZ) {
    in   int  row[NNZ];
    in   int  col[NNZ];
    in   real val[NNZ];
    out  int  K;
    temp int  T;
    out  int  kept[K];
    out  real kval[K];
    out  int  both[K, 2];
    temp int  pos[T];
    temp int  slot[NNZ];
    out  int  psum;

    S0: if (row(n) < col(n)) { slot(n) = K; K += 1 }
        domain {[n] : 0 <= n < NNZ} schedule {[n] -> [0, n, 0]};
    S1: T = K
        domain {[]} schedule {[] -> [1, 0, 0]};
    S2: if (row(n) < col(n)) { kept(slot(n)) = col(n); kval(slot(n)) = val(n);
                               both(slot(n), 0) = row(n); both(slot(n), 1) = col(n);
                               pos(slot(n)) = n }
        domain {[n] : 0 <= n < NNZ} schedule {[n] -> [2, n, 0]};
    S3: if (row(n) < col(n)) psum += pos(slot(n))
        domain {[n] : 0 <= n < NNZ} schedule {[n] -> [3, n, 0]};
}";

fn upper_cases() -> Vec<(Memory, Outputs)> {
    let mut r = Rng(0x5eed_d15c);
    let mut cases = Vec::new();
    for (nnz, n) in [(0usize, 3u64), (1, 2), (7, 3), (40, 6), (200, 20)] {
        let row: Vec<i64> = (0..nnz).map(|_| r.below(n) as i64).collect();
        let col: Vec<i64> = (0..nnz).map(|_| r.below(n) as i64).collect();
        let val = r.reals(nnz);
        let keep: Vec<usize> = (0..nnz).filter(|&e| row[e] < col[e]).collect();
        let mem = Memory::new()
            .with_symbol("NNZ", nnz as i64)
            .with_array("row", Array::Int(row.clone().into()))
            .with_array("col", Array::Int(col.clone().into()))
            .with_array("val", Array::Real(val.clone().into()))
            .with_array("K", Array::Int(vec![0].into()))
            .with_array("psum", Array::Int(vec![0].into()))
            // Only their element types matter: the computation sizes them.
            .with_array("kept", Array::Int(Vec::new().into()))
            .with_array("kval", Array::Real(Vec::new().into()))
            .with_array("both", Array::Int(Vec::new().into()));
        let mut want = Outputs::new();
        want.insert("K".into(), Array::Int(vec![keep.len() as i64].into()));
        want.insert(
            "kept".into(),
            Array::Int(keep.iter().map(|&e| col[e]).collect()),
        );
        want.insert(
            "kval".into(),
            Array::Real(keep.iter().map(|&e| val[e]).collect()),
        );
        want.insert(
            "both".into(),
            Array::Int(keep.iter().flat_map(|&e| [row[e], col[e]]).collect()),
        );
        want.insert(
            "psum".into(),
            Array::Int(vec![keep.iter().sum::<usize>() as i64].into()),
        );
        cases.push((mem, want));
    }
    cases
}

#[test]
fn arrays_sized_by_a_computed_count_agree_in_every_backend() {
    let p = program(UPPER);
    check_cases(&p, &upper_cases());
}

#[test]
fn the_interpreter_needs_no_array_for_a_computed_size() {
    let p = program(UPPER);
    let (mut mem, want) = upper_cases().swap_remove(3);
    for name in ["kept", "kval", "both"] {
        mem.arrays.remove(name);
    }
    run(&p, &mut mem, None).unwrap();
    assert_eq!(mem.arrays["kept"], want["kept"]);
    assert_eq!(mem.arrays["both"], want["both"]);
}

#[test]
fn signatures_return_computed_arrays_through_pointers_and_vectors() {
    let p = program(UPPER);
    let kinds: Vec<(String, ParamKind)> = c_parameters(&p)
        .unwrap()
        .into_iter()
        .map(|p| (p.name, p.kind))
        .collect();
    assert!(kinds.contains(&(
        "kept".into(),
        ParamKind::DynArray {
            elem: Elem::Int(IndexWidth::W64)
        }
    )));
    let c = emit_c(&p).unwrap();
    for param in [
        "int64_t *restrict K,",
        "int64_t **kept,",
        "double **kval,",
        "int64_t **both,",
    ] {
        assert!(c.contains(param), "{c}");
    }
    assert!(
        c.contains("*kept = spf_alloc_out(*K, sizeof **kept, 0);"),
        "{c}"
    );
    assert!(c.contains("pos = calloc(spf_len(T), sizeof *pos);"), "{c}");
    assert!(c.contains("(*both)[slot[n] * 2 + 1] = col[n];"), "{c}");
    // Allocated after the count, before the copy.
    let (count, alloc) = (
        c.find("/* S0 */").unwrap(),
        c.find("*kept = spf_alloc_out").unwrap(),
    );
    assert!(count < alloc && alloc < c.find("/* S2 */").unwrap(), "{c}");
    assert_eq!(
        rust_parameters(&p).unwrap().len(),
        c_parameters(&p).unwrap().len()
    );
    let rs = emit_rust(&p).unwrap();
    for param in [
        "k: &mut i64,",
        "kept: &mut Vec<i64>,",
        "kval: &mut Vec<f64>,",
    ] {
        assert!(rs.contains(param), "{rs}");
    }
    assert!(rs.contains("kept.clear();"), "{rs}");
    assert!(rs.contains("kept.resize(*k as usize, 0_i64);"), "{rs}");
}

#[test]
fn a_size_space_changed_after_allocation_is_an_error() {
    let p = program(
        "computation grow(N) {
            out int K;
            out int a[K];
            S0: K = N domain {[]} schedule {[] -> [0, 0, 0]};
            S1: a(i) = i domain {[i] : 0 <= i < N} schedule {[i] -> [1, i, 0]};
            S2: K += 1 domain {[]} schedule {[] -> [2, 0, 0]};
        }",
    );
    let mut mem = Memory::new()
        .with_symbol("N", 3)
        .with_array("K", Array::Int(vec![0].into()));
    let err = run(&p, &mut mem, None).unwrap_err();
    assert_eq!(
        err,
        RunError::SizeChanged {
            size_space: "K".into(),
            array: "a".into(),
            old: 3,
            new: 4,
            site: Site::Statement {
                name: "S2".into(),
                point: Vec::new()
            },
        }
    );
    assert_eq!(
        err.to_string(),
        "statement S2: size space `K` changes from 3 to 4 after `a`, which it sizes, was allocated"
    );
    // Writing the same value again is no change.
    let same = program(
        "computation same(N) {
            out int K;
            out int a[K];
            S0: K = N domain {[]} schedule {[] -> [0, 0, 0]};
            S1: a(i) = i domain {[i] : 0 <= i < N} schedule {[i] -> [1, i, 0]};
            S2: K max= N domain {[]} schedule {[] -> [2, 0, 0]};
        }",
    );
    let mut mem = Memory::new()
        .with_symbol("N", 3)
        .with_array("K", Array::Int(vec![0].into()));
    run(&same, &mut mem, None).unwrap();
    assert_eq!(mem.arrays["a"], Array::Int(vec![0, 1, 2].into()));
}

#[test]
fn only_out_and_temp_int_scalars_size_out_and_temp_arrays() {
    let c = computation(UPPER);
    assert_eq!(c.to_string().parse::<Computation>().unwrap(), c);
    let err = |text: &str| parse_computation(text).unwrap_err().to_string();
    assert_eq!(
        err("computation c() { in int K; out int a[K]; }"),
        "1:39: `K` is a scalar data space; an extent may use a scalar only when it is an `out` or `temp` `int` (a size space) and the array is `out` or `temp`"
    );
    assert!(err("computation c() { out real K; out int a[K]; }").contains("size space"));
    assert!(err("computation c() { out int K; inout int a[K]; }").contains("size space"));
    assert!(parse_computation("computation c() { temp int K; temp real a[K, 2]; }").is_ok());
}

/// Counts the entries with `row < col` into `K`, keeps their columns in
/// `kept[K]` through a temporary slot array, then loops `0 <= p < K` — a
/// size space in a domain, hence in a loop bound — to compute their prefix
/// sum into `acc[K]`; `last` reads `acc(K - 1)` (a size space in an index
/// expression) under the guard `K >= 1` of a 0-d domain.
const PREFIX: &str = "computation prefix(NNZ) {
    in   int row[NNZ];
    in   int col[NNZ];
    out  int K;
    out  int kept[K];
    temp int slot[NNZ];
    out  int acc[K];
    out  int last;

    S0: if (row(n) < col(n)) { slot(n) = K; K += 1 }
        domain {[n] : 0 <= n < NNZ} schedule {[n] -> [0, n, 0]};
    S1: if (row(n) < col(n)) kept(slot(n)) = col(n)
        domain {[n] : 0 <= n < NNZ} schedule {[n] -> [1, n, 0]};
    S2: acc(p) = kept(p)
        domain {[p] : 0 <= p < K} schedule {[p] -> [2, p, 0]};
    S3: acc(p) += acc(p - 1)
        domain {[p] : 1 <= p < K} schedule {[p] -> [2, p, 1]};
    S4: last = acc(K - 1)
        domain {[] : K >= 1} schedule {[] -> [3, 0, 0]};
}";

fn prefix_cases() -> Vec<(Memory, Outputs)> {
    let mut r = Rng(0x00c0_ffee);
    let mut cases = Vec::new();
    for (nnz, n) in [(0usize, 3u64), (1, 2), (2, 1), (7, 3), (40, 6), (200, 20)] {
        let row: Vec<i64> = (0..nnz).map(|_| r.below(n) as i64).collect();
        let col: Vec<i64> = (0..nnz).map(|_| r.below(n) as i64).collect();
        let kept: Vec<i64> = (0..nnz)
            .filter(|&e| row[e] < col[e])
            .map(|e| col[e])
            .collect();
        let acc: Vec<i64> = kept
            .iter()
            .scan(0, |s, &c| {
                *s += c;
                Some(*s)
            })
            .collect();
        let mem = Memory::new()
            .with_symbol("NNZ", nnz as i64)
            .with_array("row", Array::Int(row.into()))
            .with_array("col", Array::Int(col.into()))
            .with_array("K", Array::Int(vec![0].into()))
            .with_array("last", Array::Int(vec![0].into()))
            .with_array("kept", Array::Int(Vec::new().into()))
            .with_array("acc", Array::Int(Vec::new().into()));
        let mut want = Outputs::new();
        want.insert("K".into(), Array::Int(vec![kept.len() as i64].into()));
        want.insert(
            "last".into(),
            Array::Int(vec![acc.last().copied().unwrap_or(0)].into()),
        );
        want.insert("kept".into(), Array::Int(kept.into()));
        want.insert("acc".into(), Array::Int(acc.into()));
        cases.push((mem, want));
    }
    cases
}

#[test]
fn a_computed_size_bounds_loops_and_indexes_in_every_backend() {
    let p = program(PREFIX);
    check_cases(&p, &prefix_cases());
    // The bound reads the size space where it is evaluated.
    let c = emit_c(&p).unwrap();
    assert!(c.contains("p_end = *K;"), "{c}");
    assert!(c.contains("*last = (*acc)[*K - 1];"), "{c}");
    let rs = emit_rust(&p).unwrap();
    assert!(rs.contains("for p in 0..*k {"), "{rs}");
    assert!(rs.contains("*last = acc[(*k - 1) as usize];"), "{rs}");
}

#[test]
fn size_spaces_are_symbols_in_domains_and_indices_only() {
    let c = computation(PREFIX);
    assert_eq!(c.to_string().parse::<Computation>().unwrap(), c);
    assert!(
        c.stmts[2].domain.to_string().contains("K"),
        "{}",
        c.stmts[2].domain
    );
    let err = |text: &str| parse_computation(text).unwrap_err().to_string();
    let with =
        |decl: &str, stmt: &str| format!("computation c(N) {{ {decl} out int y[N]; S0: {stmt}; }}");
    // A real or non-scalar space, or an `in` scalar, is still an error.
    for decl in ["out real K;", "in int K;", "inout int K;"] {
        assert!(
            err(&with(decl, "y(i) = 1 domain {[i] : 0 <= i < K} schedule {[i] -> [0, i, 0]}"))
                .contains("`K` is a scalar data space; index expressions and sets may use only iterators, symbols, size spaces"),
            "{decl}"
        );
        assert!(
            err(&with(
                decl,
                "y(K) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]}"
            ))
            .contains("`K` is a scalar data space"),
            "{decl}"
        );
    }
    assert!(err(&with(
        "out int K[N];",
        "y(i) = 1 domain {[i] : 0 <= i < K} schedule {[i] -> [0, i, 0]}"
    ))
    .contains("`K` is a data space with 1 dimension, not a symbol"));
    let e = err(&with(
        "out int K;",
        "y(i) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i + K, 0]}",
    ));
    assert!(
        e.contains(
            "`K` is a size space; domains and index expressions may use it, schedules may not"
        ),
        "{e}"
    );
    assert!(parse_computation(&with(
        "temp int K;",
        "y(K) = 1 domain {[i] : 0 <= i < K} schedule {[i] -> [0, i, 0]}"
    ))
    .is_ok());
}

/// The line of C code `c` that allocates `out` array `name`.
fn allocation<'c>(c: &'c str, name: &str) -> &'c str {
    c.lines()
        .find(|l| l.trim_start().starts_with(&format!("*{name} = ")))
        .unwrap_or_else(|| panic!("no allocation of {name}\n{c}"))
}

/// Arrays a copy loop defines whole: `C` allocates them without the zero
/// fill for the elements the loop assigns first (`spf_alloc_prefix`), and
/// with `calloc` wherever that cannot be shown — a conditional or
/// accumulating write, a loop starting above 0, a read in the same loop.
const DEFINED: &str = "computation defined(N) {
    in   real val[N];
    out  int  K;
    out  real dense[K];
    out  int  summed[K];
    out  real guarded[K];
    out  real shorter[K];
    out  real late[K];
    out  real reread[K];
    out  real copy[K];

    S0: K += 1
        domain {[n] : 0 <= n < N} schedule {[n] -> [0, n, 0]};
    S1: { dense(p) = val(p); summed(p) += 1 }
        domain {[p] : 0 <= p < K} schedule {[p] -> [1, p, 0]};
    S2: if (val(p) > 0.5) guarded(p) = val(p)
        domain {[p] : 0 <= p < K} schedule {[p] -> [1, p, 1]};
    S3: shorter(p) = val(p)
        domain {[p] : 0 <= p < K - 1} schedule {[p] -> [2, p, 0]};
    S4: late(p) = val(p)
        domain {[p] : 1 <= p < K} schedule {[p] -> [3, p, 0]};
    S5: { reread(p) = val(p); copy(p) = reread(p) }
        domain {[p] : 0 <= p < K} schedule {[p] -> [4, p, 0]};
}";

#[test]
fn arrays_a_loop_defines_whole_skip_the_zero_fill() {
    let p = program(DEFINED);
    let c = emit_c(&p).unwrap();
    assert!(!c.contains("SPF_KEEP_LOOPS"), "{c}");
    for (name, prefix) in [
        ("dense", Some("*K")),
        ("shorter", Some("*K - 1")),
        ("copy", Some("*K")),
        ("summed", None),
        ("guarded", None),
        ("late", None),
        ("reread", None),
    ] {
        let line = allocation(&c, name);
        match prefix {
            Some(u) => assert!(
                line.contains(&format!("spf_alloc_out(*K, sizeof **{name}, {u})")),
                "{name}: {line}"
            ),
            None => assert!(
                line.contains(&format!("spf_alloc_out(*K, sizeof **{name}, 0)")),
                "{name}: {line}"
            ),
        }
    }
    // Every backend agrees, the unassigned elements zero (shorter's last,
    // late's first, guarded's small values).
    let mut r = Rng(0xa110c);
    let cases: Vec<(Memory, Outputs)> = [0usize, 1, 2, 9, 64]
        .into_iter()
        .map(|n| {
            let val = r.reals(n);
            let mem = Memory::new()
                .with_symbol("N", n as i64)
                .with_array("val", Array::Real(val.clone().into()))
                .with_array("K", Array::Int(vec![0].into()))
                // Only their element types matter: the computation sizes them.
                .with_array("summed", Array::Int(Vec::new().into()));
            let mem = ["dense", "guarded", "shorter", "late", "reread", "copy"]
                .into_iter()
                .fold(mem, |m, a| m.with_array(a, Array::Real(Vec::new().into())));
            let mut want = Outputs::new();
            let upto = |m: usize| -> Vec<f64> {
                (0..n).map(|i| if i < m { val[i] } else { 0.0 }).collect()
            };
            want.insert("K".into(), Array::Int(vec![n as i64].into()));
            want.insert("dense".into(), Array::Real(val.clone().into()));
            want.insert("summed".into(), Array::Int(vec![1; n].into()));
            let guarded = val.iter().map(|&v| if v > 0.5 { v } else { 0.0 });
            want.insert("guarded".into(), Array::Real(guarded.collect()));
            want.insert(
                "shorter".into(),
                Array::Real(upto(n.saturating_sub(1)).into()),
            );
            let late = (0..n).map(|i| if i >= 1 { val[i] } else { 0.0 });
            want.insert("late".into(), Array::Real(late.collect()));
            want.insert("reread".into(), Array::Real(val.clone().into()));
            want.insert("copy".into(), Array::Real(val.clone().into()));
            (mem, want)
        })
        .collect();
    check_cases(&p, &cases);
}

/// Arrays written at the positions a scatter hands out: C allocates them
/// without the zero fill and zeroes, after the loop, the positions `place`
/// did not hand out (`spf_scatter_zero_unplaced`) — all of them but half's
/// first entries here; a write under a condition keeps `calloc`.
const PLACED: &str = "computation placed(N, M) {
    in   int  key[N];
    in   real val[N];
    out  int  K;
    out  real full[K];
    out  real half[K];
    out  real cond[K];
    temp int  t;
    temp int  u;
    temp int  w;
    object B : Scatter(M);
    object C : Scatter(M);
    object D : Scatter(M);

    S0: { K += 1; B.insert(key(n)); C.insert(key(n)); D.insert(key(n)) }
        domain {[n] : 0 <= n < N} schedule {[n] -> [0, n, 0]};
    S1: { B.sort(); C.sort(); D.sort() }
        domain {[]} schedule {[] -> [1, 0, 0]};
    S2: { t = B.place(key(n)); full(t) = val(n) }
        domain {[n] : 0 <= n < N} schedule {[n] -> [2, n, 0]};
    S3: { u = C.place(key(n)); half(u) = val(n) }
        domain {[n] : 0 <= n && 2n < N} schedule {[n] -> [3, n, 0]};
    S4: { w = D.place(key(n)); if (val(n) > 0.5) cond(w) = val(n) }
        domain {[n] : 0 <= n < N} schedule {[n] -> [4, n, 0]};
}";

#[test]
fn arrays_written_at_placed_positions_zero_only_the_holes() {
    let p = program(PLACED);
    let c = emit_c(&p).unwrap();
    for (name, placed) in [("full", true), ("half", true), ("cond", false)] {
        let line = allocation(&c, name);
        assert_eq!(
            line.contains(&format!("spf_alloc_out(*K, sizeof **{name}, *K)")),
            placed,
            "{name}: {line}"
        );
        assert_eq!(line.contains(", 0);"), !placed, "{name}: {line}");
        assert_eq!(
            c.contains("spf_scatter_zero_unplaced(&")
                && c.contains(&format!(", *{name}, sizeof **{name}, *K);")),
            placed,
            "{name}\n{c}"
        );
    }
    let mut r = Rng(0x5ca7);
    let cases: Vec<(Memory, Outputs)> = [(0usize, 3u64), (1, 1), (2, 2), (9, 3), (64, 7)]
        .into_iter()
        .map(|(n, m)| {
            let key: Vec<i64> = (0..n).map(|_| r.below(m) as i64).collect();
            let val = r.reals(n);
            // A stable counting sort of the first `upto` entries by key.
            let positions = |upto: usize| -> Vec<usize> {
                (0..upto)
                    .map(|e| {
                        let below = key.iter().filter(|&&k| k < key[e]).count();
                        let before = key[..e].iter().filter(|&&k| k == key[e]).count();
                        below + before
                    })
                    .collect()
            };
            let scatter = |upto: usize, keep: &dyn Fn(f64) -> bool| -> Vec<f64> {
                let mut out = vec![0.0; n];
                for (e, q) in positions(upto).into_iter().enumerate() {
                    if keep(val[e]) {
                        out[q] = val[e];
                    }
                }
                out
            };
            let mem = Memory::new()
                .with_symbol("N", n as i64)
                .with_symbol("M", m as i64)
                .with_array("key", Array::Int(key.clone().into()))
                .with_array("val", Array::Real(val.clone().into()))
                .with_array("K", Array::Int(vec![0].into()));
            let mem = ["full", "half", "cond"]
                .into_iter()
                .fold(mem, |m, a| m.with_array(a, Array::Real(Vec::new().into())));
            let mut want = Outputs::new();
            want.insert("K".into(), Array::Int(vec![n as i64].into()));
            want.insert("full".into(), Array::Real(scatter(n, &|_| true).into()));
            want.insert(
                "half".into(),
                Array::Real(scatter(n.div_ceil(2), &|_| true).into()),
            );
            want.insert("cond".into(), Array::Real(scatter(n, &|v| v > 0.5).into()));
            (mem, want)
        })
        .collect();
    check_cases(&p, &cases);
}

/// Two-dimensional arrays a loop fills row by row, each row from its start
/// (ELL from compressed rows): C allocates them without the zero fill and
/// zeroes each row's padding right after its entries, in one loop for the
/// arrays of one row loop (`second`, filled by a second loop over each
/// row's entries, gets its own, after that loop); it keeps `calloc` where a
/// row's first element is not written (`skip`), a write is conditional
/// (`guarded`), or the row loop does not cover every row (`late`).
const ROWS: &str = "computation rows(NR, NNZ) {
    in   int  rowptr[NR + 1];
    in   int  col[NNZ];
    in   real val[NNZ];
    out  int  W;
    out  int  cols[NR, W];
    out  real vals[NR, W];
    out  real skip[NR, W];
    out  real guarded[NR, W];
    out  real late[NR, W];
    out  real second[NR, W];

    S0: W max= rowptr(g + 1) - rowptr(g)
        domain {[g] : 0 <= g < NR} schedule {[g] -> [0, g, 0]};
    S1: { cols(i, k - rowptr(i)) = col(k); vals(i, k - rowptr(i)) = val(k) }
        domain {[i, k] : 0 <= i < NR && rowptr(i) <= k < rowptr(i + 1)}
        schedule {[i, k] -> [1, i, 0, k, 0]};
    S2: skip(i, k - rowptr(i)) = val(k)
        domain {[i, k] : 0 <= i < NR && rowptr(i) < k < rowptr(i + 1)}
        schedule {[i, k] -> [1, i, 1, k, 0]};
    S3: if (val(k) > 0.5) guarded(i, k - rowptr(i)) = val(k)
        domain {[i, k] : 0 <= i < NR && rowptr(i) <= k < rowptr(i + 1)}
        schedule {[i, k] -> [1, i, 2, k, 0]};
    S5: second(i, k - rowptr(i)) = val(k)
        domain {[i, k] : 0 <= i < NR && rowptr(i) <= k < rowptr(i + 1)}
        schedule {[i, k] -> [1, i, 3, k, 0]};
    S4: late(i, k - rowptr(i)) = val(k)
        domain {[i, k] : 1 <= i < NR && rowptr(i) <= k < rowptr(i + 1)}
        schedule {[i, k] -> [2, i, 0, k, 0]};
}";

/// The arrays of [`ROWS`], and whether each is padded row by row: the
/// others write a row's first element late (`skip`), conditionally
/// (`guarded`), or from the second row on (`late`).
const ROWS_PADDED: [(&str, bool); 6] = [
    ("cols", true),
    ("vals", true),
    ("skip", false),
    ("guarded", false),
    ("late", false),
    ("second", true),
];

#[test]
fn arrays_filled_row_by_row_zero_only_each_rows_padding() {
    let p = program(ROWS);
    let c = emit_c(&p).unwrap();
    for (name, padded) in ROWS_PADDED {
        let line = allocation(&c, name);
        assert_eq!(
            line.contains(&format!("spf_alloc_out(NR * *W, sizeof **{name}, NR * *W)")),
            padded,
            "{name}: {line}"
        );
        assert_eq!(line.contains(", 0);"), !padded, "{name}: {line}");
    }
    // The rows' copies and padding stay loops: no library call per row.
    assert!(c.contains("\nSPF_KEEP_LOOPS void rows("), "{c}");
    // Two padding loops, each right after its loop over the row's entries:
    // cols' and vals' in one (zeroed on consecutive lines), second's after
    // its own loop (the first insertion does not move it in front).
    assert_eq!(c.matches("/* padding */").count(), 2, "{c}");
    assert_eq!(
        c.matches("= spf_max_i64(rowptr[i + 1] - rowptr[i], 0), pad")
            .count(),
        2,
        "{c}"
    );
    let code: Vec<&str> = c.lines().map(str::trim).collect();
    let line = |what: &dyn Fn(&str) -> bool| {
        code.iter()
            .position(|l| what(l))
            .unwrap_or_else(|| panic!("no such line\n{c}"))
    };
    let entry = |a: &str, v: &str| line(&|l| l == format!("(*{a})[i * *W + k - rowptr[i]] = {v};"));
    let zero = |a: &str, z: &str| {
        line(&|l| {
            l.starts_with(&format!("(*{a})[i * *W + pad")) && l.ends_with(&format!("] = {z};"))
        })
    };
    let (cols, vals, second) = (
        zero("cols", "0"),
        zero("vals", "0.0"),
        zero("second", "0.0"),
    );
    assert_eq!(vals, cols + 1, "{c}");
    assert!(entry("vals", "val[k]") < cols, "{c}");
    assert!(cols < entry("second", "val[k]"), "{c}");
    assert!(entry("second", "val[k]") < second, "{c}");

    // Rust: the same arrays are reserved, their entries pushed, and each
    // row padded right after its loop; the others are resized with zeros.
    let rust = emit_rust(&p).unwrap();
    let code: Vec<&str> = rust.lines().map(str::trim).collect();
    let line = |what: &str| {
        code.iter()
            .position(|l| *l == what)
            .unwrap_or_else(|| panic!("no line `{what}`\n{rust}"))
    };
    for (name, padded) in ROWS_PADDED {
        let len = "(nr * *w) as usize";
        let reserved =
            code.contains(&format!("{name}.reserve({len}); // filled row by row").as_str());
        assert_eq!(reserved, padded, "{name}\n{rust}");
        assert_eq!(
            code.iter()
                .any(|l| l.starts_with(&format!("{name}.resize({len}, "))),
            !padded,
            "{name}\n{rust}"
        );
        assert_eq!(
            rust.contains(&format!("{name}.push(")),
            padded,
            "{name}\n{rust}"
        );
    }
    let end = "((i + 1) * *w) as usize";
    let pad = |a: &str, z: &str| {
        let at = line(&format!("for _ in {a}.len()..{end} {{"));
        assert_eq!(code[at + 1], format!("{a}.push({z});"), "{rust}");
        at
    };
    let push = |a: &str| line(&format!("{a}.push(val[k as usize]);"));
    assert_eq!(
        line(&format!("assert!(cols.len() <= {end});")) + 1,
        pad("cols", "0_i64")
    );
    assert!(push("vals") < pad("cols", "0_i64"), "{rust}");
    assert!(pad("vals", "0.0_f64") < push("second"), "{rust}");
    assert!(push("second") < pad("second", "0.0_f64"), "{rust}");

    // Every backend agrees: empty rows, no rows, rows as long as W.
    let mut r = Rng(0x0e11);
    let cases: Vec<(Memory, Outputs)> =
        [(0usize, 0usize), (1, 0), (1, 3), (4, 0), (6, 17), (30, 90)]
            .into_iter()
            .map(|(nr, nnz)| {
                let mut lens = vec![0usize; nr];
                for _ in 0..nnz {
                    lens[r.below(nr as u64) as usize] += 1;
                }
                let rowptr: Vec<i64> = std::iter::once(0)
                    .chain(lens.iter().scan(0, |s, &l| {
                        *s += l as i64;
                        Some(*s)
                    }))
                    .collect();
                let col: Vec<i64> = (0..nnz).map(|_| r.below(50) as i64).collect();
                let val = r.reals(nnz);
                let w = lens.iter().copied().max().unwrap_or(0);
                // Row by row: `f(i, t, k)` for entry `k`, the `t`-th of row `i`.
                let table = |f: &dyn Fn(usize, usize, usize) -> Option<f64>| -> Vec<f64> {
                    let mut out = vec![0.0; nr * w];
                    for i in 0..nr {
                        for t in 0..lens[i] {
                            if let Some(v) = f(i, t, rowptr[i] as usize + t) {
                                out[i * w + t] = v;
                            }
                        }
                    }
                    out
                };
                let mem = Memory::new()
                    .with_symbol("NR", nr as i64)
                    .with_symbol("NNZ", nnz as i64)
                    .with_array("rowptr", Array::Int(rowptr.clone().into()))
                    .with_array("col", Array::Int(col.clone().into()))
                    .with_array("val", Array::Real(val.clone().into()))
                    .with_array("W", Array::Int(vec![0].into()))
                    // Only their element types matter: the computation sizes them.
                    .with_array("cols", Array::Int(Vec::new().into()));
                let mem = ["vals", "skip", "guarded", "late", "second"]
                    .into_iter()
                    .fold(mem, |m, a| m.with_array(a, Array::Real(Vec::new().into())));
                let mut want = Outputs::new();
                want.insert("W".into(), Array::Int(vec![w as i64].into()));
                let cols = table(&|_, _, k| Some(col[k] as f64));
                want.insert(
                    "cols".into(),
                    Array::Int(cols.into_iter().map(|c| c as i64).collect()),
                );
                want.insert(
                    "vals".into(),
                    Array::Real(table(&|_, _, k| Some(val[k])).into()),
                );
                let skip = table(&|_, t, k| (t > 0).then_some(val[k]));
                want.insert("skip".into(), Array::Real(skip.into()));
                let guarded = table(&|_, _, k| (val[k] > 0.5).then_some(val[k]));
                want.insert("guarded".into(), Array::Real(guarded.into()));
                let late = table(&|i, _, k| (i > 0).then_some(val[k]));
                want.insert("late".into(), Array::Real(late.into()));
                want.insert(
                    "second".into(),
                    Array::Real(table(&|_, _, k| Some(val[k])).into()),
                );
                (mem, want)
            })
            .collect();
    check_cases(&p, &cases);
}
