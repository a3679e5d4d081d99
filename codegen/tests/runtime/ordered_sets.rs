//! `OrderedSet`: DIA offsets collected with and without bounds, lookups of
//! keys in bounds, and sets sorted from a counting permutation's counts.

use std::collections::BTreeSet;

use codegen::c::emit_c;
use codegen::interp::Memory;

use crate::harness::{check_cases, Outputs, Rng};
use crate::{computation, coo, coo_memory, ints, out_ints, program, scanned, SHAPES};

pub(crate) const DIA: &str = "computation dia(N, M, NNZ) {
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
