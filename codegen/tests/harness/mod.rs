//! What the backend tests share: a fixed random sequence, comparison of
//! results, and drivers that compile emitted C and Rust around a `main`,
//! run them and read their results back.
//!
//! A driver holds several cases (one [`Memory`] each, in its own block), so a
//! program is compiled once per language however many inputs it runs on.
//! Each case prints `@case K`, then every live-out data space as `name v0
//! v1 ...`. A missing `cc` or `rustc` fails the tests (both exist on CI).

// Each test crate uses a different part of the harness.
#![allow(dead_code)]

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use codegen::ast::LoopProgram;
use codegen::c::{c_parameters_with, emit_c_with};
use codegen::emit::{ParamKind, Parameter};
use codegen::interp::{run_at, Array, Memory};
use codegen::rust::{emit_rust_with, rust_parameters_with};
use codegen::width::{IndexWidth, Widths};
use iegen::computation::{ElemType, Role};

/// The results of one run: every live-out data space, by name.
pub type Outputs = HashMap<String, Array>;

// ---------------------------------------------------------------------------
// Inputs

/// xorshift64*: a fixed, portable sequence.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `[-1, 1)`, a multiple of 2^-20 (exact in decimal too).
    pub fn real(&mut self) -> f64 {
        ((self.next() >> 44) as f64) / f64::from(1 << 19) - 1.0
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// `len` values uniform in `[-1, 1)`.
    pub fn reals(&mut self, len: usize) -> Vec<f64> {
        (0..len).map(|_| self.real()).collect()
    }
}

// ---------------------------------------------------------------------------
// Comparing results

/// Equal up to a relative error of 1e-12.
pub fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

/// Panics unless `got` equals `want` (reals up to [`close`]).
pub fn assert_same(what: &str, name: &str, got: &Array, want: &Array) {
    match (got, want) {
        (Array::Int(g), Array::Int(w)) => assert_eq!(g, w, "{what}: `{name}` differs"),
        (Array::Real(g), Array::Real(w)) => {
            assert_eq!(g.len(), w.len(), "{what}: `{name}` has the wrong length");
            for (p, (x, y)) in g.iter().zip(w).enumerate() {
                assert!(close(*x, *y), "{what}: `{name}[{p}]` is {x}, expected {y}");
            }
        }
        _ => panic!("{what}: `{name}` has the wrong element type"),
    }
}

/// The parameters that are live-out data spaces (`out` or `inout`).
pub fn live_out(params: &[Parameter]) -> Vec<&Parameter> {
    params
        .iter()
        .filter(|p| match &p.kind {
            ParamKind::Array { role, .. } | ParamKind::Scalar { role, .. } => role.is_live_out(),
            ParamKind::DynArray { .. } => true,
            ParamKind::Symbol => false,
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Drivers

fn c_values(a: &Array) -> String {
    let mut s: Vec<String> = match a {
        Array::Int(v) => v.iter().map(i64::to_string).collect(),
        Array::Real(v) => v.iter().map(|x| format!("{x:?}")).collect(),
        other => panic!("the harness runs f64 values, not {:?}", other.value_type()),
    };
    s.push("0".into()); // never an empty initializer
    s.join(", ")
}

fn c_type(elem: ElemType) -> &'static str {
    match elem {
        ElemType::Int => "int64_t",
        ElemType::Real => "double",
    }
}

/// The C expression of the length of data space `source` (sized by the
/// computation) in a driver: the product of its extents, with every symbol
/// and size space replaced by the driver's variable of that name.
fn c_length(program: &LoopProgram, params: &[Parameter], source: &str) -> String {
    let d = program.computation.space(source).expect("a data space");
    let factors: Vec<String> = d
        .extents
        .iter()
        .map(|e| {
            let mut text = format!("{}", e.constant_term());
            for (atom, c) in e.terms() {
                let iegen::Atom::Sym(name) = atom else {
                    panic!("the harness sizes arrays by symbols and size spaces only")
                };
                let var = &params
                    .iter()
                    .find(|p| p.source == *name)
                    .expect("a parameter")
                    .name;
                let _ = write!(text, " + {c} * {var}");
            }
            format!("({text})")
        })
        .collect();
    factors.join(" * ")
}

/// One program of a batch, the memories it runs on, and the width of the
/// index arrays it takes and returns.
pub type Item<'a> = (&'a LoopProgram, &'a [Memory], Widths);

/// A C program: the emitted function and a `main` that calls it once per
/// memory and prints every live-out data space after each call. An array
/// sized by the computation is received through a pointer, printed with the
/// length its extents give, and freed; its memory in `mems` (an empty array
/// will do) gives its element type only.
pub fn c_driver(program: &LoopProgram, mems: &[Memory]) -> String {
    format!(
        "{}\n{}",
        c_unit(0, program, mems, &Widths::uniform(IndexWidth::W64)),
        c_main(1)
    )
}

/// A C translation unit: the emitted function and `spf_drv_K`, which
/// prints `@program K` and runs it on each memory as [`c_driver`] does.
/// Each program of a batch is its own unit, compiled as it would be alone.
pub fn c_unit(k: usize, program: &LoopProgram, mems: &[Memory], widths: &Widths) -> String {
    format!(
        "#include <stdio.h>\n#include <stdlib.h>\n{}\nvoid spf_drv_{k}(void);\nvoid spf_drv_{k}(void)\n{{\n    printf(\"@program {k}\\n\");\n{}}}\n",
        emit_c_with(program, widths).expect("emit_c"),
        c_cases(program, mems, widths)
    )
}

/// The `main` of a batch of `n` [`c_unit`]s: runs each in turn.
pub fn c_main(n: usize) -> String {
    let mut m = String::new();
    for k in 0..n {
        let _ = writeln!(m, "void spf_drv_{k}(void);");
    }
    m.push_str("int main(void)\n{\n");
    for k in 0..n {
        let _ = writeln!(m, "    spf_drv_{k}();");
    }
    m.push_str("    return 0;\n}\n");
    m
}

/// The blocks of a C driver that run `program` on each memory.
fn c_cases(program: &LoopProgram, mems: &[Memory], widths: &Widths) -> String {
    let params = c_parameters_with(program, widths).expect("c_parameters");
    let mut m = String::new();
    for (case, mem) in mems.iter().enumerate() {
        m.push_str("    {\n");
        let mut args = Vec::new();
        for p in &params {
            let n = &p.name;
            match &p.kind {
                ParamKind::Symbol => {
                    let _ = writeln!(m, "        int64_t {n} = {};", mem.symbols[&p.source]);
                    args.push(n.clone());
                }
                ParamKind::Array { elem, role } => {
                    let a = &mem.arrays[&p.source];
                    let cst = if *role == Role::In { "const " } else { "" };
                    let _ = writeln!(
                        m,
                        "        static {cst}{} {n}[] = {{{}}};",
                        elem.c_type(),
                        c_values(a)
                    );
                    args.push(n.clone());
                }
                ParamKind::DynArray { elem } => {
                    let _ = writeln!(m, "        {} *{n} = NULL;", elem.c_type());
                    args.push(format!("&{n}"));
                }
                ParamKind::Scalar { elem, role } => {
                    let value = match &mem.arrays[&p.source] {
                        Array::Int(v) => v[0].to_string(),
                        Array::Real(v) => format!("{:?}", v[0]),
                        other => {
                            panic!("the harness runs f64 values, not {:?}", other.value_type())
                        }
                    };
                    let _ = writeln!(m, "        {} {n} = {value};", c_type(*elem));
                    args.push(if *role == Role::In {
                        n.clone()
                    } else {
                        format!("&{n}")
                    });
                }
            }
        }
        let _ = writeln!(
            m,
            "        {}({});",
            program.computation.name,
            args.join(", ")
        );
        let _ = writeln!(m, "        printf(\"@case {case}\\n\");");
        for p in live_out(&params) {
            let a = &mem.arrays[&p.source];
            let n = &p.name;
            let (fmt, cast) = match a {
                Array::Int(_) => ("%lld", "(long long)"),
                _ => ("%.17g", ""),
            };
            let _ = writeln!(m, "        printf(\"{}\");", p.source);
            match &p.kind {
                ParamKind::Scalar { .. } => {
                    let _ = writeln!(m, "        printf(\" {fmt}\", {cast}{n});");
                }
                ParamKind::DynArray { .. } => {
                    let len = c_length(program, &params, &p.source);
                    let _ = writeln!(
                        m,
                        "        for (int64_t drv = 0; drv < {len}; drv++) printf(\" {fmt}\", {cast}{n}[drv]);"
                    );
                    let _ = writeln!(m, "        free({n});");
                }
                // An empty array prints no values (and `drv < 0` would warn).
                _ if a.is_empty() => {}
                _ => {
                    let _ = writeln!(
                        m,
                        "        for (size_t drv = 0; drv < {}; drv++) printf(\" {fmt}\", {cast}{n}[drv]);",
                        a.len()
                    );
                }
            }
            m.push_str("        printf(\"\\n\");\n");
        }
        m.push_str("    }\n");
    }
    m
}

fn rust_values(a: &Array) -> String {
    let s: Vec<String> = match a {
        Array::Int(v) => v.iter().map(i64::to_string).collect(),
        Array::Real(v) => v.iter().map(|x| format!("{x:?}")).collect(),
        other => panic!("the harness runs f64 values, not {:?}", other.value_type()),
    };
    s.join(", ")
}

fn rust_type(elem: ElemType) -> &'static str {
    match elem {
        ElemType::Int => "i64",
        ElemType::Real => "f64",
    }
}

/// A Rust program: the emitted function and a `main` like [`c_driver`]'s.
pub fn rust_driver(program: &LoopProgram, mems: &[Memory]) -> String {
    rust_batch_driver(&[(program, mems, Widths::uniform(IndexWidth::W64))])
}

/// A Rust program holding every program of `items`, each in its own module
/// (`p0`, `p1`, ...: the runtimes they print stay apart), and a `main` like
/// [`c_main`]'s (each program after a line `@program K`).
pub fn rust_batch_driver(items: &[Item<'_>]) -> String {
    let mut code = String::new();
    let mut main = String::from("fn main() {\n");
    for (k, (program, mems, widths)) in items.iter().enumerate() {
        let emitted = emit_rust_with(program, widths).expect("emit_rust");
        let call = format!("p{k}::{}", emit_function_name(&emitted));
        let _ = write!(
            code,
            "mod p{k} {{\n{emitted}}}\n\nfn drv_{k}() {{\n    println!(\"@program {k}\");\n{}}}\n\n",
            rust_cases(program, mems, &call, widths)
        );
        let _ = writeln!(main, "    drv_{k}();");
    }
    main.push_str("}\n");
    format!("{code}{main}")
}

/// The blocks of a Rust driver that run `program` (its function called as
/// `fname`) on each memory.
fn rust_cases(program: &LoopProgram, mems: &[Memory], fname: &str, widths: &Widths) -> String {
    let params = rust_parameters_with(program, widths).expect("rust_parameters");
    let mut m = String::new();
    for (case, mem) in mems.iter().enumerate() {
        m.push_str("    {\n");
        let mut args = Vec::new();
        for p in &params {
            let n = &p.name;
            match &p.kind {
                ParamKind::Symbol => {
                    let _ = writeln!(m, "        let {n}: i64 = {};", mem.symbols[&p.source]);
                    args.push(n.clone());
                }
                ParamKind::Array { elem, role } => {
                    let a = &mem.arrays[&p.source];
                    let (mt, pass) = if *role == Role::In {
                        ("", format!("&{n}"))
                    } else {
                        ("mut ", format!("&mut {n}"))
                    };
                    let _ = writeln!(
                        m,
                        "        let {mt}{n}: Vec<{}> = vec![{}];",
                        elem.rust_type(),
                        rust_values(a)
                    );
                    args.push(pass);
                }
                ParamKind::DynArray { elem } => {
                    let _ = writeln!(
                        m,
                        "        let mut {n}: Vec<{}> = Vec::new();",
                        elem.rust_type()
                    );
                    args.push(format!("&mut {n}"));
                }
                ParamKind::Scalar { elem, role } => {
                    let a = &mem.arrays[&p.source];
                    let (mt, pass) = if *role == Role::In {
                        ("", n.clone())
                    } else {
                        ("mut ", format!("&mut {n}"))
                    };
                    let _ = writeln!(
                        m,
                        "        let {mt}{n}: {} = {};",
                        rust_type(*elem),
                        rust_values(a)
                    );
                    args.push(pass);
                }
            }
        }
        let _ = writeln!(m, "        {fname}({});", args.join(", "));
        let _ = writeln!(m, "        println!(\"@case {case}\");");
        for p in live_out(&params) {
            let n = &p.name;
            let _ = writeln!(m, "        print!(\"{}\");", p.source);
            match &p.kind {
                ParamKind::Scalar { .. } => {
                    let _ = writeln!(m, "        print!(\" {{:?}}\", {n});");
                }
                _ => {
                    let _ = writeln!(m, "        for v in &{n} {{ print!(\" {{v:?}}\"); }}");
                }
            }
            m.push_str("        println!();\n");
        }
        m.push_str("    }\n");
    }
    m
}

fn emit_function_name(code: &str) -> String {
    let start = code.find("pub fn ").expect("a pub fn") + "pub fn ".len();
    code[start..]
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// Reads a driver's output back: one [`Outputs`] per case, typed like the
/// case's memory.
fn parse_output(text: &str, mems: &[Memory]) -> Vec<Outputs> {
    let mut out: Vec<Outputs> = Vec::new();
    for line in text.lines() {
        if let Some(case) = line.strip_prefix("@case ") {
            assert_eq!(case.parse::<usize>().ok(), Some(out.len()), "{text}");
            out.push(Outputs::new());
            continue;
        }
        let mut words = line.split_whitespace();
        let Some(name) = words.next() else { continue };
        let like = &mems[out.len() - 1];
        let array = match like.arrays.get(name) {
            Some(Array::Int(_)) => {
                Array::Int(words.map(|w| w.parse().expect("an integer")).collect())
            }
            Some(_) => Array::Real(words.map(|w| w.parse().expect("a real")).collect()),
            None => panic!("unexpected output line {line:?}"),
        };
        out.last_mut()
            .expect("a case")
            .insert(name.to_string(), array);
    }
    assert_eq!(out.len(), mems.len(), "every case ran:\n{text}");
    out
}

/// Reads a batch driver's output back: one [`Outputs`] per case of each
/// program of `items`.
fn parse_batch(text: &str, items: &[Item<'_>]) -> Vec<Vec<Outputs>> {
    let mut sections: Vec<String> = Vec::new();
    for line in text.lines() {
        if let Some(k) = line.strip_prefix("@program ") {
            assert_eq!(k.parse::<usize>().ok(), Some(sections.len()), "{text}");
            sections.push(String::new());
        } else {
            let section = sections.last_mut().expect("a program line first");
            section.push_str(line);
            section.push('\n');
        }
    }
    assert_eq!(sections.len(), items.len(), "every program ran:\n{text}");
    sections
        .iter()
        .zip(items)
        .map(|(section, (_, mems, _))| parse_output(section, mems))
        .collect()
}

/// Runs `cmd`, panicking with its output unless it succeeds; returns stdout.
pub fn tool(cmd: &mut Command, what: &str) -> String {
    let out = cmd.output().unwrap_or_else(|e| {
        panic!("cannot run {what} ({e}): the backend tests need `cc` and `rustc` on the PATH")
    });
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The flags every emitted C file must compile cleanly with.
pub const CFLAGS: &[&str] = &[
    "-std=c99",
    "-O3",
    "-Wall",
    "-Wextra",
    "-pedantic",
    "-Werror",
];

/// Compiles `program` with a C driver for `mems`, runs it and returns the
/// results of each case.
pub fn run_c(dir: &Path, program: &LoopProgram, mems: &[Memory]) -> Vec<Outputs> {
    run_c_batch(dir, &[(program, mems, Widths::uniform(IndexWidth::W64))])
        .pop()
        .expect("one program")
}

/// Compiles every program of `items` into one C driver (each program its
/// own translation unit, compiled as it would be alone; the units in two
/// `cc -c` at once, then linked) and runs it; returns the results of each
/// case of each program.
pub fn run_c_batch(dir: &Path, items: &[Item<'_>]) -> Vec<Vec<Outputs>> {
    let mut units = Vec::with_capacity(items.len() + 1);
    for (k, (program, mems, widths)) in items.iter().enumerate() {
        let unit = format!("driver_{k}.c");
        std::fs::write(dir.join(&unit), c_unit(k, program, mems, widths)).unwrap();
        units.push(unit);
    }
    std::fs::write(dir.join("driver_main.c"), c_main(items.len())).unwrap();
    units.push("driver_main.c".to_string());
    std::thread::scope(|s| {
        for half in units.chunks(units.len().div_ceil(2)) {
            s.spawn(move || {
                tool(
                    Command::new("cc")
                        .current_dir(dir)
                        .args(CFLAGS)
                        .arg("-c")
                        .args(half),
                    "cc",
                )
            });
        }
    });
    let exe = dir.join("driver_c");
    let objects = units.iter().map(|u| u.replace(".c", ".o"));
    tool(
        Command::new("cc")
            .current_dir(dir)
            .args(objects)
            .arg("-o")
            .arg(&exe),
        "cc (linking)",
    );
    // glibc fills every malloc'd block with garbage (and calloc still
    // zeroes): generated code that skips the zero fill of an array must
    // write or zero every element itself, or the outputs differ.
    let mut run = Command::new(&exe);
    run.env("MALLOC_PERTURB_", "165");
    parse_batch(&tool(&mut run, "the C driver"), items)
}

/// Compiles `program` with a Rust driver for `mems` (`rustc -D warnings`),
/// runs it and returns the results of each case.
pub fn run_rust(dir: &Path, program: &LoopProgram, mems: &[Memory]) -> Vec<Outputs> {
    run_rust_batch(dir, &[(program, mems, Widths::uniform(IndexWidth::W64))])
        .pop()
        .expect("one program")
}

/// Compiles every program of `items` into one Rust driver (one `rustc -D
/// warnings`), runs it and returns the results of each case of each
/// program.
pub fn run_rust_batch(dir: &Path, items: &[Item<'_>]) -> Vec<Vec<Outputs>> {
    let src = dir.join("driver.rs");
    std::fs::write(&src, rust_batch_driver(items)).unwrap();
    let exe = dir.join("driver_rs");
    // Unoptimized: a fifth of opt-level 1's compile time, and the emitted
    // arithmetic runs with overflow checks.
    tool(
        Command::new("rustc")
            .args(["--edition", "2021", "-D", "warnings", "-C", "opt-level=0"])
            .arg(&src)
            .arg("-o")
            .arg(&exe),
        "rustc",
    );
    parse_batch(&tool(&mut Command::new(&exe), "the Rust driver"), items)
}

/// Runs `program` on every case's memory with the interpreter, the C and the
/// Rust backend (one compilation per language, the two in parallel), checks
/// that all three agree with the case's reference on every live-out data
/// space, and returns the interpreter's memories.
pub fn check_cases(program: &LoopProgram, cases: &[(Memory, Outputs)]) -> Vec<Memory> {
    check_batch(&[(program, cases, Widths::uniform(IndexWidth::W64))])
        .pop()
        .expect("one program")
}

/// A program of [`check_batch`], its cases (a memory and the expected
/// outputs), and the width of its index arrays.
pub type Checked<'a> = (&'a LoopProgram, &'a [(Memory, Outputs)], Widths);

/// [`check_cases`] for every program of `batch` at once, each with its
/// index arrays at its width (in C, Rust and the interpreter): one C and
/// one Rust driver hold them all (their function names distinct), each
/// built by one compiler invocation, the two in parallel; returns the
/// interpreter's memories of each program.
pub fn check_batch(batch: &[Checked<'_>]) -> Vec<Vec<Memory>> {
    let mems: Vec<Vec<Memory>> = batch
        .iter()
        .map(|(_, cases, _)| cases.iter().map(|(m, _)| m.clone()).collect())
        .collect();
    let items: Vec<Item<'_>> = batch
        .iter()
        .zip(&mems)
        .map(|((p, _, w), m)| (*p, &m[..], w.clone()))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let (c_out, rust_out) = std::thread::scope(|s| {
        let c = s.spawn(|| run_c_batch(dir.path(), &items));
        let r = s.spawn(|| run_rust_batch(dir.path(), &items));
        (c.join(), r.join())
    });
    let (c_out, rust_out) = match (c_out, rust_out) {
        (Ok(c), Ok(r)) => (c, r),
        (Err(e), _) | (_, Err(e)) => std::panic::resume_unwind(e),
    };
    batch
        .iter()
        .zip(c_out.iter().zip(&rust_out))
        .map(|((program, cases, width), (c_out, rust_out))| {
            let name = &format!("{} ({width:?})", program.computation.name);
            let params = c_parameters_with(program, width).unwrap();
            let outs = live_out(&params);
            assert!(!outs.is_empty(), "{name}");
            let mut results = Vec::with_capacity(cases.len());
            for (case, (mem, reference)) in cases.iter().enumerate() {
                let mut interp = mem.clone();
                run_at(program, &mut interp, None, width)
                    .unwrap_or_else(|e| panic!("{name}, case {case}: the interpreter fails: {e}"));
                for p in &outs {
                    let space = &p.source;
                    let want = &reference[space];
                    let what = |backend: &str| format!("{name}, case {case}, {backend}");
                    assert_same(&what("interpreter"), space, &interp.arrays[space], want);
                    assert_same(&what("C"), space, &c_out[case][space], want);
                    assert_same(&what("Rust"), space, &rust_out[case][space], want);
                }
                results.push(interp);
            }
            results
        })
        .collect()
}

/// [`check_cases`] for one memory.
pub fn check_all(program: &LoopProgram, mem: &Memory, reference: &Outputs) -> Memory {
    check_cases(program, &[(mem.clone(), reference.clone())])
        .pop()
        .expect("one case")
}
