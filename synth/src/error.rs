//! Why a conversion cannot be synthesized: [`SynthError`], whose variants
//! name the step that failed (composition, the closed constraints, the
//! plan, the lowering, validation). It lives apart from
//! [`crate::synthesize`], which runs the steps and re-exports it
//! (`synthesize::SynthError`), so that a step such as [`crate::lower`] can
//! return it without depending on the module that calls it.

use crate::validate::ValidationError;

/// Why a conversion cannot be synthesized.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SynthError {
    /// The formats cannot be composed.
    #[error(transparent)]
    Conversion(#[from] crate::conversion::ConversionError),
    /// The composed constraints contradict each other.
    #[error("the constraints of {src} -> {dst} contradict each other")]
    Contradiction {
        /// Source format.
        src: String,
        /// Destination format.
        dst: String,
    },
    /// No plan computes every unknown.
    #[error(transparent)]
    Plan(#[from] crate::plan::PlanError),
    /// The plan needs something lowering does not provide.
    #[error("{message}")]
    Lowering {
        /// Source format.
        src: String,
        /// Destination format.
        dst: String,
        /// What is missing.
        message: String,
    },
    /// The synthesized conversion gave a wrong or invalid result on a test
    /// tensor, or cannot be validated.
    #[error(transparent)]
    Validation(Box<ValidationError>),
}
