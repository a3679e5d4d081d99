//! The one error every entry point of the engine returns: what went wrong,
//! in variants a caller can match, each displayed as the message the `spf`
//! command prints.
//!
//! The variants follow who can fix the problem: the input's author (a
//! file or an instance that is malformed or invalid, [`Error::Located`],
//! [`Error::Input`], [`Error::Invalid`]), the descriptor's author
//! ([`Error::Format`], [`Error::Unsupported`], [`Error::Refused`]), the
//! machine ([`Error::TooLarge`], [`Error::Compiler`], I/O), the caller's
//! choice of options ([`Error::Usage`]), or spf itself ([`Error::Internal`],
//! [`Error::Mismatch`]: a conversion that passed validation gave a wrong
//! result on this input).

use std::io;

/// An error of the engine (and of the `spf` command, which reports it).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
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
        error: iegen::syntax::SyntaxError,
    },
    /// A problem with an input file as a whole, or with an instance it
    /// holds (an array and index the message names): `FILE: message`.
    #[error("{file}: {message}")]
    Input {
        /// The file.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// An instance in memory that violates its format (the message names
    /// the array and the index).
    #[error("the {format} input: {message}")]
    Invalid {
        /// The instance's format.
        format: String,
        /// What is wrong.
        message: String,
    },
    /// An input with an entry the destination format cannot store (the
    /// message names the entry).
    #[error("{0}")]
    Unstorable(String),
    /// A format that is not well-formed, or a name that is no format.
    #[error("{0}")]
    Format(String),
    /// A conversion synthesis cannot make.
    #[error("cannot synthesize the conversion {pair}: {reason}")]
    Unsupported {
        /// `SRC -> DST`.
        pair: String,
        /// Why not.
        reason: String,
    },
    /// A synthesized conversion that translation validation refused: the
    /// message names the smallest tensor it gets wrong.
    #[error("{message}")]
    Refused {
        /// What is wrong, the tensor included.
        message: String,
        /// That tensor as a file's text (Matrix Market for a matrix,
        /// FROSTT otherwise), when one was found.
        counterexample: Option<String>,
    },
    /// An input, or a result, too large for this machine or for the index
    /// width asked for (the message gives the sizes).
    #[error("{0}")]
    TooLarge(String),
    /// The compiled engine cannot make the code: no working C compiler,
    /// no cache directory to compile in, code the C printer cannot print,
    /// or a compilation that failed (the compiler's own message follows).
    /// The interpreter can still convert ([`crate::Engine::Interp`]).
    #[error("{0}")]
    Compiler(String),
    /// An option or a combination of options that does not apply.
    #[error("{0}")]
    Usage(String),
    /// A conversion that passed validation gave an invalid or wrong result
    /// on this input: a bug in spf.
    #[error("internal error: {0}")]
    Internal(String),
    /// A result whose entries' fingerprint differs from its input's: a bug
    /// in spf, which the runner names by converting again with exact
    /// comparisons ([`crate::runner::Runner::exactly`]).
    #[error("internal error: {0}")]
    Mismatch(String),
}

impl Error {
    /// The error for a conversion that stopped on an input with `message`:
    /// too large when the message says so (an array the machine cannot
    /// hold), else a bug in spf (the conversion passed validation).
    pub fn stopped(message: String) -> Error {
        if message.contains("too large") {
            Error::TooLarge(message)
        } else {
            Error::Internal(message)
        }
    }

    /// The exit status a command reports the error with: 2 for every error.
    pub fn exit_code(&self) -> u8 {
        2
    }

    /// Whether the message already starts with a location an editor can parse.
    pub fn is_located(&self) -> bool {
        matches!(self, Error::Located { .. } | Error::Input { .. })
    }
}

/// The engine's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;
