//! Misuse of permutations and ordered sets: typed errors before and while
//! running in every backend, and the compiled runtimes' aborts.

use std::process::Command;

use codegen::c::emit_c;
use codegen::emit::EmitError;
use codegen::interp::{run, Memory, RunError, Site};
use codegen::runtime::{CallError, ObjectFault, SpecError};
use codegen::rust::emit_rust;

use crate::harness::{c_driver, rust_driver, tool, CFLAGS};
use crate::{call_error, fault, ints, program, run_error, with_object};

/// Inserting outside an ordered set's bounds: a typed error in the
/// interpreter, an abort in C, a panic in Rust, each with a message.
#[test]
fn misuse_aborts_the_compiled_runtimes() {
    let p = program(
        "computation misuse(N) {
            in  int x[N];
            out int y[N];
            object S : OrderedSet(0, 3);
            S0: S.insert(x(i)) domain {[i] : 0 <= i < N} schedule {[i] -> [0, i, 0]};
            S1: S.sort() domain {[]} schedule {[] -> [1, 0, 0]};
            S2: y(i) = S.index(x(i)) domain {[i] : 0 <= i < N} schedule {[i] -> [2, i, 0]};
        }",
    );
    let mem = Memory::new()
        .with_symbol("N", 3)
        .with_array("x", ints(vec![1, 5, 2]))
        .with_array("y", ints(vec![0; 3]));
    let e = run(&p, &mut mem.clone(), None).unwrap_err();
    assert_eq!(
        e,
        RunError::ObjectFault {
            site: Site::Statement {
                name: "S0".into(),
                point: vec![1]
            },
            call: "S.insert".into(),
            fault: ObjectFault::OutsideBounds {
                value: 5,
                lo: 0,
                hi: 3
            },
        }
    );
    assert_eq!(
        e.to_string(),
        "statement S0 at [1]: `S.insert`: 5 is outside the set's bounds 0..=3"
    );
    let dir = tempfile::tempdir().unwrap();
    let mems = [mem];
    let c_src = dir.path().join("misuse.c");
    std::fs::write(&c_src, c_driver(&p, &mems)).unwrap();
    let rs_src = dir.path().join("misuse.rs");
    std::fs::write(&rs_src, rust_driver(&p, &mems)).unwrap();
    let (c_exe, rs_exe) = (dir.path().join("misuse_c"), dir.path().join("misuse_rs"));
    std::thread::scope(|s| {
        s.spawn(|| {
            tool(
                Command::new("cc")
                    .args(CFLAGS)
                    .arg(&c_src)
                    .arg("-o")
                    .arg(&c_exe),
                "cc",
            )
        });
        tool(
            Command::new("rustc")
                .args(["--edition", "2021", "-D", "warnings", "-o"])
                .arg(&rs_exe)
                .arg(&rs_src),
            "rustc",
        );
    });
    for (exe, message) in [
        (
            &c_exe,
            "spf runtime: value outside the ordered set's bounds (5)",
        ),
        (&rs_exe, "spf runtime: 5 is outside the set's bounds 0..=3"),
    ] {
        let out = Command::new(exe).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{exe:?} should fail");
        assert!(stderr.contains(message), "{exe:?}: {stderr}");
    }
}

const LEX: &str = "Permutation(1, lex)";
const COUNT: &str = "Permutation(1, counting, N)";
const SET: &str = "OrderedSet(0, 2)";

#[test]
fn invalid_calls_are_typed_errors_in_every_backend() {
    let insert = "P.insert(x(i))";
    assert!(matches!(
        call_error(&with_object("Permutation(2, lex)", "y(i) = 0", insert)),
        CallError::Arity { .. }
    ));
    assert!(matches!(
        call_error(&with_object(LEX, insert, "y(i) = P.frobnicate(i)")),
        CallError::UnknownMethod { .. }
    ));
    assert!(matches!(
        call_error(&with_object(LEX, insert, "y(i) = P.key(1, i)")),
        CallError::Component {
            component: 1,
            arity: 1,
            ..
        }
    ));
    assert!(matches!(
        call_error(&with_object(LEX, insert, "y(i) = P.count(0, i)")),
        CallError::Order { order: "lex", .. }
    ));
    assert!(matches!(
        call_error(&with_object(SET, insert, "y(i) = P.map(i)")),
        CallError::UnknownMethod {
            kind: "OrderedSet",
            ..
        }
    ));
    assert!(matches!(
        call_error(&with_object(LEX, insert, "P.size()")),
        CallError::NotAStatement { .. }
    ));
    assert!(matches!(
        call_error(&with_object(LEX, insert, "y(i) = P.sort()")),
        CallError::NotAValue { .. }
    ));
    assert!(matches!(
        call_error(&with_object(LEX, insert, "P.insert(0.5)")),
        CallError::RealArgument { position: 1, .. }
    ));
    // An object the computation does not declare (built in code: the parser
    // rejects it).
    let mut p = with_object(LEX, insert, "y(i) = P.size()");
    p.computation.objects[0].name = "Q".into();
    match run_error(&p) {
        RunError::Call { stmt, error } => {
            assert_eq!(stmt, "F0");
            assert_eq!(error, CallError::UnknownObject { object: "P".into() });
        }
        e => panic!("{e}"),
    }
}

#[test]
fn invalid_declarations_are_typed_errors_in_every_backend() {
    let p = with_object("Permutation(2, hilbert)", "y(i) = 0", "y(i) = 1");
    let want = SpecError::UnknownOrder("hilbert".into());
    match run_error(&p) {
        RunError::Object { object, error } => {
            assert_eq!((object, error), ("P".into(), want.clone()))
        }
        e => panic!("{e}"),
    }
    let emitted = EmitError::Object {
        object: "P".into(),
        error: want,
    };
    assert_eq!(emit_c(&p).unwrap_err(), emitted);
    assert_eq!(emit_rust(&p).unwrap_err(), emitted);
    assert!(matches!(
        run_error(&with_object("Heap()", "y(i) = 0", "y(i) = 1")),
        RunError::Object {
            error: SpecError::UnknownKind(_),
            ..
        }
    ));
}

#[test]
fn misuse_while_running_is_a_typed_error_naming_the_statement() {
    let insert = "P.insert(x(i))";
    let sorted = "{ P.insert(x(i)); if (i == N - 1) P.sort() }";
    // Out of range: map, entry, key, value.
    assert_eq!(
        fault(&with_object(LEX, insert, "y(i) = P.map(i + 2)"), "P.map"),
        ObjectFault::OutOfRange {
            argument: "entry",
            value: 3,
            len: 3
        }
    );
    assert_eq!(
        fault(&with_object(LEX, sorted, "y(i) = P.entry(-i)"), "P.entry"),
        ObjectFault::OutOfRange {
            argument: "position",
            value: -1,
            len: 3
        }
    );
    assert_eq!(
        fault(&with_object(LEX, sorted, "y(i) = P.key(i, 0)"), "P.key"),
        ObjectFault::OutOfRange {
            argument: "key component",
            value: 1,
            len: 1
        }
    );
    assert_eq!(
        fault(
            &with_object(SET, sorted, "y(i) = P.value(i + 2)"),
            "P.value"
        ),
        ObjectFault::OutOfRange {
            argument: "position",
            value: 3,
            len: 3
        }
    );
    // Inserting after sort, outside the bounds, outside a counting range.
    assert_eq!(
        fault(
            &with_object(LEX, sorted, "if (i > 0) P.insert(i)"),
            "P.insert"
        ),
        ObjectFault::InsertAfterSort
    );
    assert_eq!(
        fault(
            &with_object(SET, "P.sort()", "if (i > 0) P.insert(i)"),
            "P.insert"
        ),
        ObjectFault::InsertAfterSort
    );
    assert_eq!(
        fault(
            &with_object("OrderedSet(-1, 1)", "y(i) = 0", "P.insert(2i)"),
            "P.insert"
        ),
        ObjectFault::OutsideBounds {
            value: 2,
            lo: -1,
            hi: 1
        }
    );
    assert_eq!(
        fault(&with_object(COUNT, "y(i) = 0", "P.insert(3i)"), "P.insert"),
        ObjectFault::KeyOutOfRange {
            component: 0,
            value: 3,
            extent: 3
        }
    );
    assert_eq!(
        fault(
            &with_object("Permutation(1, morton)", "y(i) = 0", "P.insert(-i)"),
            "P.insert"
        ),
        ObjectFault::NegativeKey {
            component: 0,
            value: -1
        }
    );
    // Methods of a sorted object before sort.
    assert_eq!(
        fault(
            &with_object(COUNT, "y(i) = 0", "if (i > 0) y(i) = P.start(i)"),
            "P.start"
        ),
        ObjectFault::NotSorted
    );
    assert_eq!(
        fault(
            &with_object(SET, insert, "if (i > 0) y(i) = P.index(i)"),
            "P.index"
        ),
        ObjectFault::NotSorted
    );
    // A negative counting extent when the object is created.
    let mut mem = Memory::new()
        .with_symbol("N", -1)
        .with_array("x", ints(vec![]))
        .with_array("y", ints(vec![]));
    let p = program(
        "computation neg(N) { in int x[0]; out int y[0];
            object P : Permutation(1, counting, N);
            S0: P.sort() domain {[]} schedule {[] -> [0]}; }",
    );
    assert!(matches!(
        run(&p, &mut mem, None).unwrap_err(),
        RunError::ObjectFault {
            site: Site::Object(_),
            fault: ObjectFault::NegativeExtent {
                component: 0,
                extent: -1
            },
            ..
        }
    ));
}
