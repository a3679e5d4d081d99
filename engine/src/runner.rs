//! How `spf convert` runs a synthesized conversion: compiled into a cached
//! shared library ([`crate::native`], [`crate::native_cache`]) or in the
//! interpreter, and how it checks the result.
//!
//! With [`Engine::Auto`] (the default) a conversion runs natively when the
//! C compiler works and in the interpreter otherwise, after a one-line
//! notice on standard error. Whatever ran, the result is checked before it
//! is handed out (the destination's descriptor, and a comparison with
//! what the input's own check read: the entries' fingerprints,
//! [`synth::fingerprint`], and when they differ, on a second
//! attempt, the entries themselves by the oracle,
//! [`synth::validate::check_result_with`], which names the first
//! difference; [`Runner::exactly`]) unless verification is off
//! (`--no-verify`). The input is always checked (what a reader of spf
//! guarantees counts, [`synth::established`]): the compiled code
//! trusts it. Natively, both checks against a descriptor run compiled too
//! ([`Runner::expected`], [`Runner::validate_entries`],
//! [`crate::native_check`]).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::sync::Mutex;

use codegen::available_memory::Budget;
use codegen::width::{IndexWidth, IndexWidths, ValueType, WidthChoice, WidthChoices};
use synth::fingerprint::Fingerprint;
use synth::instance::Instance;
use synth::instance::InstanceError;
use synth::instance_validation::{check_recorded_widths, validate_entries_allowing};
use synth::oracle::Entries;
use synth::synthesize::Synthesized;
use synth::validate::{check_result_with, check_storable_in, finish, Problem};
use synth::Descriptor;

use crate::native::{library_source, Library};
use crate::native_cache::{obtain, Origin};
use crate::native_check::{held_width, Checker, Failed};
use crate::observe::{step, Observer};
use crate::prepared::Prepared;
use crate::Error;

/// A conversion's input: a valid instance of the source format and what
/// the result is compared with (read once, by the input's validation or
/// straight off a reader's coordinates, [`synth::established`]).
pub struct Source {
    /// The instance.
    pub instance: Instance,
    /// Its entries, or their fingerprint.
    pub expected: Expected,
}

/// What a result must store: the input's entries sorted by coordinate
/// ([`synth::oracle::sorted_entries`]), compared exactly, or their
/// [`Fingerprint`] (what [`Runner`] keeps unless told to be exact: the
/// result's check then keeps no entries either, and a difference makes the
/// caller redo the conversion exactly, [`Error::Mismatch`]).
pub enum Expected {
    /// The entries.
    Exact(Entries),
    /// Their fingerprint.
    Fingerprint(Fingerprint),
}

/// Where a conversion runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// Compiled when a C compiler works, else in the interpreter (with a
    /// notice).
    #[default]
    Auto,
    /// Compiled with the C compiler (`$CC`, else `cc`), cached; an error
    /// when that fails.
    Native,
    /// In spf's interpreter.
    Interp,
}

/// A compiled check loaded: its format, the index width it reads, and it.
type LoadedCheck = (Descriptor, Option<IndexWidth>, Arc<Checker>);

/// How `spf convert` runs and checks conversions.
pub struct Runner {
    /// Where conversions run.
    pub engine: Engine,
    /// Whether results are checked.
    pub verify: bool,
    /// The index widths conversions run at, by kind (`auto`: decided per
    /// input).
    pub widths: WidthChoices,
    /// What is told of the steps, which engine ran and whether the library
    /// was compiled or found in the cache.
    pub observer: Arc<dyn Observer>,
    /// Set once the interpreter replaced a failed compile (the notice is
    /// printed once).
    fell_back: AtomicBool,
    /// Whether results are compared with their input's entries exactly
    /// (sorted and merged, naming the first difference) rather than by
    /// fingerprint: set after a fingerprint differed ([`Runner::exactly`]).
    exact: AtomicBool,
    /// Where compiled libraries are kept: `None`, the user's cache
    /// ([`crate::native_cache::cache_dir`]).
    pub cache: Option<PathBuf>,
    /// The compiled checks loaded, by format and index width.
    checkers: Mutex<Vec<LoadedCheck>>,
    /// The padding limit: a conversion's arrays may take this many times
    /// its input's bytes (at least
    /// [`codegen::available_memory::PADDING_FLOOR`]; 0: no limit).
    pub max_padding: u32,
    /// Whether the checks of inputs and results accept values that are not
    /// finite (NaN, infinities; refused by default).
    pub allow_nonfinite: bool,
}

/// The default padding limit ([`Runner::max_padding`]).
pub const MAX_PADDING: u32 = 16;

impl Runner {
    /// A runner with these settings, at 64-bit indices.
    pub fn new(engine: Engine, verify: bool, observer: Arc<dyn Observer>) -> Runner {
        Runner {
            engine,
            verify,
            widths: WidthChoices::uniform(WidthChoice::Fixed(IndexWidth::W64)),
            observer,
            fell_back: AtomicBool::new(false),
            exact: AtomicBool::new(false),
            checkers: Mutex::new(Vec::new()),
            cache: None,
            max_padding: MAX_PADDING,
            allow_nonfinite: false,
        }
    }

    /// The interpreter, results checked, quietly: what the library tests use.
    #[cfg(test)]
    pub fn interp() -> Runner {
        Runner::new(Engine::Interp, true, Arc::new(crate::observe::Quiet))
    }

    /// Compiled conversions and checks, results checked, quietly, the
    /// libraries kept in `cache`: what the library tests of the compiled
    /// checks use.
    #[cfg(test)]
    pub fn native_in(cache: &std::path::Path) -> Runner {
        Runner {
            cache: Some(cache.to_path_buf()),
            ..Runner::new(Engine::Native, true, Arc::new(crate::observe::Quiet))
        }
    }

    /// Whether coordinate files are best read with 32-bit index columns
    /// (where the extents fit): the conversions are compiled, and the
    /// coordinate arrays (a COO's index columns) are not fixed at 64 bits.
    /// A compiled conversion at 32 bits then takes the columns as they are
    /// read; any other run widens them, which is always right.
    pub fn reads_narrow(&self) -> bool {
        self.engine != Engine::Interp
            && self.widths.coordinates != WidthChoice::Fixed(IndexWidth::W64)
    }

    /// Whether results are compared with their input's entries exactly
    /// (else by fingerprint).
    pub fn is_exact(&self) -> bool {
        self.exact.load(Ordering::Relaxed)
    }

    /// Runs `attempt`; when a result's fingerprint differed from its
    /// input's ([`Error::Mismatch`]), runs it again comparing entries
    /// exactly, which names the first difference in the oracle's words.
    ///
    /// # Errors
    ///
    /// `attempt`'s.
    pub fn exactly<T>(&self, attempt: &dyn Fn() -> Result<T, Error>) -> Result<T, Error> {
        match attempt() {
            Err(Error::Mismatch(m)) if !self.exact.load(Ordering::Relaxed) => {
                self.say(&format!(
                    "spf: {m}; converting again to name the difference"
                ));
                self.exact.store(true, Ordering::Relaxed);
                attempt()
            }
            other => other,
        }
    }

    /// Runs the synthesized conversion from `from` to `to` on `source` (an
    /// instance of `from`, already validated) and checks the result against
    /// the input's entries when verification is on ([`Runner::convert`],
    /// [`Runner::verify`]): the result with those entries (its own, once
    /// checked; unchecked, with verification off, and then unused).
    ///
    /// # Errors
    ///
    /// As [`Runner::convert`] and [`Runner::verify`].
    pub fn run(
        &self,
        p: &Prepared,
        from: &Descriptor,
        to: &Descriptor,
        source: Source,
    ) -> Result<Source, Error> {
        let out = self.convert(p, from, to, source)?;
        self.verify(p.synthesized(), to, &out)?;
        Ok(out)
    }

    /// Runs the synthesized conversion from `from` to `to` on `source` (an
    /// instance of `from`, already validated): the result, not checked yet,
    /// with the input's entries ([`Runner::verify`] compares them). The
    /// input instance is dropped before this returns: the check holds the
    /// result's arrays several times.
    ///
    /// # Errors
    ///
    /// [`Error::TooLarge`] for arrays the machine cannot hold,
    /// [`Error::Compiler`] when, with [`Engine::Native`], the conversion
    /// cannot be compiled, [`Error::Internal`] when it stops otherwise.
    pub fn convert(
        &self,
        p: &Prepared,
        from: &Descriptor,
        to: &Descriptor,
        source: Source,
    ) -> Result<Source, Error> {
        let Source {
            instance: mut input,
            expected,
        } = source;
        let pair = format!("{} -> {}", from.name, to.name);
        let (s, program) = (p.synthesized(), p.program());
        // An entry the destination cannot store: refused before any code runs.
        check_storable_in(p.storable(), s, &input).map_err(|p| problem_error(&pair, p))?;
        // The widths: the input's sizes decide, or must fit those asked for.
        let width = self
            .widths
            .resolve(input.sizes(from))
            .map_err(|e| Error::TooLarge(format!("{pair}: {e}")))?;
        let library = match self.engine {
            Engine::Interp => None,
            Engine::Native => Some(self.library(p, from, to, width, input.value_type)?),
            Engine::Auto if self.fell_back.load(Ordering::Relaxed) => None,
            Engine::Auto => match self.library(p, from, to, width, input.value_type) {
                Ok(lib) => Some(lib),
                Err(e) => {
                    let first = e.to_string();
                    let first = first.lines().next().unwrap_or_default();
                    self.observer
                        .note(&format!("converting in the interpreter (slower): {first}"));
                    self.fell_back.store(true, Ordering::Relaxed);
                    None
                }
            },
        };
        // The memory the conversion may take, and its padding limit.
        let input_bytes = input.arrays.values().map(|a| a.bytes() as u64).sum();
        let budget = Arc::new(Budget::new().with_padding(self.max_padding, input_bytes));
        let out = match &library {
            Some(lib) => {
                self.say(&format!("spf: converting {pair} natively ({width})"));
                step(&*self.observer, &format!("converting {pair}"), || {
                    lib.run(s, program, &mut input, width, &budget)
                })?
            }
            None => {
                self.say(&format!(
                    "spf: converting {pair} in the interpreter ({width})"
                ));
                step(
                    &*self.observer,
                    &format!("converting {pair} (interpreter)"),
                    || budget.within(|| s.run_program_at(program, &input, width)),
                )
                .map_err(|e| {
                    let message = format!("the synthesized conversion {pair}: {e}");
                    match e {
                        // An array the machine cannot hold, by its type.
                        synth::synthesized::ExecError::Alloc(_) => Error::TooLarge(message),
                        _ => Error::stopped(message),
                    }
                })?
            }
        };
        let mut out = finish(s, &input, out);
        drop(input);
        // The result records the widths it was computed at.
        out.index_width = Some(width);
        Ok(Source {
            instance: out,
            expected,
        })
    }

    /// Checks a [`Runner::convert`]ed result of `s` (into `to`) when
    /// verification is on: valid against `to` and storing exactly the
    /// input's entries (by fingerprint, or exactly).
    ///
    /// # Errors
    ///
    /// An internal error naming the problem when the result is invalid or
    /// wrong (the conversion passed validation, so that is a bug in spf);
    /// [`Error::Mismatch`] when only the fingerprints say it is wrong.
    pub fn verify(&self, s: &Synthesized, to: &Descriptor, out: &Source) -> Result<(), Error> {
        if !self.verify {
            return Ok(());
        }
        let pair = format!("{} -> {}", s.conversion.src.name, to.name);
        let label = format!("verifying the {} result", to.name);
        match &out.expected {
            Expected::Exact(want) => step(&*self.observer, &label, || {
                check_result_with(s, want, &out.instance, &|d, inst| {
                    self.validate_entries(d, inst)
                })
            })
            .map_err(|p| problem_error(&pair, p)),
            Expected::Fingerprint(want) => {
                let got = step(&*self.observer, &label, || {
                    self.fingerprint(to, &out.instance)
                })
                .map_err(|e| {
                    problem_error(
                        &pair,
                        Problem::Invalid {
                            format: to.name.clone(),
                            error: e.to_string(),
                        },
                    )
                })?;
                if got == *want {
                    return Ok(());
                }
                Err(Error::Mismatch(format!(
                    "the {pair} result's entries differ from the input's ({} entries expected, \
                     {} found, or other ones: their fingerprints differ)",
                    want.count, got.count
                )))
            }
        }
    }

    /// Checks an input instance `inst` against `d` and gives what its
    /// conversion's result must store ([`Expected`]): its entries' sorted
    /// list when comparisons are exact, else their fingerprint (the check
    /// still refuses two nonzero entries at one coordinate, without
    /// sorting when some order of the coordinates has them increasing).
    ///
    /// # Errors
    ///
    /// The first problem of `inst`.
    pub fn expected(&self, d: &Descriptor, inst: &Instance) -> Result<Expected, InstanceError> {
        if self.exact.load(Ordering::Relaxed) {
            return self.validate_entries(d, inst).map(Expected::Exact);
        }
        self.compiled(d, inst, &|c| {
            c.distinct_fingerprint(d, inst, self.allow_nonfinite)
        })
        .map(Expected::Fingerprint)
    }

    /// Checks a result `inst` against `d` (two nonzero entries at one
    /// coordinate aside: the comparison with the input finds them) and
    /// gives its entries' [`Fingerprint`], summed as the compiled check
    /// finds them, with no entry kept.
    ///
    /// # Errors
    ///
    /// The first problem of `inst`.
    fn fingerprint(&self, d: &Descriptor, inst: &Instance) -> Result<Fingerprint, InstanceError> {
        self.compiled(d, inst, &|c| c.fingerprint(d, inst, self.allow_nonfinite))
    }

    /// What the compiled check of `d` gives by `ask` when conversions run
    /// natively and it tells; else the fingerprint of spf's own check's
    /// entries ([`synth::instance_validation::validate_entries`], which names a problem in its words).
    fn compiled(
        &self,
        d: &Descriptor,
        inst: &Instance,
        ask: &dyn Fn(&Checker) -> Result<Fingerprint, Failed>,
    ) -> Result<Fingerprint, InstanceError> {
        if self.native() {
            check_recorded_widths(d, inst)?;
            if let Some(checker) = self.checker(d, inst) {
                match ask(&checker) {
                    Ok(print) => return Ok(print),
                    Err(Failed::Invalid(m) | Failed::Undecided(m)) => {
                        self.say(&format!("spf: the compiled check of {}: {m}", d.name));
                    }
                }
            }
        }
        validate_entries_allowing(d, inst, self.allow_nonfinite)
            .map(|e| Fingerprint::of_entries(&e))
    }

    /// Whether checks run compiled.
    fn native(&self) -> bool {
        match self.engine {
            Engine::Interp => false,
            Engine::Auto => !self.fell_back.load(Ordering::Relaxed),
            Engine::Native => true,
        }
    }

    /// The compiled check of `d`, or `None` (said) when it cannot be had.
    fn checker(&self, d: &Descriptor, inst: &Instance) -> Option<Arc<Checker>> {
        let width = held_width(inst);
        let loaded = self.checkers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, _, c)) = loaded.iter().find(|(e, w, _)| e == d && *w == width) {
            return Some(Arc::clone(c));
        }
        // Compiled without the lock: other threads check other formats.
        drop(loaded);
        match Checker::obtain(self.cache.as_deref(), d, width, &*self.observer) {
            Ok((checker, path, origin)) => {
                self.said_library(&path, origin);
                let mut loaded = self.checkers.lock().unwrap_or_else(|e| e.into_inner());
                // Another thread may have loaded it meanwhile: one is kept.
                if let Some((_, _, c)) = loaded.iter().find(|(e, w, _)| e == d && *w == width) {
                    return Some(Arc::clone(c));
                }
                let checker = Arc::new(checker);
                loaded.push((d.clone(), width, Arc::clone(&checker)));
                Some(checker)
            }
            Err(e) => {
                self.say(&format!("spf: checking {} in spf: {e}", d.name));
                None
            }
        }
    }

    /// Checks `inst` against `d` and gives its nonzero entries sorted by
    /// coordinate ([`synth::instance_validation::validate_entries`]): in the compiled check of `d`
    /// ([`crate::native_check`]) when conversions run natively, in spf's
    /// own check otherwise, when the compiled one cannot be had or cannot
    /// tell, and when it finds a problem (spf's check names it in its own
    /// words; it is the reference).
    ///
    /// # Errors
    ///
    /// The first problem of `inst`.
    pub fn validate_entries(
        &self,
        d: &Descriptor,
        inst: &Instance,
    ) -> Result<Entries, InstanceError> {
        if self.native() {
            check_recorded_widths(d, inst)?;
            if let Some(checker) = self.checker(d, inst) {
                match checker.entries(d, inst, self.allow_nonfinite) {
                    Ok(entries) => return Ok(entries),
                    Err(Failed::Invalid(m) | Failed::Undecided(m)) => {
                        self.say(&format!("spf: the compiled check of {}: {m}", d.name));
                    }
                }
            }
        }
        validate_entries_allowing(d, inst, self.allow_nonfinite)
    }

    /// The `--verbose` line for a library at `path`.
    fn said_library(&self, path: &std::path::Path, origin: Origin) {
        match origin {
            Origin::Cached => self.say(&format!("spf: cached library {}", path.display())),
            Origin::Compiled(took) => self.say(&format!(
                "spf: compiled library {} ({:.2} s)",
                path.display(),
                took.as_secs_f64()
            )),
        }
    }

    /// The compiled library of `p` at `width` and `values`: loaded
    /// before, else from the cache or compiled now.
    fn library(
        &self,
        p: &Prepared,
        from: &Descriptor,
        to: &Descriptor,
        width: IndexWidths,
        values: ValueType,
    ) -> Result<Arc<Library>, Error> {
        p.library(width, values, || {
            let source = library_source(p.synthesized(), p.program(), width, values)?;
            let (lib, path, origin) = obtain(
                self.cache.as_deref(),
                from,
                to,
                width,
                values,
                &source,
                &*self.observer,
            )?;
            self.said_library(&path, origin);
            Ok(lib)
        })
    }

    /// A detail for a verbose observer.
    fn say(&self, line: &str) {
        if self.observer.wants_details() {
            self.observer.detail(line);
        }
    }
}

/// The error for a problem of the conversion `pair` on an input: the input's
/// when the destination cannot store an entry, an internal error when the
/// result is wrong (the conversion passed validation: a bug in spf).
fn problem_error(pair: &str, p: Problem) -> Error {
    match p {
        Problem::Run(e) => Error::stopped(format!("the synthesized conversion {pair}: {e}")),
        Problem::Unrepresentable(e) => Error::Unstorable(e.to_string()),
        other => Error::Internal(format!(
            "the synthesized conversion {pair} passed validation, but on this input: {other}"
        )),
    }
}
