//! The `spf` command line: subcommands, which load formats and files and
//! call the libraries, and the progress shown on standard error. `main`
//! reports the one `CliError` a subcommand returns.

pub mod commands;
pub mod conversion;
pub mod data;
pub mod error;
pub mod generate;
pub mod progress;
