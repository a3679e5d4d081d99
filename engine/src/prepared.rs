//! [`Prepared`]: a synthesized conversion made ready to run many times.
//!
//! Scanning a computation into loops, finding what its destination can
//! store and printing it as C cost more than converting a small matrix;
//! a conversion run again must pay none of them. A `Prepared` scans and
//! finds what the destination stores once, when it is made, and keeps each
//! compiled library it loads by the index widths and value type it was
//! printed at, which (with the program) decide the library's C source:
//! the source is printed only on the first run at each of them.
//!
//! The program and the libraries are derived from the synthesized
//! conversion, which a `Prepared` owns and never changes, so what it
//! keeps cannot go stale.

use std::sync::{Arc, Mutex};

use codegen::ast::LoopProgram;
use codegen::width::{IndexWidths, ValueType};
use synth::representable::Representable;
use synth::synthesize::Synthesized;

use crate::native::Library;
use crate::Error;

/// A loaded library and the widths and value type it was printed at.
type Loaded = ((IndexWidths, ValueType), Arc<Library>);

/// A synthesized conversion, scanned into loops, with the compiled
/// libraries loaded for it so far (see the module documentation).
pub struct Prepared {
    synthesized: Synthesized,
    program: LoopProgram,
    storable: Representable,
    libraries: Mutex<Vec<Loaded>>,
}

impl Prepared {
    /// Scans `synthesized` into loops.
    ///
    /// # Errors
    ///
    /// [`Error::Internal`] when the computation cannot be scanned (a bug
    /// in synthesis).
    pub fn new(synthesized: Synthesized) -> Result<Prepared, Error> {
        let program = synthesized.program().map_err(|e| {
            Error::Internal(format!(
                "scanning the synthesized conversion {} -> {}: {e}",
                synthesized.conversion.src.name, synthesized.conversion.dst.name
            ))
        })?;
        let storable = Representable::of(&synthesized.conversion.dst_given);
        Ok(Prepared {
            synthesized,
            program,
            storable,
            libraries: Mutex::new(Vec::new()),
        })
    }

    /// The synthesized conversion.
    pub fn synthesized(&self) -> &Synthesized {
        &self.synthesized
    }

    /// Its loops.
    pub fn program(&self) -> &LoopProgram {
        &self.program
    }

    /// The entries the destination (as given) can store
    /// ([`synth::validate::check_storable_in`] checks an input by it).
    pub fn storable(&self) -> &Representable {
        &self.storable
    }

    /// The library printed at `width` and `values`: the one loaded
    /// before, else the one `load` gives (kept; when another thread
    /// loaded one meanwhile, that one is kept and given).
    ///
    /// # Errors
    ///
    /// `load`'s.
    pub(crate) fn library(
        &self,
        width: IndexWidths,
        values: ValueType,
        load: impl FnOnce() -> Result<Library, Error>,
    ) -> Result<Arc<Library>, Error> {
        let key = (width, values);
        let find = |loaded: &[Loaded]| {
            loaded
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, lib)| Arc::clone(lib))
        };
        if let Some(lib) = find(&self.lock()) {
            return Ok(lib);
        }
        // Loaded without the lock: another width may be compiling.
        let lib = Arc::new(load()?);
        let mut loaded = self.lock();
        if let Some(kept) = find(&loaded) {
            return Ok(kept);
        }
        loaded.push((key, Arc::clone(&lib)));
        Ok(lib)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Loaded>> {
        self.libraries.lock().unwrap_or_else(|e| e.into_inner())
    }
}
