//! What the C and Rust backends share: their error type, the description of
//! a generated function's parameters, identifier mapping, and the lowering of
//! a [`LoopProgram`] into a small typed tree that each backend prints in its
//! own syntax.
//!
//! Lowering does everything that does not depend on the target language:
//! it resolves names (symbols, data spaces, loop variables), substitutes each
//! statement's iterators by their values from [`Node::Stmt`], linearizes
//! multi-dimensional accesses row-major with the data space's extents,
//! infers the type (integer or real) of every value and marks where an
//! integer is promoted to a real, folds affine sums so that `i + 1` stays
//! `i + 1`, checks runtime-object declarations and calls
//! ([`crate::runtime`]), and rejects what the backends cannot print (writes
//! to inputs, unbound variables, ...). Printing then only chooses syntax and
//! parentheses.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;

use iegen::computation::{
    Access, BinOp, Body, Computation, Condition, ElemType, Role, Stmt, UpdateOp, ValueExpr,
};
use iegen::{Atom, Expr, Var};

use crate::ast::{Guard, GuardOp, IndexExpr, LoopProgram, Node};
use crate::runtime::{
    self, check_call_at, CallError, CallSite, Method, ObjectKind, ObjectSpec, Order, SpecError,
};
use crate::width::{Elem, IndexWidth, Widths};

/// Where in a loop program an [`EmitError`] was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Site {
    /// In the body of the named statement (or in its iterator values).
    Statement(String),
    /// In the bounds of the loop over the named variable.
    Loop(String),
    /// In the value of the named `let` variable.
    Let(String),
    /// In the guard of an `if` node.
    Guard,
    /// In an extent of the named data space.
    Extent(String),
    /// In the constructor arguments of the named runtime object.
    Object(String),
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Site::Statement(s) => write!(f, "statement {s}"),
            Site::Loop(v) => write!(f, "bounds of the loop over `{v}`"),
            Site::Let(v) => write!(f, "value of `{v}`"),
            Site::Guard => write!(f, "guard"),
            Site::Extent(s) => write!(f, "extent of data space `{s}`"),
            Site::Object(o) => write!(f, "arguments of runtime object `{o}`"),
        }
    }
}

/// Why a loop program cannot be printed as C or Rust.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EmitError {
    /// A construct the backends do not support. Not produced by the current
    /// backends (runtime-object calls are supported since the runtime exists).
    #[error("statement {stmt}: {what} is not supported by the code generators yet")]
    Unsupported {
        /// The statement.
        stmt: String,
        /// What it uses.
        what: String,
    },
    /// A node refers to a statement the computation does not have.
    #[error("the loop AST refers to statement #{index} but the computation has {count}")]
    NoSuchStatement {
        /// The index in the node.
        index: usize,
        /// The number of statements.
        count: usize,
    },
    /// A statement node gives a number of iterator values different from the
    /// domain's arity.
    #[error("statement {stmt}: the loop AST gives {found} iterator values but its domain has {expected} iterators")]
    IteratorCount {
        /// The statement.
        stmt: String,
        /// The domain's arity.
        expected: usize,
        /// The number of values given.
        found: usize,
    },
    /// A statement body uses an iterator position outside its domain's tuple,
    /// or an existentially quantified variable.
    #[error("statement {stmt}: the body uses the variable {var}, which is not an iterator of its domain")]
    BadIterator {
        /// The statement.
        stmt: String,
        /// The variable, as printed by iegen.
        var: String,
    },
    /// A name used as a data space (an access or an index array call) that
    /// the computation does not declare.
    #[error("{site}: `{name}` is not a data space of the computation")]
    UnknownSpace {
        /// Where.
        site: Site,
        /// The name.
        name: String,
    },
    /// An index array call (a UF) on a data space of reals.
    #[error("{site}: `{name}` holds reals and cannot be used as an index array")]
    NotIndexArray {
        /// Where.
        site: Site,
        /// The data space.
        name: String,
    },
    /// An access with a number of indices different from the data space's
    /// number of dimensions.
    #[error(
        "{site}: data space `{space}` has {expected} dimension(s) but is indexed with {found}"
    )]
    Arity {
        /// Where.
        site: Site,
        /// The data space.
        space: String,
        /// Its number of dimensions.
        expected: usize,
        /// The number of indices given.
        found: usize,
    },
    /// A symbolic constant the computation does not declare.
    #[error("{site}: `{name}` is not a symbol of the computation")]
    UnknownSymbol {
        /// Where.
        site: Site,
        /// The name.
        name: String,
    },
    /// A variable that no enclosing loop or `let` binds (or a variable in
    /// an extent, which may only use symbols and index arrays).
    #[error("{site}: variable `{name}` is not bound by an enclosing loop or let")]
    UnboundVariable {
        /// Where.
        site: Site,
        /// The variable.
        name: String,
    },
    /// A statement writes a data space whose role is `in`.
    #[error("statement {stmt} writes `{space}`, an input of the computation")]
    WriteToInput {
        /// The statement.
        stmt: String,
        /// The data space.
        space: String,
    },
    /// A real value assigned to an integer data space.
    #[error("statement {stmt} stores a real value into `{space}`, which holds integers")]
    RealToInt {
        /// The statement.
        stmt: String,
        /// The data space.
        space: String,
    },
    /// A comparison operator other than `==`, `!=`, `<`, `<=`, `>`, `>=`.
    #[error("statement {stmt}: unknown comparison operator `{op}`")]
    Comparison {
        /// The statement.
        stmt: String,
        /// The operator.
        op: String,
    },
    /// A floor or ceiling division by a constant that is not positive.
    #[error("{site}: division by {divisor}; loop ASTs divide by positive constants only")]
    Divisor {
        /// Where.
        site: Site,
        /// The divisor.
        divisor: i64,
    },
    /// `min` or `max` of no values.
    #[error("{site}: min or max of no values")]
    EmptyMinMax {
        /// Where.
        site: Site,
    },
    /// The computation's name is not a usable identifier.
    #[error("the computation's name `{0}` is not a valid identifier")]
    FunctionName(String),
    /// A runtime object declaration the runtime does not provide.
    #[error("runtime object `{object}`: {error}")]
    Object {
        /// The object.
        object: String,
        /// What is wrong with its declaration.
        error: SpecError,
    },
    /// An invalid call of a runtime object.
    #[error("statement {stmt}: {error}")]
    Call {
        /// The statement.
        stmt: String,
        /// What is wrong with the call.
        error: CallError,
    },
}

/// What a parameter of a generated function stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A symbolic constant, passed as a 64-bit integer.
    Symbol,
    /// A data space with at least one dimension, passed as a pointer (C) or
    /// a slice (Rust) of its elements, row-major.
    Array {
        /// Element type, with an index array's width.
        elem: Elem,
        /// `In` (read-only), `Out` or `InOut` (written).
        role: Role,
    },
    /// An `out` data space sized by the computation (its extents use size
    /// spaces, see [`crate::dynamic`]): allocated by the function and
    /// returned through a `T **` parameter in C (the caller frees it), a
    /// `&mut Vec<T>` in Rust (cleared, then resized).
    DynArray {
        /// Element type, with an index array's width.
        elem: Elem,
    },
    /// A data space without dimensions: by value when its role is `In`,
    /// by pointer (C) or `&mut` (Rust) otherwise.
    Scalar {
        /// Element type.
        elem: ElemType,
        /// `In`, `Out` or `InOut`.
        role: Role,
    },
}

/// One parameter of a generated function, in order: the symbols first, then
/// the data spaces that are not temporaries, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parameter {
    /// The name in the computation (`NNZ`, `A`).
    pub source: String,
    /// The parameter's name in the generated code (`NNZ`, `A` in C; `nnz`,
    /// `a` in Rust).
    pub name: String,
    /// What it stands for.
    pub kind: ParamKind,
}

// ---------------------------------------------------------------------------
// Identifiers

/// The two target languages, for identifier rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lang {
    C,
    Rust,
}

#[rustfmt::skip]
const C_RESERVED: &[&str] = &[
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "_Bool", "_Complex", "_Imaginary", "bool",
    "true", "false", "int64_t", "size_t", "NULL", "INT64_MIN", "INT64_C", "INFINITY", "NAN",
    "abort", "calloc", "free", "main", "spf_z",
];

#[rustfmt::skip]
const RUST_RESERVED: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final",
    "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen", "union",
    "i64", "f64", "usize", "std", "core", "vec", "main",
];

/// The names of the helpers the backends may emit; never given to anything else.
const HELPERS: &[&str] = &[
    "spf_min_i64",
    "spf_max_i64",
    "spf_min_f64",
    "spf_max_f64",
    "spf_floord",
    "spf_ceild",
    "spf_len",
    "spf_fits_i32",
];

/// `rowPtr` → `row_ptr`, `NNZ` → `nnz`, `A` → `a`, `Acoo` → `acoo`.
pub(crate) fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 2);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev = i.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(i + 1).copied();
            let boundary = match prev {
                Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_ascii_uppercase() => next.is_some_and(|n| n.is_ascii_lowercase()),
                _ => false,
            };
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A valid identifier close to `name`: trailing primes (`i'`, `i''`) become
/// `_1`, `_2`; any other character outside `[A-Za-z0-9_]` becomes `_`.
fn sanitize(name: &str) -> String {
    let body = name.trim_end_matches('\'');
    let primes = name.len() - body.len();
    let mut out: String = body
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'v');
    }
    if primes > 0 {
        out.push_str(&format!("_{primes}"));
    }
    out
}

/// Whether `name` is already a plain identifier.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Hands out distinct identifiers of one generated function.
#[derive(Clone, Debug)]
pub(crate) struct Namer {
    lang: Lang,
    used: HashSet<String>,
}

impl Namer {
    pub(crate) fn new(lang: Lang) -> Self {
        Namer {
            lang,
            used: HashSet::new(),
        }
    }

    fn reserved(&self, name: &str) -> bool {
        let list = match self.lang {
            Lang::C => C_RESERVED,
            Lang::Rust => RUST_RESERVED,
        };
        list.contains(&name) || HELPERS.contains(&name) || runtime::is_reserved(name)
    }

    /// The identifier a source name would get, before uniqueness.
    pub(crate) fn base(&self, source: &str) -> String {
        let mut b = sanitize(source);
        if self.lang == Lang::Rust {
            b = snake_case(&b);
        }
        if self.reserved(&b) {
            b.push('_');
        }
        b
    }

    /// A new identifier for `source`, distinct from every one handed out.
    pub(crate) fn fresh(&mut self, source: &str) -> String {
        let base = self.base(source);
        let mut candidate = base.clone();
        let mut n = 2;
        while self.used.contains(&candidate) || self.reserved(&candidate) {
            candidate = format!("{base}_{n}");
            n += 1;
        }
        self.used.insert(candidate.clone());
        candidate
    }
}

/// The generated function's name: C keeps the computation's name (it must
/// be an identifier and not a keyword), Rust takes its snake case.
pub(crate) fn function_name(comp: &Computation, lang: Lang) -> Result<String, EmitError> {
    let name = &comp.name;
    if !is_identifier(name) {
        return Err(EmitError::FunctionName(name.clone()));
    }
    let namer = Namer::new(lang);
    match lang {
        Lang::C if namer.reserved(name) => Err(EmitError::FunctionName(name.clone())),
        Lang::C => Ok(name.clone()),
        Lang::Rust => Ok(namer.base(name)),
    }
}

// ---------------------------------------------------------------------------
// The lowered tree

/// The type of a value: integers are 64-bit signed, reals are doubles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    Int,
    Real,
}

impl Ty {
    fn of(e: ElemType) -> Ty {
        match e {
            ElemType::Int => Ty::Int,
            ElemType::Real => Ty::Real,
        }
    }
}

/// A comparison in a lowered guard or condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub(crate) fn parse(op: &str) -> Option<CmpOp> {
        Some(match op {
            "==" => CmpOp::Eq,
            "!=" => CmpOp::Ne,
            "<" => CmpOp::Lt,
            "<=" => CmpOp::Le,
            ">" => CmpOp::Gt,
            ">=" => CmpOp::Ge,
            _ => return None,
        })
    }

    pub(crate) fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// A target-neutral expression; names are already the generated ones.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Code {
    Int(i64),
    Real(f64),
    /// A loop or let variable.
    Var(String),
    /// A symbol parameter.
    Sym(String),
    /// An element of a data space (by index in the computation's spaces);
    /// `index` is the linearized index, `None` for a scalar.
    Elem {
        space: usize,
        index: Option<Box<Code>>,
        ty: Ty,
    },
    /// `Σ c·t + k` over integers, flattened.
    Lin(Vec<(i64, Code)>, i64),
    Neg(Box<Code>, Ty),
    /// Binary arithmetic (including min and max) of two operands of type `Ty`.
    Bin(BinOp, Ty, Box<Code>, Box<Code>),
    FloorDiv(Box<Code>, i64),
    CeilDiv(Box<Code>, i64),
    /// An integer used as a real.
    ToReal(Box<Code>),
    /// A value method of a runtime object (by index in the computation's
    /// objects); always an integer.
    Call {
        object: usize,
        method: Method,
        args: Vec<Code>,
    },
}

impl Code {
    pub(crate) fn ty(&self) -> Ty {
        match self {
            Code::Real(_) | Code::ToReal(_) => Ty::Real,
            Code::Elem { ty, .. } | Code::Neg(_, ty) | Code::Bin(_, ty, _, _) => *ty,
            _ => Ty::Int,
        }
    }

    /// Calls `visit` on every loop or let variable inside.
    pub(crate) fn for_each_var(&self, visit: &mut impl FnMut(&str)) {
        match self {
            Code::Var(n) => visit(n),
            Code::Elem { index, .. } => {
                if let Some(i) = index {
                    i.for_each_var(visit);
                }
            }
            Code::Lin(ts, _) => ts.iter().for_each(|(_, t)| t.for_each_var(visit)),
            Code::Neg(a, _) | Code::FloorDiv(a, _) | Code::CeilDiv(a, _) | Code::ToReal(a) => {
                a.for_each_var(visit)
            }
            Code::Bin(_, _, a, b) => {
                a.for_each_var(visit);
                b.for_each_var(visit);
            }
            Code::Call { args, .. } => args.iter().for_each(|a| a.for_each_var(visit)),
            Code::Int(_) | Code::Real(_) | Code::Sym(_) => {}
        }
    }

    /// This expression with every subexpression `f` maps to `Some(c)`
    /// replaced by `c` (outermost first).
    pub(crate) fn replaced(&self, f: &impl Fn(&Code) -> Option<Code>) -> Code {
        if let Some(c) = f(self) {
            return c;
        }
        let boxed = |a: &Code| Box::new(a.replaced(f));
        match self {
            Code::Elem { space, index, ty } => Code::Elem {
                space: *space,
                index: index.as_deref().map(boxed),
                ty: *ty,
            },
            Code::Lin(ts, k) => {
                Code::Lin(ts.iter().map(|(c, t)| (*c, t.replaced(f))).collect(), *k)
            }
            Code::Neg(a, ty) => Code::Neg(boxed(a), *ty),
            Code::Bin(op, ty, a, b) => Code::Bin(*op, *ty, boxed(a), boxed(b)),
            Code::FloorDiv(a, d) => Code::FloorDiv(boxed(a), *d),
            Code::CeilDiv(a, d) => Code::CeilDiv(boxed(a), *d),
            Code::ToReal(a) => Code::ToReal(boxed(a)),
            Code::Call {
                object,
                method,
                args,
            } => Code::Call {
                object: *object,
                method: *method,
                args: args.iter().map(|a| a.replaced(f)).collect(),
            },
            Code::Int(_) | Code::Real(_) | Code::Var(_) | Code::Sym(_) => self.clone(),
        }
    }

    /// Whether a runtime object's method is called inside.
    pub(crate) fn calls_object(&self) -> bool {
        match self {
            Code::Call { .. } => true,
            Code::Elem { index, .. } => index.as_deref().is_some_and(Code::calls_object),
            Code::Lin(ts, _) => ts.iter().any(|(_, t)| t.calls_object()),
            Code::Neg(a, _) | Code::FloorDiv(a, _) | Code::CeilDiv(a, _) | Code::ToReal(a) => {
                a.calls_object()
            }
            Code::Bin(_, _, a, b) => a.calls_object() || b.calls_object(),
            Code::Int(_) | Code::Real(_) | Code::Var(_) | Code::Sym(_) => false,
        }
    }

    /// Calls `visit` on every data space element inside (index arrays too).
    pub(crate) fn for_each_elem(&self, visit: &mut impl FnMut(usize)) {
        match self {
            Code::Elem { space, index, .. } => {
                visit(*space);
                if let Some(i) = index {
                    i.for_each_elem(visit);
                }
            }
            Code::Lin(ts, _) => ts.iter().for_each(|(_, t)| t.for_each_elem(visit)),
            Code::Neg(a, _) | Code::FloorDiv(a, _) | Code::CeilDiv(a, _) | Code::ToReal(a) => {
                a.for_each_elem(visit)
            }
            Code::Bin(_, _, a, b) => {
                a.for_each_elem(visit);
                b.for_each_elem(visit);
            }
            Code::Call { args, .. } => args.iter().for_each(|a| a.for_each_elem(visit)),
            Code::Int(_) | Code::Real(_) | Code::Var(_) | Code::Sym(_) => {}
        }
    }
}

/// `Σ c·t + k`, flattened: nested sums are merged, constants folded, equal
/// terms combined; a single `1·t` is `t` itself.
pub(crate) fn lin(terms: Vec<(i64, Code)>, k: i64) -> Code {
    let mut out: Vec<(i64, Code)> = Vec::new();
    let mut constant = k;
    let mut pending: Vec<(i64, Code)> = terms;
    pending.reverse();
    while let Some((c, t)) = pending.pop() {
        match t {
            Code::Int(v) => match c.checked_mul(v).and_then(|p| constant.checked_add(p)) {
                Some(s) => constant = s,
                None => out.push((c, Code::Int(v))),
            },
            Code::Lin(ts, k2) => {
                let scaled: Option<Vec<(i64, Code)>> = ts
                    .iter()
                    .map(|(c2, t2)| c.checked_mul(*c2).map(|p| (p, t2.clone())))
                    .collect();
                match (
                    scaled,
                    c.checked_mul(k2).and_then(|p| constant.checked_add(p)),
                ) {
                    (Some(mut s), Some(k3)) => {
                        constant = k3;
                        s.reverse();
                        pending.extend(s);
                    }
                    _ => out.push((c, Code::Lin(ts, k2))),
                }
            }
            t => match out.iter_mut().find(|(_, u)| *u == t) {
                Some(slot) => match slot.0.checked_add(c) {
                    Some(s) => slot.0 = s,
                    None => out.push((c, t)),
                },
                None => out.push((c, t)),
            },
        }
    }
    out.retain(|(c, _)| *c != 0);
    match (out.len(), constant) {
        (0, k) => Code::Int(k),
        (1, 0) if out[0].0 == 1 => out.pop().map(|(_, t)| t).unwrap_or(Code::Int(0)),
        _ => Code::Lin(out, constant),
    }
}

/// A comparison of two lowered values (of the same type).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Cond {
    pub lhs: Code,
    pub op: CmpOp,
    pub rhs: Code,
}

/// One update of a statement body.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Action {
    Update {
        target: Code,
        op: UpdateOp,
        value: Code,
    },
    If {
        conds: Vec<Cond>,
        then: Vec<Action>,
    },
    /// `insert` or `sort` of a runtime object.
    Call {
        object: usize,
        method: Method,
        args: Vec<Code>,
    },
}

/// How a runtime object is created, its arguments lowered.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ObjectInit {
    Permutation {
        arity: usize,
        compared: usize,
        order: InitOrder,
    },
    OrderedSet {
        bounds: Option<(Code, Code)>,
    },
    Scatter {
        extent: Code,
    },
}

/// The order of a permutation, its extents lowered.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum InitOrder {
    Lex,
    Counting(Vec<Code>),
    Morton,
}

/// A lowered loop-AST node.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum LNode {
    For {
        var: String,
        used: bool,
        lower: Code,
        upper: Code,
        body: Vec<LNode>,
    },
    Let {
        var: String,
        used: bool,
        value: Code,
        body: Vec<LNode>,
    },
    If {
        guards: Vec<Cond>,
        body: Vec<LNode>,
    },
    Stmt {
        name: String,
        actions: Vec<Action>,
    },
}

/// Calls `visit` on every data space `node` reads: everything in its bounds,
/// values, guards, call arguments and target indices, and the targets of
/// updates other than `=`.
pub(crate) fn reads_in_node(node: &LNode, visit: &mut impl FnMut(usize)) {
    let (codes, body): (Vec<&Code>, &[LNode]) = match node {
        LNode::For {
            lower, upper, body, ..
        } => (vec![lower, upper], body),
        LNode::Let { value, body, .. } => (vec![value], body),
        LNode::If { guards, body } => {
            (guards.iter().flat_map(|g| [&g.lhs, &g.rhs]).collect(), body)
        }
        LNode::Stmt { actions, .. } => {
            actions.iter().for_each(|a| reads_in_action(a, visit));
            (Vec::new(), &[])
        }
    };
    codes.into_iter().for_each(|c| c.for_each_elem(visit));
    body.iter().for_each(|n| reads_in_node(n, visit));
}

fn reads_in_action(action: &Action, visit: &mut impl FnMut(usize)) {
    match action {
        Action::Update { target, op, value } => {
            match target {
                Code::Elem { space, index, .. } => {
                    if op.reads_target() {
                        visit(*space);
                    }
                    if let Some(i) = index {
                        i.for_each_elem(visit);
                    }
                }
                other => other.for_each_elem(visit),
            }
            value.for_each_elem(visit);
        }
        Action::If { conds, then } => {
            for c in conds {
                c.lhs.for_each_elem(visit);
                c.rhs.for_each_elem(visit);
            }
            then.iter().for_each(|a| reads_in_action(a, visit));
        }
        Action::Call { args, .. } => args.iter().for_each(|a| a.for_each_elem(visit)),
    }
}

/// A placing loop a backend can look ahead in ([`Lowered::scatter_lookahead`]).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Lookahead {
    /// The scatter (by index in the objects).
    pub object: usize,
    /// `place_inserted` (each entry's position) or `slot` (its rank among
    /// its key's entries).
    pub method: Method,
    /// The innermost loop's variable, at which `keys` holds the key.
    pub var: String,
    /// The `in` array of the keys (by index in the data spaces).
    pub keys: usize,
    /// The call's argument: `keys[var]`, or a `let` variable bound to it.
    pub key: Code,
    /// The scalar assigned the position or the slot.
    pub scalar: usize,
    /// The arrays assigned at an index that uses the scalar, each with that
    /// index, in order of appearance.
    pub targets: Vec<(usize, Code)>,
}

/// Collects, in `nodes`, every unconditional `t = B.place_inserted(v)` and
/// `t = B.slot(v)` as a [`Lookahead`]; one whose key has another shape is
/// collected with no array (`keys` is `usize::MAX`), so that the caller
/// sees it and gives up. `lets`: the `let`s in scope, innermost last;
/// `var`: the innermost loop's variable (`None` once a `let` shadows it).
fn lookahead_in(
    nodes: &[LNode],
    var: Option<&str>,
    lets: &mut Vec<(String, Code)>,
    found: &mut Vec<Lookahead>,
) {
    for (i, node) in nodes.iter().enumerate() {
        match node {
            LNode::For { var: v, body, .. } => lookahead_in(body, Some(v), lets, found),
            LNode::Let {
                var: v,
                value,
                body,
                ..
            } => {
                lets.push((v.clone(), value.clone()));
                let inner = var.filter(|k| k != v);
                lookahead_in(body, inner, lets, found);
                lets.pop();
            }
            LNode::If { body, .. } => lookahead_in(body, var, lets, found),
            LNode::Stmt { actions, .. } => {
                for (a, action) in actions.iter().enumerate() {
                    let Some((t, object, method, [key])) = handout(action) else {
                        continue;
                    };
                    if !(method == Method::PlaceInserted || method.slots()) {
                        continue;
                    }
                    let read = match key {
                        Code::Var(name) => lets
                            .iter()
                            .rev()
                            .find(|(n, _)| n == name)
                            .map(|(_, value)| value),
                        key => Some(key),
                    };
                    let keys = match (read, var) {
                        (
                            Some(Code::Elem {
                                space,
                                index: Some(index),
                                ..
                            }),
                            Some(k),
                        ) if matches!(&**index, Code::Var(i) if i == k) => *space,
                        _ => usize::MAX,
                    };
                    let mut targets: Vec<(usize, Code)> = Vec::new();
                    let mut assigned = |actions: &[Action]| {
                        for action in actions {
                            if let Action::Update {
                                target:
                                    Code::Elem {
                                        space,
                                        index: Some(index),
                                        ..
                                    },
                                op: UpdateOp::Assign,
                                ..
                            } = action
                            {
                                let mut uses = false;
                                index.for_each_elem(&mut |s| uses |= s == t);
                                if uses && targets.iter().all(|(s, _)| s != space) {
                                    targets.push((*space, (**index).clone()));
                                }
                            }
                        }
                    };
                    assigned(&actions[a + 1..]);
                    for next in &nodes[i + 1..] {
                        match next {
                            LNode::Stmt { actions, .. } => assigned(actions),
                            _ => break,
                        }
                    }
                    found.push(Lookahead {
                        object,
                        method,
                        var: var.unwrap_or_default().to_string(),
                        keys,
                        key: key.clone(),
                        scalar: t,
                        targets,
                    });
                }
            }
        }
    }
}

/// `t = B.m(args)` for a method `m` that places (`place`,
/// `place_inserted`): the scalar `t`, the scatter `B`, `m` and the
/// arguments.
fn placement(action: &Action) -> Option<(usize, usize, Method, &[Code])> {
    handout(action).filter(|(_, _, method, _)| method.places())
}

/// `t = B.m(args)` for a method `m` that hands out (`place`,
/// `place_inserted`, `slot`): the scalar `t`, the scatter `B`, `m` and the
/// arguments.
fn handout(action: &Action) -> Option<(usize, usize, Method, &[Code])> {
    match action {
        Action::Update {
            target: Code::Elem {
                space, index: None, ..
            },
            op: UpdateOp::Assign,
            value:
                Code::Call {
                    object,
                    method,
                    args,
                },
        } if method.hands_out() => Some((*space, *object, *method, args)),
        _ => None,
    }
}

/// Adds to `n` the values of `nodes` that hand out positions (`place`,
/// `place_inserted`, `slot`), at any depth, under conditions too.
fn count_places(nodes: &[LNode], n: &mut usize) {
    fn in_actions(actions: &[Action], n: &mut usize) {
        for a in actions {
            match a {
                Action::Update { target, value, .. } => {
                    for c in [target, value] {
                        if matches!(c, Code::Call { method, .. } if method.hands_out()) {
                            *n += 1;
                        }
                    }
                }
                Action::If { then, .. } => in_actions(then, n),
                Action::Call { .. } => {}
            }
        }
    }
    for node in nodes {
        match node {
            LNode::Stmt { actions, .. } => in_actions(actions, n),
            LNode::For { body, .. } | LNode::Let { body, .. } | LNode::If { body, .. } => {
                count_places(body, n)
            }
        }
    }
}

/// Checks [`Lowered::placed_by`]'s pattern in `nodes` (one loop body):
/// `Err(())` when it does not hold; `object` collects the scatter.
fn placed_writes(nodes: &[LNode], space: usize, object: &mut Option<usize>) -> Result<(), ()> {
    // The scalar of a `place` whose position `space` has not been written at.
    let mut pending: Option<usize> = None;
    for node in nodes {
        let actions = match node {
            LNode::Stmt { actions, .. } => actions,
            LNode::For { body, .. } | LNode::Let { body, .. } | LNode::If { body, .. } => {
                if pending.is_some() {
                    return Err(());
                }
                placed_writes(body, space, object)?;
                continue;
            }
        };
        for a in actions {
            if let Some((t, o, _, _)) = placement(a) {
                if pending.is_some() || object.is_some_and(|b| b != o) {
                    return Err(());
                }
                *object = Some(o);
                pending = Some(t);
                continue;
            }
            match a {
                Action::Update {
                    target:
                        Code::Elem {
                            space: s, index, ..
                        },
                    op,
                    ..
                } if *s == space => {
                    let at_pending = matches!((index.as_deref(), pending), (
                        Some(Code::Elem { space: t, index: None, .. }),
                        Some(p),
                    ) if *t == p);
                    if *op != UpdateOp::Assign || !at_pending {
                        return Err(());
                    }
                    pending = None;
                }
                Action::Update {
                    target: Code::Elem { space: s, .. },
                    ..
                } if Some(*s) == pending => return Err(()),
                Action::Update { .. } => {}
                Action::If { then, .. } => {
                    if mentions_place_or_write(then, space) {
                        return Err(());
                    }
                }
                Action::Call { .. } => {}
            }
        }
    }
    if pending.is_some() {
        return Err(());
    }
    Ok(())
}

/// Whether `actions` place anything or write `space`.
fn mentions_place_or_write(actions: &[Action], space: usize) -> bool {
    actions.iter().any(|a| match a {
        Action::Update { target, value, .. } => {
            matches!(target, Code::Elem { space: s, .. } if *s == space)
                || matches!(value, Code::Call { method, .. } if method.places())
        }
        Action::If { then, .. } => mentions_place_or_write(then, space),
        Action::Call { .. } => false,
    })
}

/// Whether running `body` once assigns an element of `space` whose
/// (linearized) index `at` accepts, for sure: a statement reached through
/// `let`s only whose unconditional actions include `space[i] = ...`.
fn assigns_every_iteration(body: &[LNode], space: usize, at: &impl Fn(&Code) -> bool) -> bool {
    body.iter().any(|node| match node {
        LNode::Let { body, .. } => assigns_every_iteration(body, space, at),
        LNode::Stmt { actions, .. } => actions.iter().any(|a| {
            matches!(a, Action::Update {
                target: Code::Elem { space: s, index: Some(i), .. },
                op: UpdateOp::Assign,
                ..
            } if *s == space && at(i))
        }),
        LNode::For { .. } | LNode::If { .. } => false,
    })
}

/// The first element of row `row` of a row-major array whose rows hold
/// `width` elements: `row * width`, as [`Lowerer::elem`] linearizes it.
fn row_start(row: Code, width: &Code) -> Code {
    match (&row, width) {
        (Code::Int(0), _) | (_, Code::Int(0)) => Code::Int(0),
        (_, Code::Int(1)) => row,
        _ => Code::Bin(BinOp::Mul, Ty::Int, Box::new(row), Box::new(width.clone())),
    }
}

/// How a loop fills a two-dimensional array sized by the computation row
/// by row, each row from its start ([`Lowered::rows_from_start`]).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RowFill {
    /// The variable of the top-level loop: the row.
    pub row: String,
    /// Where the loop over the row's entries is in the top-level loop's
    /// body: child indices, through `let`s.
    pub path: Vec<usize>,
    /// How many elements of the row that loop assigns: its upper bound
    /// minus its lower bound.
    pub filled: Code,
    /// The length of a row (the second extent).
    pub width: Code,
}

impl RowFill {
    /// `(r + 1) * W`: where the row ends, the next one's first element.
    pub(crate) fn row_end(&self) -> Code {
        row_start(lin(vec![(1, Code::Var(self.row.clone()))], 1), &self.width)
    }
}

/// `node` as a loop `for var in 0..upper`: its variable, upper bound and
/// body.
pub(crate) fn loop_from_zero(node: &LNode) -> Option<(&String, &Code, &Vec<LNode>)> {
    match node {
        LNode::For {
            var,
            lower: Code::Int(0),
            upper,
            body,
            ..
        } => Some((var, upper, body)),
        _ => None,
    }
}

/// The arguments of `object`'s only `insert` when every iteration of the
/// loop over `var` whose body is `nodes` runs it once: the node of `nodes`
/// that holds it is a statement with the call among its actions (not under
/// an `if`), or a `let` (not of `var`) whose body holds it so; the `let`s
/// on the way are pushed on `lets`, outermost first.
pub(crate) fn insert_once<'n>(
    nodes: &'n [LNode],
    var: &str,
    object: usize,
    lets: &mut Vec<(&'n str, &'n Code)>,
) -> Option<&'n [Code]> {
    let node = nodes
        .iter()
        .find(|n| count_calls(std::slice::from_ref(*n), object, Method::Insert) > 0)?;
    match node {
        LNode::Let {
            var: name,
            value,
            body,
            ..
        } if name != var => {
            lets.push((name, value));
            insert_once(body, var, object, lets)
        }
        LNode::Stmt { actions, .. } => actions.iter().find_map(|a| match a {
            Action::Call {
                object: o,
                method: Method::Insert,
                args,
            } if *o == object => Some(args.as_slice()),
            _ => None,
        }),
        _ => None,
    }
}

/// Finds the first node of `nodes`, or of the bodies of their `let`s, that
/// `found` accepts: the node and its path of child indices.
fn find_through_lets<'n>(
    nodes: &'n [LNode],
    found: &impl Fn(&LNode) -> bool,
) -> Option<(&'n LNode, Vec<usize>)> {
    nodes.iter().enumerate().find_map(|(i, node)| {
        if found(node) {
            return Some((node, vec![i]));
        }
        let LNode::Let { body, .. } = node else {
            return None;
        };
        let (hit, mut path) = find_through_lets(body, found)?;
        path.insert(0, i);
        Some((hit, path))
    })
}

/// Counts the actions `matches` accepts in `nodes` (conditional ones
/// included), at any depth or, without `through_loops`, outside the loops
/// nested in `nodes`.
fn count_actions(
    nodes: &[LNode],
    through_loops: bool,
    matches: &impl Fn(&Action) -> bool,
) -> usize {
    fn in_actions(actions: &[Action], matches: &impl Fn(&Action) -> bool) -> usize {
        actions
            .iter()
            .map(|a| match a {
                Action::If { then, .. } => in_actions(then, matches),
                _ => usize::from(matches(a)),
            })
            .sum()
    }
    nodes
        .iter()
        .map(|node| match node {
            LNode::Stmt { actions, .. } => in_actions(actions, matches),
            LNode::For { .. } if !through_loops => 0,
            LNode::For { body, .. } | LNode::Let { body, .. } | LNode::If { body, .. } => {
                count_actions(body, through_loops, matches)
            }
        })
        .sum()
}

/// Counts the writes of data space `space` in `nodes`, at any depth.
fn count_writes(nodes: &[LNode], space: usize) -> usize {
    count_actions(
        nodes,
        true,
        &|a| matches!(a, Action::Update { target: Code::Elem { space: s, .. }, .. } if *s == space),
    )
}

/// Counts the `method` calls of runtime object `object` in `nodes` (as
/// statements: `insert`, `sort`, `reserve`), at any depth.
pub(crate) fn count_calls(nodes: &[LNode], object: usize, method: Method) -> usize {
    count_actions(
        nodes,
        true,
        &|a| matches!(a, Action::Call { object: o, method: m, .. } if *o == object && *m == method),
    )
}

/// Whether `nodes` store with `rise=` (at any depth, or outside the loops
/// nested in them): several iterations of a loop around such a store write
/// one element (docs/computations.md, "Stores that collide").
pub(crate) fn stores_rising(nodes: &[LNode], through_loops: bool) -> bool {
    count_actions(nodes, through_loops, &|a| {
        matches!(
            a,
            Action::Update {
                op: UpdateOp::Rise,
                ..
            }
        )
    }) > 0
}

/// The constant `c` of an index `var + c` (`var` itself: 0).
fn offset_from(index: &Code, var: &str) -> Option<i64> {
    match index {
        Code::Var(v) if v == var => Some(0),
        Code::Lin(terms, c) => match terms.as_slice() {
            [(1, Code::Var(v))] if v == var => Some(*c),
            _ => None,
        },
        _ => None,
    }
}

/// A whole lowered program, with what the printers need to know about the
/// names and the use of each parameter.
#[derive(Debug)]
pub(crate) struct Lowered<'a> {
    pub comp: &'a Computation,
    pub namer: Namer,
    pub function: String,
    /// Generated names of the symbols, in order.
    pub symbols: Vec<String>,
    /// Generated names of the data spaces, in order.
    pub spaces: Vec<String>,
    pub body: Vec<LNode>,
    /// Per data space: read anywhere (as an index array too), written anywhere.
    pub read: Vec<bool>,
    pub written: Vec<bool>,
    /// Per symbol: mentioned by the body.
    pub sym_used: Vec<bool>,
    /// Generated names of the runtime objects, in order.
    pub objects: Vec<String>,
    /// The runtime objects' declarations, understood.
    pub specs: Vec<ObjectSpec>,
    /// Per runtime object: called anywhere; called with a method that
    /// changes it (`insert`, `sort`, `place`).
    pub object_used: Vec<bool>,
    pub object_mutated: Vec<bool>,
    /// Per data space: for one sized by the computation, the top-level node
    /// before which it is allocated ([`crate::dynamic::allocation_points`]).
    pub alloc_at: Vec<Option<usize>>,
    /// Per data space: the width its elements are stored at (64 but for an
    /// index array the function takes or returns, [`Widths`]).
    pub widths: Vec<IndexWidth>,
}

impl Lowered<'_> {
    /// For an array sized by the computation, `Some(u)` when the top-level
    /// node it is allocated before assigns every element below `u` before
    /// anything can read it, so that only the elements from `u` on need the
    /// zero fill (a copy loop over a permutation's positions writes its
    /// whole destination). The node must be a loop `for v in 0..u` (`u`
    /// evaluated once, before the loop, as every backend does) in which
    /// nothing reads the array, and every iteration must assign (`=`) the
    /// element `v`: a statement reached through `let`s only, the assignment
    /// not under an `if`. One-dimensional arrays only.
    pub(crate) fn written_prefix(&self, space: usize) -> Option<&Code> {
        let at = self.alloc_at[space]?;
        if self.comp.spaces[space].extents.len() != 1 {
            return None;
        }
        let (var, upper, body) = loop_from_zero(self.body.get(at)?)?;
        let mut reads = false;
        let mut visit = |s: usize| reads |= s == space;
        upper.for_each_elem(&mut visit);
        for node in body {
            reads_in_node(node, &mut visit);
        }
        let at_var = |i: &Code| matches!(i, Code::Var(v) if v == var);
        (!reads && assigns_every_iteration(body, space, &at_var)).then_some(upper)
    }

    /// For a scatter over the keys `0..extent` (`extent` lowered from its
    /// declaration), the `out` array its prefix sums can be computed in,
    /// and the top-level node that copies them there: `(array, node)` when
    /// the node is the loop `for v in 0..extent: a[v + 1] = B.start(v + 1)`
    /// (or `for v in 0..extent + 1: a[v] = B.start(v)`), that statement is
    /// the only write of `a` (one-dimensional, passed in, zero-filled at the
    /// start) and nothing reads `a`, and an unconditional top-level
    /// statement before the loop sorts `B`. Sorting into `a` then gives `a`
    /// the values the loop would (`a[0] = start(0) = 0`, its zero fill),
    /// and the loop is left out: the hand-written transpose's prefix sums
    /// in the destination's pointer array, without a second array and a
    /// copy.
    pub(crate) fn scatter_starts_into(
        &self,
        object: usize,
        extent: &Code,
    ) -> Option<(usize, usize)> {
        if !matches!(self.specs[object].kind, ObjectKind::Scatter { .. }) {
            return None;
        }
        let sorts = |node: &LNode| {
            matches!(node, LNode::Stmt { actions, .. } if actions.iter().any(|a| matches!(a,
                Action::Call { object: o, method: Method::Sort, .. } if *o == object)))
        };
        let first_sort = self.body.iter().position(sorts)?;
        self.body
            .iter()
            .enumerate()
            .skip(first_sort + 1)
            .find_map(|(t, node)| {
                let (var, upper, body) = loop_from_zero(node)?;
                let [LNode::Stmt { actions, .. }] = body.as_slice() else {
                    return None;
                };
                let [Action::Update {
                    target:
                        Code::Elem {
                            space,
                            index: Some(index),
                            ..
                        },
                    op: UpdateOp::Assign,
                    value:
                        Code::Call {
                            object: o,
                            method: Method::Start,
                            args,
                        },
                }] = actions.as_slice()
                else {
                    return None;
                };
                let whole = match offset_from(index, var)? {
                    1 => upper == extent,
                    0 => *upper == lin(vec![(1, extent.clone())], 1),
                    _ => false,
                };
                let a = &self.comp.spaces[*space];
                let only_write = a.role == Role::Out
                    && a.extents.len() == 1
                    && self.alloc_at[*space].is_none()
                    && !self.read[*space]
                    && count_writes(&self.body, *space) == 1;
                (*o == object && args.as_slice() == [(**index).clone()] && whole && only_write)
                    .then_some((*space, t))
            })
    }

    /// For a two-dimensional array sized by the computation, with extents
    /// `[R, W]` (lowered), how the top-level node it is allocated before
    /// fills it row by row from each row's start: the node is a loop `for r
    /// in 0..R` whose body holds, through `let`s only, a loop `for k in
    /// lo..hi` every iteration of which assigns (`=`, not under an `if`)
    /// the element `(r, k - lo)`; that is the only write of the array in
    /// the node and nothing there reads it; `lo` and `hi` read only inputs
    /// and call no object, so that they keep their values after the loop.
    /// ELL from compressed rows is filled so. Each row then needs only its
    /// elements from `hi - lo` on zeroed, right after its entries, while
    /// they are in cache ([`Lowered::pad_rows`]), instead of a zero fill of
    /// the whole array before: on a padded ELL the zero fill and the copy
    /// each stream the array through memory when it is out of cache.
    pub(crate) fn rows_from_start(&self, space: usize, extents: &[Code]) -> Option<RowFill> {
        let at = self.alloc_at[space]?;
        let [rows, width] = extents else {
            return None;
        };
        let node = self.body.get(at)?;
        let (row, upper, body) = loop_from_zero(node)?;
        let mut reads = false;
        reads_in_node(node, &mut |s| reads |= s == space);
        if upper != rows || reads || count_writes(std::slice::from_ref(node), space) != 1 {
            return None;
        }
        let start = row_start(Code::Var(row.clone()), width);
        let invariant = |c: &Code| {
            let mut ok = !c.calls_object();
            c.for_each_elem(&mut |s| ok &= self.comp.spaces[s].role == Role::In);
            ok
        };
        let entries = |node: &LNode| {
            let LNode::For {
                var,
                lower,
                upper,
                body,
                ..
            } = node
            else {
                return false;
            };
            // `index - r * W - (k - lo)` folds to zero.
            let at_entry = |index: &Code| {
                let rest = vec![
                    (1, index.clone()),
                    (-1, start.clone()),
                    (-1, Code::Var(var.clone())),
                    (1, lower.clone()),
                ];
                lin(rest, 0) == Code::Int(0)
            };
            invariant(lower) && invariant(upper) && assigns_every_iteration(body, space, &at_entry)
        };
        let (LNode::For { lower, upper, .. }, path) = find_through_lets(body, &entries)? else {
            return None;
        };
        Some(RowFill {
            row: row.clone(),
            path,
            filled: lin(vec![(1, upper.clone()), (-1, lower.clone())], 0),
            width: width.clone(),
        })
    }

    /// The arrays of `arrays` (data spaces sized by the computation, with
    /// their lowered extents) that are filled row by row from each row's
    /// start ([`Lowered::rows_from_start`]), grouped by the loop over a
    /// row's entries that fills them: its top-level node, the fill, the
    /// arrays. Later loops come first, the order [`Lowered::pad_rows`]
    /// needs.
    pub(crate) fn row_fills<'e>(
        &self,
        arrays: impl IntoIterator<Item = (usize, &'e [Code])>,
    ) -> Vec<(usize, RowFill, Vec<usize>)> {
        let mut fills: Vec<(usize, RowFill, Vec<usize>)> = Vec::new();
        for (s, extents) in arrays {
            let (Some(at), Some(fill)) = (self.alloc_at[s], self.rows_from_start(s, extents))
            else {
                continue;
            };
            match fills.iter_mut().find(|(t, f, _)| *t == at && *f == fill) {
                Some((_, _, spaces)) => spaces.push(s),
                None => fills.push((at, fill, vec![s])),
            }
        }
        fills.sort_by(|(a, f, _), (b, g, _)| (b, &g.path).cmp(&(a, &f.path)));
        fills
    }

    /// Puts right after the loop over the entries of `fill` (in top-level
    /// node `at`) a loop that zeroes the rest of the row in every array of
    /// `spaces`: `for z in max(hi - lo, 0)..W: a[r * W + z] = 0`. The
    /// arrays filled so ([`Lowered::rows_from_start`]) need no zero fill
    /// when they are allocated. `false` (nothing changed) when `fill.path`
    /// no longer leads to a loop through `let`s: the insertion shifts the
    /// nodes after it, so several fills of one node go in decreasing order
    /// of their paths.
    pub(crate) fn pad_rows(&mut self, at: usize, fill: &RowFill, spaces: &[usize]) -> bool {
        let var = self.namer.fresh("pad");
        let index = lin(
            vec![
                (1, row_start(Code::Var(fill.row.clone()), &fill.width)),
                (1, Code::Var(var.clone())),
            ],
            0,
        );
        let actions = spaces
            .iter()
            .map(|&s| {
                let ty = Ty::of(self.comp.spaces[s].elem);
                Action::Update {
                    target: Code::Elem {
                        space: s,
                        index: Some(Box::new(index.clone())),
                        ty,
                    },
                    op: UpdateOp::Assign,
                    value: match ty {
                        Ty::Int => Code::Int(0),
                        Ty::Real => Code::Real(0.0),
                    },
                }
            })
            .collect();
        let pad = LNode::For {
            var,
            used: true,
            lower: Code::Bin(
                BinOp::Max,
                Ty::Int,
                Box::new(fill.filled.clone()),
                Box::new(Code::Int(0)),
            ),
            upper: fill.width.clone(),
            body: vec![LNode::Stmt {
                name: "padding".to_string(),
                actions,
            }],
        };
        let Some(LNode::For { body, .. }) = self.body.get_mut(at) else {
            return false;
        };
        let Some((&last, lets)) = fill.path.split_last() else {
            return false;
        };
        let mut nodes = body;
        for &i in lets {
            let Some(LNode::Let { body, .. }) = nodes.get_mut(i) else {
                return false;
            };
            nodes = body;
        }
        if !matches!(nodes.get(last), Some(LNode::For { .. })) {
            return false;
        }
        nodes.insert(last + 1, pad);
        true
    }

    /// For an array sized by the computation, the scatter (by index in the
    /// objects) whose positions the top-level node it is allocated before
    /// writes it at: every `t = B.place(v)` of the node is followed, in the
    /// same statement or the next statements of its loop body and with no
    /// condition in between, by `a[t] = ...`, the array is written nowhere
    /// else and read nowhere in the node. After the node, every position
    /// `B` handed out is written, and `spf_scatter_zero_unplaced` zeroes
    /// the others (and the elements past the scatter's entries): the zero
    /// fill of the whole array is not needed. One-dimensional arrays only.
    pub(crate) fn placed_by(&self, space: usize) -> Option<usize> {
        let at = self.alloc_at[space]?;
        if self.comp.spaces[space].extents.len() != 1 {
            return None;
        }
        let node = self.body.get(at)?;
        let mut reads = false;
        reads_in_node(node, &mut |s| reads |= s == space);
        if reads {
            return None;
        }
        let mut object = None;
        placed_writes(std::slice::from_ref(node), space, &mut object).ok()?;
        object
    }

    /// For top-level node `at`, the loop that places entries with a scatter
    /// in the shape a backend can look ahead in (the C backend's prefetches,
    /// docs/runtime.md): the node holds one call that hands out, `t =
    /// B.place_inserted(v)` or `t = B.slot(v)`, in a statement whose
    /// innermost enclosing loop has variable `k`, where `v` is `keys[k]`
    /// (directly or through a `let`) for a one-dimensional `in` array of
    /// integers `keys`; the targets are the arrays that statement and the
    /// statements after it in the same body assign at an index using `t`.
    /// The keys `keys[k + d]` are then those of the entries placed `d`
    /// iterations on, as far as the loop walks `keys` in order (a
    /// transposition's, whose rows are consecutive): a hint, which needs
    /// nothing more to be safe, as the backend reads ahead in bounds.
    pub(crate) fn scatter_lookahead(&self, at: usize) -> Option<Lookahead> {
        let node = self.body.get(at)?;
        let mut places = 0;
        count_places(std::slice::from_ref(node), &mut places);
        if places != 1 {
            return None;
        }
        let mut found = Vec::new();
        lookahead_in(
            std::slice::from_ref(node),
            None,
            &mut Vec::new(),
            &mut found,
        );
        let [plan] = <[_; 1]>::try_from(found).ok()?;
        let d = self.comp.spaces.get(plan.keys)?;
        let keyed = d.role == Role::In && d.elem == ElemType::Int && d.extents.len() == 1;
        let scattered = matches!(self.specs[plan.object].kind, ObjectKind::Scatter { .. });
        (keyed && scattered && !plan.targets.is_empty()).then_some(plan)
    }

    /// For a permutation, the `in` arrays that hold its stored key
    /// components, so that C need not store them (`spf_perm_view`,
    /// docs/runtime.md): `Some(arrays)` when array `arrays[d]` at `e` is
    /// component `d` of the entry inserted as number `e`, for every entry.
    /// That holds when the permutation's only `insert` is an action (not
    /// under an `if`) of a statement in the body of a top-level loop `for v
    /// in 0..u`, reached through `let`s only (no guard, no inner loop;
    /// other statements and actions beside it do not matter, as none
    /// inserts), so that it runs once in every iteration and the entry
    /// number is `v`, and
    /// each viewed component is a read `a[v]` of an `in` array of `int`s
    /// indexed by exactly the loop variable, directly or through a `let`
    /// bound to that read (the array is `const`: nothing changes it while
    /// the permutation lives). The views cover every component, or all but
    /// the last when that one is a payload (the runtime then stores it only
    /// from the first entry where it is not the entry number). `None`
    /// otherwise: the runtime stores the keys.
    pub(crate) fn perm_views(&self, object: usize) -> Option<Vec<usize>> {
        let ObjectKind::Permutation {
            arity, compared, ..
        } = self.specs[object].kind
        else {
            return None;
        };
        if count_calls(&self.body, object, Method::Insert) != 1 {
            return None;
        }
        self.body.iter().find_map(|node| {
            let (var, _, body) = loop_from_zero(node)?;
            // The `let`s down to the statement, innermost last.
            let mut lets: Vec<(&str, &Code)> = Vec::new();
            let args = insert_once(body, var, object, &mut lets)?;
            // The `in` array a component reads at the loop variable.
            let read = |c: &Code| -> Option<usize> {
                let c = match c {
                    Code::Var(x) => lets.iter().rev().find(|(n, _)| n == x)?.1,
                    other => other,
                };
                let Code::Elem {
                    space,
                    index: Some(index),
                    ty: Ty::Int,
                } = c
                else {
                    return None;
                };
                let d = &self.comp.spaces[*space];
                let plain = matches!(&**index, Code::Var(v) if v == var)
                    && d.role == Role::In
                    && d.elem == ElemType::Int
                    && !d.extents.is_empty()
                    && self.alloc_at[*space].is_none();
                plain.then_some(*space)
            };
            let arrays: Vec<usize> = args.iter().map_while(read).collect();
            // Every component, or all but a payload (stored by the runtime
            // only where it is not the entry number).
            let covered = arrays.len() == arity || (compared < arity && arrays.len() + 1 == arity);
            covered.then_some(arrays)
        })
    }

    /// The parameters of the generated function, in order.
    pub(crate) fn parameters(&self) -> Vec<Parameter> {
        let mut out: Vec<Parameter> = self
            .comp
            .symbols
            .iter()
            .zip(&self.symbols)
            .map(|(s, n)| Parameter {
                source: s.clone(),
                name: n.clone(),
                kind: ParamKind::Symbol,
            })
            .collect();
        for (s, (d, n)) in self.comp.spaces.iter().zip(&self.spaces).enumerate() {
            if d.role == Role::Temp {
                continue;
            }
            let kind = if d.extents.is_empty() {
                ParamKind::Scalar {
                    elem: d.elem,
                    role: d.role,
                }
            } else if self.alloc_at[s].is_some() {
                ParamKind::DynArray { elem: self.elem(s) }
            } else if d.extents.is_empty() {
                ParamKind::Scalar {
                    elem: d.elem,
                    role: d.role,
                }
            } else {
                ParamKind::Array {
                    elem: self.elem(s),
                    role: d.role,
                }
            };
            out.push(Parameter {
                source: d.name.clone(),
                name: n.clone(),
                kind,
            });
        }
        out
    }

    /// How data space `space`'s elements are stored.
    pub(crate) fn elem(&self, space: usize) -> Elem {
        Elem::of(self.comp.spaces[space].elem, self.widths[space])
    }

    /// Whether data space `space` is stored 32 bits an element: its reads
    /// are widened and its stores narrowed.
    pub(crate) fn narrow(&self, space: usize) -> bool {
        self.widths[space] == IndexWidth::W32
    }

    /// Whether any data space is stored 32 bits an element: the function
    /// checks its sizes ([`crate::width`]).
    pub(crate) fn any_narrow(&self) -> bool {
        self.widths.contains(&IndexWidth::W32)
    }

    /// Lowers the extents of data space `space` (they may use symbols and
    /// index arrays, no variables).
    pub(crate) fn extents(&mut self, space: usize) -> Result<Vec<Code>, EmitError> {
        let comp = self.comp;
        let d = &comp.spaces[space];
        let site = Site::Extent(d.name.clone());
        let mut cx = Lowerer::for_extents(self, site);
        d.extents.iter().map(|e| cx.expr(e, &[])).collect()
    }

    /// Lowers the constructor arguments of runtime object `object` (they use
    /// symbols only), marking their symbols as used.
    pub(crate) fn object_init(&mut self, object: usize) -> Result<ObjectInit, EmitError> {
        let spec = self.specs[object].clone();
        let mut cx = Lowerer::for_extents(self, Site::Object(spec.name.clone()));
        Ok(match &spec.kind {
            ObjectKind::Permutation {
                arity,
                compared,
                order,
            } => ObjectInit::Permutation {
                arity: *arity,
                compared: *compared,
                order: match order {
                    Order::Lex => InitOrder::Lex,
                    Order::Morton => InitOrder::Morton,
                    Order::Counting(es) => InitOrder::Counting(
                        es.iter()
                            .map(|e| cx.expr(e, &[]))
                            .collect::<Result<_, _>>()?,
                    ),
                },
            },
            ObjectKind::OrderedSet { bounds } => ObjectInit::OrderedSet {
                bounds: match bounds {
                    Some((lo, hi)) => Some((cx.expr(lo, &[])?, cx.expr(hi, &[])?)),
                    None => None,
                },
            },
            ObjectKind::Scatter { extents } => {
                // Several extents: the product, the number of linear keys.
                let mut codes = extents.iter().map(|e| cx.expr(e, &[]));
                let first = codes.next().expect("a scatter has an extent")?;
                ObjectInit::Scatter {
                    extent: codes.try_fold(first, |acc, e| {
                        Ok::<_, EmitError>(Code::Bin(
                            BinOp::Mul,
                            Ty::Int,
                            Box::new(acc),
                            Box::new(e?),
                        ))
                    })?,
                }
            }
        })
    }

    /// The runtime objects the program calls, in declaration order.
    pub(crate) fn used_objects(&self) -> Vec<usize> {
        (0..self.objects.len())
            .filter(|&o| self.object_used[o])
            .collect()
    }

    /// Whether the extents of data space `space` use only symbols and constants.
    pub(crate) fn static_extents(&self, space: usize) -> bool {
        self.alloc_at[space].is_none()
            && self.comp.spaces[space].extents.iter().all(|e| {
                let mut calls = false;
                e.for_each_call(&mut |_, _| calls = true);
                !calls
            })
    }
}

/// Lowers `program` for `lang`: names every symbol, data space and variable,
/// and checks everything the printers rely on.
pub(crate) fn lower<'p>(
    program: &'p LoopProgram,
    lang: Lang,
    widths: &Widths,
) -> Result<Lowered<'p>, EmitError> {
    let comp = &program.computation;
    // Index arrays the function takes or returns, at their width.
    let space_widths = comp
        .spaces
        .iter()
        .map(|d| {
            let array = !d.extents.is_empty() && d.role != Role::Temp && d.elem == ElemType::Int;
            if array {
                widths.of(&d.name)
            } else {
                IndexWidth::W64
            }
        })
        .collect();
    let function = function_name(comp, lang)?;
    let mut namer = Namer::new(lang);
    let symbols: Vec<String> = comp.symbols.iter().map(|s| namer.fresh(s)).collect();
    let spaces: Vec<String> = comp.spaces.iter().map(|d| namer.fresh(&d.name)).collect();
    let objects: Vec<String> = comp.objects.iter().map(|o| namer.fresh(&o.name)).collect();
    let specs = comp
        .objects
        .iter()
        .map(|o| {
            ObjectSpec::parse(o, &comp.symbols).map_err(|error| EmitError::Object {
                object: o.name.clone(),
                error,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut lowered = Lowered {
        comp,
        namer,
        function,
        symbols,
        spaces,
        body: Vec::new(),
        read: vec![false; comp.spaces.len()],
        written: vec![false; comp.spaces.len()],
        sym_used: vec![false; comp.symbols.len()],
        object_used: vec![false; objects.len()],
        object_mutated: vec![false; objects.len()],
        objects,
        specs,
        alloc_at: crate::dynamic::allocation_points(program),
        widths: space_widths,
    };
    // Variables: one generated name per distinct source name.
    let mut vars = HashMap::new();
    collect_vars(&program.body, &mut |v| {
        if !vars.contains_key(v) {
            let n = lowered.namer.fresh(v);
            vars.insert(v.to_string(), n);
        }
    });
    let mut cx = Lowerer {
        out: &mut lowered,
        vars,
        scope: Vec::new(),
        site: Site::Guard,
    };
    let body = cx.nodes(&program.body)?;
    lowered.body = body;
    // Every extent must be valid, even where the printed code needs none;
    // checking them does not count as a use.
    let (sym_used, read) = (lowered.sym_used.clone(), lowered.read.clone());
    for s in 0..comp.spaces.len() {
        lowered.extents(s)?;
    }
    lowered.sym_used = sym_used;
    lowered.read = read;
    Ok(lowered)
}

fn collect_vars<'a>(nodes: &'a [Node], visit: &mut impl FnMut(&'a str)) {
    for n in nodes {
        match n {
            Node::For { var, body, .. } | Node::Let { var, body, .. } => {
                visit(var);
                collect_vars(body, visit);
            }
            Node::If { body, .. } => collect_vars(body, visit),
            Node::Stmt { .. } => {}
        }
    }
}

struct Lowerer<'l, 'a> {
    out: &'l mut Lowered<'a>,
    vars: HashMap<String, String>,
    /// Source name and use flag of each variable in scope, innermost last.
    scope: Vec<(String, bool)>,
    site: Site,
}

impl<'l, 'a> Lowerer<'l, 'a> {
    fn for_extents(out: &'l mut Lowered<'a>, site: Site) -> Self {
        Lowerer {
            out,
            vars: HashMap::new(),
            scope: Vec::new(),
            site,
        }
    }

    fn nodes(&mut self, nodes: &[Node]) -> Result<Vec<LNode>, EmitError> {
        nodes.iter().map(|n| self.node(n)).collect()
    }

    fn scoped(&mut self, var: &str, body: &[Node]) -> Result<(Vec<LNode>, bool), EmitError> {
        self.scope.push((var.to_string(), false));
        let body = self.nodes(body);
        let (_, used) = self.scope.pop().unwrap_or_default();
        Ok((body?, used))
    }

    fn node(&mut self, node: &Node) -> Result<LNode, EmitError> {
        match node {
            Node::For {
                var,
                lower,
                upper,
                body,
            } => {
                self.site = Site::Loop(var.clone());
                let lower = self.index(lower)?;
                let upper = self.index(upper)?;
                let (body, used) = self.scoped(var, body)?;
                Ok(LNode::For {
                    var: self.vars[var].clone(),
                    used,
                    lower,
                    upper,
                    body,
                })
            }
            Node::Let { var, value, body } => {
                self.site = Site::Let(var.clone());
                let value = self.index(value)?;
                let (body, used) = self.scoped(var, body)?;
                Ok(LNode::Let {
                    var: self.vars[var].clone(),
                    used,
                    value,
                    body,
                })
            }
            Node::If { guards, body } => {
                self.site = Site::Guard;
                let guards = guards
                    .iter()
                    .map(|g| self.guard(g))
                    .collect::<Result<_, _>>()?;
                let body = self.nodes(body)?;
                Ok(LNode::If { guards, body })
            }
            Node::Stmt { stmt, iterators } => self.stmt(*stmt, iterators),
        }
    }

    fn guard(&mut self, g: &Guard) -> Result<Cond, EmitError> {
        Ok(Cond {
            lhs: self.index(&g.lhs)?,
            op: match g.op {
                GuardOp::Eq => CmpOp::Eq,
                GuardOp::Le => CmpOp::Le,
            },
            rhs: self.index(&g.rhs)?,
        })
    }

    fn stmt(&mut self, index: usize, iterators: &[IndexExpr]) -> Result<LNode, EmitError> {
        let comp = self.out.comp;
        let stmt = comp.stmts.get(index).ok_or(EmitError::NoSuchStatement {
            index,
            count: comp.stmts.len(),
        })?;
        self.site = Site::Statement(stmt.name.clone());
        let arity = stmt.domain.arity();
        if iterators.len() != arity {
            return Err(EmitError::IteratorCount {
                stmt: stmt.name.clone(),
                expected: arity,
                found: iterators.len(),
            });
        }
        // An iterator value uses its variables only where the body uses the
        // iterator (a loop whose variable only feeds unused iterators must
        // not leave an unused variable in the Rust output).
        let saved: Vec<bool> = self.scope.iter().map(|(_, used)| *used).collect();
        let iters = iterators
            .iter()
            .map(|e| self.index(e))
            .collect::<Result<Vec<_>, _>>();
        for ((_, used), was) in self.scope.iter_mut().zip(saved) {
            *used = was;
        }
        let iters = iters?;
        let mut actions = Vec::new();
        self.body(stmt, &stmt.body, &iters, &mut actions)?;
        Ok(LNode::Stmt {
            name: stmt.name.clone(),
            actions,
        })
    }

    fn body(
        &mut self,
        stmt: &Stmt,
        body: &Body,
        iters: &[Code],
        out: &mut Vec<Action>,
    ) -> Result<(), EmitError> {
        match body {
            Body::Update { target, op, value } => {
                let value = match (op, value) {
                    // The whole value of an assignment: where `place` may stand.
                    (
                        UpdateOp::Assign,
                        ValueExpr::Call {
                            object,
                            method,
                            args,
                        },
                    ) => {
                        let (object, method, args) =
                            self.call(stmt, object, method, args, iters, CallSite::Assigned)?;
                        Code::Call {
                            object,
                            method,
                            args,
                        }
                    }
                    _ => self.value(stmt, value, iters)?,
                };
                let t = self.access(target, iters)?;
                let space = &self.out.comp.spaces[t.0];
                if space.role == Role::In {
                    return Err(EmitError::WriteToInput {
                        stmt: stmt.name.clone(),
                        space: space.name.clone(),
                    });
                }
                self.out.written[t.0] = true;
                if op.reads_target() {
                    self.out.read[t.0] = true;
                }
                let value = match (t.1.ty(), value.ty()) {
                    (Ty::Int, Ty::Real) => {
                        return Err(EmitError::RealToInt {
                            stmt: stmt.name.clone(),
                            space: space.name.clone(),
                        })
                    }
                    (Ty::Real, Ty::Int) => to_real(value),
                    _ => value,
                };
                out.push(Action::Update {
                    target: t.1,
                    op: *op,
                    value,
                });
            }
            Body::If { conditions, then } => {
                let conds = conditions
                    .iter()
                    .map(|c| self.condition(stmt, c, iters))
                    .collect::<Result<_, _>>()?;
                let mut inner = Vec::new();
                self.body(stmt, then, iters, &mut inner)?;
                out.push(Action::If { conds, then: inner });
            }
            Body::Call {
                object,
                method,
                args,
            } => {
                let (object, method, args) =
                    self.call(stmt, object, method, args, iters, CallSite::Statement)?;
                out.push(Action::Call {
                    object,
                    method,
                    args,
                });
            }
            Body::Seq(bs) => {
                for b in bs {
                    self.body(stmt, b, iters, out)?;
                }
            }
        }
        Ok(())
    }

    /// A call of a runtime object, checked, its arguments lowered.
    fn call(
        &mut self,
        stmt: &Stmt,
        object: &str,
        method: &str,
        args: &[ValueExpr],
        iters: &[Code],
        site: CallSite,
    ) -> Result<(usize, Method, Vec<Code>), EmitError> {
        let err = |error| EmitError::Call {
            stmt: stmt.name.clone(),
            error,
        };
        let comp = self.out.comp;
        let o = comp
            .objects
            .iter()
            .position(|x| x.name == object)
            .ok_or_else(|| {
                err(CallError::UnknownObject {
                    object: object.to_string(),
                })
            })?;
        let m = check_call_at(&self.out.specs[o], method, args, site).map_err(err)?;
        let mut lowered = Vec::with_capacity(args.len());
        for (p, a) in args.iter().enumerate() {
            let c = self.value(stmt, a, iters)?;
            if c.ty() == Ty::Real {
                return Err(err(CallError::RealArgument {
                    call: format!("{object}.{method}"),
                    position: p + 1,
                }));
            }
            lowered.push(c);
        }
        self.out.object_used[o] = true;
        if m.changes_object() {
            self.out.object_mutated[o] = true;
        }
        Ok((o, m, lowered))
    }

    fn condition(&mut self, stmt: &Stmt, c: &Condition, iters: &[Code]) -> Result<Cond, EmitError> {
        let op = CmpOp::parse(c.op).ok_or_else(|| EmitError::Comparison {
            stmt: stmt.name.clone(),
            op: c.op.to_string(),
        })?;
        let lhs = self.value(stmt, &c.lhs, iters)?;
        let rhs = self.value(stmt, &c.rhs, iters)?;
        let (lhs, rhs) = promote(lhs, rhs);
        Ok(Cond { lhs, op, rhs })
    }

    fn value(&mut self, stmt: &Stmt, v: &ValueExpr, iters: &[Code]) -> Result<Code, EmitError> {
        Ok(match v {
            ValueExpr::Int(k) => Code::Int(*k),
            ValueExpr::Real(x) => Code::Real(*x),
            ValueExpr::Index(e) => self.expr(e, iters)?,
            ValueExpr::Read(a) => {
                let (space, code) = self.access(a, iters)?;
                self.out.read[space] = true;
                code
            }
            ValueExpr::Neg(a) => {
                let a = self.value(stmt, a, iters)?;
                match a {
                    Code::Int(k) if k != i64::MIN => Code::Int(-k),
                    Code::Real(x) => Code::Real(-x),
                    a => {
                        let ty = a.ty();
                        Code::Neg(Box::new(a), ty)
                    }
                }
            }
            ValueExpr::Binary(op, a, b) => {
                let a = self.value(stmt, a, iters)?;
                let b = self.value(stmt, b, iters)?;
                let (a, b) = promote(a, b);
                if let (Code::Int(x), Code::Int(y)) = (&a, &b) {
                    if let Some(k) = fold(*op, *x, *y) {
                        return Ok(Code::Int(k));
                    }
                }
                let ty = a.ty();
                Code::Bin(*op, ty, Box::new(a), Box::new(b))
            }
            ValueExpr::Call {
                object,
                method,
                args,
            } => {
                let (object, method, args) =
                    self.call(stmt, object, method, args, iters, CallSite::Value)?;
                Code::Call {
                    object,
                    method,
                    args,
                }
            }
        })
    }

    /// A data space element of a statement body: (space, element).
    fn access(&mut self, a: &Access, iters: &[Code]) -> Result<(usize, Code), EmitError> {
        let index = a
            .index
            .iter()
            .map(|e| self.expr(e, iters))
            .collect::<Result<Vec<_>, _>>()?;
        self.elem(&a.space, index, false)
    }

    /// The element `name(index...)`, linearized; `index_array` requires an
    /// integer data space (a UF call).
    fn elem(
        &mut self,
        name: &str,
        index: Vec<Code>,
        index_array: bool,
    ) -> Result<(usize, Code), EmitError> {
        let comp = self.out.comp;
        let space = comp
            .spaces
            .iter()
            .position(|d| d.name == name)
            .ok_or_else(|| EmitError::UnknownSpace {
                site: self.site.clone(),
                name: name.to_string(),
            })?;
        let d = &comp.spaces[space];
        if index_array && d.elem != ElemType::Int {
            return Err(EmitError::NotIndexArray {
                site: self.site.clone(),
                name: name.to_string(),
            });
        }
        if index.len() != d.extents.len() {
            return Err(EmitError::Arity {
                site: self.site.clone(),
                space: name.to_string(),
                expected: d.extents.len(),
                found: index.len(),
            });
        }
        let mut linear: Option<Code> = None;
        for (dim, i) in index.into_iter().enumerate() {
            linear = Some(match linear {
                None => i,
                Some(acc) => {
                    let site = std::mem::replace(&mut self.site, Site::Extent(d.name.clone()));
                    let extent = self.expr(&d.extents[dim], &[]);
                    self.site = site;
                    let extent = extent?;
                    lin(vec![(1, row_start(acc, &extent)), (1, i)], 0)
                }
            });
        }
        Ok((
            space,
            Code::Elem {
                space,
                index: linear.map(Box::new),
                ty: Ty::of(d.elem),
            },
        ))
    }

    /// An affine expression of a statement body (or an extent), with the
    /// statement's iterators replaced by `iters`.
    fn expr(&mut self, e: &Expr, iters: &[Code]) -> Result<Code, EmitError> {
        let mut terms = Vec::with_capacity(e.num_terms());
        for (atom, c) in e.terms() {
            let t = match atom {
                Atom::Var(v) => match (v, &self.site) {
                    (Var::Tuple(p), _) if *p < iters.len() => {
                        self.mark_used(&iters[*p]);
                        iters[*p].clone()
                    }
                    (_, Site::Statement(stmt)) => {
                        return Err(EmitError::BadIterator {
                            stmt: stmt.clone(),
                            var: v.to_string(),
                        })
                    }
                    _ => {
                        return Err(EmitError::UnboundVariable {
                            site: self.site.clone(),
                            name: v.to_string(),
                        })
                    }
                },
                Atom::Sym(s) => self.sym(s)?,
                Atom::Uf(name, args) => {
                    let args = args
                        .iter()
                        .map(|a| self.expr(a, iters))
                        .collect::<Result<Vec<_>, _>>()?;
                    let (space, code) = self.elem(name, args, true)?;
                    self.out.read[space] = true;
                    code
                }
                Atom::Div(x, m) => Code::FloorDiv(Box::new(self.expr(x, iters)?), *m),
            };
            terms.push((c, t));
        }
        Ok(lin(terms, e.constant_term()))
    }

    /// Marks the loop and let variables of `c` as used.
    fn mark_used(&mut self, c: &Code) {
        let mut names = Vec::new();
        c.for_each_var(&mut |n| names.push(n.to_string()));
        for n in names {
            let vars = &self.vars;
            if let Some(slot) = self
                .scope
                .iter_mut()
                .rev()
                .find(|(src, _)| vars.get(src) == Some(&n))
            {
                slot.1 = true;
            }
        }
    }

    fn sym(&mut self, s: &str) -> Result<Code, EmitError> {
        let comp = self.out.comp;
        if crate::dynamic::is_size_space(comp, s) {
            // A size space in an extent, a bound, a guard or an index
            // expression: the scalar's value where it is evaluated.
            if let Some(k) = comp.spaces.iter().position(|d| d.name == s) {
                self.out.read[k] = true;
                return Ok(Code::Elem {
                    space: k,
                    index: None,
                    ty: Ty::Int,
                });
            }
        }
        let k =
            comp.symbols
                .iter()
                .position(|x| x == s)
                .ok_or_else(|| EmitError::UnknownSymbol {
                    site: self.site.clone(),
                    name: s.to_string(),
                })?;
        self.out.sym_used[k] = true;
        Ok(Code::Sym(self.out.symbols[k].clone()))
    }

    /// An index expression of the loop AST.
    fn index(&mut self, e: &IndexExpr) -> Result<Code, EmitError> {
        Ok(match e {
            IndexExpr::Const(k) => Code::Int(*k),
            IndexExpr::Var(v) => {
                let slot = self.scope.iter_mut().rev().find(|(n, _)| n == v);
                match slot {
                    Some(slot) => {
                        slot.1 = true;
                        Code::Var(self.vars[v].clone())
                    }
                    None => {
                        return Err(EmitError::UnboundVariable {
                            site: self.site.clone(),
                            name: v.clone(),
                        })
                    }
                }
            }
            IndexExpr::Sym(s) => self.sym(s)?,
            IndexExpr::Call(name, args) => {
                let args = args
                    .iter()
                    .map(|a| self.index(a))
                    .collect::<Result<Vec<_>, _>>()?;
                let (space, code) = self.elem(name, args, true)?;
                self.out.read[space] = true;
                code
            }
            IndexExpr::Sum(terms, k) => {
                let terms = terms
                    .iter()
                    .map(|(c, t)| Ok((*c, self.index(t)?)))
                    .collect::<Result<Vec<_>, EmitError>>()?;
                lin(terms, *k)
            }
            IndexExpr::Min(es) | IndexExpr::Max(es) => {
                let op = if matches!(e, IndexExpr::Min(_)) {
                    BinOp::Min
                } else {
                    BinOp::Max
                };
                let codes = es
                    .iter()
                    .map(|x| self.index(x))
                    .collect::<Result<Vec<_>, _>>()?;
                let mut codes = codes.into_iter();
                let mut acc = codes.next().ok_or_else(|| EmitError::EmptyMinMax {
                    site: self.site.clone(),
                })?;
                for c in codes {
                    acc = Code::Bin(op, Ty::Int, Box::new(acc), Box::new(c));
                }
                acc
            }
            IndexExpr::FloorDiv(a, d) | IndexExpr::CeilDiv(a, d) => {
                if *d <= 0 {
                    return Err(EmitError::Divisor {
                        site: self.site.clone(),
                        divisor: *d,
                    });
                }
                let a = self.index(a)?;
                match (matches!(e, IndexExpr::FloorDiv(..)), *d) {
                    (_, 1) => a,
                    (true, d) => Code::FloorDiv(Box::new(a), d),
                    (false, d) => Code::CeilDiv(Box::new(a), d),
                }
            }
        })
    }
}

fn to_real(c: Code) -> Code {
    match c {
        Code::Int(k) => Code::Real(k as f64),
        c if c.ty() == Ty::Real => c,
        c => Code::ToReal(Box::new(c)),
    }
}

/// Both operands as reals when either is one.
fn promote(a: Code, b: Code) -> (Code, Code) {
    match (a.ty(), b.ty()) {
        (Ty::Int, Ty::Real) => (to_real(a), b),
        (Ty::Real, Ty::Int) => (a, to_real(b)),
        _ => (a, b),
    }
}

/// `x op y` on integer literals with C semantics, when defined.
fn fold(op: BinOp, x: i64, y: i64) -> Option<i64> {
    match op {
        BinOp::Add => x.checked_add(y),
        BinOp::Sub => x.checked_sub(y),
        BinOp::Mul => x.checked_mul(y),
        BinOp::Div => x.checked_div(y),
        BinOp::Min => Some(x.min(y)),
        BinOp::Max => Some(x.max(y)),
    }
}

// ---------------------------------------------------------------------------
// Printing

/// Operator precedence, loosest first, shared by C and Rust for the
/// operators the backends print.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Prec {
    Add,
    Mul,
    /// Rust's `as`.
    Cast,
    Unary,
    Atom,
}

/// A printed expression and the precedence of its outermost operator.
#[derive(Clone, Debug)]
pub(crate) struct P {
    pub text: String,
    pub prec: Prec,
}

impl P {
    pub(crate) fn new(text: impl Into<String>, prec: Prec) -> P {
        P {
            text: text.into(),
            prec,
        }
    }

    pub(crate) fn atom(text: impl Into<String>) -> P {
        P::new(text, Prec::Atom)
    }

    /// The text, parenthesized unless its precedence is at least `min`.
    pub(crate) fn at(self, min: Prec) -> String {
        if self.prec >= min {
            self.text
        } else {
            format!("({})", self.text)
        }
    }

    /// As the operand of a unary minus: never `--x`.
    fn neg_operand(self) -> String {
        if self.text.starts_with('-') {
            format!("({})", self.text)
        } else {
            self.at(Prec::Unary)
        }
    }
}

/// The target-specific part of printing.
pub(crate) trait Dialect {
    fn int(&self, k: i64) -> P;
    fn real(&self, x: f64) -> P;
    /// An element read: a 32-bit index array's widened to 64 bits.
    fn elem(&self, space: usize, index: Option<&Code>) -> P;
    /// An element stored to (the place an update writes).
    fn place(&self, space: usize, index: Option<&Code>) -> P;
    fn to_real(&self, inner: &Code) -> P;
    fn min_max(&self, op: BinOp, ty: Ty, a: &Code, b: &Code) -> P;
    fn floor_div(&self, a: &Code, d: i64) -> P;
    fn ceil_div(&self, a: &Code, d: i64) -> P;
    /// A value method of a runtime object.
    fn call(&self, object: usize, method: Method, args: &[Code]) -> P;
    /// A comparison's left operand, where Rust must not leave `x as T <`.
    fn cmp_lhs(&self, p: P, _op: CmpOp) -> String {
        p.at(Prec::Add)
    }
}

/// Prints the target of an update in dialect `d`: an element's place, or
/// `c` as [`print`] prints it.
pub(crate) fn print_place<D: Dialect + ?Sized>(d: &D, c: &Code) -> P {
    match c {
        Code::Elem { space, index, .. } => d.place(*space, index.as_deref()),
        c => print(d, c),
    }
}

/// Prints `c` in dialect `d`.
pub(crate) fn print<D: Dialect + ?Sized>(d: &D, c: &Code) -> P {
    match c {
        Code::Int(k) => d.int(*k),
        Code::Real(x) => d.real(*x),
        Code::Var(n) | Code::Sym(n) => P::atom(n.clone()),
        Code::Elem { space, index, .. } => d.elem(*space, index.as_deref()),
        Code::Lin(terms, k) => print_lin(d, terms, *k),
        Code::Neg(a, _) => P::new(format!("-{}", print(d, a).neg_operand()), Prec::Unary),
        Code::Bin(op @ (BinOp::Min | BinOp::Max), ty, a, b) => d.min_max(*op, *ty, a, b),
        Code::Bin(op, _, a, b) => {
            let (sym, prec) = match op {
                BinOp::Add => ("+", Prec::Add),
                BinOp::Sub => ("-", Prec::Add),
                BinOp::Mul => ("*", Prec::Mul),
                _ => ("/", Prec::Mul),
            };
            let l = print(d, a).at(prec);
            let r = print(d, b).at(next(prec));
            P::new(format!("{l} {sym} {r}"), prec)
        }
        Code::FloorDiv(a, k) => d.floor_div(a, *k),
        Code::CeilDiv(a, k) => d.ceil_div(a, *k),
        Code::ToReal(a) => d.to_real(a),
        Code::Call {
            object,
            method,
            args,
        } => d.call(*object, *method, args),
    }
}

fn next(p: Prec) -> Prec {
    match p {
        Prec::Add => Prec::Mul,
        Prec::Mul => Prec::Cast,
        Prec::Cast => Prec::Unary,
        Prec::Unary | Prec::Atom => Prec::Atom,
    }
}

/// `2 * i + j - 1`: positive terms first, then negative ones, then the constant.
fn print_lin<D: Dialect + ?Sized>(d: &D, terms: &[(i64, Code)], k: i64) -> P {
    let mut ordered: Vec<&(i64, Code)> = terms.iter().filter(|(c, _)| *c > 0).collect();
    ordered.extend(terms.iter().filter(|(c, _)| *c < 0));
    let mut text = String::new();
    let mut pieces = 0;
    let mut prec = Prec::Atom;
    for (c, t) in ordered {
        let first = pieces == 0;
        pieces += 1;
        let (neg, mag) = match c.checked_abs() {
            Some(m) => (*c < 0, Some(m)),
            None => (false, None),
        };
        let body = match mag {
            Some(1) => {
                let p = print(d, t);
                if first && !neg {
                    prec = p.prec;
                    p.at(Prec::Add)
                } else if first {
                    prec = Prec::Unary;
                    p.neg_operand()
                } else {
                    p.at(Prec::Mul)
                }
            }
            Some(m) => {
                prec = Prec::Mul;
                let lit = d.int(if first && neg { -m } else { m }).text;
                format!("{lit} * {}", print(d, t).at(Prec::Cast))
            }
            None => {
                prec = Prec::Mul;
                format!(
                    "{} * {}",
                    d.int(*c).at(Prec::Mul),
                    print(d, t).at(Prec::Cast)
                )
            }
        };
        if first {
            if neg && mag == Some(1) {
                text.push('-');
            }
            text.push_str(&body);
        } else {
            text.push_str(if neg { " - " } else { " + " });
            text.push_str(&body);
        }
    }
    if pieces == 0 {
        return d.int(k);
    }
    if pieces > 1 {
        prec = Prec::Add;
    }
    if k != 0 {
        prec = Prec::Add;
        match k.checked_abs() {
            Some(m) => {
                text.push_str(if k < 0 { " - " } else { " + " });
                text.push_str(&d.int(m).text);
            }
            None => {
                text.push_str(" + ");
                text.push_str(&d.int(k).at(Prec::Mul));
            }
        }
    }
    P::new(text, prec)
}

/// Prints a condition list joined by `&&`.
pub(crate) fn print_conds<D: Dialect + ?Sized>(d: &D, conds: &[Cond]) -> String {
    conds
        .iter()
        .map(|c| {
            let l = d.cmp_lhs(print(d, &c.lhs), c.op);
            let r = print(d, &c.rhs).at(Prec::Add);
            format!("{l} {} {r}", c.op.symbol())
        })
        .collect::<Vec<_>>()
        .join(" && ")
}

/// The helpers a printer used, to emit only those.
#[derive(Debug, Default)]
pub(crate) struct Used(RefCell<BTreeSet<&'static str>>);

impl Used {
    pub(crate) fn add(&self, name: &'static str) {
        self.0.borrow_mut().insert(name);
    }

    pub(crate) fn contains(&self, name: &str) -> bool {
        self.0.borrow().contains(name)
    }
}

/// Whether any data space element in `c` belongs to a space in `spaces`.
pub(crate) fn reads_any(c: &Code, spaces: &[bool]) -> bool {
    let mut hit = false;
    c.for_each_elem(&mut |s| hit |= spaces.get(s).copied().unwrap_or(false));
    hit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_of_typical_names() {
        assert_eq!(snake_case("A"), "a");
        assert_eq!(snake_case("NNZ"), "nnz");
        assert_eq!(snake_case("rowPtr"), "row_ptr");
        assert_eq!(snake_case("Acoo"), "acoo");
        assert_eq!(snake_case("A_val"), "a_val");
        assert_eq!(snake_case("HTTPServer"), "http_server");
        assert_eq!(snake_case("x2"), "x2");
    }

    #[test]
    fn namer_avoids_keywords_and_clashes() {
        let mut n = Namer::new(Lang::Rust);
        assert_eq!(n.fresh("N"), "n");
        assert_eq!(n.fresh("n"), "n_2");
        assert_eq!(n.fresh("type"), "type_");
        assert_eq!(n.fresh("i'"), "i_1");
        assert_eq!(n.fresh("spf_len"), "spf_len_");
        let mut c = Namer::new(Lang::C);
        assert_eq!(c.fresh("N"), "N");
        assert_eq!(c.fresh("int"), "int_");
        assert_eq!(c.fresh("free"), "free_");
    }

    #[test]
    fn lin_flattens_and_folds() {
        let i = Code::Var("i".into());
        let inner = lin(vec![(1, i.clone())], 1);
        assert_eq!(
            lin(vec![(1, inner.clone()), (1, Code::Int(2))], 0),
            Code::Lin(vec![(1, i.clone())], 3)
        );
        assert_eq!(lin(vec![(1, inner), (-1, i.clone())], -1), Code::Int(0));
        assert_eq!(lin(vec![(1, i.clone())], 0), i);
    }
}
