//! End to end, as a user runs it: `spf convert coo csr X.mtx -o X.npz`
//! (read the Matrix Market file, convert with the cached compiled
//! conversion, verify, write scipy's `.npz`) against scipy's
//! `scipy.io.mmread(X).tocsr()` and `save_npz(..., compressed=False)`, and
//! `spf convert csr csc X.npz -o Y.npz` against `load_npz(X).tocsc()` and
//! `save_npz`, on the same files in the same run (`bench --end-to-end`).
//!
//! spf is timed as a whole process (start-up included) with its peak
//! resident set from `/usr/bin/time` when the machine has it; scipy inside
//! its process (`bench/end_to_end.py`: from before the read to after the
//! write, the interpreter's start-up and imports not counted) with the
//! process's peak resident set. The two alternate, one run each, so that
//! both are measured over the same stretch of time: on a shared virtual
//! machine the cost of fresh memory and of page-cache writes changes from
//! one second to the next, and timing one side's runs after the other's
//! put that change into the ratio. Each of spf's results is loaded by
//! scipy and compared with scipy's own before a ratio is reported; the
//! table gives spf's time over scipy's against the [`target`]s.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::spf::Spf;
use crate::worker::{median, Worker};

/// scipy's script, embedded so the benchmark runs from any directory.
pub const SCRIPT: &str = include_str!("../end_to_end.py");

/// The matrices measured when `--only` names none: 2.4 to 5 million
/// nonzeros, a FEM, a stencil and a power-law matrix.
pub const DEFAULT_MATRICES: [&str; 3] = ["rma10", "ecology1", "webbase-1M"];

/// One command's measurement: the median of its runs' seconds and the
/// largest peak resident set.
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    /// Median wall seconds.
    pub seconds: f64,
    /// Peak resident set in MiB, when it could be measured.
    pub peak_mib: Option<f64>,
}

/// A job on one matrix: spf and scipy side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// `coo_csr` (from the .mtx) or `csr_csc` (from spf's .npz).
    pub job: &'static str,
    /// `spf convert`, end to end.
    pub spf: Measure,
    /// scipy, when python3 has it, and whether spf's output equals
    /// scipy's.
    pub scipy: Option<(Measure, bool)>,
}

/// The measurements of one matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// The catalog name.
    pub matrix: String,
    /// The Matrix Market file's size in MiB.
    pub file_mib: f64,
    /// The jobs.
    pub rows: Vec<Row>,
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Setup<'a> {
    /// The spf command (release build).
    pub spf: &'a Spf,
    /// The Python interpreter with scipy, if any.
    pub python: Option<&'a str>,
    /// Catalog names.
    pub matrices: Vec<String>,
    /// matgen's scale.
    pub scale: f64,
    /// matgen's seed.
    pub seed: u64,
    /// Runs per command (the median is kept).
    pub repeat: usize,
    /// Scratch directory.
    pub dir: PathBuf,
}

/// Runs every job on every matrix.
///
/// # Errors
///
/// A command that fails, or output that cannot be read.
pub fn run(setup: &Setup<'_>) -> Result<Vec<Case>, String> {
    std::fs::create_dir_all(&setup.dir).map_err(|e| format!("{}: {e}", setup.dir.display()))?;
    let script = setup.dir.join("end_to_end.py");
    std::fs::write(&script, SCRIPT).map_err(|e| format!("{}: {e}", script.display()))?;
    // The compiled conversions live in a cache of this run's own, so that
    // the first call compiles and the timed ones find it.
    let cache = setup.dir.join("cache");
    let mut out = Vec::new();
    for name in &setup.matrices {
        let mtx = setup.dir.join(format!("{name}.mtx"));
        setup.spf.generate(name, setup.scale, setup.seed, &mtx)?;
        let file_mib = std::fs::metadata(&mtx).map_or(0.0, |m| m.len() as f64 / 1048576.0);
        let csr = setup.dir.join(format!("{name}.csr.npz"));
        let csc = setup.dir.join(format!("{name}.csc.npz"));
        let mut rows = Vec::new();
        for (job, src, dst, input, output) in [
            ("coo_csr", "coo", "csr", &mtx, &csr),
            ("csr_csc", "csr", "csc", &csr, &csc),
        ] {
            let args = ["convert", src, dst];
            // Once to compile (not timed), then the measured runs, each
            // followed by one of scipy's, so that a stretch of time in
            // which the machine is slower slows both sides.
            spf_run(setup.spf, &cache, &args, input, output)?;
            let theirs = setup.dir.join(format!("{name}.{job}.scipy.npz"));
            let mut scipy = match setup.python {
                Some(python) => Some(scipy_worker(python, &script, job, input, &theirs, output)?),
                None => None,
            };
            let (mut times, mut scipy_times) = (Vec::new(), Vec::new());
            let mut peak: Option<f64> = None;
            for _ in 0..setup.repeat.max(1) {
                let (t, p) = spf_run(setup.spf, &cache, &args, input, output)?;
                times.push(t);
                peak = match (peak, p) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    (a, b) => a.or(b),
                };
                if let Some(scipy) = scipy.as_mut() {
                    scipy_times.push(scipy.once()?);
                }
            }
            let spf = Measure {
                seconds: median(&mut times),
                peak_mib: peak,
            };
            let scipy = match scipy {
                Some(scipy) => {
                    let (peak_mib, same) = scipy_verdict(scipy)?;
                    let seconds = median(&mut scipy_times);
                    Some((Measure { seconds, peak_mib }, same))
                }
                None => None,
            };
            rows.push(Row { job, spf, scipy });
        }
        out.push(Case {
            matrix: name.clone(),
            file_mib,
            rows,
        });
    }
    Ok(out)
}

/// One `spf convert`: wall seconds and peak MiB (from `/usr/bin/time`).
fn spf_run(
    spf: &Spf,
    cache: &Path,
    args: &[&str],
    input: &Path,
    output: &Path,
) -> Result<(f64, Option<f64>), String> {
    let gnu_time = Path::new("/usr/bin/time");
    let report = output.with_extension("time");
    let mut cmd = if gnu_time.is_file() {
        let mut c = Command::new(gnu_time);
        c.args(["-f", "%e %M", "-o"]).arg(&report).arg(&spf.exe);
        c
    } else {
        Command::new(&spf.exe)
    };
    cmd.args(args)
        .arg(input)
        .arg("-o")
        .arg(output)
        .env("SPF_CACHE_DIR", cache);
    let start = Instant::now();
    let out = cmd.output().map_err(|e| format!("spf convert: {e}"))?;
    let seconds = start.elapsed().as_secs_f64();
    if !out.status.success() {
        return Err(format!(
            "spf {} {}: {}",
            args.join(" "),
            input.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let peak = std::fs::read_to_string(&report).ok().and_then(|t| {
        let kb: f64 = t.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb / 1024.0)
    });
    Ok((seconds, peak))
}

/// scipy's side of a job: `bench/end_to_end.py` as a [`Worker`], which at
/// the end compares `check` (spf's output) with its own result.
fn scipy_worker(
    python: &str,
    script: &Path,
    job: &str,
    input: &Path,
    output: &Path,
    check: &Path,
) -> Result<Worker, String> {
    let mut command = Command::new(python);
    command
        .arg(script)
        .arg(job)
        .arg(input)
        .arg(output)
        .arg(check);
    Worker::start(command, &format!("scipy's {job}"))
}

/// A finished scipy worker's peak resident set in MiB, and whether spf's
/// output equals scipy's result.
fn scipy_verdict(worker: Worker) -> Result<(Option<f64>, bool), String> {
    let line = worker.finish()?;
    let peak = line["peak_kb"].as_f64().map(|kb| kb / 1024.0);
    Ok((peak, line["check"].as_bool() == Some(true)))
}

/// The most `spf` may take as a multiple of scipy's time on `job` (the
/// targets: within 1.5× for COO to CSR from a `.mtx`, 1.2× for CSR to CSC
/// between `.npz` files).
pub fn target(job: &str) -> Option<f64> {
    match job {
        "coo_csr" => Some(1.5),
        "csr_csc" => Some(1.2),
        _ => None,
    }
}

/// The results as a Markdown table: times, the ratio (spf / scipy, < 1:
/// spf faster) against its [`target`], peaks and their ratio (spf /
/// scipy), and the check.
pub fn table(cases: &[Case]) -> String {
    let mut s = String::from(
        "| matrix | .mtx MiB | job | spf s | scipy s | spf/scipy | target | spf MiB | scipy MiB | spf/scipy memory | same result |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mib = |m: Option<f64>| m.map_or("-".to_string(), |x| format!("{x:.0}"));
    for c in cases {
        for r in &c.rows {
            let (scipy_s, ratio, met, scipy_mib, mem, same) = match &r.scipy {
                Some((m, same)) => {
                    let ratio = r.spf.seconds / m.seconds;
                    (
                        format!("{:.3}", m.seconds),
                        format!("{ratio:.2}"),
                        match target(r.job) {
                            Some(t) if ratio <= t => format!("≤ {t} met"),
                            Some(t) => format!("≤ {t} MISSED"),
                            None => "-".into(),
                        },
                        mib(m.peak_mib),
                        match (r.spf.peak_mib, m.peak_mib) {
                            (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
                            _ => "-".into(),
                        },
                        if *same { "yes" } else { "NO" }.to_string(),
                    )
                }
                None => (
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                ),
            };
            s.push_str(&format!(
                "| {} | {:.0} | {} | {:.3} | {scipy_s} | {ratio} | {met} | {} | {scipy_mib} | {mem} | {same} |\n",
                c.matrix,
                c.file_mib,
                r.job,
                r.spf.seconds,
                mib(r.spf.peak_mib)
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_gives_ratios_and_flags_a_mismatch() {
        let cases = vec![Case {
            matrix: "m".into(),
            file_mib: 40.0,
            rows: vec![
                Row {
                    job: "coo_csr",
                    spf: Measure {
                        seconds: 0.5,
                        peak_mib: Some(200.0),
                    },
                    scipy: Some((
                        Measure {
                            seconds: 1.0,
                            peak_mib: Some(100.0),
                        },
                        true,
                    )),
                },
                Row {
                    job: "csr_csc",
                    spf: Measure {
                        seconds: 0.2,
                        peak_mib: None,
                    },
                    scipy: Some((
                        Measure {
                            seconds: 0.1,
                            peak_mib: Some(50.0),
                        },
                        false,
                    )),
                },
            ],
        }];
        let t = table(&cases);
        assert!(
            t.contains(
                "| m | 40 | coo_csr | 0.500 | 1.000 | 0.50 | ≤ 1.5 met | 200 | 100 | 2.00 | yes |"
            ),
            "{t}"
        );
        assert!(
            t.contains("| csr_csc | 0.200 | 0.100 | 2.00 | ≤ 1.2 MISSED | - | 50 | - | NO |"),
            "{t}"
        );
    }
}
