//! Misuse of a scatter: typed errors before and while running in every
//! backend, aborts in the compiled runtimes, and what `place_inserted` and
//! `slot_inserted` leave unchecked in C and Rust.

use std::process::Command;

use codegen::ast::LoopProgram;
use codegen::c::emit_c;
use codegen::emit::EmitError;
use codegen::interp::{run, Memory, RunError, Site};
use codegen::runtime::{CallError, ObjectFault, SpecError};
use codegen::rust::emit_rust;

use crate::harness::{self, c_driver, rust_driver, tool, CFLAGS};
use crate::{call_error, fault, ints, program, run_error, with_object};

const SCATTER: &str = "Scatter(N)";

#[test]
fn invalid_scatter_calls_and_declarations_are_typed_errors_in_every_backend() {
    let insert = "P.insert(x(i))";
    assert!(matches!(
        call_error(&with_object(SCATTER, "y(i) = 0", "P.insert(x(i), 0)")),
        CallError::Arity {
            expected: 1,
            found: 2,
            ..
        }
    ));
    assert!(matches!(
        call_error(&with_object(SCATTER, insert, "y(i) = P.place(i, 0)")),
        CallError::Arity {
            expected: 1,
            found: 2,
            ..
        }
    ));
    assert!(matches!(
        call_error(&with_object(SCATTER, insert, "y(i) = P.start()")),
        CallError::Arity {
            expected: 1,
            found: 0,
            ..
        }
    ));
    assert!(matches!(
        call_error(&with_object(SCATTER, insert, "P.place(i)")),
        CallError::NotAStatement { .. }
    ));
    assert!(matches!(
        call_error(&with_object(SCATTER, insert, "P.start(i)")),
        CallError::NotAStatement { .. }
    ));
    assert!(matches!(
        call_error(&with_object(SCATTER, insert, "y(i) = P.sort()")),
        CallError::NotAValue { .. }
    ));
    assert!(matches!(
        call_error(&with_object(SCATTER, insert, "y(i) = P.map(i)")),
        CallError::UnknownMethod {
            kind: "Scatter",
            ..
        }
    ));
    assert!(matches!(
        call_error(&with_object(SCATTER, insert, "P.insert(0.5)")),
        CallError::RealArgument { position: 1, .. }
    ));
    // `place` only as the whole value of an assignment.
    for body in [
        "y(i) = P.place(i) + 1",
        "y(i) = -P.place(i)",
        "y(i) += P.place(i)",
        "y(i) = P.start(P.place(i))",
        "if (P.place(i) > 0) y(i) = 1",
        "P.insert(P.place(i))",
    ] {
        let e = call_error(&with_object(SCATTER, insert, body));
        assert_eq!(
            e,
            CallError::PlaceNotAssigned {
                call: "P.place".into()
            },
            "{body}"
        );
    }
    assert_eq!(
        CallError::PlaceNotAssigned {
            call: "P.place".into()
        }
        .to_string(),
        "`P.place` hands out a new value each time it is evaluated; it must be the whole \
         value of an assignment (`k = P.place(v)`)"
    );
    // Under a condition and in a sequence, an assignment is fine.
    for body in [
        "if (i > 0) y(i) = P.place(0)",
        "{ y(i) = 0; y(i) = P.place(0) }",
    ] {
        let p = with_object(SCATTER, insert, body);
        assert!(emit_c(&p).is_ok() && emit_rust(&p).is_ok(), "{body}");
    }
    // Declarations: one extent or several (the row-major linear keys of a
    // tuple), never none.
    {
        let p = with_object("Scatter()", "y(i) = 0", "y(i) = 1");
        let want = SpecError::ArgumentCount {
            kind: "Scatter",
            expected: "(E) or (E1, E2, ...)",
            found: 0,
        };
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
    }
}

#[test]
fn scatter_misuse_while_running_is_a_typed_error_naming_the_statement() {
    // x = [2, 0, 1]: each key of 0..3 inserted once.
    let insert = "P.insert(x(i))";
    let sorted = "{ P.insert(x(i)); if (i == N - 1) P.sort() }";
    // A key outside 0..E, either side.
    let key_out = |value| ObjectFault::KeyOutOfRange {
        component: 0,
        value,
        extent: 3,
    };
    assert_eq!(
        fault(
            &with_object(SCATTER, "y(i) = 0", "P.insert(3i)"),
            "P.insert"
        ),
        key_out(3)
    );
    assert_eq!(
        fault(
            &with_object(SCATTER, "y(i) = 0", "P.insert(-i)"),
            "P.insert"
        ),
        key_out(-1)
    );
    // Insert after sort.
    assert_eq!(
        fault(
            &with_object(SCATTER, sorted, "if (i > 0) P.insert(0)"),
            "P.insert"
        ),
        ObjectFault::InsertAfterSort
    );
    // Place more often than inserted: key 2 once, at position 2.
    assert_eq!(
        fault(
            &with_object(SCATTER, sorted, "y(i) = P.place(2)"),
            "P.place"
        ),
        ObjectFault::PlacedTooOften {
            key: 2,
            inserted: 1
        }
    );
    // `place_inserted` states that no key is placed more often than it was
    // inserted: the compiled runtimes trust it, the interpreter checks it
    // as for `place`.
    assert_eq!(
        fault(
            &with_object(SCATTER, sorted, "y(i) = P.place_inserted(2)"),
            "P.place_inserted"
        ),
        ObjectFault::PlacedTooOften {
            key: 2,
            inserted: 1
        }
    );
    assert_eq!(
        fault(
            &with_object(SCATTER, insert, "if (i > 0) y(i) = P.place_inserted(0)"),
            "P.place_inserted"
        ),
        ObjectFault::NotSorted
    );
    // So for slots, sorted or not; the first slot ends the inserts. The
    // interpreter checks what `slot_inserted` states as for `slot`.
    for before in [sorted, insert] {
        assert_eq!(
            fault(&with_object(SCATTER, before, "y(i) = P.slot(2)"), "P.slot"),
            ObjectFault::PlacedTooOften {
                key: 2,
                inserted: 1
            }
        );
        assert_eq!(
            fault(
                &with_object(SCATTER, before, "y(i) = P.slot_inserted(2)"),
                "P.slot_inserted"
            ),
            ObjectFault::PlacedTooOften {
                key: 2,
                inserted: 1
            }
        );
    }
    assert_eq!(
        fault(
            &with_object(
                SCATTER,
                insert,
                "{ if (i == 0) y(i) = P.slot(0); if (i == 1) P.insert(0) }"
            ),
            "P.insert"
        ),
        ObjectFault::InsertAfterSlot
    );
    assert_eq!(
        fault(
            // Nothing inserted; a second sort does nothing.
            &with_object(
                SCATTER,
                "y(i) = 0",
                "{ P.sort(); if (i > 0) y(i) = P.place(0) }"
            ),
            "P.place"
        ),
        ObjectFault::PlacedTooOften {
            key: 0,
            inserted: 0
        }
    );
    // Place and start before sort.
    assert_eq!(
        fault(
            &with_object(SCATTER, insert, "if (i > 0) y(i) = P.place(0)"),
            "P.place"
        ),
        ObjectFault::NotSorted
    );
    assert_eq!(
        fault(
            &with_object(SCATTER, insert, "if (i > 0) y(i) = P.start(0)"),
            "P.start"
        ),
        ObjectFault::NotSorted
    );
    // Keys out of range: start takes 0..=E, place 0..E.
    assert_eq!(
        fault(
            &with_object(SCATTER, sorted, "y(i) = P.start(i + 3)"),
            "P.start"
        ),
        ObjectFault::OutOfRange {
            argument: "key",
            value: 4,
            len: 4
        }
    );
    assert_eq!(
        fault(
            &with_object(SCATTER, sorted, "y(i) = P.place(3i)"),
            "P.place"
        ),
        ObjectFault::OutOfRange {
            argument: "key",
            value: 3,
            len: 3
        }
    );
    assert_eq!(
        fault(
            &with_object(SCATTER, sorted, "y(i) = P.start(-i)"),
            "P.start"
        ),
        ObjectFault::OutOfRange {
            argument: "key",
            value: -1,
            len: 4
        }
    );
    // What works: size any time, start(E), place as many times as inserted.
    let run_ok = |first: &str, body: &str| {
        let p = with_object(SCATTER, first, body);
        let mut mem = Memory::new()
            .with_symbol("N", 3)
            .with_array("x", ints(vec![2, 0, 1]))
            .with_array("y", ints(vec![0; 3]));
        run(&p, &mut mem, None).unwrap_or_else(|e| panic!("{body}: {e}"));
        mem.int("y").unwrap().to_vec()
    };
    assert_eq!(run_ok(insert, "y(i) = P.size()"), [3, 3, 3]);
    assert_eq!(
        run_ok(sorted, "{ P.sort(); y(i) = P.start(3) - P.size() }"),
        [0, 0, 0]
    );
    assert_eq!(run_ok(sorted, "y(i) = P.place(x(i))"), [2, 0, 1]);
    // A negative extent when the object is created.
    let p = program(
        "computation neg(N) { in int x[0]; out int y[0];
            object P : Scatter(N);
            S0: P.sort() domain {[]} schedule {[] -> [0]}; }",
    );
    let mut mem = Memory::new()
        .with_symbol("N", -1)
        .with_array("x", ints(vec![]))
        .with_array("y", ints(vec![]));
    let e = run(&p, &mut mem, None).unwrap_err();
    assert_eq!(
        e,
        RunError::ObjectFault {
            site: Site::Object("P".into()),
            call: "P : Scatter(N)".into(),
            fault: ObjectFault::NegativeExtent {
                component: 0,
                extent: -1
            },
        }
    );
}

/// Misuse of a scatter in compiled code: an abort with a message in C, a
/// panic in Rust.
#[test]
fn scatter_misuse_aborts_the_compiled_runtimes() {
    let mem = Memory::new()
        .with_symbol("N", 3)
        .with_array("x", ints(vec![2, 0, 2]))
        .with_array("y", ints(vec![0; 3]));
    let sorted = "{ P.insert(x(i)); if (i == N - 1) P.sort() }";
    let cases = [
        (
            "too_often",
            with_object(SCATTER, sorted, "y(i) = P.place(0)"),
            "spf runtime: place() more often than insert() of the key (0)",
            "spf runtime: place(0) called more often than key 0 was inserted",
        ),
        (
            "never_inserted",
            with_object(SCATTER, sorted, "y(i) = P.place(1)"),
            "spf runtime: place() more often than insert() of the key (1)",
            "spf runtime: place(1) called more often than key 1 was inserted",
        ),
        (
            "before_sort",
            with_object(SCATTER, "P.insert(x(i))", "y(i) = P.place(0)"),
            "spf runtime: place() before sort() (0)",
            "spf runtime: place() before sort()",
        ),
        // C's insert has no branch: keys outside 0..E, and any key once
        // sort() or slot() closed the inserts, count in a sink that sort(),
        // slot() and free test; the message gives how many went there.
        (
            "outside",
            with_object(SCATTER, "y(i) = 0", "P.insert(x(i) + 1)"),
            "spf runtime: key outside the scatter's range 0..3 (2 inserts)",
            "spf runtime: key 3 is outside the scatter's range 0..3",
        ),
        (
            "outside_negative",
            with_object(SCATTER, "y(i) = 0", "P.insert(x(i) - 2)"),
            "spf runtime: key outside the scatter's range 0..3 (1 insert)",
            "spf runtime: key -2 is outside the scatter's range 0..3",
        ),
        (
            // Found by sort(), before any position is handed out.
            "outside_then_sorted",
            with_object(
                SCATTER,
                "{ P.insert(x(i) + 1); if (i == N - 1) P.sort() }",
                "y(i) = P.start(i)",
            ),
            "spf runtime: key outside the scatter's range 0..3 (2 inserts)",
            "spf runtime: key 3 is outside the scatter's range 0..3",
        ),
        (
            "after_sort",
            with_object(SCATTER, sorted, "P.insert(0)"),
            "spf runtime: insert after sort() (3 inserts)",
            "spf runtime: insert after sort()",
        ),
        (
            // An out-of-range key after sort is an insert after sort.
            "after_sort_outside",
            with_object(SCATTER, sorted, "if (i == 1) P.insert(7)"),
            "spf runtime: insert after sort() (1 insert)",
            "spf runtime: insert after sort()",
        ),
        (
            // Positions are handed out in between (the sink is checked
            // when the scatter is freed): they are still right.
            "after_sort_then_place",
            with_object(
                SCATTER,
                sorted,
                "{ P.insert(x(i)); y(i) = P.place_inserted(x(i)) }",
            ),
            "spf runtime: insert after sort() (3 inserts)",
            "spf runtime: insert after sort()",
        ),
        (
            "place_inserted_before_sort",
            with_object(SCATTER, "P.insert(x(i))", "y(i) = P.place_inserted(0)"),
            "spf runtime: place_inserted() before sort() (0)",
            "spf runtime: place_inserted() before sort()",
        ),
        (
            // place_inserted() is trusted, but one place() in the mix
            // brings back the check of every key when the scatter is freed.
            "place_mixed_too_often",
            with_object(
                SCATTER,
                sorted,
                "{ if (i < 2) y(i) = P.place_inserted(2); if (i == 2) y(i) = P.place(2) }",
            ),
            "spf runtime: place() more often than insert() of the key (2)",
            "spf runtime: place(2) called more often than key 2 was inserted",
        ),
        (
            "slot_too_often",
            with_object(SCATTER, "P.insert(x(i))", "y(i) = P.slot(2)"),
            "spf runtime: slot() more often than insert() of the key (2)",
            "spf runtime: slot(2) called more often than key 2 was inserted",
        ),
        (
            // slot_inserted() is trusted, but one slot() in the mix brings
            // back the check of every key when the scatter is freed.
            "slot_mixed_too_often",
            with_object(
                SCATTER,
                "P.insert(x(i))",
                "{ if (i < 2) y(i) = P.slot_inserted(2); if (i == 2) y(i) = P.slot(2) }",
            ),
            "spf runtime: slot() more often than insert() of the key (2)",
            "spf runtime: slot(2) called more often than key 2 was inserted",
        ),
        (
            "slot_too_often_after_sort",
            with_object(SCATTER, sorted, "y(i) = P.slot(2)"),
            "spf runtime: slot() more often than insert() of the key (2)",
            "spf runtime: slot(2) called more often than key 2 was inserted",
        ),
        (
            "after_slot",
            with_object(
                SCATTER,
                "P.insert(x(i))",
                "{ if (i == 0) y(i) = P.slot(0); if (i == 1) P.insert(0) }",
            ),
            "spf runtime: insert after slot() (1 insert)",
            "spf runtime: insert after slot()",
        ),
        (
            // Inserts after slot(), then sort(): found by the sort.
            "after_slot_then_sort",
            with_object(
                SCATTER,
                "P.insert(x(i))",
                "{ if (i == 0) y(i) = P.slot(0); P.insert(0); if (i == N - 1) P.sort() }",
            ),
            "spf runtime: insert after slot() (3 inserts)",
            "spf runtime: insert after slot()",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mems = [mem];
    std::thread::scope(|s| {
        for (name, p, _, _) in &cases {
            let (dir, mems) = (dir.path(), &mems);
            s.spawn(move || {
                let c_src = dir.join(format!("{name}.c"));
                std::fs::write(&c_src, c_driver(p, mems)).unwrap();
                tool(
                    Command::new("cc")
                        .args(CFLAGS)
                        .arg(&c_src)
                        .arg("-o")
                        .arg(dir.join(format!("{name}_c"))),
                    "cc",
                );
            });
            s.spawn(move || {
                let rs_src = dir.join(format!("{name}.rs"));
                std::fs::write(&rs_src, rust_driver(p, mems)).unwrap();
                tool(
                    Command::new("rustc")
                        .args(["--edition", "2021", "-D", "warnings", "-o"])
                        .arg(dir.join(format!("{name}_rs")))
                        .arg(&rs_src),
                    "rustc",
                );
            });
        }
    });
    for (name, _, c_message, rs_message) in &cases {
        for (exe, message) in [
            (dir.path().join(format!("{name}_c")), c_message),
            (dir.path().join(format!("{name}_rs")), rs_message),
        ] {
            let out = Command::new(&exe).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{exe:?} should fail");
            assert!(stderr.contains(message), "{exe:?}: {stderr}");
        }
    }
}

/// What `place_inserted` states is trusted by the compiled runtimes: a key
/// placed more often than it was inserted (here key 0, inserted once,
/// placed three times) is not checked in C or Rust, which hand out the
/// next positions (0, 1, 2) as `place` would before its check; the
/// interpreter checks the claim and reports the third call's fault. A
/// hand-written computation that cannot state it calls `place`, checked in
/// every backend (`scatter_misuse_aborts_the_compiled_runtimes`).
#[test]
fn place_inserted_is_trusted_by_the_compiled_runtimes_and_checked_by_the_interpreter() {
    let p = with_object(
        SCATTER,
        "{ P.insert(x(i)); if (i == N - 1) P.sort() }",
        "y(i) = P.place_inserted(0)",
    );
    trusted_by_the_compiled_runtimes_and_checked_by_the_interpreter(&p, "P.place_inserted");
}

/// Runs `p` (its statement `S0` hands out three positions or slots of key
/// 0, which `x = [2, 0, 2]` inserts once, with `call`): C and Rust hand
/// out 0, 1, 2 unchecked, the interpreter reports the second call's fault.
fn trusted_by_the_compiled_runtimes_and_checked_by_the_interpreter(p: &LoopProgram, call: &str) {
    let mem = Memory::new()
        .with_symbol("N", 3)
        .with_array("x", ints(vec![2, 0, 2]))
        .with_array("y", ints(vec![0; 3]));
    let dir = tempfile::tempdir().unwrap();
    let mems = [mem.clone()];
    let c = harness::run_c(dir.path(), p, &mems);
    assert_eq!(c[0]["y"], ints(vec![0, 1, 2]), "{call}");
    let r = harness::run_rust(dir.path(), p, &mems);
    assert_eq!(r[0]["y"], ints(vec![0, 1, 2]), "{call}");
    let mut interp = mem;
    assert_eq!(
        run(p, &mut interp, None).unwrap_err(),
        RunError::ObjectFault {
            site: Site::Statement {
                name: "S0".into(),
                point: vec![1],
            },
            call: call.into(),
            fault: ObjectFault::PlacedTooOften {
                key: 0,
                inserted: 1
            },
        }
    );
}

/// So for `slot_inserted`: key 0, inserted once, given three slots, is
/// not checked in C or Rust (slots 0, 1, 2, as `slot` hands them out before
/// its check); the interpreter reports the second call's fault.
#[test]
fn slot_inserted_is_trusted_by_the_compiled_runtimes_and_checked_by_the_interpreter() {
    let p = with_object(SCATTER, "P.insert(x(i))", "y(i) = P.slot_inserted(0)");
    trusted_by_the_compiled_runtimes_and_checked_by_the_interpreter(&p, "P.slot_inserted");
}
