//! `spf convert`'s native engine end to end: compiled conversions give the
//! interpreter's instances, the cache is reused and safe under concurrent
//! builds, a missing compiler falls back to the interpreter, and
//! `--no-verify` skips the result's check. Each test has a cache directory
//! of its own (`SPF_CACHE_DIR`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

use common::{s, text};

fn temp(test: &str) -> PathBuf {
    let dir = common::temp("cli-native", test);
    // A fresh cache: nothing left from an earlier run.
    let _ = std::fs::remove_dir_all(dir.join("cache"));
    dir
}

fn matrix(name: &str) -> PathBuf {
    common::test_data(&format!("matrices/{name}"))
}

/// Runs `spf` with `args`, the cache in `dir/cache`, and `env` set.
fn spf_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    command(dir, args, env).output().expect("spf runs")
}

/// `spf convert SRC DST INPUT -o OUT EXTRA..` with the cache in `dir/cache`.
fn convert(
    dir: &Path,
    pair: (&str, &str),
    input: &Path,
    out: &Path,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Output {
    let mut args = vec!["convert", pair.0, pair.1, s(input), "-o", s(out)];
    args.extend(extra);
    spf_in(dir, &args, env)
}

fn command(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spf"));
    cmd.args(args).env("SPF_CACHE_DIR", dir.join("cache"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// The libraries in the cache directory, and whether anything else (a
/// compiler's work directory) was left there.
/// The conversion libraries of the cache in `dir` (sorted), and what else
/// is there besides the formats' check libraries (`check-NAME-HASH.so`,
/// [`checks`]).
fn cached(dir: &Path) -> (Vec<PathBuf>, Vec<String>) {
    let mut libs = Vec::new();
    let mut others = Vec::new();
    for e in std::fs::read_dir(dir.join("cache")).expect("a cache directory") {
        let path = e.expect("an entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.extension().is_some_and(|x| x == "so") {
            if !name.starts_with("check-") {
                libs.push(path);
            }
        } else if !name.starts_with("validated-") && !name.starts_with("lowered-") {
            others.push(path.display().to_string());
        }
    }
    libs.sort();
    (libs, others)
}

/// The synthesis records of the cache in `dir` (`lowered-`,
/// `validated-`) with their modification times, sorted.
fn records(dir: &Path) -> Vec<(String, std::time::SystemTime)> {
    let mut found: Vec<_> = std::fs::read_dir(dir.join("cache"))
        .expect("a cache directory")
        .map(|e| e.expect("an entry"))
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with("validated-") || name.starts_with("lowered-")
        })
        .map(|e| {
            let modified = e.metadata().unwrap().modified().unwrap();
            (e.file_name().to_string_lossy().into_owned(), modified)
        })
        .collect();
    found.sort();
    found
}

/// The names of the check libraries of the cache in `dir`, sorted.
fn checks(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("cache"))
        .expect("a cache directory")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.starts_with("check-") && n.ends_with(".so"))
        .collect();
    names.sort();
    names
}

fn converted(dir: &Path, name: &str, out: &Output) -> String {
    assert!(out.status.success(), "{name}: {}", text(&out.stderr));
    std::fs::read_to_string(dir.join(name)).expect("written")
}

#[test]
fn native_and_interpreter_give_identical_instances() {
    let dir = temp("agree");
    // Transpositions, sorts, padded and compressed destinations, a source
    // that is not COO (read through a second compiled conversion).
    let pairs = [
        ("coo", "csr"),
        ("csr", "csc"),
        ("coo", "dia"),
        ("csc", "ell"),
        ("coo", "dcsr"),
        ("coo", "bcsr"),
        ("coo", "mcoo"),
    ];
    for (src, dst) in pairs {
        for m in [matrix("jgl009.mtx"), matrix("lund_a.mtx")] {
            let mut outputs = Vec::new();
            for engine in ["native", "interp"] {
                let name = format!("{src}_{dst}_{engine}.json");
                let out = convert(
                    &dir,
                    (src, dst),
                    &m,
                    &dir.join(&name),
                    &["--engine", engine],
                    &[],
                );
                // Nothing on standard error: not a terminal, no notice.
                assert_eq!(text(&out.stderr), "", "{src} -> {dst} ({engine})");
                outputs.push(converted(&dir, &name, &out));
            }
            assert_eq!(outputs[0], outputs[1], "{src} -> {dst} on {}", m.display());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_second_conversion_of_a_pair_does_not_compile() {
    let dir = temp("cache");
    let m = matrix("lund_a.mtx");
    let (first, second) = (dir.join("first.json"), dir.join("second.json"));
    let out = convert(&dir, ("coo", "csc"), &m, &first, &["--verbose"], &[]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("spf: compiled library "), "{err}");
    assert!(
        err.contains("converting COO -> CSC natively (32-bit indices)"),
        "{err}"
    );
    let (libs, others) = cached(&dir);
    assert_eq!(libs.len(), 1, "{libs:?}");
    assert!(others.is_empty(), "{others:?}");
    let name = libs[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("COO-CSC-i32-"), "{name}");
    // The result's check, compiled once too (the .mtx input is not
    // checked again: the reader's guarantee covers COO).
    let check = checks(&dir);
    assert_eq!(check.len(), 1, "{check:?}");
    assert!(check[0].starts_with("check-CSC-"), "{check:?}");
    // The conversion's lowering, and its pass of the battery, are recorded.
    let record = records(&dir);
    assert_eq!(record.len(), 2, "{record:?}");
    assert!(record[0].0.starts_with("lowered-"), "{record:?}");
    let modified = std::fs::metadata(&libs[0]).unwrap().modified().unwrap();

    let out = convert(&dir, ("coo", "csc"), &m, &second, &["--verbose"], &[]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("spf: cached library "), "{err}");
    assert!(!err.contains("compiled library"), "{err}");
    assert!(!err.contains("compiling"), "{err}");
    assert_eq!(cached(&dir).0, libs);
    assert_eq!(checks(&dir), check);
    // The record answered: no lowering, no battery (nothing noted again).
    assert_eq!(records(&dir), record);
    assert_eq!(
        std::fs::metadata(&libs[0]).unwrap().modified().unwrap(),
        modified
    );
    assert_eq!(
        std::fs::read(&first).unwrap(),
        std::fs::read(&second).unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_processes_building_one_library_both_succeed() {
    let dir = temp("concurrent");
    let m = matrix("jgl009.mtx");
    let outs: Vec<PathBuf> = (0..2).map(|k| dir.join(format!("out{k}.json"))).collect();
    let children: Vec<_> = outs
        .iter()
        .map(|o| {
            command(
                &dir,
                &[
                    "convert",
                    "coo",
                    "dia",
                    s(&m),
                    "-o",
                    s(o),
                    "--engine",
                    "native",
                ],
                &[],
            )
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spf starts")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("spf ends");
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    assert_eq!(
        std::fs::read(&outs[0]).unwrap(),
        std::fs::read(&outs[1]).unwrap()
    );
    let (libs, others) = cached(&dir);
    assert_eq!(libs.len(), 1, "{libs:?}");
    assert_eq!(checks(&dir).len(), 1, "{:?}", checks(&dir));
    assert!(others.is_empty(), "work directories left: {others:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_a_compiler_the_interpreter_converts_after_a_notice() {
    let dir = temp("no-cc");
    let m = matrix("jgl009.mtx");
    let no_cc = [("CC", "/nonexistent/spf-test-cc")];
    let pair = ("coo", "csr");
    let out = convert(&dir, pair, &m, &dir.join("auto.json"), &[], &no_cc);
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(
            "spf: note: converting in the interpreter (slower): cannot run the C compiler \
             `/nonexistent/spf-test-cc`"
        ),
        "{err}"
    );
    let auto = converted(&dir, "auto.json", &out);
    let interp = ["--engine", "interp"];
    let out = convert(&dir, pair, &m, &dir.join("interp.json"), &interp, &[]);
    assert_eq!(converted(&dir, "interp.json", &out), auto);
    // Asked for, native code without a compiler is an error, and no output.
    let native_json = dir.join("native.json");
    let native = ["--engine", "native"];
    let out = convert(&dir, pair, &m, &native_json, &native, &no_cc);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("cannot run the C compiler"), "{err}");
    assert!(!native_json.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_verify_skips_the_check_of_the_result() {
    let dir = temp("no-verify");
    let m = matrix("lund_a.mtx");
    let mut outputs = Vec::new();
    for (name, verify) in [("checked.json", true), ("unchecked.json", false)] {
        let mut extra = vec!["--engine", "interp", "--verbose"];
        if !verify {
            extra.push("--no-verify");
        }
        let out = convert(&dir, ("coo", "csr"), &m, &dir.join(name), &extra, &[]);
        let err = text(&out.stderr);
        assert_eq!(
            err.contains("spf: verifying the CSR result"),
            verify,
            "{err}"
        );
        // The input is checked either way: its reading is a step.
        assert!(err.contains("spf: reading "), "{err}");
        outputs.push(converted(&dir, name, &out));
    }
    assert_eq!(outputs[0], outputs[1]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// An entry the destination cannot store would make compiled code write
/// outside its arrays: it is refused before any conversion runs, with
/// `--no-verify` too.
#[test]
fn an_entry_the_destination_cannot_store_is_refused_without_verification() {
    let dir = temp("unstorable");
    let skyl = "skyl";
    let out_json = dir.join("out.json");
    let extra = ["--engine", "native", "--no-verify"];
    let full = matrix("jgl009.mtx");
    let out = convert(&dir, ("coo", skyl), &full, &out_json, &extra, &[]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot be stored in SKYL"), "{err}");
    assert!(!out_json.exists());
    let _ = std::fs::remove_dir_all(&dir);
}
