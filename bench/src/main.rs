//! `cargo run --release -p bench -- [OPTIONS]`: reproduces the papers'
//! conversion experiments (docs/benchmarks.md).

use std::path::PathBuf;
use std::process::ExitCode;

use bench::runner::{self, Config};
use bench::{end_to_end, in_process, report, scipy, spf, Conversion};
use clap::Parser;
use codegen::width::IndexWidth;

/// Generates the papers' matrices with matgen, builds every conversion with
/// `spf build`, and measures it side by side with hand-written C, sprs,
/// nalgebra-sparse, scipy (when python3 has it) and memcpy, verifying every
/// output first. Prints ratios (baseline / spf, > 1: spf faster) and writes
/// results.json, summary.md, and a CSV and an SVG per conversion.
#[derive(Parser, Debug)]
#[command(name = "bench")]
struct Args {
    /// matgen's scale in (0, 1]: rows, columns and nnz shrink by it
    /// (1 is the papers' full size and needs about 24 GiB).
    #[arg(long, default_value_t = 0.05)]
    scale: f64,
    /// Runs per measurement (at least); the median is reported.
    #[arg(long, default_value_t = 5)]
    repeat: usize,
    /// Seconds each measurement covers at least: faster conversions run
    /// more often (up to 1001 times), the generated code and the baselines
    /// of a matrix alike.
    #[arg(long, default_value_t = 0.05)]
    min_time: f64,
    /// Rounds: passes over the whole work, in each of which the generated
    /// converter (with the C in its process) and the other baselines are
    /// measured in turn; the converter and the C keep the round that was
    /// the fastest for both, the others their fastest median (a slow spell of the
    /// machine, or an unlucky process, then meets one round of a
    /// measurement, not all of them).
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// matgen's seed (and the shuffle's).
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Only these catalog entries (comma-separated or repeated; see
    /// `spf generate --list`).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Only these conversions (comma-separated: coo_csr, coo_csr_sorted,
    /// scoo_csr, coo_csc, csr_csc, coo_dia, csr_dia, csc_dia, csr_ell,
    /// csc_ell, coo3d_mcoo3).
    #[arg(long, value_delimiter = ',')]
    conversions: Vec<String>,
    /// Output directory for results.json, summary.md, CSV and SVG.
    #[arg(short = 'o', long, default_value = "artifacts/bench")]
    out_dir: PathBuf,
    /// Scratch directory (inputs, converters); default OUT_DIR/work,
    /// removed at the end unless --keep-work.
    #[arg(long)]
    work_dir: Option<PathBuf>,
    /// Keep the scratch directory.
    #[arg(long)]
    keep_work: bool,
    /// The spf command (default: built with cargo from this workspace).
    #[arg(long)]
    spf: Option<PathBuf>,
    /// The Python interpreter for the scipy baseline.
    #[arg(long, default_value = "python3")]
    python: String,
    /// Do not try scipy.
    #[arg(long)]
    no_scipy: bool,
    /// Skip DIA/ELL on a matrix whose padded destination exceeds this many
    /// times its nonzeros.
    #[arg(long, default_value_t = 16.0)]
    max_padding: f64,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// The index width of the converters and of the hand-written C timed
    /// in their process (32 or 64 bits).
    #[arg(long, default_value_t = IndexWidth::W32)]
    index_width: IndexWidth,
    /// Instead of the conversions: `spf convert` end to end on files
    /// (.mtx -> .npz, .npz -> .npz) against scipy reading, converting and
    /// saving, on `--only` (default rma10, ecology1, webbase-1M) at
    /// `--e2e-scale`.
    #[arg(long)]
    end_to_end: bool,
    /// matgen's scale for `--end-to-end` and `--in-process`.
    #[arg(long, default_value_t = 1.0)]
    e2e_scale: f64,
    /// Instead of the conversions: the library converting in memory (a
    /// Rust program with the system allocator, and with the `spf`
    /// command's) against scipy converting in memory and the Python
    /// package, in process, on `--only` (default rma10, ecology1,
    /// webbase-1M) at `--e2e-scale`.
    #[arg(long)]
    in_process: bool,
}

fn main() -> ExitCode {
    bench::timing::steady_allocator();
    let args = Args::parse();
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Args) -> Result<(), String> {
    if args.end_to_end {
        return end_to_end(&args);
    }
    if args.in_process {
        return in_process(&args);
    }
    matgen::check_scale(args.scale).map_err(|e| format!("--scale: {e}"))?;
    let conversions = args
        .conversions
        .iter()
        .map(|s| {
            Conversion::from_slug(s).ok_or_else(|| {
                let all: Vec<&str> = Conversion::ALL.iter().map(|c| c.slug()).collect();
                format!("unknown conversion `{s}`; valid: {}", all.join(", "))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let spf = match args.spf {
        Some(exe) => spf::Spf { exe },
        None => spf::Spf::build_with_cargo()?,
    };
    let work_dir = args
        .work_dir
        .clone()
        .unwrap_or_else(|| args.out_dir.join("work"));
    let config = Config {
        scale: args.scale,
        repeat: args.repeat.max(1),
        min_time: args.min_time.max(0.0),
        rounds: args.rounds.max(1),
        seed: args.seed,
        matrices: args.only,
        conversions,
        work_dir: work_dir.clone(),
        spf,
        python: (!args.no_scipy).then_some(args.python),
        max_padding: args.max_padding,
        progress: !args.quiet,
        index_width: args.index_width,
    };
    let results = runner::run(&config)?;
    if !args.keep_work {
        let _ = std::fs::remove_dir_all(&work_dir);
    }
    for n in &results.notes {
        println!("note: {n}");
    }
    print!("{}", report::table(&results));
    println!();
    print!("{}", report::summary_md(&results));
    let written = report::write_all(&results, &args.out_dir)
        .map_err(|e| format!("{}: {e}", args.out_dir.display()))?;
    for w in written {
        eprintln!("wrote {}", w.display());
    }
    Ok(())
}

/// The spf command, scipy's Python (or `None`, said) and the matrices of
/// `--end-to-end` and `--in-process`.
fn whole_matrix_setup(args: &Args) -> Result<(spf::Spf, Option<&str>, Vec<String>), String> {
    matgen::check_scale(args.e2e_scale).map_err(|e| format!("--e2e-scale: {e}"))?;
    let spf = match &args.spf {
        Some(exe) => spf::Spf { exe: exe.clone() },
        None => spf::Spf::build_with_cargo()?,
    };
    let python = if args.no_scipy {
        None
    } else {
        match scipy::detect_or_install(&args.python) {
            Ok(version) => {
                println!("scipy {version} ({})", args.python);
                Some(args.python.as_str())
            }
            Err(why) => {
                println!("note: scipy is left out: {why}");
                None
            }
        }
    };
    let matrices = if args.only.is_empty() {
        end_to_end::DEFAULT_MATRICES.map(String::from).to_vec()
    } else {
        args.only.clone()
    };
    Ok((spf, python, matrices))
}

/// Writes `table` to OUT_DIR/`name` (and prints it).
fn write_table(args: &Args, name: &str, table: &str) -> Result<(), String> {
    print!("{table}");
    std::fs::create_dir_all(&args.out_dir)
        .map_err(|e| format!("{}: {e}", args.out_dir.display()))?;
    let path = args.out_dir.join(name);
    std::fs::write(&path, table).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// The setup of `--end-to-end` and `--in-process` (scratch directory
/// `work` under OUT_DIR unless `--work-dir`), run by `run`, its work
/// removed unless `--keep-work`.
fn whole_matrices<T>(
    args: &Args,
    work: &str,
    run: impl FnOnce(&end_to_end::Setup<'_>) -> Result<T, String>,
) -> Result<T, String> {
    let (spf, python, matrices) = whole_matrix_setup(args)?;
    let dir = args
        .work_dir
        .clone()
        .unwrap_or_else(|| args.out_dir.join(work));
    let setup = end_to_end::Setup {
        spf: &spf,
        python,
        matrices,
        scale: args.e2e_scale,
        seed: args.seed,
        repeat: args.repeat.max(1),
        dir: dir.clone(),
    };
    let out = run(&setup)?;
    if !args.keep_work {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(out)
}

/// `--end-to-end`: see [`bench::end_to_end`].
fn end_to_end(args: &Args) -> Result<(), String> {
    let cases = whole_matrices(args, "work-e2e", end_to_end::run)?;
    write_table(args, "end_to_end.md", &end_to_end::table(&cases))
}

/// `--in-process`: see [`bench::in_process`].
fn in_process(args: &Args) -> Result<(), String> {
    let workers = in_process::build_workers()?;
    let rows = whole_matrices(args, "work-in-process", |setup| {
        in_process::run(setup, &workers)
    })?;
    write_table(args, "in_process.md", &in_process::table(&rows))
}
