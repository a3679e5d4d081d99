//! The C backend: a loop program as one C99 function.
//!
//! [`emit_c`] prints the loop AST with the statement bodies inlined:
//!
//! ```c
//! void spmv(int64_t N, int64_t M, int64_t NNZ, const int64_t *restrict rowptr,
//!           const int64_t *restrict col, const double *restrict A,
//!           const double *restrict x, double *restrict y)
//! {
//!     for (int64_t i = 0; i < N; i++) {
//!         for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {
//!             const int64_t j = col[k];
//!             /* S0 */
//!             y[i] += A[k] * x[j];
//!         }
//!     }
//! }
//! ```
//!
//! Conventions (see [`emit_c`] for the full list): symbols are `int64_t`
//! parameters, data spaces are `restrict` pointers (`const` for inputs),
//! multi-dimensional spaces are linearized row-major, temporaries are
//! allocated with `calloc` and freed at the end. Runtime objects
//! (`P.insert(i, j)`) call the C runtime of [`crate::runtime`], printed once
//! before the function. The code compiles with
//! `cc -std=c99 -O3 -Wall -Wextra -pedantic -Werror`.

use std::collections::HashMap;
use std::fmt::Write as _;

use iegen::computation::{BinOp, ElemType, Role, UpdateOp};

use crate::ast::LoopProgram;
use crate::emit::{
    lin, lower, print, print_conds, print_place, reads_any, stores_rising, Action, Code, Dialect,
    EmitError, InitOrder, LNode, Lang, Lookahead, Lowered, Namer, ObjectInit, ParamKind, Parameter,
    Prec, Ty, Used, P,
};
use crate::runtime::{Method, ObjectKind, C_RUNTIME};
use crate::width::{ValueType, Widths};

mod counted;
mod lookups;
mod outline;
mod pointer_counters;

use outline::Frame;

/// Prints `program` as a C99 function named after the computation.
///
/// The function is
/// `void NAME(int64_t N, ..., const double *restrict A, double *restrict y, ...)`:
///
/// * the symbols first, as `int64_t`, in the computation's order;
/// * then every data space that is not a temporary, in declaration order:
///   an `in` array as `const T *restrict`, an `out` or `inout` array as
///   `T *restrict`, an `in` scalar by value, an `out` or `inout` scalar as
///   `T *restrict` (written through `*s`); `int` is `int64_t`, `real` is
///   `double`;
/// * names are kept as in the computation, except C keywords and the names
///   the generated code itself uses (`free`, `abort`, ...), which get a
///   trailing `_` ([`c_parameters`] gives the final names).
///
/// An `out` array sized by the computation (its extents use size spaces,
/// [`crate::dynamic`]) is an `int64_t **` / `double **` parameter: the
/// function allocates it (`*a = calloc(...)`, zeroed) right before the first
/// top-level node touching it and the caller frees it; its size spaces must
/// not change afterwards. When that node is a loop that assigns the
/// array's elements below its bound before reading any
/// (`Lowered::written_prefix`), only the rest is zeroed
/// (`spf_alloc_prefix`). A two-dimensional one that node fills row by row
/// from each row's start (`Lowered::rows_from_start`, ELL from CSR) is not
/// zeroed at allocation: each row's padding is zeroed right after its
/// entries (`Lowered::pad_rows`), and the function is marked
/// `SPF_KEEP_LOOPS`, so that the compiler does not turn each row's copy and
/// padding into library calls. Such `temp` arrays are allocated at the
/// same point and freed at the end.
///
/// Temporaries are allocated inside (zeroed with `calloc`, freed at the end;
/// scalars as zero-initialized locals). A multi-dimensional data space is one
/// row-major array: `A(i, j)` with extents `[N, M]` is `A[i * M + j]`.
/// Index arrays (UF calls) are array reads: `rowptr(i + 1)` is
/// `rowptr[i + 1]`. Each statement instance is its body with the
/// statement's iterators replaced by their values, preceded by a comment
/// naming the statement. `min`/`max` and floor/ceiling divisions (correct for
/// negative numerators) use small `static inline` helpers, emitted only when
/// used and guarded by `#ifndef` so that several generated functions can
/// share one file. A loop's upper bound is evaluated once, before the first
/// iteration, as in the Rust backend and the interpreter.
///
/// Runtime objects ([`crate::runtime`], `docs/runtime.md`) are local
/// variables of the runtime's types, created at the start of the function
/// (`spf_perm P = spf_perm_new(2, SPF_COUNTING, (int64_t[]){N, M});`) and
/// freed at the end; calls are the runtime's functions
/// (`spf_perm_insert(&P, (int64_t[]){row[n], col[n]});`, `spf_perm_map(&P, e)`,
/// `k = spf_scatter_place(&B, col[n]);`; `place_inserted` is
/// `spf_scatter_place_inserted`, whose positions `spf_scatter_free` does not
/// check). A permutation whose inserted key components are input arrays
/// read at the entry numbers (`Lowered::perm_views`) is told so right after
/// its creation (`spf_perm_view(&P, 2, (const int64_t *const[]){row, col});`),
/// and the runtime then stores no keys.
/// A loop that only copies a scatter's prefix sums into an `out` pointer
/// array (`Lowered::scatter_starts_into`) is left out: the scatter sorts
/// into that array (`spf_scatter_sort_into(&B, colptr);`), which then needs
/// no zero fill either.
/// The runtime ([`C_RUNTIME`]) is printed before the function, guarded by
/// `#ifndef SPF_RUNTIME_H`, when the function calls an object. Objects the
/// function never calls are not created.
///
/// # Errors
///
/// [`EmitError::Object`] and [`EmitError::Call`] for runtime objects the
/// runtime does not provide or calls it does not accept, and the other
/// [`EmitError`]s for programs that do not fit their computation (unknown
/// names, writes to inputs, ...).
pub fn emit_c(program: &LoopProgram) -> Result<String, EmitError> {
    emit_c_with(program, &Widths::default())
}

/// [`emit_c`] with the index arrays the function takes and returns stored
/// at `widths` (`int32_t` or `int64_t`, [`crate::width`]). A 32-bit element
/// is read as `(int64_t)a[i]` and stored by C's conversion; a function with
/// 32-bit arrays first checks that each symbol fits 32 bits, and the
/// length of each array it sizes before it allocates it
/// (`spf_fits_i32(what, n)`: `SPF_INDEX_OVERFLOW(what, n)`, which must
/// not return, when it does not fit; by default a message and `abort`).
/// Its runtime objects keep 64-bit values: a permutation reads 32-bit keys
/// in place as it reads 64-bit ones (`spf_perm_view32`, where all the
/// viewed arrays are 32-bit), and a scatter sorted into a 32-bit pointer
/// array writes it beside its own sums (`spf_scatter_sort_into_i32`).
///
/// # Errors
///
/// As [`emit_c`].
pub fn emit_c_with(program: &LoopProgram, widths: &Widths) -> Result<String, EmitError> {
    let mut low = lower(program, Lang::C, widths)?;

    // Temporaries: extents first (their symbols count as used).
    let mut temps = Vec::new();
    for (s, d) in low.comp.spaces.iter().enumerate() {
        if d.role == Role::Temp && (low.read[s] || low.written[s]) {
            let extents = low.extents(s)?;
            temps.push((s, extents));
        }
    }

    // `out` data spaces start at zero: the computation defines them whole.
    let mut outs = Vec::new();
    for (s, d) in low.comp.spaces.iter().enumerate() {
        if d.role == Role::Out && (low.read[s] || low.written[s]) && low.alloc_at[s].is_none() {
            let extents = low.extents(s)?;
            outs.push((s, extents));
        }
    }

    // Arrays sized by the computation: allocated before the top-level node
    // `alloc_at` gives (out: always, it is returned; temp: when used).
    let mut dynamic = Vec::new();
    for (s, d) in low.comp.spaces.iter().enumerate() {
        if let Some(at) = low.alloc_at[s] {
            if d.role == Role::Out || low.read[s] || low.written[s] {
                let extents = low.extents(s)?;
                // The scatter whose placed positions the allocation's node
                // writes the array at, if any (zero fill after, not before).
                dynamic.push((s, at, extents, low.placed_by(s)));
            }
        }
    }

    // Two-dimensional arrays filled row by row from each row's start (ELL
    // from compressed rows): each row's padding is zeroed right after its
    // entries, not the whole array at allocation. One padding loop per row
    // loop, for all its arrays.
    // Later loops first: a padding loop shifts the nodes after it.
    let mut padded = low.row_fills(
        dynamic
            .iter()
            .filter(|(_, _, _, placed)| placed.is_none())
            .map(|(s, _, extents, _)| (*s, extents.as_slice())),
    );
    padded.retain(|(at, fill, spaces)| low.pad_rows(*at, fill, spaces));
    // Rows are short: a library call per row for its copy or its padding
    // costs more than the row (docs/computations.md).
    let keep_loops = !padded.is_empty();
    let padded: Vec<usize> = padded.into_iter().flat_map(|(_, _, s)| s).collect();

    // Loops that place entries with a scatter, keyed by an array at their
    // variable: looked ahead in where the entries are out of cache
    // (docs/runtime.md). Per top-level node: the plan, the keys' extents,
    // each target with its extents.
    let mut lookaheads = HashMap::new();
    for t in 0..low.body.len() {
        if let Some(plan) = low.scatter_lookahead(t) {
            let keys = low.extents(plan.keys)?;
            let mut targets = Vec::new();
            for &(s, _) in &plan.targets {
                targets.push((s, low.extents(s)?));
            }
            if targets.iter().all(|(_, e)| !e.is_empty()) {
                lookaheads.insert(t, (plan, keys, targets));
            }
        }
    }

    // Runtime objects in use: their constructor arguments count as uses.
    let mut objects = Vec::new();
    for o in low.used_objects() {
        let init = low.object_init(o)?;
        objects.push((o, init));
    }

    // Scatters whose prefix sums are computed in the `out` array a loop
    // would copy them to: that loop is left out.
    // An array the sort fills whole (extent `E + 1`) needs no zero fill.
    let mut sort_into = HashMap::new();
    let mut left_out = HashMap::new();
    let mut filled_by_sort = Vec::new();
    let mut in_array = HashMap::new();
    let mut placing_loops = Vec::new();
    for (o, init) in &objects {
        if let ObjectInit::Scatter { extent } = init {
            if let Some((array, node)) = low.scatter_starts_into(*o, extent) {
                let whole = [lin(vec![(1, extent.clone())], 1)];
                if outs
                    .iter()
                    .any(|(s, e)| *s == array && e.as_slice() == whole)
                {
                    filled_by_sort.push(array);
                }
                // A 32-bit array is written beside the scatter's own sums,
                // or, filled whole by the sort and placed into by one
                // loop, holds its counters (pointer_counters.rs).
                let suffix = if low.narrow(array) { "_i32" } else { "" };
                let whole = filled_by_sort.contains(&array);
                let (array, object) = (&low.spaces[array], &low.objects[*o]);
                if let (true, "_i32", Some(t)) = (
                    whole,
                    suffix,
                    pointer_counters::placing_loop(&low, *o, node),
                ) {
                    in_array.insert(*o, array.clone());
                    placing_loops.push((t, *o));
                }
                sort_into.insert(*o, (array.clone(), suffix));
                left_out.insert(
                    node,
                    format!(
                        "/* {array} holds {object}'s prefix sums: the sort computed them there */"
                    ),
                );
            }
        }
    }
    let dialect = CDialect {
        low: &low,
        used: Used::default(),
        in_array,
    };
    if keep_loops {
        dialect.used.add("spf_loops_kept");
    }
    // Stores that several iterations make to one element: vectorized, a
    // scatter whose lanes collide (docs/computations.md).
    let scalar_stores = stores_rising(&low.body, true);
    if scalar_stores {
        dialect.used.add("spf_scalar_loops");
    }
    // Ordered sets that a counting permutation's first component counts:
    // no inserts, sorted from the permutation's counts.
    let counted: HashMap<usize, usize> = objects
        .iter()
        .filter_map(|(o, _)| Some((*o, counted::counted_set(&low, *o)?)))
        .collect();
    // What a loop printed as a function of its own takes (outline.rs).
    let params = low.parameters();
    let frame = Frame {
        params: params.clone(),
        objects: objects
            .iter()
            .map(|(o, _)| {
                let ty = match low.specs[*o].kind {
                    ObjectKind::Permutation { .. } => "spf_perm",
                    ObjectKind::OrderedSet { .. } => "spf_oset",
                    ObjectKind::Scatter { .. } => "spf_scatter",
                };
                (low.objects[*o].clone(), ty)
            })
            .collect(),
        temps: temps
            .iter()
            .map(|(s, e)| {
                let ty = c_type(low.comp.spaces[*s].elem, low.values);
                (low.spaces[*s].clone(), ty, e.is_empty())
            })
            .collect(),
        prefix: if keep_loops { "SPF_KEEP_LOOPS " } else { "" },
        around: scalar_stores.then_some(("SPF_SCALAR_STORES_BEGIN", "SPF_SCALAR_STORES_END")),
    };
    let mut w = Writer {
        d: &dialect,
        namer: low.namer.clone(),
        out: String::new(),
        depth: 1,
        sort_into,
        counted,
        ahead: None,
        loops: Vec::new(),
        gathers: HashMap::new(),
        frame: &frame,
        functions: Vec::new(),
    };

    for (s, extents) in &temps {
        let d = &low.comp.spaces[*s];
        let name = &low.spaces[*s];
        let ty = c_type(d.elem, low.values);
        if low.alloc_at[*s].is_some() {
            w.line(&format!("{ty} *{name} = NULL;"));
        } else if extents.is_empty() {
            let zero = c_zero(d.elem, low.values);
            w.line(&format!("{ty} {name} = {zero};"));
        } else {
            dialect.used.add("spf_len");
            let len = product(&dialect, extents);
            w.line(&format!(
                "{ty} *restrict {name} = calloc(spf_len({len}), sizeof *{name});"
            ));
            w.line(&format!("if ({name} == NULL) abort();"));
        }
    }
    for (s, extents) in &outs {
        if filled_by_sort.contains(s) {
            continue;
        }
        let name = &low.spaces[*s];
        let zero = c_zero(low.comp.spaces[*s].elem, low.values);
        if extents.is_empty() {
            w.line(&format!("*{name} = {zero};"));
        } else {
            let len = product(&dialect, extents);
            w.line(&format!(
                "for (int64_t spf_z = 0; spf_z < {len}; spf_z++) {name}[spf_z] = {zero};"
            ));
        }
    }
    for (o, init) in &objects {
        let line = object_init(&dialect, *o, init);
        w.line(&line);
        // The inserted key components are these arrays' elements at the
        // entry numbers: the runtime reads them there, all 64-bit
        // (`spf_perm_view`) or all 32-bit (`spf_perm_view32`); arrays of
        // both widths are copied by insert.
        let views = low.perm_views(*o).and_then(|a| {
            let narrow = a.iter().filter(|&&s| low.narrow(s)).count();
            match narrow {
                0 => Some((a, "spf_perm_view", "int64_t")),
                n if n == a.len() => Some((a, "spf_perm_view32", "int32_t")),
                _ => None,
            }
        });
        if let Some((arrays, call, elem)) = views {
            let names: Vec<&str> = arrays.iter().map(|&s| low.spaces[s].as_str()).collect();
            w.line(&format!(
                "{call}(&{}, {}, (const {elem} *const[]){{{}}});",
                low.objects[*o],
                names.len(),
                names.join(", ")
            ));
        }
    }
    // The top-level nodes, with the allocations of the arrays sized by the
    // computation before them (their size spaces are final from there on).
    // An array sized by the computation as C names it: its length, the
    // pointer (`*a` for an `out` one, passed as `T **a`) and an element.
    let sized = |s: usize, extents: &[Code]| {
        let name = &low.spaces[s];
        let len = product(&dialect, extents);
        if low.comp.spaces[s].role == Role::Out {
            (len, format!("*{name}"), format!("**{name}"))
        } else {
            (len, name.clone(), format!("*{name}"))
        }
    };
    for t in 0..=low.body.len() {
        for (s, at, extents, placed) in &dynamic {
            if *at != t {
                continue;
            }
            dialect.used.add("spf_len");
            let (len, place, size) = sized(*s, extents);
            if low.any_narrow() && low.comp.spaces[*s].role == Role::Out {
                // Its positions are below its length: they must fit too.
                dialect.used.add("spf_fits_i32");
                w.line(&format!(
                    "spf_fits_i32(\"the length of the output {}\", {len});",
                    low.comp.spaces[*s].name
                ));
            }
            // No zero fill where the next loop writes the positions a
            // scatter hands out (the others are zeroed after it), or
            // zeroes each row's padding after its entries.
            let zeroed_later = if placed.is_some() {
                Some("zeroed where not placed after the loop")
            } else if padded.contains(s) {
                Some("each row's padding zeroed after its entries")
            } else {
                None
            };
            if low.comp.spaces[*s].role == Role::Out {
                // A result the caller takes: allocated by `spf_alloc_out`,
                // which a program embedding the function may replace.
                for helper in ["spf_alloc_prefix", "spf_alloc_out"] {
                    dialect.used.add(helper);
                }
                let (written, note) = match (zeroed_later, low.written_prefix(*s)) {
                    (Some(how), _) => (len.clone(), format!("; {how}")),
                    (None, Some(upper)) => (print(&dialect, upper).text, String::new()),
                    (None, None) => ("0".to_string(), String::new()),
                };
                w.line(&format!(
                    "{place} = spf_alloc_out({len}, sizeof {size}, {written}); /* sized by the computation{note} */"
                ));
                w.line(&format!("if ({place} == NULL) abort();"));
                continue;
            }
            if let Some(how) = zeroed_later {
                dialect.used.add("spf_alloc_prefix");
                w.line(&format!(
                    "{place} = spf_alloc_prefix({len}, sizeof {size}, {len}); /* sized by the computation; {how} */"
                ));
                w.line(&format!("if ({place} == NULL) abort();"));
                continue;
            }
            match low.written_prefix(*s) {
                Some(upper) => {
                    // The next loop assigns the elements below `upper`
                    // first: only the rest is zeroed.
                    dialect.used.add("spf_alloc_prefix");
                    let upper = print(&dialect, upper).text;
                    w.line(&format!(
                        "{place} = spf_alloc_prefix({len}, sizeof {size}, {upper}); /* sized by the computation */"
                    ));
                }
                None => w.line(&format!(
                    "{place} = calloc(spf_len({len}), sizeof {size}); /* sized by the computation */"
                )),
            }
            w.line(&format!("if ({place} == NULL) abort();"));
        }
        if let Some(node) = low.body.get(t) {
            if let Some(note) = left_out.get(&t) {
                w.line(note);
            } else {
                // A scatter that counts in its pointer array: the
                // counters shifted back into the starts after the loop
                // placing its entries (pointer_counters.rs).
                let counted = placing_loops
                    .iter()
                    .find(|(p, _)| *p == t)
                    .map(|&(_, o)| low.objects[o].clone());
                if let Some((plan, keys, targets)) = lookaheads.get(&t) {
                    lookahead_versions(&mut w, t, node, plan, keys, targets);
                } else {
                    w.node(node, t + 1 == low.body.len() && counted.is_none());
                }
                if let Some(object) = &counted {
                    w.line(&format!("spf_scatter_placed(&{object});"));
                }
            }
        }
        for (s, at, extents, placed) in &dynamic {
            if let (true, Some(o)) = (*at == t, placed) {
                let (len, place, size) = sized(*s, extents);
                w.line(&format!(
                    "spf_scatter_zero_unplaced(&{}, {place}, sizeof {size}, {len});",
                    low.objects[*o]
                ));
            }
        }
    }
    for (o, _) in objects.iter().rev() {
        let free = match low.specs[*o].kind {
            ObjectKind::Permutation { .. } => "spf_perm_free",
            ObjectKind::OrderedSet { .. } => "spf_oset_free",
            ObjectKind::Scatter { .. } => "spf_scatter_free",
        };
        w.line(&format!("{free}(&{});", low.objects[*o]));
    }
    for (s, extents) in temps.iter().rev() {
        let name = &low.spaces[*s];
        if extents.is_empty() {
            if !low.read[*s] {
                w.line(&format!("(void){name};"));
            }
        } else {
            w.line(&format!("free({name});"));
        }
    }
    let body = w.out;
    let functions = w.functions;
    let mut unused = String::new();
    for p in &params {
        let used = match low.comp.symbols.iter().position(|s| *s == p.source) {
            Some(k) if p.kind == ParamKind::Symbol => low.sym_used[k],
            _ => low
                .comp
                .spaces
                .iter()
                .position(|d| d.name == p.source)
                .is_some_and(|s| low.read[s] || low.written[s] || low.alloc_at[s].is_some()),
        };
        if !used {
            let _ = writeln!(unused, "    (void){}; /* unused */", p.name);
        }
    }

    // 32-bit arrays: the sizes their values are bounded by fit 32 bits.
    let mut entry_checks = String::new();
    if low.any_narrow() {
        dialect.used.add("spf_fits_i32");
        for p in params.iter().filter(|p| p.kind == ParamKind::Symbol) {
            let _ = writeln!(
                entry_checks,
                "    spf_fits_i32(\"the symbol {}\", {});",
                p.source, p.name
            );
        }
    }

    let mut out = String::new();
    let _ = writeln!(
        out,
        "/* Generated by spf from the computation `{}`. */",
        low.comp.name
    );
    out.push_str("#include <stdint.h>\n");
    if !temps.iter().all(|(_, e)| e.is_empty()) || !dynamic.is_empty() {
        out.push_str("#include <stdlib.h>\n");
    }
    if dialect.used.contains("math") {
        out.push_str("#include <math.h>\n");
    }
    if dialect.used.contains("spf_alloc_prefix") {
        out.push_str("#include <string.h>\n");
    }
    if dialect.used.contains("spf_fits_i32") {
        out.push_str("#include <stdio.h>\n#include <stdlib.h>\n");
    }
    out.push('\n');
    if !objects.is_empty() {
        out.push_str(C_RUNTIME);
        out.push('\n');
    }
    for (name, text) in HELPERS {
        if dialect.used.contains(name) {
            let guard = name.to_ascii_uppercase();
            let _ = writeln!(out, "#ifndef {guard}\n#define {guard}\n{text}\n#endif\n");
        }
    }
    for f in &functions {
        out.push_str(f);
        out.push('\n');
    }
    if keep_loops {
        out.push_str("SPF_KEEP_LOOPS ");
    }
    if scalar_stores {
        out.push_str("SPF_SCALAR_STORES_BEGIN\n");
    }
    out.push_str(&signature(&low.function, &params, low.values));
    out.push_str("\n{\n");
    out.push_str(&entry_checks);
    out.push_str(&unused);
    out.push_str(&body);
    out.push_str("}\n");
    if scalar_stores {
        out.push_str("SPF_SCALAR_STORES_END\n");
    }
    Ok(out)
}

/// The parameters of the function [`emit_c`] prints, in order, with their C
/// names.
///
/// # Errors
///
/// As [`emit_c`].
pub fn c_parameters(program: &LoopProgram) -> Result<Vec<Parameter>, EmitError> {
    c_parameters_with(program, &Widths::default())
}

/// The parameters of the function [`emit_c_with`] prints at `widths`.
///
/// # Errors
///
/// As [`emit_c`].
pub fn c_parameters_with(
    program: &LoopProgram,
    widths: &Widths,
) -> Result<Vec<Parameter>, EmitError> {
    Ok(lower(program, Lang::C, widths)?.parameters())
}

const HELPERS: &[(&str, &str)] = &[
    (
        "spf_loops_kept",
        "/* Keeps the loops of a function that copies and pads rows as loops:\n\
         \x20* GCC and Clang otherwise turn each row's copy and padding into\n\
         \x20* memcpy and memset calls, which cost more than a short row. */\n\
         #if defined(__clang__) && defined(__has_attribute)\n\
         #if __has_attribute(no_builtin)\n\
         #define SPF_KEEP_LOOPS __attribute__((no_builtin(\"memcpy\", \"memset\")))\n\
         #endif\n\
         #elif defined(__GNUC__) && !defined(__clang__)\n\
         #define SPF_KEEP_LOOPS __attribute__((optimize(\"no-tree-loop-distribute-patterns\")))\n\
         #endif\n\
         #ifndef SPF_KEEP_LOOPS\n\
         #define SPF_KEEP_LOOPS\n\
         #endif",
    ),
    (
        "spf_scalar_loops",
        "/* Keeps scalar a loop whose store several iterations make to one\n\
         \x20* element (a `rise=` store): vectorized, it is a scatter whose lanes\n\
         \x20* collide, slower than scalar stores. SPF_SCALAR_LOOP stands before\n\
         \x20* such a loop (Clang; GCC 14 and later). GCC before 14 has no\n\
         \x20* per-loop control: there SPF_SCALAR_STORES_BEGIN and _END around the\n\
         \x20* function compile it without the loop vectorizer (a pragma, which\n\
         \x20* composes with the function's own optimize attribute). */\n\
         #if defined(__clang__)\n\
         #define SPF_SCALAR_LOOP _Pragma(\"clang loop vectorize(disable)\")\n\
         #elif defined(__GNUC__) && __GNUC__ >= 14\n\
         #define SPF_SCALAR_LOOP _Pragma(\"GCC novector\")\n\
         #else\n\
         #define SPF_SCALAR_LOOP\n\
         #endif\n\
         #if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 14\n\
         #define SPF_SCALAR_STORES_BEGIN _Pragma(\"GCC push_options\") _Pragma(\"GCC optimize(\\\"no-tree-vectorize\\\")\")\n\
         #define SPF_SCALAR_STORES_END _Pragma(\"GCC pop_options\")\n\
         #else\n\
         #define SPF_SCALAR_STORES_BEGIN\n\
         #define SPF_SCALAR_STORES_END\n\
         #endif",
    ),
    (
        "spf_fits_i32",
        "/* A size a 32-bit index array's values are bounded by: more than\n\
         \x20* 2^31 - 1 in magnitude is SPF_INDEX_OVERFLOW(what, n), which must not\n\
         \x20* return (by default a message and abort; a program may define it\n\
         \x20* first). */\n\
         #ifndef SPF_INDEX_OVERFLOW\n\
         #define SPF_INDEX_OVERFLOW(what, n) \\\n\
         \x20   (fprintf(stderr, \"spf: %s is %lld: more than 32-bit indices hold (2147483647); \" \\\n\
         \x20            \"use 64-bit indices\\n\", (what), (long long)(n)), abort())\n\
         #endif\n\
         static inline void spf_fits_i32(const char *what, int64_t n)\n\
         {\n\
         \x20   if (n > INT32_MAX || n < -INT32_MAX)\n\
         \x20       SPF_INDEX_OVERFLOW(what, n);\n\
         }",
    ),
    (
        "spf_min_i64",
        "static inline int64_t spf_min_i64(int64_t a, int64_t b) { return a < b ? a : b; }",
    ),
    (
        "spf_max_i64",
        "static inline int64_t spf_max_i64(int64_t a, int64_t b) { return a > b ? a : b; }",
    ),
    (
        "spf_min_f64",
        "static inline double spf_min_f64(double a, double b) { return a < b ? a : b; }",
    ),
    (
        "spf_max_f64",
        "static inline double spf_max_f64(double a, double b) { return a > b ? a : b; }",
    ),
    (
        "spf_min_f32",
        "static inline float spf_min_f32(float a, float b) { return a < b ? a : b; }",
    ),
    (
        "spf_max_f32",
        "static inline float spf_max_f32(float a, float b) { return a > b ? a : b; }",
    ),
    (
        "spf_floord",
        "/* floor(a / b) for b > 0; a shift where b is a power of two (GCC and Clang */\n\
         /* shift arithmetically; b is a constant in generated code: the test folds) */\n\
         #if defined(__GNUC__)\n\
         static inline int64_t spf_floord(int64_t a, int64_t b) { return (b & (b - 1)) == 0 ? a >> __builtin_ctzll((unsigned long long)b) : a / b - (a % b < 0); }\n\
         #else\n\
         static inline int64_t spf_floord(int64_t a, int64_t b) { return a / b - (a % b < 0); }\n\
         #endif",
    ),
    (
        "spf_ceild",
        "/* ceil(a / b) for b > 0 */\n\
         static inline int64_t spf_ceild(int64_t a, int64_t b) { return a / b + (a % b > 0); }",
    ),
    (
        "spf_len",
        "/* an allocation length, never 0 */\n\
         static inline size_t spf_len(int64_t n) { return n > 0 ? (size_t)n : 1; }",
    ),
    (
        "spf_alloc_prefix",
        "/* n elements of `size` bytes (never a 0-byte block) of which those from\n\
         \x20* `written` on are zeroed: the code that follows assigns the ones below\n\
         \x20* before reading them. NULL when out of memory. */\n\
         static inline void *spf_alloc_prefix(int64_t n, size_t size, int64_t written)\n\
         {\n\
         \x20   char *p;\n\
         \x20   if (spf_len(n) > SIZE_MAX / size)\n\
         \x20       return NULL;\n\
         \x20   p = malloc(spf_len(n) * size);\n\
         \x20   if (written < 0)\n\
         \x20       written = 0;\n\
         \x20   if (p != NULL && written < n)\n\
         \x20       memset(p + (size_t)written * size, 0, (size_t)(n - written) * size);\n\
         \x20   return p;\n\
         }",
    ),
    (
        "spf_alloc_out",
        "/* An output array the function sizes and returns (the caller owns it):\n\
         \x20* n elements of `size` bytes, those from `written` on zeroed, by\n\
         \x20* spf_alloc_prefix (calloc when all are). NULL when out of memory. A\n\
         \x20* program that allocates the function's results itself defines\n\
         \x20* SPF_ALLOC_OUT and its own spf_alloc_out first. */\n\
         static inline void *spf_alloc_out(int64_t n, size_t size, int64_t written)\n\
         {\n\
         \x20   if (written <= 0)\n\
         \x20       return spf_len(n) > SIZE_MAX / size ? NULL : calloc(spf_len(n), size);\n\
         \x20   return spf_alloc_prefix(n, size, written);\n\
         }",
    ),
];

/// `spf_perm P = spf_perm_new(2, SPF_COUNTING, (int64_t[]){N, M});`.
fn object_init(d: &CDialect<'_>, o: usize, init: &ObjectInit) -> String {
    let name = &d.low.objects[o];
    let value = match init {
        ObjectInit::Permutation {
            arity,
            compared,
            order,
        } => {
            let (order, extents) = match order {
                InitOrder::Lex => ("SPF_LEX", "NULL".to_string()),
                InitOrder::Morton => ("SPF_MORTON", "NULL".to_string()),
                InitOrder::Counting(es) => ("SPF_COUNTING", int_array(d, es)),
            };
            if compared < arity {
                // The last `arity - compared` components are a payload.
                return format!(
                    "spf_perm {name} = spf_perm_new_compared({arity}, {compared}, {order}, {extents});"
                );
            }
            return format!("spf_perm {name} = spf_perm_new({arity}, {order}, {extents});");
        }
        ObjectInit::Scatter { extent } => {
            if let Some(array) = d.in_array.get(&o) {
                return format!(
                    "spf_scatter {name} = spf_scatter_new_in_i32({}, {array});",
                    print(d, extent).text
                );
            }
            return format!(
                "spf_scatter {name} = spf_scatter_new({});",
                print(d, extent).text
            );
        }
        ObjectInit::OrderedSet { bounds: None } => "spf_oset_new()".to_string(),
        ObjectInit::OrderedSet {
            bounds: Some((lo, hi)),
        } => format!(
            "spf_oset_new_bounded({}, {})",
            print(d, lo).text,
            print(d, hi).text
        ),
    };
    format!("spf_oset {name} = {value};")
}

/// `(int64_t[]){a, b}`: a compound literal of integers.
fn int_array(d: &CDialect<'_>, values: &[Code]) -> String {
    let items: Vec<String> = values.iter().map(|v| print(d, v).text).collect();
    format!("(int64_t[]){{{}}}", items.join(", "))
}

/// The runtime function of `method` on object `o`: `spf_perm_insert`. A
/// permutation's sort is its order's (`spf_perm_sort_counting`), so that
/// only that sort is inlined into the generated function.
fn runtime_function(d: &CDialect<'_>, o: usize, method: Method) -> String {
    let prefix = match &d.low.specs[o].kind {
        ObjectKind::Permutation { order, .. } if method == Method::Sort => {
            return format!("spf_perm_sort_{}", order.name());
        }
        ObjectKind::Permutation { .. } => "spf_perm",
        ObjectKind::OrderedSet { .. } => "spf_oset",
        ObjectKind::Scatter { .. } => "spf_scatter",
    };
    format!("{prefix}_{}", method.name())
}

/// The C type of a temporary or scalar of `e` in a function whose values
/// are `values`: `int64_t`, or the value type.
fn c_type(e: ElemType, values: ValueType) -> &'static str {
    match e {
        ElemType::Int => "int64_t",
        ElemType::Real => values.c_type(),
    }
}

/// The zero of `e`'s elements: `0`, `0.0` (a real at a floating value type).
fn c_zero(e: ElemType, values: ValueType) -> &'static str {
    match e {
        ElemType::Real if !values.is_integer() => "0.0",
        _ => "0",
    }
}

fn signature(name: &str, params: &[Parameter], values: ValueType) -> String {
    declaration(&format!("void {name}"), &param_decls(params, values))
}

/// The C declarations of `params`, in order.
fn param_decls(params: &[Parameter], values: ValueType) -> Vec<String> {
    params
        .iter()
        .map(|p| match &p.kind {
            ParamKind::Symbol => format!("int64_t {}", p.name),
            ParamKind::Array {
                elem,
                role: Role::In,
            } => format!("const {} *restrict {}", elem.c_type(), p.name),
            ParamKind::Scalar {
                elem,
                role: Role::In,
            } => format!("{} {}", c_type(*elem, values), p.name),
            ParamKind::DynArray { elem } => format!("{} **{}", elem.c_type(), p.name),
            ParamKind::Array { elem, .. } => format!("{} *restrict {}", elem.c_type(), p.name),
            ParamKind::Scalar { elem, .. } => {
                format!("{} *restrict {}", c_type(*elem, values), p.name)
            }
        })
        .collect()
}

/// `head(decls...)` (`head`: `void name`), filled to 100 columns.
fn declaration(head: &str, decls: &[String]) -> String {
    if decls.is_empty() {
        return format!("{head}(void)");
    }
    // Fill lines up to 100 columns, continuation lines aligned after `(`.
    let head = format!("{head}(");
    let indent = " ".repeat(head.len());
    let mut out = head;
    let mut width = out.len();
    for (k, d) in decls.iter().enumerate() {
        let piece = if k + 1 == decls.len() {
            format!("{d})")
        } else {
            format!("{d},")
        };
        if k > 0 {
            if width + 1 + piece.len() > 100 {
                out.push('\n');
                out.push_str(&indent);
                width = indent.len();
            } else {
                out.push(' ');
                width += 1;
            }
        }
        out.push_str(&piece);
        width += piece.len();
    }
    out
}

/// `e0 * e1 * ...` for an allocation length.
fn product(d: &CDialect<'_>, extents: &[Code]) -> String {
    let mut acc: Option<Code> = None;
    for e in extents {
        acc = Some(match acc {
            None => e.clone(),
            Some(a) => Code::Bin(BinOp::Mul, Ty::Int, Box::new(a), Box::new(e.clone())),
        });
    }
    print(d, &acc.unwrap_or(Code::Int(1))).text
}

struct CDialect<'l> {
    low: &'l Lowered<'l>,
    used: Used,
    /// Scatters that count in their pointer array (pointer_counters.rs):
    /// object -> the 32-bit pointer array that holds their counters.
    in_array: HashMap<usize, String>,
}

impl Dialect for CDialect<'_> {
    fn int(&self, k: i64) -> P {
        if k == i64::MIN {
            P::atom("INT64_MIN")
        } else if i32::try_from(k).is_err() {
            P::atom(format!("INT64_C({k})"))
        } else if k < 0 {
            P::new(k.to_string(), Prec::Unary)
        } else {
            P::atom(k.to_string())
        }
    }

    fn real(&self, x: f64) -> P {
        if x.is_nan() {
            self.used.add("math");
            P::atom("NAN")
        } else if x.is_infinite() {
            self.used.add("math");
            if x > 0.0 {
                P::atom("INFINITY")
            } else {
                P::new("-INFINITY", Prec::Unary)
            }
        } else if self.low.values != ValueType::F64 {
            // A literal of the value type, converted as C converts it.
            P::new(format!("({}){x:?}", self.low.values.c_type()), Prec::Unary)
        } else {
            let text = format!("{x:?}");
            let prec = if text.starts_with('-') {
                Prec::Unary
            } else {
                Prec::Atom
            };
            P::new(text, prec)
        }
    }

    fn elem(&self, space: usize, index: Option<&Code>) -> P {
        let place = self.place(space, index);
        if self.low.narrow(space) {
            // Widened: arithmetic on 32-bit elements stays 64-bit.
            return P::new(format!("(int64_t){}", place.at(Prec::Unary)), Prec::Unary);
        }
        place
    }

    fn place(&self, space: usize, index: Option<&Code>) -> P {
        let name = &self.low.spaces[space];
        let role = self.low.comp.spaces[space].role;
        match index {
            Some(i) if role == Role::Out && self.low.alloc_at[space].is_some() => {
                P::atom(format!("(*{name})[{}]", print(self, i).text))
            }
            Some(i) => P::atom(format!("{name}[{}]", print(self, i).text)),
            None if role.is_live_out() => P::new(format!("*{name}"), Prec::Unary),
            None => P::atom(name.clone()),
        }
    }

    fn to_real(&self, inner: &Code) -> P {
        P::new(
            format!(
                "({}){}",
                self.low.values.c_type(),
                print(self, inner).at(Prec::Unary)
            ),
            Prec::Unary,
        )
    }

    fn min_max(&self, op: BinOp, ty: Ty, a: &Code, b: &Code) -> P {
        // Integer values take the integer helpers.
        let values = match ty {
            Ty::Int => ValueType::I64,
            Ty::Real => self.low.values,
        };
        let name = match (op, values) {
            (BinOp::Min, ValueType::I64 | ValueType::I32) => "spf_min_i64",
            (BinOp::Min, ValueType::F64) => "spf_min_f64",
            (BinOp::Min, ValueType::F32) => "spf_min_f32",
            (_, ValueType::I64 | ValueType::I32) => "spf_max_i64",
            (_, ValueType::F64) => "spf_max_f64",
            (_, ValueType::F32) => "spf_max_f32",
        };
        self.used.add(name);
        P::atom(format!(
            "{name}({}, {})",
            print(self, a).text,
            print(self, b).text
        ))
    }

    fn floor_div(&self, a: &Code, d: i64) -> P {
        self.used.add("spf_floord");
        P::atom(format!("spf_floord({}, {d})", print(self, a).text))
    }

    fn ceil_div(&self, a: &Code, d: i64) -> P {
        self.used.add("spf_ceild");
        P::atom(format!("spf_ceild({}, {d})", print(self, a).text))
    }

    fn call(&self, object: usize, method: Method, args: &[Code]) -> P {
        let mut all = vec![format!("&{}", self.low.objects[object])];
        all.extend(args.iter().map(|a| print(self, a).text));
        P::atom(format!(
            "{}({})",
            runtime_function(self, object, method),
            all.join(", ")
        ))
    }
}

/// Prints top-level `node`, a loop placing entries with a scatter
/// ([`Lowered::scatter_lookahead`]), twice: looking ahead where the
/// entries' writes are out of cache (`spf_scatter_far`), as it is
/// otherwise. Looking ahead, the statement that places an entry (or gives
/// it its slot) is preceded by the prefetches of the counter of the key
/// `2 * SPF_LOOKAHEAD` entries on and of the targets of the key
/// `SPF_LOOKAHEAD` entries on: each target's index with the key and the
/// position (slot) read ahead (docs/runtime.md).
fn lookahead_versions(
    w: &mut Writer,
    t: usize,
    node: &LNode,
    plan: &Lookahead,
    keys: &[Code],
    targets: &[(usize, Vec<Code>)],
) {
    let d = w.d;
    let low = d.low;
    let object = &low.objects[plan.object];
    // A target as C names it: the pointer and an element.
    let named = |s: usize| {
        let name = &low.spaces[s];
        if low.comp.spaces[s].role == Role::Out && low.alloc_at[s].is_some() {
            (format!("*{name}"), format!("**{name}"))
        } else {
            (name.clone(), format!("*{name}"))
        }
    };
    let bytes: Vec<String> = targets
        .iter()
        .map(|&(s, _)| format!("sizeof {}", named(s).1))
        .collect();
    let (counter, peek) = if plan.method.slots() {
        ("spf_scatter_slot_ahead", "spf_scatter_slot_peek")
    } else {
        ("spf_scatter_ahead", "spf_scatter_peek")
    };
    let (name, k) = (&low.spaces[plan.keys], &plan.var);
    // The runtime's readers of the keys at their width.
    let keys_at = if low.narrow(plan.keys) { "_i32" } else { "" };
    let len = product(d, keys);
    let (key, ahead) = (w.namer.fresh("ahead_key"), w.namer.fresh("ahead"));
    let mut prelude = vec![
        "/* looking ahead: the counter of the key 2 * SPF_LOOKAHEAD entries on, the targets of the key SPF_LOOKAHEAD entries on */".to_string(),
        format!("{counter}(&{object}, spf_ahead_key{keys_at}({name}, {len}, {k} + 2 * SPF_LOOKAHEAD));"),
        "{".to_string(),
        format!("    const int64_t {key} = spf_ahead_key{keys_at}({name}, {len}, {k} + SPF_LOOKAHEAD);"),
        format!("    const int64_t {ahead} = {peek}(&{object}, {key});"),
    ];
    for (s, extents) in targets {
        let (pointer, element) = named(*s);
        let target_len = product(d, extents);
        let index = plan
            .targets
            .iter()
            .find(|(t, _)| t == s)
            .map(|(_, index)| index)
            .expect("a target of the plan");
        // At a position place() hands out, or one past its key's last,
        // unchecked with the input validated (spf_prefetch_at); any other
        // index, checked.
        let at_position = plan.method == Method::PlaceInserted
            && matches!(index, Code::Elem { space, index: None, .. } if *space == plan.scalar);
        let prefetch = if at_position {
            "spf_prefetch_at"
        } else {
            "spf_prefetch_in"
        };
        let index = index.replaced(&|c| match c {
            Code::Elem {
                space, index: None, ..
            } if *space == plan.scalar => Some(Code::Var(ahead.clone())),
            c if *c == plan.key => Some(Code::Var(key.clone())),
            _ => None,
        });
        let index = print(d, &index).text;
        prelude.push(format!(
            "    {prefetch}({pointer}, sizeof {element}, {target_len}, {index});"
        ));
    }
    prelude.push("}".to_string());
    // The first target's length spreads a slot loop's keys; a place
    // loop's positions are the scatter's own.
    let (first, first_extents) = &targets[0];
    let spread = if plan.method.slots() {
        product(d, first_extents)
    } else {
        "0".to_string()
    };
    // Marked unlikely, so that GCC allocates registers for the loop without
    // the prefetches: with both versions equally likely, it spilled a
    // target's pointer in CSC -> ELL's plain loop (12-15% slower in cache).
    w.open(&format!(
        "if (SPF_UNLIKELY(spf_scatter_far{keys_at}(&{object}, {}, {name}, {len}, {spread}, sizeof {}))) {{",
        bytes.join(" + "),
        named(*first).1
    ));
    // Each version in a function of its own (outline.rs): registers are
    // allocated per function.
    let function = &low.function;
    let ahead = w.outlined(
        &format!("{function}_ahead{t}"),
        node,
        Some((plan.object, plan.method, prelude)),
    );
    let plain = w.outlined(&format!("{function}_placing{t}"), node, None);
    w.line(&ahead);
    w.depth -= 1;
    w.line("} else {");
    w.depth += 1;
    w.line(&plain);
    w.close();
}

/// Calls `visit(array, scalar)` for every read `array[scalar]` in `c`
/// whose index is a scalar (an element of a scalar space) itself.
fn find_gathers(c: &Code, visit: &mut impl FnMut(usize, usize)) {
    match c {
        Code::Elem {
            space,
            index: Some(index),
            ..
        } => {
            if let Code::Elem {
                space: scalar,
                index: None,
                ..
            } = index.as_ref()
            {
                visit(*space, *scalar);
            }
            find_gathers(index, visit);
        }
        Code::Lin(ts, _) => ts.iter().for_each(|(_, t)| find_gathers(t, visit)),
        Code::Neg(a, _) | Code::FloorDiv(a, _) | Code::CeilDiv(a, _) | Code::ToReal(a) => {
            find_gathers(a, visit)
        }
        Code::Bin(_, _, a, b) => {
            find_gathers(a, visit);
            find_gathers(b, visit);
        }
        Code::Call { args, .. } => args.iter().for_each(|a| find_gathers(a, visit)),
        Code::Elem { index: None, .. }
        | Code::Int(_)
        | Code::Real(_)
        | Code::Var(_)
        | Code::Sym(_) => {}
    }
}

struct Writer<'d, 'l> {
    d: &'d CDialect<'l>,
    namer: Namer,
    out: String,
    depth: usize,
    /// Scatters sorted into an `out` array (`Lowered::scatter_starts_into`):
    /// object -> the array's name and the sort's suffix (`_i32` for a
    /// 32-bit array).
    sort_into: HashMap<usize, (String, &'static str)>,
    /// Ordered sets whose values a counting permutation counts
    /// (`counted::counted_set`): set -> the permutation. Their inserts are
    /// left out and their sort reads the counts (`spf_oset_sort_counted`).
    counted: HashMap<usize, usize>,
    /// While a placing loop is printed looking ahead
    /// ([`lookahead_versions`]): the scatter, the method that hands out,
    /// and the lines printed before the statement that calls it.
    ahead: Option<(usize, Method, Vec<String>)>,
    /// The variables of the loops being printed, innermost last.
    loops: Vec<String>,
    /// Scalars assigned, in the innermost loop's body, a permutation's key
    /// or entry at the loop's variable (a position): scalar -> the object,
    /// the method and its arguments ([`Writer::gather_prefetches`]).
    gathers: HashMap<usize, (usize, Method, Vec<Code>)>,
    /// What a node printed as a function of its own takes (outline.rs).
    frame: &'d Frame,
    /// The functions printed so far (outline.rs), before the generated one.
    functions: Vec<String>,
}

impl Writer<'_, '_> {
    fn line(&mut self, text: &str) {
        for _ in 0..self.depth {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn open(&mut self, text: &str) {
        self.line(text);
        self.depth += 1;
    }

    fn close(&mut self) {
        self.depth -= 1;
        self.line("}");
    }

    fn expr(&self, c: &Code) -> String {
        print(self.d, c).text
    }

    fn nodes(&mut self, nodes: &[LNode]) {
        for (k, n) in nodes.iter().enumerate() {
            self.node(n, k + 1 == nodes.len());
        }
    }

    /// `last`: nothing follows in the enclosing block, so a `let` needs no
    /// block of its own.
    fn node(&mut self, node: &LNode, last: bool) {
        match node {
            LNode::For {
                var,
                lower,
                upper,
                body,
                ..
            } => {
                let lo = self.expr(lower);
                let low = self.d.low;
                self.loops.push(var.clone());
                let outer = std::mem::take(&mut self.gathers);
                if stores_rising(body, false) {
                    self.line("SPF_SCALAR_LOOP");
                }
                if reads_any(upper, &low.written) {
                    let end = self.namer.fresh(&format!("{var}_end"));
                    let hi = self.expr(upper);
                    self.open(&format!(
                        "for (int64_t {var} = {lo}, {end} = {hi}; {var} < {end}; {var}++) {{"
                    ));
                } else {
                    let hi = print(self.d, upper).at(Prec::Add);
                    self.open(&format!(
                        "for (int64_t {var} = {lo}; {var} < {hi}; {var}++) {{"
                    ));
                }
                self.nodes(body);
                self.close();
                self.gathers = outer;
                self.loops.pop();
            }
            LNode::Let {
                var,
                used,
                value,
                body,
            } => {
                if !last {
                    self.open("{");
                }
                let v = self.expr(value);
                self.line(&format!("const int64_t {var} = {v};"));
                if !used {
                    self.line(&format!("(void){var};"));
                }
                self.nodes(body);
                if !last {
                    self.close();
                }
            }
            LNode::If { guards, body } => {
                if guards.is_empty() {
                    self.open("{");
                } else {
                    let c = print_conds(self.d, guards);
                    self.open(&format!("if ({c}) {{"));
                }
                self.nodes(body);
                self.close();
            }
            LNode::Stmt { name, actions } => {
                if let Some((object, method, prelude)) = &self.ahead {
                    let places = actions.iter().any(|a| {
                        matches!(a, Action::Update { value: Code::Call { object: o, method: m, .. }, .. } if o == object && m == method)
                    });
                    if places {
                        for line in prelude.clone() {
                            self.line(&line);
                        }
                    }
                }
                self.line(&format!("/* {name} */"));
                self.actions(actions);
            }
        }
    }

    /// Before a statement that reads an input array at a scalar holding a
    /// permutation's key or entry at the innermost loop's position (a
    /// gather through the sorted order: random reads once the entries
    /// moved), a prefetch of the element the statement reads
    /// `SPF_GATHER_AHEAD` positions on (`spf_perm_key_prefetch`,
    /// `spf_perm_entry_prefetch`; docs/runtime.md).
    fn gather_prefetches(&mut self, value: &Code) {
        let low = self.d.low;
        let mut arrays = Vec::new();
        find_gathers(value, &mut |space, scalar| {
            if low.comp.spaces[space].role == Role::In
                && self.gathers.contains_key(&scalar)
                && !arrays.contains(&(space, scalar))
            {
                arrays.push((space, scalar));
            }
        });
        for (space, scalar) in arrays {
            let (object, method, args) = &self.gathers[&scalar];
            let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
            let (name, object) = (&low.spaces[space], &low.objects[*object]);
            let f = if *method == Method::Key {
                "spf_perm_key_prefetch"
            } else {
                "spf_perm_entry_prefetch"
            };
            self.line(&format!(
                "{f}(&{object}, {}, {name}, sizeof *{name});",
                args.join(", ")
            ));
        }
    }

    /// Records (or forgets) the scalar `target` as a gather's index
    /// ([`Writer::gather_prefetches`]): assigned a permutation's key or entry
    /// at the innermost loop's variable.
    fn track_gather(&mut self, target: &Code, value: &Code) {
        let Code::Elem {
            space, index: None, ..
        } = target
        else {
            return;
        };
        let low = self.d.low;
        let position = |c: Option<&Code>| matches!((c, self.loops.last()), (Some(Code::Var(v)), Some(l)) if v == l);
        match value {
            Code::Call {
                object,
                method: method @ (Method::Key | Method::Entry),
                args,
            } if matches!(low.specs[*object].kind, ObjectKind::Permutation { .. })
                && position(args.last()) =>
            {
                self.gathers
                    .insert(*space, (*object, *method, args.clone()));
            }
            _ => {
                self.gathers.remove(space);
            }
        }
    }

    /// The permutation and the key component a scalar holds, when the
    /// loop assigned it `P.key(d, p)` with a constant `d`
    /// ([`Writer::track_gather`]).
    fn key_scalar(&self, space: usize) -> Option<(usize, i64)> {
        match self.gathers.get(&space)? {
            (object, Method::Key, args) => match args.first()? {
                Code::Int(d) => Some((*object, *d)),
                _ => None,
            },
            _ => None,
        }
    }

    fn actions(&mut self, actions: &[Action]) {
        for a in actions {
            match a {
                Action::Update { target, op, value } => {
                    self.gather_prefetches(value);
                    self.track_gather(target, value);
                    let t = print_place(self.d, target).text;
                    let v = match lookups::index_within(self.d.low, value, |s| self.key_scalar(s)) {
                        Some((set, arg)) => format!(
                            "spf_oset_index_in(&{}, {})",
                            self.d.low.objects[set],
                            self.expr(arg)
                        ),
                        None => self.expr(value),
                    };
                    let text = match op {
                        UpdateOp::Assign | UpdateOp::Rise => format!("{t} = {v};"),
                        UpdateOp::Add => format!("{t} += {v};"),
                        UpdateOp::Sub => format!("{t} -= {v};"),
                        UpdateOp::Mul => format!("{t} *= {v};"),
                        UpdateOp::Min | UpdateOp::Max => {
                            let bin = if *op == UpdateOp::Min {
                                BinOp::Min
                            } else {
                                BinOp::Max
                            };
                            let call = self.d.min_max(bin, target.ty(), target, value).text;
                            format!("{t} = {call};")
                        }
                    };
                    self.line(&text);
                }
                Action::If { conds, then } => {
                    let c = print_conds(self.d, conds);
                    self.open(&format!("if ({c}) {{"));
                    self.actions(then);
                    self.close();
                }
                Action::Call {
                    object,
                    method,
                    args,
                } => {
                    let f = runtime_function(self.d, *object, *method);
                    let name = &self.d.low.objects[*object];
                    let perm = matches!(
                        self.d.low.specs[*object].kind,
                        ObjectKind::Permutation { .. }
                    );
                    let counted = self.counted.get(object);
                    let text = if let (Some(_), Method::Insert) = (counted, method) {
                        continue; // counted by the permutation's insert
                    } else if let (Some(&p), Method::Sort) = (counted, method) {
                        let by = &self.d.low.objects[p];
                        format!("spf_oset_sort_counted(&{name}, &{by});")
                    } else if perm && *method == Method::Insert {
                        format!("{f}(&{name}, {});", int_array(self.d, args))
                    } else if let (Method::Sort, Some((array, suffix))) =
                        (method, self.sort_into.get(object))
                    {
                        format!("spf_scatter_sort_into{suffix}(&{name}, {array});")
                    } else {
                        let mut all = vec![format!("&{name}")];
                        all.extend(args.iter().map(|a| self.expr(a)));
                        format!("{f}({});", all.join(", "))
                    };
                    self.line(&text);
                }
            }
        }
    }
}
