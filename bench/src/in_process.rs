//! In process, in memory: the library's [`engine::Converter`] against
//! scipy's own methods (`coo.tocsr()`, `csr.tocsc()`) on the same
//! matrices, side by side (`bench --in-process`).
//!
//! Four [`Worker`]s per job, each a process of its own that reads the
//! matrix once and then converts it once per request, timed inside:
//!
//! - the library in a Rust program with the system allocator
//!   (`in_process`, this module's [`worker_main`]), as any program that
//!   uses it gets;
//! - the same program with the allocator the `spf` command installs
//!   (`in_process_spf_allocator`: [`engine::memory::huge_pages`]), which is
//!   what `spf convert`'s conversion runs under;
//! - scipy (`bench/in_process.py scipy`) and the Python package
//!   (`bench/in_process.py spf`: `spf.convert`), when `python3` has them.
//!
//! Every library side converts with the default options: the input
//! checked, the compiled conversion, the result verified. The workers
//! answer in turn, one run each per round, so that all of them meet the
//! same stretch of time. The table gives the library's time under the
//! system allocator over its time under spf's (the target: at most 1.1,
//! [`ALLOCATOR_TARGET`]) and scipy's time over each spf side's.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use engine::{Converter, Format, Instance, Options};

use crate::worker::{median, Worker};

/// The Python sides' script, embedded so the benchmark runs from any
/// directory.
pub const SCRIPT: &str = include_str!("../in_process.py");

/// The jobs: a name, the source format and the destination.
pub const JOBS: [(&str, &str, &str); 2] = [("coo_csr", "coo", "csr"), ("csr_csc", "csr", "csc")];

/// The most the library may take under the system allocator, as a
/// multiple of its time under the `spf` command's allocator.
pub const ALLOCATOR_TARGET: f64 = 1.1;

/// The Rust workers' executables, next to the bench's own.
pub const WORKERS: [&str; 2] = ["in_process", "in_process_spf_allocator"];

/// What to run: the end-to-end bench's setup (its matrices, scale, seed,
/// rounds and scratch directory).
pub use crate::end_to_end::Setup;

/// The medians of one job on one matrix, in seconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The matrix's catalog name.
    pub matrix: String,
    /// Its stored entries.
    pub nnz: u64,
    /// The job ([`JOBS`]).
    pub job: &'static str,
    /// The library under the system allocator.
    pub system: f64,
    /// The library under the `spf` command's allocator.
    pub spf_allocator: f64,
    /// `spf.convert` in Python, when the package is installed.
    pub python: Option<f64>,
    /// scipy, when python3 has it.
    pub scipy: Option<f64>,
}

/// Builds the Rust workers with cargo (at this executable's profile) and
/// gives their paths.
///
/// # Errors
///
/// When cargo fails.
pub fn build_workers() -> Result<[PathBuf; 2], String> {
    let dir = crate::spf::cargo_build("bench", &WORKERS)?;
    Ok(WORKERS.map(|w| dir.join(w)))
}

/// Measures every job on every matrix.
///
/// # Errors
///
/// A command that fails, or a worker that stops.
pub fn run(setup: &Setup<'_>, workers: &[PathBuf; 2]) -> Result<Vec<Row>, String> {
    std::fs::create_dir_all(&setup.dir).map_err(|e| format!("{}: {e}", setup.dir.display()))?;
    let script = setup.dir.join("in_process.py");
    std::fs::write(&script, SCRIPT).map_err(|e| format!("{}: {e}", script.display()))?;
    // The compiled conversions live in a cache of this run's own.
    let cache = setup.dir.join("cache");
    let mut rows = Vec::new();
    for name in &setup.matrices {
        let mtx = setup.dir.join(format!("{name}.mtx"));
        setup.spf.generate(name, setup.scale, setup.seed, &mtx)?;
        for (job, _, _) in JOBS {
            rows.push(measure(setup, workers, &script, &cache, name, &mtx, job)?);
        }
    }
    Ok(rows)
}

/// One job on one matrix: every side started and ready, then the rounds.
fn measure(
    setup: &Setup<'_>,
    workers: &[PathBuf; 2],
    script: &Path,
    cache: &Path,
    name: &str,
    mtx: &Path,
    job: &'static str,
) -> Result<Row, String> {
    let mut sides: Vec<(Worker, u64)> = Vec::new();
    for w in workers {
        let mut command = Command::new(w);
        command.arg(job).arg(mtx).env("SPF_CACHE_DIR", cache);
        sides.push(ready(command, &format!("{} {job}", w.display()))?);
    }
    if let Some(python) = setup.python {
        for side in ["spf", "scipy"] {
            let mut command = Command::new(python);
            command.arg(script).arg(side).arg(job).arg(mtx);
            command.env("SPF_CACHE_DIR", cache);
            match ready(command, &format!("{side} (python) {job}")) {
                Ok(worker) => sides.push(worker),
                // The package not installed: the side is left out.
                Err(e) if side == "spf" => eprintln!("note: the Python package is left out: {e}"),
                Err(e) => return Err(e),
            }
        }
    }
    let mut times = vec![Vec::new(); sides.len()];
    for _ in 0..setup.repeat.max(1) {
        for (k, (worker, _)) in sides.iter_mut().enumerate() {
            times[k].push(worker.once()?);
        }
    }
    let nnz = sides[0].1;
    let labels: Vec<String> = sides.iter().map(|(w, _)| w.label().to_string()).collect();
    for (worker, _) in sides {
        worker.finish()?;
    }
    let mut medians = times.iter_mut().map(|t| median(t));
    let (system, spf_allocator) = (medians.next(), medians.next());
    let mut python = None;
    let mut scipy = None;
    for (label, m) in labels[2..].iter().zip(medians) {
        if label.starts_with("spf") {
            python = Some(m);
        } else {
            scipy = Some(m);
        }
    }
    Ok(Row {
        matrix: name.to_string(),
        nnz,
        job,
        system: system.ok_or("no system-allocator side")?,
        spf_allocator: spf_allocator.ok_or("no spf-allocator side")?,
        python,
        scipy,
    })
}

/// Starts `command` and waits for its first line, `{"ready": nnz}`.
fn ready(command: Command, label: &str) -> Result<(Worker, u64), String> {
    let mut worker = Worker::start(command, label)?;
    let line = worker.answer()?;
    let nnz = line["ready"]
        .as_u64()
        .ok_or_else(|| format!("{label}: its first line is not {{\"ready\": nnz}}: {line}"))?;
    Ok((worker, nnz))
}

/// The rows as a Markdown table: each side's median in milliseconds, the
/// library's allocator ratio against [`ALLOCATOR_TARGET`], and scipy's
/// time over each spf side's (> 1: spf faster).
pub fn table(rows: &[Row]) -> String {
    let mut s = String::from(
        "| matrix | nnz | job | library, system allocator (ms) | library, spf's allocator (ms) | system / spf's | Python `spf.convert` (ms) | scipy (ms) | scipy / library | scipy / Python |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    let ms = |t: Option<f64>| t.map_or("-".to_string(), |t| format!("{:.1}", t * 1e3));
    let over = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}×", a / b),
        _ => "-".into(),
    };
    for r in rows {
        let ratio = r.system / r.spf_allocator;
        let met = if ratio <= ALLOCATOR_TARGET {
            "met"
        } else {
            "MISSED"
        };
        s.push_str(&format!(
            "| {} | {} | {} | {:.1} | {:.1} | {ratio:.2} (≤ {ALLOCATOR_TARGET} {met}) | {} | {} | {} | {} |\n",
            r.matrix,
            r.nnz,
            r.job,
            r.system * 1e3,
            r.spf_allocator * 1e3,
            ms(r.python),
            ms(r.scipy),
            over(r.scipy, Some(r.system)),
            over(r.scipy, r.python),
        ));
    }
    s
}

/// The Rust workers' `main` (`in_process JOB INPUT.mtx`): reads the
/// matrix, makes the job's source in memory, converts once to compile,
/// says `{"ready": nnz}`, then converts once per request line and
/// answers its seconds (see [`crate::worker`]).
pub fn worker_main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    match serve(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("in_process: {e}");
            ExitCode::from(2)
        }
    }
}

fn serve(args: &[String]) -> Result<(), String> {
    let [_, job, input] = args else {
        return Err("usage: in_process JOB INPUT.mtx".into());
    };
    let (_, src, dst) = JOBS
        .iter()
        .find(|(j, _, _)| j == job)
        .ok_or_else(|| format!("unknown job `{job}`"))?;
    let options = Options::default();
    let e = |e: engine::Error| e.to_string();
    let coo = Format::builtin("coo").map_err(e)?;
    let (from, to) = (
        Format::builtin(src).map_err(e)?,
        Format::builtin(dst).map_err(e)?,
    );
    let read = engine::read(input, &coo).map_err(e)?;
    let source: Instance = if from == coo {
        read
    } else {
        Converter::new(&coo, &from, &options)
            .and_then(|c| c.convert(&read))
            .map_err(e)?
    };
    let converter = Converter::new(&from, &to, &options).map_err(e)?;
    let nnz = converter
        .convert(&source)
        .map_err(e)?
        .entries()
        .map_err(e)?
        .len();
    println!("{{\"ready\": {nnz}}}");
    for line in std::io::stdin().lock().lines() {
        let line = line.map_err(|e| e.to_string())?;
        if line.trim() != "run" {
            return Err(format!("unknown request {line:?}"));
        }
        let start = Instant::now();
        let out = converter.convert(&source).map_err(e)?;
        let seconds = start.elapsed().as_secs_f64();
        drop(out);
        println!("{{\"time\": {seconds}}}");
    }
    println!("{{\"done\": true}}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_gives_the_allocator_ratio_and_scipy_over_each_side() {
        let rows = [Row {
            matrix: "m".into(),
            nnz: 10,
            job: "coo_csr",
            system: 0.012,
            spf_allocator: 0.010,
            python: Some(0.020),
            scipy: Some(0.030),
        }];
        let t = table(&rows);
        assert!(
            t.contains("| m | 10 | coo_csr | 12.0 | 10.0 | 1.20 (≤ 1.1 MISSED) | 20.0 | 30.0 | 2.50× | 1.50× |"),
            "{t}"
        );
    }
}
