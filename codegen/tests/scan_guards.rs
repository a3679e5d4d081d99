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
