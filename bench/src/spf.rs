//! The generated converters: built with `spf build SRC DST -o BIN
//! [--baseline B.c]` and run as `BIN INPUT --repeat N -o OUT.json
//! [--baseline-output B.json]` (the interface of `docs/DESIGN.md`), which
//! times N runs itself, of the generated code and of the baseline linked
//! beside it in turn, and prints one JSON line.

use std::path::{Path, PathBuf};
use std::process::Command;

use codegen::width::IndexWidth;
use synth::instance::Instance;

use crate::timing::Summary;

/// The `spf` command.
#[derive(Clone, Debug)]
pub struct Spf {
    /// Its path.
    pub exe: PathBuf,
}

/// What one run of a generated converter reported.
#[derive(Clone, Debug)]
pub struct SpfRun {
    /// Nonzeros of the source.
    pub nnz: u64,
    /// Bytes of the source's arrays (8 per element).
    pub input_bytes: u64,
    /// Bytes of the destination's arrays (8 per element).
    pub output_bytes: u64,
    /// The runs' median, minimum and maximum, as the converter reported
    /// them.
    pub summary: Summary,
    /// The destination instance the last run produced.
    pub output: Instance,
    /// The linked baseline's runs, when the converter was built with one.
    pub baseline: Option<BaselineRun>,
}

/// What the converter reported of the baseline linked beside it.
#[derive(Clone, Debug)]
pub struct BaselineRun {
    /// The baseline's runs' median, minimum and maximum (as many runs as
    /// the generated code's, interleaved with them).
    pub summary: Summary,
    /// The destination instance its last run produced, when asked for.
    pub output: Option<Instance>,
}

/// The workspace root (the bench crate's parent directory).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("bench/ has a parent")
        .to_path_buf()
}

/// The profile directory the running executable was built into
/// (`target/release` for `target/release/bench`, `target/debug` for a test
/// in `target/debug/deps`).
fn profile_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?;
    if dir.file_name()? == "deps" {
        Some(dir.parent()?.to_path_buf())
    } else {
        Some(dir.to_path_buf())
    }
}

impl Spf {
    /// `spf` next to the running executable, if it was built there.
    pub fn sibling() -> Option<Spf> {
        let exe = profile_dir()?.join("spf");
        exe.is_file().then_some(Spf { exe })
    }

    /// Builds `spf` with cargo in the profile of the running executable
    /// (`--release` when that is `target/release`), so that the generated
    /// code comes from the current sources, and returns it.
    pub fn build_with_cargo() -> Result<Spf, String> {
        cargo_build("spf", &["spf"])?;
        Spf::sibling().ok_or_else(|| "cargo built spf, but not next to this executable".into())
    }

    /// `spf generate NAME --shuffle --scale S --seed N -o MTX`: the
    /// catalog matrix `name`, its entries shuffled.
    ///
    /// # Errors
    ///
    /// When the command fails.
    pub fn generate(&self, name: &str, scale: f64, seed: u64, mtx: &Path) -> Result<(), String> {
        let status = Command::new(&self.exe)
            .args(["generate", name, "--shuffle", "--scale"])
            .arg(scale.to_string())
            .arg("--seed")
            .arg(seed.to_string())
            .arg("-o")
            .arg(mtx)
            .status()
            .map_err(|e| format!("spf generate: {e}"))?;
        if !status.success() {
            return Err(format!("spf generate {name} failed ({status})"));
        }
        Ok(())
    }

    /// `spf build SRC DST -o BIN --index-width W [--baseline B.c]`.
    pub fn build(
        &self,
        src: &str,
        dst: &str,
        bin: &Path,
        baseline: Option<&Path>,
        width: IndexWidth,
    ) -> Result<(), String> {
        let mut cmd = Command::new(&self.exe);
        cmd.args(["build", src, dst, "-o"]).arg(bin);
        cmd.args(["--index-width", &width.to_string()]);
        if let Some(b) = baseline {
            cmd.arg("--baseline").arg(b);
        }
        let out = cmd
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.exe.display()))?;
        if !out.status.success() {
            return Err(format!(
                "spf build {src} {dst} failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(())
    }
}

/// Reads and removes a JSON instance a converter wrote.
fn take_instance(path: &Path) -> Result<Instance, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let inst = Instance::from_json_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()));
    drop(bytes);
    let _ = std::fs::remove_file(path);
    inst
}

/// Runs a converter built by `spf build` on `input` with `--repeat`,
/// writing its output to `out_json` (and, with `baseline_json`, the linked
/// baseline's there), and reads its report and outputs.
pub fn run(
    bin: &Path,
    input: &Path,
    repeat: usize,
    out_json: &Path,
    baseline_json: Option<&Path>,
) -> Result<SpfRun, String> {
    let mut cmd = Command::new(bin);
    cmd.arg(input)
        .arg("--repeat")
        .arg(repeat.max(1).to_string())
        .arg("-o")
        .arg(out_json);
    if let Some(b) = baseline_json {
        cmd.arg("--baseline-output").arg(b);
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed ({}): {}",
            bin.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let line = String::from_utf8_lossy(&out.stdout);
    let report: serde_json::Value = serde_json::from_str(line.trim()).map_err(|e| {
        format!(
            "{}: unreadable report `{}`: {e}",
            bin.display(),
            line.trim()
        )
    })?;
    let num = |key: &str| {
        report[key]
            .as_f64()
            .ok_or_else(|| format!("{}: the report has no `{key}`", bin.display()))
    };
    let output = take_instance(out_json)?;
    let baseline = if report.get("baseline_median_seconds").is_some() {
        Some(BaselineRun {
            summary: Summary {
                runs: num("runs")? as usize,
                median: num("baseline_median_seconds")?,
                min: num("baseline_min_seconds")?,
                max: num("baseline_max_seconds")?,
            },
            output: baseline_json.map(take_instance).transpose()?,
        })
    } else {
        None
    };
    Ok(SpfRun {
        nnz: num("nnz")? as u64,
        input_bytes: num("input_bytes")? as u64,
        output_bytes: num("output_bytes")? as u64,
        summary: Summary {
            runs: num("runs")? as usize,
            median: num("median_seconds")?,
            min: num("min_seconds")?,
            max: num("max_seconds")?,
        },
        output,
        baseline,
    })
}

/// Builds the binaries `bins` of `package` with cargo, at this
/// executable's profile (release when it is a release build), and gives
/// the directory they are in (this executable's).
///
/// # Errors
///
/// When cargo cannot run or fails.
pub fn cargo_build(package: &str, bins: &[&str]) -> Result<PathBuf, String> {
    let release = profile_dir().is_some_and(|d| d.file_name() == Some("release".as_ref()));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--quiet", "-p", package]);
    for bin in bins {
        cmd.args(["--bin", bin]);
    }
    cmd.arg("--manifest-path")
        .arg(workspace_root().join("Cargo.toml"));
    if release {
        cmd.arg("--release");
    }
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run cargo to build {}: {e}", bins.join(", ")))?;
    if !status.success() {
        return Err(format!("building {} failed ({status})", bins.join(", ")));
    }
    profile_dir().ok_or_else(|| "this executable has no directory".into())
}
