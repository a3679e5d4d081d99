//! The example computations of `examples/` end to end: each file is parsed,
//! scanned into a loop AST, printed as C and Rust, compiled (`cc -O3 -Wall
//! -Wextra -pedantic -Werror`, `rustc -D warnings`) and run on inputs made
//! from a fixed seed at several sizes (empty and one-element ones included);
//! the interpreter runs the same loop AST; all three must agree with a
//! reference written by hand here. The loop ASTs are checked to have the
//! shape of the dissertation's loop nests.

mod harness;

use codegen::ast::{IndexExpr, LoopProgram, Node};
use codegen::interp::{Array, Memory};
use iegen::computation::{parse_computation, Computation};
use iegen::UfEnvironment;

use harness::{check_cases, Outputs, Rng};

/// Parses `examples/NAME.comp`.
fn example(name: &str) -> Computation {
    let path = format!("{}/../examples/{name}.comp", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    parse_computation(&text).unwrap_or_else(|e| panic!("{path}:{e}"))
}

fn scanned(name: &str) -> LoopProgram {
    let c = example(name);
    assert_eq!(c.name, name);
    codegen::scan(&c, &UfEnvironment::new()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn var(v: &str) -> IndexExpr {
    IndexExpr::Var(v.into())
}

fn call(f: &str, args: Vec<IndexExpr>) -> IndexExpr {
    IndexExpr::Call(f.into(), args)
}

fn outputs(name: &str, values: Vec<f64>) -> Outputs {
    Outputs::from([(name.to_string(), Array::Real(values.into()))])
}

// ---------------------------------------------------------------------------
// Dense matrix-vector multiply

fn dense_mv_memory(n: usize, m: usize, r: &mut Rng) -> Memory {
    Memory::new()
        .with_symbol("N", n as i64)
        .with_symbol("M", m as i64)
        .with_array("A", Array::Real(r.reals(n * m).into()))
        .with_array("x", Array::Real(r.reals(m).into()))
        // `out`: every backend starts it at zero, whatever it holds.
        .with_array("y", Array::Real(r.reals(n).into()))
}

fn dense_mv_reference(mem: &Memory) -> Vec<f64> {
    let (n, m) = (mem.symbols["N"] as usize, mem.symbols["M"] as usize);
    let (a, x) = (mem.real("A").unwrap(), mem.real("x").unwrap());
    let mut y = vec![0.0; n];
    for i in 0..n {
        for j in 0..m {
            y[i] += a[i * m + j] * x[j];
        }
    }
    y
}

#[test]
fn dense_mv_runs_like_the_reference() {
    let p = scanned("dense_mv");
    // for i in 0..N { for j in 0..M { S0(i, j) } }
    let [Node::For {
        var: i,
        lower,
        upper,
        body,
    }] = p.body.as_slice()
    else {
        panic!("one i loop: {:#?}", p.body)
    };
    assert_eq!(
        (i.as_str(), lower, upper),
        ("i", &IndexExpr::Const(0), &IndexExpr::Sym("N".into()))
    );
    let [Node::For {
        var: j,
        lower,
        upper,
        body,
    }] = body.as_slice()
    else {
        panic!("one j loop inside: {body:#?}")
    };
    assert_eq!(
        (j.as_str(), lower, upper),
        ("j", &IndexExpr::Const(0), &IndexExpr::Sym("M".into()))
    );
    assert_eq!(
        body.as_slice(),
        [Node::Stmt {
            stmt: 0,
            iterators: vec![var("i"), var("j")]
        }]
    );

    let mut r = Rng(0xD15E);
    let cases: Vec<(Memory, Outputs)> = [
        (0, 0),
        (0, 3),
        (3, 0),
        (1, 1),
        (1, 6),
        (5, 1),
        (9, 13),
        (24, 17),
    ]
    .into_iter()
    .map(|(n, m)| {
        let mem = dense_mv_memory(n, m, &mut r);
        let want = outputs("y", dense_mv_reference(&mem));
        (mem, want)
    })
    .collect();
    check_cases(&p, &cases);
}

// ---------------------------------------------------------------------------
// Sparse matrix-vector multiply over CSR

/// A random `n × nc` CSR matrix: rows of 0 to 6 sorted distinct columns,
/// every third row forced empty, and the last one too.
fn spmv_memory(n: usize, nc: usize, r: &mut Rng) -> Memory {
    let mut rowptr = vec![0i64];
    let mut col = Vec::new();
    for row in 0..n {
        let len = if nc == 0 || row % 3 == 1 || row + 1 == n {
            0
        } else {
            r.below(7) as usize
        };
        let mut cols: Vec<i64> = (0..len).map(|_| r.below(nc as u64) as i64).collect();
        cols.sort_unstable();
        cols.dedup();
        col.extend(cols);
        rowptr.push(col.len() as i64);
    }
    let nnz = col.len();
    Memory::new()
        .with_symbol("N", n as i64)
        .with_symbol("NC", nc as i64)
        .with_symbol("NNZ", nnz as i64)
        .with_array("rowptr", Array::Int(rowptr.into()))
        .with_array("col", Array::Int(col.into()))
        .with_array("A", Array::Real(r.reals(nnz).into()))
        .with_array("x", Array::Real(r.reals(nc).into()))
        .with_array("y", Array::Real(r.reals(n).into()))
}

fn spmv_reference(mem: &Memory) -> Vec<f64> {
    let n = mem.symbols["N"] as usize;
    let (rowptr, col) = (mem.int("rowptr").unwrap(), mem.int("col").unwrap());
    let (a, x) = (mem.real("A").unwrap(), mem.real("x").unwrap());
    let mut y = vec![0.0; n];
    for i in 0..n {
        for k in rowptr[i] as usize..rowptr[i + 1] as usize {
            y[i] += a[k] * x[col[k] as usize];
        }
    }
    y
}

#[test]
fn spmv_csr_runs_like_the_reference() {
    let p = scanned("spmv_csr");
    // for i in 0..N { for k in rowptr(i)..rowptr(i + 1) { let j = col(k); S0(i, k, j) } }
    let [Node::For { var: i, body, .. }] = p.body.as_slice() else {
        panic!("one i loop: {:#?}", p.body)
    };
    assert_eq!(i, "i");
    let [Node::For {
        var: k,
        lower,
        upper,
        body,
    }] = body.as_slice()
    else {
        panic!("one k loop inside: {body:#?}")
    };
    assert_eq!(k, "k");
    assert_eq!(lower, &call("rowptr", vec![var("i")]));
    assert_eq!(
        upper,
        &call("rowptr", vec![IndexExpr::Sum(vec![(1, var("i"))], 1)])
    );
    let [Node::Let {
        var: j,
        value,
        body,
    }] = body.as_slice()
    else {
        panic!("a let inside the k loop: {body:#?}")
    };
    assert_eq!((j.as_str(), value), ("j", &call("col", vec![var("k")])));
    assert_eq!(
        body.as_slice(),
        [Node::Stmt {
            stmt: 0,
            iterators: vec![var("i"), var("k"), var("j")]
        }]
    );

    let mut r = Rng(0x5A5E);
    let cases: Vec<(Memory, Outputs)> = [
        (0, 0),
        (0, 4),
        (1, 1),
        (1, 5),
        (2, 3),
        (4, 0),
        (9, 7),
        (40, 33),
    ]
    .into_iter()
    .map(|(n, nc)| {
        let mem = spmv_memory(n, nc, &mut r);
        let want = outputs("y", spmv_reference(&mem));
        (mem, want)
    })
    .collect();
    // The inputs have empty rows between non-empty ones.
    let big = &cases.last().unwrap().0;
    let rowptr = big.int("rowptr").unwrap();
    assert!(rowptr.windows(2).any(|w| w[0] == w[1]));
    assert!(rowptr.windows(2).filter(|w| w[0] < w[1]).count() > 10);
    check_cases(&p, &cases);
}

// ---------------------------------------------------------------------------
// Forward solve

/// A lower-triangular system whose diagonal dominates its rows (|A(i,i)| >=
/// 1 + Σ|A(i,j)|, with either sign), so the solve is well conditioned. The
/// strictly upper part is random too: the solve must not read it.
fn forward_memory(n: usize, r: &mut Rng) -> Memory {
    let mut a = r.reals(n * n);
    for i in 0..n {
        let off: f64 = (0..i).map(|j| a[i * n + j].abs()).sum();
        let sign = if r.below(2) == 0 { 1.0 } else { -1.0 };
        a[i * n + i] = sign * (1.0 + off + r.real().abs());
    }
    Memory::new()
        .with_symbol("N", n as i64)
        .with_array("A", Array::Real(a.into()))
        .with_array("f", Array::Real(r.reals(n).into()))
        .with_array("u", Array::Real(r.reals(n).into()))
}

fn forward_reference(mem: &Memory) -> Vec<f64> {
    let n = mem.symbols["N"] as usize;
    let (a, f) = (mem.real("A").unwrap(), mem.real("f").unwrap());
    let mut u = vec![0.0; n];
    for i in 0..n {
        let mut t = f[i];
        for j in 0..i {
            t -= a[i * n + j] * u[j];
        }
        u[i] = t / a[i * n + i];
    }
    u
}

#[test]
fn forward_solve_runs_like_the_reference() {
    let p = scanned("forward_solve");
    // for i in 0..N { S0(i); for j in 0..i { S1(i, j) }; S2(i) }
    let [Node::For {
        var: i,
        lower,
        upper,
        body,
    }] = p.body.as_slice()
    else {
        panic!("one i loop: {:#?}", p.body)
    };
    assert_eq!(
        (i.as_str(), lower, upper),
        ("i", &IndexExpr::Const(0), &IndexExpr::Sym("N".into()))
    );
    let names: Vec<&str> = p
        .computation
        .stmts
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(names, ["S0", "S1", "S2"]);
    assert_eq!(
        body.as_slice(),
        [
            Node::Stmt {
                stmt: 0,
                iterators: vec![var("i")]
            },
            Node::For {
                var: "j".into(),
                lower: IndexExpr::Const(0),
                upper: var("i"),
                body: vec![Node::Stmt {
                    stmt: 1,
                    iterators: vec![var("i"), var("j")]
                }],
            },
            Node::Stmt {
                stmt: 2,
                iterators: vec![var("i")]
            },
        ]
    );

    let mut r = Rng(0xF0F0);
    let cases: Vec<(Memory, Outputs)> = [0, 1, 2, 3, 7, 25]
        .into_iter()
        .map(|n| {
            let mem = forward_memory(n, &mut r);
            let want = outputs("u", forward_reference(&mem));
            (mem, want)
        })
        .collect();
    let results = check_cases(&p, &cases);
    // The solutions solve their systems.
    for ((mem, _), out) in cases.iter().zip(&results) {
        let n = mem.symbols["N"] as usize;
        let (a, f, u) = (
            mem.real("A").unwrap(),
            mem.real("f").unwrap(),
            out.real("u").unwrap(),
        );
        for i in 0..n {
            let lhs: f64 = (0..=i).map(|j| a[i * n + j] * u[j]).sum();
            assert!(
                (lhs - f[i]).abs() < 1e-9,
                "N = {n}, row {i}: {lhs} != {}",
                f[i]
            );
        }
    }
}

#[test]
fn examples_print_and_parse_back() {
    // The scanned program keeps the parsed computation, and it survives
    // the canonical printer.
    for name in ["dense_mv", "spmv_csr", "forward_solve"] {
        let c = example(name);
        assert_eq!(scanned(name).computation, c);
        let again = parse_computation(&c.to_string()).unwrap();
        assert_eq!(again, c, "{name}");
    }
}
