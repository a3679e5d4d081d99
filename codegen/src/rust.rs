//! The Rust backend: a loop program as one safe Rust function.
//!
//! [`emit_rust`] prints the loop AST with the statement bodies inlined:
//!
//! ```text
//! pub fn spmv(n: i64, m: i64, nnz: i64, rowptr: &[i64], col: &[i64], a: &[f64], x: &[f64], y: &mut [f64]) {
//!     assert_eq!(rowptr.len(), (n + 1) as usize);
//!     ...
//!     for i in 0..n {
//!         for k in rowptr[i as usize]..rowptr[(i + 1) as usize] {
//!             let j = col[k as usize];
//!             // S0
//!             y[i as usize] += a[k as usize] * x[j as usize];
//!         }
//!     }
//! }
//! ```
//!
//! Names follow Rust conventions: every symbol, data space and loop variable
//! is put in snake case (`N` → `n`, `A` → `a`, `rowPtr` → `row_ptr`), with a
//! trailing `_` when that is a keyword (`type` → `type_`) and a numeric suffix
//! when two names would meet (`N` and `n` → `n`, `n_2`: symbols are named
//! first, then data spaces in declaration order, then loop variables).
//! Primed iterators (`i'`) become `i_1`. [`rust_parameters`] gives the
//! mapping of a program, and the generated function's documentation lists it.
//! Runtime objects (`p.insert(&[i, j])`) use the Rust runtime of
//! [`crate::runtime`], carried by the function as `mod spf_runtime`.

use std::fmt::Write as _;

use iegen::computation::{BinOp, ElemType, Role, UpdateOp};

use crate::ast::LoopProgram;
use crate::emit::{
    lower, print, print_conds, print_place, Action, CmpOp, Code, Dialect, EmitError, InitOrder,
    LNode, Lang, Lowered, ObjectInit, ParamKind, Parameter, Prec, RowFill, Ty, Used, P,
};
use crate::runtime::{Method, ObjectKind, RUST_RUNTIME};
use crate::width::{Elem, ValueType, Widths};

/// Prints `program` as a `pub fn` named after the computation (in snake case).
///
/// The function is `pub fn NAME(n: i64, ..., a: &[f64], y: &mut [f64], ...)`:
///
/// * the symbols first, as `i64`, in the computation's order;
/// * then every data space that is not a temporary, in declaration order:
///   an `in` array as `&[T]`, an `out` or `inout` array as `&mut [T]`, an
///   `in` scalar by value, an `out` or `inout` scalar as `&mut T`; `int` is
///   `i64`, `real` is `f64`;
/// * parameter names as described in the [module documentation](self).
///
/// All arithmetic is on `i64`, indices are converted with `as usize` at the
/// access (a negative index panics like any out-of-bounds one). The function
/// first asserts that each array's length is the product of its extents
/// (when they use only symbols). Multi-dimensional data spaces are row-major
/// slices. Temporaries are `vec![0; len]` (scalars: zero-initialized locals).
/// An `out` array sized by the computation (its extents use size spaces,
/// [`crate::dynamic`]) is a `&mut Vec<T>`, cleared and resized with zeros
/// right before the first top-level node touching it; its size spaces must
/// not change afterwards (such `temp` arrays are local `Vec`s, resized there).
/// A two-dimensional one that node fills row by row from each row's start
/// (`Lowered::rows_from_start`, ELL from compressed rows) is only reserved
/// there: each row's entries are pushed, and the row is padded with zeros
/// right after them.
/// `min` and `max` of reals and the ceiling division use small helper
/// functions local to the generated function, emitted only when used; their
/// semantics (`a < b ? a : b`) match the C backend's and the interpreter's.
/// The code compiles with `rustc --edition 2021 -D warnings`.
///
/// Runtime objects ([`crate::runtime`], `docs/runtime.md`) are local
/// variables created at the start of the function
/// (`let mut p = spf_runtime::Permutation::new(2, spf_runtime::Order::Counting(vec![n, m]));`)
/// and dropped at its end; calls are method calls (`p.insert(&[row[n as
/// usize], col[n as usize]]);`, `p.map(e)`, `k = b.place(col[n as usize]);`;
/// an object that a method changes — `insert`, `sort`, `place` — is `let
/// mut`). A function that calls an object
/// carries the runtime ([`RUST_RUNTIME`]) as a module `spf_runtime` at the
/// end of its body, so that it is self-contained and several functions can
/// share a file. Objects the function never calls are not created.
///
/// # Errors
///
/// [`EmitError::Object`] and [`EmitError::Call`] for runtime objects the
/// runtime does not provide or calls it does not accept, and the other
/// [`EmitError`]s for programs that do not fit their computation (unknown
/// names, writes to inputs, ...).
pub fn emit_rust(program: &LoopProgram) -> Result<String, EmitError> {
    emit_rust_with(program, &Widths::default())
}

/// [`emit_rust`] with the index arrays the function takes and returns
/// stored at `widths` (`i32` or `i64`, [`crate::width`]): a 32-bit element
/// is read as `i64::from(a[i])` and stored as `v as i32`, after the
/// function has checked (a panic naming the size otherwise) that each
/// symbol, and the length of each array it sizes, fits 32 bits.
///
/// # Errors
///
/// As [`emit_rust`].
pub fn emit_rust_with(program: &LoopProgram, widths: &Widths) -> Result<String, EmitError> {
    let mut low = lower(program, Lang::Rust, widths)?;
    let params = low.parameters();

    // Length assertions for the arrays with static extents.
    let mut asserts = Vec::new();
    let mut asserted = vec![false; low.comp.spaces.len()];
    for (s, d) in low.comp.spaces.iter().enumerate() {
        if d.role != Role::Temp && !d.extents.is_empty() && low.static_extents(s) {
            let extents = low.extents(s)?;
            asserts.push((s, extents));
            asserted[s] = true;
        }
    }
    // Temporaries in use.
    let mut temps = Vec::new();
    for (s, d) in low.comp.spaces.iter().enumerate() {
        if d.role == Role::Temp && (low.read[s] || low.written[s]) {
            let extents = low.extents(s)?;
            temps.push((s, extents));
        }
    }

    // Arrays sized by the computation: allocated before the top-level node
    // `alloc_at` gives (out: always, it is returned; temp: when used).
    let mut dynamic = Vec::new();
    for (s, d) in low.comp.spaces.iter().enumerate() {
        if let Some(at) = low.alloc_at[s] {
            if d.role == Role::Out || low.read[s] || low.written[s] {
                let extents = low.extents(s)?;
                dynamic.push((s, at, extents));
            }
        }
    }

    // Two-dimensional arrays filled row by row from each row's start (ELL
    // from compressed rows): each row's entries are pushed and the row
    // padded with zeros right after them, not the whole array zeroed at
    // allocation (docs/computations.md).
    let fills = low.row_fills(dynamic.iter().map(|(s, _, e)| (*s, e.as_slice())));

    // Runtime objects in use: their constructor arguments count as uses.
    let mut objects = Vec::new();
    for o in low.used_objects() {
        let init = low.object_init(o)?;
        objects.push((o, init));
    }

    let dialect = RustDialect {
        low: &low,
        used: Used::default(),
    };
    let mut w = Writer {
        d: &dialect,
        out: String::new(),
        depth: 1,
        fills: &fills,
        top: 0,
        path: Vec::new(),
        pushed: Vec::new(),
    };
    // 32-bit arrays: the sizes their values are bounded by fit 32 bits.
    if low.any_narrow() {
        dialect.used.add("spf_fits_i32");
        for p in params.iter().filter(|p| p.kind == ParamKind::Symbol) {
            w.line(&format!(
                "spf_fits_i32(\"the symbol {}\", {});",
                p.source, p.name
            ));
        }
    }
    for (s, extents) in &asserts {
        let name = &low.spaces[*s];
        let len = length(&dialect, extents);
        w.line(&format!("assert_eq!({name}.len(), {len});"));
    }
    for (k, p) in params.iter().enumerate() {
        let used = if k < low.comp.symbols.len() {
            low.sym_used[k]
        } else {
            let s = low
                .comp
                .spaces
                .iter()
                .position(|d| d.name == p.source)
                .unwrap_or(0);
            low.read[s] || low.written[s] || asserted[s] || low.alloc_at[s].is_some()
        };
        if !used {
            w.line(&format!("let _ = {};", p.name));
        }
    }
    for (s, extents) in &temps {
        let d = &low.comp.spaces[*s];
        let name = &low.spaces[*s];
        let mutable = if low.written[*s] { "mut " } else { "" };
        let zero = zero(&low, *s);
        if low.alloc_at[*s].is_some() {
            w.line(&format!(
                "let mut {name}: Vec<{}> = Vec::new();",
                rust_type(d.elem, low.values)
            ));
        } else if extents.is_empty() {
            if low.written[*s] {
                // Temporaries start at zero, as in C and the interpreter,
                // even where the first statement overwrites that zero.
                w.line("#[allow(unused_assignments)]");
            }
            w.line(&format!("let {mutable}{name} = {zero};"));
        } else {
            let len = length(&dialect, extents);
            w.line(&format!("let {mutable}{name} = vec![{zero}; {len}];"));
        }
    }
    // `out` data spaces start at zero: the computation defines them whole.
    for (s, d) in low.comp.spaces.iter().enumerate() {
        if d.role != Role::Out || !(low.read[s] || low.written[s]) || low.alloc_at[s].is_some() {
            continue;
        }
        let name = &low.spaces[s];
        let zero = zero(&low, s);
        if d.extents.is_empty() {
            w.line(&format!("*{name} = {zero};"));
        } else {
            w.line(&format!("{name}.fill({zero});"));
        }
    }
    for (o, init) in &objects {
        let line = object_init(&dialect, *o, init);
        w.line(&line);
    }
    // The top-level nodes, with the allocations of the arrays sized by the
    // computation before them (their size spaces are final from there on).
    for t in 0..=low.body.len() {
        for (s, at, extents) in &dynamic {
            if *at != t {
                continue;
            }
            let name = &low.spaces[*s];
            let zero = zero(&low, *s);
            let len = length(&dialect, extents);
            w.line("// sized by the computation");
            if low.any_narrow() && low.comp.spaces[*s].role == Role::Out {
                // Its positions are below its length: they must fit too.
                dialect.used.add("spf_fits_i32");
                let n = print(&dialect, &product(extents)).text;
                w.line(&format!(
                    "spf_fits_i32(\"the length of the output {}\", {n});",
                    low.comp.spaces[*s].name
                ));
            }
            w.line(&format!("{name}.clear();"));
            if fills.iter().any(|(_, _, spaces)| spaces.contains(s)) {
                w.line(&format!("{name}.reserve({len}); // filled row by row"));
            } else {
                w.line(&format!("{name}.resize({len}, {zero});"));
            }
        }
        if let Some(node) = low.body.get(t) {
            w.top = t;
            w.node(node, t + 1 == low.body.len());
        }
    }
    for (s, extents) in &temps {
        if extents.is_empty() && !low.read[*s] {
            w.line(&format!("let _ = {};", low.spaces[*s]));
        }
    }
    if !objects.is_empty() {
        w.line("");
        w.line("// The spf runtime (codegen/src/runtime/spf_runtime.rs, docs/runtime.md).");
        w.line("#[allow(dead_code)]");
        w.open("mod spf_runtime {");
        for line in RUST_RUNTIME.lines() {
            w.line(line);
        }
        w.close();
    }
    let body = w.out;

    let mut out = String::new();
    let _ = writeln!(
        out,
        "/// `{}`, generated by spf.\n///\n/// Parameters (name in the computation → here):",
        low.comp.name
    );
    for p in &params {
        let what = match &p.kind {
            ParamKind::Symbol => "symbol".to_string(),
            ParamKind::Array { elem, role } => {
                format!("{} array, {}", array_elem_name(*elem), role_name(*role))
            }
            ParamKind::Scalar { elem, role } => {
                format!("{} scalar, {}", elem_name(*elem), role_name(*role))
            }
            ParamKind::DynArray { elem } => {
                format!(
                    "{} array, out, sized by the computation",
                    array_elem_name(*elem)
                )
            }
        };
        let _ = writeln!(out, "/// * `{}` → `{}`: {what}", p.source, p.name);
    }
    if params.len() > 7 {
        out.push_str("#[allow(clippy::too_many_arguments)]\n");
    }
    out.push_str(&signature(&low.function, &params, low.values));
    out.push_str(" {\n");
    for (name, text) in HELPERS {
        if dialect.used.contains(name) {
            out.push_str(text);
            out.push('\n');
        }
    }
    out.push_str(&body);
    out.push_str("}\n");
    Ok(out)
}

/// The parameters of the function [`emit_rust`] prints, in order, with their
/// Rust names.
///
/// # Errors
///
/// As [`emit_rust`].
pub fn rust_parameters(program: &LoopProgram) -> Result<Vec<Parameter>, EmitError> {
    rust_parameters_with(program, &Widths::default())
}

/// The parameters of the function [`emit_rust_with`] prints at `widths`.
///
/// # Errors
///
/// As [`emit_rust`].
pub fn rust_parameters_with(
    program: &LoopProgram,
    widths: &Widths,
) -> Result<Vec<Parameter>, EmitError> {
    Ok(lower(program, Lang::Rust, widths)?.parameters())
}

const HELPERS: &[(&str, &str)] = &[
    (
        "spf_min_f64",
        "    fn spf_min_f64(a: f64, b: f64) -> f64 {\n        if a < b { a } else { b }\n    }",
    ),
    (
        "spf_max_f64",
        "    fn spf_max_f64(a: f64, b: f64) -> f64 {\n        if a > b { a } else { b }\n    }",
    ),
    (
        "spf_min_f32",
        "    fn spf_min_f32(a: f32, b: f32) -> f32 {\n        if a < b { a } else { b }\n    }",
    ),
    (
        "spf_max_f32",
        "    fn spf_max_f32(a: f32, b: f32) -> f32 {\n        if a > b { a } else { b }\n    }",
    ),
    (
        "spf_fits_i32",
        "    // A size a 32-bit index array's values are bounded by fits 32 bits.\n    \
         fn spf_fits_i32(what: &str, n: i64) {\n        \
         assert!(\n            n.unsigned_abs() <= i32::MAX as u64,\n            \
         \"{what} is {n}: more than 32-bit indices hold (2147483647); use 64-bit indices\"\n        \
         );\n    }",
    ),
    (
        "spf_ceild",
        "    // ⌈a / b⌉ for b > 0\n    fn spf_ceild(a: i64, b: i64) -> i64 {\n        -((-a).div_euclid(b))\n    }",
    ),
];

/// `let mut p = spf_runtime::Permutation::new(2, spf_runtime::Order::Lex);`.
fn object_init(d: &RustDialect<'_>, o: usize, init: &ObjectInit) -> String {
    let low = d.low;
    let name = &low.objects[o];
    let mutable = if low.object_mutated[o] { "mut " } else { "" };
    let list = |es: &[&Code]| {
        es.iter()
            .map(|e| print(d, e).text)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let value = match init {
        ObjectInit::Permutation {
            arity,
            compared,
            order,
        } => {
            let order = match order {
                InitOrder::Lex => "spf_runtime::Order::Lex".to_string(),
                InitOrder::Morton => "spf_runtime::Order::Morton".to_string(),
                InitOrder::Counting(es) => format!(
                    "spf_runtime::Order::Counting(vec![{}])",
                    list(&es.iter().collect::<Vec<_>>())
                ),
            };
            if compared < arity {
                // The last `arity - compared` components are a payload.
                format!("spf_runtime::Permutation::with_compared({arity}, {compared}, {order})")
            } else {
                format!("spf_runtime::Permutation::new({arity}, {order})")
            }
        }
        ObjectInit::Scatter { extent } => {
            format!("spf_runtime::Scatter::new({})", print(d, extent).text)
        }
        ObjectInit::OrderedSet { bounds: None } => "spf_runtime::OrderedSet::new()".to_string(),
        ObjectInit::OrderedSet {
            bounds: Some((lo, hi)),
        } => format!("spf_runtime::OrderedSet::with_bounds({})", list(&[lo, hi])),
    };
    format!("let {mutable}{name} = {value};")
}

fn elem_name(e: ElemType) -> &'static str {
    match e {
        ElemType::Int => "integer",
        ElemType::Real => "real",
    }
}

fn array_elem_name(e: Elem) -> String {
    match e {
        Elem::Int(w) => format!("{w}-bit integer"),
        Elem::Real(ValueType::F64) => "real".into(),
        Elem::Real(t) => format!("real ({t})"),
    }
}

/// The zero of data space `s`'s elements, typed (`0_i32`, `0_i64`,
/// `0.0_f64`, `0.0_f32`).
fn zero(low: &Lowered<'_>, s: usize) -> String {
    match low.elem(s) {
        Elem::Real(t) if !t.is_integer() => format!("0.0_{}", t.rust_type()),
        e => format!("0_{}", e.rust_type()),
    }
}

fn role_name(r: Role) -> &'static str {
    match r {
        Role::In => "in",
        Role::Out => "out",
        Role::InOut => "inout",
        Role::Temp => "temp",
    }
}

/// The Rust type of a temporary or scalar of `e` in a function whose
/// values are `values`: `i64`, or the value type.
fn rust_type(e: ElemType, values: ValueType) -> &'static str {
    match e {
        ElemType::Int => "i64",
        ElemType::Real => values.rust_type(),
    }
}

fn signature(name: &str, params: &[Parameter], values: ValueType) -> String {
    let decls: Vec<String> = params
        .iter()
        .map(|p| {
            let ty = match &p.kind {
                ParamKind::Symbol => "i64".to_string(),
                ParamKind::Array {
                    elem,
                    role: Role::In,
                } => format!("&[{}]", elem.rust_type()),
                ParamKind::Array { elem, .. } => format!("&mut [{}]", elem.rust_type()),
                ParamKind::Scalar {
                    elem,
                    role: Role::In,
                } => rust_type(*elem, values).to_string(),
                ParamKind::Scalar { elem, .. } => format!("&mut {}", rust_type(*elem, values)),
                ParamKind::DynArray { elem } => format!("&mut Vec<{}>", elem.rust_type()),
            };
            format!("{}: {ty}", p.name)
        })
        .collect();
    let one_line = format!("pub fn {name}({})", decls.join(", "));
    if one_line.len() <= 98 {
        return one_line;
    }
    format!("pub fn {name}(\n    {},\n)", decls.join(",\n    "))
}

/// `e0 * e1 * ...`.
fn product(extents: &[Code]) -> Code {
    let mut acc: Option<Code> = None;
    for e in extents {
        acc = Some(match acc {
            None => e.clone(),
            Some(a) => Code::Bin(BinOp::Mul, Ty::Int, Box::new(a), Box::new(e.clone())),
        });
    }
    acc.unwrap_or(Code::Int(1))
}

/// `(e0 * e1 * ...) as usize`.
fn length(d: &RustDialect<'_>, extents: &[Code]) -> String {
    match product(extents) {
        Code::Int(k) => format!("{}", k.max(0)),
        c => format!("{} as usize", print(d, &c).at(Prec::Cast)),
    }
}

struct RustDialect<'l> {
    low: &'l Lowered<'l>,
    used: Used,
}

impl Dialect for RustDialect<'_> {
    fn int(&self, k: i64) -> P {
        if k == i64::MIN {
            P::atom("i64::MIN")
        } else if k < 0 {
            P::new(k.to_string(), Prec::Unary)
        } else {
            P::atom(k.to_string())
        }
    }

    fn real(&self, x: f64) -> P {
        let t = self.low.values;
        if t.is_integer() {
            // A literal of an integer value type, converted as `as` does.
            return if x.fract() == 0.0 && x.abs() < 2f64.powi(31) {
                P::atom(format!("{}_{}", x as i64, t.rust_type()))
            } else {
                P::new(format!("{x:?}_f64 as {}", t.rust_type()), Prec::Cast)
            };
        }
        let float = t.rust_type();
        if x.is_nan() {
            P::atom(format!("{float}::NAN"))
        } else if x.is_infinite() {
            P::atom(if x > 0.0 {
                format!("{float}::INFINITY")
            } else {
                format!("{float}::NEG_INFINITY")
            })
        } else if t == ValueType::F32 {
            P::new(format!("{x:?}_f32"), Prec::Unary)
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
            return P::atom(format!("i64::from({})", place.text));
        }
        place
    }

    fn place(&self, space: usize, index: Option<&Code>) -> P {
        let name = &self.low.spaces[space];
        let d = &self.low.comp.spaces[space];
        match index {
            Some(i) => P::atom(format!(
                "{name}[{} as usize]",
                print(self, i).at(Prec::Cast)
            )),
            None if d.role.is_live_out() => P::new(format!("*{name}"), Prec::Unary),
            None => P::atom(name.clone()),
        }
    }

    fn to_real(&self, inner: &Code) -> P {
        P::new(
            format!(
                "{} as {}",
                print(self, inner).at(Prec::Cast),
                self.low.values.rust_type()
            ),
            Prec::Cast,
        )
    }

    fn min_max(&self, op: BinOp, ty: Ty, a: &Code, b: &Code) -> P {
        let values = match ty {
            Ty::Int => ValueType::I64,
            Ty::Real => self.low.values,
        };
        let name = match (op, values) {
            (BinOp::Min, ValueType::I64) => "i64::min",
            (BinOp::Min, ValueType::I32) => "i32::min",
            (BinOp::Min, ValueType::F64) => "spf_min_f64",
            (BinOp::Min, ValueType::F32) => "spf_min_f32",
            (_, ValueType::I64) => "i64::max",
            (_, ValueType::I32) => "i32::max",
            (_, ValueType::F64) => "spf_max_f64",
            (_, ValueType::F32) => "spf_max_f32",
        };
        if name.starts_with("spf_") {
            self.used.add(name);
        }
        P::atom(format!(
            "{name}({}, {})",
            print(self, a).text,
            print(self, b).text
        ))
    }

    fn floor_div(&self, a: &Code, d: i64) -> P {
        match a {
            Code::Int(k) => P::atom(format!("i64::div_euclid({k}, {d})")),
            a => P::atom(format!("{}.div_euclid({d})", print(self, a).at(Prec::Atom))),
        }
    }

    fn ceil_div(&self, a: &Code, d: i64) -> P {
        self.used.add("spf_ceild");
        P::atom(format!("spf_ceild({}, {d})", print(self, a).text))
    }

    fn call(&self, object: usize, method: Method, args: &[Code]) -> P {
        let args: Vec<String> = args.iter().map(|a| print(self, a).text).collect();
        P::atom(format!(
            "{}.{}({})",
            self.low.objects[object],
            method.name(),
            args.join(", ")
        ))
    }

    fn cmp_lhs(&self, p: P, op: CmpOp) -> String {
        // `x as f64 < y` parses `f64<` as the start of generic arguments.
        if matches!(op, CmpOp::Lt | CmpOp::Le) && ends_with_cast(&p.text) {
            format!("({})", p.text)
        } else {
            p.at(Prec::Add)
        }
    }
}

/// Whether `text` ends with `as TYPE` outside any brackets.
fn ends_with_cast(text: &str) -> bool {
    let mut depth = 0i32;
    let mut last = None;
    for (at, c) in text.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ if depth == 0 && text[at..].starts_with(" as ") => last = Some(at + 4),
            _ => {}
        }
    }
    last.is_some_and(|start| {
        text[start..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

struct Writer<'d, 'l> {
    d: &'d RustDialect<'l>,
    out: String,
    depth: usize,
    /// The row fills of [`Lowered::row_fills`]: their arrays are pushed to.
    fills: &'d [(usize, RowFill, Vec<usize>)],
    /// The top-level node being printed, and the child indices from its
    /// body to the node being printed (a row fill's `path`).
    top: usize,
    path: Vec<usize>,
    /// The arrays the loop being printed fills by pushing.
    pushed: Vec<usize>,
}

impl<'d> Writer<'d, '_> {
    fn line(&mut self, text: &str) {
        if text.is_empty() {
            self.out.push('\n');
            return;
        }
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

    /// `value` as stored into data space `space`: narrowed to `i32` for a
    /// 32-bit array (the function's size checks make it fit).
    fn stored(&self, space: usize, value: &Code) -> String {
        if self.d.low.narrow(space) {
            format!("{} as i32", print(self.d, value).at(Prec::Cast))
        } else {
            self.expr(value)
        }
    }

    fn nodes(&mut self, nodes: &[LNode]) {
        for (k, n) in nodes.iter().enumerate() {
            self.path.push(k);
            self.node(n, k + 1 == nodes.len());
            self.path.pop();
        }
    }

    /// The row fill whose loop over a row's entries is the node being
    /// printed.
    fn fill_here(&self) -> Option<&'d (usize, RowFill, Vec<usize>)> {
        let fills: &'d [(usize, RowFill, Vec<usize>)] = self.fills;
        fills
            .iter()
            .find(|(at, fill, _)| *at == self.top && fill.path == self.path)
    }

    /// `last`: nothing follows in the enclosing block, so a `let` needs no
    /// block of its own.
    fn node(&mut self, node: &LNode, last: bool) {
        match node {
            LNode::For {
                var,
                used,
                lower,
                upper,
                body,
            } => {
                let var = if *used { var.as_str() } else { "_" };
                let lo = match (lower, upper) {
                    // Two literals would make the loop variable an `i32`.
                    (Code::Int(k), Code::Int(_)) => format!("{k}_i64"),
                    _ => self.expr(lower),
                };
                let hi = self.expr(upper);
                let fill = self.fill_here();
                if let Some((_, _, spaces)) = fill {
                    self.pushed = spaces.clone();
                }
                self.open(&format!("for {var} in {lo}..{hi} {{"));
                self.nodes(body);
                self.close();
                if let Some((_, fill, spaces)) = fill {
                    // The row's padding: its entries fit the row (the
                    // interpreter rejects `a(r, W)` as out of bounds). Pushed
                    // in a loop: a `resize` call per row cost more than a
                    // row of a few entries.
                    self.pushed.clear();
                    let end = format!("({}) as usize", self.expr(&fill.row_end()));
                    for &s in spaces {
                        let name = &self.d.low.spaces[s];
                        let zero = zero(self.d.low, s);
                        self.line(&format!("assert!({name}.len() <= {end});"));
                        self.line(&format!("for _ in {name}.len()..{end} {{"));
                        self.line(&format!("    {name}.push({zero});"));
                        self.line("}");
                    }
                }
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
                let prefix = if *used { "" } else { "_" };
                let ty = if matches!(value, Code::Int(_)) {
                    ": i64"
                } else {
                    ""
                };
                let v = self.expr(value);
                self.line(&format!("let {prefix}{var}{ty} = {v};"));
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
                    self.open(&format!("if {c} {{"));
                }
                self.nodes(body);
                self.close();
            }
            LNode::Stmt { name, actions } => {
                self.line(&format!("// {name}"));
                self.actions(actions);
            }
        }
    }

    fn actions(&mut self, actions: &[Action]) {
        for a in actions {
            match a {
                Action::Update {
                    target:
                        Code::Elem {
                            space,
                            index: Some(index),
                            ..
                        },
                    value,
                    ..
                } if self.pushed.contains(space) => {
                    // The element the row is at: every earlier one is written.
                    let name = &self.d.low.spaces[*space];
                    let at = self.expr(index);
                    let v = self.stored(*space, value);
                    self.line(&format!("debug_assert_eq!({name}.len(), ({at}) as usize);"));
                    self.line(&format!("{name}.push({v});"));
                }
                Action::Update { target, op, value } => {
                    let t = print_place(self.d, target).text;
                    let narrow = match target {
                        Code::Elem { space, .. } => Some(*space).filter(|&s| self.d.low.narrow(s)),
                        _ => None,
                    };
                    let v = match narrow {
                        Some(s) if !matches!(op, UpdateOp::Min | UpdateOp::Max) => {
                            self.stored(s, value)
                        }
                        _ => self.expr(value),
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
                            let call = self.d.min_max(bin, target.ty(), target, value);
                            match narrow {
                                Some(_) => format!("{t} = {} as i32;", call.at(Prec::Cast)),
                                None => format!("{t} = {};", call.text),
                            }
                        }
                    };
                    self.line(&text);
                }
                Action::If { conds, then } => {
                    let c = print_conds(self.d, conds);
                    self.open(&format!("if {c} {{"));
                    self.actions(then);
                    self.close();
                }
                Action::Call {
                    object,
                    method,
                    args,
                } => {
                    let low = self.d.low;
                    let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                    let perm = matches!(low.specs[*object].kind, ObjectKind::Permutation { .. });
                    let args = if perm && *method == Method::Insert {
                        format!("&[{}]", args.join(", "))
                    } else {
                        args.join(", ")
                    };
                    let name = &low.objects[*object];
                    self.line(&format!("{name}.{}({args});", method.name()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ends_with_cast;

    #[test]
    fn casts_at_the_end_are_found_outside_brackets_only() {
        assert!(ends_with_cast("i as f64"));
        assert!(ends_with_cast("a[k as usize] * i as f64"));
        assert!(!ends_with_cast("s[i as usize]"));
        assert!(!ends_with_cast("(i as f64)"));
        assert!(!ends_with_cast("i as f64 * x"));
    }
}
