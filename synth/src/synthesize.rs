//! Synthesis proper: from a source and a destination descriptor to an SPF
//! computation that converts one into the other (dissertation Algorithm 2),
//! validated before it is returned.
//!
//! [`synthesize`] composes the two formats ([`Conversion`]), collects and
//! classifies the candidates ([`crate::candidate`]), chooses a plan
//! ([`crate::plan`]), lowers the plan into a computation
//! ([`crate::lower`]), and runs the result on a battery of test tensors
//! ([`crate::validate`]): a conversion that gives a wrong or invalid
//! result on any of them is an error, never code.

use crate::conversion::Conversion;
use crate::descriptor::Descriptor;
use crate::validate::{self, ValidationError};

pub use crate::error::SynthError;
pub use crate::synthesized::{Binding, BindingKind, ExecError, Side, Synthesized};

/// Synthesizes the conversion from `src` to `dst` and validates it
/// ([`crate::validate`]): what it returns gave correct, valid results on
/// every test tensor. A pair is validated once per process.
///
/// # Errors
///
/// A [`SynthError`] naming what cannot be computed, or
/// [`SynthError::Validation`] with the smallest failing test tensor.
pub fn synthesize(src: &Descriptor, dst: &Descriptor) -> Result<Synthesized, SynthError> {
    let s = synthesize_unvalidated(src, dst)?;
    validate::validate_cached(&s, &unvalidated_maker)
        .map_err(|e| SynthError::Validation(Box::new(e)))?;
    Ok(s)
}

/// How validation makes test instances of a source format: by the
/// unvalidated conversion from coordinates, whose results it checks.
fn unvalidated_maker(src: &Descriptor, dst: &Descriptor) -> Result<Synthesized, String> {
    synthesize_unvalidated(src, dst).map_err(|e| e.to_string())
}

/// The conversion from `src` to `dst` as synthesis makes it, *not*
/// validated: its results may be wrong. For measuring synthesis alone and
/// for tests of the validator; hand out only what [`synthesize`] returns.
///
/// # Errors
///
/// A [`SynthError`] naming what cannot be computed.
pub fn synthesize_unvalidated(
    src: &Descriptor,
    dst: &Descriptor,
) -> Result<Synthesized, SynthError> {
    let conversion = Conversion::new(src, dst)?;
    let cands =
        crate::candidate::candidates(&conversion).map_err(|_| SynthError::Contradiction {
            src: src.name.clone(),
            dst: dst.name.clone(),
        })?;
    let plan = crate::plan::choose(&conversion, &cands)?;
    let (computation, bindings) = crate::lower::lower(&conversion, &plan)?;
    Ok(Synthesized {
        conversion,
        plan,
        computation,
        bindings,
    })
}

/// What [`check_pair`] found for one ordered pair of formats.
#[derive(Clone, Debug, PartialEq)]
pub enum PairVerdict {
    /// Synthesized and validated on this many test tensors.
    Ok(usize),
    /// Synthesis refused the pair, with the reason.
    Refused(SynthError),
    /// Synthesized, but wrong on a test tensor (or not validatable).
    Failed(Box<ValidationError>),
}

impl PairVerdict {
    /// Whether the pair converts.
    pub fn is_ok(&self) -> bool {
        matches!(self, PairVerdict::Ok(_))
    }
}

/// Synthesizes and validates `src` → `dst`, as every command would, and
/// says how it went (`spf check A B`).
pub fn check_pair(src: &Descriptor, dst: &Descriptor) -> PairVerdict {
    match synthesize_unvalidated(src, dst) {
        Err(e) => PairVerdict::Refused(e),
        Ok(s) => match validate::validate_cached(&s, &unvalidated_maker) {
            Ok(v) => PairVerdict::Ok(v.tensors),
            Err(e) => PairVerdict::Failed(Box::new(e)),
        },
    }
}

impl std::fmt::Display for PairVerdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PairVerdict::Ok(n) => write!(f, "ok: synthesized, and correct on {n} test tensors"),
            PairVerdict::Refused(e) => write!(f, "refused: {e}"),
            PairVerdict::Failed(e) => write!(f, "failed validation: {e}"),
        }
    }
}
