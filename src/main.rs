//! The `spf` command.
//!
//! Every subcommand returns a [`CliError`]; `main` is the single place that
//! reports it and chooses the exit status.

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use spf::iegen::calc::Calculator;

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
}

/// An error reported by `main`, with the exit status it asks for.
#[derive(Debug, thiserror::Error)]
enum CliError {
    /// A file could not be read.
    #[error("{path}: {source}")]
    Read {
        path: String,
        #[source]
        source: io::Error,
    },
    /// A program error at a position: `FILE:LINE:COL: message`.
    #[error("{file}:{error}")]
    Located {
        file: String,
        error: spf::iegen::syntax::SyntaxError,
    },
    /// Writing the output failed (for example a closed pipe).
    #[error("writing output: {0}")]
    Write(#[source] io::Error),
}

impl CliError {
    fn exit_code(&self) -> u8 {
        2
    }
}

fn read_input(file: &Option<PathBuf>) -> Result<(String, String), CliError> {
    match file {
        Some(path) => {
            let shown = path.display().to_string();
            let text = std::fs::read_to_string(path).map_err(|source| CliError::Read {
                path: shown.clone(),
                source,
            })?;
            Ok((shown, text))
        }
        None => {
            let mut text = String::new();
            io::stdin()
                .read_to_string(&mut text)
                .map_err(|source| CliError::Read {
                    path: "<stdin>".into(),
                    source,
                })?;
            Ok(("<stdin>".into(), text))
        }
    }
}

fn calc(file: &Option<PathBuf>) -> Result<(), CliError> {
    let (name, text) = read_input(file)?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut write_error = None;
    let result = Calculator::new().run(&text, &mut |line| {
        if write_error.is_none() {
            if let Err(e) = writeln!(out, "{line}").and_then(|_| out.flush()) {
                write_error = Some(e);
            }
        }
    });
    if let Some(e) = write_error {
        return Err(CliError::Write(e));
    }
    result.map_err(|error| CliError::Located { file: name, error })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Calc { file } => calc(file),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            match &e {
                // Located errors keep the conventional `FILE:LINE:COL: message`
                // form that editors and other tools parse.
                CliError::Located { .. } => eprintln!("{e}"),
                _ => eprintln!("spf: {e}"),
            }
            ExitCode::from(e.exit_code())
        }
    }
}
