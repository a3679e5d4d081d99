//! The `spf` command.
//!
//! Every subcommand returns a [`CliError`]; `main` is the single place that
//! reports it and chooses the exit status.

mod cli;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use cli::commands::{self, path, Language};
use cli::conversion;
use cli::error::CliError;
use cli::progress::Progress;
use engine::files::{OutputKind, Target};
use engine::runner::{Engine, Runner};
use spf::codegen::width::{WidthChoice, WidthChoices};

/// Large blocks in huge pages: `spf convert`'s arrays are mapped in 2 MiB
/// pages, not 4 KiB ones ([`cli::huge_pages`]).
#[global_allocator]
static ALLOCATOR: engine::memory::huge_pages::HugePages = engine::memory::huge_pages::HugePages;

/// Synthesizes sparse tensor format conversions with the Sparse Polyhedral Framework.
#[derive(Parser)]
#[command(name = "spf", version, about, long_about = None, after_help = formats_help())]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluates a program of the set/relation calculator (reads standard
    /// input without FILE). Statements end with `;`: `uf NAME : SET -> SET
    /// [PROPS];`, `forall e1, e2 : P => Q;`, `NAME := EXPR;`, `EXPR;`.
    #[command(after_help = "Example:\n  spf calc examples/csr.calc")]
    Calc {
        /// The program file; standard input when absent.
        file: Option<PathBuf>,
    },
    /// Scans a computation file into loops and prints it as C or Rust.
    #[command(after_help = "Example:\n  spf codegen examples/spmv_csr.comp --emit c")]
    Codegen {
        /// The computation file (see docs/computations.md).
        file: PathBuf,
        /// The language to emit.
        #[arg(long, value_enum)]
        emit: Language,
        /// Where to write the code; standard output when absent.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Runs a computation file in the interpreter and prints its `out` and
    /// `inout` data as JSON.
    #[command(
        after_help = "Examples:\n  spf run examples/spmv_csr.comp N=3 NC=3 NNZ=4 rowptr=0,2,2,4 col=0,2,1,2 A=1,2,3,4 x=1,1,2\n  spf run examples/forward_solve.comp --data examples/forward_solve.json"
    )]
    Run {
        /// The computation file.
        file: PathBuf,
        /// Symbols and arrays as JSON: {"symbols": {"N": 3}, "arrays": {"x": [1, 2, 3]}}.
        #[arg(long)]
        data: Option<PathBuf>,
        /// Values on the command line: `N=3` for a symbol, `x=1,2,3` for an array.
        assignments: Vec<String>,
        /// Where to write the JSON; standard output when absent.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Validates a format descriptor with z3 (the map is a function, stored
    /// entries have distinct coordinates unless it declares padding, every
    /// index array can be computed when the format is a destination), then
    /// synthesizes and validates its conversions to and from every built-in
    /// format of its order, one line per pair; with a second format, only
    /// the pair, both ways. A pair synthesis cannot make directly is
    /// routed through a built-in format when one converts both ways, as
    /// `spf convert` routes it. Exit status 0 when everything holds and
    /// every pair converts (directly or routed), 2 when the descriptor is
    /// wrong, 3 when it holds but some pair has no route.
    #[command(
        after_help = "Examples:\n  spf check csr\n  spf check tests/data/descriptors/mycsr.desc csc"
    )]
    Check {
        /// A built-in format (an unknown name lists them) or a path to a
        /// descriptor file.
        format: String,
        /// A second format: check the conversions between the two.
        other: Option<String>,
    },
    /// Writes the entries an instance of a format stores as coordinates.
    #[command(after_help = "Example:\n  spf dump csr dwt_2680.csr.npz -o dwt_2680.mtx")]
    Dump {
        /// The instance's format (built-in name or descriptor path).
        format: String,
        /// The instance: JSON ({"format": ..., "symbols": {...}, "arrays":
        /// {...}}) or `.npz`.
        input: PathBuf,
        /// The output: `.mtx` (Matrix Market) or `.tns` (FROSTT), also
        /// gzip-compressed (`.mtx.gz`, `.tns.gz`); standard output (`-` or
        /// none) for Matrix Market, or FROSTT for a tensor of another order.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// What to write, whatever the output's name: mtx or tns.
        #[arg(long, value_enum)]
        to: Option<ToFlag>,
        /// Accepts values that are not finite: `nan`, `inf`, `-inf`,
        /// `infinity` (any case) in `.mtx`/`.tns` input, NaN and infinities
        /// in `.npz` input, in the checks and in the output (`.npz`, `.mtx`
        /// and `.tns` keep them; JSON cannot, and is refused). Without it
        /// they are refused.
        #[arg(long)]
        allow_nonfinite: bool,
    },
    /// Generates a benchmark matrix or 3-D tensor shaped like the papers'
    /// (size, nnz, occupied diagonals, row-length spread), deterministic
    /// for a seed; `--list` shows the catalog.
    #[command(
        after_help = "Examples:\n  spf generate --list\n  spf generate ecology1 --scale 0.1 -o ecology1.mtx"
    )]
    Generate {
        /// A catalog name (`spf generate --list`), e.g. ecology1.
        #[arg(required_unless_present = "list")]
        name: Option<String>,
        /// Prints the catalog: name, dims, nnz, diagonals, longest row, kind
        /// (at `--scale` when given).
        #[arg(long, conflicts_with_all = ["name", "output", "seed", "shuffle"])]
        list: bool,
        /// Shrinks rows, columns and nnz by this factor in (0, 1], keeping
        /// the structure.
        #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
        scale: f64,
        /// The seed: the same seed gives the same file on every platform.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Writes the entries in a seeded random order instead of row-major.
        #[arg(long)]
        shuffle: bool,
        /// The output: `.mtx` (Matrix Market, matrices) or `.tns` (FROSTT).
        #[arg(short, long, required_unless_present = "list")]
        output: Option<PathBuf>,
    },
    /// Draws the polyhedral dataflow graph of a computation file, or of the
    /// synthesized conversion between two formats (`spf pdfg SRC DST`).
    #[command(
        after_help = "Examples:\n  spf pdfg coo csr -o coo_csr.svg\n  spf pdfg examples/forward_solve.comp -o fs.dot"
    )]
    Pdfg {
        /// A computation file, or two formats: SRC DST (built-in names or
        /// descriptor paths).
        #[arg(required = true, num_args = 1..=2, value_name = "FILE | SRC DST")]
        inputs: Vec<String>,
        /// The output: `.dot` for Graphviz, `.svg` for a picture (no Graphviz needed).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Synthesizes the conversion from SRC to DST and prints it.
    #[command(
        after_help = "Examples:\n  spf synth coo csr --emit c -o coo_csr.c\n  spf synth coo csr --emit ir"
    )]
    Synth {
        /// The source format (built-in name or descriptor path).
        src: String,
        /// The destination format (built-in name or descriptor path).
        dst: String,
        /// What to print: C, Rust, the computation (`ir`, the .comp format)
        /// or its dataflow graph (`dot`).
        #[arg(long, value_enum)]
        emit: conversion::SynthEmit,
        /// Where to write it; standard output when absent.
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        widths: WidthFlags,
    },
    /// Converts INPUT from SRC to DST (compiled with the C compiler, `$CC`
    /// or `cc`, and cached in `$XDG_CACHE_HOME/spf` or `~/.cache/spf`;
    /// in the interpreter without a compiler), checks the result with the
    /// destination's descriptor and the oracle, and writes it as an
    /// instance of DST: `.npz` (scipy's layout when DST has one),
    /// `.mtx`/`.tns` (its entries) or JSON.
    #[command(
        after_help = "Example:\n  spf convert coo csr tests/data/matrices/dwt_2680.mtx -o dwt_2680.csr.npz"
    )]
    Convert {
        /// The source format (built-in name or descriptor path).
        src: String,
        /// The destination format (built-in name or descriptor path).
        dst: String,
        /// A Matrix Market or FROSTT file (converted to SRC first when SRC
        /// is not COO), or an instance of SRC: an `.npz` archive (scipy's
        /// `save_npz` or spf's generic layout) or JSON. The kind is told by
        /// the content, whatever the name; gzip-compressed files are read;
        /// `-` is standard input.
        input: PathBuf,
        /// The instance of DST, by its name: `.npz`, `.mtx`, `.tns` or
        /// `.json` (the last three also `.gz`-compressed); JSON on standard
        /// output when absent or `-`.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// What to write, whatever the output's name: npz, mtx, tns or
        /// json.
        #[arg(long, value_enum)]
        to: Option<ToFlag>,
        /// Where the conversion runs: compiled when a C compiler works,
        /// else in the interpreter with a notice (auto); always compiled
        /// (native); in the interpreter (interp).
        #[arg(long, value_enum, default_value_t = EngineFlag::Auto)]
        engine: EngineFlag,
        /// Skips checking the result (the input is still checked).
        #[arg(long)]
        no_verify: bool,
        /// Says on standard error which engine ran and whether the compiled
        /// conversion came from the cache.
        #[arg(long)]
        verbose: bool,
        /// Keeps a symmetric Matrix Market input's entries as the file lists
        /// them (one triangle) instead of adding their mirrors.
        #[arg(long)]
        keep_triangle: bool,
        /// Removes the result's explicit zeros (stored zeros are kept
        /// otherwise, as scipy keeps them, in every format without padding).
        #[arg(long)]
        drop_zeros: bool,
        /// Refuses, before it allocates them, a conversion whose arrays
        /// would take more than N times its input's bytes (and more than
        /// 16 MiB): mostly padding, such as DIA of a matrix with thousands
        /// of diagonals. 0 is no limit.
        #[arg(long, value_name = "N", default_value_t = spf::engine::runner::MAX_PADDING)]
        max_padding: u32,
        /// Accepts values that are not finite: `nan`, `inf`, `-inf`,
        /// `infinity` (any case) in `.mtx`/`.tns` input, NaN and infinities
        /// in `.npz` input, in the checks and in the output (`.npz`, `.mtx`
        /// and `.tns` keep them; JSON cannot, and is refused). Without it
        /// they are refused.
        #[arg(long)]
        allow_nonfinite: bool,
        #[command(flatten)]
        widths: WidthFlags,
    },
    /// Compiles the conversion from SRC to DST into a program:
    /// `BIN INPUT [-o OUT.json] [--repeat N]` prints one JSON line with the
    /// conversion's median time (and a baseline's, with --baseline).
    #[command(
        after_help = "Example:\n  spf build coo csr -o coo2csr && ./coo2csr tests/data/matrices/dwt_2680.mtx --repeat 10"
    )]
    Build {
        /// The source format (built-in name or descriptor path).
        src: String,
        /// The destination format (built-in name or descriptor path).
        dst: String,
        /// The executable to write.
        #[arg(short, long)]
        output: PathBuf,
        /// Also write the program's C source there.
        #[arg(long, value_name = "FILE.c")]
        emit_source: Option<PathBuf>,
        /// A hand-written conversion to time against the generated one in
        /// the same process: a C file defining `baseline` with the
        /// parameters of the generated function (`spf synth SRC DST --emit
        /// c`). The program then reports `baseline_median_seconds` too and
        /// takes `--baseline-output FILE.json`.
        #[arg(long, value_name = "FILE.c")]
        baseline: Option<PathBuf>,
        /// Compile in a check of every result against its input with the
        /// oracle (both converted to coordinates by synthesized conversions,
        /// outside the timed region): a difference is reported and the
        /// program exits with status 3 before writing anything.
        #[arg(long)]
        verify: bool,
        /// Extra flags for the C compiler, after spf's own (`-O3
        /// -march=native -std=c99`), so that they win: e.g. `--cflags "-O1 -g
        /// -fsanitize=address,undefined"` for a program checked by the
        /// sanitizers.
        #[arg(long, value_name = "FLAGS", allow_hyphen_values = true)]
        cflags: Option<String>,
        #[command(flatten)]
        widths: WidthFlags,
    },
}

/// The index widths of a conversion's arrays (MLIR's `posWidth` and
/// `crdWidth`): one for both kinds, each kind overridable.
#[derive(clap::Args, Clone, Copy)]
struct WidthFlags {
    /// The width of the index arrays: 32 or 64 bits, or auto: 32 when
    /// every size of the input fits (`spf convert` decides when it reads
    /// the input; a program of `spf build` holds both widths and picks when
    /// it reads; `spf synth`, with no input, prints 64).
    #[arg(long, value_name = "32|64|auto", default_value_t = WidthChoice::Auto)]
    index_width: WidthChoice,
    /// The width of the position (pointer) arrays, such as CSR's
    /// `rowptr`, instead of --index-width's.
    #[arg(long, value_name = "32|64|auto")]
    pos_width: Option<WidthChoice>,
    /// The width of the coordinate arrays, such as CSR's `col`, instead of
    /// --index-width's.
    #[arg(long, value_name = "32|64|auto")]
    crd_width: Option<WidthChoice>,
}

/// The end of `spf --help`: the built-in formats, from the registry
/// (`synth::builtin`).
/// Where a conversion runs (`--engine`).
#[derive(Clone, Copy, clap::ValueEnum)]
enum EngineFlag {
    /// Compiled when a C compiler works, else in the interpreter (with a
    /// notice).
    Auto,
    /// Compiled with the C compiler (`$CC`, else `cc`), cached; an error
    /// when that fails.
    Native,
    /// In spf's interpreter.
    Interp,
}

impl From<EngineFlag> for Engine {
    fn from(flag: EngineFlag) -> Engine {
        match flag {
            EngineFlag::Auto => Engine::Auto,
            EngineFlag::Native => Engine::Native,
            EngineFlag::Interp => Engine::Interp,
        }
    }
}

/// The kind of file a result is written as (`--to`).
#[derive(Clone, Copy, clap::ValueEnum)]
enum ToFlag {
    /// An `.npz` archive: scipy's `save_npz` layout where the format has
    /// one, spf's generic layout otherwise.
    Npz,
    /// The entries as Matrix Market coordinates.
    Mtx,
    /// The entries as FROSTT coordinates.
    Tns,
    /// A JSON instance.
    Json,
}

impl From<ToFlag> for OutputKind {
    fn from(flag: ToFlag) -> OutputKind {
        match flag {
            ToFlag::Npz => OutputKind::Npz,
            ToFlag::Mtx => OutputKind::Mtx,
            ToFlag::Tns => OutputKind::Tns,
            ToFlag::Json => OutputKind::Json,
        }
    }
}

fn formats_help() -> String {
    format!(
        "Built-in formats (wherever a command takes a format; a path to a .desc file works too):\n  {}",
        spf::synth::builtin::builtin_names().join(", ")
    )
}

impl WidthFlags {
    fn choices(self) -> WidthChoices {
        WidthChoices::from_flags(self.index_width, self.pos_width, self.crd_width)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: Result<(), CliError> = match &cli.command {
        Command::Calc { file } => commands::calc(path(file)),
        Command::Codegen { file, emit, output } => commands::codegen(file, *emit, path(output)),
        Command::Run {
            file,
            data,
            assignments,
            output,
        } => commands::run(file, path(data), assignments, path(output)),
        Command::Pdfg { inputs, output } => conversion::pdfg(inputs, output),
        Command::Synth {
            src,
            dst,
            emit,
            output,
            widths,
        } => conversion::synth(src, dst, *emit, path(output), widths.choices()),
        Command::Convert {
            src,
            dst,
            input,
            output,
            to,
            engine,
            no_verify,
            verbose,
            keep_triangle,
            drop_zeros,
            max_padding,
            allow_nonfinite,
            widths,
        } => {
            let mut runner = Runner::new(
                (*engine).into(),
                !no_verify,
                std::sync::Arc::new(Progress::on_terminal(*verbose)),
            );
            runner.widths = widths.choices();
            runner.max_padding = *max_padding;
            runner.allow_nonfinite = *allow_nonfinite;
            let symmetry = if *keep_triangle {
                spf::synth::tensor_io::Symmetry::KeepTriangle
            } else {
                spf::synth::tensor_io::Symmetry::Expand
            };
            Target::new(path(output), to.map(Into::into), OutputKind::Json).and_then(|target| {
                conversion::convert(src, dst, input, &target, &runner, symmetry, *drop_zeros)
            })
        }
        Command::Build {
            src,
            dst,
            output,
            emit_source,
            baseline,
            verify,
            cflags,
            widths,
        } => conversion::build(
            src,
            dst,
            output,
            engine::program::build::BuildOptions {
                emit_source: path(emit_source),
                baseline: path(baseline),
                verify: *verify,
                cflags: cflags.as_deref().unwrap_or_default(),
                width: widths.choices(),
            },
        ),
        Command::Check { format, other } => match commands::check(format, other.as_deref()) {
            // The descriptor holds, but a pair converts neither directly
            // nor through another format.
            Ok(Some(unconverted)) => {
                eprintln!("{format}: {unconverted}");
                return ExitCode::from(3);
            }
            done => done.map(|_| ()),
        },
        Command::Dump {
            format,
            input,
            output,
            to,
            allow_nonfinite,
        } => commands::dump(
            format,
            input,
            path(output),
            to.map(Into::into),
            *allow_nonfinite,
        ),
        Command::Generate {
            name,
            list,
            scale,
            seed,
            shuffle,
            output,
        } => match (name, output) {
            (Some(name), Some(output)) if !*list => {
                cli::generate::generate(name, *scale, *seed, *shuffle, output)
            }
            _ => cli::generate::list(*scale),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if e.is_located() {
                // `FILE:LINE:COL: message`, the form editors and tools parse.
                eprintln!("{e}");
            } else {
                eprintln!("spf: {e}");
            }
            ExitCode::from(e.exit_code())
        }
    }
}
