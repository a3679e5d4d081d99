//! The C program `spf build` writes and compiles: one or two synthesized
//! conversion functions, and a driver that reads the input, times the
//! conversion and writes the result.
//!
//! # The program
//!
//! `BIN INPUT [-o OUT.json] [--repeat N]`:
//!
//! * `INPUT` is a Matrix Market `.mtx` file (coordinate; real, integer or
//!   pattern; general or symmetric, expanded to both triangles; duplicates
//!   summed), a FROSTT `.tns` file, or a JSON instance of the source format
//!   (any other name). Coordinates become an instance of COO (COO3D for three
//!   dimensions) in file order, as `synth::tensor_io` reads them; when the
//!   source format is not that COO format, a second synthesized function
//!   converts COO to the source first, outside the timed region.
//! * The source instance is checked before the conversion runs: the format
//!   name, exactly the descriptor's symbols and arrays, index arrays of
//!   integers, the lengths the conversion reads, every index-array value
//!   inside its declared range (the affine constraints of the range) and the
//!   declared monotonicity; a JSON instance also against every rule of the
//!   source descriptor and its storage, as `spf convert` checks it
//!   ([`super::driver_rules`]), unless the program runs with `--unchecked`.
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
//!   declares them), through a temporary file and a rename.
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
//! are guarded by `#ifndef`); the driver's runtime ([`RUNTIME`]:
//! `driver_runtime.c`, `driver_readers.c`, `driver_checks.c`, every name
//! prefixed `drv_`); the glue generated here (format names, the source
//! check, one wrapper per function that maps instance names to parameters);
//! and `main` (`driver_main.c`). With a baseline, its file is included
//! after `convert`, declared first with `convert`'s type.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use spf::codegen::ast::LoopProgram;
use spf::codegen::c::{c_parameters_with, emit_c_with};
use spf::codegen::emit::ParamKind;
use spf::codegen::width::{Elem, IndexKind, IndexWidth, IndexWidths, WidthChoice, WidthChoices};
use spf::iegen::computation::{ElemType, Role};
use spf::iegen::{Atom, ConstraintKind, Expr, Monotonicity, Var};
use spf::synth::synthesize::{BindingKind, Side, Synthesized};
use spf::synth::Descriptor;

use super::conversion::CooLayout;
use super::error::CliError;

/// The driver's runtime: errors and allocation, instances, index widths
/// and fields (`driver_runtime.c`); the coordinate and JSON readers and the
/// JSON writer (`driver_readers.c`); verification and the checks
/// (`driver_checks.c`).
pub(super) const RUNTIME: &str = concat!(
    include_str!("driver_runtime.c"),
    include_str!("driver_readers.c"),
    include_str!("driver_checks.c")
);
/// The driver's `main`.
const MAIN: &str = include_str!("driver_main.c");

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
    /// [`CliError::Read`] when the file cannot be read, [`CliError::Input`]
    /// when its path cannot be written in an `#include` (a `"`, a
    /// backslash or a line break in it).
    pub fn new(file: &Path) -> Result<Baseline, CliError> {
        let shown = file.display().to_string();
        let read_error = |source| CliError::Read {
            path: shown.clone(),
            source,
        };
        std::fs::File::open(file).map_err(read_error)?;
        let path = std::fs::canonicalize(file).map_err(read_error)?;
        let text = path.to_string_lossy();
        if text.contains(['"', '\\', '\n', '\r']) || path.to_str().is_none() {
            return Err(CliError::Input {
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
/// [`CliError::Usage`] when the synthesized computation cannot be scanned
/// or printed as C, or names something the driver cannot bind.
pub fn driver_source(
    main: &Synthesized,
    dst: &Descriptor,
    coordinates: &CoordinateInput<'_>,
    baseline: Option<&Baseline>,
    verify: Option<&Verifier<'_>>,
    width: WidthChoices,
) -> Result<String, CliError> {
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
            return Err(CliError::Usage(format!(
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
         #include <ctype.h>\n#include <errno.h>\n#include <math.h>\n#include <stdarg.h>\n\
         #include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\
         #include <time.h>\n#include <sys/stat.h>\n#include <unistd.h>\n\
         #include <limits.h>\n#ifdef __GLIBC__\n#include <malloc.h>\n#endif\n\n",
    );
    out.push_str(
        "/* An allocation the runtime cannot make is the input's size, not a crash:\n \
         * drv_too_large reports it and exits with status 2. */\n\
         static void drv_too_large(int64_t n, size_t size);\n\
         #define SPF_OUT_OF_MEMORY(n, size) drv_too_large((n), (size))\n\n\
         /* A size a 32-bit conversion computes that does not fit its indices:\n \
         * drv_index_overflow reports it and exits with status 2. */\n\
         static void drv_index_overflow(const char *what, int64_t n);\n\
         #define SPF_INDEX_OVERFLOW(what, n) drv_index_overflow((what), (n))\n\n",
    );
    let (check, complete) = source_check(src)?;
    if complete {
        // drv_check_source runs on every input before the conversion does.
        out.push_str(
            "/* The input is checked against the source descriptor (drv_check_source)\n \
             * before the conversion runs: the runtime leaves out its inserts' range\n \
             * checks (runtime.h). */\n#define SPF_INPUT_VALIDATED 1\n\n",
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
    out.push_str(RUNTIME);
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
    out.push_str(&super::driver_rules::rules_check(
        src,
        &spf::synth::representable::Representable::of(dst),
    ));
    out.push('\n');
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

/// `drv_verify(src, dst, input)`: converts both instances to coordinates
/// (through the wrappers `drv_src_to_coo` / `drv_dst_to_coo` where a side is
/// not coordinates already) and compares their sorted nonzero entries.
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
        "static void drv_verify(drv_inst *src, drv_inst *dst, const char *input)\n{\n    \
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
fn renamed_program(s: &Synthesized, name: &str) -> Result<LoopProgram, CliError> {
    let mut program = s.program().map_err(|e| {
        CliError::Usage(format!(
            "scanning the synthesized {} -> {} conversion: {e}",
            s.conversion.src.name, s.conversion.dst.name
        ))
    })?;
    program.computation.name = name.to_string();
    Ok(program)
}

fn c_code(s: &Synthesized, program: &LoopProgram, width: IndexWidths) -> Result<String, CliError> {
    emit_c_with(program, &s.widths(width)).map_err(|e| {
        CliError::Usage(format!(
            "printing the synthesized {} -> {} conversion as C: {e}",
            s.conversion.src.name, s.conversion.dst.name
        ))
    })
}

/// C string literals, comma-separated (an array initializer's items).
pub(super) fn c_str_list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| c_str(n))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A C string literal.
pub(super) fn c_str(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'?' => out.push_str("\\?"), // no trigraphs
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
    out.push('"');
    out
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
pub(super) fn source_check(src: &Descriptor) -> Result<(String, bool), CliError> {
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
        // The range: the affine constraints of a single conjunction.
        let mut conds = Vec::new();
        if let [conj] = u.range.conjunctions() {
            if conj.num_exists() == 0 {
                for k in conj.constraints() {
                    let mut atom = |a: &Atom| match a {
                        Atom::Var(Var::Tuple(0)) => Some("y".to_string()),
                        Atom::Sym(s) => locals.get(s).cloned(),
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
pub(super) fn first_failing(end: &str, bind: &str, ok: &str, fail: &str) -> String {
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
) -> Result<String, CliError> {
    let comp = &program.computation;
    let what = format!("{} -> {}", s.conversion.src.name, s.conversion.dst.name);
    let fail = |message: String| CliError::Usage(format!("the synthesized {what}: {message}"));
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
                Elem::Real => writeln!(
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
                Elem::Real => {}
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
            if *elem == Elem::Real {
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
        Elem::Real => format!("drv_put_reals(out, {name}, {local}, {len})"),
    }
}

/// The number of elements of data space `space`, as a C expression over the
/// locals of symbols (and sizes) in `values` and of the index arrays in
/// `arrays` (`(local, length local)`); `None` when an extent uses anything
/// else.
fn size_expr(
    comp: &spf::iegen::computation::Computation,
    space: &str,
    values: &BTreeMap<String, String>,
    arrays: &BTreeMap<String, (String, String)>,
) -> Option<String> {
    let d = comp.space(space)?;
    let mut extents = Vec::new();
    for e in &d.extents {
        extents.push(extent_expr(e, values, arrays)?);
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

fn extent_expr(
    e: &Expr,
    values: &BTreeMap<String, String>,
    arrays: &BTreeMap<String, (String, String)>,
) -> Option<String> {
    let mut atom = |a: &Atom| -> Option<String> {
        match a {
            Atom::Sym(s) => values.get(s).cloned(),
            Atom::Uf(name, args) if args.len() == 1 => {
                let (local, len) = arrays.get(name)?;
                let index = extent_expr(&args[0], values, arrays)?;
                Some(format!(
                    "drv_at(ctx, {}, {local}, {len}, {index})",
                    c_str(name)
                ))
            }
            _ => None,
        }
    };
    c_expr(e, &mut atom)
}

/// Compiles `source` into the executable `output` with the C compiler
/// (`$CC`, else `cc`, else `gcc`, else `clang`) and
/// `-O3 -march=native -std=c99` ([`C_FLAGS`]; on x86-64 also
/// `-mprefer-vector-width=256 -falign-loops=32`), plus `extra` flags. The compiler works in a
/// temporary directory beside `output`; the executable is renamed into
/// place, so `output` appears whole or not at all.
///
/// # Errors
///
/// [`CliError::Usage`] without a compiler or when compilation fails (with
/// the compiler's messages), [`CliError::Write`] when a file cannot be
/// written.
pub fn compile(source: &str, output: &Path, extra: &[&str]) -> Result<(), CliError> {
    compile_with(&find_compiler()?, source, output, extra)
}

/// The optimization flags of every converter (the benchmark compiles its C
/// baselines with the same, bench/build.rs). On x86-64, 256-bit vectors:
/// GCC 12 tuned for AMD Zen 4 otherwise turns indirect stores (DIA's
/// `A_out[ii * ND + index(jj - ii)] = A[n]`) into AVX-512 gathers and
/// scatters that are slower than scalar code there (COO → DIA 12–18%); 256
/// is GCC's own preference for Intel's AVX-512 parts. Loops start on 32-byte
/// boundaries: with GCC's default, where a hot loop fell relative to the
/// instruction fetch blocks moved with the size of unrelated code, and the
/// same C transposition took 0.79 or 1.13 ms on ecology1 (scale 0.05)
/// depending on whether a range check elsewhere in the program was
/// compiled; aligned, the two agree within the machine's noise.
#[cfg(target_arch = "x86_64")]
pub const C_FLAGS: &[&str] = &[
    "-O3",
    "-march=native",
    "-std=c99",
    "-mprefer-vector-width=256",
    "-falign-loops=32",
];
/// The optimization flags of every converter (the benchmark compiles its C
/// baselines with the same, bench/build.rs).
#[cfg(not(target_arch = "x86_64"))]
pub const C_FLAGS: &[&str] = &["-O3", "-march=native", "-std=c99"];

/// [`compile`] with a given compiler command (program and arguments).
pub(super) fn compile_with(
    compiler: &[String],
    source: &str,
    output: &Path,
    extra: &[&str],
) -> Result<(), CliError> {
    let shown = output.display().to_string();
    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "conversion".into());
    // One work directory per call: two threads may build the same output.
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let work = dir.join(format!(".{name}.spf-build-{}-{call}", std::process::id()));
    let write_error = |source| CliError::Write {
        path: shown.clone(),
        source,
    };
    super::output::check_target(output)?;
    std::fs::create_dir(&work).map_err(write_error)?;
    let result = (|| {
        let c_file = work.join("conversion.c");
        std::fs::write(&c_file, source).map_err(write_error)?;
        let binary = work.join("conversion");
        let mut cmd = Command::new(&compiler[0]);
        cmd.args(&compiler[1..])
            .args(C_FLAGS)
            .args(extra)
            .arg("-o")
            .arg(&binary)
            .arg(&c_file)
            .arg("-lm");
        let out = cmd.output().map_err(|e| {
            CliError::Usage(format!("cannot run the C compiler `{}`: {e}", compiler[0]))
        })?;
        if !out.status.success() {
            let messages = String::from_utf8_lossy(&out.stderr);
            let shown_lines: Vec<&str> = messages.lines().take(40).collect();
            return Err(CliError::Usage(format!(
                "the C compiler `{}` failed ({}):\n{}",
                compiler.join(" "),
                out.status,
                shown_lines.join("\n")
            )));
        }
        std::fs::rename(&binary, output).map_err(write_error)
    })();
    let _ = std::fs::remove_dir_all(&work);
    result
}

/// The compiler command: `$CC` (split on whitespace), else the first of
/// `cc`, `gcc`, `clang` that runs.
pub(super) fn find_compiler() -> Result<Vec<String>, CliError> {
    if let Some(cc) = cc_words() {
        return Ok(cc);
    }
    for candidate in DEFAULT_COMPILERS {
        let runs = Command::new(candidate)
            .arg("--version")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if runs {
            return Ok(vec![candidate.to_string()]);
        }
    }
    Err(CliError::Usage(
        "no C compiler found: set CC, or install cc, gcc or clang".into(),
    ))
}

/// The compilers tried, in order, when `$CC` is not set.
const DEFAULT_COMPILERS: [&str; 3] = ["cc", "gcc", "clang"];

/// `$CC`'s words, when it is set and not blank.
fn cc_words() -> Option<Vec<String>> {
    let cc = std::env::var("CC").ok()?;
    let words: Vec<String> = cc.split_whitespace().map(String::from).collect();
    (!words.is_empty()).then_some(words)
}

/// The compiler commands [`find_compiler`] chooses among, in its order of
/// preference, without running any: `$CC` (its words) when it is set and
/// not blank, else `cc`, `gcc` and `clang`. A cached library compiled by
/// one of them is found by its name without starting a compiler.
pub(super) fn compiler_candidates() -> Vec<Vec<String>> {
    match cc_words() {
        Some(cc) => vec![cc],
        None => DEFAULT_COMPILERS
            .iter()
            .map(|c| vec![c.to_string()])
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};
    use std::process::{Command, Output};
    use std::sync::OnceLock;

    use spf::synth::instance::Instance;
    use spf::synth::instance_validation::validate;
    use spf::synth::oracle::{compare, coordinate_entries, entries};
    use spf::synth::tensor_io::{read_file, read_mtx};
    use spf::synth::Descriptor;

    use super::{CliError, WidthChoice, WidthChoices};
    use crate::cli::conversion::build_source;

    use spf::codegen::width::{IndexWidth, IndexWidths};

    const W64: WidthChoices = WidthChoices {
        positions: WidthChoice::Fixed(IndexWidth::W64),
        coordinates: WidthChoice::Fixed(IndexWidth::W64),
    };
    const AUTO: WidthChoices = WidthChoices {
        positions: WidthChoice::Auto,
        coordinates: WidthChoice::Auto,
    };
    use crate::cli::conversion::testing::hand_made;

    /// Flags that keep the driver honest: the program must compile without
    /// a warning.
    const STRICT: &[&str] = &["-Wall", "-Wextra", "-pedantic", "-Werror"];

    fn format(name: &str) -> Descriptor {
        spf::synth::builtin::load_format(name).expect("built-in format")
    }

    fn data(name: &str) -> PathBuf {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/synth/tests/data")).join(name)
    }

    /// A test matrix of the repository; a missing file fails the test.
    fn matrix(name: &str) -> PathBuf {
        let path =
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/matrices")).join(name);
        assert!(path.is_file(), "test matrix {} is missing", path.display());
        path
    }

    fn dir() -> &'static Path {
        static DIR: OnceLock<PathBuf> = OnceLock::new();
        DIR.get_or_init(|| {
            let d = std::env::temp_dir().join(format!("spf-driver-{}", std::process::id()));
            std::fs::create_dir_all(&d).expect("temp dir");
            d
        })
    }

    /// The program of a synthesized pair, without a baseline or `--verify`.
    fn synthesized_source(src: &Descriptor, dst: &Descriptor) -> String {
        build_source(
            src,
            dst,
            &crate::cli::conversion::synthesize_pair,
            None,
            false,
            AUTO,
        )
        .expect("a program")
        .0
    }

    /// Builds the program of a hand-made pair once per test process.
    fn built(src: &str, dst: &str) -> PathBuf {
        static BUILT: OnceLock<std::sync::Mutex<BTreeMap<String, PathBuf>>> = OnceLock::new();
        let cache = BUILT.get_or_init(Default::default);
        let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
        let key = format!("{src}_{dst}");
        if let Some(p) = cache.get(&key) {
            return p.clone();
        }
        let (sd, dd) = (format(src), format(dst));
        let (source, note) =
            build_source(&sd, &dd, &hand_made, None, false, AUTO).expect("a program");
        assert!(note.is_none(), "{note:?}");
        std::fs::write(dir().join(format!("{key}.c")), &source).expect("write");
        let bin = dir().join(&key);
        super::compile(&source, &bin, STRICT).expect("compiles without warnings");
        cache.insert(key, bin.clone());
        bin
    }

    /// Runs a program, glibc filling what `malloc` returns with a pattern:
    /// an output element the program does not write is not zero by chance.
    fn run(bin: &Path, args: &[&str]) -> Output {
        Command::new(bin)
            .args(args)
            .env("MALLOC_PERTURB_", "165")
            .output()
            .expect("runs")
    }

    fn text(bytes: &[u8]) -> String {
        String::from_utf8_lossy(bytes).into_owned()
    }

    /// Runs a program with `-o`, checks its JSON line, and returns the
    /// destination instance it wrote.
    fn convert(bin: &Path, input: &Path, extra: &[&str]) -> (serde_json::Value, Instance) {
        let name = input.file_name().expect("a file").to_string_lossy();
        let bin_name = bin.file_name().expect("a file").to_string_lossy();
        let out_json = dir().join(format!("{bin_name}-{name}.out.json"));
        let mut args = vec![input.to_str().expect("utf-8"), "-o"];
        args.push(out_json.to_str().expect("utf-8"));
        args.extend_from_slice(extra);
        let out = run(bin, &args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        assert_eq!(stdout.lines().count(), 1, "{stdout}");
        let line: serde_json::Value = serde_json::from_str(&stdout).expect("a JSON line");
        for key in [
            "nnz",
            "runs",
            "median_seconds",
            "min_seconds",
            "max_seconds",
        ] {
            assert!(line[key].is_number(), "{key} in {stdout}");
        }
        let inst = Instance::from_json(&std::fs::read_to_string(&out_json).expect("written"))
            .expect("the schema of Instance::to_json");
        (line, inst)
    }

    /// The coordinates of a file, read by spf's reader.
    fn file_entries(path: &Path) -> BTreeMap<Vec<i64>, f64> {
        coordinate_entries(&read_file(path, None).expect("readable"))
    }

    /// Asserts that `inst` is a valid instance of `dst` holding exactly
    /// `want`'s entries (the oracle); `what` names the case in a failure.
    fn assert_holds(dst: &Descriptor, inst: &Instance, want: &BTreeMap<Vec<i64>, f64>, what: &str) {
        validate(dst, inst).unwrap_or_else(|e| panic!("{what}: {e}"));
        compare(want, &entries(dst, inst).expect("readable"))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
    }

    #[test]
    fn coo_to_csr_on_real_matrices_agrees_with_the_oracle_and_the_interpreter() {
        let bin = built("coo", "csr");
        let csr = format("csr");
        let coo = format("coo");
        for m in [
            data("small.mtx"),
            matrix("pores_1.mtx"),
            matrix("jgl009.mtx"),
            matrix("lund_a.mtx"),
            matrix("1138_bus.mtx"),
            matrix("bp_200.mtx"),
            matrix("can_1072.mtx"),
            matrix("balanced_tree_2_10.mtx"),
            matrix("circulant_1000_1_2_3.mtx"),
            matrix("bcsstm24.mtx"),
            matrix("dwt_2680.mtx"),
        ] {
            let (line, inst) = convert(&bin, &m, &[]);
            let want = file_entries(&m);
            assert_holds(&csr, &inst, &want, &m.display().to_string());
            assert_eq!(line["nnz"], want.len(), "{}", m.display());
            assert_eq!(line["runs"], 1);
            assert_eq!(line["src"], "COO");
            assert_eq!(line["dst"], "CSR");
            // The interpreter gives exactly the same instance.
            if std::fs::metadata(&m).expect("exists").len() < 50_000 {
                let mut interpreted = crate::cli::conversion::convert_file(
                    &coo,
                    &csr,
                    &m,
                    &hand_made,
                    &crate::cli::engine::Runner::interp(),
                )
                .expect("converted");
                // The interpreter ran at 64 bits, the program (auto) at 32.
                assert_eq!(
                    inst.index_width,
                    Some(IndexWidths::uniform(IndexWidth::W32))
                );
                interpreted.index_width = inst.index_width;
                assert_eq!(interpreted, inst, "{}", m.display());
            }
        }
    }

    #[test]
    fn a_source_that_is_not_coo_is_read_through_a_second_conversion() {
        let bin = built("csr", "coo");
        let coo = format("coo");
        let m = matrix("lund_a.mtx");
        let (line, inst) = convert(&bin, &m, &["--repeat", "3"]);
        assert_eq!(line["runs"], 3);
        assert!(line["min_seconds"].as_f64() <= line["median_seconds"].as_f64());
        assert!(line["median_seconds"].as_f64() <= line["max_seconds"].as_f64());
        assert_holds(&coo, &inst, &file_entries(&m), "COO");
        // A JSON instance of the source, in any layout spf's reader accepts.
        let json = std::fs::read_to_string(data("csr_small.json")).expect("read");
        let value: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        let compact = dir().join("compact.json");
        std::fs::write(&compact, serde_json::to_string(&value).expect("text")).expect("w");
        let pretty = dir().join("pretty.json");
        let reordered = json
            .replace(
                "\"A\": [1.5, 2.0, -3.0, 4.0, 0.25]",
                "\"A\": [1.5, 2, -3, 4e0, 25E-2]",
            )
            .replace(
                "{\"NC\": 4, \"NNZ\": 5, \"NR\": 4}",
                "{ \"NR\" : 4 ,\"NNZ\":5,\n\"NC\":4 }",
            );
        std::fs::write(&pretty, reordered).expect("w");
        let want = Instance {
            format: "COO".into(),
            symbols: [("NR", 4), ("NC", 4), ("NNZ", 5)]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            arrays: [
                (
                    "row",
                    spf::synth::instance::Values::Int(vec![0, 0, 2, 2, 3]),
                ),
                (
                    "col",
                    spf::synth::instance::Values::Int(vec![1, 3, 0, 2, 3]),
                ),
                (
                    "A",
                    spf::synth::instance::Values::Real(vec![1.5, 2.0, -3.0, 4.0, 0.25]),
                ),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
            index_width: None,
        };
        for input in [data("csr_small.json"), compact, pretty] {
            let (line, mut inst) = convert(&bin, &input, &[]);
            // The program (auto) ran at 32 bits and says so.
            assert_eq!(
                inst.index_width,
                Some(IndexWidths::uniform(IndexWidth::W32))
            );
            inst.index_width = None;
            assert_eq!(inst, want, "{}", input.display());
            assert_eq!(line["nnz"], 5);
        }
    }

    #[test]
    fn edge_cases_of_coordinates() {
        let bin = built("coo", "csr");
        let csr = format("csr");
        for (name, content) in EDGE_CASES {
            let path = dir().join(name);
            std::fs::write(&path, content).expect("write");
            let (line, inst) = convert(&bin, &path, &[]);
            let coords = read_mtx(content.as_bytes()).expect("valid");
            let want = coordinate_entries(&coords);
            assert_holds(&csr, &inst, &want, name);
            // Explicit zeros are stored entries; `nnz` counts nonzero values.
            assert_eq!(inst.symbols["NNZ"], coords.len() as i64, "{name}");
            assert_eq!(line["nnz"], want.len(), "{name}");
        }
    }

    /// Coordinate files at the edges: no entries, duplicates, a symmetric
    /// pattern, integers, one entry, a rectangle with empty rows and
    /// columns and a row longer than the others.
    const EDGE_CASES: [(&str, &str); 6] = [
        ("empty.mtx", "%%MatrixMarket matrix coordinate real general\n2 3 0\n"),
        (
            "dups.mtx",
            "%%matrixmarket MATRIX Coordinate Real General\r\n% comment\r\n\r\n3 3 4\r\n1 1 1.5D+02\r\n3 2 -1\r\n1 1 2\n2 2 0\n",
        ),
        (
            "sym.mtx",
            "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n2 1\n3 3\n3 1\n",
        ),
        (
            "int.mtx",
            "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 -7\n2 1 +9007199254740993\n",
        ),
        (
            "tiny.mtx",
            "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 0.1\n",
        ),
        (
            "rect.mtx",
            "%%MatrixMarket matrix coordinate real general\n5 4 5\n1 4 1\n5 1 2\n5 3 3\n5 2 -4\n5 4 5\n",
        ),
    ];

    /// ELL from CSR pads each row right after its entries, ELL from CSC
    /// zero-fills first: both agree with the oracle on the edge cases and
    /// on real matrices, and under AddressSanitizer and UBSan (no padding
    /// written outside its row, or past the array).
    #[test]
    fn padded_rows_agree_with_the_oracle() {
        let mut inputs: Vec<PathBuf> = EDGE_CASES
            .iter()
            .map(|(name, content)| {
                let path = dir().join(format!("padded_{name}"));
                std::fs::write(&path, content).expect("write");
                path
            })
            .collect();
        inputs.extend([
            data("small.mtx"),
            matrix("jgl009.mtx"),
            matrix("bp_200.mtx"),
        ]);
        for src in ["csr", "csc"] {
            let (sd, dd) = (format(src), format("ell"));
            let source = synthesized_source(&sd, &dd);
            assert_eq!(
                source.contains("SPF_KEEP_LOOPS void convert("),
                src == "csr",
                "{src} -> ELL"
            );
            let sanitize = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"];
            for (tag, flags) in [("strict", STRICT), ("sanitized", &sanitize[..])] {
                let bin = dir().join(format!("{src}_ell_padded_{tag}"));
                super::compile(&source, &bin, flags).expect("compiles");
                for m in &inputs {
                    let (_, inst) = convert(&bin, m, &[]);
                    let what = format!("{tag} {src} -> ELL, {}", m.display());
                    assert_holds(&dd, &inst, &file_entries(m), &what);
                }
            }
        }
    }

    /// Malformed coordinate files: the program's message is spf's, with the
    /// file name in front, and no output file appears.
    #[test]
    fn malformed_coordinates_are_reported_like_spf() {
        let bin = built("coo", "csr");
        let banner = "%%MatrixMarket matrix coordinate real general\n";
        let cases: Vec<(String, String)> = [
            ("no_banner", "1 1 1\n1 1 1\n".to_string()),
            ("empty", String::new()),
            ("array", "%%MatrixMarket matrix array real general\n".into()),
            (
                "vector",
                "%%MatrixMarket vector coordinate real general\n".into(),
            ),
            (
                "complex",
                "%%MatrixMarket matrix coordinate complex general\n".into(),
            ),
            (
                "hermitian",
                "%%MatrixMarket matrix coordinate real hermitian\n".into(),
            ),
            (
                "skew",
                "%%MatrixMarket matrix coordinate real Skew-Symmetric\n".into(),
            ),
            ("short_banner", "%%MatrixMarket matrix coordinate\n".into()),
            (
                "extra_banner",
                "%%MatrixMarket matrix coordinate real general x\n".into(),
            ),
            ("no_size", format!("{banner}% only a comment\n")),
            ("size_fields", format!("{banner}2 2\n")),
            ("size_extra", format!("{banner}2 2 1 4\n")),
            ("negative", format!("{banner}2 -2 1\n")),
            (
                "not_square",
                "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n".into(),
            ),
            ("zero_index", format!("{banner}2 2 1\n0 1 1\n")),
            ("big_index", format!("{banner}2 2 1\n1 3 1\n")),
            (
                "overflow",
                format!("{banner}2 2 1\n99999999999999999999 1 1\n"),
            ),
            ("not_int", format!("{banner}2 2 1\n1.0 1 1\n")),
            ("no_column", format!("{banner}2 2 1\n1\n")),
            ("no_value", format!("{banner}2 2 1\n1 1\n")),
            ("bad_value", format!("{banner}2 2 1\n1 1 x1\n")),
            ("nan", format!("{banner}2 2 1\n1 1 NaN\n")),
            ("huge", format!("{banner}2 2 1\n1 1 1e999\n")),
            ("extra_field", format!("{banner}2 2 1\n1 1 1 1\n")),
            ("too_many", format!("{banner}2 2 1\n1 1 1\n2 2 2\n")),
            ("too_few", format!("{banner}2 2 3\n1 1 1\n2 2 2")),
            (
                "pattern_extra",
                "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 5\n".into(),
            ),
            (
                "symmetric_mirror",
                "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 1\n3 3 2\n1 2 3\n"
                    .into(),
            ),
            (
                "skew_diagonal",
                "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 2 1\n".into(),
            ),
            (
                "array_short",
                "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n".into(),
            ),
            (
                "array_pattern",
                "%%MatrixMarket matrix array pattern general\n2 2\n".into(),
            ),
            (
                "array_extra",
                "%%MatrixMarket matrix array integer symmetric\n2 2\n1 2\n".into(),
            ),
        ]
        .into_iter()
        .map(|(n, c)| (n.to_string(), c))
        .collect();
        let target = dir().join("never.json");
        for (name, content) in &cases {
            let path = dir().join(format!("bad_{name}.mtx"));
            std::fs::write(&path, content).expect("write");
            let err = read_mtx(content.as_bytes()).expect_err(name);
            let out = run(
                &bin,
                &[
                    path.to_str().expect("utf-8"),
                    "-o",
                    target.to_str().expect("utf-8"),
                ],
            );
            assert_eq!(out.status.code(), Some(2), "{name}");
            assert_eq!(
                text(&out.stderr),
                format!("{}:{err}\n", path.display()),
                "{name}"
            );
            assert!(out.stdout.is_empty(), "{name}");
            assert!(!target.exists(), "{name}");
        }
        // The shared malformed matrix.
        let wrong = matrix("wrong.mtx");
        let out = run(&bin, &[wrong.to_str().expect("utf-8")]);
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            text(&out.stderr),
            format!(
                "{}:3:1: row index 0 is out of range 1..=2: Matrix Market indices are 1-based, \
                 and this one looks 0-based\n",
                wrong.display()
            )
        );
        // FROSTT: a 3-D file for a 2-D format, 0-based indices, ragged lines.
        let tns = [
            ("three", "1 1 1 1.5\n"),
            ("zero", "0 1 1.5\n"),
            ("ragged", "1 1 1.5\n1 1 1 2\n"),
            ("lonely", "5\n"),
        ];
        for (name, content) in tns {
            let path = dir().join(format!("bad_{name}.tns"));
            std::fs::write(&path, content).expect("write");
            let out = run(&bin, &[path.to_str().expect("utf-8")]);
            assert_eq!(out.status.code(), Some(2), "{name}");
            let stderr = text(&out.stderr);
            match spf::synth::tensor_io::read_tns(content.as_bytes(), None) {
                Err(e) => assert_eq!(stderr, format!("{}:{e}\n", path.display()), "{name}"),
                Ok(_) => assert_eq!(
                    stderr,
                    format!(
                        "{}: the input has 3 dimensions but COO has 2\n",
                        path.display()
                    )
                ),
            }
        }
        // Skew-symmetric and array files read as spf's reader reads them.
        for (name, content) in [
            (
                "skew",
                "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1.5\n3 1 -2\n",
            ),
            (
                "array",
                "%%MatrixMarket matrix array real symmetric\n3 3\n1\n0\n2\n4\n0\n5\n",
            ),
        ] {
            let path = dir().join(format!("{name}.mtx"));
            std::fs::write(&path, content).expect("write");
            let (_, inst) = convert(&bin, &path, &[]);
            let want = coordinate_entries(&read_mtx(content.as_bytes()).expect("valid"));
            let csr = spf::synth::builtin::load_format("csr").expect("built-in");
            let got = entries(&csr, &inst).expect("readable");
            assert_eq!(got, want, "{name}");
        }
        // A 2-D FROSTT file is fine.
        let path = dir().join("two.tns");
        std::fs::write(&path, "2 3 1.5\n1 1 -2 # comment\n").expect("write");
        let (_, inst) = convert(&bin, &path, &[]);
        assert_eq!(inst.symbols["NR"], 2);
        assert_eq!(inst.symbols["NC"], 3);
        // A missing file.
        let out = run(&bin, &["/nonexistent/file.mtx"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(text(&out.stderr).starts_with("/nonexistent/file.mtx: "));
    }

    /// JSON instances that are malformed or violate the source descriptor.
    #[test]
    fn invalid_json_instances_are_rejected() {
        let bin = built("csr", "coo");
        let good = std::fs::read_to_string(data("csr_small.json")).expect("read");
        let cases = [
            ("syntax", good.replace("\"NR\": 4}", "\"NR\": 4,}"), "3:"),
            (
                "trailing",
                format!("{good} x"),
                "invalid JSON: trailing characters",
            ),
            (
                "monotone",
                good.replace("[0, 2, 2, 4, 5]", "[0, 3, 2, 4, 5]"),
                "rowptr is not nondecreasing",
            ),
            (
                "range",
                good.replace("[1, 3, 0, 2, 3]", "[1, 3, 0, 2, 4]"),
                "col[4] = 4 is outside its range {[y] : 0 <= y < NC}",
            ),
            (
                "length",
                good.replace("[1, 3, 0, 2, 3]", "[1, 3, 0, 2]"),
                "col has 4 values but its domain {[x] : 0 <= x < NNZ} needs 5",
            ),
            (
                "format",
                good.replace("\"CSR\"", "\"COO\""),
                "the instance is of format `COO`, not `CSR`",
            ),
            (
                "unknown",
                good.replace("\"A\":", "\"B\": [], \"A\":"),
                "`B` is not an array of CSR",
            ),
            (
                "missing",
                good.replace("\"NNZ\": 5, ", ""),
                "symbol `NNZ` has no value",
            ),
            (
                "reals",
                good.replace("[1, 3, 0, 2, 3]", "[1, 3, 0.5, 2, 3]"),
                "col is an index array and must hold integers",
            ),
            (
                "key",
                good.replace("\"format\"", "\"fmt\""),
                "at `fmt`: unknown key",
            ),
            (
                "string",
                good.replace("[1, 3, 0, 2, 3]", "[1, 3, \"0\", 2, 3]"),
                "expected a number, found a string",
            ),
            (
                "symbol",
                good.replace("\"NR\": 4", "\"NR\": 4.5"),
                "at `symbols.NR`: expected an integer",
            ),
        ];
        let target = dir().join("never_json.json");
        for (name, content, expected) in cases {
            let path = dir().join(format!("bad_{name}.json"));
            std::fs::write(&path, &content).expect("write");
            let out = run(
                &bin,
                &[
                    path.to_str().expect("utf-8"),
                    "-o",
                    target.to_str().expect("utf-8"),
                ],
            );
            assert_eq!(out.status.code(), Some(2), "{name}");
            let stderr = text(&out.stderr);
            assert!(
                stderr.starts_with(&format!("{}:", path.display())),
                "{name}: {stderr}"
            );
            assert!(stderr.contains(expected), "{name}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
            assert!(!target.exists(), "{name}");
            // spf agrees that the instance is not a valid CSR instance.
            let rust = Instance::from_json(&content)
                .map_err(|e| e.to_string())
                .and_then(|i| validate(&format("csr"), &i).map_err(|e| e.to_string()));
            assert!(rust.is_err(), "{name}");
        }
    }

    #[test]
    fn command_line_errors() {
        let bin = built("coo", "csr");
        let small = data("small.mtx");
        let small = small.to_str().expect("utf-8");
        for (args, expected) in [
            (vec![], "missing INPUT"),
            (
                vec![small, "--repeat", "0"],
                "--repeat needs a positive integer",
            ),
            (vec![small, "--repeat"], "--repeat needs a number"),
            (vec![small, "-o"], "-o needs a file name"),
            (vec![small, "--frobnicate"], "unknown option `--frobnicate`"),
            (vec![small, small], "only one INPUT"),
        ] {
            let out = run(&bin, &args);
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            assert!(
                text(&out.stderr).contains(expected),
                "{args:?}: {}",
                text(&out.stderr)
            );
        }
        let out = run(&bin, &["--help"]);
        assert!(out.status.success());
        assert!(text(&out.stdout).contains("usage:"));
        // Without -o nothing is written, the JSON line is printed.
        let out = run(&bin, &[small, "--repeat=2"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let line: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(line["runs"], 2);
        // An output in a missing directory: an error, no partial file.
        let out = run(&bin, &[small, "-o", "/nonexistent/dir/out.json"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            text(&out.stderr).contains("cannot write"),
            "{}",
            text(&out.stderr)
        );
    }

    /// `-o` on a special file (a FIFO here, `/dev/null` in practice) writes
    /// into it instead of renaming a temporary file over it.
    #[test]
    fn special_output_files_are_written_in_place() {
        let bin = built("coo", "csr");
        let fifo = dir().join("fifo");
        let made = Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            return; // no mkfifo here: nothing to check
        }
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).expect("read the FIFO"))
        };
        let out = run(
            &bin,
            &[
                data("small.mtx").to_str().expect("utf-8"),
                "-o",
                fifo.to_str().expect("utf-8"),
            ],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        let written = reader.join().expect("reader");
        assert!(Instance::from_json(&written).is_ok(), "{written}");
        use std::os::unix::fs::FileTypeExt;
        let kind = std::fs::metadata(&fifo).expect("exists").file_type();
        assert!(kind.is_fifo());
    }

    /// When COO → source cannot be synthesized, the program takes JSON only.
    #[test]
    fn without_a_conversion_from_coo_the_program_reads_json_only() {
        let no_coo = |s: &Descriptor, d: &Descriptor| {
            if s.name == "COO" {
                Err(crate::cli::error::CliError::Usage("no COO today".into()))
            } else {
                hand_made(s, d)
            }
        };
        let (source, note) =
            build_source(&format("csr"), &format("coo"), &no_coo, None, false, W64).expect("ok");
        let note = note.expect("a note");
        assert!(note.contains("no COO today"), "{note}");
        let bin = dir().join("json_only");
        super::compile(&source, &bin, STRICT).expect("compiles");
        let out = run(&bin, &[data("small.mtx").to_str().expect("utf-8")]);
        assert_eq!(out.status.code(), Some(2));
        assert!(text(&out.stderr).contains("coordinate files are not accepted"));
        let (_, inst) = convert(&bin, &data("csr_small.json"), &[]);
        validate(&format("coo"), &inst).expect("valid");
    }

    /// `spf build --verify`: the program converts its input and its result
    /// to coordinates and compares them; a wrong result (here a hand-made
    /// COO → CSR that adds 1 to every value) exits with status 3 and writes
    /// no output file, a right one reports `"verified": true`.
    #[test]
    fn verify_catches_a_wrong_result_before_writing_it() {
        use spf::iegen::computation::parse_computation;
        let wrong = |s: &Descriptor, d: &Descriptor| {
            let mut c = hand_made(s, d)?;
            if s.name == "COO" {
                let text = crate::cli::conversion::testing::COO_CSR
                    .replace("A_out(p) = A(src(p))", "A_out(p) = A(src(p)) + 1.0");
                c.computation = parse_computation(&text).expect("parses");
            }
            Ok(c)
        };
        let input = matrix("pores_1.mtx");
        let input = input.to_str().expect("utf-8");
        for (name, synth, wrong_result) in [
            (
                "verify_right",
                &hand_made as &crate::cli::conversion::Synthesizer,
                false,
            ),
            ("verify_wrong", &wrong, true),
        ] {
            let (source, _) = build_source(&format("coo"), &format("csr"), synth, None, true, W64)
                .expect("a program");
            assert!(source.contains("drv_dst_to_coo"), "CSR is converted back");
            let bin = dir().join(name);
            super::compile(&source, &bin, STRICT).expect("compiles without warnings");
            let out_json = dir().join(format!("{name}.json"));
            let _ = std::fs::remove_file(&out_json);
            let out = run(&bin, &[input, "-o", out_json.to_str().expect("utf-8")]);
            if wrong_result {
                assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
                let err = text(&out.stderr);
                assert!(err.contains("verification failed: the entry ("), "{err}");
                assert!(err.contains("in the input but"), "{err}");
                assert!(!out_json.exists(), "nothing is written");
            } else {
                assert!(out.status.success(), "{}", text(&out.stderr));
                assert!(text(&out.stdout).contains("\"verified\": true"));
                assert!(out_json.exists());
            }
        }
    }

    /// A hand-written COO → CSR with the hand-made computation's
    /// parameters: counting by rows, columns in input order within a row.
    const COO_CSR_BASELINE: &str = "
void baseline(int64_t NR, int64_t NC, int64_t NNZ, const int64_t *row, const int64_t *col,
              const double *A, int64_t *NNZ_out, int64_t *rowptr, int64_t **col_out,
              double **A_out)
{
    int64_t i, n;
    (void)NC;
    memset(rowptr, 0, (size_t)(NR + 1) * sizeof *rowptr);
    *col_out = malloc((size_t)(NNZ > 0 ? NNZ : 1) * sizeof **col_out);
    *A_out = malloc((size_t)(NNZ > 0 ? NNZ : 1) * sizeof **A_out);
    for (n = 0; n < NNZ; n++)
        rowptr[row[n] + 1]++;
    for (i = 0; i < NR; i++)
        rowptr[i + 1] += rowptr[i];
    for (n = 0; n < NNZ; n++) {
        const int64_t q = rowptr[row[n]]++;
        (*col_out)[q] = col[n];
        (*A_out)[q] = A[n];
    }
    for (i = NR; i > 0; i--)
        rowptr[i] = rowptr[i - 1];
    rowptr[0] = 0;
    *NNZ_out = NNZ;
}
";

    /// Builds the hand-made COO → CSR with `baseline_text` as its baseline.
    fn built_with_baseline(name: &str, baseline_text: &str) -> Result<PathBuf, CliError> {
        let file = dir().join(format!("{name}.c"));
        std::fs::write(&file, baseline_text).expect("write");
        let baseline = super::Baseline::new(&file)?;
        let (source, _) = build_source(
            &format("coo"),
            &format("csr"),
            &hand_made,
            Some(&baseline),
            false,
            AUTO,
        )?;
        assert!(source.contains(&format!("#include \"{}\"", baseline.path.display())));
        let bin = dir().join(format!("{name}-program"));
        super::compile(&source, &bin, STRICT)?;
        Ok(bin)
    }

    #[test]
    fn a_baseline_is_timed_beside_the_conversion_and_writes_its_output() {
        let bin = built_with_baseline("coo-csr-baseline", COO_CSR_BASELINE).expect("builds");
        let input = matrix("pores_1.mtx");
        let b_json = dir().join("coo-csr-baseline.b.json");
        let (line, inst) = convert(
            &bin,
            &input,
            &[
                "--repeat",
                "4",
                "--baseline-output",
                b_json.to_str().expect("utf-8"),
            ],
        );
        assert_eq!(line["runs"], 4);
        for key in [
            "baseline_median_seconds",
            "baseline_min_seconds",
            "baseline_max_seconds",
        ] {
            assert!(
                line[key].as_f64().is_some_and(|t| t >= 0.0),
                "{key}: {line}"
            );
        }
        assert!(line["baseline_min_seconds"].as_f64() <= line["baseline_median_seconds"].as_f64());
        assert_eq!(line["baseline_output_bytes"], line["output_bytes"]);
        let b = Instance::from_json(&std::fs::read_to_string(&b_json).expect("written"))
            .expect("the schema of Instance::to_json");
        let csr = format("csr");
        let want = file_entries(&input);
        for got in [&inst, &b] {
            compare(&want, &entries(&csr, got).expect("readable")).expect("the input's entries");
        }
        // The same destination symbols (the baseline's NNZ_out, the
        // source's extents).
        assert_eq!(b.symbols, inst.symbols);
        // Without a baseline the option is unknown.
        let plain = built("coo", "csr");
        let out = run(
            &plain,
            &[
                input.to_str().expect("utf-8"),
                "--baseline-output",
                "x.json",
            ],
        );
        assert_eq!(out.status.code(), Some(2));
        assert!(text(&out.stderr).contains("unknown option `--baseline-output`"));
    }

    #[test]
    fn a_baseline_with_other_parameters_or_no_file_is_an_error() {
        let wrong = COO_CSR_BASELINE.replace("int64_t *rowptr", "int32_t *rowptr");
        let e = built_with_baseline("coo-csr-wrong-baseline", &wrong).unwrap_err();
        let message = e.to_string();
        assert!(message.contains("conflicting types for"), "{message}");
        assert!(message.contains("baseline"), "{message}");
        let e = super::Baseline::new(&dir().join("no-such-baseline.c")).unwrap_err();
        assert!(
            e.to_string().contains("no-such-baseline.c: No such file"),
            "{e}"
        );
    }

    #[test]
    fn compiler_problems_are_clear_errors() {
        let bin = dir().join("never");
        let e = super::compile_with(&["/nonexistent/cc".to_string()], "", &bin, &[]).unwrap_err();
        assert!(
            e.to_string()
                .contains("cannot run the C compiler `/nonexistent/cc`"),
            "{e}"
        );
        let e = super::compile("int main(void) { return nope; }", &bin, &[]).unwrap_err();
        assert!(e.to_string().contains("nope"), "{e}");
        assert!(!bin.exists());
        // No temporary directory is left behind.
        let left: Vec<_> = std::fs::read_dir(dir())
            .expect("dir")
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains("never.spf-build"))
            .collect();
        assert!(left.is_empty());
    }

    /// The program states `SPF_INPUT_VALIDATED` (the runtime leaves out
    /// its inserts' range checks) exactly when `drv_check_source` checks
    /// every index array's range: for every built-in format, not for a
    /// range with a disjunction, which the check does not print.
    #[test]
    fn input_validation_is_stated_only_when_every_range_is_checked() {
        for name in spf::synth::builtin::builtin_names() {
            let (check, complete) = super::source_check(&format(name)).expect("a check");
            assert!(complete, "{name}: {check}");
        }
        let text =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/descriptors/csr.desc"))
                .expect("read")
                .replace(
                    "uf col : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < NC};",
                    "uf col : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < 2 || 4 <= y < NC};",
                );
        let odd = spf::synth::descriptor_file::parse_descriptor(&text).expect("parses");
        let (check, complete) = super::source_check(&odd).expect("a check");
        assert!(!complete, "{check}");
        let (source, _) =
            build_source(&format("csr"), &format("coo"), &hand_made, None, false, W64)
                .expect("a program");
        assert!(source.contains("#define SPF_INPUT_VALIDATED 1"));
        let (source, _) =
            build_source(&odd, &format("coo"), &hand_made, None, false, W64).expect("a program");
        assert!(!source.contains("SPF_INPUT_VALIDATED 1"), "{source}");
    }

    /// The transpositions' placing loops (and CSC -> ELL's slot loop) look
    /// ahead where the entries are out of cache and written to many lines
    /// at a time (`spf_scatter_far`, docs/runtime.md). With
    /// `SPF_LOOKAHEAD_BYTES` and `SPF_LOOKAHEAD_LINES` 0 every run takes
    /// that loop: the results agree with the oracle with the input
    /// validated (the prefetches unchecked) and without (checked), and
    /// under AddressSanitizer and UBSan (the keys read ahead, near the end
    /// of the array too, are read in bounds). With the first alone, the
    /// write streams are counted on sampled keys (in bounds too), and the
    /// loop they choose agrees as well.
    #[test]
    fn lookahead_loops_agree_with_the_oracle() {
        let validated = "#define SPF_INPUT_VALIDATED 1";
        for (src, dst) in [("csr", "csc"), ("csc", "csr"), ("csc", "ell")] {
            let (sd, dd) = (format(src), format(dst));
            let source = synthesized_source(&sd, &dd);
            assert!(
                source.contains("if (SPF_UNLIKELY(spf_scatter_far(&"),
                "{src} -> {dst}"
            );
            assert!(source.contains(validated), "{src} -> {dst}");
            let checked = source.replace(validated, "");
            let sanitize = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"];
            let always = ["-DSPF_LOOKAHEAD_BYTES=0", "-DSPF_LOOKAHEAD_LINES=0"];
            for (tag, text, sanitized, defines) in [
                ("validated", &source, false, &always[..]),
                ("checked", &checked, false, &always[..]),
                ("sanitized", &source, true, &always[..]),
                // The write streams counted on the keys (spf_scatter_lines).
                ("sampled", &source, true, &always[..1]),
            ] {
                let bin = dir().join(format!("{src}_{dst}_lookahead_{tag}"));
                // Not -Werror under the sanitizers: with them GCC 12 warns
                // of bounds its inlining cannot rule out (spf_copy's
                // unrolled cases past the permutation's arity).
                let mut flags = if sanitized {
                    sanitize.to_vec()
                } else {
                    STRICT.to_vec()
                };
                flags.extend(defines);
                super::compile(text, &bin, &flags).expect("compiles without warnings");
                for m in [
                    data("small.mtx"),
                    matrix("jgl009.mtx"),
                    matrix("lund_a.mtx"),
                    matrix("bp_200.mtx"),
                    matrix("dwt_2680.mtx"),
                ] {
                    let (_, inst) = convert(&bin, &m, &[]);
                    let what = format!("{tag} {src} -> {dst}, {}", m.display());
                    assert_holds(&dd, &inst, &file_entries(&m), &what);
                }
            }
        }
    }

    #[test]
    fn c_expressions() {
        use spf::iegen::Expr;
        let mut atom = |a: &spf::iegen::Atom| match a {
            spf::iegen::Atom::Sym(s) => Some(s.to_lowercase()),
            _ => None,
        };
        let e = Expr::sym("N")
            .add_scaled(&Expr::sym("M"), -2)
            .plus(&Expr::constant(-1));
        assert_eq!(
            super::c_expr(&e, &mut atom).as_deref(),
            Some("(-INT64_C(2) * m + n - INT64_C(1))")
        );
        assert_eq!(
            super::c_expr(&Expr::constant(0), &mut atom).as_deref(),
            Some("(INT64_C(0))")
        );
        assert_eq!(super::c_expr(&Expr::call("f", vec![]), &mut atom), None);
        assert_eq!(
            super::c_expr(
                &Expr::floor_div(&Expr::sym("N").plus(&Expr::constant(1)), 2),
                &mut atom
            )
            .as_deref(),
            Some("(drv_floordiv((n + INT64_C(1)), INT64_C(2)))")
        );
        assert_eq!(super::c_str("a\"b\\c?\n"), "\"a\\\"b\\\\c\\?\\012\"");
    }
}
