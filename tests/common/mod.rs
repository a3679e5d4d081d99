//! Helpers shared by the end-to-end tests of the `spf` command.

#![allow(dead_code)]

pub mod bad_inputs;
pub mod outcome;
pub mod report;
pub mod scipy_files;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `spf` with `args` (no standard input) and collects its output.
/// Compiled conversions go to a cache in the temporary directory shared by
/// the tests, never to the user's.
pub fn spf(args: &[&str]) -> Output {
    spf_command().args(args).output().expect("spf runs")
}

/// The `spf` command with the tests' cache, to add arguments and an
/// environment to.
pub fn spf_command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_spf"));
    command.env(
        "SPF_CACHE_DIR",
        std::env::temp_dir().join("spf-tests-cache"),
    );
    command
}

/// Output bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh scratch directory for one test of one test binary.
pub fn temp(binary: &str, test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spf-{binary}-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A file of the repository's `tests/data`; a missing file fails the test
/// with its name.
pub fn test_data(path: &str) -> PathBuf {
    let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data")).join(path);
    assert!(p.is_file(), "test file {} is missing", p.display());
    p
}

/// A path as a command-line argument.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// `matrix` restricted to the entries both built-in formats `src` and
/// `dst` can store (a skyline stores one triangle): the file itself when
/// nothing is left out, else a Matrix Market file in `dir` with the rest.
/// The pair tests run each pair on what it can convert; the refusal of
/// the rest is tested on its own.
pub fn storable(matrix: &Path, src: &str, dst: &str, dir: &Path) -> PathBuf {
    use spf::synth::representable::Representable;
    let storable: Vec<Representable> = [src, dst]
        .iter()
        .map(|f| Representable::of(&spf::synth::builtin::load_format(f).expect("built-in")))
        .filter(|r| !r.is_everything())
        .collect();
    if storable.is_empty() {
        return matrix.to_path_buf();
    }
    let coords = spf::synth::tensor_io::read_file(matrix, None).expect("readable");
    let kept = storable.iter().fold(coords.clone(), |c, r| r.restrict(&c));
    if kept == coords {
        return matrix.to_path_buf();
    }
    let stem = matrix.file_stem().and_then(|s| s.to_str()).unwrap_or("m");
    let path = dir.join(format!("{stem}.{src}.{dst}.storable.mtx"));
    std::fs::write(&path, spf::synth::validate::coordinate_text(&kept)).expect("write");
    path
}

/// `f` of each of `0..n`, in order, computed on every processor (rayon's
/// pool): for a test of long independent items (a compiler run each),
/// which would otherwise leave a core idle.
pub fn on_every_processor<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    use rayon::prelude::*;
    (0..n).into_par_iter().map(&f).collect()
}
