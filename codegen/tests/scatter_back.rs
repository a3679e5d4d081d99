//! Scatters that place from the end (docs/runtime.md, "Placing from the
//! end"): where a scatter sorted into a 32-bit pointer array places every
//! inserted entry in one loop and its starts are read only after it, C
//! counts into the pointer array itself and runs the placing loop
//! backward. The printed choice, the results against a stable counting
//! sort written here (in C at 32 bits, where the choice is made, and in
//! Rust and the interpreter), the programs the choice must leave alone,
//! and the runtime's checks of the mode.

mod harness;

use std::fmt::Write as _;
use std::process::Command;

use codegen::ast::LoopProgram;
use codegen::c::emit_c_with;
use codegen::interp::{Array, Memory};
use codegen::runtime::C_RUNTIME;
use codegen::width::{IndexWidth, Widths};
use iegen::computation::parse_computation;
use iegen::UfEnvironment;

use harness::{check_batch, tool, Outputs, Rng, CFLAGS};

fn program(text: &str) -> LoopProgram {
    let c = parse_computation(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    codegen::scan(&c, &UfEnvironment::new()).unwrap_or_else(|e| panic!("{e}"))
}

/// COO to compressed rows with the rows' entries in input order (as
/// synthesis writes COO → UCSR); `extra` is added to the placing
/// statement, `after` after the pointer array's loop.
fn rows_text(extra: &str, after: &str) -> String {
    format!(
        "computation coo_rows(N, M, NNZ) {{
    in   int  row[NNZ];
    in   int  col[NNZ];
    in   real val[NNZ];
    out  int  rowptr[N + 1];
    out  int  col_out[NNZ];
    out  real val_out[NNZ];
    out  int  last;
    temp int  k;
    object B : Scatter(N);

    S0: B.insert(row(n)) domain {{[n] : 0 <= n < NNZ}} schedule {{[n] -> [0, n, 0]}};
    S1: B.sort() domain {{[]}} schedule {{[] -> [1, 0, 0]}};
    S2: {{ k = B.place_inserted(row(n)); col_out(k) = col(n); val_out(k) = val(n){extra} }}
        domain {{[n] : 0 <= n < NNZ}} schedule {{[n] -> [2, n, 0]}};
    S3: rowptr(i + 1) = B.start(i + 1) domain {{[i] : 0 <= i < N}} schedule {{[i] -> [3, i, 0]}};
    {after}
}}"
    )
}

fn c_at(p: &LoopProgram, width: IndexWidth) -> String {
    emit_c_with(p, &Widths::uniform(width)).unwrap()
}

#[test]
fn a_placing_loop_into_a_32_bit_pointer_array_runs_backward() {
    let p = program(&rows_text("", ""));
    let c = c_at(&p, IndexWidth::W32);
    for line in [
        "spf_scatter B = spf_scatter_new_back_i32(N, rowptr);",
        "spf_scatter_sort_into_i32(&B, rowptr);",
        // from the end where the runtime says so, else forward (and
        // looking ahead out of cache)
        "if (spf_scatter_back(&B, sizeof *col_out + sizeof *val_out)) {",
        "for (int64_t n = NNZ - 1; n >= 0; n--) {",
        "k = spf_scatter_place_inserted_back(&B, (int64_t)row[n]);",
        "spf_scatter_forward(&B);",
        "k = spf_scatter_place_inserted(&B, (int64_t)row[n]);",
        "spf_ahead_key_i32(row, NNZ, n + SPF_LOOKAHEAD)",
        "spf_scatter_placed(&B);",
    ] {
        assert!(c.contains(line), "{line}\n{c}");
    }
    // the counting loop runs forward; no copy of the starts
    assert!(c.contains("for (int64_t n = 0; n < NNZ; n++) {"), "{c}");
    assert!(!c.contains("spf_scatter_start(&B"), "{c}");
    // 64-bit pointers: the scatter's own counters, forward
    let c = c_at(&p, IndexWidth::W64);
    assert!(!c.contains("_back(&B"), "{c}");
    assert!(c.contains("spf_scatter_new(N)"), "{c}");
}

#[test]
fn placing_loops_that_cannot_run_backward_run_forward() {
    for (extra, after, why) in [
        // a value reads an array the loop stores
        (
            "; val_out(k) = val(n) + col_out(0)",
            "",
            "reads a stored array",
        ),
        // a store not at the position
        ("; last = n", "", "stores elsewhere"),
        // the position read after the loop
        (
            "",
            "S4: last = k domain {[]} schedule {[] -> [4, 0, 0]};",
            "reads k after",
        ),
        // the starts read before the placing loop ends
        (
            "",
            "S4: last = B.start(1) domain {[]} schedule {[] -> [1, 0, 1]};",
            "reads a start before",
        ),
    ] {
        let p = program(&rows_text(extra, after));
        let c = c_at(&p, IndexWidth::W32);
        assert!(!c.contains("_back(&B"), "{why}:\n{c}");
        assert!(!c.contains("spf_scatter_new_back_i32(N"), "{why}:\n{c}");
        assert!(!c.contains("n >= 0; n--"), "{why}:\n{c}");
    }
}

/// Shapes: rows, columns, entries (empty, one row, one entry, all entries
/// in the first row or the last, empty rows between).
const SHAPES: &[(usize, usize, usize)] = &[
    (0, 0, 0),
    (3, 4, 0),
    (1, 1, 1),
    (1, 1, 9),
    (2, 3, 25),
    (5, 7, 40),
    (40, 33, 500),
    (300, 5, 60),
];

/// Random COO entries of each shape; `edge` puts every entry in row 0
/// (edge 1) or in the last row (edge 2).
fn cases(seed: u64, edge: u8) -> Vec<(Memory, Outputs)> {
    let mut r = Rng(seed);
    SHAPES
        .iter()
        .filter(|&&(n, _, nnz)| n > 0 || nnz == 0)
        .map(|&(n, m, nnz)| {
            let row: Vec<i64> = (0..nnz)
                .map(|_| match edge {
                    1 => 0,
                    2 => n as i64 - 1,
                    _ => (r.next() % n as u64) as i64,
                })
                .collect();
            let col: Vec<i64> = (0..nnz).map(|_| (r.next() % m as u64) as i64).collect();
            let val: Vec<f64> = (0..nnz).map(|e| e as f64 * 0.5 - 3.0).collect();
            // the reference: a stable sort by row
            let mut order: Vec<usize> = (0..nnz).collect();
            order.sort_by_key(|&e| row[e]);
            let below = |v: i64| row.iter().filter(|&&x| x < v).count() as i64;
            let mem = Memory::new()
                .with_symbol("N", n as i64)
                .with_symbol("M", m as i64)
                .with_symbol("NNZ", nnz as i64)
                .with_array("row", Array::Int(row.clone()))
                .with_array("col", Array::Int(col.clone()))
                .with_array("val", Array::Real(val.clone()))
                .with_array("rowptr", Array::Int(vec![0; n + 1]))
                .with_array("col_out", Array::Int(vec![0; nnz]))
                .with_array("val_out", Array::Real(vec![0.0; nnz]))
                .with_array("last", Array::Int(vec![0]));
            let mut outs = Outputs::new();
            outs.insert(
                "rowptr".into(),
                Array::Int((0..=n as i64).map(below).collect()),
            );
            outs.insert(
                "col_out".into(),
                Array::Int(order.iter().map(|&e| col[e]).collect()),
            );
            outs.insert(
                "val_out".into(),
                Array::Real(order.iter().map(|&e| val[e]).collect()),
            );
            outs.insert("last".into(), Array::Int(vec![0]));
            (mem, outs)
        })
        .collect()
}

#[test]
fn placing_from_the_end_gives_the_stable_order_in_every_backend() {
    let p = program(&rows_text("", ""));
    let all: Vec<(Memory, Outputs)> = (0..3)
        .flat_map(|edge| cases(71 + edge as u64, edge))
        .collect();
    // one batch per width: the two would define the same function
    for w in [IndexWidth::W32, IndexWidth::W64] {
        check_batch(&[(&p, all.as_slice(), Widths::uniform(w))]);
    }
}

/// The runtime's checks of a scatter placing from the end: each case's
/// calls, then the message it aborts with; and a run that places the same
/// entries from the end, forward after `forward()`, and with a scatter of
/// its own (the same positions, the pointer arrays the starts).
#[test]
fn a_scatter_placing_from_the_end_checks_its_use() {
    let cases: [(&str, &str); 10] = [
        (
            "P = spf_scatter_new_back_i32(3, a); spf_scatter_insert(&P, 1); spf_scatter_insert(&P, 2);
             spf_scatter_sort_into_i32(&P, a); spf_scatter_place_inserted_back(&P, 2);
             spf_scatter_place_inserted_back(&P, 1); spf_scatter_start(&P, 1);",
            "spf runtime: start() of a scatter placing from the end before placed() (1)",
        ),
        (
            "P = spf_scatter_new_back_i32(3, a); spf_scatter_insert(&P, 1);
             spf_scatter_sort_into_i32(&P, a); spf_scatter_count(&P, 1);",
            "spf runtime: count() of a scatter placing from the end before placed() (1)",
        ),
        (
            "P = spf_scatter_new_back_i32(3, a); spf_scatter_insert(&P, 1); spf_scatter_insert(&P, 1);
             spf_scatter_sort_into_i32(&P, a); spf_scatter_place_inserted_back(&P, 1);
             spf_scatter_placed(&P);",
            "spf runtime: a scatter placing from the end with entries unplaced (1)",
        ),
        (
            "P = spf_scatter_new_back_i32(3, a); spf_scatter_insert(&P, 1);
             spf_scatter_sort_into_i32(&P, a); spf_scatter_place_inserted_back(&P, 1);",
            "spf runtime: a scatter placing from the end freed before placed() (0)",
        ),
        (
            "P = spf_scatter_new_back_i32(3, a); spf_scatter_insert(&P, 2);
             spf_scatter_sort_into_i32(&P, a); spf_scatter_place_inserted(&P, 2);",
            "spf runtime: place_inserted() of a scatter placing from the end, before forward() (2)",
        ),
        (
            "P = spf_scatter_new_back_i32(3, a); spf_scatter_insert(&P, 2);
             spf_scatter_sort_into_i32(&P, a); spf_scatter_forward(&P);
             spf_scatter_place_inserted_back(&P, 2);",
            "spf runtime: place_inserted_back() before sort(), or of a scatter placing from the start (2)",
        ),
        (
            "P = spf_scatter_new_back_i32(3, a); spf_scatter_insert(&P, 2);
             spf_scatter_sort_into_i32(&P, b);",
            "spf runtime: a scatter placing from the end sorts into its own counters only (3)",
        ),
        (
            "P = spf_scatter_new_back_i32(3, a); spf_scatter_insert(&P, 2); spf_scatter_sort(&P);",
            "spf runtime: a scatter placing from the end sorts into its own counters only (3)",
        ),
        (
            "P = spf_scatter_new_back_i32(3, a); spf_scatter_insert(&P, 5); spf_scatter_insert(&P, 0);
             spf_scatter_sort_into_i32(&P, a);",
            "spf runtime: key outside the scatter's range 0..3 (1 insert)",
        ),
        (
            "P = spf_scatter_new_back_i32(3, a); spf_scatter_insert(&P, 1);
             spf_scatter_sort_into_i32(&P, a); spf_scatter_insert(&P, 1); spf_scatter_insert(&P, 0);
             spf_scatter_place_inserted_back(&P, 1);",
            "spf runtime: insert after sort() (2 inserts)",
        ),
    ];
    let mut src = format!(
        "{C_RUNTIME}\nint main(int argc, char **argv)\n{{\n    int32_t a[4], b[4], f[8], g[8];\n    int64_t v, i, keys[7] = {{3, 0, 3, 1, 3, 0, 2}}, pos[7];\n    spf_scatter P, F, Q;\n    (void)argv;\n"
    );
    for (i, (calls, _)) in cases.iter().enumerate() {
        let _ = writeln!(
            src,
            "    if (argc == {}) {{\n        {calls}\n        spf_scatter_free(&P);\n    }}",
            i + 2
        );
    }
    // The run: keys over 0..4 (key 4 never, key 0 first), from the end and
    // from the start, positions and pointers printed.
    src.push_str(
        "    if (argc == 1) {
        P = spf_scatter_new_back_i32(5, f);
        Q = spf_scatter_new_back_i32(5, g);
        F = spf_scatter_new(5);
        for (i = 0; i < 7; i++) {
            spf_scatter_insert(&P, keys[i]);
            spf_scatter_insert(&Q, keys[i]);
            spf_scatter_insert(&F, keys[i]);
        }
        spf_scatter_sort_into_i32(&P, f);
        spf_scatter_sort_into_i32(&Q, g);
        spf_scatter_sort(&F);
        /* 7 entries over 5 keys, in cache: from the end */
        printf(\"%d\\n\", spf_scatter_back(&P, 12));
        for (i = 6; i >= 0; i--)
            pos[i] = spf_scatter_place_inserted_back(&P, keys[i]);
        spf_scatter_placed(&P);
        spf_scatter_forward(&Q);
        for (i = 0; i < 7; i++)
            printf(\"%lld %lld %lld\\n\", (long long)pos[i], (long long)spf_scatter_place_inserted(&Q, keys[i]), (long long)spf_scatter_place_inserted(&F, keys[i]));
        spf_scatter_placed(&Q);
        for (v = 0; v <= 5; v++)
            printf(\"%lld %lld %lld %lld\\n\", (long long)f[v], (long long)g[v], (long long)spf_scatter_start(&P, v), (long long)spf_scatter_start(&F, v));
        spf_scatter_free(&P);
        spf_scatter_free(&Q);
        spf_scatter_free(&F);
    }
    (void)a;
    (void)b;
    return 0;
}
",
    );
    let dir = tempfile::tempdir().unwrap();
    let c_src = dir.path().join("back.c");
    std::fs::write(&c_src, src).unwrap();
    let exe = dir.path().join("back");
    tool(
        Command::new("cc")
            .args(CFLAGS)
            .arg("-o")
            .arg(&exe)
            .arg(&c_src),
        "cc",
    );
    let out = Command::new(&exe).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    // keys 3 0 3 1 3 0 2: key 0 at 0, 1; key 1 at 2; key 2 at 3; key 3 at
    // 4, 5, 6, in input order within a key, from either end
    let want = "1\n4 4 4\n0 0 0\n5 5 5\n2 2 2\n6 6 6\n1 1 1\n3 3 3\n\
                0 0 0 0\n2 2 2 2\n3 3 3 3\n4 4 4 4\n7 7 7 7\n7 7 7 7\n";
    assert_eq!(text, want);
    for (i, (_, message)) in cases.iter().enumerate() {
        // argc == i + 2: the program name and i + 1 arguments
        let out = Command::new(&exe).args(vec!["x"; i + 1]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "case {i} should abort");
        assert_eq!(stderr.trim_end(), *message, "case {i}");
    }
}
