//! What earlier processes synthesized, for a later one to reuse: the
//! lowering of a plan into a computation (the z3 queries of lowering are
//! most of what is left of synthesizing a built-in pair) and the verdict of
//! the battery of test tensors on a computation (run in the interpreter, a
//! third to a half of it). `spf convert` keeps a [`Record`] in its cache
//! directory, beside the compiled conversions; a library user passes
//! [`NoRecord`] and synthesizes from scratch.
//!
//! Nothing recorded is trusted blindly. A recorded lowering is read back
//! as text and validated on the battery like a fresh one (its own verdict
//! may be recorded too: it is known by its own text); one that does not
//! read back or does not pass is replaced by a fresh lowering. A recorded
//! verdict is for the exact computation text and descriptors it was given
//! for.

use serde::{Deserialize, Serialize};

use crate::conversion::Conversion;
use crate::plan::Plan;
use crate::synthesized::{Binding, Synthesized};
use iegen::computation::Computation;

/// Where lowerings and verdicts of earlier processes are kept, by key
/// ([`lowering_key`], [`validation_key`]).
pub trait Record: Sync {
    /// How many test tensors the conversion of `key` passed, when it did.
    fn passed(&self, key: &str) -> Option<usize>;
    /// Notes that the conversion of `key` passed `tensors` test tensors.
    fn note(&self, key: &str, tensors: usize);
    /// The lowering of `key` as [`lowered_text`] wrote it, when there is one.
    fn lowered(&self, key: &str) -> Option<String>;
    /// Notes the lowering of `key` ([`lowered_text`]; an empty text says
    /// the lowering read back is not to be used).
    fn note_lowered(&self, key: &str, text: &str);
}

/// No record: every process lowers and validates for itself.
pub struct NoRecord;

impl Record for NoRecord {
    fn passed(&self, _: &str) -> Option<usize> {
        None
    }
    fn note(&self, _: &str, _: usize) {}
    fn lowered(&self, _: &str) -> Option<String> {
        None
    }
    fn note_lowered(&self, _: &str, _: &str) {}
}

/// What a conversion's verdict is known by: both descriptors and the
/// computation, as text.
pub fn validation_key(s: &Synthesized) -> String {
    format!(
        "{:?}\n{:?}\n{}",
        s.conversion.src, s.conversion.dst_given, s.computation
    )
}

/// What a plan's lowering is known by: both descriptors and the plan.
pub fn lowering_key(conversion: &Conversion, plan: &Plan) -> String {
    format!(
        "{:?}\n{:?}\n{:?}",
        conversion.src, conversion.dst_given, plan
    )
}

/// A lowering as text: the computation in the computation language and
/// its bindings.
#[derive(Serialize, Deserialize)]
struct Lowered {
    computation: String,
    bindings: Vec<Binding>,
}

/// The text a [`Record`] keeps of a lowering.
pub fn lowered_text(computation: &Computation, bindings: &[Binding]) -> String {
    serde_json::to_string(&Lowered {
        computation: computation.to_string(),
        bindings: bindings.to_vec(),
    })
    .unwrap_or_default()
}

/// A lowering read back from [`lowered_text`]'s text, or `None` when it
/// does not read (an empty text, another spf's, a damaged file).
pub fn read_lowered(text: &str) -> Option<(Computation, Vec<Binding>)> {
    let lowered: Lowered = serde_json::from_str(text).ok()?;
    let computation = iegen::computation::parse_computation(&lowered.computation).ok()?;
    Some((computation, lowered.bindings))
}
