//! The hand-written C baseline measured in a process of its own, as the
//! generated converter is.
//!
//! On this kind of (virtual) machine a process's memory is a draw: the same
//! conversion of a small matrix runs about a third slower in one process
//! than in the next, whatever the code, and consecutive processes tend to
//! draw alike. A generated converter runs in a fresh process every round;
//! the C baseline in the benchmark's own process would get one draw for a
//! whole run. So the benchmark runs itself (`bench --c-worker SLUG --only
//! MATRIX ...`, [`worker`]) once per round for the C as it runs the
//! converter once per round for the generated code: both sides are timed
//! in fresh processes under the same allocator policy, and both keep their
//! fastest round.
//!
//! The worker rebuilds the input from the catalog entry, scale and seed
//! (matgen is deterministic), exactly as the benchmark prepared it.

use std::path::Path;
use std::process::Command;

use synth::instance::Instance;

use crate::c;
use crate::input::{self, Compressed};
use crate::timing::{measure, Timing};
use crate::Conversion;

/// Where and on what the C baseline runs in a child process: the
/// executable (the benchmark's own, run with `--c-worker`) and the input's
/// catalog entry, scale and seed.
#[derive(Clone, Copy, Debug)]
pub struct Child<'a> {
    /// The benchmark executable.
    pub exe: &'a Path,
    /// The catalog entry.
    pub matrix: &'a str,
    /// matgen's scale.
    pub scale: f64,
    /// matgen's seed (and the shuffle's).
    pub seed: u64,
}

impl Child<'_> {
    /// Runs the C baseline of `conv` in a child process, `repeat` times;
    /// with `output`, the first run's output is written there and returned
    /// for verification.
    ///
    /// # Errors
    ///
    /// When the child cannot be started, fails, or reports nothing
    /// readable.
    pub fn measure(
        &self,
        conv: Conversion,
        repeat: usize,
        output: Option<&Path>,
    ) -> Result<(Timing, Option<Instance>), String> {
        let mut cmd = Command::new(self.exe);
        cmd.args(["--c-worker", conv.slug(), "--only", self.matrix, "--quiet"])
            .args(["--scale", &self.scale.to_string()])
            .args(["--seed", &self.seed.to_string()])
            .args(["--repeat", &repeat.max(1).to_string()]);
        if let Some(path) = output {
            cmd.arg("--c-output").arg(path);
        }
        let out = cmd
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.exe.display()))?;
        if !out.status.success() {
            return Err(format!(
                "the C worker failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let timing = parse_runs(&String::from_utf8_lossy(&out.stdout))?;
        let instance = match output {
            None => None,
            Some(path) => {
                let bytes = std::fs::read(path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                let _ = std::fs::remove_file(path);
                Some(
                    Instance::from_json_bytes(&bytes)
                        .map_err(|e| format!("{}: {e}", path.display()))?,
                )
            }
        };
        Ok((timing, instance))
    }
}

/// The worker's report: `{"runs": [seconds, ...]}`.
fn parse_runs(text: &str) -> Result<Timing, String> {
    let report: serde_json::Value = serde_json::from_str(text.trim())
        .map_err(|e| format!("the C worker's report `{}` is unreadable: {e}", text.trim()))?;
    let runs = report["runs"]
        .as_array()
        .ok_or("the C worker's report has no runs")?
        .iter()
        .map(|v| v.as_f64().ok_or("a run that is not a number"))
        .collect::<Result<Vec<f64>, _>>()?;
    if runs.is_empty() {
        return Err("the C worker made no run".into());
    }
    Ok(Timing { runs })
}

/// The worker's side: rebuilds the input of `conv` on catalog entry
/// `matrix` at `scale` and `seed` as the benchmark prepares it, runs the C
/// baseline `repeat` times (the first run's output written to `output` as a
/// JSON instance of the destination, when given) and returns the report
/// to print.
///
/// # Errors
///
/// An unknown matrix, a failing baseline, or an unwritable output.
pub fn worker(
    conv: Conversion,
    matrix: &str,
    scale: f64,
    seed: u64,
    repeat: usize,
    output: Option<&Path>,
) -> Result<String, String> {
    let spec = matgen::find(matrix).ok_or_else(|| format!("unknown matrix `{matrix}`"))?;
    let mut coo = input::generate(spec, scale, seed, false);
    let compressed = match conv.src() {
        "csr" => Some(Compressed::from_coo(&coo, true)),
        "csc" => Some(Compressed::from_coo(&coo, false)),
        _ => None,
    };
    let dims = coo.dims.clone();
    if conv.shuffled() {
        coo.shuffle(seed);
    }
    let m = || {
        compressed
            .as_ref()
            .ok_or("no compressed input for this conversion")
    };
    let to_rows = conv.dst() == "csr";
    let call = || match conv {
        Conversion::CooCsrUnsorted | Conversion::CooCsrSorted | Conversion::CooCsc => {
            c::coo_to_compressed(&coo, to_rows)
        }
        Conversion::ScooCsr => c::sorted_coo_to_csr(&coo),
        Conversion::CsrCsc => c::transpose(m()?),
        Conversion::CooDia => c::coo_to_dia(&coo),
        Conversion::CsrDia | Conversion::CscDia => c::compressed_to_dia(m()?),
        Conversion::CsrEll | Conversion::CscEll => c::compressed_to_ell(m()?),
        Conversion::Coo3dMcoo3 => c::coo3_to_mcoo3(&coo),
    };
    let timing = measure(repeat, call, |out| match output {
        None => Ok(()),
        Some(path) => {
            let inst = out.into_instance(conv.dst_format(), &dims);
            std::fs::write(path, inst.to_json())
                .map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
    })?;
    Ok(serde_json::json!({ "runs": timing.runs }).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_are_read_back_and_bad_ones_refused() {
        let t = parse_runs(" {\"runs\": [0.5, 0.25]}\n").unwrap();
        assert_eq!(t.runs, vec![0.5, 0.25]);
        for bad in [
            "",
            "{}",
            "{\"runs\": []}",
            "{\"runs\": [\"x\"]}",
            "nonsense",
        ] {
            assert!(parse_runs(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_worker_runs_the_c_and_writes_a_verifiable_output() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        let report = worker(Conversion::CsrCsc, "jnlbrng1", 0.01, 3, 3, Some(&path)).unwrap();
        assert_eq!(parse_runs(&report).unwrap().runs.len(), 3);
        let inst = Instance::from_json_bytes(&std::fs::read(&path).unwrap()).unwrap();
        let spec = matgen::find("jnlbrng1").unwrap();
        let sorted = input::generate(spec, 0.01, 3, false);
        let dst = synth::builtin::load_format("csc").unwrap();
        crate::verify::check(&dst, &input::entries(&sorted), &inst).unwrap();
        assert!(worker(Conversion::CsrCsc, "no-such-matrix", 0.01, 3, 1, None).is_err());
    }
}
