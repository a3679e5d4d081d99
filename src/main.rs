//! The `spf` command.
//!
//! Every subcommand returns a [`CliError`]; `main` is the single place that
//! reports it and chooses the exit status.

mod cli;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use cli::commands::{self, path, Language};
use cli::error::CliError;

/// Synthesizes sparse tensor format conversions with the Sparse Polyhedral Framework.
#[derive(Parser)]
#[command(name = "spf", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluates a program of the set/relation calculator (reads standard
    /// input without FILE). Statements end with `;`: `uf NAME : SET -> SET
    /// [PROPS];`, `forall e1, e2 : P => Q;`, `NAME := EXPR;`, `EXPR;`.
    Calc {
        /// The program file; standard input when absent.
        file: Option<PathBuf>,
    },
    /// Scans a computation file into loops and prints it as C or Rust.
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
    /// Validates a format descriptor with z3: the map is a function, stored
    /// entries have distinct coordinates (unless it declares padding), every
    /// index array can be computed when the format is a destination.
    Check {
        /// A built-in format (coo, scoo, mcoo, coo3d, mcoo3, csr, csc, dia,
        /// ell, bcsr) or a path to a descriptor file.
        format: String,
    },
    /// Writes the entries a JSON instance of a format stores as coordinates.
    Dump {
        /// The instance's format (built-in name or descriptor path).
        format: String,
        /// The JSON instance: {"format": ..., "symbols": {...}, "arrays": {...}}.
        input: PathBuf,
        /// The output: `.mtx` (Matrix Market) or `.tns` (FROSTT).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Draws the polyhedral dataflow graph of a computation file.
    Pdfg {
        /// The computation file.
        file: PathBuf,
        /// The output: `.dot` for Graphviz, `.svg` for a picture (no Graphviz needed).
        #[arg(short, long)]
        output: PathBuf,
    },
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
        Command::Pdfg { file, output } => commands::pdfg(file, output),
        Command::Check { format } => commands::check(format),
        Command::Dump {
            format,
            input,
            output,
        } => commands::dump(format, input, output),
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
