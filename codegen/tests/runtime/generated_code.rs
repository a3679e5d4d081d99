//! The text around the objects: the C and Rust printed for their calls,
//! generated functions sharing one file, and object declarations with nested
//! and affine arguments in `.comp` files.

use std::process::Command;

use codegen::c::emit_c;
use codegen::rust::emit_rust;

use crate::harness::{tool, CFLAGS};
use crate::ordered_sets::DIA;
use crate::scatter::COO_CSC;
use crate::sorts::{coo_sort, COUNTING};
use crate::{computation, program, scanned};

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
        .with_array("row", codegen::interp::Array::Int(vec![2, 0, 1].into()))
        .with_array("col", codegen::interp::Array::Int(vec![0, 2, 1].into()))
        .with_array("rank", codegen::interp::Array::Int(vec![0; 3].into()))
        .with_array("pos", codegen::interp::Array::Int(vec![0; 3].into()));
    codegen::interp::run(&program, &mut memory, None).expect("runs");
    // Sorted by (row, col): (0,2) (1,1) (2,0) -> entries 1, 2, 0.
    assert_eq!(memory.int("rank"), Some(&[2, 0, 1][..]));
    // Offsets col - row: -2, 2, 0 -> sorted -2, 0, 2.
    assert_eq!(memory.int("pos"), Some(&[0, 2, 1][..]));
}
