//! [`Converter`]: one conversion, synthesized and validated once, run on
//! any number of instances from any thread.

use std::path::PathBuf;
use std::sync::Arc;

use codegen::width::{WidthChoice, WidthChoices};
use synth::established::CoordinateFormat;
use synth::fingerprint::Fingerprint;
use synth::instance_validation::check_recorded_widths;

use super::format::Format;
use super::instance::{invalid, Instance};
use crate::observe::{Observer, Quiet};
use crate::route::Route;
use crate::runner::{Expected, Runner, Source};
use crate::synthesis::synthesize_pair;
use crate::Error;

pub use crate::runner::Engine;

/// How a [`Converter`] runs.
#[derive(Clone)]
pub struct Options {
    /// Where conversions run: compiled (cached), in the interpreter, or
    /// compiled when a C compiler works and interpreted otherwise (the
    /// default).
    pub engine: Engine,
    /// The index widths, by kind of array (`auto`: 32 bits when the
    /// input's sizes fit, else 64).
    pub widths: WidthChoices,
    /// Whether every result is checked against its format and its input's
    /// entries before it is returned (the default; the input is checked
    /// in any case).
    pub verify: bool,
    /// Where compiled conversions are kept: `None` is the user's cache
    /// (`$SPF_CACHE_DIR`, else `$XDG_CACHE_HOME/spf`, else
    /// `~/.cache/spf`).
    pub cache_dir: Option<PathBuf>,
    /// What is told of the steps and of the engine's choices.
    pub observer: Arc<dyn Observer>,
    /// The padding limit: a conversion whose arrays would take more than
    /// this many times its input's bytes (and more than 16 MiB) is
    /// refused before it allocates them, as [`Error::TooLarge`]: what
    /// keeps DIA of a matrix with thousands of diagonals from writing
    /// mostly zeros. 0 is no limit; the default is 16.
    pub max_padding: u32,
    /// Whether values that are not finite (NaN, infinities) are accepted:
    /// by the readers (`nan`, `inf` in `.mtx` and `.tns` files), by the
    /// checks of inputs and results, and in instances built with
    /// [`crate::InstanceBuilder::allow_nonfinite`]. Refused, naming
    /// `--allow-nonfinite`, when false (the default). JSON cannot carry
    /// them: writing such a result as JSON is refused.
    pub allow_nonfinite: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            engine: Engine::Auto,
            widths: WidthChoices::uniform(WidthChoice::Auto),
            verify: true,
            cache_dir: None,
            observer: Arc::new(Quiet),
            max_padding: crate::runner::MAX_PADDING,
            allow_nonfinite: false,
        }
    }
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("engine", &self.engine)
            .field("widths", &self.widths)
            .field("verify", &self.verify)
            .field("cache_dir", &self.cache_dir)
            .field("max_padding", &self.max_padding)
            .field("allow_nonfinite", &self.allow_nonfinite)
            .finish_non_exhaustive()
    }
}

impl Options {
    /// A runner with these options.
    pub(crate) fn runner(&self) -> Runner {
        let mut runner = Runner::new(self.engine, self.verify, Arc::clone(&self.observer));
        runner.widths = self.widths;
        runner.max_padding = self.max_padding;
        runner.allow_nonfinite = self.allow_nonfinite;
        runner.cache.clone_from(&self.cache_dir);
        runner
    }
}

/// The conversion from one format to another: synthesized and validated
/// when it is made, compiled (or found in the cache) on its first use at
/// each index width, then run on any number of inputs, from any thread.
///
/// ```
/// use engine::{Converter, Format, Instance, Options};
///
/// let (coo, csr) = (Format::builtin("coo")?, Format::builtin("csr")?);
/// let to_csr = Converter::new(&coo, &csr, &Options::default())?;
/// // [[0, 5], [7, 0]], its entries in any order.
/// let a = Instance::builder(&coo)
///     .symbol("NR", 2)
///     .symbol("NC", 2)
///     .symbol("NNZ", 2)
///     .array("row", vec![1i64, 0])
///     .array("col", vec![0i64, 1])
///     .array("A", vec![7.0, 5.0])
///     .build()?;
/// let b = to_csr.convert(&a)?;
/// assert_eq!(b.entries()?, a.entries()?);
/// assert_eq!(b.array("A").unwrap().to_string(), "[5.0, 7.0]");
/// # Ok::<(), engine::Error>(())
/// ```
pub struct Converter {
    src: Format,
    dst: Format,
    route: Route,
    /// The intermediate format of a routed conversion.
    via: Option<Format>,
    runner: Runner,
    /// The source as the coordinates spf's readers make, when it is the
    /// built-in coordinate format of its order: scipy coo inputs are then
    /// checked as a Matrix Market file's coordinates are
    /// ([`Converter::convert_scipy`]).
    pub(super) coordinates: Option<CoordinateFormat>,
}

impl Converter {
    /// Synthesizes and validates the conversion from `src` to `dst`.
    ///
    /// # Errors
    ///
    /// [`Error::Format`] for a descriptor that is not well-formed,
    /// [`Error::Unsupported`] for a pair synthesis cannot make (with the
    /// reason), [`Error::Refused`] when validation refused what synthesis
    /// made (with the tensor it gets wrong).
    pub fn new(src: &Format, dst: &Format, options: &Options) -> Result<Converter, Error> {
        let route = Route::new(src.descriptor(), dst.descriptor(), &synthesize_pair)?;
        let via = route.via().map(|d| Format::from_descriptor(d.clone()));
        let d = src.descriptor();
        let coordinates = synth::builtin::coordinate_format(d.dense.len())
            .filter(|c| c == d)
            .and_then(|c| CoordinateFormat::of(&c))
            .map(|c| c.allowing_nonfinite(options.allow_nonfinite));
        Ok(Converter {
            src: src.clone(),
            dst: dst.clone(),
            route,
            via,
            runner: options.runner(),
            coordinates,
        })
    }

    /// The built-in format the conversion goes through when synthesis
    /// cannot make it directly (source → it → destination, each step
    /// validated and its result checked); `None` for a direct conversion.
    ///
    /// ```
    /// use engine::{Converter, Format, Options};
    ///
    /// let to_csc = Converter::new(&Format::builtin("csr")?, &Format::builtin("csc")?, &Options::default())?;
    /// assert!(to_csc.via().is_none());
    /// # Ok::<(), engine::Error>(())
    /// ```
    pub fn via(&self) -> Option<&Format> {
        self.via.as_ref()
    }

    /// The source format.
    pub fn src(&self) -> &Format {
        &self.src
    }

    /// The destination format.
    pub fn dst(&self) -> &Format {
        &self.dst
    }

    /// Converts `input` (an instance of the source format). Its arrays
    /// are read in place, by the compiled code and by the interpreter
    /// alike, never written: only an array the conversion needs at
    /// another width (a 64-bit index array run at 32 bits, or the
    /// reverse) is copied. The result owns its arrays.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] for an input of another format or one the
    /// destination cannot store (a triangle's format given entries off
    /// it), [`Error::TooLarge`] when the input does not fit the index
    /// widths asked for, [`Error::Compiler`] when the engine must be
    /// native and the C compiler fails, and [`Error::Internal`] when the
    /// result is wrong (a bug in spf, never handed out).
    pub fn convert(&self, input: &Instance) -> Result<Instance, Error> {
        self.accepts(input)?;
        let out = self.runner.exactly(&|| {
            // SAFETY: the view lives in this call only: `run` drops it
            // (and the memory its arrays move into) before it returns, and
            // its result owns its arrays (one moved from the view to the
            // result would otherwise borrow `input`).
            let view = unsafe { input.raw().borrowed() };
            self.run(view).map(|out| self.result(out))
        })?;
        Ok(out)
    }

    /// [`Converter::convert`], taking the input: its arrays are dropped as
    /// soon as the conversion no longer reads them (an array narrowed to
    /// 32 bits before the call, the others after it). A
    /// result whose entries' fingerprint differs from the input's (a bug
    /// in spf) is [`Error::Mismatch`], not converted again to name the
    /// first difference, since the input is gone.
    ///
    /// # Errors
    ///
    /// As [`Converter::convert`].
    pub fn convert_owned(&self, input: Instance) -> Result<Instance, Error> {
        self.accepts(&input)?;
        self.run(input.into_raw()).map(|out| self.result(out))
    }

    /// A conversion's result, its arrays made its own (none shares the
    /// input's memory, however it was computed).
    pub(super) fn result(&self, mut out: synth::instance::Instance) -> Instance {
        out.own();
        Instance::trusted(&self.dst, out)
    }

    /// Whether `input` is of the source format, as an error when not.
    pub(super) fn accepts(&self, input: &Instance) -> Result<(), Error> {
        if input.format() != &self.src {
            return Err(invalid(
                input.format(),
                format!(
                    "the converter takes {} instances, not {}",
                    self.src.name(),
                    input.format().name()
                ),
            ));
        }
        Ok(())
    }

    /// Runs the conversion on an instance of the source format, which it
    /// checks first (as compiled code trusts it).
    pub(super) fn run(
        &self,
        instance: synth::instance::Instance,
    ) -> Result<synth::instance::Instance, Error> {
        let from = self.src.descriptor();
        let expected = match self.established(&instance) {
            Some(print) => Expected::Fingerprint(print),
            None => self
                .runner
                .expected(from, &instance)
                .map_err(|e| invalid(&self.src, e))?,
        };
        self.run_source(Source { instance, expected })
    }

    /// The fingerprint of a coordinate input's entries, found as spf's
    /// readers check coordinates (ranges and repeated coordinates in one
    /// pass, [`CoordinateFormat::established_fingerprint`]) rather than by
    /// the format's check, which sorts every entry for the rule that two
    /// entries at one coordinate are one: when the source is the built-in
    /// coordinate format and comparisons are by fingerprint. `None`: the
    /// format's check runs (and names a problem the pass found).
    fn established(&self, instance: &synth::instance::Instance) -> Option<Fingerprint> {
        let coordinates = self.coordinates.as_ref()?;
        if self.runner.is_exact() {
            return None;
        }
        check_recorded_widths(self.src.descriptor(), instance).ok()?;
        coordinates.established_fingerprint(instance)
    }

    /// Runs the conversion on a source whose instance is checked and whose
    /// entries are known.
    pub(super) fn run_source(&self, source: Source) -> Result<synth::instance::Instance, Error> {
        self.route.run(&self.runner, source).map(|out| out.instance)
    }
}

/// The converter is shared between threads.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<Converter>();
};
