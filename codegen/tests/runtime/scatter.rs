//! `Scatter`, the streaming counting-sort scatter (Gustavson's algorithm):
//! transposing COO by column, slots across `sort()`, the pointer array it
//! sorts into, affine extents, pairs' linear keys, `place_inserted`, and its
//! calls as printed.

use codegen::ast::LoopProgram;
use codegen::c::emit_c;
use codegen::interp::{run, Array, Memory};
use codegen::rust::emit_rust;

use crate::harness::{check_cases, Outputs, Rng};
use crate::{coo, coo_memory, ints, out_ints, program, run_error, stable_order, with_object};

/// COO to CSC-like arrays with `Scatter(M)`: counts the entries of each
/// column, fills `colptr` with `start`, then places every entry at the next
/// free position of its column (`k = B.place(col(n))`), so that the entries
/// of a column keep their input order.
pub(crate) const COO_CSC: &str = "computation coo_csc(N, M, NNZ) {
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
                .with_array("val_out", Array::Real(vec![0.0; nnz].into()))
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

pub(crate) fn transposition(shift: i64, read: bool) -> LoopProgram {
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
                    .with_array("val_out", Array::Real(vec![0.0; nnz].into()))
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
            colptr.to_mut().push(nnz as i64);
            let m = colptr.len() - 1;
            // Key M + 1 has no entry.
            let Array::Int(counts) = outs.get_mut("counts").unwrap() else {
                unreachable!()
            };
            counts.to_mut().push(0);
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
