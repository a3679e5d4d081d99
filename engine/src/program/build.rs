//! The C program of a conversion, as `spf build` writes it: the pair, the
//! conversions a coordinate file and `--verify` need, and the driver.

use std::path::Path;

use codegen::width::WidthChoices;
use synth::synthesize::Synthesized;
use synth::Descriptor;

use crate::coordinates::coo_layout;
use crate::output::write_atomically;
use crate::program::{self as driver, CoordinateInput};
use crate::synthesis::{synthesize_pair, Synthesizer};
use crate::Error;

/// What `spf build` takes beside the pair and the output.
pub struct BuildOptions<'a> {
    /// Where to write the program's C source too.
    pub emit_source: Option<&'a Path>,
    /// A hand-written conversion timed beside the generated one.
    pub baseline: Option<&'a Path>,
    /// Whether the program checks every result against its input.
    pub verify: bool,
    /// Extra compiler flags (split on whitespace), after spf's own.
    pub cflags: &'a str,
    /// The index widths.
    pub width: WidthChoices,
}

/// Writes the C program of the conversion `sd` → `dd` (see
/// [`crate::program`]), with the hand-written conversion of
/// `options.baseline` timed beside it, and compiles it into `output`: a
/// note when the program cannot read coordinate files (why not).
///
/// # Errors
///
/// Synthesis errors of the pair, a baseline that cannot be read, a
/// compiler that is missing or fails, and outputs that cannot be written.
pub fn build(
    sd: &Descriptor,
    dd: &Descriptor,
    output: &Path,
    options: BuildOptions<'_>,
) -> Result<Option<String>, Error> {
    let baseline = options.baseline.map(driver::Baseline::new).transpose()?;
    let (source, note) = build_source(
        sd,
        dd,
        &synthesize_pair,
        baseline.as_ref(),
        options.verify,
        options.width,
    )?;
    if let Some(path) = options.emit_source {
        write_atomically(path, source.as_bytes())?;
    }
    let mut extra: Vec<&str> = crate::c_compiler::zlib_flags().to_vec();
    extra.extend(options.cflags.split_whitespace());
    crate::c_compiler::compile(&source, output, &extra)?;
    Ok(note)
}

/// The C program of the conversion `src` → `dst`, and a note when it cannot
/// read coordinate files (why not).
///
/// # Errors
///
/// Synthesis errors of the pair, and what [`driver::driver_source`] reports.
pub fn build_source(
    src: &Descriptor,
    dst: &Descriptor,
    synth: &Synthesizer<'_>,
    baseline: Option<&driver::Baseline>,
    verify: bool,
    width: WidthChoices,
) -> Result<(String, Option<String>), Error> {
    let main = synth(src, dst)?;
    let to_coo;
    let verifier = if verify {
        // DRV_MAX_ORDER of the driver's runtime: the modes an entry holds.
        const MOST_MODES: usize = 8;
        let coo = synth::builtin::coordinate_format(src.dense.len())
            .filter(|_| src.dense.len() <= MOST_MODES)
            .ok_or_else(|| {
                Error::Usage(format!(
                    "--verify compares coordinates of 1 to {MOST_MODES} dimensions, and {} has {}",
                    src.name,
                    src.dense.len()
                ))
            })?;
        let convert = |d: &Descriptor| -> Result<Option<Synthesized>, Error> {
            if *d == coo {
                Ok(None)
            } else {
                synth(d, &coo).map(Some)
            }
        };
        to_coo = (convert(src)?, convert(dst)?);
        Some(driver::Verifier {
            coo: coo_layout(&coo)?,
            src_to_coo: to_coo.0.as_ref(),
            dst_to_coo: to_coo.1.as_ref(),
        })
    } else {
        None
    };
    let to_source;
    let coordinates = match synth::builtin::coordinate_format(src.dense.len()) {
        None => CoordinateInput::Unsupported(format!(
            "{} has {} dimensions; coordinate files are read for 1 or more; give a JSON \
             instance of {}",
            src.name,
            src.dense.len(),
            src.name
        )),
        Some(coo) => {
            let layout = coo_layout(&coo)?;
            if coo == *src {
                CoordinateInput::Direct(layout)
            } else {
                match synth(&coo, src) {
                    Ok(s) => {
                        to_source = s;
                        CoordinateInput::Through {
                            coo: layout,
                            to_source: &to_source,
                        }
                    }
                    Err(e) => CoordinateInput::Unsupported(format!(
                        "coordinate files are not accepted ({e}); give a JSON instance of {}",
                        src.name
                    )),
                }
            }
        }
    };
    let note = match &coordinates {
        CoordinateInput::Unsupported(reason) => {
            Some(format!("reads JSON instances only: {reason}"))
        }
        _ => None,
    };
    Ok((
        driver::driver_source(&main, dst, &coordinates, baseline, verifier.as_ref(), width)?,
        note,
    ))
}
