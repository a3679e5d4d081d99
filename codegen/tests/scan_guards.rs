//! Guards the enclosing loops imply are removed: syntactically, and with z3
//! under the UF environment where syntax is not enough.

use codegen::ast::Node;
use codegen::scan;
use iegen::calc::Calculator;
use iegen::computation::parse_computation;
use iegen::UfEnvironment;

const PROGRAM: &str = "computation g(N, NC) {
    in  int col[N];
    out real y[NC];
    S0: y(j) += 1 domain {[k, j] : 0 <= k < N && j = col(k) && 0 <= j < NC}
        schedule {[k, j] -> [0, k, 0, j, 0]};
}";

fn count_ifs(nodes: &[Node]) -> usize {
    nodes
        .iter()
        .map(|n| match n {
            Node::If { body, .. } => 1 + count_ifs(body),
            Node::For { body, .. } | Node::Let { body, .. } => count_ifs(body),
            Node::Stmt { .. } => 0,
        })
        .sum()
}

#[test]
fn range_fact_removes_the_bounds_check() {
    let comp = parse_computation(PROGRAM).expect("parses");
    // Without facts about `col`, `0 <= j < NC` must be checked.
    let plain = scan(&comp, &UfEnvironment::new()).expect("scans");
    assert_eq!(count_ifs(&plain.body), 1, "{:#?}", plain.body);
    // With col's range declared, z3 proves the guard redundant.
    let mut calc = Calculator::new();
    calc.run(
        "uf col : {[x] : 0 <= x < N} -> {[y] : 0 <= y < NC};",
        &mut |_| {},
    )
    .expect("declaration");
    let informed = scan(&comp, calc.env()).expect("scans");
    assert_eq!(count_ifs(&informed.body), 0, "{:#?}", informed.body);
}

#[test]
fn syntactically_implied_guard_is_removed() {
    let comp = parse_computation(
        "computation h(N) {
            out real y[N];
            S0: y(i) = 1 domain {[i] : 0 <= i < N && i <= N + 3 && i >= -2}
                schedule {[i] -> [0, i, 0]};
        }",
    )
    .expect("parses");
    let program = scan(&comp, &UfEnvironment::new()).expect("scans");
    assert_eq!(count_ifs(&program.body), 0, "{:#?}", program.body);
}

/// Bounds are tested before the index-array read they protect: with
/// `a = N + 2` out of `g`'s range, `g(a)` must never be read (found by the
/// random trace test).
#[test]
fn affine_guards_come_before_index_array_reads() {
    let comp = parse_computation(
        "computation r(N) {
            in int g[6];
            out int count;
            S0: count += 1
                domain {[a, b, c] : 0 <= a < 4 && a > N + 1 && a <= N + 2 && 0 <= b < 4 && b = g(a) && 0 <= c < 4}
                schedule {[a, b, c] -> [0, b, 0, a, 0, c, 0]};
        }",
    )
    .expect("parses");
    let program = scan(&comp, &UfEnvironment::new()).expect("scans");
    let c = codegen::c::emit_c(&program).expect("emits");
    assert!(c.contains("if (a <= 3 && 0 <= a && g[a] == b)"), "{c}");
    for (n, expected) in [(4, 0), (0, 4), (1, 0)] {
        // N = 0: a = 2, g(2) = 0 = b, four values of c.
        let mut memory = codegen::interp::Memory::new()
            .with_symbol("N", n)
            .with_array(
                "g",
                codegen::interp::Array::Int(vec![0, 0, 0, 5, 0, 0].into()),
            )
            .with_array("count", codegen::interp::Array::Int(vec![0].into()));
        codegen::interp::run(&program, &mut memory, None).expect("no out-of-bounds read");
        assert_eq!(memory.int("count"), Some(&[expected][..]), "N = {n}");
    }
}

/// A statement left alone in a shared loop tests its own guards before its
/// next loop's bounds read index arrays (found by the random trace test).
#[test]
fn guards_precede_the_next_loops_index_array_bounds() {
    let comp = parse_computation(
        "computation r(N) {
            in int f[6];
            out int count;
            S0: count += 1
                domain {[a, b, c] : 0 <= a < 4 && a > N && a <= N + 1 && 0 <= b < 4 && f(a) <= b < f(a + 1) && 0 <= c < 4}
                schedule {[a, b, c] -> [1, a, 0, b, 0, c, 0]};
            S1: count += 10 domain {[a] : 0 <= a < 4} schedule {[a] -> [1, a, 0]};
        }",
    )
    .expect("parses");
    let program = scan(&comp, &UfEnvironment::new()).expect("scans");
    for n in 0..=4 {
        let mut memory = codegen::interp::Memory::new()
            .with_symbol("N", n)
            .with_array(
                "f",
                codegen::interp::Array::Int(vec![0, 1, 2, 3, 4, 4].into()),
            )
            .with_array("count", codegen::interp::Array::Int(vec![0].into()));
        codegen::interp::run(&program, &mut memory, None).expect("no out-of-bounds read");
        // S1 runs 4 times; S0 once per c (4) when a = N + 1 < 4 and row a is non-empty.
        let s0 = if n + 1 < 4 { 4 } else { 0 };
        assert_eq!(memory.int("count"), Some(&[40 + s0][..]), "N = {n}");
    }
}

/// In a loop over the hull of several statements' ranges, a statement whose
/// bound is the hull's own needs no guard for it.
#[test]
fn hull_bounds_guard_only_the_statements_that_need_it() {
    let comp = parse_computation(
        "computation h(N) {
            in real x[N];
            out real y[N];
            S0: y(i) = x(i) domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
            S1: y(i) += y(i - 1) domain {[i] : 1 <= i < N} schedule {[i] -> [0, i, 1]};
        }",
    )
    .expect("parses");
    let program = scan(&comp, &UfEnvironment::new()).expect("scans");
    // One loop 0..N: S0 unguarded, S1 under `1 <= i` only.
    assert_eq!(count_ifs(&program.body), 1, "{:#?}", program.body);
    let c = codegen::c::emit_c(&program).expect("emits");
    assert!(c.contains("if (1 <= i) {"), "{c}");
    assert!(
        !c.contains("i + 1 <= N"),
        "the shared upper bound is the loop's: {c}"
    );
}
