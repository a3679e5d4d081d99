//! What a conversion by `spf convert` or by a program `spf build` made
//! did with one input, in one form whatever the path: the tests that run
//! one input through both (`cli_differential.rs`, `cli_reader_fuzz.rs`)
//! share these.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use spf::synth::instance::{Instance, Values};

use super::text;

/// The sanitizers' flags: every report stops the program (`-O0` compiles
/// in a third of `-O1`'s time; the sanitizers check every access at any
/// level).
pub const SANITIZE: &str = "-O0 -fsanitize=address,undefined -fno-sanitize-recover=all";

/// Runs a built program with `args`, a sanitizer's report an exit status
/// of its own (90, 91) rather than a crash.
pub fn run_program(bin: &Path, args: &[&str]) -> Output {
    Command::new(bin)
        .args(args)
        .env(
            "ASAN_OPTIONS",
            "detect_leaks=0:abort_on_error=0:exitcode=90:allocator_may_return_null=1",
        )
        .env(
            "UBSAN_OPTIONS",
            "halt_on_error=1:exitcode=91:print_stacktrace=1",
        )
        .output()
        .expect("the program runs")
}

/// What a conversion computes, in one form whatever the file kind: the
/// format, the symbols, and each array's integers or the bits of its
/// reals (an empty array has no element type; the index width a path ran
/// at is left out, since the paths may pick differently).
#[derive(Debug, PartialEq, Eq)]
pub struct Computed {
    pub format: String,
    pub symbols: BTreeMap<String, i64>,
    pub arrays: BTreeMap<String, Result<Vec<i64>, Vec<u64>>>,
}

pub fn computed(i: &Instance) -> Computed {
    let arrays = i
        .arrays
        .iter()
        .map(|(name, v)| {
            let a = match v {
                Values::Real(r) if !r.is_empty() => Err(r.iter().map(|x| x.to_bits()).collect()),
                _ => Ok((0..v.len())
                    .map(|k| v.int_at(k).unwrap_or(i64::MIN))
                    .collect()),
            };
            (name.clone(), a)
        })
        .collect();
    Computed {
        format: i.format.clone(),
        symbols: i.symbols.clone(),
        arrays,
    }
}

/// The instance in a JSON file.
pub fn result(path: &Path) -> Instance {
    Instance::from_json(&std::fs::read_to_string(path).expect("written"))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What one path made of one input: the result, or the refusal's message.
#[derive(Debug)]
pub enum Outcome {
    Converted(Instance),
    Refused(String),
}

/// `spf convert` (or a program) run with `-o out`: its outcome; any other
/// exit status than 0 and 2 (a crash, a signal), a refusal without a
/// message or with a partial output, and any sanitizer report, fail the
/// test.
pub fn outcome(what: &str, out: &Output, path: &Path) -> Outcome {
    let stderr = text(&out.stderr);
    // An allocation AddressSanitizer cannot make returns null (the
    // program's "too large" follows), after a warning that is no report.
    let reported = stderr.lines().any(|l| {
        l.contains("Sanitizer") && !l.contains("WARNING: AddressSanitizer failed to allocate")
    });
    assert!(
        !reported && !stderr.contains("runtime error:"),
        "{what}: a sanitizer report:\n{stderr}"
    );
    match out.status.code() {
        Some(0) => Outcome::Converted(result(path)),
        Some(2) => {
            assert!(
                !stderr.trim().is_empty(),
                "{what}: exit 2 without a message"
            );
            assert!(
                !path.exists(),
                "{what}: refused, but wrote {}",
                path.display()
            );
            Outcome::Refused(stderr)
        }
        other => panic!("{what}: exit status {other:?}:\n{stderr}"),
    }
}

/// The first line of a refusal's message, without spf's prefix and the
/// input's name (`spf: `, `PATH: `).
pub fn reason<'a>(message: &'a str, input: &Path) -> &'a str {
    let line = message.lines().next().unwrap_or_default();
    let line = line.strip_prefix("spf: ").unwrap_or(line);
    line.strip_prefix(&format!("{}: ", input.display()))
        .unwrap_or(line)
}
