//! The transformations of `iegen::computation::transform` preserve what a
//! computation computes: each is applied to a small computation, both
//! versions are scanned and run by the interpreter on random inputs from a
//! fixed seed, and their live-out data spaces must agree (and, where the
//! answer is easy to state, agree with a reference written here). The loop
//! ASTs show that the transformation did what it says, and reorderings that
//! would reverse a dependence are refused.

mod harness;

use std::collections::HashMap;

use codegen::ast::{LoopProgram, Node};
use codegen::interp::{run, Array, Memory};
use iegen::computation::transform::{
    check_legal, eliminate_dead_statements, fuse, inline, reschedule, Binding, CallSite,
    TransformError,
};
use iegen::computation::{parse_computation, Computation, ElemType, Role, ScheduleDim};
use iegen::{Expr, Set, UfEnvironment, Var};

use harness::{assert_same, Outputs, Rng};

// ---------------------------------------------------------------------------
// Running computations

fn comp(text: &str) -> Computation {
    parse_computation(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn env() -> UfEnvironment {
    UfEnvironment::new()
}

fn scanned(c: &Computation) -> LoopProgram {
    codegen::scan(c, &env()).unwrap_or_else(|e| panic!("scan: {e}\n{c}"))
}

/// The loop nest as text: `for i { S0 for j { S1 } } let j { S2 } if { S3 }`.
fn shape(p: &LoopProgram) -> String {
    fn nodes(p: &LoopProgram, ns: &[Node], out: &mut Vec<String>) {
        for n in ns {
            match n {
                Node::For { var, body, .. } | Node::Let { var, body, .. } => {
                    let kw = if matches!(n, Node::For { .. }) {
                        "for"
                    } else {
                        "let"
                    };
                    out.push(format!("{kw} {var} {{"));
                    nodes(p, body, out);
                    out.push("}".into());
                }
                Node::If { body, .. } => {
                    out.push("if {".into());
                    nodes(p, body, out);
                    out.push("}".into());
                }
                Node::Stmt { stmt, .. } => out.push(p.computation.stmts[*stmt].name.clone()),
            }
        }
    }
    let mut out = Vec::new();
    nodes(p, &p.body, &mut out);
    out.join(" ")
}

fn extent(e: &Expr, symbols: &HashMap<String, i64>) -> usize {
    let v = e
        .evaluate(
            &mut |_| None,
            &mut |s| symbols.get(s).copied(),
            &mut |_, _| None,
        )
        .unwrap_or_else(|| panic!("extent {e} over the symbols"));
    usize::try_from(v).expect("a non-negative extent")
}

/// A memory for `c`: the given symbols, and every array that is not a
/// temporary filled with reals in `[-1, 1)` (`c` has no integer inputs).
fn memory(c: &Computation, symbols: &[(&str, i64)], r: &mut Rng) -> Memory {
    let mut mem = Memory::new();
    for (s, v) in symbols {
        mem = mem.with_symbol(*s, *v);
    }
    for d in c.spaces.iter().filter(|d| d.role != Role::Temp) {
        let len: usize = d.extents.iter().map(|e| extent(e, &mem.symbols)).product();
        assert_eq!(d.elem, ElemType::Real, "`{}`", d.name);
        mem = mem.with_array(d.name.clone(), Array::Real(r.reals(len).into()));
    }
    mem
}

/// Memories for `c` (whose only symbol is `N`), one for each of `sizes`.
fn memories(c: &Computation, sizes: &[i64], seed: u64) -> Vec<Memory> {
    let mut r = Rng(seed);
    sizes
        .iter()
        .map(|&n| memory(c, &[("N", n)], &mut r))
        .collect()
}

/// Scans and runs `c` on a copy of `mem`; returns its live-out data spaces.
fn outputs(c: &Computation, mem: &Memory) -> Outputs {
    let mut m = mem.clone();
    run(&scanned(c), &mut m, None).unwrap_or_else(|e| panic!("run: {e}\n{c}"));
    c.spaces
        .iter()
        .filter(|d| d.role.is_live_out())
        .map(|d| (d.name.clone(), m.arrays[&d.name].clone()))
        .collect()
}

fn assert_outputs(what: &str, got: &Outputs, want: &Outputs) {
    assert_eq!(
        got.keys().collect::<std::collections::BTreeSet<_>>(),
        want.keys().collect(),
        "{what}: the live-out data spaces"
    );
    for (name, w) in want {
        assert_same(what, name, &got[name], w);
    }
}

/// `after` computes what `before` computes on every memory, and not only
/// zeros.
fn assert_equivalent(before: &Computation, after: &Computation, mems: &[Memory]) {
    let mut nonzero = false;
    for (k, mem) in mems.iter().enumerate() {
        let want = outputs(before, mem);
        nonzero |= want.values().any(|a| match a {
            Array::Int(v) => v.iter().any(|&x| x != 0),
            Array::Real(v) => v.iter().any(|&x| x != 0.0),
            other => !other.is_empty(),
        });
        assert_outputs(&format!("memory {k}"), &outputs(after, mem), &want);
    }
    assert!(nonzero, "the test inputs exercise the computation");
}

fn names(c: &Computation) -> Vec<&str> {
    c.stmts.iter().map(|s| s.name.as_str()).collect()
}

fn reals(out: &Outputs, name: &str) -> Vec<f64> {
    out[name].as_real().expect("reals").to_vec()
}

fn illegal(r: Result<Computation, TransformError>) -> (String, String, String, &'static str) {
    match r {
        Err(TransformError::Illegal {
            earlier,
            later,
            space,
            kind,
        }) => (earlier, later, space, kind),
        Err(e) => panic!("expected Illegal, got {e}"),
        Ok(c) => panic!("expected Illegal, got\n{c}"),
    }
}

/// The fields of the expected [`TransformError::Illegal`].
fn refused(
    earlier: &str,
    later: &str,
    space: &str,
    kind: &'static str,
) -> (String, String, String, &'static str) {
    (earlier.into(), later.into(), space.into(), kind)
}

const SIZES: &[i64] = &[0, 1, 2, 7, 20];

// ---------------------------------------------------------------------------
// Fusion

/// A producer loop, a consumer loop, and a sibling after the producer.
const PRODUCER_CONSUMER: &str = "
computation pc(N) {
    in   real x[N];
    temp real t[N];
    out  real y[N];
    out  real z[N];

    S0: t(i) = x(i) * 2.0
        domain   {[i] : 0 <= i < N}
        schedule {[i] -> [0, i, 0]};
    S2: z(i) = x(i) - 1.0
        domain   {[i] : 0 <= i < N}
        schedule {[i] -> [0, i, 1]};
    S1: y(i) = t(i) + 1.0
        domain   {[i] : 0 <= i < N}
        schedule {[i] -> [1, i, 0]};
}";

#[test]
fn fuse_producer_and_consumer() {
    let c = comp(PRODUCER_CONSUMER);
    assert_eq!(shape(&scanned(&c)), "for i { S0 S2 } for i { S1 }");
    let f = fuse(&c, "S0", "S1", 1, &env()).expect("legal");
    // S1 right after S0 in S0's loop; S2 moved one position later.
    assert_eq!(shape(&scanned(&f)), "for i { S0 S1 S2 }");
    assert_eq!(f.spaces, c.spaces);
    assert_eq!(names(&f), names(&c));
    let mems = memories(&c, SIZES, 1);
    assert_equivalent(&c, &f, &mems);
    // And what both compute.
    let x = mems[4].real("x").unwrap();
    let out = outputs(&f, &mems[4]);
    let y: Vec<f64> = x.iter().map(|v| v * 2.0 + 1.0).collect();
    assert_same("fused", "y", &out["y"], &Array::Real(y.into()));
}

#[test]
fn fuse_consumer_of_an_earlier_iteration() {
    // S1 at i reads t(i - 1), which S0 wrote one iteration earlier: legal.
    let c = comp(
        "computation lag(N) {
            in real x[N]; temp real t[N]; out real y[N];
            S0: t(i) = x(i) * 2.0
                domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
            S1: y(i) = t(i - 1) + x(i)
                domain {[i] : 1 <= i < N} schedule {[i] -> [1, i, 0]};
        }",
    );
    let f = fuse(&c, "S0", "S1", 1, &env()).expect("legal");
    // One loop over the hull of both ranges; S0's range is the hull, so only
    // S1 needs a guard (its lower bound).
    assert_eq!(shape(&scanned(&f)), "for i { S0 if { S1 } }");
    assert_equivalent(&c, &f, &memories(&c, SIZES, 2));
}

#[test]
fn fuse_two_loops_reading_the_same_array() {
    // Two reductions over x: reads do not conflict.
    let c = comp(
        "computation stats(N) {
            in real x[N]; out real s; out real m; out real y[N];
            S0: s += x(i)
                domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
            S1: m max= x(i)
                domain {[i] : 0 <= i < N} schedule {[i] -> [1, i, 0]};
            S2: y(i) = x(i) * x(i)
                domain {[i] : 0 <= i < N} schedule {[i] -> [2, i, 0]};
        }",
    );
    let f = fuse(&c, "S0", "S1", 1, &env()).expect("legal");
    assert_eq!(shape(&scanned(&f)), "for i { S0 S1 } for i { S2 }");
    let f = fuse(&f, "S0", "S2", 1, &env()).expect("legal");
    assert_eq!(shape(&scanned(&f)), "for i { S0 S2 S1 }");
    let mems = memories(&c, SIZES, 3);
    assert_equivalent(&c, &f, &mems);
    let x = mems[4].real("x").unwrap();
    let out = outputs(&f, &mems[4]);
    let sum: f64 = x.iter().sum();
    let max = x.iter().fold(0.0f64, |a, &b| a.max(b));
    assert_same("fused", "s", &out["s"], &Array::Real(vec![sum].into()));
    assert_same("fused", "m", &out["m"], &Array::Real(vec![max].into()));
}

#[test]
fn fuse_two_dimensional_nests_at_each_level() {
    let c = comp(
        "computation nests(N, M) {
            in real A[N, M]; temp real C[N, M]; out real D[N, M];
            S0: C(i, j) = A(i, j) * 2.0
                domain {[i, j] : 0 <= i < N && 0 <= j < M} schedule {[i, j] -> [0, i, 0, j, 0]};
            S1: D(i, j) = C(i, j) - A(i, j)
                domain {[i, j] : 0 <= i < N && 0 <= j < M} schedule {[i, j] -> [1, i, 0, j, 0]};
        }",
    );
    let f1 = fuse(&c, "S0", "S1", 1, &env()).expect("legal");
    assert_eq!(shape(&scanned(&f1)), "for i { for j { S0 } for j { S1 } }");
    let f2 = fuse(&c, "S0", "S1", 2, &env()).expect("legal");
    assert_eq!(shape(&scanned(&f2)), "for i { for j { S0 S1 } }");
    let mut r = Rng(4);
    let mems: Vec<Memory> = [(0, 3), (3, 0), (1, 1), (4, 6), (9, 5)]
        .iter()
        .map(|&(n, m)| memory(&c, &[("N", n), ("M", m)], &mut r))
        .collect();
    assert_equivalent(&c, &f1, &mems);
    assert_equivalent(&c, &f2, &mems);

    // Reading the transpose: S1 (i, j) needs S0 (j, i), which a fused nest
    // runs later when j > i, at either level.
    let mut t = c.clone();
    t.stmts[1] = comp(
        "computation nests(N, M) {
            in real A[N, M]; temp real C[N, M]; out real D[N, M];
            S1: D(i, j) = C(j, i) - A(i, j)
                domain {[i, j] : 0 <= i < N && 0 <= j < N && M = N}
                schedule {[i, j] -> [1, i, 0, j, 0]};
        }",
    )
    .stmts[0]
        .clone();
    for level in [1, 2] {
        assert_eq!(
            illegal(fuse(&t, "S0", "S1", level, &env())),
            refused("S0", "S1", "C", "flow"),
            "level {level}"
        );
    }
}

#[test]
fn fuse_refuses_reading_a_later_iteration() {
    // S1 at i reads t(i + 1), which S0 writes only at iteration i + 1.
    let c = comp(
        "computation lead(N) {
            in real x[N]; temp real t[N]; out real y[N];
            S0: t(i) = x(i) * 2.0
                domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
            S1: y(i) = t(i + 1) + 1.0
                domain {[i] : 0 <= i < N - 1} schedule {[i] -> [1, i, 0]};
        }",
    );
    assert_eq!(
        illegal(fuse(&c, "S0", "S1", 1, &env())),
        refused("S0", "S1", "t", "flow")
    );
}

#[test]
fn fuse_refuses_to_split_a_reduction_from_its_use() {
    // S1 needs the whole sum S0 computes.
    let c = comp(
        "computation center(N) {
            in real x[N]; temp real s; out real y[N];
            S0: s += x(i)
                domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
            S1: y(i) = x(i) - s
                domain {[i] : 0 <= i < N} schedule {[i] -> [1, i, 0]};
        }",
    );
    assert_eq!(
        illegal(fuse(&c, "S0", "S1", 1, &env())),
        refused("S0", "S1", "s", "flow")
    );
}

#[test]
fn fuse_refuses_to_overtake_a_reader_of_the_consumers_output() {
    // In PRODUCER_CONSUMER with S2 reading y: S2 (in S0's loop) reads y(i)
    // before S1 writes it; fused, S1 would write it first.
    let text = PRODUCER_CONSUMER.replace("z(i) = x(i) - 1.0", "z(i) = y(i) - 1.0");
    let c = comp(&text);
    assert_eq!(
        illegal(fuse(&c, "S0", "S1", 1, &env())),
        refused("S2", "S1", "y", "anti")
    );
}

#[test]
fn fuse_a_statement_whose_schedule_ends_with_its_loop() {
    // S1's time tuple [1, i] has no position after its loop.
    let c = comp(&PRODUCER_CONSUMER.replace("{[i] -> [1, i, 0]}", "{[i] -> [1, i]}"));
    assert_eq!(shape(&scanned(&c)), "for i { S0 S2 } for i { S1 }");
    let f = fuse(&c, "S0", "S1", 1, &env()).expect("legal");
    assert_eq!(shape(&scanned(&f)), "for i { S0 S1 S2 }");
    assert_equivalent(&c, &f, &memories(&c, SIZES, 12));
}

#[test]
fn fuse_reports_missing_loops_and_statements() {
    let c = comp(PRODUCER_CONSUMER);
    assert!(matches!(
        fuse(&c, "S0", "S1", 2, &env()),
        Err(TransformError::Fusion { level: 2, .. })
    ));
    assert!(matches!(
        fuse(&c, "S0", "S0", 1, &env()),
        Err(TransformError::Fusion { .. })
    ));
    assert!(matches!(
        fuse(&c, "S0", "S9", 1, &env()),
        Err(TransformError::UnknownStatement(s)) if s == "S9"
    ));
}

// ---------------------------------------------------------------------------
// Rescheduling

const THREE_LOOPS: &str = "
computation three(N) {
    in   real x[N];
    temp real a[N];
    out  real b[N];
    out  real c[N];

    S0: a(i) = x(i) + 1.0
        domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
    S1: b(i) = a(i) * 2.0
        domain {[i] : 0 <= i < N} schedule {[i] -> [1, i, 0]};
    S2: c(i) = x(i) * x(i)
        domain {[i] : 0 <= i < N} schedule {[i] -> [2, i, 0]};
}";

#[test]
fn reschedule_an_independent_statement_earlier() {
    let c = comp(THREE_LOOPS);
    let mems = memories(&c, SIZES, 5);
    let r = reschedule(&c, "S2", "S0", &env()).expect("legal");
    assert_eq!(
        shape(&scanned(&r)),
        "for i { S2 } for i { S0 } for i { S1 }"
    );
    assert_equivalent(&c, &r, &mems);
    let r = reschedule(&c, "S2", "S1", &env()).expect("legal");
    assert_eq!(
        shape(&scanned(&r)),
        "for i { S0 } for i { S2 } for i { S1 }"
    );
    assert_equivalent(&c, &r, &mems);
    // Then fused back into S0's loop.
    let f = fuse(&r, "S0", "S2", 1, &env()).expect("legal");
    assert_eq!(shape(&scanned(&f)), "for i { S0 S2 } for i { S1 }");
    assert_equivalent(&c, &f, &mems);
}

#[test]
fn reschedule_refuses_a_consumer_before_its_producer() {
    let c = comp(THREE_LOOPS);
    assert_eq!(
        illegal(reschedule(&c, "S1", "S0", &env())),
        refused("S0", "S1", "a", "flow")
    );
}

#[test]
fn reschedule_refuses_reversing_anti_and_output_dependences() {
    let c = comp(
        "computation war(N) {
            in real x[N]; inout real a[N]; out real b[N];
            S0: b(i) = a(i) * 2.0
                domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
            S1: a(i) = x(i)
                domain {[i] : 0 <= i < N} schedule {[i] -> [1, i, 0]};
        }",
    );
    assert_eq!(
        illegal(reschedule(&c, "S1", "S0", &env())),
        refused("S0", "S1", "a", "anti")
    );
    let c = comp(
        "computation waw(N) {
            in real x[N]; out real a[N];
            S0: a(i) = x(i)
                domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
            S1: a(2i) = 0.5
                domain {[i] : 0 <= 2i < N} schedule {[i] -> [1, i, 0]};
        }",
    );
    assert_eq!(
        illegal(reschedule(&c, "S1", "S0", &env())),
        refused("S0", "S1", "a", "output")
    );
}

#[test]
fn reschedule_refuses_using_an_index_array_before_it_is_written() {
    // S1 reads p only as an index array (a UF inside x's index).
    let c = comp(
        "computation gather(N) {
            in real x[N]; temp int p[N]; out real y[N];
            S0: p(i) = N - 1 - i
                domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
            S1: y(i) = x(p(i))
                domain {[i] : 0 <= i < N} schedule {[i] -> [1, i, 0]};
        }",
    );
    let mems = memories(&c, SIZES, 6);
    let x = mems[4].real("x").unwrap();
    let reversed: Vec<f64> = x.iter().rev().copied().collect();
    assert_eq!(reals(&outputs(&c, &mems[4]), "y"), reversed);
    assert_eq!(
        illegal(reschedule(&c, "S1", "S0", &env())),
        refused("S0", "S1", "p", "flow")
    );
    // Fusing is legal: S1 (i) reads p(i) right after S0 (i) writes it ...
    let f = fuse(&c, "S0", "S1", 1, &env()).expect("legal");
    assert_equivalent(&c, &f, &mems);
    // ... but not when it reads an element a later iteration writes.
    let c = comp(
        "computation gather(N) {
            in real x[N]; temp int p[N]; out real y[N];
            S0: p(i) = N - 1 - i
                domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
            S1: y(i) = x(p(N - 1 - i))
                domain {[i] : 0 <= i < N} schedule {[i] -> [1, i, 0]};
        }",
    );
    assert_eq!(
        illegal(fuse(&c, "S0", "S1", 1, &env())),
        refused("S0", "S1", "p", "flow")
    );
}

#[test]
fn reschedule_refuses_using_a_loop_bound_before_it_is_written() {
    // S1 reads bnd only in its domain (the bounds of its k loop).
    let c = comp(
        "computation bounds(N) {
            in real x[N]; temp int bnd[N + 1]; out real y[N];
            S0: bnd(i) = i
                domain {[i] : 0 <= i <= N} schedule {[i] -> [0, i, 0]};
            S1: y(i) += x(k)
                domain {[i, k] : 0 <= i < N && bnd(i) <= k < bnd(i + 1)}
                schedule {[i, k] -> [1, i, 0, k, 0]};
        }",
    );
    assert_eq!(
        illegal(reschedule(&c, "S1", "S0", &env())),
        refused("S0", "S1", "bnd", "flow")
    );
}

#[test]
fn reschedule_needs_top_level_positions() {
    // S1's outermost time dimension is a loop: it has no position to move.
    let c = comp(&THREE_LOOPS.replace("{[i] -> [1, i, 0]}", "{[i] -> [i, 1, 0]}"));
    for (s1, s2) in [("S1", "S0"), ("S0", "S1")] {
        match reschedule(&c, s1, s2, &env()) {
            Err(TransformError::Fusion { reason, .. }) => {
                assert!(reason.contains("S1 has no top-level position"), "{reason}")
            }
            r => panic!("expected an error, got {r:?}"),
        }
    }
    assert!(matches!(
        reschedule(&c, "S7", "S0", &env()),
        Err(TransformError::UnknownStatement(s)) if s == "S7"
    ));
}

#[test]
fn check_legal_compares_old_and_new_orders() {
    let c = comp(THREE_LOOPS);
    check_legal(&c, &c, &env()).expect("the same order is legal");
    // Swapping the top-level positions of S0 and S1 by hand.
    let mut swapped = c.clone();
    swapped.stmts[0].schedule = c.stmts[1].schedule.clone();
    swapped.stmts[1].schedule = c.stmts[0].schedule.clone();
    assert!(matches!(
        check_legal(&c, &swapped, &env()),
        Err(TransformError::Illegal { earlier, later, .. }) if earlier == "S0" && later == "S1"
    ));
    // Moving S2, which shares no data with S0 and S1, before both.
    let mut late = c.clone();
    late.stmts[2].schedule = "{[i] -> [-1, i, 0]}".parse().unwrap();
    check_legal(&c, &late, &env()).expect("S2 is independent");
}

// ---------------------------------------------------------------------------
// Dead statements

const WITH_DEAD_CODE: &str = "
computation dead(N) {
    in    real x[N];
    inout real w[N];
    out   real y[N];
    out   real z[N];
    temp  real t[N];
    temp  real u[N];
    temp  real v[N];
    temp  int  p[N];
    temp  int  bnd[N + 1];

    # dead: only S1 reads t
    S0: t(i) = x(i) * 3.0
        domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
    # dead: nobody reads u
    S1: u(i) = t(i) + 1.0
        domain {[i] : 0 <= i < N} schedule {[i] -> [1, i, 0]};
    # live: feeds S3
    S2: v(i) = x(i) * x(i)
        domain {[i] : 0 <= i < N} schedule {[i] -> [2, i, 0]};
    # live: writes an out space
    S3: y(i) = v(i) - 1.0
        domain {[i] : 0 <= i < N} schedule {[i] -> [3, i, 0]};
    # live: p is an index array of S5
    S4: p(i) = N - 1 - i
        domain {[i] : 0 <= i < N} schedule {[i] -> [4, i, 0]};
    S5: z(i) = x(p(i))
        domain {[i] : 0 <= i < N} schedule {[i] -> [5, i, 0]};
    # live: bnd bounds the k loop of S7
    S6: bnd(i) = i
        domain {[i] : 0 <= i <= N} schedule {[i] -> [6, i, 0]};
    S7: w(i) += x(k)
        domain {[i, k] : 0 <= i < N && bnd(i) <= k < bnd(i + 1)}
        schedule {[i, k] -> [7, i, 0, k, 0]};
    # kept, though nothing reads v after it: liveness is per data space,
    # not per element and time
    S8: v(i) = 0.0
        domain {[i] : 0 <= i < N} schedule {[i] -> [8, i, 0]};
}";

#[test]
fn eliminate_dead_statements_keeps_what_feeds_the_outputs() {
    let c = comp(WITH_DEAD_CODE);
    let d = eliminate_dead_statements(&c);
    assert_eq!(names(&d), ["S2", "S3", "S4", "S5", "S6", "S7", "S8"]);
    let spaces: Vec<&str> = d.spaces.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(spaces, ["x", "w", "y", "z", "v", "p", "bnd"]);
    assert_eq!(
        shape(&scanned(&d)),
        "for i { S2 } for i { S3 } for i { S4 } for i { S5 } for i { S6 } \
         for i { for k { S7 } } for i { S8 }"
    );
    let mems = memories(&c, SIZES, 7);
    assert_equivalent(&c, &d, &mems);
    // What it computes: y = x² - 1, z = reversed x, w += x.
    let m = &mems[4];
    let x = m.real("x").unwrap();
    let out = outputs(&d, m);
    let y: Vec<f64> = x.iter().map(|v| v * v - 1.0).collect();
    let z: Vec<f64> = x.iter().rev().copied().collect();
    let w: Vec<f64> = m
        .real("w")
        .unwrap()
        .iter()
        .zip(x)
        .map(|(a, b)| a + b)
        .collect();
    assert_eq!(reals(&out, "y"), y);
    assert_eq!(reals(&out, "z"), z);
    assert_eq!(reals(&out, "w"), w);
    // Nothing is left to remove.
    assert_eq!(eliminate_dead_statements(&d), d);
}

#[test]
fn eliminate_dead_statements_removes_everything_unused() {
    // Nothing live-out is written: every statement and temporary goes.
    let c = comp(
        "computation idle(N) {
            in real x[N]; out real y[N]; temp real t[N]; temp real s;
            S0: t(i) = x(i)
                domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
            S1: s += t(i)
                domain {[i] : 0 <= i < N} schedule {[i] -> [1, i, 0]};
        }",
    );
    let d = eliminate_dead_statements(&c);
    assert!(d.stmts.is_empty());
    let spaces: Vec<&str> = d.spaces.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(spaces, ["x", "y"]);
    let mem = memories(&c, &[5], 8).pop().unwrap();
    assert_outputs("idle", &outputs(&d, &mem), &outputs(&c, &mem));
}

#[test]
fn eliminate_dead_statements_keeps_runtime_calls() {
    let c = comp(
        "computation calls(N) {
            in real x[N]; temp real t[N];
            object P : OrderedSet(1, morton);
            S0: t(i) = x(i)
                domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
            S1: P.insert(i)
                domain {[i] : 0 <= i < N} schedule {[i] -> [1, i, 0]};
        }",
    );
    let d = eliminate_dead_statements(&c);
    assert_eq!(names(&d), ["S1"]);
    assert_eq!(d.objects, c.objects);
}

// ---------------------------------------------------------------------------
// Inlining

/// `y = a * s` for a vector `a` and a scalar `s`.
const SCALE: &str = "
computation scale(N) {
    in  real a[N];
    in  real s;
    out real y[N];
    S0: y(i) = a(i) * s
        domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
}";

/// `B(R, :) += A(R, :) * s(R)`: one row, chosen by the symbol `R`.
const ROW_AXPY: &str = "
computation row_axpy(R, M, NR) {
    in    real A[NR, M];
    in    real s[NR];
    inout real B[NR, M];
    temp  real t[M];
    S0: t(j) = A(R, j) * s(R)
        domain {[j] : 0 <= j < M} schedule {[j] -> [0, j, 0]};
    S1: B(R, j) += t(j)
        domain {[j] : 0 <= j < M} schedule {[j] -> [1, j, 0]};
}";

/// A dense dot product into a scalar.
const DOT: &str = "
computation dot(N) {
    in    real a[N];
    in    real b[N];
    inout real r;
    S0: r += a(i) * b(i)
        domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
}";

fn top_level() -> Set {
    "{[]}".parse().expect("the empty tuple")
}

fn bind(pairs: &[(&str, Binding)]) -> HashMap<String, Binding> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

fn space(name: &str) -> Binding {
    Binding::Space(name.into())
}

fn symbol(name: &str) -> Binding {
    Binding::Symbol(Expr::sym(name))
}

fn scale_site() -> CallSite {
    CallSite {
        context: top_level(),
        prefix: vec![ScheduleDim::Const(1)],
        bindings: bind(&[
            ("N", symbol("M")),
            ("a", space("w")),
            ("s", space("alpha")),
            ("y", space("r")),
        ]),
        prefix_name: "scale_".into(),
    }
}

/// The caller of `scale` at the top level: w = x + 1, [r = w * alpha], z = 2r.
const SCALE_CALLER: &str = "
computation caller(M) {
    in   real x[M];
    in   real alpha;
    temp real w[M];
    out  real r[M];
    out  real z[M];
    S0: w(i) = x(i) + 1.0
        domain {[i] : 0 <= i < M} schedule {[i] -> [0, i, 0]};
    S1: z(i) = r(i) * 2.0
        domain {[i] : 0 <= i < M} schedule {[i] -> [2, i, 0]};
}";

#[test]
fn inline_at_the_top_level() {
    let caller = comp(SCALE_CALLER);
    let callee = comp(SCALE);
    let c = inline(&caller, &callee, &scale_site()).expect("inline");
    assert_eq!(names(&c), ["S0", "S1", "scale_S0"]);
    assert_eq!(c.spaces, caller.spaces, "no temporaries to add");
    assert_eq!(
        shape(&scanned(&c)),
        "for i { S0 } for i { scale_S0 } for i { S1 }"
    );
    // The caller with the callee's statement written in by hand.
    let by_hand = comp(&SCALE_CALLER.replace(
        "    S1:",
        "    T0: r(i) = w(i) * alpha
        domain {[i] : 0 <= i < M} schedule {[i] -> [1, i, 0]};
    S1:",
    ));
    let mut rng = Rng(9);
    let mems: Vec<Memory> = [0, 1, 2, 9]
        .iter()
        .map(|&m| memory(&caller, &[("M", m)], &mut rng))
        .collect();
    assert_equivalent(&by_hand, &c, &mems);
    let m = &mems[3];
    let (x, alpha) = (m.real("x").unwrap(), m.real("alpha").unwrap()[0]);
    let out = outputs(&c, m);
    let r: Vec<f64> = x.iter().map(|v| (v + 1.0) * alpha).collect();
    let z: Vec<f64> = r.iter().map(|v| v * 2.0).collect();
    assert_eq!(reals(&out, "r"), r);
    assert_eq!(reals(&out, "z"), z);
    // The result prints and parses back.
    assert_eq!(parse_computation(&c.to_string()).unwrap(), c);
}

#[test]
fn inline_a_dot_product_with_an_offset_size() {
    // r = Σ_{i < K - 1} x(i) y(i) with the callee's N bound to K - 1.
    let caller = comp(
        "computation caller(K) {
            in real x[K]; in real y[K]; inout real r;
            S0: r *= 0.5
                domain {[] : K >= 0} schedule {[] -> [0]};
        }",
    );
    let site = CallSite {
        context: top_level(),
        prefix: vec![ScheduleDim::Const(1)],
        bindings: bind(&[
            (
                "N",
                Binding::Symbol(Expr::sym("K").plus(&Expr::constant(-1))),
            ),
            ("a", space("x")),
            ("b", space("y")),
            ("r", space("r")),
        ]),
        prefix_name: "dot_".into(),
    };
    let c = inline(&caller, &comp(DOT), &site).expect("inline");
    let mut rng = Rng(10);
    for k in [0, 1, 2, 8] {
        let mem = memory(&caller, &[("K", k)], &mut rng);
        let (x, y, r0) = (
            mem.real("x").unwrap(),
            mem.real("y").unwrap(),
            mem.real("r").unwrap()[0],
        );
        let mut want = r0 * 0.5;
        for i in 0..(k - 1).max(0) as usize {
            want += x[i] * y[i];
        }
        assert_same(
            &format!("K = {k}"),
            "r",
            &outputs(&c, &mem)["r"],
            &Array::Real(vec![want].into()),
        );
    }
}

/// The caller of `row_axpy` inside its i loop: s = x², [row i of B += A s],
/// tot(i) = Σ_j B(i, j).
const ROW_CALLER: &str = "
computation caller(N, M) {
    in    real A[N, M];
    in    real x[N];
    temp  real s[N];
    inout real B[N, M];
    out   real tot[N];
    S0: s(i) = x(i) * x(i)
        domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
    S1: tot(i) += B(i, j)
        domain {[i, j] : 0 <= i < N && 0 <= j < M} schedule {[i, j] -> [0, i, 2, j, 0]};
}";

fn row_site() -> CallSite {
    CallSite {
        context: "{[i] : 0 <= i < N}".parse().unwrap(),
        prefix: vec![
            ScheduleDim::Const(0),
            ScheduleDim::Iter(0),
            ScheduleDim::Const(1),
        ],
        bindings: bind(&[
            ("R", Binding::Symbol(Expr::var(Var::Tuple(0)))),
            ("M", symbol("M")),
            ("NR", symbol("N")),
            ("A", space("A")),
            ("s", space("s")),
            ("B", space("B")),
        ]),
        prefix_name: "row_".into(),
    }
}

#[test]
fn inline_inside_a_caller_loop() {
    let caller = comp(ROW_CALLER);
    let c = inline(&caller, &comp(ROW_AXPY), &row_site()).expect("inline");
    assert_eq!(names(&c), ["S0", "S1", "row_S0", "row_S1"]);
    let t = c.space("row_t").expect("the callee's temporary, renamed");
    assert_eq!(t.extents, vec![Expr::sym("M")]);
    assert_eq!(
        shape(&scanned(&c)),
        "for i { S0 for j { row_S0 } for j { row_S1 } for j { S1 } }"
    );
    // By hand: the callee's statements over [i, j] in the i loop.
    let by_hand = comp(&ROW_CALLER.replace(
        "    S1:",
        "    temp real t[M];
    T0: t(j) = A(i, j) * s(i)
        domain {[i, j] : 0 <= i < N && 0 <= j < M} schedule {[i, j] -> [0, i, 1, 0, j, 0]};
    T1: B(i, j) += t(j)
        domain {[i, j] : 0 <= i < N && 0 <= j < M} schedule {[i, j] -> [0, i, 1, 1, j, 0]};
    S1:",
    ));
    let mut rng = Rng(11);
    let mems: Vec<Memory> = [(0, 2), (2, 0), (1, 1), (3, 4), (8, 5)]
        .iter()
        .map(|&(n, m)| memory(&caller, &[("N", n), ("M", m)], &mut rng))
        .collect();
    assert_equivalent(&by_hand, &c, &mems);
    // The reference: B(i, j) += A(i, j) x(i)², tot(i) = Σ_j B(i, j).
    let mem = &mems[4];
    let (n, m) = (8, 5);
    let (a, x) = (mem.real("A").unwrap(), mem.real("x").unwrap());
    let mut b = mem.real("B").unwrap().to_vec();
    let mut tot = vec![0.0; n];
    for i in 0..n {
        for j in 0..m {
            b[i * m + j] += a[i * m + j] * (x[i] * x[i]);
            tot[i] += b[i * m + j];
        }
    }
    let out = outputs(&c, mem);
    assert_same("inlined", "B", &out["B"], &Array::Real(b.into()));
    assert_same("inlined", "tot", &out["tot"], &Array::Real(tot.into()));
}

#[test]
fn inline_a_callee_whose_iterator_is_named_like_the_context() {
    // The callee's loop is over `i`, like the caller's loop around the call.
    let callee = comp(&ROW_AXPY.replace('j', "i"));
    assert_eq!(callee.stmts[0].iterators(), ["i"]);
    let caller = comp(ROW_CALLER);
    let c = inline(&caller, &callee, &row_site()).expect("inline");
    let expected = inline(&caller, &comp(ROW_AXPY), &row_site()).unwrap();
    assert_eq!(c, expected, "tuple names do not matter");
    let p = scanned(&c);
    assert_eq!(
        shape(&p),
        "for i { S0 for i_ { row_S0 } for i_ { row_S1 } for j { S1 } }"
    );
    assert_eq!(parse_computation(&c.to_string()).unwrap(), c, "{c}");
    let mut rng = Rng(13);
    let mems: Vec<Memory> = [(1, 1), (4, 3)]
        .iter()
        .map(|&(n, m)| memory(&caller, &[("N", n), ("M", m)], &mut rng))
        .collect();
    assert_equivalent(&expected, &c, &mems);
}

#[test]
fn inline_renames_index_arrays_in_domains() {
    // The callee's rowptr and col are the caller's rp and ci: in the
    // domain (loop bounds, j = col(k)) as well as in the body.
    let path = format!("{}/../examples/spmv_csr.comp", env!("CARGO_MANIFEST_DIR"));
    let spmv = comp(&std::fs::read_to_string(path).unwrap());
    let caller = comp(
        "computation twice(N, NC, NNZ) {
            in int rp[N + 1]; in int ci[NNZ]; in real vals[NNZ]; in real v[NC];
            temp real w[N]; out real r[N];
            S0: r(i) = w(i) * 2.0
                domain {[i] : 0 <= i < N} schedule {[i] -> [1, i, 0]};
        }",
    );
    let site = CallSite {
        context: top_level(),
        prefix: vec![ScheduleDim::Const(0)],
        bindings: bind(&[
            ("N", symbol("N")),
            ("NC", symbol("NC")),
            ("NNZ", symbol("NNZ")),
            ("rowptr", space("rp")),
            ("col", space("ci")),
            ("A", space("vals")),
            ("x", space("v")),
            ("y", space("w")),
        ]),
        prefix_name: "mv_".into(),
    };
    let c = inline(&caller, &spmv, &site).expect("inline");
    let text = c.to_string();
    assert!(!text.contains("rowptr") && !text.contains("col("), "{text}");
    assert_eq!(
        shape(&scanned(&c)),
        "for i { for k { let j { mv_S0 } } } for i { S0 }"
    );
    // rp = [0, 2, 2, 3], ci = [0, 2, 1]: a 3 × 3 matrix with an empty row.
    let mem = Memory::new()
        .with_symbol("N", 3)
        .with_symbol("NC", 3)
        .with_symbol("NNZ", 3)
        .with_array("rp", Array::Int(vec![0, 2, 2, 3].into()))
        .with_array("ci", Array::Int(vec![0, 2, 1].into()))
        .with_array("vals", Array::Real(vec![1.0, 2.0, 3.0].into()))
        .with_array("v", Array::Real(vec![0.5, 0.25, 0.125].into()))
        .with_array("r", Array::Real(vec![0.0; 3].into()));
    let out = outputs(&c, &mem);
    assert_eq!(reals(&out, "r"), [2.0 * (0.5 + 0.25), 0.0, 2.0 * 0.75]);

    // A callee whose temporary's extent reads an index array.
    let two_phase = comp(
        "computation spmv2(N, NC, NNZ) {
            in int rowptr[N + 1]; in int col[NNZ]; in real A[NNZ]; in real x[NC];
            out real y[N]; temp real prod[rowptr(N)];
            S0: prod(k) = A(k) * x(col(k))
                domain {[k] : 0 <= k < rowptr(N)} schedule {[k] -> [0, k, 0]};
            S1: y(i) += prod(k)
                domain {[i, k] : 0 <= i < N && rowptr(i) <= k < rowptr(i + 1)}
                schedule {[i, k] -> [1, i, 0, k, 0]};
        }",
    );
    let c = inline(&caller, &two_phase, &site).expect("inline");
    assert_eq!(
        c.space("mv_prod").unwrap().extents,
        vec![Expr::call("rp", vec![Expr::sym("N")])]
    );
    let text = c.to_string();
    assert!(!text.contains("rowptr") && !text.contains("col("), "{text}");
    let out = outputs(&c, &mem);
    assert_eq!(reals(&out, "r"), [2.0 * (0.5 + 0.25), 0.0, 2.0 * 0.75]);
}

#[test]
fn inline_reports_unbound_names_and_clashes() {
    let caller = comp(SCALE_CALLER);
    let callee = comp(SCALE);
    let with = |f: &dyn Fn(&mut CallSite)| {
        let mut site = scale_site();
        f(&mut site);
        match inline(&caller, &callee, &site) {
            Err(TransformError::Inline { callee, reason }) => {
                assert_eq!(callee, "scale");
                reason
            }
            Err(e) => panic!("expected Inline, got {e}"),
            Ok(c) => panic!("expected an error, got\n{c}"),
        }
    };
    let reason = with(&|s| {
        s.bindings.remove("N");
    });
    assert!(reason.contains("symbol `N`"), "{reason}");
    let reason = with(&|s| {
        s.bindings.insert("N".into(), space("x"));
    });
    assert!(reason.contains("symbol `N`"), "{reason}");
    let reason = with(&|s| {
        s.bindings.remove("a");
    });
    assert!(reason.contains("data space `a`"), "{reason}");
    let reason = with(&|s| {
        s.bindings.insert("s".into(), symbol("M"));
    });
    assert!(reason.contains("data space `s`"), "{reason}");
    let reason = with(&|s| {
        s.bindings.insert("a".into(), space("nowhere"));
    });
    assert!(reason.contains("nowhere"), "{reason}");
    // A scalar bound to an array.
    let reason = with(&|s| {
        s.bindings.insert("a".into(), space("alpha"));
    });
    assert!(reason.contains("dimensions"), "{reason}");
    // Writing the caller's input.
    let reason = with(&|s| {
        s.bindings.insert("y".into(), space("x"));
    });
    assert!(reason.contains("`x`"), "{reason}");
    // A statement name the caller has.
    let reason = with(&|s| s.prefix_name = String::new());
    assert!(reason.contains("statement `S0`"), "{reason}");
    // A context that is not one conjunction.
    let reason = with(&|s| {
        s.context = "{[i] : i = 0 or i = 2}".parse().unwrap();
    });
    assert!(reason.contains("one conjunction"), "{reason}");

    // A temporary whose new name is a data space or a symbol of the caller.
    let caller = comp(&ROW_CALLER.replace("caller(N, M)", "caller(N, M, row_t)"));
    match inline(&caller, &comp(ROW_AXPY), &row_site()) {
        Err(TransformError::Inline { reason, .. }) => {
            assert!(reason.contains("`row_t`"), "{reason}")
        }
        r => panic!("expected Inline, got {r:?}"),
    }
    let caller = comp(
        ROW_CALLER
            .replace("temp  real s[N];", "temp  real s[N];\n temp real row_t[M];")
            .as_str(),
    );
    match inline(&caller, &comp(ROW_AXPY), &row_site()) {
        Err(TransformError::Inline { reason, .. }) => {
            assert!(reason.contains("`row_t`"), "{reason}")
        }
        r => panic!("expected Inline, got {r:?}"),
    }
    // An element type that differs.
    let caller = comp(&ROW_CALLER.replace("temp  real s[N]", "temp  int s[N]"));
    match inline(&caller, &comp(ROW_AXPY), &row_site()) {
        Err(TransformError::Inline { reason, .. }) => {
            assert!(reason.contains("element type"), "{reason}")
        }
        r => panic!("expected Inline, got {r:?}"),
    }
}
