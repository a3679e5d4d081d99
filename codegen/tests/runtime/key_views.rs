//! Key views: C reads a synthesized sort's key components in the input
//! arrays where they are inputs read at the entry numbers (COO -> CSR,
//! COO3D -> MCOO3), and the conversions agree in every backend.

use codegen::c::emit_c;
use codegen::interp::{Array, Memory};

use crate::harness::{check_cases, Outputs, Rng};
use crate::pointers_and_ranks::coo_csr;
use crate::sorts::COUNTING;
use crate::{coo, ints, morton, out_ints, program, stable_order, Coo, SHAPES};

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
                .with_array("A", Array::Real(c.val.clone().into()))
                .with_array("NNZ_out", ints(vec![0]))
                .with_array("rowptr", ints(vec![0; c.n + 1]))
                .with_array("col_out", ints(Vec::new()))
                .with_array("A_out", Array::Real(Vec::new().into()));
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
                .with_array("A", Array::Real(c.val.clone().into()))
                .with_array("NNZ_out", ints(vec![0]))
                .with_array("row_out", ints(Vec::new()))
                .with_array("col_out", ints(Vec::new()))
                .with_array("z_out", ints(Vec::new()))
                .with_array("A_out", Array::Real(Vec::new().into()));
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
