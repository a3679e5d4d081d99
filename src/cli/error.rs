//! The command's error type: every subcommand returns it, `main` reports it.

use std::io;

/// An error reported by `main`, with the exit status it asks for.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A file could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// An output file could not be written.
    #[error("{path}: cannot write: {source}")]
    Write {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// An error at a position of an input file: `FILE:LINE:COL: message`.
    #[error("{file}:{error}")]
    Located {
        /// The file (or `<stdin>`).
        file: String,
        /// The located error.
        error: spf::iegen::syntax::SyntaxError,
    },
    /// A problem with an input file as a whole: `FILE: message`.
    #[error("{file}: {message}")]
    Input {
        /// The file.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// A problem with the command line.
    #[error("{0}")]
    Usage(String),
    /// A conversion's result whose entries' fingerprint differs from its
    /// input's: a bug in spf, which the caller names by converting again
    /// with exact comparisons ([`super::engine::Runner::exactly`]).
    #[error("internal error: {0}")]
    Mismatch(String),
}

impl CliError {
    /// The exit status: 2 for every error.
    pub fn exit_code(&self) -> u8 {
        2
    }

    /// Whether the message already starts with a location an editor can parse.
    pub fn is_located(&self) -> bool {
        matches!(self, CliError::Located { .. } | CliError::Input { .. })
    }
}
