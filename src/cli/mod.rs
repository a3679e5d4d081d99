//! The `spf` command line: argument definitions, subcommands, input and
//! output handling. `main` reports the one `CliError` a subcommand returns.

pub mod c_compiler;
pub mod commands;
pub mod conversion;
pub mod data;
pub mod driver;
mod driver_rules;
pub mod engine;
pub mod error;
pub mod file_blocks;
pub mod freed_blocks;
pub mod generate;
pub mod huge_pages;
pub mod instance_file;
pub mod native;
pub mod native_cache;
pub mod native_check;
pub mod output;
pub mod prefault;
pub mod progress;
/// What a test reports beyond passing or failing: a missing prerequisite,
/// a host feature its host-only part lacks (the file every crate's tests
/// share).
#[cfg(test)]
#[path = "../../tests/common/report.rs"]
pub mod report;
pub mod zeros;
