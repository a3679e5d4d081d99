//! The conversion subcommands: `spf synth`, `spf convert`, `spf build`, and
//! `spf pdfg` of a pair of formats. Each loads its formats and calls the
//! engine ([`engine::pipeline`], [`engine::program::build`]).

use std::path::Path;

use engine::api::code::{code, dataflow, Emit};
use engine::files::Target;
use engine::output::{emit, write_atomically};
use engine::program::build::BuildOptions;
use engine::runner::Runner;
use spf::codegen::width::{IndexWidth, IndexWidths, WidthChoice, WidthChoices};
use spf::synth::tensor_io::Symmetry;

use super::commands::load_format;
use super::error::CliError;

/// What `spf synth` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SynthEmit {
    /// The conversion as a C99 function.
    C,
    /// The conversion as a Rust function.
    Rust,
    /// The synthesized computation in the `.comp` format.
    Ir,
    /// The computation's polyhedral dataflow graph as Graphviz DOT.
    Dot,
}

/// `spf synth SRC DST --emit c|rust|ir|dot [-o OUT] [--index-width W]
/// [--pos-width W] [--crd-width W]` (auto prints 64-bit code: there is no
/// input to decide by).
pub fn synth(
    src: &str,
    dst: &str,
    what: SynthEmit,
    output: Option<&Path>,
    width: WidthChoices,
) -> Result<(), CliError> {
    let fixed = |c: WidthChoice| match c {
        WidthChoice::Fixed(w) => w,
        WidthChoice::Auto => IndexWidth::W64,
    };
    let (sd, dd) = (spf::Format::load(src)?, spf::Format::load(dst)?);
    let kind = match what {
        SynthEmit::C => Emit::C,
        SynthEmit::Rust => Emit::Rust,
        SynthEmit::Ir => Emit::Ir,
        SynthEmit::Dot => Emit::Dot,
    };
    let widths = IndexWidths {
        positions: fixed(width.positions),
        coordinates: fixed(width.coordinates),
    };
    let text = code(&sd, &dd, kind, widths)?;
    emit(output, &text)
}

/// `spf pdfg FILE -o OUT` (a computation file) or `spf pdfg SRC DST -o OUT`
/// (the synthesized conversion between two formats).
pub fn pdfg(inputs: &[String], output: &Path) -> Result<(), CliError> {
    match inputs {
        [file] => super::commands::pdfg(Path::new(file), output),
        [src, dst] => {
            let graph = dataflow(&spf::Format::load(src)?, &spf::Format::load(dst)?)?;
            let text = match output.extension().and_then(|e| e.to_str()) {
                Some("dot") | Some("gv") => graph.to_dot(),
                Some("svg") => graph.to_svg(),
                _ => {
                    return Err(CliError::Usage(format!(
                        "{}: the output must end in .dot or .svg",
                        output.display()
                    )))
                }
            };
            write_atomically(output, text.as_bytes())
        }
        _ => Err(CliError::Usage(format!(
            "spf pdfg takes a computation file or two formats (SRC DST), not {} arguments",
            inputs.len()
        ))),
    }
}

/// `spf convert SRC DST INPUT [-o OUT]`: converts INPUT (coordinates, or a
/// JSON or `.npz` instance of SRC) to DST as `runner` says
/// ([`engine::pipeline::convert`]) and writes it to `target`.
pub fn convert(
    src: &str,
    dst: &str,
    input: &Path,
    target: &Target<'_>,
    runner: &Runner,
    symmetry: Symmetry,
    drop_zeros: bool,
) -> Result<(), CliError> {
    let sd = engine::files::source_format(load_format(src)?, input);
    let dd = load_format(dst)?;
    engine::pipeline::convert(&sd, &dd, input, target, runner, symmetry, drop_zeros)
}

/// `spf build SRC DST -o BIN [--emit-source FILE.c] [--baseline B.c]`:
/// writes the C program of the conversion, with the hand-written
/// conversion in `B.c` timed beside it, and compiles it into BIN
/// ([`engine::program::build::build`]).
pub fn build(
    src: &str,
    dst: &str,
    output: &Path,
    options: BuildOptions<'_>,
) -> Result<(), CliError> {
    let sd = load_format(src)?;
    let dd = load_format(dst)?;
    if let Some(note) = engine::program::build::build(&sd, &dd, output, options)? {
        eprintln!("spf: note: {}: {note}", output.display());
    }
    Ok(())
}
