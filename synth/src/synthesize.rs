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

use crate::candidate::Candidates;
use crate::conversion::Conversion;
use crate::descriptor::Descriptor;
use crate::record::{lowered_text, lowering_key, read_lowered, NoRecord, Record};
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
    synthesize_validated(src, dst, &NoRecord).map(|(s, _)| s)
}

/// [`synthesize`], reusing what earlier processes noted in `record`
/// ([`crate::record`]): a plan's lowering (read back and validated like a
/// fresh one), and the battery's verdict on a computation.
///
/// # Errors
///
/// As [`synthesize`].
pub fn synthesize_recorded(
    src: &Descriptor,
    dst: &Descriptor,
    record: &dyn Record,
) -> Result<Synthesized, SynthError> {
    synthesize_validated(src, dst, record).map(|(s, _)| s)
}

/// How many plans synthesis tries, cheapest first, before it reports the
/// first one's problem: a plan that lowering refuses or validation refutes
/// is excluded and the next cheapest is chosen
/// ([`crate::plan::choose_excluding`]).
pub const PLAN_ATTEMPTS: usize = 4;

/// [`synthesize`], with the number of test tensors it passed.
fn synthesize_validated(
    src: &Descriptor,
    dst: &Descriptor,
    record: &dyn Record,
) -> Result<(Synthesized, usize), SynthError> {
    let (conversion, cands) = compose(src, dst)?;
    let mut refuted = Vec::new();
    let mut first: Option<SynthError> = None;
    for _ in 0..PLAN_ATTEMPTS {
        let plan = match crate::plan::choose_excluding(&conversion, &cands, &refuted) {
            Ok(plan) => plan,
            // No further plan: the first plan's problem is the answer.
            Err(e) => return Err(first.unwrap_or(e.into())),
        };
        // A lowering an earlier process noted, when it reads back and passes.
        let key = lowering_key(&conversion, &plan);
        let recorded = record.lowered(&key);
        // An empty record says a lowering read back failed before: this
        // plan is lowered afresh every time, and its lowering not noted.
        let unusable = recorded.as_deref() == Some("");
        if let Some((computation, bindings)) = recorded.as_deref().and_then(read_lowered) {
            let s = Synthesized {
                conversion: conversion.clone(),
                plan: plan.clone(),
                computation,
                bindings,
            };
            match validate::validate_recorded(&s, &unvalidated_maker, record) {
                Ok(v) => return Ok((s, v.tensors)),
                // Not to be read back again: lowered afresh below.
                Err(_) => record.note_lowered(&key, ""),
            }
        }
        let (computation, bindings) = match crate::lower::lower(&conversion, &plan) {
            Ok(lowered) => lowered,
            Err(e) => {
                first.get_or_insert(e);
                refuted.push(plan);
                continue;
            }
        };
        if !unusable {
            record.note_lowered(&key, &lowered_text(&computation, &bindings));
        }
        let s = Synthesized {
            conversion: conversion.clone(),
            plan,
            computation,
            bindings,
        };
        match validate::validate_recorded(&s, &unvalidated_maker, record) {
            Ok(v) => return Ok((s, v.tensors)),
            Err(e) => {
                first.get_or_insert(SynthError::Validation(Box::new(e)));
                refuted.push(s.plan);
            }
        }
    }
    Err(first.expect("at least one attempt"))
}

/// The composed conversion and its classified candidates.
fn compose(src: &Descriptor, dst: &Descriptor) -> Result<(Conversion, Candidates), SynthError> {
    let conversion = Conversion::new(src, dst)?;
    let cands =
        crate::candidate::candidates(&conversion).map_err(|_| SynthError::Contradiction {
            src: src.name.clone(),
            dst: dst.name.clone(),
        })?;
    Ok((conversion, cands))
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
    let (conversion, cands) = compose(src, dst)?;
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
    match synthesize_validated(src, dst, &NoRecord) {
        Ok((_, tensors)) => PairVerdict::Ok(tensors),
        Err(SynthError::Validation(e)) => PairVerdict::Failed(e),
        Err(e) => PairVerdict::Refused(e),
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A record in memory that may claim every conversion passed, and
    /// keeps lowerings.
    #[derive(Default)]
    struct Remembered {
        claim: Option<usize>,
        noted: Mutex<Vec<(String, usize)>>,
        lowerings: Mutex<std::collections::HashMap<String, String>>,
    }

    impl Record for Remembered {
        fn passed(&self, _: &str) -> Option<usize> {
            self.claim
        }
        fn note(&self, key: &str, tensors: usize) {
            self.noted
                .lock()
                .expect("not poisoned")
                .push((key.to_string(), tensors));
        }
        fn lowered(&self, key: &str) -> Option<String> {
            self.lowerings
                .lock()
                .expect("not poisoned")
                .get(key)
                .cloned()
        }
        fn note_lowered(&self, key: &str, text: &str) {
            self.lowerings
                .lock()
                .expect("not poisoned")
                .insert(key.to_string(), text.to_string());
        }
    }

    /// A lowering noted reads back to a computation that prints the same
    /// and is what a later synthesis returns; a damaged one is replaced by
    /// a fresh lowering.
    #[test]
    fn a_recorded_lowering_is_read_back_or_replaced() {
        let load = |n: &str| crate::builtin::load_format(n).expect("built-in");
        let (src, dst) = (load("csc"), load("dcsr"));
        let record = Remembered::default();
        let (first, _) = synthesize_validated(&src, &dst, &record).expect("synthesized");
        let texts: Vec<(String, String)> = record
            .lowerings
            .lock()
            .expect("not poisoned")
            .clone()
            .into_iter()
            .collect();
        assert_eq!(texts.len(), 1);
        let (key, text) = &texts[0];
        let (computation, bindings) = read_lowered(text).expect("reads back");
        assert_eq!(computation.to_string(), first.computation.to_string());
        assert_eq!(bindings, first.bindings);
        // The recorded text is what a later synthesis returns: a statement
        // renamed in the record comes back renamed.
        assert!(text.contains("S0: "), "{text}");
        record.note_lowered(key, &text.replace("S0: ", "R0: "));
        let (again, _) = synthesize_validated(&src, &dst, &record).expect("synthesized");
        assert!(again.computation.to_string().contains("R0: "));
        // Damaged: lowered afresh, and the record holds the fresh text.
        record.note_lowered(key, "{\"computation\": \"computation x(\"}");
        let (fresh, _) = synthesize_validated(&src, &dst, &record).expect("synthesized");
        assert_eq!(fresh.computation.to_string(), first.computation.to_string());
        assert_eq!(record.lowered(key).as_deref(), Some(text.as_str()));
        // Marked unusable (a read-back that failed validation): lowered
        // afresh, and the mark is kept.
        record.note_lowered(key, "");
        let (fresh, _) = synthesize_validated(&src, &dst, &record).expect("synthesized");
        assert_eq!(fresh.computation.to_string(), first.computation.to_string());
        assert_eq!(record.lowered(key).as_deref(), Some(""));
    }

    /// A pass is noted under the conversion's key, and a conversion the
    /// record says passed is not run on the battery again.
    #[test]
    fn a_recorded_pass_skips_the_battery() {
        let load = |n: &str| crate::builtin::load_format(n).expect("built-in");
        // A pair no other test of this process validates (the battery's
        // in-process cache would answer first).
        let (src, dst) = (load("dia"), load("jad"));
        let fresh = Remembered::default();
        let (s, tensors) = synthesize_validated(&src, &dst, &fresh).expect("synthesized");
        assert!(tensors > 1);
        let noted = fresh.noted.into_inner().expect("not poisoned");
        assert_eq!(noted, vec![(crate::record::validation_key(&s), tensors)]);
        // Another pair, which the record claims: its count is the claim.
        let (src, dst) = (load("jad"), load("dia"));
        let claimed = Remembered {
            claim: Some(1),
            ..Remembered::default()
        };
        let (_, tensors) = synthesize_validated(&src, &dst, &claimed).expect("synthesized");
        assert_eq!(tensors, 1);
        assert!(claimed.noted.into_inner().expect("not poisoned").is_empty());
    }
}
