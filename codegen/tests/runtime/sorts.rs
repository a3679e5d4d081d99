//! Sorting COO entries with `Permutation`: counting, lex and Morton orders,
//! stable in every backend, and payloads the sort carries along but does not
//! compare.

use codegen::ast::LoopProgram;
use codegen::c::emit_c;
use codegen::interp::{run, Array, Memory};
use codegen::runtime::CallError;
use codegen::rust::emit_rust;

use crate::harness::{check_cases, Outputs, Rng};
use crate::{
    call_error, coo, coo_memory, ints, morton, out_ints, program, stable_order, with_object, Coo,
    SHAPES,
};

/// Sorts COO entries by `(row, col)` with `Permutation(2, ORDER)` and writes
/// the sorted rows, columns and values, the permutation both ways, and what
/// `map` and `size` give while inserting (before `sort`).
pub(crate) fn coo_sort(order: &str) -> LoopProgram {
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
                .with_array("sval", Array::Real(vec![0.0; nnz].into()))
                .with_array("ent", ints(vec![0; nnz]))
                .with_array("where", ints(vec![0; nnz]))
                .with_array("pre", ints(vec![0; nnz]))
                .with_array("size", ints(vec![7]));
            (mem, coo_sort_reference(&c, &order))
        })
        .collect()
}

pub(crate) fn lex_key(c: &Coo, e: usize) -> u128 {
    ((c.row[e] as u128) << 64) | c.col[e] as u128
}

/// `Permutation(2, counting(N, M))` is written `Permutation(2, counting, N,
/// M)` in `.comp` files: the grammar takes only names and literals as
/// object arguments.
pub(crate) const COUNTING: &str = "counting, N, M";

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
                .with_array("sval", Array::Real(vec![0.0; nnz].into()));
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
        .with_array("val", Array::Real(vec![0.5, 1.5, 2.5, 3.5].into()))
        .with_array("srow", ints(vec![0; 4]))
        .with_array("scol", ints(vec![0; 4]))
        .with_array("src", ints(vec![0; 4]))
        .with_array("sval", Array::Real(vec![0.0; 4].into()));
    let mut want = Outputs::new();
    out_ints(&mut want, "srow", vec![0, 0, 1, 1]);
    out_ints(&mut want, "scol", vec![2, 1, 2, 0]);
    out_ints(&mut want, "src", vec![1, 3, 0, 2]);
    want.insert("sval".into(), Array::Real(vec![1.5, 3.5, 0.5, 2.5].into()));
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
