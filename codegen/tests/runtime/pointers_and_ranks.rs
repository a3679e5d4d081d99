//! What a sorted permutation answers: `start` and `count` fill a CSR pointer
//! array, `prefix_rank` numbers the nested levels.

use codegen::ast::LoopProgram;
use codegen::interp::{Array, Memory};

use crate::harness::{check_cases, Outputs, Rng};
use crate::sorts::{lex_key, COUNTING};
use crate::{
    call_error, coo, coo_memory, ints, out_ints, program, stable_order, with_object, SHAPES,
};

pub(crate) fn coo_csr(order: &str) -> LoopProgram {
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
                .with_array("a", Array::Real(vec![0.0; nnz].into()))
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
