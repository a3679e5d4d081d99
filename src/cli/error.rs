//! The command's error type: the engine's ([`engine::Error`]), which every
//! subcommand returns and `main` reports.

pub use engine::Error as CliError;
