//! What a test reports beyond passing or failing, shared by the test code
//! of every crate of the workspace (each includes this file by path): a
//! prerequisite it lacks, or a count of the cases it checked (with
//! [`checked_cases`], the property tests that count them).
//!
//! The lines are written to the process's standard error directly, not
//! with `eprintln!`: the test harness captures what `print!` and `eprint!`
//! write and shows it only for a failing test, while a direct write reaches
//! the terminal, so the line appears in the default `cargo test` output of
//! a passing test too.
//!
//! Two kinds of missing prerequisite:
//! - [`require`]: something CI installs (`.ci/run`: python3 with numpy and
//!   scipy, fonts). Under CI (`CI=true` or `CI=1` in the environment) its
//!   absence fails the test, naming what is missing; elsewhere the test
//!   reports itself skipped.
//! - [`host_has`]: a feature of the machine (a CPU's instructions, a
//!   kernel's call, free huge pages) that CI's machine may lack too; the
//!   test reports itself skipped even under CI, and covers the logic that
//!   does not need the feature by other means.

// Each including crate uses a part of it.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::io::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Whether the tests run under CI, where every prerequisite [`require`]
/// names must be present.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The name of the running test (the harness names each test's thread
/// after it), else `what`'s location.
#[track_caller]
fn test_name() -> String {
    std::thread::current()
        .name()
        .filter(|n| *n != "main")
        .map_or_else(
            || std::panic::Location::caller().to_string(),
            str::to_string,
        )
}

/// Writes `line` to the process's standard error, past the harness's
/// capture.
pub fn line(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Whether the prerequisite of `part` of the calling test (the whole
/// test, or a check of it) is present: `missing` is `None` when it is, else
/// what is missing (`python3 with numpy and scipy`). When it is missing,
/// under CI the test fails naming it; elsewhere this reports `part`
/// skipped and returns `false`.
#[track_caller]
pub fn require(part: &str, missing: Option<String>) -> bool {
    let Some(what) = missing else {
        return true;
    };
    let test = test_name();
    assert!(
        !in_ci(),
        "{test}: missing prerequisite: {what} (under CI every prerequisite must be present)"
    );
    skipped(&test, part, &format!("missing prerequisite: {what}"));
    false
}

/// Whether this machine has the feature that `part` of the calling test
/// needs: `missing` is `None` when it has, else what it lacks. When it
/// lacks it, this reports `part` skipped (under CI too: the feature is the
/// machine's, not something CI installs) and returns `false`.
#[track_caller]
pub fn host_has(part: &str, missing: Option<String>) -> bool {
    let Some(what) = missing else {
        return true;
    };
    skipped(&test_name(), part, &format!("this machine lacks {what}"));
    false
}

/// Writes that `part` of `test` is skipped and why, once per test and part
/// however often the test reaches it (a check made for each of several
/// cases).
fn skipped(test: &str, part: &str, why: &str) {
    static SHOWN: Mutex<BTreeSet<(String, String)>> = Mutex::new(BTreeSet::new());
    let first = SHOWN
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert((test.to_string(), part.to_string()));
    if first {
        line(&format!("skipped in {test}: {part} ({why})"));
    }
}

/// Reports how many cases the calling test checked (`checked` followed by
/// `what`: `65 of 256 cases validated and converted`) and fails it unless
/// they are at least `floor`: a property that stops checking its cases
/// fails instead of passing on none.
#[track_caller]
pub fn counted(checked: usize, what: &str, floor: usize) {
    let test = test_name();
    line(&format!(
        "{test}: {checked} {what} (at least {floor} required)"
    ));
    assert!(
        checked >= floor,
        "{test}: only {checked} {what}, fewer than the {floor} required"
    );
}

/// Runs the property `test` on `cases` values of `strategy`, after the
/// seeds of past failures that proptest keeps beside `source_file` (the
/// test's `file!()`), as `proptest!` does, and fails the calling test on
/// a failing case (shrunk). `test` says whether it checked the case or
/// passed over it (`Ok(false)`: a mutant that does not parse, say).
/// Returns (cases tried, cases checked), for [`counted`].
pub fn checked_cases<S: Strategy>(
    source_file: &'static str,
    cases: u32,
    strategy: &S,
    test: impl Fn(S::Value) -> Result<bool, TestCaseError>,
) -> (usize, usize) {
    let mut config = Config::with_cases(cases);
    config.source_file = Some(source_file);
    let [tried, checked] = [(); 2].map(|()| AtomicUsize::new(0));
    let result = TestRunner::new(config).run(strategy, |value| {
        tried.fetch_add(1, Ordering::Relaxed);
        if test(value)? {
            checked.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    (tried.into_inner(), checked.into_inner())
}
