//! `spf convert --drop-zeros`: a result without its explicit zeros.
//!
//! A stored zero of a format without `padding` is an entry, an explicit
//! zero, and conversions keep it; a stored zero of a padded format is
//! padding ([`synth::oracle`], "Explicit zeros"). Dropping the
//! explicit zeros of a result rebuilds it from its other entries: they
//! become coordinates, which the synthesized conversion from the
//! coordinate format into the destination converts (compiled or in the
//! interpreter, as the runner says). The nonzero entries do not change, so
//! what the result is checked against does not either. A result with no
//! explicit zero, or of a padded format, is kept as it is.

use synth::builtin::coordinate_format;
use synth::instance::Instance;
use synth::oracle::coordinates_from;
use synth::Descriptor;

use crate::prepared::Prepared;
use crate::runner::{Runner, Source};
use crate::synthesis::synthesize_pair;
use crate::Error;

/// `result`, an instance of `d` written to `shown`, without its explicit
/// zeros.
///
/// # Errors
///
/// A synthesis or conversion error of the coordinate format into `d`.
pub fn drop_zeros(
    d: &Descriptor,
    result: Source,
    runner: &Runner,
    shown: &str,
) -> Result<Source, Error> {
    if d.padding {
        return Ok(result);
    }
    let internal = |e: String| Error::Input {
        file: shown.to_string(),
        message: format!("cannot drop the zeros of the {} result: {e}", d.name),
    };
    let mut coords = coordinates_from(d, &result.instance).map_err(|e| internal(e.to_string()))?;
    if coords.entries.iter().all(|(_, v)| *v != 0.0) {
        return Ok(result);
    }
    coords.entries.retain(|(_, v)| *v != 0.0);
    let coo = coordinate_format(coords.order())
        .ok_or_else(|| internal(format!("no coordinate format of order {}", coords.order())))?;
    let p = Prepared::new(synthesize_pair(&coo, d)?)?;
    let source = Source {
        instance: Instance::from_coordinates(&coords),
        expected: result.expected,
    };
    runner.convert(&p, &coo, d, source)
}
