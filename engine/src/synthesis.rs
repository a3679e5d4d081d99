//! Synthesis as the engine runs it: the descriptors checked first (a
//! built-in format is checked by the test suite), the record of earlier
//! runs' validated conversions reused, and the failures turned into
//! [`Error`]s.

use synth::synthesize::{synthesize_recorded, SynthError, Synthesized};
use synth::Descriptor;

use crate::Error;

/// Where synthesized conversions come from: [`synthesize_pair`] on the
/// command line, the same synthesis without its record in tests
/// (`testing::synthesized`), or a conversion changed on purpose.
pub type Synthesizer<'a> = dyn Fn(&Descriptor, &Descriptor) -> Result<Synthesized, Error> + 'a;

/// Synthesizes the conversion from `src` to `dst`.
///
/// # Errors
///
/// [`Error::Format`] naming a descriptor `spf check` rejects (the first
/// property that fails), [`Error::Unsupported`] naming the pair and why
/// synthesis failed, [`Error::Refused`] when validation refused it.
pub fn synthesize_pair(src: &Descriptor, dst: &Descriptor) -> Result<Synthesized, Error> {
    // A built-in format is checked by the test suite, not on every run.
    for d in [src, dst]
        .into_iter()
        .filter(|d| !synth::builtin::is_builtin(d))
    {
        if let Some(f) = synth::check::first_error(d) {
            return Err(Error::Format(format!(
                "{} is not a well-formed format (`spf check` rejects it): {}: {}",
                d.name, f.property, f.message
            )));
        }
    }
    // What an earlier run lowered and validated is reused (the record is
    // kept beside the compiled conversions).
    let record = crate::native_cache::SynthesisRecord::open(None);
    let record: &dyn synth::record::Record = match &record {
        Some(r) => r,
        None => &synth::record::NoRecord,
    };
    synthesize_recorded(src, dst, record).map_err(|e| synthesis_error(src, dst, e))
}

/// The error of a pair that does not synthesize.
fn synthesis_error(src: &Descriptor, dst: &Descriptor, e: SynthError) -> Error {
    match e {
        // Names the pair and the failing test tensor itself.
        SynthError::Validation(v) => Error::Refused {
            message: v.to_string(),
            counterexample: v.counterexample().map(str::to_string),
        },
        e => Error::Unsupported {
            pair: format!("{} -> {}", src.name, dst.name),
            reason: e.to_string(),
        },
    }
}

/// The tests' synthesizer: the synthesized conversions, each pair
/// synthesized once per test process (without the record
/// [`synthesize_pair`] keeps beside the user's compiled conversions), and
/// copies with one piece of the computation changed, for the tests that a
/// wrong conversion is caught; and the formats and files the tests read.
#[cfg(test)]
pub(crate) mod testing {
    use std::sync::Mutex;

    use iegen::computation::parse_computation;
    use synth::synthesize::{synthesize, Synthesized};
    use synth::Descriptor;

    use super::{synthesis_error, Error};

    /// The built-in format `name`.
    pub(crate) fn format(name: &str) -> Descriptor {
        synth::builtin::load_format(name).expect("built-in format")
    }

    /// A file of synth's test data.
    pub(crate) fn data(name: &str) -> std::path::PathBuf {
        std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../synth/tests/data"))
            .join(name)
    }

    /// A test matrix of the repository; a missing file fails the test.
    pub(crate) fn matrix(name: &str) -> std::path::PathBuf {
        let path = std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/data/matrices"
        ))
        .join(name);
        assert!(path.is_file(), "test matrix {} is missing", path.display());
        path
    }

    /// The conversion `src` → `dst` as synthesis makes it: what the tests
    /// pass where the commands pass [`super::synthesize_pair`].
    pub(crate) fn synthesized(src: &Descriptor, dst: &Descriptor) -> Result<Synthesized, Error> {
        type Done = Vec<(Descriptor, Descriptor, Synthesized)>;
        static DONE: Mutex<Done> = Mutex::new(Vec::new());
        let done = |d: &Done| {
            d.iter()
                .find(|(s, t, _)| s == src && t == dst)
                .map(|(_, _, c)| c.clone())
        };
        if let Some(c) = done(&DONE.lock().unwrap_or_else(|e| e.into_inner())) {
            return Ok(c);
        }
        // Synthesized without the lock: the tests synthesize other pairs
        // meanwhile.
        let c = synthesize(src, dst).map_err(|e| synthesis_error(src, dst, e))?;
        let mut d = DONE.lock().unwrap_or_else(|e| e.into_inner());
        if done(&d).is_none() {
            d.push((src.clone(), dst.clone(), c.clone()));
        }
        Ok(c)
    }

    /// [`synthesized`] `src` → `dst` with `from` replaced by `to` in the
    /// text of its computation (the `.comp` format), which must hold
    /// `from`: a wrong conversion, for the checks that catch one.
    pub(crate) fn altered(src: &Descriptor, dst: &Descriptor, from: &str, to: &str) -> Synthesized {
        let mut c = synthesized(src, dst).expect("the pair synthesizes");
        let text = c.computation.to_string();
        assert!(text.contains(from), "no `{from}` in\n{text}");
        c.computation = parse_computation(&text.replace(from, to)).expect("the change parses");
        c
    }
}
