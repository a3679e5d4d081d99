//! The `spf` command line: argument definitions, subcommands, input and
//! output handling. `main` reports the one `CliError` a subcommand returns.

pub mod commands;
pub mod data;
pub mod error;
pub mod output;
