//! Scatters that count in their pointer array (docs/runtime.md, "Counting
//! in the pointer array"): where a scatter sorted into a 32-bit pointer
//! array places every inserted entry in one loop and its starts are read
//! only after it, C counts into the pointer array itself. The printed
//! choice, the results against a stable counting sort written here (in C
//! at 32 bits, where the choice is made, and in Rust and the interpreter),
//! the programs the choice must leave alone, and the runtime's checks of
//! the mode.

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
/// synthesis writes COO → UCSR); `key` is the placing statement's key,
/// `extra` is added to that statement, `after` after the pointer array's
/// loop.
fn rows_text(key: &str, extra: &str, after: &str) -> String {
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
    S2: {{ k = B.place_inserted({key}); col_out(k) = col(n); val_out(k) = val(n){extra} }}
        domain {{[n] : 0 <= n < NNZ}} schedule {{[n] -> [2, n, 0]}};
    S3: rowptr(i + 1) = B.start(i + 1) domain {{[i] : 0 <= i < N}} schedule {{[i] -> [3, i, 0]}};
    {after}
}}"
    )
}

fn c_at(p: &LoopProgram, width: IndexWidth) -> String {
    emit_c_with(p, &Widths::uniform(width)).unwrap()
}

const IN_ARRAY: &str = "spf_scatter B = spf_scatter_new_in_i32(N, rowptr);";

#[test]
fn a_placing_loop_into_a_32_bit_pointer_array_counts_in_it() {
    let p = program(&rows_text("row(n)", "", ""));
    let c = c_at(&p, IndexWidth::W32);
    for line in [
        IN_ARRAY,
        "spf_scatter_sort_into_i32(&B, rowptr);",
        // forward, looking ahead out of cache
        "k = spf_scatter_place_inserted(&B, (int64_t)row[n]);",
        "spf_ahead_key_i32(row, NNZ, n + SPF_LOOKAHEAD)",
        "spf_scatter_placed(&B);",
    ] {
        assert!(c.contains(line), "{line}\n{c}");
    }
    // every loop runs forward; no copy of the starts
    assert!(c.contains("for (int64_t n = 0; n < NNZ; n++) {"), "{c}");
    assert!(!c.contains("n >= 0; n--"), "{c}");
    assert!(!c.contains("spf_scatter_start(&B"), "{c}");
    // 64-bit pointers: the scatter's own counters
    let c = c_at(&p, IndexWidth::W64);
    assert!(
        !c.contains(IN_ARRAY) && !c.contains("spf_scatter_placed(&B"),
        "{c}"
    );
    assert!(c.contains("spf_scatter_new(N)"), "{c}");
}

#[test]
fn what_the_placing_loop_does_besides_placing_does_not_matter() {
    for (extra, after, what) in [
        (
            "; val_out(k) = val(n) + col_out(0)",
            "",
            "reads a stored array",
        ),
        ("; last = n", "", "stores elsewhere"),
        (
            "",
            "S4: last = k domain {[]} schedule {[] -> [4, 0, 0]};",
            "reads k after",
        ),
    ] {
        let c = c_at(
            &program(&rows_text("row(n)", extra, after)),
            IndexWidth::W32,
        );
        assert!(c.contains(IN_ARRAY), "{what}:\n{c}");
        assert!(c.contains("spf_scatter_placed(&B);"), "{what}:\n{c}");
    }
}

#[test]
fn placing_loops_that_may_leave_entries_unplaced_keep_the_scatters_counters() {
    for (key, after, why) in [
        // another key than the inserted one
        ("col(n)", "", "places another key"),
        // the starts read before the placing loop ends
        (
            "row(n)",
            "S4: last = B.start(1) domain {[]} schedule {[] -> [1, 0, 1]};",
            "reads a start before",
        ),
    ] {
        let c = c_at(&program(&rows_text(key, "", after)), IndexWidth::W32);
        assert!(!c.contains("spf_scatter_new_in_i32(N"), "{why}:\n{c}");
        assert!(!c.contains("spf_scatter_placed(&B"), "{why}:\n{c}");
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
                .with_array("row", Array::Int(row.clone().into()))
                .with_array("col", Array::Int(col.clone().into()))
                .with_array("val", Array::Real(val.clone().into()))
                .with_array("rowptr", Array::Int(vec![0; n + 1].into()))
                .with_array("col_out", Array::Int(vec![0; nnz].into()))
                .with_array("val_out", Array::Real(vec![0.0; nnz].into()))
                .with_array("last", Array::Int(vec![0].into()));
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
            outs.insert("last".into(), Array::Int(vec![0].into()));
            (mem, outs)
        })
        .collect()
}

#[test]
fn counting_in_the_pointer_array_gives_the_stable_order_in_every_backend() {
    let p = program(&rows_text("row(n)", "", ""));
    let all: Vec<(Memory, Outputs)> = (0..3)
        .flat_map(|edge| cases(71 + edge as u64, edge))
        .collect();
    // one batch per width: the two would define the same function
    for w in [IndexWidth::W32, IndexWidth::W64] {
        check_batch(&[(&p, all.as_slice(), Widths::uniform(w))]);
    }
}

/// The runtime's checks of a scatter counting in its pointer array: each
/// case's calls, then the message it aborts with; and a run that places
/// the same entries with a scatter of its own (the same positions, the
/// pointer array the starts).
#[test]
fn a_scatter_counting_in_its_pointer_array_checks_its_use() {
    let cases: [(&str, &str); 9] = [
        (
            "P = spf_scatter_new_in_i32(3, a); spf_scatter_insert(&P, 1); spf_scatter_insert(&P, 2);
             spf_scatter_sort_into_i32(&P, a); spf_scatter_place_inserted(&P, 2);
             spf_scatter_place_inserted(&P, 1); spf_scatter_start(&P, 1);",
            "spf runtime: start() of a scatter counting in its pointer array before placed() (1)",
        ),
        (
            "P = spf_scatter_new_in_i32(3, a); spf_scatter_insert(&P, 1);
             spf_scatter_sort_into_i32(&P, a); spf_scatter_count(&P, 1);",
            "spf runtime: count() of a scatter counting in its pointer array before placed() (1)",
        ),
        (
            "P = spf_scatter_new_in_i32(3, a); spf_scatter_insert(&P, 1); spf_scatter_insert(&P, 1);
             spf_scatter_sort_into_i32(&P, a); spf_scatter_place_inserted(&P, 1);
             spf_scatter_placed(&P);",
            "spf runtime: a scatter counting in its pointer array with entries unplaced (1)",
        ),
        (
            "P = spf_scatter_new_in_i32(3, a); spf_scatter_insert(&P, 1);
             spf_scatter_sort_into_i32(&P, a); spf_scatter_place_inserted(&P, 1);",
            "spf runtime: a scatter counting in its pointer array freed before placed() (0)",
        ),
        (
            "P = spf_scatter_new_in_i32(3, a); spf_scatter_insert(&P, 2);
             spf_scatter_place_inserted(&P, 2);",
            "spf runtime: place_inserted() before sort() (2)",
        ),
        (
            "P = spf_scatter_new_in_i32(3, a); spf_scatter_insert(&P, 2);
             spf_scatter_sort_into_i32(&P, b);",
            "spf runtime: a scatter counting in its pointer array sorts into that array only (3)",
        ),
        (
            "P = spf_scatter_new_in_i32(3, a); spf_scatter_insert(&P, 2); spf_scatter_sort(&P);",
            "spf runtime: a scatter counting in its pointer array sorts into that array only (3)",
        ),
        (
            "P = spf_scatter_new_in_i32(3, a); spf_scatter_insert(&P, 5); spf_scatter_insert(&P, 0);
             spf_scatter_sort_into_i32(&P, a);",
            "spf runtime: key outside the scatter's range 0..3 (1 insert)",
        ),
        (
            "P = spf_scatter_new_in_i32(3, a); spf_scatter_insert(&P, 1);
             spf_scatter_sort_into_i32(&P, a); spf_scatter_insert(&P, 1); spf_scatter_insert(&P, 0);
             spf_scatter_place_inserted(&P, 1);",
            "spf runtime: insert after sort() (2 inserts)",
        ),
    ];
    let mut src = format!(
        "{C_RUNTIME}\nint main(int argc, char **argv)\n{{\n    int32_t a[4], b[4], f[8];\n    int64_t v, i, keys[7] = {{3, 0, 3, 1, 3, 0, 2}};\n    spf_scatter P, F;\n    (void)argv;\n"
    );
    for (i, (calls, _)) in cases.iter().enumerate() {
        let _ = writeln!(
            src,
            "    if (argc == {}) {{\n        {calls}\n        spf_scatter_free(&P);\n    }}",
            i + 2
        );
    }
    // The run: keys over 0..4 (key 4 never, key 0 first), counted in the
    // array and in the scatter's own counters, positions and pointers
    // printed.
    src.push_str(
        "    if (argc == 1) {
        P = spf_scatter_new_in_i32(5, f);
        F = spf_scatter_new(5);
        for (i = 0; i < 7; i++) {
            spf_scatter_insert(&P, keys[i]);
            spf_scatter_insert(&F, keys[i]);
        }
        spf_scatter_sort_into_i32(&P, f);
        spf_scatter_sort(&F);
        for (i = 0; i < 7; i++)
            printf(\"%lld %lld\\n\", (long long)spf_scatter_place_inserted(&P, keys[i]), (long long)spf_scatter_place_inserted(&F, keys[i]));
        spf_scatter_placed(&P);
        for (v = 0; v <= 5; v++)
            printf(\"%lld %lld %lld\\n\", (long long)f[v], (long long)spf_scatter_start(&P, v), (long long)spf_scatter_start(&F, v));
        spf_scatter_free(&P);
        spf_scatter_free(&F);
    }
    (void)a;
    (void)b;
    return 0;
}
",
    );
    let dir = tempfile::tempdir().unwrap();
    let c_src = dir.path().join("in_pointers.c");
    std::fs::write(&c_src, src).unwrap();
    let exe = dir.path().join("in_pointers");
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
    // 4, 5, 6, in input order within a key
    let want = "4 4\n0 0\n5 5\n2 2\n6 6\n1 1\n3 3\n\
                0 0 0\n2 2 2\n3 3 3\n4 4 4\n7 7 7\n7 7 7\n";
    assert_eq!(text, want);
    for (i, (_, message)) in cases.iter().enumerate() {
        // argc == i + 2: the program name and i + 1 arguments
        let out = Command::new(&exe).args(vec!["x"; i + 1]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "case {i} should abort");
        assert_eq!(stderr.trim_end(), *message, "case {i}");
    }
}
