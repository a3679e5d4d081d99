//! The C compiler spf runs: which one (`$CC`, else `cc`, `gcc`, `clang`),
//! with which flags, and how an executable or library is built so that it
//! appears whole or not at all.

use std::path::Path;
use std::process::Command;

use crate::Error;

/// Compiles `source` into the executable `output` with the C compiler
/// (`$CC`, else `cc`, else `gcc`, else `clang`) and
/// `-O3 -march=native -std=c99` ([`C_FLAGS`]; on x86-64 also
/// `-mprefer-vector-width=256 -falign-loops=32`), plus `extra` flags. The compiler works in a
/// temporary directory beside `output`; the executable is renamed into
/// place, so `output` appears whole or not at all.
///
/// # Errors
///
/// [`Error::Usage`] without a compiler or when compilation fails (with
/// the compiler's messages), [`Error::Write`] when a file cannot be
/// written.
pub fn compile(source: &str, output: &Path, extra: &[&str]) -> Result<(), Error> {
    compile_with(&find_compiler()?, source, output, extra)
}

/// The optimization flags of every converter (the benchmark compiles its C
/// baselines with the same, bench/build.rs). On x86-64, 256-bit vectors:
/// GCC 12 tuned for AMD Zen 4 otherwise turns indirect stores (DIA's
/// `A_out[ii * ND + index(jj - ii)] = A[n]`) into AVX-512 gathers and
/// scatters that are slower than scalar code there (COO → DIA 12–18%); 256
/// is GCC's own preference for Intel's AVX-512 parts. Loops start on 32-byte
/// boundaries: with GCC's default, where a hot loop fell relative to the
/// instruction fetch blocks moved with the size of unrelated code, and the
/// same C transposition took 0.79 or 1.13 ms on ecology1 (scale 0.05)
/// depending on whether a range check elsewhere in the program was
/// compiled; aligned, the two agree within the machine's noise.
#[cfg(target_arch = "x86_64")]
pub const C_FLAGS: &[&str] = &[
    "-O3",
    "-march=native",
    "-std=c99",
    "-mprefer-vector-width=256",
    "-falign-loops=32",
];
/// The optimization flags of every converter (the benchmark compiles its C
/// baselines with the same, bench/build.rs).
#[cfg(not(target_arch = "x86_64"))]
pub const C_FLAGS: &[&str] = &["-O3", "-march=native", "-std=c99"];

/// [`compile`] with a given compiler command (program and arguments).
pub(super) fn compile_with(
    compiler: &[String],
    source: &str,
    output: &Path,
    extra: &[&str],
) -> Result<(), Error> {
    let shown = output.display().to_string();
    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "conversion".into());
    // One work directory per call: two threads may build the same output.
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let work = dir.join(format!(".{name}.spf-build-{}-{call}", std::process::id()));
    let write_error = |source| Error::Write {
        path: shown.clone(),
        source,
    };
    crate::output::check_target(output)?;
    std::fs::create_dir(&work).map_err(write_error)?;
    let result = (|| {
        let c_file = work.join("conversion.c");
        std::fs::write(&c_file, source).map_err(write_error)?;
        let binary = work.join("conversion");
        // Libraries (`-l…`) after the source, where the linker looks for
        // what the source still needs.
        let (libraries, flags): (Vec<&str>, Vec<&str>) =
            extra.iter().partition(|f| f.starts_with("-l"));
        let mut cmd = Command::new(&compiler[0]);
        cmd.args(&compiler[1..])
            .args(C_FLAGS)
            .args(flags)
            .arg("-o")
            .arg(&binary)
            .arg(&c_file)
            .args(libraries)
            .arg("-lm");
        let out = cmd.output().map_err(|e| {
            Error::Compiler(format!("cannot run the C compiler `{}`: {e}", compiler[0]))
        })?;
        if !out.status.success() {
            let messages = String::from_utf8_lossy(&out.stderr);
            let shown_lines: Vec<&str> = messages.lines().take(40).collect();
            return Err(Error::Compiler(format!(
                "the C compiler `{}` failed ({}):\n{}",
                compiler.join(" "),
                out.status,
                shown_lines.join("\n")
            )));
        }
        std::fs::rename(&binary, output).map_err(write_error)
    })();
    let _ = std::fs::remove_dir_all(&work);
    result
}

/// The flags that give a program zlib (`-DSPF_HAVE_ZLIB=1 -lz`: built
/// programs then read deflated `.npz` members and gzip files), when the C
/// compiler finds zlib's header and library; none otherwise. Probed once
/// per process, by compiling a program that calls zlib.
pub fn zlib_flags() -> &'static [&'static str] {
    static FOUND: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let found = *FOUND.get_or_init(|| {
        let Ok(compiler) = find_compiler() else {
            return false;
        };
        let dir = std::env::temp_dir().join(format!("spf-zlib-probe-{}", std::process::id()));
        if std::fs::create_dir_all(&dir).is_err() {
            return false;
        }
        let probe = "#include <zlib.h>\nint main(void) { return zlibVersion() == 0; }\n";
        let found = compile_with(&compiler, probe, &dir.join("probe"), &["-lz"]).is_ok();
        let _ = std::fs::remove_dir_all(&dir);
        found
    });
    if found {
        &["-DSPF_HAVE_ZLIB=1", "-lz"]
    } else {
        &[]
    }
}

/// The compiler command: `$CC` (split on whitespace), else the first of
/// `cc`, `gcc`, `clang` that runs.
pub(super) fn find_compiler() -> Result<Vec<String>, Error> {
    if let Some(cc) = cc_words() {
        return Ok(cc);
    }
    for candidate in DEFAULT_COMPILERS {
        let runs = Command::new(candidate)
            .arg("--version")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if runs {
            return Ok(vec![candidate.to_string()]);
        }
    }
    Err(Error::Compiler(
        "no C compiler found: set CC, or install cc, gcc or clang".into(),
    ))
}

/// The compilers tried, in order, when `$CC` is not set.
const DEFAULT_COMPILERS: [&str; 3] = ["cc", "gcc", "clang"];

/// `$CC`'s words, when it is set and not blank.
fn cc_words() -> Option<Vec<String>> {
    let cc = std::env::var("CC").ok()?;
    let words: Vec<String> = cc.split_whitespace().map(String::from).collect();
    (!words.is_empty()).then_some(words)
}

/// The compiler commands [`find_compiler`] chooses among, in its order of
/// preference, without running any: `$CC` (its words) when it is set and
/// not blank, else `cc`, `gcc` and `clang`. A cached library compiled by
/// one of them is found by its name without starting a compiler.
pub(super) fn compiler_candidates() -> Vec<Vec<String>> {
    match cc_words() {
        Some(cc) => vec![cc],
        None => DEFAULT_COMPILERS
            .iter()
            .map(|c| vec![c.to_string()])
            .collect(),
    }
}
