//! The synthesized conversion as text: C or Rust source, the computation
//! in the `.comp` format, or its polyhedral dataflow graph (what `spf
//! synth` prints and `spf pdfg` draws).

use codegen::width::IndexWidths;
use codegen::{c, rust};
use iegen::pdfg::Pdfg;

use super::format::Format;
use crate::synthesis::synthesize_pair;
use crate::Error;

/// What [`code`] writes of a conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// A C99 function.
    C,
    /// A Rust function.
    Rust,
    /// The synthesized computation, in the `.comp` format.
    Ir,
    /// The computation's polyhedral dataflow graph, as Graphviz DOT.
    Dot,
}

/// The conversion from `src` to `dst`, synthesized and validated, as
/// `emit` says; C and Rust at the index `widths` given.
///
/// # Errors
///
/// [`Error::Format`], [`Error::Unsupported`] or [`Error::Refused`] as
/// [`crate::Converter::new`] says; [`Error::Internal`] when the
/// synthesized computation cannot be scanned or printed.
///
/// ```
/// use codegen::width::{IndexWidth, IndexWidths};
/// use engine::api::code::{code, Emit};
/// use engine::Format;
///
/// let (coo, csr) = (Format::builtin("coo")?, Format::builtin("csr")?);
/// let c = code(&coo, &csr, Emit::C, IndexWidths::uniform(IndexWidth::W64))?;
/// assert!(c.contains("void "));
/// # Ok::<(), engine::Error>(())
/// ```
pub fn code(src: &Format, dst: &Format, emit: Emit, widths: IndexWidths) -> Result<String, Error> {
    let s = synthesize_pair(src.descriptor(), dst.descriptor())?;
    let pair = format!("{} -> {}", src.name(), dst.name());
    let failed = |step: &str, e: String| {
        Error::Internal(format!("{step} the synthesized conversion {pair}: {e}"))
    };
    match emit {
        Emit::Ir => Ok(s.computation.to_string()),
        Emit::Dot => Ok(Pdfg::build(&s.computation, &s.env())
            .map_err(|e| failed("drawing", e.to_string()))?
            .to_dot()),
        Emit::C | Emit::Rust => {
            let widths = s.widths(widths);
            let program = s.program().map_err(|e| failed("scanning", e.to_string()))?;
            if emit == Emit::C {
                c::emit_c_with(&program, &widths)
            } else {
                rust::emit_rust_with(&program, &widths)
            }
            .map_err(|e| failed("printing", e.to_string()))
        }
    }
}

/// The polyhedral dataflow graph of the conversion from `src` to `dst`
/// (`to_dot()`, `to_svg()`).
///
/// # Errors
///
/// As [`code`].
pub fn dataflow(src: &Format, dst: &Format) -> Result<Pdfg, Error> {
    let s = synthesize_pair(src.descriptor(), dst.descriptor())?;
    Pdfg::build(&s.computation, &s.env()).map_err(|e| {
        Error::Internal(format!(
            "drawing the synthesized conversion {} -> {}: {e}",
            src.name(),
            dst.name()
        ))
    })
}
