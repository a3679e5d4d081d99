//! A format's instance check compiled into a shared library: what `spf
//! convert` runs on its input and on its result when it converts natively,
//! instead of interpreting [`synth::instance_validation::validate_entries`].
//!
//! The library holds the C that `spf build`'s programs check their JSON
//! input with: `drv_check_source` (names, index arrays' types, ranges,
//! monotonicity; [`crate::program`]), `spf_check_scalars` (dense extents
//! not negative, values finite: what [`synth::instance_validation::validate`]
//! looks at besides the descriptor) and `drv_check_rules` (lengths, every
//! rule by the validator's own plan, and the storage check, which
//! enumerates the map's points: every nonzero value addressed, no two
//! nonzero entries at one coordinate; [`crate::program::rules`]), over the
//! driver's runtime built with `DRV_JUMP` (a stop jumps back to the entry
//! point with its message instead of ending the process). The storage
//! check's entries are handed back as the caller asks: sorted by
//! coordinate (the oracle's [`Entries`], for an exact comparison), shown
//! distinct and in any order (an input's, made into a [`Fingerprint`]),
//! or only summed into a fingerprint as they are found (a result's). The
//! comparison itself stays format-independent: it compares the entries
//! the input's map gives with those the result's map gives.
//!
//! # The library's C ABI
//!
//! Besides `spf_abi_version` ([`ABI_VERSION`], checked on load):
//!
//! `int spf_check_entries(const char *format, const char *const *symbols,
//! const int64_t *values_of_symbols, int64_t nsym, const spf_check_array
//! *arrays, int64_t narr, int64_t *coords, double *values, int64_t cap,
//! int64_t *n, int mode, uint64_t key, uint64_t *print, char *message,
//! size_t message_cap)`: checks the instance (arrays borrowed, not copied;
//! `spf_check_array` is [`AbiArray`]). With `mode` 0 it writes its `*n`
//! nonzero entries, sorted by coordinate, into `coords` (one coordinate
//! per dense dimension, entry after entry) and `values`, the caller's
//! buffers with room for `cap` entries (the storage check writes them
//! there as it finds them, and sorts them in place); with `mode` 1 the
//! same, but the entries need only be shown distinct (they stay in any
//! order in which some order of the coordinates has them increasing); with
//! `mode` 2 nothing is kept: `print[0]` and `print[1]` receive the number
//! of entries and the sum of their hashes under `key`
//! ([`synth::fingerprint`]), and two entries at one coordinate are
//! not looked for; `mode` 3 is mode 2 with `print[2]` set to whether the
//! entries came increasing in some order of the coordinates (then no two
//! share one). The bit 4 of `mode` accepts values that are not finite
//! (NaN, infinities), which the check refuses without it. It returns 0, or 1
//! with the first problem in `message` (more entries than `cap` among
//! them): the caller re-runs spf's own check for the detailed error; or 2
//! when an integer array is not held at the width the library was
//! compiled for ([`Failed::Undecided`]: spf's own check decides).
//!
//! An index array is read where spf holds it, at 64 bits
//! (`spf_check_array.i`) or at 32 (`.i32`, an `.npz`'s int32 arrays and a
//! 32-bit conversion's results), through `drv_int`. A library compiled for
//! one width ([`checker_source`] with a width: the one at which all of an
//! instance's integer arrays are held, [`held_width`]) reads each value
//! without asking its array's width; one compiled without asks. The sizes
//! a 32-bit instance must fit are checked by the caller.

use std::ffi::{c_char, c_int, CString};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use codegen::width::IndexWidth;
use synth::fingerprint::{self, Fingerprint};
use synth::instance::{Instance, Values};
use synth::oracle::Entries;
use synth::representable::Representable;
use synth::Descriptor;

use crate::native::{Library, ABI_VERSION};
use crate::native_cache::{obtain_checker, Origin};
use crate::observe::Observer;
use crate::program::c_text::c_str;
use crate::program::rules::rules_check_exact;
use crate::program::{first_failing, push_runtime, source_check};
use crate::Error;

/// One array of an instance as the library reads it (`spf_check_array`).
#[repr(C)]
pub struct AbiArray {
    name: *const c_char,
    len: i64,
    real: c_int,
    ints: *const i64,
    reals: *const f64,
    ints32: *const i32,
}

/// The entry point's type.
type CheckFn = unsafe extern "C" fn(
    *const c_char,
    *const *const c_char,
    *const i64,
    i64,
    *const AbiArray,
    i64,
    *mut i64,
    *mut f64,
    i64,
    *mut i64,
    c_int,
    u64,
    *mut u64,
    *mut c_char,
    usize,
) -> c_int;

/// What the compiled check gives back besides its verdict
/// (`spf_check_entries`'s `mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Give {
    /// The entries, sorted by coordinate (mode 0).
    Sorted,
    /// The entries, shown distinct, in any order (mode 1).
    Distinct,
    /// Only their fingerprint; two at one coordinate are not looked for
    /// (mode 2).
    Fingerprint,
    /// Their fingerprint, and whether some order of the coordinates has
    /// them increasing as they come, which shows them distinct (mode 3).
    WatchedFingerprint,
}

impl Give {
    fn mode(self) -> c_int {
        match self {
            Give::Sorted => 0,
            Give::Distinct => 1,
            Give::Fingerprint => 2,
            Give::WatchedFingerprint => 3,
        }
    }
}

/// The C source of the check library of `d`, for instances whose integer
/// arrays are all held at `width` (read without asking each array's width
/// per value), or at any widths when `None`.
///
/// # Errors
///
/// Why some check of `d` cannot be printed as C (the caller checks in
/// Rust).
pub fn checker_source(d: &Descriptor, width: Option<IndexWidth>) -> Result<String, String> {
    let (source, complete) = source_check(d).map_err(|e| e.to_string())?;
    if !complete {
        return Err(format!(
            "a range of {} that the C check cannot print",
            d.name
        ));
    }
    // The check of an instance of `d` itself: every entry is storable.
    let everything = Representable {
        format: d.name.clone(),
        names: Vec::new(),
        dense: d.dense.clone(),
        conditions: Vec::new(),
        capacities: Vec::new(),
    };
    let rules = rules_check_exact(d, &everything)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "/* Generated by spf convert: the check of an instance of {} as a shared library. */",
        d.name
    );
    out.push_str(PRELUDE);
    if let Some(w) = width {
        let _ = writeln!(
            out,
            "/* Every integer array is held at {0} bits (drv_int). */\n#define DRV_INDEX_WIDTH {0}\n",
            w.bits()
        );
    }
    push_runtime(&mut out);
    let _ = writeln!(
        out,
        "\nstatic const char *const drv_src_format = {};\n",
        c_str(&d.name)
    );
    out.push_str(&source);
    out.push('\n');
    out.push_str(&rules);
    // What spf's check looks at besides the descriptor's arrays: dense
    // extents are sizes, values are finite (unless the caller accepts
    // NaN and infinities).
    let _ = writeln!(
        out,
        "\nstatic void spf_check_scalars(drv_inst *x, const char *ctx, int allow_nonfinite)\n{{\n    \
         const drv_array *values = drv_array_named(x, ctx, {});\n    int64_t k;",
        c_str(&d.data_name)
    );
    for s in &d.dense {
        let _ = writeln!(
            out,
            "    if (drv_symbol(x, ctx, {0}) < 0)\n        \
             drv_die(\"%s: the extent %s is negative\", ctx, {0});",
            c_str(s)
        );
    }
    out.push_str("    if (values->real && !allow_nonfinite)\n");
    out.push_str(&first_failing(
        "values->len",
        "",
        "fabs(values->r[k]) <= DBL_MAX",
        "drv_die(\"%s: %s holds a value that is not finite\", ctx, values->name);",
    ));
    out.push_str("}\n");
    let _ = write!(
        out,
        "\nSPF_ABI_EXPORT int spf_abi_version(void) {{ return {ABI_VERSION}; }}\n\n\
         typedef struct {{\n    const char *name;\n    int64_t len;\n    int real;\n    \
         const int64_t *i;\n    const double *r;\n    const int32_t *i32;\n}} spf_check_array;\n\n\
         static drv_kept spf_check_kept;\nstatic drv_array *spf_check_arrays;\n\n\
         SPF_ABI_EXPORT int spf_check_entries(const char *format, const char *const *symbols,\n    \
         const int64_t *symbol_values, int64_t nsym, const spf_check_array *arrays, int64_t narr,\n    \
         int64_t *coords, double *values, int64_t cap, int64_t *n, int mode, uint64_t key,\n    \
         uint64_t *print, char *message, size_t message_cap)\n\
         {{\n    drv_inst x;\n    drv_fp fp;\n    int64_t k;\n    jmp_buf jump;\n    \
         const int allow_nonfinite = (mode & 4) != 0;\n    \
         mode &= 3;\n    \
         memset(&x, 0, sizeof x);\n    \
         memset(&fp, 0, sizeof fp);\n    fp.key = key;\n    fp.watch = mode == 3;\n    fp.live = 0x3f;\n    \
         drv_keep_unordered = mode == 1;\n    \
         spf_check_kept.coords = coords;\n    spf_check_kept.values = values;\n    \
         spf_check_kept.n = 0;\n    spf_check_kept.cap = cap;\n    \
         spf_check_arrays = NULL;\n    \
         drv_jump_at = &jump;\n    \
         if (setjmp(jump)) {{\n        \
         drv_keep = NULL;\n        drv_print = NULL;\n        free(spf_check_arrays);\n        \
         if (message_cap > 0)\n            snprintf(message, message_cap, \"%s\", drv_message);\n        \
         return 1;\n    }}\n    \
         spf_check_arrays = drv_alloc(narr > 0 ? narr : 1, sizeof *spf_check_arrays);\n    \
         for (k = 0; k < narr; k++) {{\n        \
         if (!arrays[k].real && !drv_held_at_width(arrays[k].i, arrays[k].i32)) {{\n            \
         snprintf(message, message_cap, \"%s is not held at the index width this check was compiled for\", \
         arrays[k].name);\n            \
         free(spf_check_arrays);\n            return 2;\n        }}\n        \
         spf_check_arrays[k].name = (char *)arrays[k].name;\n        \
         spf_check_arrays[k].real = arrays[k].real;\n        \
         spf_check_arrays[k].len = arrays[k].len;\n        \
         spf_check_arrays[k].i = (int64_t *)arrays[k].i;\n        \
         spf_check_arrays[k].r = (double *)arrays[k].r;\n        \
         spf_check_arrays[k].i32 = arrays[k].i32;\n    }}\n    \
         x.format = (char *)format;\n    x.nsym = x.capsym = nsym;\n    \
         x.sym_name = (char **)symbols;\n    x.sym_val = (int64_t *)symbol_values;\n    \
         x.narr = x.caparr = narr;\n    x.arr = spf_check_arrays;\n    \
         drv_check_source(&x, \"the instance\");\n    \
         spf_check_scalars(&x, \"the instance\", allow_nonfinite);\n    \
         if (mode >= 2)\n        drv_print = &fp;\n    else\n        drv_keep = &spf_check_kept;\n    \
         drv_check_rules(&x, \"the instance\");\n    \
         drv_keep = NULL;\n    drv_print = NULL;\n    \
         print[0] = fp.count;\n    print[1] = fp.sum;\n    print[2] = fp.count < 2 || fp.live != 0;\n    \
         free(spf_check_arrays);\n    spf_check_arrays = NULL;\n    \
         *n = spf_check_kept.n;\n    (void)message;\n    return 0;\n}}\n"
    );
    Ok(out)
}

/// What comes before the driver's runtime.
const PRELUDE: &str = r#"#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#if defined(__GNUC__)
#define SPF_ABI_EXPORT __attribute__((visibility("default")))
#else
#define SPF_ABI_EXPORT
#endif

/* Stops jump back to spf_check_entries (drv_die, driver_runtime.c). */
#define DRV_JUMP 1
/* Checks of many values run on several threads (drv_parts_run). */
#define DRV_THREADS 1

"#;

/// The one width at which every integer array of `inst` is held, if
/// there is one: a check library compiled for it reads each index without
/// asking its array's width ([`checker_source`]).
pub fn held_width(inst: &Instance) -> Option<IndexWidth> {
    let mut widths = inst.arrays.values().filter_map(|v| match v {
        Values::Int(_) => Some(IndexWidth::W64),
        Values::Int32(_) => Some(IndexWidth::W32),
        Values::Real(_) | Values::Real32(_) => None,
    });
    let first = widths.next()?;
    widths.all(|w| w == first).then_some(first)
}

/// A loaded check library.
pub struct Checker {
    library: Library,
}

/// Why the compiled check did not give the entries.
#[derive(Debug)]
pub enum Failed {
    /// The instance breaks something: the library's first message.
    Invalid(String),
    /// The library cannot tell (a name C cannot hold, a missing entry
    /// point): spf's own check decides.
    Undecided(String),
}

impl Checker {
    /// The check library of `d`, from the cache (`cache`, else the
    /// user's, [`crate::native_cache::cache_dir`]) or compiled now, with
    /// its path and origin.
    ///
    /// # Errors
    ///
    /// [`Error::Compiler`] when a check of `d` cannot be printed as C, or
    /// the library cannot be compiled or loaded.
    pub fn obtain(
        cache: Option<&Path>,
        d: &Descriptor,
        width: Option<IndexWidth>,
        observer: &dyn Observer,
    ) -> Result<(Checker, PathBuf, Origin), Error> {
        let source = checker_source(d, width)
            .map_err(|reason| Error::Compiler(format!("checking {} in C: {reason}", d.name)))?;
        let (library, path, origin) = obtain_checker(cache, d, &source, observer)?;
        Ok((Checker { library }, path, origin))
    }

    /// Checks `inst` against `d` (the descriptor the library was printed
    /// for) and gives its nonzero entries sorted by coordinate, as
    /// [`synth::instance_validation::validate_entries`] does.
    ///
    /// # Errors
    ///
    /// [`Failed`]: the library's message, or why it cannot tell.
    /// Values that are not finite pass when `allow_nonfinite` says so.
    pub fn entries(
        &self,
        d: &Descriptor,
        inst: &Instance,
        allow_nonfinite: bool,
    ) -> Result<Entries, Failed> {
        self.run(d, inst, Give::Sorted, allow_nonfinite)
            .map(|(entries, _, _)| entries)
    }

    /// Checks `inst` against `d` as [`Checker::entries`] does, two nonzero
    /// entries at one coordinate included, and gives the [`Fingerprint`]
    /// of its entries (sorted only when no order of the coordinates has
    /// them increasing already: a CSC's entries cost one scan).
    ///
    /// # Errors
    ///
    /// As [`Checker::entries`].
    pub fn distinct_fingerprint(
        &self,
        d: &Descriptor,
        inst: &Instance,
        allow_nonfinite: bool,
    ) -> Result<Fingerprint, Failed> {
        // First as they come, keeping nothing: enough when they come in
        // some order of the coordinates (a CSR's, a CSC's entries do).
        let allow = allow_nonfinite;
        if let (_, print, true) = self.run(d, inst, Give::WatchedFingerprint, allow)? {
            return Ok(print);
        }
        self.run(d, inst, Give::Distinct, allow)
            .map(|(entries, _, _)| Fingerprint::of_entries(&entries))
    }

    /// Checks `inst` against `d` as [`Checker::entries`] does, except
    /// that two nonzero entries at one coordinate are not looked for, and
    /// gives the [`Fingerprint`] of its entries, summed as they are found
    /// (no entry is kept): what a result's check needs, since the
    /// fingerprint's comparison with an input that has no such entries
    /// finds them.
    ///
    /// # Errors
    ///
    /// As [`Checker::entries`].
    pub fn fingerprint(
        &self,
        d: &Descriptor,
        inst: &Instance,
        allow_nonfinite: bool,
    ) -> Result<Fingerprint, Failed> {
        self.run(d, inst, Give::Fingerprint, allow_nonfinite)
            .map(|(_, print, _)| print)
    }

    /// Runs the check, giving back what `give` says: the entries kept, the
    /// fingerprint, and whether the entries came in increasing order.
    fn run(
        &self,
        d: &Descriptor,
        inst: &Instance,
        give: Give,
        allow_nonfinite: bool,
    ) -> Result<(Entries, Fingerprint, bool), Failed> {
        let cstring = |s: &str| {
            CString::new(s).map_err(|_| Failed::Undecided(format!("the name `{s}` holds a NUL")))
        };
        let format = cstring(&inst.format)?;
        let symbol_names = inst
            .symbols
            .keys()
            .map(|s| cstring(s))
            .collect::<Result<Vec<_>, _>>()?;
        let symbol_ptrs: Vec<*const c_char> = symbol_names.iter().map(|s| s.as_ptr()).collect();
        let symbol_values: Vec<i64> = inst.symbols.values().copied().collect();
        let array_names = inst
            .arrays
            .keys()
            .map(|s| cstring(s))
            .collect::<Result<Vec<_>, _>>()?;
        // `float32` values are read as the doubles they are.
        let widened: Vec<Values> = inst
            .arrays
            .values()
            .map(|v| match v {
                Values::Real32(_) => Values::Real(v.to_reals().into()),
                _ => Values::Real(Vec::new().into()),
            })
            .collect();
        let arrays: Vec<AbiArray> = inst
            .arrays
            .values()
            .zip(&widened)
            .map(|(v, w)| if let Values::Real32(_) = v { w } else { v })
            .zip(&array_names)
            .map(|(v, name)| match v {
                Values::Int(v) => AbiArray {
                    name: name.as_ptr(),
                    len: v.len() as i64,
                    real: 0,
                    ints: v.as_ptr(),
                    reals: std::ptr::null(),
                    ints32: std::ptr::null(),
                },
                Values::Int32(v) => AbiArray {
                    name: name.as_ptr(),
                    len: v.len() as i64,
                    real: 0,
                    ints: std::ptr::null(),
                    reals: std::ptr::null(),
                    ints32: v.as_ptr(),
                },
                Values::Real(v) => AbiArray {
                    name: name.as_ptr(),
                    len: v.len() as i64,
                    real: 1,
                    ints: std::ptr::null(),
                    reals: v.as_ptr(),
                    ints32: std::ptr::null(),
                },
                // Widened above.
                Values::Real32(_) => AbiArray {
                    name: name.as_ptr(),
                    len: 0,
                    real: 1,
                    ints: std::ptr::null(),
                    reals: std::ptr::null(),
                    ints32: std::ptr::null(),
                },
            })
            .collect();
        // At most one entry per nonzero value (a map that addresses a value
        // twice stops the library: spf's own check decides).
        let cap = match (give, inst.arrays.get(&d.data_name)) {
            (Give::Fingerprint | Give::WatchedFingerprint, _) | (_, None) => 0,
            (_, Some(Values::Real(v))) => v.iter().filter(|&&x| x != 0.0).count(),
            (_, Some(Values::Real32(v))) => v.iter().filter(|&&x| x != 0.0).count(),
            (_, Some(Values::Int(v))) => v.iter().filter(|&&x| x != 0).count(),
            (_, Some(Values::Int32(v))) => v.iter().filter(|&&x| x != 0).count(),
        };
        let order = d.dense.len();
        let mut coords: Vec<i64> = Vec::with_capacity(cap * order);
        let mut values: Vec<f64> = Vec::with_capacity(cap);
        let mut n: i64 = 0;
        let mut print = [0u64; 3];
        let mut message = vec![0u8; 1024];
        // SAFETY: the pointers are valid for the call (the vectors and
        // strings above outlive it; the library only reads the instance's
        // arrays), `coords` and `values` have room for `cap` entries, and
        // the entry point has this type in every check library.
        let turn = self.library.turn();
        let status = unsafe {
            let check = self
                .library
                .symbol::<CheckFn>("spf_check_entries")
                .map_err(Failed::Undecided)?;
            check(
                format.as_ptr(),
                symbol_ptrs.as_ptr(),
                symbol_values.as_ptr(),
                symbol_ptrs.len() as i64,
                arrays.as_ptr(),
                arrays.len() as i64,
                coords.as_mut_ptr(),
                values.as_mut_ptr(),
                cap as i64,
                &mut n,
                give.mode() | if allow_nonfinite { 4 } else { 0 },
                fingerprint::key(),
                print.as_mut_ptr(),
                message.as_mut_ptr().cast(),
                message.len(),
            )
        };
        drop(turn);
        match status {
            0 => {
                let n = usize::try_from(n).unwrap_or(0).min(cap);
                // SAFETY: the library wrote `n` entries (at most `cap`).
                unsafe {
                    coords.set_len(n * order);
                    values.set_len(n);
                }
                let entries = Entries {
                    arity: order,
                    coords,
                    values,
                };
                let in_order = print[2] != 0;
                let print = Fingerprint {
                    count: print[0],
                    sum: print[1],
                };
                Ok((entries, print, in_order))
            }
            status => {
                let end = message
                    .iter()
                    .position(|&b| b == 0)
                    .unwrap_or(message.len());
                let message = String::from_utf8_lossy(&message[..end]).into_owned();
                Err(if status == 2 {
                    Failed::Undecided(message)
                } else {
                    Failed::Invalid(message)
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use synth::instance::{Instance, InstanceError, Values};
    use synth::instance_validation::validate_entries;

    use super::{Checker, Failed, Give};
    use crate::runner::Runner;
    use codegen::width::IndexWidth;
    use synth::fingerprint::Fingerprint;

    /// The compiled check of CSR agrees with spf's own: the same entries
    /// of a valid instance, and each broken one refused with spf's error
    /// (the compiled check finds the problem; spf's names it).
    #[test]
    fn the_compiled_check_agrees_with_spf() {
        let csr = synth::builtin::load_format("csr").expect("built-in");
        let cache = std::env::temp_dir().join(format!("spf-native-check-{}", std::process::id()));
        let runner = Runner::native_in(&cache);
        let instance = |rowptr, col, a, nr| csr_with(rowptr, col, a, nr);
        let good = instance(
            vec![0, 2, 2, 4],
            vec![0, 3, 1, 2],
            vec![1.0, 0.0, -2.5, 4.0],
            3,
        );
        let (checker, _, _) =
            Checker::obtain(Some(&cache), &csr, None, &crate::observe::Quiet).expect("compiled");
        let want = validate_entries(&csr, &good).expect("valid");
        let got = checker.entries(&csr, &good, false).expect("valid");
        assert_eq!((&got.coords, &got.values), (&want.coords, &want.values));
        let got = runner.validate_entries(&csr, &good).expect("valid");
        assert_eq!((&got.coords, &got.values), (&want.coords, &want.values));
        // The same instance at 32 bits: read where it is, the same entries.
        let got = checker
            .entries(&csr, &narrowed(&good), false)
            .expect("valid");
        assert_eq!((got.coords, got.values), (want.coords, want.values));
        for (broken, what) in [
            (
                instance(vec![0, 2, 2, 4], vec![3, 0, 1, 2], vec![1.0; 4], 3),
                "columns out of order in a row",
            ),
            (
                instance(vec![0, 2, 1, 4], vec![0, 3, 1, 2], vec![1.0; 4], 3),
                "rowptr decreasing",
            ),
            (
                instance(vec![0, 2, 2, 4], vec![0, 3, 1, 4], vec![1.0; 4], 3),
                "a column outside NC",
            ),
            (
                instance(vec![0, 2, 2, 3], vec![0, 3, 1, 2], vec![1.0; 4], 3),
                "a value no entry addresses",
            ),
            (
                instance(
                    vec![0, 2, 2, 4],
                    vec![0, 3, 1, 2],
                    vec![1.0, f64::NAN, 1.0, 1.0],
                    3,
                ),
                "a value that is not finite",
            ),
            (instance(vec![0], vec![], vec![], -1), "a negative extent"),
        ] {
            // The compiled check itself finds it (a pass would be final).
            for instance in [&broken, &narrowed(&broken)] {
                let found = checker.entries(&csr, instance, false);
                assert!(
                    matches!(found, Err(Failed::Invalid(_))),
                    "{what}: {found:?}"
                );
            }
            let want: InstanceError = validate_entries(&csr, &broken).expect_err(what);
            let got = runner.validate_entries(&csr, &broken).expect_err(what);
            // (Compared as text: a NaN in the error is not equal to itself.)
            assert_eq!(got.to_string(), want.to_string(), "{what}");
        }
        let _ = std::fs::remove_dir_all(&cache);
    }

    /// With non-finite values accepted, the compiled check passes NaN and
    /// infinities and gives the entries (and fingerprint) spf's own check
    /// gives; without, it refuses them.
    #[test]
    fn the_compiled_check_accepts_nonfinite_values_when_asked() {
        use synth::instance_validation::validate_entries_allowing;
        let csr = synth::builtin::load_format("csr").expect("built-in");
        let cache =
            std::env::temp_dir().join(format!("spf-check-nonfinite-{}", std::process::id()));
        let (checker, _, _) =
            Checker::obtain(Some(&cache), &csr, None, &crate::observe::Quiet).expect("compiled");
        let inst = csr_with(
            vec![0, 2, 2, 4],
            vec![0, 3, 1, 2],
            vec![f64::NAN, f64::INFINITY, -2.5, f64::NEG_INFINITY],
            3,
        );
        assert!(matches!(
            checker.entries(&csr, &inst, false),
            Err(Failed::Invalid(_))
        ));
        let want = validate_entries_allowing(&csr, &inst, true).expect("accepted");
        let got = checker.entries(&csr, &inst, true).expect("accepted");
        assert_eq!(got.coords, want.coords);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&got.values), bits(&want.values));
        assert!(want.values[0].is_nan());
        assert_eq!(
            checker.fingerprint(&csr, &inst, true).expect("accepted"),
            Fingerprint::of_entries(&want)
        );
        let _ = std::fs::remove_dir_all(&cache);
    }

    /// A check library compiled for one index width reads that width only
    /// (for another it cannot tell, and says so rather than misread), and
    /// its scans, which test blocks of values without a branch first, name
    /// the first failing value, in a later block too.
    #[test]
    fn a_check_for_one_width_finds_the_first_failure_in_any_block() {
        let csr = synth::builtin::load_format("csr").expect("built-in");
        let cache = std::env::temp_dir().join(format!("spf-one-width-{}", std::process::id()));
        let obtain = |w| {
            Checker::obtain(Some(&cache), &csr, Some(w), &crate::observe::Quiet)
                .expect("compiled")
                .0
        };
        let (w32, w64) = (obtain(IndexWidth::W32), obtain(IndexWidth::W64));
        // Over two blocks (DRV_BLOCK, 2,048 values) of every array: one
        // entry per row.
        let n: i64 = 6000;
        let rowptr: Vec<i64> = (0..=n).collect();
        let col: Vec<i64> = (0..n).map(|k| k % 4).collect();
        let a = vec![1.0; n as usize];
        let good = csr_with(rowptr.clone(), col.clone(), a.clone(), n);
        let want = Fingerprint::of_entries(&validate_entries(&csr, &good).expect("valid"));
        assert_eq!(
            w32.fingerprint(&csr, &narrowed(&good), false)
                .expect("valid"),
            want
        );
        assert_eq!(w64.fingerprint(&csr, &good, false).expect("valid"), want);
        for (checker, inst) in [(&w32, good.clone()), (&w64, narrowed(&good))] {
            let got = checker.fingerprint(&csr, &inst, false);
            assert!(matches!(got, Err(Failed::Undecided(_))), "{got:?}");
        }
        // Each at both widths: the library's message.
        let failing = |inst: Instance| {
            let message = |got: Result<Fingerprint, Failed>| match got {
                Err(Failed::Invalid(m)) => m,
                other => panic!("not refused: {other:?}"),
            };
            let m32 = message(w32.fingerprint(&csr, &narrowed(&inst), false));
            let m64 = message(w64.fingerprint(&csr, &inst, false));
            assert_eq!(m32, m64);
            m64
        };
        let mut c = col.clone();
        c[2053] = 4;
        c[5000] = 7;
        let m = failing(csr_with(rowptr.clone(), c, a.clone(), n));
        assert!(m.contains("col[2053] = 4 is outside"), "{m}");
        let mut r = rowptr.clone();
        r[4100] = 4098;
        r[5500] = 0;
        let m = failing(csr_with(r, col.clone(), a.clone(), n));
        assert!(
            m.contains("rowptr(4099) = 4099, rowptr(4100) = 4098"),
            "{m}"
        );
        // Rows from value 2,100 on: the zeros before 2,050 may go
        // unaddressed, the value at 2,050 may not.
        let late: Vec<i64> = (0..=n).map(|i| (i + 2100).min(n)).collect();
        let mut zeros = a.clone();
        zeros[..2050].fill(0.0);
        let m = failing(csr_with(late, col.clone(), zeros, n));
        assert!(m.contains("A(2050) = 1 belongs to no stored entry"), "{m}");
        let mut inf = a;
        inf[4500] = f64::INFINITY;
        let m = failing(csr_with(rowptr, col, inf, n));
        assert!(m.contains("not finite"), "{m}");
        let _ = std::fs::remove_dir_all(&cache);
    }

    /// A large instance is checked in ranges of its outermost loop on
    /// several threads (`drv_parts_run`): the fingerprint is that of all
    /// its entries, and whether they came increasing is seen across the
    /// ranges' boundaries, where each range alone would say yes.
    #[test]
    fn ranges_checked_at_once_add_up() {
        // COO without its rule against repeated coordinates: the storage
        // check's watch is what finds them.
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../descriptors/coo.desc"),
        )
        .expect("coo.desc");
        let text: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("forall"))
            .map(|l| format!("{l}\n"))
            .collect();
        let coo = synth::descriptor_file::parse_descriptor(&text).expect("a descriptor");
        assert!(coo.rules.is_empty());
        let cache = std::env::temp_dir().join(format!("spf-ranges-{}", std::process::id()));
        let (checker, _, _) =
            Checker::obtain(Some(&cache), &coo, None, &crate::observe::Quiet).expect("compiled");
        // More entries than the 65,536 value slots checked on one thread;
        // the middle one starts a range for any number of threads.
        let n: i64 = 200_000;
        let middle = (n / 2) as usize;
        let instance = |row: Vec<i64>, col: Vec<i64>| {
            let mut inst = Instance {
                format: "COO".into(),
                ..Instance::default()
            };
            for (name, v) in [("NR", n / 400), ("NC", 400), ("NNZ", n)] {
                inst.symbols.insert(name.into(), v);
            }
            inst.arrays.insert("row".into(), Values::Int(row.into()));
            inst.arrays.insert("col".into(), Values::Int(col.into()));
            inst.arrays.insert(
                "A".into(),
                Values::Real((1..=n).map(|v| v as f64).collect()),
            );
            inst
        };
        let (row, col): (Vec<i64>, Vec<i64>) = (0..n).map(|e| (e / 400, e % 400)).unzip();
        let entries_print = |inst: &Instance| {
            Fingerprint::of_entries(&validate_entries(&coo, inst).expect("valid"))
        };
        let sorted = instance(row.clone(), col.clone());
        let (_, print, increasing) = checker
            .run(&coo, &sorted, Give::WatchedFingerprint, false)
            .expect("valid");
        assert!(increasing);
        assert_eq!(print, entries_print(&sorted));
        // Two neighbors' coordinates swapped across the middle: not
        // increasing, and still its entries' fingerprint.
        let (mut r, mut c) = (row.clone(), col.clone());
        r.swap(middle - 1, middle);
        c.swap(middle - 1, middle);
        let swapped = instance(r, c);
        let (_, _, increasing) = checker
            .run(&coo, &swapped, Give::WatchedFingerprint, false)
            .expect("valid");
        assert!(!increasing);
        assert_eq!(
            checker
                .distinct_fingerprint(&coo, &swapped, false)
                .expect("valid"),
            entries_print(&swapped)
        );
        // The middle entry at its predecessor's coordinate: each range is
        // increasing, the whole is not, and the repeat is found.
        let (mut r, mut c) = (row, col);
        r[middle] = r[middle - 1];
        c[middle] = c[middle - 1];
        let repeated = instance(r, c);
        let (_, _, increasing) = checker
            .run(&coo, &repeated, Give::WatchedFingerprint, false)
            .expect("checked");
        assert!(!increasing);
        let found = checker.distinct_fingerprint(&coo, &repeated, false);
        assert!(
            matches!(&found, Err(Failed::Invalid(m)) if m.contains("two nonzero entries")),
            "{found:?}"
        );
        let _ = std::fs::remove_dir_all(&cache);
    }

    /// A rule's adjacent pairs are checked in ranges on several threads
    /// too, and the violation reported is the first, as on one thread.
    #[test]
    fn the_first_violation_of_ranges_checked_at_once_is_reported() {
        let csr = synth::builtin::load_format("csr").expect("built-in");
        let cache = std::env::temp_dir().join(format!("spf-rule-ranges-{}", std::process::id()));
        let (checker, _, _) =
            Checker::obtain(Some(&cache), &csr, None, &crate::observe::Quiet).expect("compiled");
        // 50,000 rows of 4 entries: more values than one thread checks.
        let rows: i64 = 50_000;
        let rowptr: Vec<i64> = (0..=rows).map(|i| 4 * i).collect();
        let mut col: Vec<i64> = (0..4 * rows).map(|k| k % 4).collect();
        // Two rows out of order, in different ranges; the earlier is named.
        for row in [30_000usize, 45_000] {
            col.swap(4 * row + 1, 4 * row + 2);
        }
        let a = vec![1.0; col.len()];
        let broken = csr_with(rowptr, col, a, rows);
        let found = checker.entries(&csr, &broken, false);
        assert!(
            matches!(&found, Err(Failed::Invalid(m)) if m.contains("does not hold at i = 30000,")),
            "{found:?}"
        );
        let _ = std::fs::remove_dir_all(&cache);
    }

    /// `inst` with its index arrays held at 32 bits.
    fn narrowed(inst: &Instance) -> Instance {
        let mut out = inst.clone();
        for v in out.arrays.values_mut() {
            if let Values::Int(ints) = v {
                *v = Values::Int32(ints.iter().map(|&x| x as i32).collect());
            }
        }
        out
    }

    /// A repeated coordinate among shuffled COO entries is found by the
    /// compiled check whichever way it sorts: the rule's points packed
    /// into 64-bit keys (small extents) or compared (extents whose keys
    /// need more than 64 bits), the kept entries counted (small extents)
    /// or compared; entries without one pass, with spf's fingerprint.
    #[test]
    fn repeated_coordinates_are_found_by_every_sort_of_the_rule() {
        let coo = synth::builtin::load_format("coo").expect("built-in");
        let cache = std::env::temp_dir().join(format!("spf-native-dups-{}", std::process::id()));
        let (checker, _, _) =
            Checker::obtain(Some(&cache), &coo, None, &crate::observe::Quiet).expect("compiled");
        let n = 3000i64;
        for extent in [100i64, 1 << 20, 1 << 40] {
            // Distinct coordinates, spread over the extents, shuffled.
            let mut coords: Vec<(i64, i64)> = (0..n)
                .map(|k| ((k * 7919) % extent, (k * 104_729 + k / 3) % extent))
                .collect();
            coords.sort_unstable();
            coords.dedup();
            let mut state = 0x2545_f491_4f6c_dd1du64;
            for k in (1..coords.len()).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                coords.swap(k, (state % (k as u64 + 1)) as usize);
            }
            let inst = |coords: &[(i64, i64)]| {
                let mut inst = Instance {
                    format: "COO".into(),
                    ..Instance::default()
                };
                inst.symbols.insert("NR".into(), extent);
                inst.symbols.insert("NC".into(), extent);
                inst.symbols.insert("NNZ".into(), coords.len() as i64);
                let rows = coords.iter().map(|c| c.0).collect();
                let cols = coords.iter().map(|c| c.1).collect();
                inst.arrays.insert("row".into(), Values::Int(rows));
                inst.arrays.insert("col".into(), Values::Int(cols));
                let values = (1..=coords.len()).map(|v| v as f64).collect();
                inst.arrays.insert("A".into(), Values::Real(values));
                inst
            };
            let distinct = inst(&coords);
            let want = Fingerprint::of_entries(&validate_entries(&coo, &distinct).expect("valid"));
            let got = checker.distinct_fingerprint(&coo, &distinct, false);
            assert_eq!(got.ok(), Some(want), "extent {extent}: distinct entries");
            // One coordinate given again, far from its first place.
            let mut repeated = coords.clone();
            let last = repeated.len() - 1;
            repeated[last] = repeated[last / 2];
            let repeated = inst(&repeated);
            let found = checker.distinct_fingerprint(&coo, &repeated, false);
            assert!(
                matches!(found, Err(Failed::Invalid(_))),
                "extent {extent}: a repeated coordinate: {found:?}"
            );
            // The descriptor's rule alone (no entry kept to compare).
            let found = checker.fingerprint(&coo, &repeated, false);
            assert!(
                matches!(found, Err(Failed::Invalid(_))),
                "extent {extent}: the rule: {found:?}"
            );
            // Every entry at one coordinate: records that are all equal,
            // whose packed keys take no bits (the sort returns before it
            // sorts), still meet in the join.
            let same = inst(&vec![coords[0]; 500]);
            for found in [
                checker.fingerprint(&coo, &same, false),
                checker.distinct_fingerprint(&coo, &same, false),
            ] {
                assert!(
                    matches!(found, Err(Failed::Invalid(_))),
                    "extent {extent}: one coordinate 500 times: {found:?}"
                );
            }
        }
    }

    /// A COO of more entries than a rule's budget of evaluations checks:
    /// its join meets each entry with itself only, linear work.
    #[test]
    fn a_join_of_more_points_than_the_budget_is_checked() {
        let coo = synth::builtin::load_format("coo").expect("built-in");
        let cache = std::env::temp_dir().join(format!("spf-native-join-{}", std::process::id()));
        let (checker, _, _) =
            Checker::obtain(Some(&cache), &coo, None, &crate::observe::Quiet).expect("compiled");
        let n = synth::instance_validation::RULE_BUDGET as i32 + 1000;
        let mut inst = Instance {
            format: "COO".into(),
            ..Instance::default()
        };
        inst.symbols.insert("NR".into(), i64::from(n / 4096 + 1));
        inst.symbols.insert("NC".into(), 4096);
        inst.symbols.insert("NNZ".into(), i64::from(n));
        inst.arrays.insert(
            "row".into(),
            Values::Int32((0..n).map(|k| k / 4096).collect()),
        );
        inst.arrays.insert(
            "col".into(),
            Values::Int32((0..n).map(|k| k % 4096).collect()),
        );
        inst.arrays
            .insert("A".into(), Values::Real32(vec![1.0; n as usize].into()));
        inst.value_type = codegen::ValueType::F32;
        let found = checker.fingerprint(&coo, &inst, false);
        assert!(matches!(&found, Ok(f) if f.count == n as u64), "{found:?}");
    }

    /// A CSR instance of a 3 × 4 matrix.
    fn csr(rowptr: Vec<i64>, col: Vec<i64>, a: Vec<f64>) -> Instance {
        csr_with(rowptr, col, a, 3)
    }

    /// A CSR instance of an `nr` × 4 matrix.
    fn csr_with(rowptr: Vec<i64>, col: Vec<i64>, a: Vec<f64>, nr: i64) -> Instance {
        let mut inst = Instance {
            format: "CSR".into(),
            ..Instance::default()
        };
        inst.symbols.insert("NR".into(), nr);
        inst.symbols.insert("NC".into(), 4);
        inst.symbols.insert("NNZ".into(), col.len() as i64);
        inst.arrays
            .insert("rowptr".into(), Values::Int(rowptr.into()));
        inst.arrays.insert("col".into(), Values::Int(col.into()));
        inst.arrays.insert("A".into(), Values::Real(a.into()));
        inst
    }

    /// `result` of `s` (into `d`) verified by `r` against what `r` reads
    /// off `input`.
    fn against(
        r: &Runner,
        s: &synth::synthesize::Synthesized,
        d: &synth::Descriptor,
        input: &Instance,
        result: &Instance,
    ) -> Result<(), crate::Error> {
        use crate::runner::Source;
        let expected = r
            .expected(d, input)
            .map_err(|e| crate::Error::Usage(e.to_string()))?;
        let out = Source {
            instance: result.clone(),
            expected,
        };
        r.verify(s, d, &out)
    }

    /// A result compared by fingerprint: a changed value, a moved entry,
    /// a dropped one and a repeated one are refused, compiled and
    /// interpreted, and the exact comparison that follows a differing
    /// fingerprint names the first difference as before.
    #[test]
    fn corrupted_results_are_refused_by_fingerprint() {
        use synth::fingerprint::Fingerprint;

        use crate::runner::{Expected, Source};
        use crate::synthesis::testing::synthesized;
        use crate::Error;
        let (coo, csr_format) = (
            synth::builtin::load_format("coo").expect("built-in"),
            synth::builtin::load_format("csr").expect("built-in"),
        );
        let s = synthesized(&coo, &csr_format).expect("COO -> CSR");
        let cache = std::env::temp_dir().join(format!("spf-fp-check-{}", std::process::id()));
        let good = csr(vec![0, 2, 2, 4], vec![0, 3, 1, 2], vec![1.0, 2.0, 3.0, 4.0]);
        let corrupted = [
            (
                csr(vec![0, 2, 2, 4], vec![0, 3, 1, 2], vec![1.0, 2.5, 3.0, 4.0]),
                "(0, 3): expected 2.0, found 2.5",
            ),
            (
                csr(vec![0, 2, 2, 4], vec![0, 2, 1, 2], vec![1.0, 2.0, 3.0, 4.0]),
                "(0, 2): expected no entry, found 2.0",
            ),
            (
                csr(vec![0, 2, 2, 4], vec![0, 3, 1, 2], vec![1.0, 2.0, 0.0, 4.0]),
                "(2, 1): expected 3.0, found no entry",
            ),
            (
                csr(vec![0, 2, 2, 4], vec![0, 3, 1, 2], vec![1.0, 1.0, 3.0, 4.0]),
                "(0, 3): expected 2.0, found 1.0",
            ),
        ];
        for native in [false, true] {
            let runner = || {
                if native {
                    Runner::native_in(&cache)
                } else {
                    Runner::interp()
                }
            };
            let r = runner();
            // An input in no order of its coordinates (shown distinct by
            // sorting) and one in column order (as they come): the
            // fingerprint of their entries.
            for (row, col) in [
                (vec![1, 0, 0], vec![0, 1, 0]),
                (vec![1, 0, 2], vec![0, 1, 1]),
            ] {
                let mut inst = Instance {
                    format: "COO".into(),
                    ..Instance::default()
                };
                for (name, v) in [("NR", 3), ("NC", 4), ("NNZ", 3)] {
                    inst.symbols.insert(name.into(), v);
                }
                inst.arrays.insert("row".into(), Values::Int(row.into()));
                inst.arrays.insert("col".into(), Values::Int(col.into()));
                inst.arrays
                    .insert("A".into(), Values::Real(vec![1.0, 2.0, 3.0].into()));
                let want = Fingerprint::of_entries(&validate_entries(&coo, &inst).expect("valid"));
                let got = r.expected(&coo, &inst).expect("valid");
                assert!(matches!(got, Expected::Fingerprint(f) if f == want));
            }
            let expected = r.expected(&csr_format, &good).expect("valid");
            assert!(matches!(expected, Expected::Fingerprint(_)));
            let same = Source {
                instance: good.clone(),
                expected,
            };
            r.verify(&s, &csr_format, &same).expect("the same entries");
            for (bad, first) in &corrupted {
                let r = runner();
                let attempt = || against(&r, &s, &csr_format, &good, bad);
                let e = attempt().expect_err(first);
                assert!(matches!(e, Error::Mismatch(_)), "{first}: {e}");
                let e = r.exactly(&attempt).expect_err(first);
                let text = e.to_string();
                assert!(
                    text.contains("the result stores other entries than the input: the entries differ first at ")
                        && text.contains(first),
                    "{text}"
                );
            }
            // Two entries at one coordinate: CSR's rule refuses them first.
            let twice = csr(vec![0, 2, 2, 4], vec![0, 0, 1, 2], vec![1.0, 2.0, 3.0, 4.0]);
            let e = against(&runner(), &s, &csr_format, &good, &twice).expect_err("refused");
            assert!(e.to_string().contains("breaks a rule of CSR"), "{e}");
            // ELL has no rule against them: the fingerprint finds them, and
            // the exact check names them.
            let ell_format = synth::builtin::load_format("ell").expect("built-in");
            let to_ell = crate::synthesis::synthesize_pair(&coo, &ell_format).expect("COO -> ELL");
            let ell = |col: Vec<i64>, a: Vec<f64>| {
                let mut inst = Instance {
                    format: "ELL".into(),
                    ..Instance::default()
                };
                inst.symbols.insert("NR".into(), 2);
                inst.symbols.insert("NC".into(), 3);
                inst.symbols.insert("W".into(), 2);
                inst.arrays.insert("col".into(), Values::Int(col.into()));
                inst.arrays.insert("A".into(), Values::Real(a.into()));
                inst
            };
            // An input in no order of its coordinates with two entries at
            // one coordinate is refused (kept and sorted, not watched).
            let e = runner()
                .expected(
                    &ell_format,
                    &ell(vec![2, 0, 1, 1], vec![1.0, 2.0, 3.0, 4.0]),
                )
                .map(drop)
                .expect_err("two entries at (1, 1)");
            assert!(
                e.to_string().contains("two nonzero entries at (1, 1)"),
                "{e}"
            );
            let good = ell(vec![0, 2, 1, 1], vec![1.0, 2.0, 3.0, 0.0]);
            let twice = ell(vec![0, 0, 1, 1], vec![1.0, 1.0, 3.0, 0.0]);
            let r = runner();
            let attempt = || against(&r, &to_ell, &ell_format, &good, &twice);
            // (spf's own check, interpreted, looks for them itself.)
            match attempt() {
                Err(Error::Mismatch(_)) => assert!(native),
                Err(e) => assert!(
                    !native && e.to_string().contains("two nonzero entries"),
                    "{e}"
                ),
                Ok(()) => panic!("accepted"),
            }
            let e = r.exactly(&attempt).expect_err("refused").to_string();
            assert!(
                e.contains("breaks a rule of ELL") && e.contains("two nonzero entries at (0, 0)"),
                "{e}"
            );
        }
        let _ = std::fs::remove_dir_all(&cache);
    }
}
