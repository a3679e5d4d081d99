//! Computation files (`docs/computations.md`): the examples parse, print and
//! parse back equal; accesses are derived from the bodies as the dissertation
//! lists them; every validation rule reports its exact position; and no input
//! makes the parser panic.

use iegen::computation::{
    parse_computation, schedule_dims, Access, BinOp, Body, Computation, Condition, DataSpace,
    ElemType, Role, RuntimeObject, ScheduleDim, Stmt, UpdateOp, ValueExpr,
};
use iegen::{Conjunction, Constraint, Expr, Formula, Prover, Relation, Set, UfEnvironment, Var};
use proptest::prelude::*;

const DENSE_MV: &str = include_str!("../../examples/dense_mv.comp");
const SPMV_CSR: &str = include_str!("../../examples/spmv_csr.comp");
const FORWARD_SOLVE: &str = include_str!("../../examples/forward_solve.comp");
const EXAMPLES: [&str; 3] = [DENSE_MV, SPMV_CSR, FORWARD_SOLVE];

// ------------------------------------------------------------------ helpers

fn parse(src: &str) -> Computation {
    parse_computation(src).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

/// Prints `c`, parses the text back, and checks equality and idempotence.
fn assert_round_trip(c: &Computation) -> String {
    let printed = c.to_string();
    let again = parse_computation(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    assert_eq!(&again, c, "printed as\n{printed}");
    assert_eq!(again.to_string(), printed, "printing is not idempotent");
    printed
}

fn t(p: usize) -> Expr {
    Expr::var(Var::Tuple(p))
}

fn relation(src: &str) -> Relation {
    src.parse().unwrap_or_else(|e| panic!("{e}: {src}"))
}

/// Declarations shared by the error tests; statements start on line 7.
const HEAD: &str = "computation c(N, M) {
    in int col[N];
    in real A[N];
    out real y[N];
    temp real t;
    object P : OrderedSet(2, -1, morton);
";

/// The error (`LINE:COL: message`) of `HEAD` followed by `rest` and `}`.
fn error_with(rest: &str) -> String {
    let src = format!("{HEAD}{rest}\n}}\n");
    match parse_computation(&src) {
        Ok(c) => panic!("accepted:\n{src}\nas\n{c}"),
        Err(e) => e.to_string(),
    }
}

/// The error of a whole file.
fn error_of(src: &str) -> String {
    match parse_computation(src) {
        Ok(c) => panic!("accepted:\n{src}\nas\n{c}"),
        Err(e) => e.to_string(),
    }
}

/// `HEAD`, one statement `S0: BODY domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};` and `}`.
fn with_body(body: &str) -> Computation {
    parse(&format!(
        "{HEAD}    S0: {body} domain {{[i] : 0 <= i < N}} schedule {{[i] -> [0, i, 0]}};\n}}\n"
    ))
}

fn body_of(body: &str) -> Body {
    with_body(body).stmts[0].body.clone()
}

fn value_of(value: &str) -> ValueExpr {
    match body_of(&format!("y(i) = {value}")) {
        Body::Update { value, .. } => value,
        b => panic!("not an update: {b:?}"),
    }
}

fn read(space: &str, index: Vec<Expr>) -> ValueExpr {
    ValueExpr::Read(Access {
        space: space.into(),
        index,
    })
}

// ----------------------------------------------------------------- examples

#[test]
fn examples_parse_print_and_parse_back_equal() {
    for src in EXAMPLES {
        assert_round_trip(&parse(src));
    }
}

#[test]
fn dense_mv_is_listing_3_1() {
    let c = parse(DENSE_MV);
    assert_eq!(c.name, "dense_mv");
    assert_eq!(c.symbols, ["N", "M"]);
    assert_eq!(
        c.space("A"),
        Some(&DataSpace {
            name: "A".into(),
            elem: ElemType::Real,
            extents: vec![Expr::sym("N"), Expr::sym("M")],
            role: Role::In,
        })
    );
    let s = &c.stmts[0];
    assert_eq!(s.iterators(), ["i", "j"]);
    assert_eq!(
        s.body,
        Body::Update {
            target: Access {
                space: "y".into(),
                index: vec![t(0)]
            },
            op: UpdateOp::Add,
            value: ValueExpr::Binary(
                BinOp::Mul,
                Box::new(read("A", vec![t(0), t(1)])),
                Box::new(read("x", vec![t(1)])),
            ),
        }
    );
    assert_eq!(
        s.domain,
        "{[i, j] : 0 <= i < N && 0 <= j < M}".parse().unwrap()
    );
    assert_eq!(s.schedule, relation("{[i, j] -> [0, i, 0, j, 0]}"));
}

#[test]
fn spmv_csr_is_figure_3_2() {
    let c = parse(SPMV_CSR);
    assert_eq!(c.symbols, ["N", "NC", "NNZ"]);
    let rowptr = c.space("rowptr").unwrap();
    assert_eq!(rowptr.elem, ElemType::Int);
    assert_eq!(
        rowptr.extents,
        vec![Expr::sym("N").plus(&Expr::constant(1))]
    );
    let s = c.stmt("S0").unwrap();
    assert_eq!(s.iterators(), ["i", "k", "j"]);
    let domain: Set = "{[i,k,j] : 0 <= i < N && rowptr(i) <= k < rowptr(i+1) && j = col(k)}"
        .parse()
        .unwrap();
    assert_eq!(s.domain, domain);
    assert_eq!(
        schedule_dims(&s.schedule, 3).unwrap(),
        [
            ScheduleDim::Const(0),
            ScheduleDim::Iter(0),
            ScheduleDim::Const(0),
            ScheduleDim::Iter(1),
            ScheduleDim::Const(0),
            ScheduleDim::Iter(2),
            ScheduleDim::Const(0),
        ]
    );
}

/// The reads and writes of `S0` are those of Figure 3.2: reads `y`, `A`,
/// `x`, writes `y`, each `{[i,k,j] -> [index]}` restricted to the domain.
#[test]
fn spmv_csr_accesses_are_the_dissertations() {
    let c = parse(SPMV_CSR);
    let s = c.stmt("S0").unwrap();
    let domain = "0 <= i < N && rowptr(i) <= k < rowptr(i+1) && j = col(k)";
    let expected = |index: &str| relation(&format!("{{[i,k,j] -> [{index}] : {domain}}}"));
    let env = UfEnvironment::new();
    let prover = Prover::new(&env);

    let reads = s.reads();
    assert_eq!(
        reads.iter().map(|a| a.space.as_str()).collect::<Vec<_>>(),
        ["y", "A", "x"]
    );
    for (access, index) in reads.iter().zip(["i", "k", "j"]) {
        let want = expected(index);
        assert_eq!(access.relation, want, "{} read", access.space);
        assert!(prover
            .relation_is_equal(&access.relation, &want)
            .unwrap()
            .holds());
        // And the range is exactly the index: nothing else is read.
        assert!(!prover
            .relation_is_equal(&access.relation, &expected("i + 1"))
            .unwrap()
            .holds());
    }
    let writes = s.writes();
    assert_eq!(writes.len(), 1);
    assert_eq!(writes[0].space, "y");
    assert_eq!(writes[0].relation, expected("i"));
    assert!(prover
        .relation_is_equal(&writes[0].relation, &expected("i"))
        .unwrap()
        .holds());
}

#[test]
fn forward_solve_is_figure_3_4() {
    let c = parse(FORWARD_SOLVE);
    assert_eq!(c.space("tmp").unwrap().role, Role::Temp);
    assert_eq!(c.space("u").unwrap().role, Role::Out);
    let names = |accesses: Vec<iegen::computation::AccessRelation>| {
        accesses.into_iter().map(|a| a.space).collect::<Vec<_>>()
    };
    let s0 = c.stmt("S0").unwrap();
    assert_eq!(names(s0.reads()), ["f"]);
    assert_eq!(names(s0.writes()), ["tmp"]);
    let s1 = c.stmt("S1").unwrap();
    assert_eq!(names(s1.reads()), ["tmp", "A", "u"]);
    assert_eq!(names(s1.writes()), ["tmp"]);
    assert_eq!(
        s1.reads()[2].relation,
        relation("{[i, j] -> [j] : 0 <= i < N && 0 <= j < i}")
    );
    let s2 = c.stmt("S2").unwrap();
    assert_eq!(names(s2.reads()), ["tmp", "A"]);
    assert_eq!(
        s2.reads()[1].relation,
        relation("{[i] -> [i, i] : 0 <= i < N}")
    );
    assert_eq!(names(s2.writes()), ["u"]);
    let dims: Vec<Vec<ScheduleDim>> = c
        .stmts
        .iter()
        .map(|s| schedule_dims(&s.schedule, s.domain.arity()).unwrap())
        .collect();
    use ScheduleDim::{Const, Iter};
    assert_eq!(
        dims,
        [
            vec![Const(0), Iter(0), Const(0)],
            vec![Const(0), Iter(0), Const(1), Iter(1), Const(0)],
            vec![Const(0), Iter(0), Const(2)],
        ]
    );
}

#[test]
fn from_str_reports_an_iegen_error() {
    let err = "computation c( {".parse::<Computation>().unwrap_err();
    assert!(matches!(err, iegen::Error::Syntax(_)));
    assert_eq!(
        err.to_string(),
        "1:16: unexpected `{`, expected one of: name, `)`"
    );
}

// ----------------------------------------------------------------- constructs

#[test]
fn printed_form_is_canonical() {
    let src = "# a comment
computation  all(N) {   # another
  in int col[N]; inout real y[N];
  temp real t; object P : OrderedSet(2, -1, morton, 0.5);
  S0: { P.insert(i, col(i)) ; t = P.size(); if (y(i) != 0.0 && i >= 1) y(i) max= t / 2.5e-3; if () y(i) min= -y(i) }
     domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
}";
    let printed = assert_round_trip(&parse(src));
    assert_eq!(
        printed,
        "computation all(N) {
    in int col[N];
    inout real y[N];
    temp real t;
    object P : OrderedSet(2, -1, morton, 0.5);

    S0: {
            P.insert(i, col(i));
            t = P.size();
            if (y(i) != 0.0 && i >= 1) y(i) max= t / 0.0025;
            if () y(i) min= -y(i);
        }
        domain {[i] : 0 <= i < N}
        schedule {[i] -> [0, i, 0]};
}
"
    );
}

#[test]
fn bodies_have_every_form() {
    let b = body_of("if (A(i) > 0.0 and t <= 1) { P.sort(); {} ; t *= -A(i) }");
    let Body::If { conditions, then } = b else {
        panic!("not an if")
    };
    assert_eq!(
        conditions,
        [
            Condition {
                lhs: read("A", vec![t(0)]),
                op: ">",
                rhs: ValueExpr::Real(0.0),
            },
            Condition {
                lhs: read("t", vec![]),
                op: "<=",
                rhs: ValueExpr::Int(1),
            },
        ]
    );
    assert_eq!(
        *then,
        Body::Seq(vec![
            Body::Call {
                object: "P".into(),
                method: "sort".into(),
                args: vec![],
            },
            Body::Seq(vec![]),
            Body::Update {
                target: Access {
                    space: "t".into(),
                    index: vec![],
                },
                op: UpdateOp::Mul,
                value: ValueExpr::Neg(Box::new(read("A", vec![t(0)]))),
            },
        ])
    );
    for (text, op) in [
        ("=", UpdateOp::Assign),
        ("+=", UpdateOp::Add),
        ("-=", UpdateOp::Sub),
        ("*=", UpdateOp::Mul),
        ("min=", UpdateOp::Min),
        ("max =", UpdateOp::Max),
        ("rise=", UpdateOp::Rise),
    ] {
        let Body::Update { op: got, .. } = body_of(&format!("y(i) {text} 1")) else {
            panic!("not an update")
        };
        assert_eq!(got, op, "{text}");
    }
}

#[test]
fn values_take_their_canonical_form() {
    let i = || t(0);
    let index = ValueExpr::Index;
    assert_eq!(value_of("-3"), ValueExpr::Int(-3));
    assert_eq!(value_of("--3"), ValueExpr::Int(3));
    assert_eq!(value_of("-9223372036854775808"), ValueExpr::Int(i64::MIN));
    assert_eq!(value_of("1.5"), ValueExpr::Real(1.5));
    assert_eq!(value_of("-2.0e-3"), ValueExpr::Real(-0.002));
    assert_eq!(value_of("2.5e+2"), ValueExpr::Real(250.0));
    assert_eq!(value_of("i"), index(i()));
    assert_eq!(value_of("N"), index(Expr::sym("N")));
    assert_eq!(value_of("i + 1"), index(i().plus(&Expr::constant(1))));
    assert_eq!(
        value_of("2 * i - N"),
        index(i().scale(2).minus(&Expr::sym("N")))
    );
    assert_eq!(value_of("-(-2 * i)"), index(i().scale(2)));
    assert_eq!(value_of("(2i)"), index(i().scale(2)));
    assert_eq!(value_of("i - i"), ValueExpr::Int(0));
    assert_eq!(
        value_of("1 + 2"),
        ValueExpr::Binary(
            BinOp::Add,
            Box::new(ValueExpr::Int(1)),
            Box::new(ValueExpr::Int(2))
        )
    );
    assert_eq!(
        value_of("i * i"),
        ValueExpr::Binary(BinOp::Mul, Box::new(index(i())), Box::new(index(i())))
    );
    assert_eq!(
        value_of("i / 2"),
        ValueExpr::Binary(
            BinOp::Div,
            Box::new(index(i())),
            Box::new(ValueExpr::Int(2))
        )
    );
    assert_eq!(value_of("col(i)"), read("col", vec![i()]));
    assert_eq!(
        value_of("A(col(i) + 1)"),
        read(
            "A",
            vec![Expr::call("col", vec![i()]).plus(&Expr::constant(1))]
        )
    );
    assert_eq!(
        value_of("max(min(t, 1), P.get(i))"),
        ValueExpr::Binary(
            BinOp::Max,
            Box::new(ValueExpr::Binary(
                BinOp::Min,
                Box::new(read("t", vec![])),
                Box::new(ValueExpr::Int(1))
            )),
            Box::new(ValueExpr::Call {
                object: "P".into(),
                method: "get".into(),
                args: vec![index(i())],
            })
        )
    );
    // Precedence: `-` binds tighter than `*`, `*` and `/` than `+` and `-`,
    // all left-associative.
    assert_eq!(
        value_of("1.0 - 2.0 / 3.0 / t"),
        ValueExpr::Binary(
            BinOp::Sub,
            Box::new(ValueExpr::Real(1.0)),
            Box::new(ValueExpr::Binary(
                BinOp::Div,
                Box::new(ValueExpr::Binary(
                    BinOp::Div,
                    Box::new(ValueExpr::Real(2.0)),
                    Box::new(ValueExpr::Real(3.0))
                )),
                Box::new(read("t", vec![]))
            ))
        )
    );
}

#[test]
fn values_round_trip_through_the_printer() {
    for value in [
        "1 + 2 + i",
        "i + 1 + 2.0",
        "2.0 + (i + 1)",
        "(i + 1) * 2.0",
        "i * j",
        "i * (2 * j)",
        "-(t + 1.0)",
        "-A(i) * -1",
        "t - -1.5",
        "t - (1 - 2)",
        "t / (2 / t)",
        "1.0e300 * 1.0e-300 + 123456789.125",
        "1.0e999 - 1.0e999",
        "min(-i, N - 2 * i) + max(2, t)",
        "A(2i + 1) + A(-col(i)) + A(N - 1)",
        "P.get(i, 2 * N, t) / P.size()",
        "--t",
        "-9223372036854775808 - 9223372036854775807",
    ] {
        let src = format!(
            "computation c(N) {{ in int col[N]; in real A[N]; out real y[N]; temp real t; object P : S();
             S0: y(i) = {value} domain {{[i, j] : 0 <= i < N && 0 <= j < N}} schedule {{[i, j] -> [i, j]}}; }}"
        );
        assert_round_trip(&parse(&src));
    }
}

#[test]
fn real_literals_do_not_change_sets() {
    // `2e3` and `2e0` are still the juxtapositions `2 e3`, `2 e0`.
    let a: Set = "{[e3, e0] : e3 = 2e3 && 0 <= 2e0}".parse().unwrap();
    let b: Set = "{[e3, e0] : e3 = 2 e3 && 0 <= 2 e0}".parse().unwrap();
    assert_eq!(a, b);
    // A real literal needs a `.`: `2e-3` stays `2 e - 3` in sets.
    let c: Set = "{[i] : i = 2e-3}".parse().unwrap();
    let d: Set = "{[i] : i = 2 e - 3}".parse().unwrap();
    assert_eq!(c, d);
}

#[test]
fn contextual_keywords_remain_names_in_sets() {
    let s: Set = "{[in, out, if] : 0 <= in < max && out = domain(min) && if = real}"
        .parse()
        .unwrap();
    assert_eq!(s.arity(), 3);
    // And they name things in computations where no keyword is expected.
    let c = parse(
        "computation computation(in, out) {
            inout real domain[in];
            S0: domain(schedule) = out domain {[schedule] : 0 <= schedule < in} schedule {[s] -> [s]};
        }",
    );
    assert_round_trip(&c);
}

#[test]
fn union_domains_name_their_iterators_after_the_first_term() {
    let c = parse(&format!(
        "{HEAD}    S0: y(a) = A(b) domain {{[a, b] : b = 0 && 0 <= a < N}} union {{[x, y'] : y' = 1 && 0 <= x < N}}
            schedule {{[i, j] -> [i, j]}};\n}}"
    ));
    let s = &c.stmts[0];
    assert_eq!(s.iterators(), ["a", "b"]);
    for conj in s.domain.conjunctions() {
        assert_eq!(conj.tuple_names(), ["a", "b"]);
    }
    assert_round_trip(&c);
}

/// The canonical notation of a domain shows a position fixed to a constant
/// or to another position in the tuple (`{[i, 0]}`, `{[i, i]}`); when the
/// body uses it, the printer keeps its name.
#[test]
fn positions_the_domain_fixes_keep_their_names_when_used() {
    let c = parse(&format!(
        "{HEAD}    S0: y(i) = A(j) domain {{[i, j] : j = 0 && 0 <= i < N}} schedule {{[i, j] -> [i, j]}};
    S1: y(i) = A(j) domain {{[i, j] : j = i && 0 <= i < N}} schedule {{[i, j] -> [i, j]}};
    S2: y(i) = A(i) domain {{[i, j] : j = 0 && 0 <= i < N}} schedule {{[i, j] -> [i, j]}};
    S3: y(i) = A(j) domain {{[i, j, k] : j = 0 && k = 1 && 0 <= i < N}} union {{[i, j, k] : j = 1 && k = 1 && 0 <= i < N}}
        schedule {{[i, j, k] -> [i, j, k]}};
}}"
    ));
    let printed = assert_round_trip(&c);
    assert!(
        printed.contains("domain {[i, j] : 0 <= i < N && j = 0}"),
        "{printed}"
    );
    assert!(
        printed.contains("domain {[i, j] : 0 <= i < N && j = i}"),
        "{printed}"
    );
    // Unused: the canonical notation stays.
    assert!(
        printed.contains("domain {[i, 0] : 0 <= i < N}"),
        "{printed}"
    );
}

#[test]
fn empty_computations_and_domains_print() {
    assert_round_trip(&parse("computation nothing() {}"));
    let c = parse(
        "computation c(N) { out real y[N]; S0: y(i) = i domain {[i] : false} schedule {[i] -> [i]}; }",
    );
    assert_eq!(c.stmts[0].domain, Set::empty(1));
    assert_round_trip(&c);
}

/// Computations built in code: names that collide or are no identifiers
/// are renamed, non-canonical values print as their canonical form.
#[test]
fn computations_built_in_code_print_parseably() {
    let domain = |names: Vec<String>| {
        let c = Conjunction::from_parts(
            names,
            vec![],
            [
                Constraint::le(&Expr::constant(0), &t(0)),
                Constraint::lt(&t(0), &Expr::sym("N")),
                Constraint::equal(&t(1), &Expr::constant(3)),
            ],
        )
        .unwrap();
        Set::from_formula(Formula::from_conjunctions(2, vec![c]))
    };
    let body = Body::Update {
        target: Access {
            space: "y".into(),
            index: vec![t(0)],
        },
        op: UpdateOp::Assign,
        value: ValueExpr::Binary(
            BinOp::Add,
            Box::new(ValueExpr::Index(t(0).plus(&t(1)))),
            Box::new(read("y", vec![Expr::sym("N").minus(&t(0))])),
        ),
    };
    let stmt = |names: Vec<String>| Stmt {
        name: "S0".into(),
        body: body.clone(),
        domain: domain(names),
        schedule: relation("{[a, b] -> [0, a, b]}"),
    };
    let c = Computation {
        name: "built".into(),
        symbols: vec!["N".into()],
        spaces: vec![DataSpace {
            name: "y".into(),
            elem: ElemType::Real,
            extents: vec![Expr::sym("N")],
            role: Role::InOut,
        }],
        objects: vec![RuntimeObject {
            name: "P".into(),
            kind: "OrderedSet".into(),
            args: vec!["2".into(), "lex".into()],
        }],
        stmts: vec![
            stmt(vec!["i".into(), "j".into()]),
            // Named like the symbol, the data space, the object.
            stmt(vec!["N".into(), "y".into()]),
            stmt(vec!["P".into(), "P".into()]),
            // Not identifiers.
            stmt(vec!["$x".into(), "".into()]),
        ],
    };
    let mut c = c;
    for (k, s) in c.stmts.iter_mut().enumerate() {
        s.name = format!("S{k}");
    }
    let printed = assert_round_trip(&c);
    assert!(
        printed.contains("S1: y(N') = N' + y' + y(-N' + N)"),
        "{printed}"
    );
    assert!(
        printed.contains("S3: y(t0) = t0 + t1 + y(-t0 + N)"),
        "{printed}"
    );

    // Non-canonical values read back canonical.
    let mut odd = c.clone();
    odd.stmts.truncate(1);
    odd.stmts[0].body = Body::Update {
        target: Access {
            space: "y".into(),
            index: vec![t(0)],
        },
        op: UpdateOp::Assign,
        value: ValueExpr::Binary(
            BinOp::Add,
            Box::new(ValueExpr::Int(1)),
            Box::new(ValueExpr::Neg(Box::new(ValueExpr::Index(t(0))))),
        ),
    };
    let back: Computation = odd.to_string().parse().unwrap();
    let Body::Update { value, .. } = &back.stmts[0].body else {
        panic!("not an update")
    };
    assert_eq!(*value, ValueExpr::Index(Expr::constant(1).minus(&t(0))));
}

// ---------------------------------------------------------------- validation

#[test]
fn undeclared_names_are_errors() {
    assert_eq!(
        error_with("    S0: y(i) = B(i) domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:16: undeclared data space `B`"
    );
    assert_eq!(
        error_with("    S0: B(i) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:9: undeclared data space `B`"
    );
    assert_eq!(
        error_with("    S0: y(i) = 1 domain {[i] : 0 <= i < K} schedule {[i] -> [0, i, 0]};"),
        "7:41: undeclared symbol `K`; declare it in the header `computation NAME(..., K)`"
    );
    assert_eq!(
        error_with("    S0: y(i) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, K + 1]};"),
        "7:68: undeclared symbol `K`; declare it in the header `computation NAME(..., K)`"
    );
    assert_eq!(
        error_with("    in real z[K];"),
        "7:15: undeclared symbol `K` in an extent; declare it in the header `computation NAME(..., K)`"
    );
    assert_eq!(
        error_with(
            "    S0: y(i) = Q.get(i) domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"
        ),
        "7:16: undeclared runtime object `Q`; declare it with `object Q : KIND(...);`"
    );
    assert_eq!(
        error_with("    S0: Q.clear() domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:9: undeclared runtime object `Q`; declare it with `object Q : KIND(...);`"
    );
    assert_eq!(
        error_with("    S0: y(i) = 1 domain {[i] : 0 <= i < f(N)} schedule {[i] -> [0, i, 0]};"),
        "7:41: `f` is not a declared data space"
    );
}

#[test]
fn body_names_must_be_iterators_symbols_or_scalars() {
    assert_eq!(
        error_with("    S0: y(i) = A(q) domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:18: `q` is neither an iterator of `S0` (its domain tuple is [i]) nor a declared symbol"
    );
    assert_eq!(
        error_with("    S0: y(i) = q domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:16: `q` is neither an iterator of `S0` (its domain tuple is [i]) nor a declared symbol or data space"
    );
    assert_eq!(
        error_with("    S0: y(j) = 1 domain {[i, 0] : 0 <= i < N} schedule {[i, z] -> [0, i, 0]};"),
        "7:11: `j` is neither an iterator of `S0` (its domain tuple is [i, _]) nor a declared symbol"
    );
    assert_eq!(
        error_with("    S0: y(i) = P domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:16: `P` is a runtime object; call its methods as `P.method(...)`"
    );
    assert_eq!(
        error_with("    S0: y(i) = i(1) domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:16: `i` is an iterator, not a data space"
    );
    assert_eq!(
        error_with("    S0: y(i) = N(1) domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:16: `N` is a symbol, not a data space"
    );
}

#[test]
fn accesses_need_one_index_per_dimension() {
    assert_eq!(
        error_with("    S0: y(i, i) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:9: data space `y` has 1 dimension but is accessed with 2 indices"
    );
    assert_eq!(
        error_with("    S0: y = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:9: data space `y` has 1 dimension but is accessed with 0 indices; write `y(...)`"
    );
    assert_eq!(
        error_with("    S0: y(i) = y domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:16: data space `y` has 1 dimension but is accessed with 0 indices; write `y(...)`"
    );
    assert_eq!(
        error_with("    S0: y(i) = t(i) domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:16: data space `t` has 0 dimensions but is accessed with 1 index; write `t` without parentheses"
    );
    assert_eq!(
        error_with(
            "    S0: y(col(i, i)) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"
        ),
        "7:11: data space `col` has 1 dimension but is called with 2 arguments"
    );
    assert_eq!(
        error_with(
            "    S0: y(i) = 1 domain {[i] : 0 <= i < col(i, 1)} schedule {[i] -> [0, i, 0]};"
        ),
        "7:41: data space `col` has 1 dimension but is called with 2 arguments"
    );
    assert_eq!(
        error_with("    S0: y(i) = min(i) domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:16: `min` takes 2 arguments, found 1"
    );
}

#[test]
fn only_int_arrays_are_functions_in_indices_and_sets() {
    assert_eq!(
        error_with("    S0: y(A(i)) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:11: `A` is a `real` data space; index expressions and sets may call only `int` data spaces"
    );
    assert_eq!(
        error_with("    S0: y(i) = 1 domain {[i] : 0 <= i < A(0)} schedule {[i] -> [0, i, 0]};"),
        "7:41: `A` is a `real` data space; index expressions and sets may call only `int` data spaces"
    );
    assert_eq!(
        error_with("    S0: y(i) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, A(i), 0]};"),
        "7:65: `A` is a `real` data space; index expressions and sets may call only `int` data spaces"
    );
    assert_eq!(
        error_with("    S0: y(t) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:11: `t` is a scalar data space; index expressions and sets may use only iterators, symbols, size spaces (`out` or `temp` `int` scalars) and calls of `int` data spaces"
    );
    assert_eq!(
        error_with("    S0: y(i) = 1 domain {[i] : 0 <= i < t} schedule {[i] -> [0, i, 0]};"),
        "7:41: `t` is a scalar data space; index expressions and sets may use only iterators, symbols, size spaces (`out` or `temp` `int` scalars) and calls of `int` data spaces"
    );
    assert_eq!(
        error_with("    S0: y(i) = 1 domain {[i] : 0 <= i < t(0)} schedule {[i] -> [0, i, 0]};"),
        "7:41: `t` is a scalar data space and cannot be called; index expressions and sets may call only `int` data spaces with dimensions"
    );
    assert_eq!(
        error_with("    S0: y(i) = 1 domain {[i] : 0 <= i < col} schedule {[i] -> [0, i, 0]};"),
        "7:41: `col` is a data space with 1 dimension, not a symbol"
    );
}

#[test]
fn index_expressions_are_affine() {
    assert_eq!(
        error_with("    S0: y(i / 2) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:11: division must be written `floor(e / m)` (index expressions are quasi-affine)"
    );
    // Floor division by a positive constant is an index expression.
    let ok = "computation c(N) {\n    out real y[N];\n    S0: y(floor(i / 2)) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};\n}\n";
    let comp = iegen::computation::parse_computation(ok).unwrap();
    assert!(comp.to_string().contains("y(floor(i / 2))"), "{comp}");
    assert_eq!(
        error_with("    S0: y(i * i) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:11: non-affine product: one factor of `*` must be a constant"
    );
    assert_eq!(
        error_with("    S0: y(1.5) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:11: the real literal `1.5` cannot appear in an index expression"
    );
    assert_eq!(
        error_with(
            "    S0: y(min(i, 1)) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"
        ),
        "7:11: `min` cannot be used in an index expression (index expressions are affine)"
    );
    assert_eq!(
        error_with(
            "    S0: y(P.get(i)) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"
        ),
        "7:11: a method call cannot appear in an index expression"
    );
    assert_eq!(
        error_with("    S0: y(9223372036854775808) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:11: integer literal `9223372036854775808` does not fit in 64 bits"
    );
}

#[test]
fn names_are_unique() {
    assert_eq!(
        error_of("computation c(N, M, N) {}"),
        "1:21: symbol `N` is declared twice (first at 1:15)"
    );
    assert_eq!(
        error_with("    in real A[M];"),
        "7:13: data space `A` is declared twice (first at 3:13)"
    );
    assert_eq!(
        error_with("    in real N;"),
        "7:13: data space `N` has the name of the symbol declared at 1:15"
    );
    assert_eq!(
        error_with("    object A : X();"),
        "7:12: runtime object `A` has the name of the data space declared at 3:13"
    );
    assert_eq!(
        error_with("    object P : X();"),
        "7:12: runtime object `P` is declared twice (first at 6:12)"
    );
    assert_eq!(
        error_with(
            "    S0: y(i) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
    S0: y(i) = 2 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 1]};"
        ),
        "8:5: statement `S0` is declared twice (first at 7:5)"
    );
    assert_eq!(
        error_with("    temp int min;"),
        "7:14: `min` is reserved and cannot name a data space"
    );
    assert_eq!(
        error_of("computation c(if) {}"),
        "1:15: `if` is reserved and cannot name a symbol"
    );
    assert_eq!(
        error_with("    S0: y(N) = 1 domain {[N] : 0 <= N < M} schedule {[i] -> [0, i, 0]};"),
        "7:27: iterator `N` of `S0` has the name of a symbol; rename the iterator"
    );
    assert_eq!(
        error_with(
            "    S0: y(i) = 1 domain {[i, col] : 0 <= i < N} schedule {[i, j] -> [0, i, j]};"
        ),
        "7:30: iterator `col` of `S0` has the name of a data space; rename the iterator"
    );
}

#[test]
fn in_data_spaces_cannot_be_written() {
    assert_eq!(
        error_with("    S0: A(i) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:9: `A` is declared `in` and cannot be written"
    );
    assert_eq!(
        error_with("    S0: if (i > 0) { t = 1; col(i) += 1 } domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:29: `col` is declared `in` and cannot be written"
    );
    assert_eq!(
        error_with("    S0: N = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:9: `N` is a symbol, not a data space"
    );
    assert_eq!(
        error_with("    S0: i = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:9: `i` is an iterator, not a data space"
    );
}

#[test]
fn schedules_must_have_the_supported_form() {
    assert_eq!(
        error_with("    S0: y(i) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i + 1, 0]};"),
        "7:53: time dimension 1 must equal a constant or one iterator"
    );
    assert_eq!(
        error_with("    S0: y(i) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]} union {[i] -> [1, i, 0]};"),
        "7:53: the schedule must be one conjunction without existential variables"
    );
    assert_eq!(
        error_with("    S0: y(i) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [t] : exists k : t = 2k && 0 <= k < i};"),
        "7:53: the schedule must be one conjunction without existential variables"
    );
    assert_eq!(
        error_with("    S0: y(i) = 1 domain {[i] : 0 <= i < N} schedule {[i, j] -> [0, i, 0]};"),
        "7:53: the schedule takes 2 iterators but the domain has 1"
    );
    assert_eq!(
        error_with("    S0: y(i) = 1 domain {[i] : 0 <= i < N} schedule {[i]};"),
        "7:53: the schedule must be a relation `{[i, ...] -> [...]}`, not a set"
    );
    assert_eq!(
        error_with("    S0: y(i) = 1 domain {[i] -> [j]} schedule {[i] -> [0, i, 0]};"),
        "7:25: the domain must be a set `{[i, ...] : ...}`, not a relation"
    );
}

#[test]
fn syntax_errors_are_located() {
    assert_eq!(
        error_with("    S0: y(i) = 1 domian {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:18: expected `domain`, found `domian`"
    );
    assert_eq!(
        error_with("    S0: y(i) = 1 domain {[i] : 0 <= i < N} schedul {[i] -> [0, i, 0]};"),
        "7:44: expected `schedule`, found `schedul`"
    );
    assert_eq!(
        error_with("    S0: y(i) = 2i domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:17: expected `domain` or `schedule` before a set, found `i`; a product in a value needs `*` (juxtaposition such as `2i` is allowed only inside parentheses)"
    );
    assert_eq!(
        error_with("    S0: y(i) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]}"),
        "8:1: unexpected `}`, expected one of: `;`, `union`"
    );
    assert_eq!(
        error_with("    inn real z;"),
        "7:5: expected a role (`in`, `out`, `inout`, `temp`) or `object`, found `inn`"
    );
    assert_eq!(
        error_with("    in float z;"),
        "7:8: expected an element type (`int` or `real`), found `float`"
    );
    assert_eq!(
        error_with("    objet Q : X();"),
        "7:5: expected `object`, found `objet`"
    );
    assert_eq!(
        error_with("    S0: y(i) avg= 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"),
        "7:14: expected an update operator (`=`, `+=`, `-=`, `*=`, `min=`, `max=`, `rise=`), found `avg`"
    );
    assert_eq!(
        error_with(
            "    S0: when (i < 1) y(i) = 1 domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};"
        ),
        "7:9: expected `if` before a condition, found `when`"
    );
    assert_eq!(
        error_of("computaton c() {}"),
        "1:1: expected `computation`, found `computaton`"
    );
    assert_eq!(
        error_with("    S0: y(i) = 1.5.2 domain {[i]} schedule {[i] -> [i]};"),
        "7:19: unexpected `.`, expected one of: name, `*`, `+`, `-`, `/`"
    );
    assert_eq!(
        error_with("    S0: y(i) = domain {[i]} schedule {[i] -> [i]};"),
        "7:23: unexpected `{`, expected one of: name, `(`, `*`, `+`, `-`, `.`, `/`"
    );
    assert_eq!(
        error_with("    S0: y(i) = (2 domain {[i]} schedule {[i] -> [i]};"),
        "7:26: unexpected `{`, expected one of: `(`, `)`, `*`, `+`, `-`, `/`"
    );
    assert_eq!(
        error_with("    S0: y(i) = (; domain {[i]} schedule {[i] -> [i]};"),
        "7:17: unexpected `;`, expected one of: name, integer, real, `(`, `-`"
    );
    assert!(error_of("computation c() {").starts_with("1:18: unexpected end of input"));
}

/// The value of `v` when `A(k)` is `k + 1` (an index value must be constant).
fn eval(v: &ValueExpr) -> f64 {
    match v {
        ValueExpr::Int(k) => *k as f64,
        ValueExpr::Real(x) => *x,
        ValueExpr::Index(e) => e.as_constant().expect("a constant index") as f64,
        ValueExpr::Read(a) => a.index[0].as_constant().expect("a constant index") as f64 + 1.0,
        ValueExpr::Neg(a) => -eval(a),
        ValueExpr::Binary(BinOp::Add, a, b) => eval(a) + eval(b),
        ValueExpr::Binary(BinOp::Sub, a, b) => eval(a) - eval(b),
        ValueExpr::Binary(BinOp::Mul, a, b) => eval(a) * eval(b),
        v => panic!("unexpected {v:?}"),
    }
}

fn depth(v: &ValueExpr) -> usize {
    match v {
        ValueExpr::Neg(a) => 1 + depth(a),
        ValueExpr::Binary(_, a, b) => 1 + depth(a).max(depth(b)),
        ValueExpr::Call { args, .. } => 1 + args.iter().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

#[test]
fn a_flat_sum_of_any_length_parses_evaluates_and_prints() {
    for n in [3, 64, 65, 1001, 100_000] {
        // `A(0) + A(1) - A(2) + 0.5 + A(3) - ...`: exact in f64 in any order.
        let mut text = String::from("A(0)");
        let mut want = 1.0;
        for k in 1..n {
            let (sign, term, value) = match k % 4 {
                0 => ('+', format!("A({})", k % 7), (k % 7 + 1) as f64),
                1 => ('+', format!("2 * A({})", k % 5), 2.0 * (k % 5 + 1) as f64),
                2 => ('-', format!("A({})", k % 3), (k % 3 + 1) as f64),
                _ => ('+', "0.5".to_string(), 0.5),
            };
            text.push_str(&format!(" {sign} {term}"));
            want += if sign == '+' { value } else { -value };
        }
        let src = format!(
            "computation c(N) {{ in real A[N]; out real y[N]; \
             S0: y(i) = {text} domain {{[i] : 0 <= i < N}} schedule {{[i] -> [0, i, 0]}}; }}"
        );
        let c = parse(&src);
        let Body::Update { value, .. } = &c.stmts[0].body else {
            panic!("not an update")
        };
        assert_eq!(eval(value), want, "{n} terms");
        // Short sums are the left-nested tree as written, long ones balanced.
        let levels = depth(value);
        if n <= 64 {
            assert_eq!(levels, n, "{n} terms"); // n - 1 operators and a `*`
        } else {
            assert!(
                levels <= 2 + (n as f64).log2().ceil() as usize,
                "{n}: {levels}"
            );
        }
        assert_round_trip(&c);
    }
    // Index terms fold into one affine index value, however many.
    let n = 100_000;
    let sum = format!("A(i{})", " + i - 1".repeat(n));
    assert_eq!(
        value_of(&sum),
        read(
            "A",
            vec![t(0).scale(n as i64 + 1).plus(&Expr::constant(-(n as i64)))]
        )
    );
}

#[test]
fn long_sums_built_in_code_print_parseably() {
    // A left-nested chain longer than the parser's: the printer writes it
    // with parentheses that parse back to the same tree.
    let chain = (0..200)
        .map(|k| read("A", vec![Expr::constant(k)]))
        .reduce(|a, b| ValueExpr::Binary(BinOp::Sub, Box::new(a), Box::new(b)))
        .unwrap();
    let wide_index = (0..100).fold(Expr::constant(3), |e, k| {
        e.plus(&Expr::sym(format!("M{k}")))
    });
    let leftmost_index = ValueExpr::Binary(
        BinOp::Add,
        Box::new(ValueExpr::Index(wide_index)),
        Box::new(read("A", vec![Expr::constant(0)])),
    );
    for value in [chain, leftmost_index] {
        let symbols: Vec<String> = (0..100).map(|k| format!("M{k}")).collect();
        let src = format!(
            "computation c(N, {}) {{ in real A[N]; out real y[N]; \
             S0: y(i) = 0 domain {{[i] : 0 <= i < N}} schedule {{[i] -> [0, i, 0]}}; }}",
            symbols.join(", ")
        );
        let mut c = parse(&src);
        let Body::Update { value: v, .. } = &mut c.stmts[0].body else {
            panic!("not an update")
        };
        *v = value;
        assert_round_trip(&c);
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = |body: String| {
        format!("computation c(N) {{ temp real t; S0: {body} domain {{[i]}} schedule {{[i] -> [i]}}; }}")
    };
    for body in [
        format!("{}t = 1", "if () ".repeat(100_000)),
        format!("t = 1{}", " / t".repeat(100_000)),
        format!("t = {}1{}", "(".repeat(100_000), ")".repeat(100_000)),
        format!("{}t = 1{}", "{".repeat(100_000), "}".repeat(100_000)),
        format!("t = {}1", "-".repeat(100_000)),
        format!("t = {}1", "- ".repeat(100_000)),
        format!("t = 1{}", " * t".repeat(100_000)),
        format!("t = {}1{}", "t * (".repeat(100_000), ")".repeat(100_000)),
        // Sums in nested groups: a value's sum is a binary tree, whose
        // levels count up to 64 per sum.
        format!(
            "t = {}1{}",
            "(t + t + t + t + t + t + t + t + t + ".repeat(200),
            ")".repeat(200)
        ),
    ] {
        let err = parse_computation(&deep(body)).unwrap_err();
        assert!(err.message.contains("nested too deeply"), "{err}");
    }
    // A few hundred levels are fine, and print back.
    for body in [
        format!("{}t = 1", "if () ".repeat(300)),
        format!("t = 1{}", " / t".repeat(300)),
        format!("t = {}1{}", "(".repeat(300), ")".repeat(300)),
        format!("{}t = 1{}", "{".repeat(300), "}".repeat(300)),
        format!("t = 1{}", " + t - 2.5e-3".repeat(100_000)),
        format!(
            "t = {}1{}",
            "(t + t + t + t + t + t + t + t + t + ".repeat(90),
            ")".repeat(90)
        ),
    ] {
        assert_round_trip(&parse(&deep(body)));
    }
}

// ------------------------------------------------------------------ properties

/// Pieces that mutations insert: the format's tokens and some near misses.
const PIECES: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    ":",
    ".",
    "-",
    "+",
    "*",
    "/",
    "=",
    "==",
    "!=",
    "<",
    "<=",
    "+=",
    "min=",
    "&&",
    "->",
    " union ",
    " exists k : ",
    "2i",
    "1.5",
    "2e-3",
    "2e3",
    "-9223372036854775808",
    "99999999999999999999",
    " domain ",
    " schedule ",
    " if () ",
    "in ",
    "temp real z;",
    "object Q : K();",
    "N",
    "col(",
    "A(",
    "i",
    "j",
    "k",
    "t",
    "P.insert(",
    "S0",
    "#",
    "\n",
    " ",
    "é",
    "\u{0}",
];

/// A mutation of `src`: some characters replaced by a piece.
fn mutated(src: &'static str) -> impl Strategy<Value = String> {
    let n = src.chars().count();
    prop::collection::vec((0..=n, 0usize..4, prop::sample::select(PIECES)), 1..4).prop_map(
        move |edits| {
            let mut chars: Vec<char> = src.chars().collect();
            for (at, len, piece) in edits {
                let at = at.min(chars.len());
                let end = (at + len).min(chars.len());
                chars.splice(at..end, piece.chars());
            }
            chars.into_iter().collect()
        },
    )
}

/// Random bodies from the value grammar, most of which parse.
fn body_text() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(vec![
        "i",
        "j",
        "N",
        "t",
        "0",
        "1",
        "2",
        "-3",
        "1.5",
        "2.0e-3",
        "col(i)",
        "A(j)",
        "A(2i + 1)",
        "y(col(j) - i)",
        "P.get(i)",
        "P.size()",
    ])
    .prop_map(str::to_string);
    let value = leaf.prop_recursive(4, 24, 2, |inner| {
        prop_oneof![
            (
                inner.clone(),
                prop::sample::select(vec!["+", "-", "*", "/"]),
                inner.clone()
            )
                .prop_map(|(a, op, b)| format!("{a} {op} {b}")),
            inner.clone().prop_map(|a| format!("-{a}")),
            inner.clone().prop_map(|a| format!("({a})")),
            (
                prop::sample::select(vec!["min", "max"]),
                inner.clone(),
                inner
            )
                .prop_map(|(f, a, b)| format!("{f}({a}, {b})")),
        ]
    });
    let update = (
        prop::sample::select(vec!["y(i)", "y(j + 1)", "t"]),
        prop::sample::select(vec!["=", "+=", "-=", "*=", "min=", "max=", "rise="]),
        value.clone(),
    )
        .prop_map(|(target, op, v)| format!("{target} {op} {v}"));
    update.prop_recursive(3, 12, 3, move |inner| {
        prop_oneof![
            (
                value.clone(),
                prop::sample::select(vec!["<", "<=", "==", "!=", ">", ">="]),
                value.clone(),
                inner.clone()
            )
                .prop_map(|(a, op, b, body)| format!("if ({a} {op} {b}) {body}")),
            prop::collection::vec(inner, 0..3).prop_map(|bs| format!("{{ {} }}", bs.join("; "))),
            value.clone().prop_map(|v| format!("P.insert({v}, i)")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Arbitrary text is an error or a computation, never a panic.
    #[test]
    fn garbage_never_panics(src in "\\PC{0,80}") {
        let _ = parse_computation(&src);
    }

    /// Mutated examples are errors or computations that round-trip.
    #[test]
    fn mutated_examples_never_panic(
        src in prop::sample::select(EXAMPLES.to_vec()).prop_flat_map(mutated)
    ) {
        if let Ok(c) = parse_computation(&src) {
            let printed = c.to_string();
            let again = parse_computation(&printed)
                .map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
            prop_assert_eq!(&again, &c, "{}", printed);
            prop_assert_eq!(again.to_string(), printed);
        }
    }

    /// Random bodies print and parse back equal.
    #[test]
    fn random_bodies_round_trip(body in body_text()) {
        let src = format!(
            "computation c(N) {{ in int col[N]; in real A[N]; out real y[N + 1]; temp real t; object P : S();
             S0: {body} domain {{[i, j] : 0 <= i < N && 0 <= j < i}} schedule {{[i, j] -> [0, i, 0, j, 0]}}; }}"
        );
        let c = parse_computation(&src).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
        let printed = c.to_string();
        let again = parse_computation(&printed)
            .map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
        prop_assert_eq!(&again, &c, "{}", printed);
        prop_assert_eq!(again.to_string(), printed);
    }
}
