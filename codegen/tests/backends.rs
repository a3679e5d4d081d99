//! The three backends against each other and against hand-written Rust.
//!
//! Each program is built by hand with the IR types (the loop nest a scanner
//! would produce). For each: the interpreter runs it on inputs made from a
//! fixed seed; the emitted C is compiled with a generated driver (`cc -O3
//! -Wall -Wextra -Werror -pedantic -std=c99`) and run on the same inputs;
//! the emitted Rust is compiled with a generated `main` (`rustc -D
//! warnings`) and run; all three must agree with a reference implementation
//! written by hand here. A missing `cc` or `rustc` fails the tests (both
//! exist on CI).

mod harness;

use std::collections::HashMap;
use std::process::Command;

use codegen::ast::{Guard, GuardOp, IndexExpr, LoopProgram, Node};
use codegen::c::{c_parameters, emit_c};
use codegen::emit::EmitError;
use codegen::interp::{run, Array, Memory, RunError, Site, Trace};
use codegen::runtime::CallError;
use codegen::rust::{emit_rust, rust_parameters};
use iegen::computation::{
    Access, BinOp, Body, Computation, Condition, DataSpace, ElemType, Role, Stmt, UpdateOp,
    ValueExpr,
};
use iegen::{Expr, Relation, Set, UfEnvironment, Var};

use harness::{check_all, tool, Rng, CFLAGS};

// ---------------------------------------------------------------------------
// Building programs

fn it(p: usize) -> Expr {
    Expr::var(Var::Tuple(p))
}

fn sym(s: &str) -> Expr {
    Expr::sym(s)
}

fn k(c: i64) -> Expr {
    Expr::constant(c)
}

fn read(space: &str, index: Vec<Expr>) -> ValueExpr {
    ValueExpr::Read(Access {
        space: space.into(),
        index,
    })
}

fn bin(op: BinOp, a: ValueExpr, b: ValueExpr) -> ValueExpr {
    ValueExpr::Binary(op, Box::new(a), Box::new(b))
}

fn update(space: &str, index: Vec<Expr>, op: UpdateOp, value: ValueExpr) -> Body {
    Body::Update {
        target: Access {
            space: space.into(),
            index,
        },
        op,
        value,
    }
}

fn stmt(name: &str, body: Body, domain: &str, schedule: &str) -> Stmt {
    Stmt {
        name: name.into(),
        body,
        domain: domain.parse::<Set>().expect("domain"),
        schedule: schedule.parse::<Relation>().expect("schedule"),
    }
}

fn space(name: &str, elem: ElemType, extents: Vec<Expr>, role: Role) -> DataSpace {
    DataSpace {
        name: name.into(),
        elem,
        extents,
        role,
    }
}

fn var(v: &str) -> IndexExpr {
    IndexExpr::Var(v.into())
}

fn isym(s: &str) -> IndexExpr {
    IndexExpr::Sym(s.into())
}

fn call(f: &str, args: Vec<IndexExpr>) -> IndexExpr {
    IndexExpr::Call(f.into(), args)
}

fn plus(e: IndexExpr, c: i64) -> IndexExpr {
    IndexExpr::Sum(vec![(1, e)], c)
}

fn for_(v: &str, lower: IndexExpr, upper: IndexExpr, body: Vec<Node>) -> Node {
    Node::For {
        var: v.into(),
        lower,
        upper,
        body,
    }
}

fn at(stmt: usize, iterators: Vec<IndexExpr>) -> Node {
    Node::Stmt { stmt, iterators }
}

use ElemType::{Int, Real};

/// `y = A x` for a dense `N × M` matrix: an imperfect nest.
fn dense_mv() -> LoopProgram {
    let computation = Computation {
        name: "dense_mv".into(),
        symbols: vec!["N".into(), "M".into()],
        spaces: vec![
            space("A", Real, vec![sym("N"), sym("M")], Role::In),
            space("x", Real, vec![sym("M")], Role::In),
            space("y", Real, vec![sym("N")], Role::Out),
        ],
        objects: vec![],
        stmts: vec![
            stmt(
                "S0",
                update("y", vec![it(0)], UpdateOp::Assign, ValueExpr::Real(0.0)),
                "{[i] : 0 <= i < N}",
                "{[i] -> [0, i, 0, 0]}",
            ),
            stmt(
                "S1",
                update(
                    "y",
                    vec![it(0)],
                    UpdateOp::Add,
                    bin(
                        BinOp::Mul,
                        read("A", vec![it(0), it(1)]),
                        read("x", vec![it(1)]),
                    ),
                ),
                "{[i, j] : 0 <= i < N && 0 <= j < M}",
                "{[i, j] -> [0, i, 1, j]}",
            ),
        ],
    };
    let body = vec![for_(
        "i",
        IndexExpr::Const(0),
        isym("N"),
        vec![
            at(0, vec![var("i")]),
            for_(
                "j",
                IndexExpr::Const(0),
                isym("M"),
                vec![at(1, vec![var("i"), var("j")])],
            ),
        ],
    )];
    LoopProgram { computation, body }
}

/// CSR sparse matrix–vector multiply, Figure 3.3 of the dissertation.
fn csr_spmv() -> LoopProgram {
    let computation = Computation {
        name: "spmv".into(),
        symbols: vec!["N".into(), "M".into(), "NNZ".into()],
        spaces: vec![
            space("rowptr", Int, vec![sym("N").plus(&k(1))], Role::In),
            space("col", Int, vec![sym("NNZ")], Role::In),
            space("A", Real, vec![sym("NNZ")], Role::In),
            space("x", Real, vec![sym("M")], Role::In),
            space("y", Real, vec![sym("N")], Role::InOut),
        ],
        objects: vec![],
        stmts: vec![stmt(
            "S0",
            update(
                "y",
                vec![it(0)],
                UpdateOp::Add,
                bin(BinOp::Mul, read("A", vec![it(1)]), read("x", vec![it(2)])),
            ),
            "{[i, k, j] : 0 <= i < N && rowptr(i) <= k < rowptr(i + 1) && j = col(k)}",
            "{[i, k, j] -> [0, i, 0, k, 0]}",
        )],
    };
    let body = vec![for_(
        "i",
        IndexExpr::Const(0),
        isym("N"),
        vec![for_(
            "k",
            call("rowptr", vec![var("i")]),
            call("rowptr", vec![plus(var("i"), 1)]),
            vec![Node::Let {
                var: "j".into(),
                value: call("col", vec![var("k")]),
                body: vec![at(0, vec![var("i"), var("k"), var("j")])],
            }],
        )],
    )];
    LoopProgram { computation, body }
}

/// Forward solve, Figure 3.4 of the dissertation.
fn forward_solve() -> LoopProgram {
    let computation = Computation {
        name: "forward_solve".into(),
        symbols: vec!["N".into()],
        spaces: vec![
            space("A", Real, vec![sym("N"), sym("N")], Role::In),
            space("f", Real, vec![sym("N")], Role::In),
            space("u", Real, vec![sym("N")], Role::Out),
            space("tmp", Real, vec![sym("N")], Role::Temp),
        ],
        objects: vec![],
        stmts: vec![
            stmt(
                "S0",
                update("tmp", vec![it(0)], UpdateOp::Assign, read("f", vec![it(0)])),
                "{[i] : 0 <= i < N}",
                "{[i] -> [0, i, 0, 0, 0]}",
            ),
            stmt(
                "S1",
                update(
                    "tmp",
                    vec![it(0)],
                    UpdateOp::Sub,
                    bin(
                        BinOp::Mul,
                        read("A", vec![it(0), it(1)]),
                        read("u", vec![it(1)]),
                    ),
                ),
                "{[i, j] : 0 <= i < N && 0 <= j < i}",
                "{[i, j] -> [0, i, 1, j, 0]}",
            ),
            stmt(
                "S2",
                update(
                    "u",
                    vec![it(0)],
                    UpdateOp::Assign,
                    bin(
                        BinOp::Div,
                        read("tmp", vec![it(0)]),
                        read("A", vec![it(0), it(0)]),
                    ),
                ),
                "{[i] : 0 <= i < N}",
                "{[i] -> [0, i, 2, 0, 0]}",
            ),
        ],
    };
    let body = vec![for_(
        "i",
        IndexExpr::Const(0),
        isym("N"),
        vec![
            at(0, vec![var("i")]),
            for_(
                "j",
                IndexExpr::Const(0),
                var("i"),
                vec![at(1, vec![var("i"), var("j")])],
            ),
            at(2, vec![var("i")]),
        ],
    )];
    LoopProgram { computation, body }
}

/// Everything else the backends must agree on: floor and ceiling divisions
/// of negative numerators, `min`/`max` loop bounds, guards, a `let` followed
/// by a sibling, `min=`/`max=`, conditional bodies, sequences, scalars (in,
/// out, inout, temporary), integer arrays, mixed integer/real arithmetic with
/// C's truncating division, a 2-D temporary, a loop bound read from a data
/// space its body writes (evaluated once), and a data space named like a C
/// keyword.
fn features() -> LoopProgram {
    let computation = Computation {
        name: "features".into(),
        symbols: vec!["N".into(), "K".into()],
        spaces: vec![
            space("v", Real, vec![sym("N")], Role::In),
            space("double", Real, vec![sym("N")], Role::In),
            space("alpha", Real, vec![], Role::In),
            space("q", Int, vec![sym("N").scale(2).plus(&k(1))], Role::Out),
            space("w", Int, vec![sym("N")], Role::InOut),
            space("res", Real, vec![sym("N")], Role::InOut),
            space("best", Real, vec![], Role::Out),
            space("count", Int, vec![], Role::InOut),
            space("grid", Real, vec![sym("N"), k(3)], Role::Temp),
            space("acc", Real, vec![], Role::Temp),
        ],
        objects: vec![],
        stmts: vec![
            // S0: q(i + N) = 100 a + b with a = floor(i / 3), b = ceil(i / 3).
            stmt(
                "S0",
                update(
                    "q",
                    vec![it(0).plus(&sym("N"))],
                    UpdateOp::Assign,
                    ValueExpr::Index(it(1).scale(100).plus(&it(2))),
                ),
                "{[i, a, b] : -N <= i < N && 3*a <= i <= 3*a + 2 && 3*b - 2 <= i <= 3*b}",
                "{[i, a, b] -> [0, i, 0, 0]}",
            ),
            // S1: w(i) max= i * i - K.
            stmt(
                "S1",
                update(
                    "w",
                    vec![it(0)],
                    UpdateOp::Max,
                    bin(
                        BinOp::Sub,
                        bin(BinOp::Mul, ValueExpr::Index(it(0)), ValueExpr::Index(it(0))),
                        ValueExpr::Index(sym("K")),
                    ),
                ),
                "{[i] : 0 <= i < N && K - 2 <= i < K + 3 && 2*i <= N}",
                "{[i] -> [1, i, 0, 0]}",
            ),
            // S2: count += 1; best min= v(i) * alpha - i.
            stmt(
                "S2",
                Body::Seq(vec![
                    update("count", vec![], UpdateOp::Add, ValueExpr::Int(1)),
                    update(
                        "best",
                        vec![],
                        UpdateOp::Min,
                        bin(
                            BinOp::Sub,
                            bin(BinOp::Mul, read("v", vec![it(0)]), read("alpha", vec![])),
                            ValueExpr::Index(it(0)),
                        ),
                    ),
                ]),
                "{[i] : 0 <= i < N}",
                "{[i] -> [2, i, 0, 0]}",
            ),
            // S3: if (v(i) > 0.25 && w(i) != 0) res(i) = -v(i) / (w(i) + 1) + (i - 3) / 2.
            stmt(
                "S3",
                Body::If {
                    conditions: vec![
                        Condition {
                            lhs: read("v", vec![it(0)]),
                            op: ">",
                            rhs: ValueExpr::Real(0.25),
                        },
                        Condition {
                            lhs: read("w", vec![it(0)]),
                            op: "!=",
                            rhs: ValueExpr::Int(0),
                        },
                    ],
                    then: Box::new(update(
                        "res",
                        vec![it(0)],
                        UpdateOp::Assign,
                        bin(
                            BinOp::Add,
                            bin(
                                BinOp::Div,
                                ValueExpr::Neg(Box::new(read("v", vec![it(0)]))),
                                bin(BinOp::Add, read("w", vec![it(0)]), ValueExpr::Int(1)),
                            ),
                            bin(
                                BinOp::Div,
                                ValueExpr::Index(it(0).plus(&k(-3))),
                                ValueExpr::Int(2),
                            ),
                        ),
                    )),
                },
                "{[i] : 0 <= i < N}",
                "{[i] -> [2, i, 1, 0]}",
            ),
            // S4: grid(i, j) = 3 i + j.
            stmt(
                "S4",
                update(
                    "grid",
                    vec![it(0), it(1)],
                    UpdateOp::Assign,
                    ValueExpr::Index(it(0).scale(3).plus(&it(1))),
                ),
                "{[i, j] : 0 <= i < N && 0 <= j < 3}",
                "{[i, j] -> [3, i, 0, j]}",
            ),
            // S5: acc = grid(i, 2) - grid(i, 0); res(i) += acc * double(i).
            stmt(
                "S5",
                Body::Seq(vec![
                    update(
                        "acc",
                        vec![],
                        UpdateOp::Assign,
                        bin(
                            BinOp::Sub,
                            read("grid", vec![it(0), k(2)]),
                            read("grid", vec![it(0), k(0)]),
                        ),
                    ),
                    update(
                        "res",
                        vec![it(0)],
                        UpdateOp::Add,
                        bin(BinOp::Mul, read("acc", vec![]), read("double", vec![it(0)])),
                    ),
                ]),
                "{[i] : 0 <= i < N}",
                "{[i] -> [3, i, 1, 0]}",
            ),
            // S6: q(t) += 1; count -= 1, for t < count as it is before the
            // loop (the bound is read once); count <= N there.
            stmt(
                "S6",
                Body::Seq(vec![
                    update("q", vec![it(0)], UpdateOp::Add, ValueExpr::Int(1)),
                    update("count", vec![], UpdateOp::Sub, ValueExpr::Int(1)),
                ]),
                "{[t] : 0 <= t < N}",
                "{[t] -> [4, t, 0, 0]}",
            ),
            // S7: w(i) min= j - 2 * K with j = i + 1, then S8: q(i) *= 2.
            stmt(
                "S7",
                update(
                    "w",
                    vec![it(0)],
                    UpdateOp::Min,
                    ValueExpr::Index(it(1).plus(&sym("K").scale(-2))),
                ),
                "{[i, j] : 0 <= i < N && j = i + 1}",
                "{[i, j] -> [5, i, 0, 0]}",
            ),
            stmt(
                "S8",
                update("q", vec![it(0)], UpdateOp::Mul, ValueExpr::Int(2)),
                "{[i] : 0 <= i < N}",
                "{[i] -> [5, i, 1, 0]}",
            ),
        ],
    };
    let body = vec![
        // for i in -N..N: S0(i, floor(i / 3), ceil(i / 3))
        for_(
            "i",
            IndexExpr::Sum(vec![(-1, isym("N"))], 0),
            isym("N"),
            vec![at(
                0,
                vec![
                    var("i"),
                    IndexExpr::FloorDiv(Box::new(var("i")), 3),
                    IndexExpr::CeilDiv(Box::new(var("i")), 3),
                ],
            )],
        ),
        // for i in max(0, K - 2)..min(N, K + 3): if 2 i <= N: S1(i)
        for_(
            "i",
            IndexExpr::Max(vec![IndexExpr::Const(0), plus(isym("K"), -2)]),
            IndexExpr::Min(vec![isym("N"), plus(isym("K"), 3)]),
            vec![Node::If {
                guards: vec![Guard {
                    lhs: IndexExpr::Sum(vec![(2, var("i"))], 0),
                    op: GuardOp::Le,
                    rhs: isym("N"),
                }],
                body: vec![at(1, vec![var("i")])],
            }],
        ),
        for_(
            "i",
            IndexExpr::Const(0),
            isym("N"),
            vec![at(2, vec![var("i")]), at(3, vec![var("i")])],
        ),
        for_(
            "i",
            IndexExpr::Const(0),
            isym("N"),
            vec![
                for_(
                    "j",
                    IndexExpr::Const(0),
                    IndexExpr::Const(3),
                    vec![at(4, vec![var("i"), var("j")])],
                ),
                at(5, vec![var("i")]),
            ],
        ),
        for_(
            "t",
            IndexExpr::Const(0),
            call("count", vec![]),
            vec![at(6, vec![var("t")])],
        ),
        for_(
            "i",
            IndexExpr::Const(0),
            isym("N"),
            vec![
                Node::Let {
                    var: "j".into(),
                    value: plus(var("i"), 1),
                    body: vec![at(7, vec![var("i"), var("j")])],
                },
                at(8, vec![var("i")]),
            ],
        ),
    ];
    LoopProgram { computation, body }
}

/// Corners of the printers: primed loop variables, a constant `let` whose
/// variable is unused, a loop whose variable only feeds an iterator the body
/// ignores, a three-way `min` bound, an empty guard list, an equality guard
/// with a ceiling division, the floor division of a negative literal,
/// `i64::MIN` and literals beyond 32 bits, a negative literal operand, a
/// comparison whose left side is an integer promoted to a real (Rust needs
/// `(i as f64) < s`), infinity, and a scalar temporary that is never read.
fn corners() -> LoopProgram {
    let computation = Computation {
        name: "corners".into(),
        symbols: vec!["N".into()],
        spaces: vec![
            space("r", Int, vec![sym("N")], Role::Out),
            space("s", Real, vec![sym("N")], Role::Out),
            space("m", Int, vec![sym("N")], Role::Out),
            space("flag", Int, vec![sym("N")], Role::InOut),
            space("t", Int, vec![], Role::Temp),
        ],
        objects: vec![],
        stmts: vec![
            // S0: r(i) = i * -3 + -i
            stmt(
                "S0",
                update(
                    "r",
                    vec![it(0)],
                    UpdateOp::Assign,
                    bin(
                        BinOp::Add,
                        bin(BinOp::Mul, ValueExpr::Index(it(0)), ValueExpr::Int(-3)),
                        ValueExpr::Neg(Box::new(ValueExpr::Index(it(0)))),
                    ),
                ),
                "{[i] : 0 <= i < N}",
                "{[i] -> [i, 0, 0]}",
            ),
            // S1: s(i) += 1.5
            stmt(
                "S1",
                update("s", vec![it(0)], UpdateOp::Add, ValueExpr::Real(1.5)),
                "{[i, z] : 0 <= i < N && 0 <= z < 3 && z < N && z < i + 5}",
                "{[i, z] -> [i, 1, z]}",
            ),
            // S2: m(i) = c; m(i) max= i64::MIN; m(i) -= 5000000000
            stmt(
                "S2",
                Body::Seq(vec![
                    update("m", vec![it(0)], UpdateOp::Assign, ValueExpr::Index(it(1))),
                    update("m", vec![it(0)], UpdateOp::Max, ValueExpr::Int(i64::MIN)),
                    update(
                        "m",
                        vec![it(0)],
                        UpdateOp::Sub,
                        ValueExpr::Int(5_000_000_000),
                    ),
                ]),
                "{[i, c] : 0 <= i < N && 2*c <= -7 < 2*c + 2}",
                "{[i, c] -> [i, 2, 0]}",
            ),
            // S3: t = i; flag(i) += 1
            stmt(
                "S3",
                Body::Seq(vec![
                    update("t", vec![], UpdateOp::Assign, ValueExpr::Index(it(0))),
                    update("flag", vec![it(0)], UpdateOp::Add, ValueExpr::Int(1)),
                ]),
                "{[i] : 0 <= i < N && 2*i - 1 <= N <= 2*i}",
                "{[i] -> [i, 3, 0]}",
            ),
            // S4: if (i < s(i) && s(i) < inf) flag(i) += 10
            stmt(
                "S4",
                Body::If {
                    conditions: vec![
                        Condition {
                            lhs: ValueExpr::Index(it(0)),
                            op: "<",
                            rhs: read("s", vec![it(0)]),
                        },
                        Condition {
                            lhs: read("s", vec![it(0)]),
                            op: "<",
                            rhs: ValueExpr::Real(f64::INFINITY),
                        },
                    ],
                    then: Box::new(update(
                        "flag",
                        vec![it(0)],
                        UpdateOp::Add,
                        ValueExpr::Int(10),
                    )),
                },
                "{[i] : 0 <= i < N}",
                "{[i] -> [i, 4, 0]}",
            ),
        ],
    };
    let i = || var("i'");
    let body = vec![for_(
        "i'",
        IndexExpr::Const(0),
        isym("N"),
        vec![
            Node::Let {
                var: "u".into(),
                value: IndexExpr::Const(7),
                body: vec![at(0, vec![i()])],
            },
            for_(
                "z",
                IndexExpr::Const(0),
                IndexExpr::Min(vec![IndexExpr::Const(3), isym("N"), plus(i(), 5)]),
                vec![at(1, vec![i(), var("z")])],
            ),
            Node::If {
                guards: vec![],
                body: vec![at(
                    2,
                    vec![i(), IndexExpr::FloorDiv(Box::new(IndexExpr::Const(-7)), 2)],
                )],
            },
            Node::If {
                guards: vec![Guard {
                    lhs: i(),
                    op: GuardOp::Eq,
                    rhs: IndexExpr::CeilDiv(Box::new(isym("N")), 2),
                }],
                body: vec![at(3, vec![i()])],
            },
            at(4, vec![i()]),
        ],
    )];
    LoopProgram { computation, body }
}

fn corners_memory(n: usize) -> Memory {
    Memory::new()
        .with_symbol("N", n as i64)
        .with_array("r", Array::Int(vec![0; n].into()))
        .with_array("s", Array::Real(vec![0.0; n].into()))
        .with_array("m", Array::Int(vec![0; n].into()))
        .with_array("flag", Array::Int(vec![0; n].into()))
}

fn corners_reference(n: i64) -> HashMap<String, Array> {
    let r = (0..n).map(|i| -4 * i).collect();
    let s: Vec<f64> = (0..n).map(|i| 1.5 * 3.min(n).min(i + 5) as f64).collect();
    let m = (0..n).map(|_| -4 - 5_000_000_000).collect();
    let flag = (0..n)
        .map(|i| i64::from(i == (n + 1) / 2) + if (i as f64) < s[i as usize] { 10 } else { 0 })
        .collect();
    HashMap::from([
        ("r".to_string(), Array::Int(r)),
        ("s".to_string(), Array::Real(s.into())),
        ("m".to_string(), Array::Int(m)),
        ("flag".to_string(), Array::Int(flag)),
    ])
}

// ---------------------------------------------------------------------------
// Inputs and references

fn dense_mv_memory(n: usize, m: usize, seed: u64) -> Memory {
    let mut r = Rng(seed);
    Memory::new()
        .with_symbol("N", n as i64)
        .with_symbol("M", m as i64)
        .with_array("A", Array::Real((0..n * m).map(|_| r.real()).collect()))
        .with_array("x", Array::Real((0..m).map(|_| r.real()).collect()))
        .with_array("y", Array::Real(vec![0.0; n].into()))
}

fn dense_mv_reference(mem: &Memory) -> Vec<f64> {
    let (n, m) = (mem.symbols["N"] as usize, mem.symbols["M"] as usize);
    let (a, x) = (mem.real("A").unwrap(), mem.real("x").unwrap());
    (0..n)
        .map(|i| {
            let mut s = 0.0;
            for j in 0..m {
                s += a[i * m + j] * x[j];
            }
            s
        })
        .collect()
}

fn csr_memory(n: usize, m: usize, seed: u64) -> Memory {
    let mut r = Rng(seed);
    let mut rowptr = vec![0i64];
    let mut col = Vec::new();
    for _ in 0..n {
        let len = r.below(7) as usize;
        let mut cols: Vec<i64> = (0..len).map(|_| r.below(m as u64) as i64).collect();
        cols.sort_unstable();
        cols.dedup();
        col.extend(cols);
        rowptr.push(col.len() as i64);
    }
    let nnz = col.len();
    Memory::new()
        .with_symbol("N", n as i64)
        .with_symbol("M", m as i64)
        .with_symbol("NNZ", nnz as i64)
        .with_array("rowptr", Array::Int(rowptr.into()))
        .with_array("col", Array::Int(col.into()))
        .with_array("A", Array::Real((0..nnz).map(|_| r.real()).collect()))
        .with_array("x", Array::Real((0..m).map(|_| r.real()).collect()))
        .with_array("y", Array::Real((0..n).map(|_| r.real()).collect()))
}

fn csr_reference(mem: &Memory) -> Vec<f64> {
    let n = mem.symbols["N"] as usize;
    let (rowptr, col) = (mem.int("rowptr").unwrap(), mem.int("col").unwrap());
    let (a, x) = (mem.real("A").unwrap(), mem.real("x").unwrap());
    let mut y = mem.real("y").unwrap().to_vec();
    for i in 0..n {
        for k in rowptr[i] as usize..rowptr[i + 1] as usize {
            y[i] += a[k] * x[col[k] as usize];
        }
    }
    y
}

fn forward_memory(n: usize, seed: u64) -> Memory {
    let mut r = Rng(seed);
    let mut a: Vec<f64> = (0..n * n).map(|_| r.real()).collect();
    for i in 0..n {
        a[i * n + i] = 2.0 + r.real();
    }
    Memory::new()
        .with_symbol("N", n as i64)
        .with_array("A", Array::Real(a.into()))
        .with_array("f", Array::Real((0..n).map(|_| r.real()).collect()))
        .with_array("u", Array::Real(vec![0.0; n].into()))
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

fn features_memory(n: usize, kk: i64, seed: u64) -> Memory {
    let mut r = Rng(seed);
    Memory::new()
        .with_symbol("N", n as i64)
        .with_symbol("K", kk)
        .with_array("v", Array::Real((0..n).map(|_| r.real()).collect()))
        .with_array("double", Array::Real((0..n).map(|_| r.real()).collect()))
        .with_array("alpha", Array::Real(vec![1.5].into()))
        .with_array("q", Array::Int(vec![0; 2 * n + 1].into()))
        .with_array(
            "w",
            Array::Int((0..n).map(|_| r.below(21) as i64 - 10).collect()),
        )
        .with_array("res", Array::Real(vec![0.0; n].into()))
        .with_array("best", Array::Real(vec![0.0].into()))
        .with_array("count", Array::Int(vec![0].into()))
}

/// The outputs of `features`, computed directly.
fn features_reference(mem: &Memory) -> HashMap<String, Array> {
    let n = mem.symbols["N"];
    let kk = mem.symbols["K"];
    let v = mem.real("v").unwrap();
    let dbl = mem.real("double").unwrap();
    let alpha = mem.real("alpha").unwrap()[0];
    let mut q = vec![0i64; (2 * n + 1) as usize];
    let mut w = mem.int("w").unwrap().to_vec();
    let mut res = mem.real("res").unwrap().to_vec();
    let mut best = 0.0f64;
    let mut count = mem.int("count").unwrap()[0];
    for i in -n..n {
        q[(i + n) as usize] = 100 * i.div_euclid(3) + (i + 2).div_euclid(3);
    }
    for i in 0.max(kk - 2)..n.min(kk + 3) {
        if 2 * i <= n {
            w[i as usize] = w[i as usize].max(i * i - kk);
        }
    }
    for i in 0..n {
        let u = i as usize;
        count += 1;
        let x = v[u] * alpha - i as f64;
        best = if best < x { best } else { x };
        if v[u] > 0.25 && w[u] != 0 {
            res[u] = -v[u] / (w[u] + 1) as f64 + ((i - 3) / 2) as f64;
        }
    }
    for i in 0..n {
        let u = i as usize;
        let acc = (3 * i + 2) as f64 - (3 * i) as f64;
        res[u] += acc * dbl[u];
    }
    let bound = count;
    for t in 0..bound {
        q[t as usize] += 1;
        count -= 1;
    }
    for i in 0..n {
        let u = i as usize;
        w[u] = w[u].min(i + 1 - 2 * kk);
        q[u] *= 2;
    }
    HashMap::from([
        ("q".to_string(), Array::Int(q.into())),
        ("w".to_string(), Array::Int(w.into())),
        ("res".to_string(), Array::Real(res.into())),
        ("best".to_string(), Array::Real(vec![best].into())),
        ("count".to_string(), Array::Int(vec![count].into())),
    ])
}

// ---------------------------------------------------------------------------
// The backends agree

#[test]
fn dense_mv_backends_agree_with_reference() {
    let mem = dense_mv_memory(13, 17, 1);
    let want = HashMap::from([(
        "y".to_string(),
        Array::Real(dense_mv_reference(&mem).into()),
    )]);
    check_all(&dense_mv(), &mem, &want);
}

#[test]
fn csr_spmv_backends_agree_with_reference() {
    let mem = csr_memory(60, 45, 2);
    assert!(mem.symbols["NNZ"] > 60, "a non-trivial matrix");
    let want = HashMap::from([("y".to_string(), Array::Real(csr_reference(&mem).into()))]);
    check_all(&csr_spmv(), &mem, &want);
}

#[test]
fn forward_solve_backends_agree_with_reference() {
    let mem = forward_memory(30, 3);
    let want = HashMap::from([("u".to_string(), Array::Real(forward_reference(&mem).into()))]);
    let out = check_all(&forward_solve(), &mem, &want);
    // The solution solves the system.
    let n = 30;
    let (a, f, u) = (
        mem.real("A").unwrap(),
        mem.real("f").unwrap(),
        out.real("u").unwrap(),
    );
    for i in 0..n {
        let lhs: f64 = (0..=i).map(|j| a[i * n + j] * u[j]).sum();
        assert!((lhs - f[i]).abs() < 1e-9, "row {i}: {lhs} != {}", f[i]);
    }
}

#[test]
fn features_backends_agree_with_reference() {
    let mem = features_memory(11, 4, 4);
    let want = features_reference(&mem);
    let out = check_all(&features(), &mem, &want);
    // Floor and ceiling of negative numerators were exercised.
    let q = want["q"].as_int().unwrap();
    assert!(q.iter().any(|&x| x < 0));
    assert!(out.int("count").is_some());
}

#[test]
fn scanned_programs_agree_with_reference() {
    // The same computations through the scanner instead of by hand.
    let env = UfEnvironment::new();
    let scanned = |p: LoopProgram| codegen::scan(&p.computation, &env).expect("scan");

    let mem = dense_mv_memory(5, 9, 11);
    let want = HashMap::from([(
        "y".to_string(),
        Array::Real(dense_mv_reference(&mem).into()),
    )]);
    check_all(&scanned(dense_mv()), &mem, &want);

    let mem = csr_memory(20, 30, 12);
    let want = HashMap::from([("y".to_string(), Array::Real(csr_reference(&mem).into()))]);
    check_all(&scanned(csr_spmv()), &mem, &want);

    let mem = forward_memory(12, 13);
    let want = HashMap::from([("u".to_string(), Array::Real(forward_reference(&mem).into()))]);
    check_all(&scanned(forward_solve()), &mem, &want);
}

#[test]
fn corners_backends_agree_with_reference() {
    check_all(&corners(), &corners_memory(7), &corners_reference(7));
    let r = emit_rust(&corners()).unwrap();
    for line in [
        "    for i_1 in 0..n {",
        "            let _u: i64 = 7;",
        "        for _ in 0..i64::min(i64::min(3, n), i_1 + 5) {",
        "        if (i_1 as f64) < s[i_1 as usize] && s[i_1 as usize] < f64::INFINITY {",
        "            m[i_1 as usize] = i64::max(m[i_1 as usize], i64::MIN);",
        "            m[i_1 as usize] -= 5000000000;",
        "        if i_1 == spf_ceild(n, 2) {",
        "    let _ = t;",
    ] {
        assert!(r.contains(line), "missing {line:?} in\n{r}");
    }
    let c = emit_c(&corners()).unwrap();
    for line in [
        "    for (int64_t i_1 = 0; i_1 < N; i_1++) {",
        "            const int64_t u = 7;",
        "            (void)u;",
        "            r[i_1] = i_1 * -3 + -i_1;",
        "            m[i_1] = spf_floord(-7, 2);",
        "            m[i_1] = spf_max_i64(m[i_1], INT64_MIN);",
        "            m[i_1] -= INT64_C(5000000000);",
        "    (void)t;",
    ] {
        assert!(c.contains(line), "missing {line:?} in\n{c}");
    }
}

#[test]
fn emitted_code_of_all_programs_compiles_as_one_file() {
    let programs = [
        dense_mv(),
        csr_spmv(),
        forward_solve(),
        features(),
        corners(),
    ];
    let dir = tempfile::tempdir().unwrap();
    let c: String = programs.iter().map(|p| emit_c(p).unwrap()).collect();
    let rust: String = programs.iter().map(|p| emit_rust(p).unwrap()).collect();
    let c_src = dir.path().join("all.c");
    let rs_src = dir.path().join("all.rs");
    std::fs::write(&c_src, c).unwrap();
    std::fs::write(&rs_src, rust).unwrap();
    std::thread::scope(|s| {
        s.spawn(|| {
            tool(
                Command::new("cc")
                    .args(CFLAGS)
                    .arg("-c")
                    .arg(&c_src)
                    .arg("-o")
                    .arg(dir.path().join("all.o")),
                "cc -c",
            )
        });
        s.spawn(|| {
            tool(
                Command::new("rustc")
                    .args(["--edition", "2021", "--crate-type", "lib", "-D", "warnings"])
                    .arg("--out-dir")
                    .arg(dir.path())
                    .arg(&rs_src),
                "rustc --crate-type lib",
            )
        });
    });
}

// ---------------------------------------------------------------------------
// The generated text

#[test]
fn spmv_c_reads_like_the_loop_nest() {
    let c = emit_c(&csr_spmv()).unwrap();
    for line in [
        "void spmv(int64_t N, int64_t M, int64_t NNZ, const int64_t *restrict rowptr,",
        "    for (int64_t i = 0; i < N; i++) {",
        "        for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {",
        "            const int64_t j = col[k];",
        "            /* S0 */",
        "            y[i] += A[k] * x[j];",
    ] {
        assert!(c.contains(line), "missing {line:?} in\n{c}");
    }
    assert!(!c.contains("spf_"), "no helper needed:\n{c}");
}

#[test]
fn forward_solve_c_linearizes_and_allocates_the_temporary() {
    let c = emit_c(&forward_solve()).unwrap();
    for line in [
        "void forward_solve(int64_t N, const double *restrict A, const double *restrict f,\n                   double *restrict u)\n{",
        "    double *restrict tmp = calloc(spf_len(N), sizeof *tmp);",
        "            tmp[i] -= A[i * N + j] * u[j];",
        "        u[i] = tmp[i] / A[i * N + i];",
        "    free(tmp);",
    ] {
        assert!(c.contains(line), "missing {line:?} in\n{c}");
    }
}

#[test]
fn spmv_rust_reads_like_the_loop_nest() {
    let r = emit_rust(&csr_spmv()).unwrap();
    for line in [
        "    assert_eq!(rowptr.len(), (n + 1) as usize);",
        "    for i in 0..n {",
        "        for k in rowptr[i as usize]..rowptr[(i + 1) as usize] {",
        "            let j = col[k as usize];",
        "            // S0",
        "            y[i as usize] += a[k as usize] * x[j as usize];",
    ] {
        assert!(r.contains(line), "missing {line:?} in\n{r}");
    }
}

#[test]
fn rust_names_are_snake_case_unique_and_documented() {
    let mut p = csr_spmv();
    // A data space whose snake case meets a symbol's, and a keyword.
    p.computation
        .spaces
        .push(space("n", Real, vec![sym("N")], Role::In));
    p.computation
        .spaces
        .push(space("type", Real, vec![], Role::In));
    let params = rust_parameters(&p).unwrap();
    let names: Vec<(&str, &str)> = params
        .iter()
        .map(|q| (q.source.as_str(), q.name.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("N", "n"),
            ("M", "m"),
            ("NNZ", "nnz"),
            ("rowptr", "rowptr"),
            ("col", "col"),
            ("A", "a"),
            ("x", "x"),
            ("y", "y"),
            ("n", "n_2"),
            ("type", "type_"),
        ]
    );
    let r = emit_rust(&p).unwrap();
    assert!(r.contains("/// * `A` → `a`: real array, in"), "{r}");
    assert!(r.contains("type_: f64"), "{r}");
    // Unused parameters are still warning-free.
    assert!(r.contains("let _ = type_;"), "{r}");
    let c = c_parameters(&p).unwrap();
    assert_eq!(c[9].name, "type", "C keeps names that are not C keywords");
}

// ---------------------------------------------------------------------------
// Unsupported constructs and invalid programs

#[test]
fn runtime_calls_on_undeclared_objects_are_rejected_by_every_backend() {
    // Runtime objects themselves are tested in tests/runtime/.
    let mut p = csr_spmv();
    p.computation.stmts[0].body = Body::Seq(vec![
        p.computation.stmts[0].body.clone(),
        Body::Call {
            object: "P".into(),
            method: "insert".into(),
            args: vec![ValueExpr::Index(it(0))],
        },
    ]);
    let undeclared = CallError::UnknownObject { object: "P".into() };
    let emitted = EmitError::Call {
        stmt: "S0".into(),
        error: undeclared.clone(),
    };
    assert_eq!(emit_c(&p).unwrap_err(), emitted);
    assert_eq!(emit_rust(&p).unwrap_err(), emitted);
    let mut mem = csr_memory(4, 4, 5);
    assert_eq!(
        run(&p, &mut mem, None).unwrap_err(),
        RunError::Call {
            stmt: "S0".into(),
            error: undeclared
        }
    );

    // A value call too.
    let mut p = dense_mv();
    p.computation.stmts[0].body = update(
        "y",
        vec![it(0)],
        UpdateOp::Assign,
        ValueExpr::Call {
            object: "P".into(),
            method: "get".into(),
            args: vec![],
        },
    );
    assert!(matches!(
        emit_c(&p).unwrap_err(),
        EmitError::Call {
            error: CallError::UnknownObject { .. },
            ..
        }
    ));
    assert!(matches!(
        emit_rust(&p).unwrap_err(),
        EmitError::Call {
            error: CallError::UnknownObject { .. },
            ..
        }
    ));
}

#[test]
fn invalid_programs_are_typed_errors() {
    // Writing an input.
    let mut p = csr_spmv();
    p.computation.spaces[4].role = Role::In;
    let e = emit_c(&p).unwrap_err();
    assert_eq!(
        e,
        EmitError::WriteToInput {
            stmt: "S0".into(),
            space: "y".into()
        }
    );
    assert!(matches!(
        run(&p, &mut csr_memory(3, 3, 1), None).unwrap_err(),
        RunError::WriteToInput { .. }
    ));

    // A variable no loop binds.
    let mut p = csr_spmv();
    p.body = vec![at(0, vec![var("i"), var("k"), var("j")])];
    assert!(matches!(
        emit_rust(&p).unwrap_err(),
        EmitError::UnboundVariable { name, .. } if name == "i"
    ));
    assert!(matches!(
        run(&p, &mut csr_memory(3, 3, 1), None).unwrap_err(),
        RunError::UnboundVariable { name, .. } if name == "i"
    ));

    // The wrong number of iterator values.
    let mut p = dense_mv();
    p.body = vec![for_(
        "i",
        IndexExpr::Const(0),
        isym("N"),
        vec![at(1, vec![var("i")])],
    )];
    assert!(matches!(
        emit_c(&p).unwrap_err(),
        EmitError::IteratorCount {
            expected: 2,
            found: 1,
            ..
        }
    ));

    // A real index array.
    let mut p = csr_spmv();
    p.computation.spaces[1].elem = Real;
    assert!(matches!(
        emit_c(&p).unwrap_err(),
        EmitError::NotIndexArray { name, .. } if name == "col"
    ));

    // A real value stored into an integer data space.
    let mut p = features();
    p.computation.stmts[8].body = update("q", vec![it(0)], UpdateOp::Assign, ValueExpr::Real(1.0));
    assert!(matches!(
        emit_rust(&p).unwrap_err(),
        EmitError::RealToInt { .. }
    ));
}

// ---------------------------------------------------------------------------
// The interpreter's checks and trace

#[test]
fn trace_lists_instances_in_execution_order() {
    let mut mem = forward_memory(3, 7);
    let mut trace = Trace::new();
    run(&forward_solve(), &mut mem, Some(&mut trace)).unwrap();
    let expected: Vec<(usize, Vec<i64>)> = vec![
        (0, vec![0]),
        (2, vec![0]),
        (0, vec![1]),
        (1, vec![1, 0]),
        (2, vec![1]),
        (0, vec![2]),
        (1, vec![2, 0]),
        (1, vec![2, 1]),
        (2, vec![2]),
    ];
    assert_eq!(trace.instances, expected);

    let mut mem = csr_memory(5, 5, 8);
    let mut trace = Trace::new();
    run(&csr_spmv(), &mut mem, Some(&mut trace)).unwrap();
    let (rowptr, col) = (mem.int("rowptr").unwrap(), mem.int("col").unwrap());
    let mut expected = Vec::new();
    for i in 0..5 {
        for k in rowptr[i]..rowptr[i + 1] {
            expected.push((0, vec![i as i64, k, col[k as usize]]));
        }
    }
    assert_eq!(trace.instances, expected);
}

#[test]
fn out_of_bounds_names_the_statement_and_point() {
    let mut mem = csr_memory(4, 4, 9);
    // Point a column outside x.
    if let Some(Array::Int(col)) = mem.arrays.get_mut("col") {
        assert!(!col.is_empty());
        col.to_mut()[0] = 99;
    }
    let err = run(&csr_spmv(), &mut mem, None).unwrap_err();
    match &err {
        RunError::OutOfBounds {
            space,
            index,
            len,
            site: Site::Statement { name, point },
            ..
        } => {
            assert_eq!(space, "x");
            assert_eq!(index, &[99]);
            assert_eq!(*len, 4);
            assert_eq!(name, "S0");
            assert_eq!(point[2], 99);
        }
        e => panic!("expected OutOfBounds, got {e:?}"),
    }
    assert!(err.to_string().contains("statement S0 at ["), "{err}");
    // The memory keeps every array.
    assert_eq!(mem.arrays.len(), 5);

    // A 2-D index is checked per dimension.
    let mut p = dense_mv();
    if let Node::For { body, .. } = &mut p.body[0] {
        if let Node::For { upper, .. } = &mut body[1] {
            *upper = plus(isym("M"), 1);
        }
    }
    let mut mem = dense_mv_memory(3, 2, 1);
    match run(&p, &mut mem, None).unwrap_err() {
        RunError::OutOfBounds { space, index, .. } => {
            assert_eq!(space, "A");
            assert_eq!(index, [0, 2]);
        }
        e => panic!("expected OutOfBounds, got {e:?}"),
    }
}

#[test]
fn missing_and_ill_sized_data_are_reported() {
    let p = csr_spmv();

    let mut mem = csr_memory(4, 4, 1);
    mem.symbols.remove("M");
    assert!(matches!(
        run(&p, &mut mem, None).unwrap_err(),
        RunError::MissingSymbol { name, site: Site::Extent(s) } if name == "M" && s == "x"
    ));

    let mut undeclared = csr_spmv();
    undeclared.computation.symbols.retain(|s| s != "M");
    assert!(matches!(
        run(&undeclared, &mut csr_memory(4, 4, 1), None).unwrap_err(),
        RunError::UnknownSymbol { name, .. } if name == "M"
    ));
    assert!(matches!(
        emit_c(&undeclared).unwrap_err(),
        EmitError::UnknownSymbol { name, .. } if name == "M"
    ));

    let mut mem = csr_memory(4, 4, 1);
    mem.arrays.remove("col");
    assert_eq!(
        run(&p, &mut mem, None).unwrap_err(),
        RunError::MissingArray {
            space: "col".into()
        }
    );

    let mut mem = csr_memory(4, 4, 1);
    mem.arrays
        .insert("x".into(), Array::Real(vec![0.0; 3].into()));
    assert_eq!(
        run(&p, &mut mem, None).unwrap_err(),
        RunError::WrongLength {
            space: "x".into(),
            expected: 4,
            found: 3
        }
    );

    let mut mem = csr_memory(4, 4, 1);
    mem.arrays.insert("x".into(), Array::Int(vec![0; 4].into()));
    assert!(matches!(
        run(&p, &mut mem, None).unwrap_err(),
        RunError::ArrayType { space, .. } if space == "x"
    ));
}

#[test]
fn integer_overflow_and_division_by_zero_are_errors() {
    // count += 1 from i64::MAX.
    let mut mem = features_memory(5, 2, 1);
    mem.arrays
        .insert("count".into(), Array::Int(vec![i64::MAX].into()));
    let err = run(&features(), &mut mem, None).unwrap_err();
    match &err {
        RunError::Overflow {
            site: Site::Statement { name, point },
        } => {
            assert_eq!(name, "S2");
            assert_eq!(point, &[0]);
        }
        e => panic!("expected Overflow, got {e:?}"),
    }

    // Integer division by zero: q(i) = 1 / 0.
    let mut p = features();
    p.computation.stmts[8].body = update(
        "q",
        vec![it(0)],
        UpdateOp::Assign,
        bin(BinOp::Div, ValueExpr::Int(1), ValueExpr::Index(k(0))),
    );
    let mut mem = features_memory(5, 2, 1);
    match run(&p, &mut mem, None).unwrap_err() {
        RunError::DivisionByZero {
            site: Site::Statement { name, .. },
        } => assert_eq!(name, "S8"),
        e => panic!("expected DivisionByZero, got {e:?}"),
    }
}
