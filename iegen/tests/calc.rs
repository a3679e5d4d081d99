//! The calculator language end to end: the documented examples, UF facts,
//! and located errors.

use iegen::calc::Calculator;

/// Runs a program and returns its printed lines, or the error as `LINE:COL: message`.
fn run(src: &str) -> Result<Vec<String>, String> {
    let mut lines = Vec::new();
    Calculator::new()
        .run(src, &mut |l| lines.push(l))
        .map(|()| lines)
        .map_err(|e| e.to_string())
}

fn run_ok(src: &str) -> Vec<String> {
    run(src).unwrap_or_else(|e| panic!("program failed: {e}\n{src}"))
}

const CSR_ENV: &str = "
uf rowptr : {[x] : 0 <= x <= NR} -> {[y] : 0 <= y <= NNZ} nondecreasing;
uf col : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < NC};
";

#[test]
fn compose_example_of_the_issue() {
    let out = run_ok(
        "R1 := {[v,s] -> [w,t] : w = v + 2 && t = f(s)};
         R2 := {[x,z,r] -> [y,i] : y = x + z - r - 7 && i = r + 2};
         is_equal(compose(R1, R2), {[x,z,r] -> [w,t] : w = x + z - r - 5 && t = f(r + 2)});
         compose(R1, R2);",
    );
    assert_eq!(
        out,
        [
            "true",
            "{[x, z, r] -> [w, t] : w = x + z - r - 5 && t = f(r + 2)}"
        ]
    );
}

#[test]
fn csr_examples_of_the_issue() {
    let program = format!(
        "{CSR_ENV}
        CSR := {{[i,k,j] -> [i2,j2] : i2 = i && j2 = j && 0 <= i < NR && rowptr(i) <= k < rowptr(i+1) && j = col(k)}};
        is_equal(domain(CSR), {{[i,k,j] : 0 <= i < NR && rowptr(i) <= k < rowptr(i+1) && j = col(k)}});
        is_empty({{[i,k] : 0 <= i < NR && rowptr(i) <= k < rowptr(i+1) && k >= NNZ}});"
    );
    assert_eq!(run_ok(&program), ["true", "true"]);
}

#[test]
fn range_fact_is_needed_for_the_bound_on_k() {
    let out =
        run_ok("is_empty({[i,k] : 0 <= i < NR && rowptr(i) <= k < rowptr(i+1) && k >= NNZ});");
    assert_eq!(out, ["false"]);
}

#[test]
fn domain_guards_the_range_fact() {
    // rowptr(NR + 1) is outside the domain: nothing is known about it.
    let program = format!("{CSR_ENV} is_empty({{[k] : k = rowptr(NR + 1) && k > NNZ}});");
    assert_eq!(run_ok(&program), ["false"]);
    let program = format!("{CSR_ENV} is_empty({{[k] : k = rowptr(NR) && k > NNZ && NR >= 0}});");
    assert_eq!(run_ok(&program), ["true"]);
}

#[test]
fn monotonicity_is_used() {
    let with =
        format!("{CSR_ENV} is_empty({{[i, j] : 0 <= i < j <= NR && rowptr(i) > rowptr(j)}});");
    assert_eq!(run_ok(&with), ["true"]);
    let without = "uf rowptr : {[x] : 0 <= x <= NR} -> {[y] : 0 <= y <= NNZ};
        is_empty({[i, j] : 0 <= i < j <= NR && rowptr(i) > rowptr(j)});";
    assert_eq!(run_ok(without), ["false"]);
}

#[test]
fn strict_monotonicity_and_its_duals() {
    let program = "uf off : {[x] : 0 <= x < ND} -> {[y] : -N < y < N} increasing;
        uf g : {[x] : 0 <= x < ND} -> {[y] : true} decreasing;
        uf h : {[x] : 0 <= x < ND} -> {[y] : true} nonincreasing;
        is_empty({[a, b] : 0 <= a < b < ND && off(a) >= off(b)});
        is_empty({[a, b] : 0 <= a < b < ND && g(a) <= g(b)});
        is_empty({[a, b] : 0 <= a < b < ND && h(a) < h(b)});
        is_empty({[a, b] : 0 <= a < b < ND && h(a) <= h(b)});";
    assert_eq!(run_ok(program), ["true", "true", "true", "false"]);
}

#[test]
fn universally_quantified_rules_are_instantiated() {
    // DIA's offsets: strictly increasing, stated as a general rule.
    let program = "forall e1, e2 : e1 < e2 => off(e1) < off(e2);
        is_empty({[d1, d2] : d1 < d2 && off(d1) = off(d2)});
        is_empty({[d1, d2] : d1 <= d2 && off(d1) = off(d2)});";
    assert_eq!(run_ok(program), ["true", "false"]);
    let iff = "forall e1, e2 : e1 < e2 <=> off(e1) < off(e2);
        is_empty({[d1, d2] : off(d1) < off(d2) && d1 >= d2});";
    assert_eq!(run_ok(iff), ["true"]);
}

#[test]
fn functional_consistency_comes_from_z3() {
    let out = run_ok(
        "is_empty({[i, j] : i = j && f(i) < f(j)});
         is_empty({[i, j] : i < j && f(i) < f(j)});",
    );
    assert_eq!(out, ["true", "false"]);
}

#[test]
fn functional_consistency_with_nested_calls() {
    let out = run_ok(
        "is_empty({[i, j] : i = j && f(g(i) + 1) < f(g(j) + 1)});
         is_subset({[i, j] : i = j && k = f(g(i))}, {[i, j] : k = f(g(j))});",
    );
    assert_eq!(out, ["true", "true"]);
}

#[test]
fn subset_with_existentials_on_the_right() {
    let out = run_ok(
        "is_subset({[i] : 0 <= i < 10 && i = 4}, {[i] : exists k : i = 2k});
         is_subset({[i] : i = 3}, {[i] : exists k : i = 2k});
         is_equal(domain({[i] -> [j] : j = f(i) && 0 <= i < N}), {[i] : 0 <= i < N});",
    );
    assert_eq!(out, ["true", "false", "true"]);
}

#[test]
fn unions_and_intersections() {
    let out = run_ok(
        "A := {[i] : 0 <= i < 5} union {[i] : 10 <= i < 15};
         B := {[i] : 3 <= i < 12};
         intersect(A, B);
         is_equal(union(A, B), {[i] : 0 <= i < 15});
         is_subset(A, {[i] : 0 <= i < 15});
         is_empty(intersect({[i] : i < 0}, A));",
    );
    assert_eq!(
        out,
        [
            "{[i] : 3 <= i <= 4} union {[i] : 10 <= i <= 11}",
            "true",
            "true",
            "true"
        ]
    );
}

#[test]
fn project_out_by_name_and_position() {
    let out = run_ok(
        "S := {[i, j] : 0 <= i < j < N};
         project_out(S, j);
         project_out(S, 0);
         project_out({[i, k] : 0 <= k < 5 && i = f(k)}, k);",
    );
    assert_eq!(
        out,
        [
            "{[i] : i + 2 <= N && 0 <= i}",
            "{[j] : 1 <= j < N}",
            "{[i] : exists k : i = f(k) && 0 <= k <= 4}",
        ]
    );
}

#[test]
fn apply_inverse_domain_range() {
    let out = run_ok(
        "R := {[i] -> [j] : j = i + 1 && 0 <= i < N};
         apply(R, {[i] : 2 <= i < 4});
         inverse(R);
         range(R);
         domain(inverse(R));",
    );
    assert_eq!(
        out,
        [
            "{[j] : 3 <= j <= 4 && j <= N}",
            "{[j] -> [i] : i = j - 1 && 0 <= i < N}",
            "{[j] : 1 <= j <= N}",
            "{[j] : 1 <= j <= N}",
        ]
    );
}

#[test]
fn simplify_uses_the_environment() {
    let program = format!(
        "{CSR_ENV} simplify({{[k] : 0 <= k < NNZ && 0 <= col(k) && col(k) < NC && k < NNZ + 5}});"
    );
    assert_eq!(run_ok(&program), ["{[k] : 0 <= k < NNZ}"]);
    assert_eq!(
        run_ok("simplify({[i] : i < 3 && i > 5} union {[i] : i = 1});"),
        ["{[1]}"]
    );
}

#[test]
fn constants_and_repeated_names_in_tuples() {
    let out = run_ok(
        "{[0, i, 0] -> [i, i]};
         {[i, j] -> [i] : j = 2i};",
    );
    assert_eq!(out, ["{[0, i, 0] -> [i, i]}", "{[i, j] -> [i] : j = 2i}"]);
}

#[test]
fn errors_are_located_and_stop_the_run() {
    let mut lines = Vec::new();
    let err = Calculator::new()
        .run(
            "{[i] : i < 3};\nA := {[i] : i < 3};\ncompose(A, A);\n{[j]};",
            &mut |l| lines.push(l),
        )
        .unwrap_err();
    assert_eq!(
        lines,
        ["{[i] : i <= 2}"],
        "the failing statement prints nothing"
    );
    assert_eq!((err.line, err.column), (3, 9));
    assert!(
        err.message.contains("expects a relation"),
        "{}",
        err.message
    );
}

#[test]
fn error_messages_name_the_problem() {
    let cases: &[(&str, &str)] = &[
        ("q;", "1:1: `q` is not bound"),
        ("x := {[i] : i < 2*j*k};", "1:17: non-affine product"),
        ("\n  foo({[i]});", "2:3: unknown function `foo`"),
        (
            "is_equal({[i]}, {[i,j]});",
            "is_equal: arities do not match (1 vs 2)",
        ),
        (
            "{[i] : i < N} union {[i,j]};",
            "every term of a union must have one shape",
        ),
        (
            "project_out({[i,j] : i < j}, k);",
            "`k` is not a tuple variable",
        ),
        (
            "project_out({[i,j] : i < j}, 2);",
            "position 2 is out of range",
        ),
        (
            "uf f : {[x]} -> {[y,z]};",
            "the range of `f` must be a set of 1-tuples",
        ),
        (
            "uf f : {[x]} -> {[y]}; uf f : {[x]} -> {[y]};",
            "`f` is already declared",
        ),
        (
            "uf f : {[x,y]} -> {[y]} increasing;",
            "monotonicity applies to unary functions only",
        ),
        (
            "uf f : {[x]} -> {[y]}; {[i] : f(i, i) = 0};",
            "`f` is declared with 1 arguments but called with 2",
        ),
        (
            "forall a, b : a < b => a + 1 <= b;",
            "rule variable `a` is not an argument",
        ),
        (
            "A := is_empty({[i]});",
            "only sets and relations can be bound",
        ),
        (
            "inverse({[i]}, {[j]});",
            "`inverse` takes 1 argument, 2 given",
        ),
        (
            "union({[i]}, {[i] -> [j]});",
            "needs two sets or two relations",
        ),
        (
            "{[i] : exists i : i = 1};",
            "existential `i` is already bound",
        ),
    ];
    for (src, expected) in cases {
        let err = run(src).expect_err(src);
        assert!(
            err.contains(expected),
            "{src}: got `{err}`, expected `{expected}`"
        );
    }
}

/// Coefficients and constants are 64-bit: a statement whose arithmetic
/// leaves that range is an error at the statement, never a saturated (and
/// so wrong) answer; statements before it have printed, it prints nothing.
#[test]
fn arithmetic_overflow_is_an_error_not_a_wrong_answer() {
    let max = i64::MAX;
    // Constant folding past i64::MAX: was a wrong `true`.
    let err = run(&format!(
        "is_subset({{[i] : i = 1}}, {{[i] : i = 1}});\n\
         is_subset({{[i] : i = {max} + 1}}, {{[i] : i = {max}}});"
    ))
    .unwrap_err();
    assert!(err.starts_with("2:1: integer overflow"), "{err}");
    let mut printed = Vec::new();
    let _ = Calculator::new().run(
        &format!("is_empty({{[i] : i = 0 && i = 1}});\nis_subset({{[i] : i = {max} + 1}}, {{[i] : i = {max}}});"),
        &mut |l| printed.push(l),
    );
    assert_eq!(
        printed,
        ["true"],
        "the statement before prints, the failing one does not"
    );
    // A coefficient product of 2^32 · 2^32: was a wrong coefficient.
    let err = run("R := {[i] -> [j] : j = 4294967296 i};
         compose(R, R);")
    .unwrap_err();
    assert!(err.starts_with("2:10: integer overflow"), "{err}");
    // Negating the smallest constant.
    let err = run(&format!("{{[i] : i = -{max} - 1 - 1}};")).unwrap_err();
    assert!(err.contains("integer overflow"), "{err}");
    // In range, the same operations are exact.
    assert_eq!(
        run_ok(&format!(
            "is_subset({{[i] : i = {max} - 1 + 1}}, {{[i] : i = {max}}});\n\
             compose({{[i] -> [j] : j = 65536 i}}, {{[i] -> [j] : j = 65536 i}});"
        )),
        ["true", "{[i] -> [j] : j = 4294967296i}"]
    );
}

/// Nested calls of a monotone function multiply the facts a query needs
/// (one per ordered pair of calls); past `FACT_LIMIT` the statement is an
/// error naming the limit instead of minutes of z3 and a wrong `false`.
#[test]
fn nested_monotone_calls_stop_at_the_fact_limit() {
    let nested = |depth: usize| {
        let mut e = "i".to_string();
        for _ in 0..depth {
            e = format!("f({e})");
        }
        format!(
            "uf f : {{[x] : 0 <= x <= N}} -> {{[y] : 0 <= y <= N}} nondecreasing;\n\
             is_subset({{[i] : 0 <= i <= N && {e} >= 0}}, {{[i] : 0 <= i <= N}});"
        )
    };
    assert_eq!(run_ok(&nested(8)), ["true"]);
    let err = run(&nested(80)).unwrap_err();
    assert!(err.starts_with("2:1: gave up: the query needs "), "{err}");
    assert!(
        err.contains(&format!(
            "more than the limit of {}",
            iegen::solver::FACT_LIMIT
        )),
        "{err}"
    );
}
