//! The C program `spf build` writes and compiles: one or two synthesized
//! conversion functions, and a driver that reads the input, times the
//! conversion and writes the result.
//!
//! # The program
//!
//! `BIN INPUT [-o OUT.json|OUT.npz] [--repeat N]`:
//!
//! * `INPUT` is a Matrix Market `.mtx` file (coordinate; real, integer or
//!   pattern; general or symmetric, expanded to both triangles; duplicates
//!   summed), a FROSTT `.tns` file (either gzip-compressed or not), an
//!   `.npz` archive of the source format in `spf convert`'s layouts
//!   ([`npz`]: a scipy `coo` archive, or a compressed one out of order,
//!   read as its entries), or a JSON instance of the source format, told
//!   by content. Coordinates become an instance of COO (COO3D for three
//!   dimensions) in file order, as `synth::tensor_io` reads them; when the
//!   source format is not that COO format, a second synthesized function
//!   converts COO to the source first, outside the timed region. Before it
//!   runs, every entry read is checked to be storable in the source
//!   (`drv_pre_check_representable`, [`rules::representable_check`]),
//!   as `spf convert` checks it: an entry the source cannot store (below
//!   an upper skyline's diagonal, a third in a 2:4 group) stops the program
//!   with the message `spf convert` gives, before anything is written.
//! * The source instance is checked before the conversion runs: the format
//!   name, exactly the descriptor's symbols and arrays, index arrays of
//!   integers, the lengths the conversion reads, every index-array value
//!   inside its declared range (the affine constraints of the range) and the
//!   declared monotonicity; a JSON instance also against every rule of the
//!   source descriptor and its storage, as `spf convert` checks it
//!   ([`rules`]), unless the program runs with `--unchecked`.
//! * The conversion runs `N` times (default 1). Each run is timed with
//!   `clock_gettime(CLOCK_MONOTONIC)` around the allocation of the
//!   statically sized outputs and the call (which allocates the dynamically
//!   sized outputs and every temporary); the outputs of all runs but the
//!   last are freed.
//! * It prints one JSON line on standard output: `{"src": NAME, "dst": NAME,
//!   "nnz": …, "runs": N, "median_seconds": …, "min_seconds": …,
//!   "max_seconds": …, "input_bytes": …, "output_bytes": …}`, where `nnz` is
//!   the number of nonzero values of the source's value array and the byte
//!   counts are 8 bytes per element of the source's and the destination's
//!   arrays.
//! * With `-o OUT.json` it writes the destination instance in the schema of
//!   `Instance::to_json` (keys sorted; names as the destination descriptor
//!   declares them), with `-o OUT.npz` as `spf convert` writes an archive
//!   of the destination, either through a temporary file and a rename.
//! * With `--verify` (`spf build --verify`) the result is compared with the
//!   entries of the input as read — a coordinate file's own entries, not
//!   the source instance built from them — so a step that loses an entry
//!   is caught too.
//! * Errors print one line on standard error and exit with status 2:
//!   `INPUT:LINE:COL: message` for a malformed file.
//!
//! # With a baseline
//!
//! `spf build --baseline FILE.c` links a hand-written conversion
//! ([`Baseline`]): each of the `N` runs then times `convert` and `baseline`
//! one after the other on the same input (the order alternating from run
//! to run), each run's previous output freed before it starts. The JSON
//! line gains `"baseline_median_seconds"`, `"baseline_min_seconds"`,
//! `"baseline_max_seconds"` and `"baseline_output_bytes"`, and
//! `--baseline-output FILE.json` writes the baseline's destination instance
//! as `-o` writes the generated one's. The program does not check the
//! baseline's output: `spf dump DST FILE.json -o FILE.mtx` lists its
//! entries for a comparison with the input (the benchmark applies the
//! oracle).
//!
//! # The source file
//!
//! `#define _POSIX_C_SOURCE` and the headers; the synthesized functions
//! printed by [`codegen::c::emit_c`] (renamed `convert_to_source` and
//! `convert`, so that they cannot clash; the runtime and helpers they share
//! are guarded by `#ifndef`); the driver's runtime ([`push_runtime`]:
//! the generated code's C runtime, once, then `driver_runtime.c`,
//! `driver_memory.c`, `driver_readers.c`, `driver_checks.c`, every name
//! prefixed `drv_`); the glue generated here (format names, the source
//! check, one wrapper per function that maps instance names to parameters);
//! zip archives and gzip (`driver_zip.c`), the `.npz` reader and writer
//! (`driver_npz.c`) and the two layout tables ([`npz`]); and `main`
//! (`driver_main.c`). With a baseline, its file is included
//! after `convert`, declared first with `convert`'s type.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use codegen::ast::LoopProgram;
use codegen::c::{c_parameters_with, emit_c_with};
use codegen::emit::ParamKind;
use codegen::width::{Elem, IndexKind, IndexWidth, IndexWidths, WidthChoice, WidthChoices};
use iegen::computation::{ElemType, Role};
use iegen::{Atom, ConstraintKind, Expr, Monotonicity, Var};
use synth::synthesize::{BindingKind, Side, Synthesized};
use synth::Descriptor;

pub mod build;
pub(crate) mod c_text;
pub(crate) mod npz;
pub(crate) mod rules;

use c_text::{c_str, c_str_list};

use crate::coordinates::CooLayout;
use crate::Error;

/// The driver's runtime: errors and allocation, instances, index widths
/// and fields (`driver_runtime.c`); the memory a program may fill
/// (`driver_memory.c`); the coordinate and JSON readers and the
/// JSON writer (`driver_readers.c`); verification and the checks
/// (`driver_checks.c`).
const RUNTIME: &str = concat!(
    include_str!("../../c/driver_runtime.c"),
    include_str!("../../c/driver_memory.c"),
    include_str!("../../c/driver_readers.c"),
    include_str!("../../c/driver_checks.c")
);
/// Appends the driver's runtime ([`RUNTIME`]) to `out`, after the generated
/// code's C runtime ([`codegen::runtime::C_RUNTIME`], guarded: a file that
/// holds it already keeps one copy), whose radix sort `drv_sort_packed`
/// sorts with: one sort, shared by the conversions and the checks.
pub(crate) fn push_runtime(out: &mut String) {
    out.push_str(codegen::runtime::C_RUNTIME);
    out.push_str(RUNTIME);
}

/// The driver's `main`.
const MAIN: &str = include_str!("../../c/driver_main.c");

/// What programs read gzip and `.npz` archives with, which the checks do
/// not need: zip archives and gzip streams (`driver_zip.c`), then the
/// `.npz` reader and writer (`driver_npz.c`); after the glue, with the
/// layout tables ([`npz::npz_layout`]).
const NPZ: &str = concat!(
    include_str!("../../c/driver_zip.c"),
    include_str!("../../c/driver_npz.c")
);

/// How the program turns a coordinate file into an instance of the source.
pub enum CoordinateInput<'a> {
    /// The source format is this COO layout: coordinates are the instance.
    Direct(CooLayout),
    /// Coordinates become this COO layout, which `to_source` converts.
    Through {
        /// The COO format the coordinates fill.
        coo: CooLayout,
        /// The synthesized COO → source conversion.
        to_source: &'a Synthesized,
    },
    /// The program accepts JSON instances only; the reason is its message
    /// for a coordinate file.
    Unsupported(String),
}

/// The name the program expects the baseline function under.
pub const BASELINE_FUNCTION: &str = "baseline";

/// A hand-written conversion the program times against the generated one
/// (`spf build --baseline FILE.c`): a C file defining [`BASELINE_FUNCTION`]
/// with the parameters of the generated `convert` (`spf synth SRC DST
/// --emit c` shows them; the same array roles: inputs, outputs the program
/// allocates, outputs the function allocates with `malloc`, sizes it
/// returns).
///
/// The program includes the file after `convert` and declares `baseline`
/// with `convert`'s type first, so a signature that differs is a compile
/// error, not a wrong call. Both run in one process on the same input,
/// alternately (which goes first alternates too), so that they meet the
/// same memory, caches and machine state: on a shared virtual machine a
/// process's memory is a draw that moves times by a third between
/// processes, while the ratio of two conversions in one process stays
/// within a few percent.
#[derive(Clone, Debug)]
pub struct Baseline {
    /// The file, absolute (the program includes it by this path).
    path: PathBuf,
}

impl Baseline {
    /// The baseline in `file`.
    ///
    /// # Errors
    ///
    /// [`Error::Read`] when the file cannot be read, [`Error::Input`]
    /// when its path cannot be written in an `#include` (a `"`, a
    /// backslash or a line break in it).
    pub fn new(file: &Path) -> Result<Baseline, Error> {
        let shown = file.display().to_string();
        let read_error = |source| Error::Read {
            path: shown.clone(),
            source,
        };
        std::fs::File::open(file).map_err(read_error)?;
        let path = std::fs::canonicalize(file).map_err(read_error)?;
        let text = path.to_string_lossy();
        if text.contains(['"', '\\', '\n', '\r']) || path.to_str().is_none() {
            return Err(Error::Input {
                file: shown,
                message: "the path cannot be written in a C #include (it has a quote, a \
                          backslash, a line break or is not UTF-8): copy the file elsewhere"
                    .into(),
            });
        }
        Ok(Baseline { path })
    }

    /// The C text that declares the baseline with `convert`'s type and
    /// includes its file.
    fn declaration(&self) -> String {
        format!(
            "/* ----- the baseline, timed against convert ----- */\n\
             /* With convert's type: a baseline whose parameters differ does not compile. */\n\
             __typeof__(convert) {BASELINE_FUNCTION};\n\
             #include \"{}\"\n",
            self.path.display()
        )
    }
}

/// The complete C source of the conversion program for `main` (source →
/// `dst`; `dst` is the destination descriptor as loaded, before synthesis
/// renamed its names apart).
///
/// With `baseline`, a C file that defines `baseline` with the parameters of
/// the generated `convert` (see [`Baseline`]), the program includes that
/// file and times the two alternately.
///
/// # Errors
///
/// [`Error::Internal`] when the synthesized computation cannot be
/// scanned, [`Error::Compiler`] when it cannot be printed as C or names
/// something the driver cannot bind, [`Error::Usage`] for widths the
/// driver does not compile.
pub fn driver_source(
    main: &Synthesized,
    dst: &Descriptor,
    coordinates: &CoordinateInput<'_>,
    baseline: Option<&Baseline>,
    verify: Option<&Verifier<'_>>,
    width: WidthChoices,
) -> Result<String, Error> {
    let src = &main.conversion.src;
    let uniform = |w| vec![IndexWidths::uniform(w)];
    // The widths `convert` is compiled at: with a baseline, whose
    // parameters have one width, auto is 64; positions and coordinates
    // apart, both fixed.
    let widths: Vec<IndexWidths> = match (width.positions, width.coordinates) {
        (WidthChoice::Fixed(p), WidthChoice::Fixed(c)) => vec![IndexWidths {
            positions: p,
            coordinates: c,
        }],
        (WidthChoice::Auto, WidthChoice::Auto) if baseline.is_some() => uniform(IndexWidth::W64),
        (WidthChoice::Auto, WidthChoice::Auto) => {
            vec![
                IndexWidths::uniform(IndexWidth::W64),
                IndexWidths::uniform(IndexWidth::W32),
            ]
        }
        (p, c) => {
            return Err(Error::Usage(format!(
                "spf build compiles positions and coordinates at widths it knows, or picks one \
                 width for both (auto): --pos-width {p} with --crd-width {c} mixes the two; give \
                 both as 32 or 64"
            )))
        }
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "/* Generated by spf build: the conversion {} -> {} and its driver. */",
        src.name, dst.name
    );
    out.push_str(
        "#define _POSIX_C_SOURCE 200809L\n\
         #include <ctype.h>\n#include <errno.h>\n#include <float.h>\n#include <math.h>\n#include <stdarg.h>\n\
         #include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\
         #include <time.h>\n#include <sys/stat.h>\n#include <unistd.h>\n\
         #include <limits.h>\n#ifdef __GLIBC__\n#include <malloc.h>\n#endif\n\n",
    );
    out.push_str(
        "/* An allocation the runtime cannot make is the input's size, not a crash:\n \
         * drv_too_large reports it and exits with status 2. */\n\
         static void drv_too_large(int64_t n, size_t size);\n\
         #define SPF_OUT_OF_MEMORY(n, size) drv_too_large((n), (size))\n\n\
         /* Every allocation is compared with the memory the program may fill\n \
         * first (drv_admit): one that does not fit exits with status 2. */\n\
         static void drv_admit(int64_t n, size_t size, uint64_t bytes);\n\
         static void drv_admit_as(int64_t n, size_t size, uint64_t bytes, int zeroed);\n\
         static uint64_t drv_growth(void *p, uint64_t bytes);\n\
         #define SPF_ADMIT(n, size) drv_admit((n), (size), (uint64_t)((n) > 0 ? (n) : 1) * (size))\n\
         #define SPF_ADMIT_ZEROED(n, size) \\\n    \
         drv_admit_as((n), (size), (uint64_t)((n) > 0 ? (n) : 1) * (size), 1)\n\
         #define SPF_ADMIT_GROWTH(p, n, size) \\\n    \
         drv_admit((n), (size), drv_growth((p), (uint64_t)((n) > 0 ? (n) : 1) * (size)))\n\n\
         /* A size a 32-bit conversion computes that does not fit its indices:\n \
         * drv_index_overflow reports it and exits with status 2. */\n\
         static void drv_index_overflow(const char *what, int64_t n);\n\
         #define SPF_INDEX_OVERFLOW(what, n) drv_index_overflow((what), (n))\n\n\
         /* A stop of the runtime (extents its counting sort cannot count) is\n \
         * the input's, as in spf convert: drv_runtime_stop reports it and exits\n \
         * with status 2. */\n\
         static void drv_runtime_stop(const char *what, int64_t value) __attribute__((noreturn));\n\
         #define SPF_DIE(what, value) drv_runtime_stop((what), (value))\n\n",
    );
    let (check, complete) = source_check(src)?;
    if complete {
        // drv_check_source runs on every input before the conversion does.
        out.push_str(
            "/* The input is checked against the source descriptor (drv_check_source)\n \
             * before the conversion runs: the runtime leaves out its inserts' range\n \
             * checks (the C runtime). */\n#define SPF_INPUT_VALIDATED 1\n\n",
        );
    }
    let pre = match coordinates {
        CoordinateInput::Through { to_source, .. } => {
            let program = renamed_program(to_source, "convert_to_source")?;
            out.push_str(&c_code(
                to_source,
                &program,
                IndexWidths::uniform(IndexWidth::W64),
            )?);
            out.push('\n');
            Some((*to_source, program))
        }
        _ => None,
    };
    // `convert` at the first width, `convert_w32` beside it with auto.
    let mut programs = Vec::new();
    for (k, &w) in widths.iter().enumerate() {
        let name = if k == 0 {
            "convert".to_string()
        } else {
            format!("convert_w{}", w.narrowest())
        };
        let program = renamed_program(main, &name)?;
        out.push_str(&c_code(main, &program, w)?);
        out.push('\n');
        programs.push((program, w));
    }
    if let Some(b) = baseline {
        out.push_str(&b.declaration());
        out.push('\n');
    }
    let mut verify_functions = Vec::new();
    if let Some(v) = verify {
        for (s, name) in [(v.src_to_coo, "src"), (v.dst_to_coo, "dst")] {
            if let Some(s) = s {
                let program = renamed_program(s, &format!("verify_{name}_to_coo"))?;
                out.push_str(&c_code(s, &program, IndexWidths::uniform(IndexWidth::W64))?);
                out.push('\n');
                verify_functions.push((s, program, format!("drv_{name}_to_coo")));
            }
        }
    }
    // The position arrays of each format, by name (the bytes each side
    // moves), and each kind's fixed width (0: the one main picks).
    let positions = |d: &Descriptor| {
        let names: Vec<String> = d
            .ufs
            .iter()
            .filter(|u| d.index_kind(&u.name) == IndexKind::Position)
            .map(|u| c_str(&u.name))
            .chain(["NULL".to_string()])
            .collect();
        names.join(", ")
    };
    let _ = writeln!(
        out,
        "static const char *const drv_src_positions[] = {{{}}};\n\
         static const char *const drv_dst_positions[] = {{{}}};",
        positions(src),
        positions(dst)
    );
    let fixed = |c: WidthChoice| match c {
        WidthChoice::Fixed(w) => w.bits(),
        WidthChoice::Auto if baseline.is_some() => 64,
        WidthChoice::Auto => 0,
    };
    let _ = writeln!(
        out,
        "#define DRV_POS_WIDTH {}\n#define DRV_CRD_WIDTH {}\n",
        fixed(width.positions),
        fixed(width.coordinates)
    );
    push_runtime(&mut out);
    out.push('\n');

    // The glue.
    out.push_str("/* ----- generated glue ----- */\n\n");
    let _ = writeln!(
        out,
        "static const char *const drv_src_format = {};",
        c_str(&src.name)
    );
    let _ = writeln!(
        out,
        "static const char *const drv_dst_format = {};",
        c_str(&dst.name)
    );
    let _ = writeln!(
        out,
        "static const char *const drv_src_values = {};",
        c_str(&src.data_name)
    );
    match coordinates {
        CoordinateInput::Direct(coo) | CoordinateInput::Through { coo, .. } => {
            // What a coordinate file of another order is told: the formats
            // of its order (NULL: none has it).
            out.push_str(
                "static const char *drv_formats_of_order(int order)\n{\n    switch (order) {\n",
            );
            for order in synth::builtin::builtin_orders() {
                let _ = writeln!(
                    out,
                    "    case {order}:\n        return {};",
                    c_str(&synth::builtin::formats_of_order_hint(order))
                );
            }
            out.push_str("    default:\n        return NULL;\n    }\n}\n");
            let _ = writeln!(out, "#define DRV_COORD_ORDER {}", coo.dims.len());
            let _ = writeln!(
                out,
                "#define DRV_HAS_PRE {}",
                i32::from(matches!(coordinates, CoordinateInput::Through { .. }))
            );
            let _ = writeln!(
                out,
                "static const char *const drv_coo_format = {};",
                c_str(&coo.format)
            );
            let _ = writeln!(
                out,
                "static const char *const drv_coo_dims[] = {{{}}};",
                c_str_list(&coo.dims)
            );
            let _ = writeln!(
                out,
                "static const char *const drv_coo_index[] = {{{}}};",
                c_str_list(&coo.index)
            );
            let _ = writeln!(
                out,
                "static const char *const drv_coo_count = {};",
                c_str(&coo.count)
            );
            let _ = writeln!(
                out,
                "static const char *const drv_coo_values = {};\n",
                c_str(&coo.values)
            );
        }
        CoordinateInput::Unsupported(reason) => {
            out.push_str("#define DRV_COORD_ORDER 0\n#define DRV_HAS_PRE 0\n");
            let _ = writeln!(
                out,
                "static const char *const drv_no_coordinates = {};\n",
                c_str(reason)
            );
        }
    }
    out.push_str(&check);
    out.push('\n');
    out.push_str(&rules::rules_check(
        src,
        &synth::representable::Representable::of(dst),
    ));
    out.push('\n');
    if let CoordinateInput::Through { to_source, .. } = coordinates {
        // The coordinates read are checked as `spf convert` checks them:
        // an entry the source cannot store stops the program before the
        // COO → source conversion runs.
        out.push_str(&rules::representable_check(
            &to_source.conversion.src,
            &synth::representable::Representable::of(&to_source.conversion.dst_given),
            "drv_pre",
        ));
        out.push('\n');
    }
    if let Some((s, program)) = &pre {
        // The COO → source conversion's destination is the source format as
        // loaded: its dense names are the source's own.
        out.push_str(&wrapper(
            "drv_to_source",
            s,
            program,
            &dense_names(s, src),
            false,
            IndexWidths::uniform(IndexWidth::W64),
        )?);
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "#define DRV_HAS_BASELINE {}",
        i32::from(baseline.is_some())
    );
    let _ = writeln!(
        out,
        "#define DRV_WIDTH {}",
        match &widths[..] {
            [w] => w.narrowest().bits(),
            _ => 0,
        }
    );
    if let [(program, w)] = &programs[..] {
        out.push_str(&wrapper(
            "drv_convert",
            main,
            program,
            &dense_names(main, dst),
            baseline.is_some(),
            *w,
        )?);
    } else {
        // Auto: a wrapper per width, and the one main picked (drv_width).
        for (program, w) in &programs {
            out.push_str(&wrapper(
                &format!("drv_convert_w{}", w.narrowest()),
                main,
                program,
                &dense_names(main, dst),
                false,
                *w,
            )?);
            out.push('\n');
        }
        out.push_str(
            "static void drv_convert(drv_inst *in, drv_inst *out, double *seconds, const char *ctx)\n\
             {\n    \
             if (drv_width == 32)\n        \
             drv_convert_w32(in, out, seconds, ctx);\n    \
             else\n        \
             drv_convert_w64(in, out, seconds, ctx);\n\
             }\n",
        );
    }
    out.push('\n');
    for (s, program, name) in &verify_functions {
        out.push_str(&wrapper(
            name,
            s,
            program,
            &dense_names(s, &s.conversion.dst_given),
            false,
            IndexWidths::uniform(IndexWidth::W64),
        )?);
        out.push('\n');
    }
    match verify {
        Some(v) => out.push_str(&verify_glue(v)),
        None => out.push_str("#define DRV_VERIFY 0\n\n"),
    }
    out.push_str(NPZ);
    out.push_str("\n/* The .npz layouts of the source and the destination. */\n");
    out.push_str(&npz::npz_layout("drv_src_npz", src));
    out.push_str(&npz::npz_layout("drv_dst_npz", dst));
    out.push('\n');
    out.push_str(MAIN);
    Ok(out)
}

/// What `spf build --verify` compiles in: the source's and the
/// destination's conversions to coordinates, whose nonzero entries the
/// program compares after the conversion (the oracle, in C).
pub struct Verifier<'a> {
    /// The coordinate format both sides are converted to.
    pub coo: CooLayout,
    /// The source → coordinates conversion; `None` when the source is that
    /// coordinate format.
    pub src_to_coo: Option<&'a Synthesized>,
    /// The destination → coordinates conversion; `None` when the
    /// destination is that coordinate format.
    pub dst_to_coo: Option<&'a Synthesized>,
}

/// `drv_verify(src, dst, read, input)`: converts both instances to
/// coordinates (through the wrappers `drv_src_to_coo` / `drv_dst_to_coo`
/// where a side is not coordinates already) and compares their sorted
/// nonzero entries. `read`, when not NULL, holds the entries of the
/// coordinate file the program read and converted to the source: the
/// result is compared with them instead of with the source, so that a
/// step from the file to the source that loses an entry is caught.
fn verify_glue(v: &Verifier<'_>) -> String {
    let mut f = String::new();
    let _ = writeln!(
        f,
        "#define DRV_VERIFY 1\n\
         static const char *const drv_verify_index[] = {{{}}};\n\
         static const char *const drv_verify_count = {};\n\
         static const char *const drv_verify_values = {};\n",
        c_str_list(&v.coo.index),
        c_str(&v.coo.count),
        c_str(&v.coo.values)
    );
    f.push_str(
        "static void drv_verify(drv_inst *src, drv_inst *dst, const drv_inst *read, \
         const char *input)\n{\n    \
         drv_entry *e[2];\n    int64_t n[2];\n    double seconds;\n    \
         static char ctx[512];\n    (void)seconds;\n",
    );
    let order = v.coo.index.len();
    for (k, (side, conversion)) in [("src", v.src_to_coo), ("dst", v.dst_to_coo)]
        .into_iter()
        .enumerate()
    {
        let _ = writeln!(
            f,
            "    snprintf(ctx, sizeof ctx, \"%s: internal error: verifying the {side}\", input);"
        );
        let entries = |inst: &str| {
            format!(
                "drv_sorted_entries({inst}, ctx, {order}, drv_verify_index, drv_verify_count, \
                 drv_verify_values, &n[{k}])"
            )
        };
        if side == "src" {
            // The entries of the file read, when there is one: a step from
            // them to the source that lost an entry is caught too.
            let _ = writeln!(
                f,
                "    if (read != NULL)\n        e[{k}] = {};\n    else",
                entries("read")
            );
        }
        if conversion.is_some() {
            let _ = writeln!(
                f,
                "    {{\n        drv_inst coo;\n        drv_{side}_to_coo({side}, &coo, &seconds, \
                 ctx);\n        e[{k}] = {};\n        drv_inst_free(&coo);\n    }}",
                entries("&coo")
            );
        } else {
            let _ = writeln!(f, "    e[{k}] = {};", entries(side));
        }
    }
    let _ = writeln!(
        f,
        "    drv_compare_entries(e[0], n[0], e[1], n[1], {order}, input);\n    \
         free(e[0]);\n    free(e[1]);\n}}\n"
    );
    f
}

/// The destination's dense symbols as `(destination name, source name)`:
/// the destination's extents take the source's values, by position.
fn dense_names(s: &Synthesized, dst: &Descriptor) -> Vec<(String, String)> {
    dst.dense
        .iter()
        .cloned()
        .zip(s.conversion.src.dense.iter().cloned())
        .collect()
}

/// The scanned computation, with its function renamed.
fn renamed_program(s: &Synthesized, name: &str) -> Result<LoopProgram, Error> {
    let mut program = s.program().map_err(|e| {
        Error::Internal(format!(
            "scanning the synthesized {} -> {} conversion: {e}",
            s.conversion.src.name, s.conversion.dst.name
        ))
    })?;
    program.computation.name = name.to_string();
    Ok(program)
}

fn c_code(s: &Synthesized, program: &LoopProgram, width: IndexWidths) -> Result<String, Error> {
    emit_c_with(program, &s.widths(width)).map_err(|e| {
        Error::Compiler(format!(
            "printing the synthesized {} -> {} conversion as C: {e}",
            s.conversion.src.name, s.conversion.dst.name
        ))
    })
}

/// An affine expression as C, each atom translated by `atom` (`None`:
/// unsupported): `(s0 - y - INT64_C(1))`.
fn c_expr(e: &Expr, atom: &mut dyn FnMut(&Atom) -> Option<String>) -> Option<String> {
    let mut text = String::new();
    let term = |text: &mut String, negative: bool, body: String| {
        match (text.is_empty(), negative) {
            (true, false) => {}
            (true, true) => text.push('-'),
            (false, false) => text.push_str(" + "),
            (false, true) => text.push_str(" - "),
        }
        text.push_str(&body);
    };
    for (a, c) in e.terms() {
        let name = match a {
            Atom::Div(x, m) => format!("drv_floordiv({}, INT64_C({m}))", c_expr(x, atom)?),
            _ => atom(a)?,
        };
        let body = match c.unsigned_abs() {
            1 => name,
            k => format!("INT64_C({k}) * {name}"),
        };
        term(&mut text, c < 0, body);
    }
    let k = e.constant_term();
    if k != 0 || text.is_empty() {
        term(&mut text, k < 0, format!("INT64_C({})", k.unsigned_abs()));
    }
    Some(format!("({text})"))
}

/// `drv_check_source`: the names, index arrays' types, ranges and
/// monotonicity of a source instance. The flag says whether it checks
/// every index array's whole range (a range with existentials or a
/// disjunction, or a term C cannot print, is not checked): only then may
/// the program state `SPF_INPUT_VALIDATED`.
pub(crate) fn source_check(src: &Descriptor) -> Result<(String, bool), Error> {
    let mut complete = true;
    let mut f = String::new();
    f.push_str("static void drv_check_source(drv_inst *x, const char *ctx)\n{\n");
    let syms: Vec<String> = src.symbols.iter().map(|s| c_str(s)).collect();
    let mut arrays: Vec<String> = src.ufs.iter().map(|u| c_str(&u.name)).collect();
    arrays.push(c_str(&src.data_name));
    let _ = writeln!(
        f,
        "    static const char *const syms[] = {{{}}};",
        if syms.is_empty() {
            "NULL".to_string()
        } else {
            syms.join(", ")
        }
    );
    let _ = writeln!(
        f,
        "    static const char *const arrs[] = {{{}}};",
        arrays.join(", ")
    );
    let _ = writeln!(
        f,
        "    drv_check_names(x, ctx, drv_src_format, syms, {}, arrs, {});",
        src.symbols.len(),
        arrays.len()
    );
    let mut locals = BTreeMap::new();
    for (k, s) in src.symbols.iter().enumerate() {
        let _ = writeln!(
            f,
            "    const int64_t s{k} = drv_symbol(x, ctx, {});",
            c_str(s)
        );
        let _ = writeln!(f, "    (void)s{k};");
        if src.dense.contains(s) {
            let _ = writeln!(
                f,
                "    if (s{k} < 0)\n        drv_die(\"%s: symbol `%s` is a dimension of the tensor, so it cannot be negative (%lld)\", ctx, {}, (long long)s{k});",
                c_str(s)
            );
        }
        locals.insert(s.clone(), format!("s{k}"));
    }
    for u in &src.ufs {
        let _ = writeln!(f, "    {{");
        let _ = writeln!(
            f,
            "        const drv_array *a = drv_array_named(x, ctx, {});",
            c_str(&u.name)
        );
        let _ = writeln!(f, "        int64_t k;");
        let _ = writeln!(
            f,
            "        if (a->real)\n            drv_die(\"%s: %s is an index array and must hold integers, but it holds reals\", ctx, a->name);"
        );
        // The range: the affine constraints of a single conjunction,
        // evaluated in 128 bits (`-y + NNZ` leaves 64 bits when `y` is far
        // below 0).
        let mut conds = Vec::new();
        if let [conj] = u.range.conjunctions() {
            if conj.num_exists() == 0 {
                for k in conj.constraints() {
                    let mut atom = |a: &Atom| match a {
                        Atom::Var(Var::Tuple(0)) => Some("(drv_wide)y".to_string()),
                        Atom::Sym(s) => locals.get(s).map(|l| format!("(drv_wide){l}")),
                        _ => None,
                    };
                    if let Some(e) = c_expr(k.expr(), &mut atom) {
                        conds.push(match k.kind() {
                            ConstraintKind::Eq => format!("{e} == 0"),
                            ConstraintKind::Geq => format!("{e} >= 0"),
                        });
                    } else {
                        complete = false;
                    }
                }
            } else {
                complete = false;
            }
        } else {
            complete = false;
        }
        if !conds.is_empty() {
            f.push_str(&first_failing(
                "a->len",
                "const int64_t y = drv_int(a, k);",
                &conds.join(" && "),
                &format!(
                    "drv_range_error(ctx, a->name, k, y, {});",
                    c_str(&u.range.to_string())
                ),
            ));
        }
        if u.domain.arity() == 1 {
            for m in &u.monotonicity {
                let op = match m {
                    Monotonicity::Nondecreasing => "<=",
                    Monotonicity::Increasing => "<",
                    Monotonicity::Nonincreasing => ">=",
                    Monotonicity::Decreasing => ">",
                };
                f.push_str(&first_failing(
                    "a->len - 1",
                    "",
                    &format!("drv_int(a, k) {op} drv_int(a, k + 1)"),
                    &format!("drv_monotone_error(ctx, a, k, {});", c_str(m.keyword())),
                ));
            }
        }
        let _ = writeln!(f, "    }}");
    }
    f.push_str("}\n");
    Ok((f, complete))
}

/// C (in a block that declares `int64_t k`) that runs `fail` at the first
/// `k` in `[0, end)` where `ok` does not hold, after `bind` (declarations
/// `ok` and `fail` use). Each block of `DRV_BLOCK` values is tested
/// without a branch first, which the compiler vectorizes; only a block
/// that fails is searched for its first failing value, so `ok` and `bind`
/// must have no effects.
pub(crate) fn first_failing(end: &str, bind: &str, ok: &str, fail: &str) -> String {
    format!(
        "        {{\n            int64_t b;\n            \
         for (b = 0; b < {end}; b += DRV_BLOCK) {{\n                \
         const int64_t e = {end} - b < DRV_BLOCK ? {end} : b + DRV_BLOCK;\n                \
         int bad = 0;\n                \
         for (k = b; k < e; k++) {{\n                    {bind}\n                    bad |= !({ok});\n                }}\n                \
         if (bad)\n                    \
         for (k = b; k < e; k++) {{\n                        {bind}\n                        \
         if (!({ok}))\n                            {fail}\n                    }}\n            }}\n        }}\n"
    )
}

/// What a parameter of the synthesized function is bound to in the wrapper.
enum Slot {
    /// A value: a source symbol.
    Value(String),
    /// An input array.
    Input(String),
    /// A statically sized output array, allocated by the wrapper.
    Static { local: String, elem: Elem },
    /// An array the function allocates.
    Dynamic { local: String, elem: Elem },
    /// An output scalar.
    Scalar { local: String },
}

/// `static void NAME(drv_inst *in, drv_inst *out, double *seconds, const
/// char *ctx)`: reads the source's symbols and arrays from `in` by their
/// descriptor names, calls the synthesized function (timed, with the
/// allocation of its statically sized outputs), and fills `out` with the
/// destination's instance. `dense` pairs the destination's dense symbols
/// with the source's.
fn wrapper(
    name: &str,
    s: &Synthesized,
    program: &LoopProgram,
    dense: &[(String, String)],
    with_baseline: bool,
    width: IndexWidths,
) -> Result<String, Error> {
    let comp = &program.computation;
    let what = format!("{} -> {}", s.conversion.src.name, s.conversion.dst.name);
    let fail = |message: String| Error::Compiler(format!("the synthesized {what}: {message}"));
    let params = c_parameters_with(program, &s.widths(width)).map_err(|e| fail(e.to_string()))?;
    // 32-bit index arrays: copies of the instance's, made and freed outside
    // the timed region.
    let mut narrowed = Vec::new();
    let binding = |ir: &str| s.bindings.iter().find(|b| b.ir_name == ir);

    let mut f = String::new();
    // With a baseline, `use_baseline` picks the function timed.
    let _ =
        writeln!(
        f,
        "static void {name}(drv_inst *in, drv_inst *out, double *seconds, const char *ctx{})\n{{",
        if with_baseline { ", int use_baseline" } else { "" }
    );
    // Symbols and input scalars first: extents use them.
    let mut values: BTreeMap<String, String> = BTreeMap::new();
    let mut slots: Vec<Option<Slot>> = (0..params.len()).map(|_| None).collect();
    for (k, p) in params.iter().enumerate() {
        let by_value = matches!(
            p.kind,
            ParamKind::Symbol | ParamKind::Scalar { role: Role::In, .. }
        );
        if !by_value {
            continue;
        }
        let b = binding(&p.source)
            .filter(|b| b.side == Side::Source && b.kind == BindingKind::Symbol)
            .ok_or_else(|| {
                fail(format!(
                    "its parameter `{}` is no symbol of {}",
                    p.source, s.conversion.src.name
                ))
            })?;
        let local = format!("v{k}");
        let _ = writeln!(
            f,
            "    const int64_t {local} = drv_symbol(in, ctx, {});",
            c_str(&b.name)
        );
        if let ParamKind::Scalar {
            elem: ElemType::Real,
            ..
        } = p.kind
        {
            return Err(fail(format!(
                "its input scalar `{}` is real; sizes are integers",
                p.source
            )));
        }
        values.insert(p.source.clone(), local.clone());
        slots[k] = Some(Slot::Value(local));
    }
    // Output scalars and dynamically sized arrays: locals.
    for (k, p) in params.iter().enumerate() {
        match &p.kind {
            ParamKind::Scalar { elem, role } if *role != Role::In => {
                if *role == Role::InOut {
                    return Err(fail(format!(
                        "its scalar `{}` is inout; only in and out are supported",
                        p.source
                    )));
                }
                let local = format!("v{k}");
                let _ = writeln!(f, "    {} {local} = 0;", c_type(*elem));
                slots[k] = Some(Slot::Scalar { local });
            }
            ParamKind::DynArray { elem } => {
                let local = format!("v{k}");
                let _ = writeln!(f, "    {} *{local} = NULL;", elem.c_type());
                slots[k] = Some(Slot::Dynamic { local, elem: *elem });
            }
            _ => {}
        }
    }
    // Input arrays, in an order where every extent reads arrays already
    // loaded.
    let mut loaded: BTreeMap<String, (String, String)> = BTreeMap::new();
    loop {
        let mut progress = false;
        let mut pending = Vec::new();
        for (k, p) in params.iter().enumerate() {
            let ParamKind::Array { elem, role } = &p.kind else {
                continue;
            };
            if slots[k].is_some() {
                continue;
            }
            match role {
                Role::In => {}
                Role::Out => {
                    // Sized by symbols only; allocated in the timed region.
                    let local = format!("v{k}");
                    let _ = writeln!(f, "    {} *{local} = NULL;", elem.c_type());
                    slots[k] = Some(Slot::Static { local, elem: *elem });
                    continue;
                }
                _ => {
                    return Err(fail(format!(
                        "its array `{}` is {role:?}; only in and out arrays are supported",
                        p.source
                    )))
                }
            }
            let Some(len) = size_expr(comp, &p.source, &values, &loaded) else {
                pending.push(p.source.clone());
                continue;
            };
            let b = binding(&p.source)
                .filter(|b| b.side == Side::Source && b.kind != BindingKind::Symbol)
                .ok_or_else(|| {
                    fail(format!(
                        "its input `{}` is no array of {}",
                        p.source, s.conversion.src.name
                    ))
                })?;
            let (wide, local, n) = (format!("w{k}"), format!("v{k}"), format!("n{k}"));
            let _ = writeln!(f, "    const int64_t {n} = {len};");
            let _ = match elem {
                Elem::Int(_) => writeln!(
                    f,
                    "    const int64_t *{wide} = drv_ints(in, ctx, {}, {n});",
                    c_str(&b.name)
                ),
                Elem::Real(_) => writeln!(
                    f,
                    "    const double *{local} = drv_reals(in, ctx, {}, {n});",
                    c_str(&b.name)
                ),
            };
            match elem {
                Elem::Int(IndexWidth::W32) => {
                    let _ = writeln!(f, "    int32_t *{local} = drv_to_i32({wide}, {n});");
                    narrowed.push(local.clone());
                }
                Elem::Int(IndexWidth::W64) => {
                    let _ = writeln!(f, "    const int64_t *{local} = {wide};");
                }
                Elem::Real(_) => {}
            }
            if let Elem::Int(_) = elem {
                loaded.insert(p.source.clone(), (wide.clone(), n.clone()));
            }
            slots[k] = Some(Slot::Input(local));
            progress = true;
        }
        if pending.is_empty() {
            break;
        }
        if !progress {
            return Err(fail(format!(
                "cannot size its input{} `{}`: an extent uses something other than symbols and input index arrays",
                if pending.len() == 1 { "" } else { "s" },
                pending.join("`, `")
            )));
        }
    }
    // The statically sized outputs' lengths (before the timed region).
    for (k, p) in params.iter().enumerate() {
        if let Some(Slot::Static { .. }) = &slots[k] {
            let len = size_expr(comp, &p.source, &values, &loaded).ok_or_else(|| {
                fail(format!(
                    "cannot size its output `{}` before the call",
                    p.source
                ))
            })?;
            let _ = writeln!(f, "    const int64_t n{k} = {len};");
        }
    }
    // The timed call.
    f.push_str("    const double t0 = drv_now();\n");
    for (k, slot) in slots.iter().enumerate() {
        if let Some(Slot::Static { local, .. }) = slot {
            let _ = writeln!(f, "    {local} = drv_alloc(n{k}, sizeof *{local});");
        }
    }
    let args: Vec<String> = slots
        .iter()
        .map(|slot| match slot {
            Some(Slot::Value(l)) | Some(Slot::Input(l)) => l.clone(),
            Some(Slot::Static { local, .. }) => local.clone(),
            Some(Slot::Dynamic { local, .. }) | Some(Slot::Scalar { local }) => {
                format!("&{local}")
            }
            None => "NULL".into(),
        })
        .collect();
    if with_baseline {
        let _ = writeln!(
            f,
            "    (use_baseline ? {BASELINE_FUNCTION} : {})({});",
            comp.name,
            args.join(", ")
        );
    } else {
        let _ = writeln!(f, "    {}({});", comp.name, args.join(", "));
    }
    f.push_str("    *seconds = drv_now() - t0;\n");
    f.push_str("    (void)in;\n");
    for local in &narrowed {
        let _ = writeln!(f, "    free({local});");
    }

    // The destination instance.
    let _ = writeln!(
        f,
        "    drv_inst_init(out, {});",
        c_str(&s.conversion.dst.name)
    );
    for (d, from) in dense {
        let _ = writeln!(
            f,
            "    drv_set_symbol(out, {}, drv_symbol(in, ctx, {}));",
            c_str(d),
            c_str(from)
        );
    }
    // Sizes computed by the function: usable in the extents of its outputs.
    let mut sizes = values.clone();
    for (k, p) in params.iter().enumerate() {
        if let Some(Slot::Scalar { local }) = &slots[k] {
            sizes.insert(p.source.clone(), local.clone());
        }
    }
    let mut bound = vec![false; params.len()];
    for b in s.bindings.iter().filter(|b| b.side == Side::Destination) {
        let k = params
            .iter()
            .position(|p| p.source == b.ir_name)
            .ok_or_else(|| {
                fail(format!(
                    "the destination's `{}` (`{}`) is no output of the computation",
                    b.name, b.ir_name
                ))
            })?;
        bound[k] = true;
        match (&slots[k], b.kind) {
            (Some(Slot::Scalar { local }), BindingKind::Symbol) => {
                let _ = writeln!(f, "    drv_set_symbol(out, {}, {local});", c_str(&b.name));
            }
            (Some(Slot::Static { local, elem }), kind) if kind != BindingKind::Symbol => {
                let _ = writeln!(f, "    {};", put(*elem, &b.name, local, &format!("n{k}")));
            }
            (Some(Slot::Dynamic { local, elem }), kind) if kind != BindingKind::Symbol => {
                let len = size_expr(comp, &b.ir_name, &sizes, &loaded).ok_or_else(|| {
                    fail(format!("cannot size its output `{}` after the call", b.ir_name))
                })?;
                let _ = writeln!(f, "    {};", put(*elem, &b.name, local, &len));
            }
            _ => {
                return Err(fail(format!(
                    "the destination's `{}` is bound to `{}`, which is not an output of the matching kind",
                    b.name, b.ir_name
                )))
            }
        }
        if let (
            Some(Slot::Static { elem, .. } | Slot::Dynamic { elem, .. }),
            BindingKind::IndexArray,
        ) = (&slots[k], b.kind)
        {
            if let Elem::Real(_) = *elem {
                return Err(fail(format!(
                    "the destination's index array `{}` is real",
                    b.name
                )));
            }
        }
    }
    // Outputs the destination does not name: freed.
    for (k, slot) in slots.iter().enumerate() {
        if bound[k] {
            continue;
        }
        match slot {
            Some(Slot::Static { local, .. }) | Some(Slot::Dynamic { local, .. }) => {
                let _ = writeln!(f, "    free({local});");
            }
            Some(Slot::Scalar { local }) => {
                let _ = writeln!(f, "    (void){local};");
            }
            _ => {}
        }
    }
    f.push_str("}\n");
    Ok(f)
}

fn c_type(elem: ElemType) -> &'static str {
    match elem {
        ElemType::Int => "int64_t",
        ElemType::Real => "double",
    }
}

/// `drv_put_ints(out, "name", local, len)` or the reals' version; a 32-bit
/// index array widened first (`drv_to_i64`, outside the timed region).
fn put(elem: Elem, name: &str, local: &str, len: &str) -> String {
    let name = c_str(name);
    match elem {
        Elem::Int(IndexWidth::W32) => {
            format!("drv_put_ints(out, {name}, drv_to_i64({local}, {len}), {len})")
        }
        Elem::Int(IndexWidth::W64) => format!("drv_put_ints(out, {name}, {local}, {len})"),
        Elem::Real(_) => format!("drv_put_reals(out, {name}, {local}, {len})"),
    }
}

/// The number of elements of data space `space`, as a C expression over the
/// locals of symbols (and sizes) in `values` and of the index arrays in
/// `arrays` (`(local, length local)`); `None` when an extent uses anything
/// else.
fn size_expr(
    comp: &iegen::computation::Computation,
    space: &str,
    values: &BTreeMap<String, String>,
    arrays: &BTreeMap<String, (String, String)>,
) -> Option<String> {
    let d = comp.space(space)?;
    let mut extents = Vec::new();
    for e in &d.extents {
        // In 128 bits: `NR + 1` leaves 64 when NR is near 2^63.
        let wide = extent_expr(e, values, arrays, true)?;
        extents.push(format!("drv_extent(ctx, {}, {wide})", c_str(space)));
    }
    if extents.is_empty() {
        return Some("1".into());
    }
    Some(format!(
        "drv_size(ctx, {}, {}, (int64_t[]){{{}}})",
        c_str(space),
        extents.len(),
        extents.join(", ")
    ))
}

/// An extent as a C expression, its terms `drv_wide` when `wide` (an
/// index into an array is not).
fn extent_expr(
    e: &Expr,
    values: &BTreeMap<String, String>,
    arrays: &BTreeMap<String, (String, String)>,
    wide: bool,
) -> Option<String> {
    let cast = if wide { "(drv_wide)" } else { "" };
    let mut atom = |a: &Atom| -> Option<String> {
        match a {
            Atom::Sym(s) => values.get(s).map(|v| format!("{cast}{v}")),
            Atom::Uf(name, args) if args.len() == 1 => {
                let (local, len) = arrays.get(name)?;
                let index = extent_expr(&args[0], values, arrays, false)?;
                Some(format!(
                    "{cast}drv_at(ctx, {}, {local}, {len}, {index})",
                    c_str(name)
                ))
            }
            _ => None,
        }
    };
    c_expr(e, &mut atom)
}

#[cfg(test)]
mod tests;
