//! The interpreter: runs a loop program in-process on concrete data.
//!
//! [`run`] executes a [`LoopProgram`] over a [`Memory`] (symbol values and
//! arrays), checking everything the generated C would leave undefined: an
//! index out of bounds, a missing array or symbol, an array whose length is
//! not the product of its extents, integer overflow, integer division by
//! zero. Every error is a [`RunError`] that says where it happened (the
//! statement and its iterator values, or the loop, `let` or guard).
//!
//! Semantics, shared with the C and Rust backends:
//!
//! * integers are `i64`, reals `f64`; an operation with a real operand
//!   converts the integer one; integer division truncates toward zero (as in
//!   C); `min(a, b)` is `a < b ? a : b` and `max(a, b)` is `a > b ? a : b`;
//! * a loop's bounds are evaluated once, before its first iteration;
//! * `rise=` stores its value, which must not be below the target's (a
//!   [`RunError::NotRising`] otherwise): the backends store it unread;
//! * a multi-dimensional data space is one row-major array; each index is
//!   checked against its extent, so `A(i, M)` is an error rather than
//!   `A(i + 1, 0)`;
//! * scalars (data spaces without dimensions) are arrays of length 1 in the
//!   memory; temporaries are allocated (zeroed) by the interpreter and
//!   dropped at the end, and are never looked up in the memory;
//! * an `out` or `temp` array sized by size spaces ([`crate::dynamic`]) is
//!   allocated (zeroed) right before the first top-level node touching it,
//!   replacing any array the memory held; a size space written with another
//!   value afterwards is a [`RunError::SizeChanged`];
//! * runtime objects ([`crate::runtime`], `docs/runtime.md`) are created
//!   before the first statement — those the program calls — and dropped at
//!   the end; their misuse (an insert after `sort()`, an entry or position out
//!   of range, a value outside an `OrderedSet`'s bounds, ...) is a
//!   [`RunError::ObjectFault`] naming the statement instance and the call.
//!
//! With a [`Trace`], every executed statement instance is recorded as its
//! statement index and iterator values, in execution order: the oracle of
//! the scanner's tests (every domain point exactly once, in schedule order).

use std::collections::HashMap;
use std::fmt;

use iegen::computation::{
    Access, BinOp, Body, Computation, Condition, ElemType, Role, UpdateOp, ValueExpr,
};
use iegen::{Atom, Expr, Var};

pub use crate::allocation::{try_zeroed, TooLarge};
use crate::ast::{GuardOp, IndexExpr, LoopProgram, Node};
use crate::emit::CmpOp;
use crate::runtime::objects::{Object, RunOrder};
use crate::runtime::{
    check_call_at, CallError, CallSite, Method, ObjectFault, ObjectKind, ObjectSpec, Order,
    SpecError,
};
use crate::width::{IndexWidth, TooWide, Widths};

/// The contents of one data space.
#[derive(Clone, Debug, PartialEq)]
pub enum Array {
    /// Elements of an `int` data space.
    Int(Vec<i64>),
    /// Elements of a `real` data space.
    Real(Vec<f64>),
}

impl Array {
    /// The number of elements.
    pub fn len(&self) -> usize {
        match self {
            Array::Int(v) => v.len(),
            Array::Real(v) => v.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element type.
    pub fn elem_type(&self) -> ElemType {
        match self {
            Array::Int(_) => ElemType::Int,
            Array::Real(_) => ElemType::Real,
        }
    }

    /// The elements of an integer array.
    pub fn as_int(&self) -> Option<&[i64]> {
        match self {
            Array::Int(v) => Some(v),
            Array::Real(_) => None,
        }
    }

    /// The elements of a real array.
    pub fn as_real(&self) -> Option<&[f64]> {
        match self {
            Array::Real(v) => Some(v),
            Array::Int(_) => None,
        }
    }

    fn zeros(elem: ElemType, len: usize) -> Array {
        match elem {
            ElemType::Int => Array::Int(vec![0; len]),
            ElemType::Real => Array::Real(vec![0.0; len]),
        }
    }

    /// [`Array::zeros`] for a size that comes from the input: an array the
    /// machine cannot allocate is [`TooLarge`], not an abort.
    fn try_zeros(elem: ElemType, len: usize, space: &str) -> Result<Array, TooLarge> {
        Ok(match elem {
            ElemType::Int => Array::Int(try_zeroed(len, 0, space)?),
            ElemType::Real => Array::Real(try_zeroed(len, 0.0, space)?),
        })
    }
}

/// Concrete values for a run: symbols and the arrays of the data spaces that
/// are not temporaries (scalars as arrays of length 1), by name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Memory {
    /// The value of each symbol.
    pub symbols: HashMap<String, i64>,
    /// The elements of each data space.
    pub arrays: HashMap<String, Array>,
}

impl Memory {
    /// An empty memory.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets a symbol (builder style).
    pub fn with_symbol(mut self, name: impl Into<String>, value: i64) -> Self {
        self.symbols.insert(name.into(), value);
        self
    }

    /// Sets an array (builder style).
    pub fn with_array(mut self, name: impl Into<String>, array: Array) -> Self {
        self.arrays.insert(name.into(), array);
        self
    }

    /// The elements of the integer array `name`.
    pub fn int(&self, name: &str) -> Option<&[i64]> {
        self.arrays.get(name).and_then(Array::as_int)
    }

    /// The elements of the real array `name`.
    pub fn real(&self, name: &str) -> Option<&[f64]> {
        self.arrays.get(name).and_then(Array::as_real)
    }
}

/// The statement instances a run executed, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// `(statement index, iterator values)` of each executed instance.
    pub instances: Vec<(usize, Vec<i64>)>,
}

impl Trace {
    /// An empty trace.
    pub fn new() -> Self {
        Self::default()
    }
}

/// Where a [`RunError`] happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Site {
    /// In an extent of the named data space, before the first statement.
    Extent(String),
    /// In the creation of the named runtime object, before the first statement.
    Object(String),
    /// In the bounds of the loop over the named variable.
    Loop(String),
    /// In the value of the named `let` variable.
    Let(String),
    /// In the guard of an `if` node.
    Guard,
    /// In an instance of a statement: its name and iterator values (empty
    /// when the error is in the iterator values themselves or found before
    /// the run).
    Statement {
        /// The statement's name.
        name: String,
        /// The instance's iterator values.
        point: Vec<i64>,
    },
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Site::Extent(s) => write!(f, "extent of data space `{s}`"),
            Site::Object(o) => write!(f, "creation of runtime object `{o}`"),
            Site::Loop(v) => write!(f, "bounds of the loop over `{v}`"),
            Site::Let(v) => write!(f, "value of `{v}`"),
            Site::Guard => write!(f, "guard"),
            Site::Statement { name, point } if point.is_empty() => {
                write!(f, "statement {name}")
            }
            Site::Statement { name, point } => {
                let p: Vec<String> = point.iter().map(i64::to_string).collect();
                write!(f, "statement {name} at [{}]", p.join(", "))
            }
        }
    }
}

/// Why a run failed. The memory is left as the run had made it (the arrays
/// are all still there).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// A size or an index value does not fit the index width asked for
    /// ([`run_at`]).
    #[error(transparent)]
    TooWide(Box<TooWide>),
    /// A symbol the program needs has no value.
    #[error("{site}: symbol `{name}` has no value in the memory")]
    MissingSymbol {
        /// The symbol.
        name: String,
        /// Where it is needed.
        site: Site,
    },
    /// A symbol the computation does not declare.
    #[error("{site}: `{name}` is not a symbol of the computation")]
    UnknownSymbol {
        /// The name.
        name: String,
        /// Where it is used.
        site: Site,
    },
    /// A data space that is not a temporary has no array in the memory.
    #[error("data space `{space}` has no array in the memory")]
    MissingArray {
        /// The data space.
        space: String,
    },
    /// An array of the wrong element type.
    #[error("data space `{space}` holds {expected:?} elements but its array holds {found:?}")]
    ArrayType {
        /// The data space.
        space: String,
        /// The declared element type.
        expected: ElemType,
        /// The array's element type.
        found: ElemType,
    },
    /// An array whose length is not the product of the extents.
    #[error(
        "data space `{space}` has {expected} element(s) by its extents but its array has {found}"
    )]
    WrongLength {
        /// The data space.
        space: String,
        /// The product of the extents.
        expected: i64,
        /// The array's length.
        found: usize,
    },
    /// An extent that evaluates to a negative number.
    #[error("data space `{space}` has the negative extent {extent}")]
    NegativeExtent {
        /// The data space.
        space: String,
        /// The extent's value.
        extent: i64,
    },
    /// A name used as a data space that the computation does not declare.
    #[error("{site}: `{name}` is not a data space of the computation")]
    UnknownSpace {
        /// The name.
        name: String,
        /// Where.
        site: Site,
    },
    /// An index array call (a UF) on a data space of reals.
    #[error("{site}: `{name}` holds reals and cannot be used as an index array")]
    NotIndexArray {
        /// The data space.
        name: String,
        /// Where.
        site: Site,
    },
    /// An access with the wrong number of indices.
    #[error(
        "{site}: data space `{space}` has {expected} dimension(s) but is indexed with {found}"
    )]
    Arity {
        /// The data space.
        space: String,
        /// Its number of dimensions.
        expected: usize,
        /// The number of indices.
        found: usize,
        /// Where.
        site: Site,
    },
    /// A variable that no enclosing loop or `let` binds.
    #[error("{site}: variable `{name}` is not bound by an enclosing loop or let")]
    UnboundVariable {
        /// The variable.
        name: String,
        /// Where.
        site: Site,
    },
    /// A body variable that is not an iterator of the statement's domain.
    #[error("statement {stmt}: the body uses the variable {var}, which is not an iterator of its domain")]
    BadIterator {
        /// The statement.
        stmt: String,
        /// The variable, as printed by iegen.
        var: String,
    },
    /// A node that refers to a statement the computation does not have.
    #[error("the loop AST refers to statement #{index} but the computation has {count}")]
    NoSuchStatement {
        /// The index in the node.
        index: usize,
        /// The number of statements.
        count: usize,
    },
    /// A statement node with the wrong number of iterator values.
    #[error("statement {stmt}: the loop AST gives {found} iterator values but its domain has {expected} iterators")]
    IteratorCount {
        /// The statement.
        stmt: String,
        /// The domain's arity.
        expected: usize,
        /// The number of values.
        found: usize,
    },
    /// A statement that writes an input.
    #[error("statement {stmt} writes `{space}`, an input of the computation")]
    WriteToInput {
        /// The statement.
        stmt: String,
        /// The data space.
        space: String,
    },
    /// A real value stored into an integer data space.
    #[error("statement {stmt} stores a real value into `{space}`, which holds integers")]
    RealToInt {
        /// The statement.
        stmt: String,
        /// The data space.
        space: String,
    },
    /// An unknown comparison operator in a conditional body.
    #[error("statement {stmt}: unknown comparison operator `{op}`")]
    Comparison {
        /// The statement.
        stmt: String,
        /// The operator.
        op: String,
    },
    /// A floor or ceiling division by a non-positive constant.
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
    /// A construct the interpreter does not run. Not produced by the current
    /// interpreter (runtime-object calls run since the runtime exists).
    #[error("statement {stmt}: {what} is not supported by the interpreter yet")]
    Unsupported {
        /// The statement.
        stmt: String,
        /// What it uses.
        what: String,
    },
    /// An index outside its data space.
    #[error("{site}: index {index:?} is out of bounds for `{space}` ({len} element(s))")]
    OutOfBounds {
        /// The data space.
        space: String,
        /// The index: one value per dimension, each checked against its
        /// extent (when the extents use only symbols), then the linear
        /// position against the array's length.
        index: Vec<i64>,
        /// The array's length.
        len: usize,
        /// Where.
        site: Site,
    },
    /// An array (or a runtime object's storage) cannot be allocated.
    #[error(transparent)]
    TooLarge(#[from] TooLarge),
    /// Integer overflow.
    #[error("{site}: integer overflow")]
    Overflow {
        /// Where.
        site: Site,
    },
    /// Integer division by zero.
    #[error("{site}: integer division by zero")]
    DivisionByZero {
        /// Where.
        site: Site,
    },
    /// A runtime object declaration the runtime does not provide (found
    /// before the run).
    #[error("runtime object `{object}`: {error}")]
    Object {
        /// The object.
        object: String,
        /// What is wrong with its declaration.
        error: SpecError,
    },
    /// An invalid call of a runtime object: unknown object or method, wrong
    /// number of arguments, ... (found before the run).
    #[error("statement {stmt}: {error}")]
    Call {
        /// The statement.
        stmt: String,
        /// What is wrong with the call.
        error: CallError,
    },
    /// A size space written with a new value after an array it sizes was
    /// allocated (docs/computations.md, "Sizes computed by the computation").
    #[error("{site}: size space `{size_space}` changes from {old} to {new} after `{array}`, which it sizes, was allocated")]
    SizeChanged {
        /// The size space.
        size_space: String,
        /// An array it sizes, already allocated.
        array: String,
        /// Its value when the array was allocated.
        old: i64,
        /// The value written.
        new: i64,
        /// Where.
        site: Site,
    },
    /// A `rise=` whose value is below its target's: the statement that the
    /// values written to an element rise in execution order does not hold,
    /// and the generated code, which stores without reading, would differ
    /// from `max=`.
    #[error("{site}: `rise=` writes {new} to `{element}`, which holds {old}: the values written to an element must not fall")]
    NotRising {
        /// The element written: `space[i, j]`, or a scalar's name.
        element: String,
        /// Its value before.
        old: Number,
        /// The lower value.
        new: Number,
        /// Where.
        site: Site,
    },
    /// A runtime-object operation that failed while running.
    #[error("{site}: `{call}`: {fault}")]
    ObjectFault {
        /// The statement instance (or the object's creation).
        site: Site,
        /// The call, `P.insert`, or the object's declaration.
        call: String,
        /// What went wrong.
        fault: ObjectFault,
    },
}

impl From<TooWide> for RunError {
    fn from(e: TooWide) -> RunError {
        RunError::TooWide(Box::new(e))
    }
}

/// [`run`] with the index arrays the program takes and returns stored at
/// `widths`, as the C and Rust backends store them ([`crate::width`]):
/// every symbol and every input index array must fit its width before the
/// run, and every output index array (its length, and each value stored)
/// after it, or the run is a [`RunError::TooWide`] naming the size. The
/// interpreter computes with 64 bits as the backends do, so the results
/// are [`run`]'s.
///
/// # Errors
///
/// As [`run`], and [`RunError::TooWide`].
pub fn run_at(
    program: &LoopProgram,
    memory: &mut Memory,
    trace: Option<&mut Trace>,
    widths: &Widths,
) -> Result<(), RunError> {
    let comp = &program.computation;
    let narrow = |d: &iegen::computation::DataSpace| {
        let w = widths.of(&d.name);
        let array = !d.extents.is_empty() && d.role != Role::Temp && d.elem == ElemType::Int;
        (array && w == IndexWidth::W32).then_some(w)
    };
    let fits = |memory: &Memory, live_out: bool| -> Result<(), TooWide> {
        for d in comp
            .spaces
            .iter()
            .filter(|d| d.role.is_live_out() == live_out)
        {
            let (Some(w), Some(Array::Int(v))) = (narrow(d), memory.arrays.get(&d.name)) else {
                continue;
            };
            let len = i128::try_from(v.len()).unwrap_or(i128::MAX);
            w.check(format_args!("the length of {}", d.name), len)?;
            for (k, &x) in v.iter().enumerate() {
                w.check(format_args!("{}[{k}]", d.name), i128::from(x))?;
            }
        }
        Ok(())
    };
    if comp.spaces.iter().any(|d| narrow(d).is_some()) {
        for name in &comp.symbols {
            if let Some(&v) = memory.symbols.get(name) {
                IndexWidth::W32.check(format_args!("the symbol {name}"), i128::from(v))?;
            }
        }
        fits(memory, false)?;
    }
    run(program, memory, trace)?;
    fits(memory, true)?;
    Ok(())
}

/// Runs `program` on `memory`, recording the executed statement instances
/// in `trace` when given.
///
/// Before the first statement, every symbol and array is checked (present,
/// of the declared element type, of the length its extents give when they
/// use only symbols) and the whole program is resolved, so that a misnamed
/// variable or data space is reported even in a statement that would not
/// run. The arrays of live-out data spaces hold the results afterwards; on
/// an error the memory holds what the run had done until then.
///
/// # Errors
///
/// A [`RunError`] naming the statement (with its iterator values) or the
/// loop, `let` or guard where the run failed.
pub fn run(
    program: &LoopProgram,
    memory: &mut Memory,
    trace: Option<&mut Trace>,
) -> Result<(), RunError> {
    let comp = &program.computation;
    let specs = comp
        .objects
        .iter()
        .map(|o| {
            ObjectSpec::parse(o, &comp.symbols).map_err(|error| RunError::Object {
                object: o.name.clone(),
                error,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut cx = Compiler {
        comp,
        symbols: &memory.symbols,
        scope: Vec::new(),
        depth: 0,
        site: Site::Guard,
        specs: &specs,
        object_used: vec![false; specs.len()],
    };
    let spaces = comp
        .spaces
        .iter()
        .map(|d| {
            cx.site = Site::Extent(d.name.clone());
            let extents = d
                .extents
                .iter()
                .map(|e| {
                    let ie = cx.expr(e, 0)?;
                    Ok(match ie {
                        IE::Const(k) if k < 0 => {
                            return Err(RunError::NegativeExtent {
                                space: d.name.clone(),
                                extent: k,
                            })
                        }
                        IE::Const(k) => Ext::Static(k),
                        ie => Ext::Dynamic(ie),
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(SpaceInfo { extents })
        })
        .collect::<Result<Vec<_>, RunError>>()?;

    // Arrays sized by the computation: allocated before a top-level node.
    let alloc_at = crate::dynamic::allocation_points(program);

    // The arrays: present, typed, sized.
    for (s, (d, info)) in comp.spaces.iter().zip(&spaces).enumerate() {
        if d.role == Role::Temp {
            continue;
        }
        let a = match memory.arrays.get(&d.name) {
            Some(a) => a,
            // The interpreter allocates it; the caller need not provide it.
            None if alloc_at[s].is_some() => continue,
            None => {
                return Err(RunError::MissingArray {
                    space: d.name.clone(),
                })
            }
        };
        if a.elem_type() != d.elem {
            return Err(RunError::ArrayType {
                space: d.name.clone(),
                expected: d.elem,
                found: a.elem_type(),
            });
        }
        if let Some(expected) = info.static_len(&d.name)? {
            if usize::try_from(expected).ok() != Some(a.len()) {
                return Err(RunError::WrongLength {
                    space: d.name.clone(),
                    expected,
                    found: a.len(),
                });
            }
        }
    }

    let body = cx.nodes(&program.body)?;
    let depth = cx.depth;

    // The objects the program calls, created from the symbols' values.
    let mut objects = Vec::with_capacity(specs.len());
    for (spec, used) in specs.iter().zip(cx.object_used.clone()) {
        if !used {
            // Never called: a placeholder, never created.
            objects.push(Object::ordered_set(None));
            continue;
        }
        cx.site = Site::Object(spec.name.clone());
        let values = spec
            .init_exprs()
            .into_iter()
            .map(|e| match cx.expr(e, 0)? {
                IE::Const(k) => Ok(k),
                // Declarations use symbols only (checked when parsed).
                _ => Err(RunError::Object {
                    object: spec.name.clone(),
                    error: SpecError::Expression {
                        text: e.to_string(),
                        reason: "not constant".into(),
                    },
                }),
            })
            .collect::<Result<Vec<i64>, _>>()?;
        let object = match &spec.kind {
            ObjectKind::Permutation {
                arity,
                compared,
                order,
            } => {
                let order = match order {
                    Order::Lex => RunOrder::Lex,
                    Order::Morton => RunOrder::Morton,
                    Order::Counting(_) => RunOrder::Counting(values),
                };
                Object::permutation(*arity, *compared, order).map_err(|fault| {
                    RunError::ObjectFault {
                        site: Site::Object(spec.name.clone()),
                        call: spec.to_string(),
                        fault,
                    }
                })?
            }
            ObjectKind::OrderedSet { bounds } => {
                Object::ordered_set(bounds.as_ref().map(|_| (values[0], values[1])))
            }
            ObjectKind::Scatter { .. } => {
                Object::scatter(values[0]).map_err(|fault| RunError::ObjectFault {
                    site: Site::Object(spec.name.clone()),
                    call: spec.to_string(),
                    fault,
                })?
            }
        };
        objects.push(object);
    }

    // Move the arrays into the machine, run, and always give them back.
    let mut store = Vec::with_capacity(comp.spaces.len());
    for (s, d) in comp.spaces.iter().enumerate() {
        let a = match d.role {
            Role::Temp => Array::zeros(d.elem, 0),
            _ if alloc_at[s].is_some() => {
                memory.arrays.remove(&d.name);
                Array::zeros(d.elem, 0)
            }
            // `out` data spaces start at zero: the computation defines them whole.
            Role::Out => {
                let len = memory.arrays.get(&d.name).map_or(0, Array::len);
                memory.arrays.remove(&d.name);
                Array::try_zeros(d.elem, len, &d.name)?
            }
            _ => memory
                .arrays
                .remove(&d.name)
                .unwrap_or_else(|| Array::zeros(d.elem, 0)),
        };
        store.push(a);
    }
    let mut m = Machine {
        comp,
        spaces: &spaces,
        store,
        slots: vec![0; depth],
        trace,
        objects,
        alloc_at: &alloc_at,
        frozen: vec![None; comp.spaces.len()],
    };
    let result = m.setup_temps().and_then(|()| m.top_level(&body));
    for (d, a) in comp.spaces.iter().zip(m.store) {
        if d.role != Role::Temp {
            memory.arrays.insert(d.name.clone(), a);
        }
    }
    result
}

// ---------------------------------------------------------------------------
// The resolved program

/// An integer expression with every name resolved.
#[derive(Clone, Debug)]
enum IE {
    Const(i64),
    /// A loop or let variable, by scope depth.
    Slot(usize),
    /// An iterator of the current statement instance, by position.
    It(usize),
    Sum(Vec<(i64, IE)>, i64),
    Read(Box<Ref>),
    Min(Vec<IE>),
    Max(Vec<IE>),
    FloorDiv(Box<IE>, i64),
    CeilDiv(Box<IE>, i64),
}

/// An element of a data space.
#[derive(Clone, Debug)]
struct Ref {
    space: usize,
    index: Vec<IE>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
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

/// A value expression; operands of `Bin` have the type it carries.
#[derive(Clone, Debug)]
enum VE {
    Int(i64),
    Real(f64),
    Index(IE),
    Read(Ref),
    Neg(Box<VE>),
    Bin(BinOp, Ty, Box<VE>, Box<VE>),
    ToReal(Box<VE>),
    /// A value method of a runtime object (by index), integer arguments.
    Call(usize, Method, Vec<VE>),
}

#[derive(Clone, Debug)]
enum Act {
    Update {
        target: Ref,
        op: UpdateOp,
        value: VE,
    },
    If {
        conds: Vec<(VE, CmpOp, VE)>,
        then: Vec<Act>,
    },
    /// `insert` or `sort` of a runtime object.
    Call(usize, Method, Vec<VE>),
}

#[derive(Clone, Debug)]
enum CNode {
    For {
        var: String,
        slot: usize,
        lower: IE,
        upper: IE,
        body: Vec<CNode>,
    },
    Let {
        var: String,
        slot: usize,
        value: IE,
        body: Vec<CNode>,
    },
    If {
        guards: Vec<(IE, GuardOp, IE)>,
        body: Vec<CNode>,
    },
    Stmt {
        index: usize,
        iters: Vec<IE>,
        acts: Vec<Act>,
    },
}

#[derive(Clone, Debug)]
enum Ext {
    Static(i64),
    Dynamic(IE),
}

#[derive(Clone, Debug)]
struct SpaceInfo {
    extents: Vec<Ext>,
}

impl SpaceInfo {
    /// The product of the extents when they are all static.
    fn static_len(&self, name: &str) -> Result<Option<i64>, RunError> {
        let mut len: i64 = 1;
        for e in &self.extents {
            match e {
                Ext::Static(k) => {
                    len = len.checked_mul(*k).ok_or_else(|| RunError::Overflow {
                        site: Site::Extent(name.to_string()),
                    })?
                }
                Ext::Dynamic(_) => return Ok(None),
            }
        }
        Ok(Some(len))
    }
}

struct Compiler<'a> {
    comp: &'a Computation,
    symbols: &'a HashMap<String, i64>,
    /// Variables in scope, innermost last; a variable's slot is its position.
    scope: Vec<String>,
    /// The deepest scope seen.
    depth: usize,
    site: Site,
    /// The runtime objects' declarations.
    specs: &'a [ObjectSpec],
    /// Per runtime object: called anywhere.
    object_used: Vec<bool>,
}

impl Compiler<'_> {
    fn stmt_site(&self, index: usize) -> Site {
        Site::Statement {
            name: self.comp.stmts[index].name.clone(),
            point: Vec::new(),
        }
    }

    fn nodes(&mut self, nodes: &[Node]) -> Result<Vec<CNode>, RunError> {
        nodes.iter().map(|n| self.node(n)).collect()
    }

    fn scoped(&mut self, var: &str, body: &[Node]) -> Result<(usize, Vec<CNode>), RunError> {
        let slot = self.scope.len();
        self.scope.push(var.to_string());
        self.depth = self.depth.max(self.scope.len());
        let body = self.nodes(body);
        self.scope.pop();
        Ok((slot, body?))
    }

    fn node(&mut self, node: &Node) -> Result<CNode, RunError> {
        Ok(match node {
            Node::For {
                var,
                lower,
                upper,
                body,
            } => {
                self.site = Site::Loop(var.clone());
                let lower = self.index(lower)?;
                let upper = self.index(upper)?;
                let (slot, body) = self.scoped(var, body)?;
                CNode::For {
                    var: var.clone(),
                    slot,
                    lower,
                    upper,
                    body,
                }
            }
            Node::Let { var, value, body } => {
                self.site = Site::Let(var.clone());
                let value = self.index(value)?;
                let (slot, body) = self.scoped(var, body)?;
                CNode::Let {
                    var: var.clone(),
                    slot,
                    value,
                    body,
                }
            }
            Node::If { guards, body } => {
                self.site = Site::Guard;
                let guards = guards
                    .iter()
                    .map(|g| Ok((self.index(&g.lhs)?, g.op, self.index(&g.rhs)?)))
                    .collect::<Result<_, RunError>>()?;
                CNode::If {
                    guards,
                    body: self.nodes(body)?,
                }
            }
            Node::Stmt { stmt, iterators } => {
                let comp = self.comp;
                let s = comp.stmts.get(*stmt).ok_or(RunError::NoSuchStatement {
                    index: *stmt,
                    count: comp.stmts.len(),
                })?;
                self.site = self.stmt_site(*stmt);
                let arity = s.domain.arity();
                if iterators.len() != arity {
                    return Err(RunError::IteratorCount {
                        stmt: s.name.clone(),
                        expected: arity,
                        found: iterators.len(),
                    });
                }
                let iters = iterators
                    .iter()
                    .map(|e| self.index(e))
                    .collect::<Result<_, _>>()?;
                let mut acts = Vec::new();
                self.body(&s.name, &s.body, arity, &mut acts)?;
                CNode::Stmt {
                    index: *stmt,
                    iters,
                    acts,
                }
            }
        })
    }

    fn body(
        &mut self,
        stmt: &str,
        body: &Body,
        arity: usize,
        out: &mut Vec<Act>,
    ) -> Result<(), RunError> {
        match body {
            Body::Update { target, op, value } => {
                let (value, vt) = match (op, value) {
                    // The whole value of an assignment: where `place` may stand.
                    (
                        UpdateOp::Assign,
                        ValueExpr::Call {
                            object,
                            method,
                            args,
                        },
                    ) => {
                        let (o, m, args) =
                            self.call(stmt, object, method, args, arity, CallSite::Assigned)?;
                        (VE::Call(o, m, args), Ty::Int)
                    }
                    _ => self.value(stmt, value, arity)?,
                };
                let target = self.access(target, arity)?;
                let d = &self.comp.spaces[target.space];
                if d.role == Role::In {
                    return Err(RunError::WriteToInput {
                        stmt: stmt.to_string(),
                        space: d.name.clone(),
                    });
                }
                let value = match (d.elem, vt) {
                    (ElemType::Int, Ty::Real) => {
                        return Err(RunError::RealToInt {
                            stmt: stmt.to_string(),
                            space: d.name.clone(),
                        })
                    }
                    (ElemType::Real, Ty::Int) => VE::ToReal(Box::new(value)),
                    _ => value,
                };
                out.push(Act::Update {
                    target,
                    op: *op,
                    value,
                });
            }
            Body::If { conditions, then } => {
                let conds = conditions
                    .iter()
                    .map(|c| self.condition(stmt, c, arity))
                    .collect::<Result<_, _>>()?;
                let mut inner = Vec::new();
                self.body(stmt, then, arity, &mut inner)?;
                out.push(Act::If { conds, then: inner });
            }
            Body::Call {
                object,
                method,
                args,
            } => {
                let (o, m, args) =
                    self.call(stmt, object, method, args, arity, CallSite::Statement)?;
                out.push(Act::Call(o, m, args));
            }
            Body::Seq(bs) => {
                for b in bs {
                    self.body(stmt, b, arity, out)?;
                }
            }
        }
        Ok(())
    }

    /// A call of a runtime object, checked, its arguments resolved.
    fn call(
        &mut self,
        stmt: &str,
        object: &str,
        method: &str,
        args: &[ValueExpr],
        arity: usize,
        site: CallSite,
    ) -> Result<(usize, Method, Vec<VE>), RunError> {
        let err = |error| RunError::Call {
            stmt: stmt.to_string(),
            error,
        };
        let o = self
            .comp
            .objects
            .iter()
            .position(|x| x.name == object)
            .ok_or_else(|| {
                err(CallError::UnknownObject {
                    object: object.to_string(),
                })
            })?;
        let m = check_call_at(&self.specs[o], method, args, site).map_err(err)?;
        let mut resolved = Vec::with_capacity(args.len());
        for (p, a) in args.iter().enumerate() {
            let (v, ty) = self.value(stmt, a, arity)?;
            if ty == Ty::Real {
                return Err(err(CallError::RealArgument {
                    call: format!("{object}.{method}"),
                    position: p + 1,
                }));
            }
            resolved.push(v);
        }
        self.object_used[o] = true;
        Ok((o, m, resolved))
    }

    fn condition(
        &mut self,
        stmt: &str,
        c: &Condition,
        arity: usize,
    ) -> Result<(VE, CmpOp, VE), RunError> {
        let op = CmpOp::parse(c.op).ok_or_else(|| RunError::Comparison {
            stmt: stmt.to_string(),
            op: c.op.to_string(),
        })?;
        let l = self.value(stmt, &c.lhs, arity)?;
        let r = self.value(stmt, &c.rhs, arity)?;
        let (l, r, _) = promote(l, r);
        Ok((l, op, r))
    }

    fn value(&mut self, stmt: &str, v: &ValueExpr, arity: usize) -> Result<(VE, Ty), RunError> {
        Ok(match v {
            ValueExpr::Int(k) => (VE::Int(*k), Ty::Int),
            ValueExpr::Real(x) => (VE::Real(*x), Ty::Real),
            ValueExpr::Index(e) => (VE::Index(self.expr(e, arity)?), Ty::Int),
            ValueExpr::Read(a) => {
                let r = self.access(a, arity)?;
                let ty = Ty::of(self.comp.spaces[r.space].elem);
                (VE::Read(r), ty)
            }
            ValueExpr::Neg(a) => {
                let (a, ty) = self.value(stmt, a, arity)?;
                (VE::Neg(Box::new(a)), ty)
            }
            ValueExpr::Binary(op, a, b) => {
                let a = self.value(stmt, a, arity)?;
                let b = self.value(stmt, b, arity)?;
                let (a, b, ty) = promote(a, b);
                (VE::Bin(*op, ty, Box::new(a), Box::new(b)), ty)
            }
            ValueExpr::Call {
                object,
                method,
                args,
            } => {
                let (o, m, args) = self.call(stmt, object, method, args, arity, CallSite::Value)?;
                (VE::Call(o, m, args), Ty::Int)
            }
        })
    }

    fn access(&mut self, a: &Access, arity: usize) -> Result<Ref, RunError> {
        let index = a
            .index
            .iter()
            .map(|e| self.expr(e, arity))
            .collect::<Result<Vec<_>, _>>()?;
        self.reference(&a.space, index, false)
    }

    fn reference(
        &mut self,
        name: &str,
        index: Vec<IE>,
        index_array: bool,
    ) -> Result<Ref, RunError> {
        let space = self
            .comp
            .spaces
            .iter()
            .position(|d| d.name == name)
            .ok_or_else(|| RunError::UnknownSpace {
                name: name.to_string(),
                site: self.site.clone(),
            })?;
        let d = &self.comp.spaces[space];
        if index_array && d.elem != ElemType::Int {
            return Err(RunError::NotIndexArray {
                name: name.to_string(),
                site: self.site.clone(),
            });
        }
        if index.len() != d.extents.len() {
            return Err(RunError::Arity {
                space: name.to_string(),
                expected: d.extents.len(),
                found: index.len(),
                site: self.site.clone(),
            });
        }
        Ok(Ref { space, index })
    }

    /// An affine expression of a body (`arity` iterators) or an extent (0).
    fn expr(&mut self, e: &Expr, arity: usize) -> Result<IE, RunError> {
        let mut terms = Vec::new();
        let mut constant = e.constant_term();
        for (atom, c) in e.terms() {
            let t = match atom {
                Atom::Var(Var::Tuple(p)) if *p < arity => IE::It(*p),
                Atom::Var(v) => {
                    return Err(match &self.site {
                        Site::Statement { name, .. } => RunError::BadIterator {
                            stmt: name.clone(),
                            var: v.to_string(),
                        },
                        site => RunError::UnboundVariable {
                            name: v.to_string(),
                            site: site.clone(),
                        },
                    })
                }
                Atom::Sym(s) if crate::dynamic::is_size_space(self.comp, s) => {
                    // A size space in an extent or an index expression: the
                    // scalar's current value.
                    IE::Read(Box::new(self.reference(s, Vec::new(), true)?))
                }
                Atom::Sym(s) => IE::Const(self.symbol(s)?),
                Atom::Uf(name, args) => {
                    let args = args
                        .iter()
                        .map(|a| self.expr(a, arity))
                        .collect::<Result<Vec<_>, _>>()?;
                    IE::Read(Box::new(self.reference(name, args, true)?))
                }
                Atom::Div(x, m) => match self.expr(x, arity)? {
                    IE::Const(k) => IE::Const(k.div_euclid(*m)),
                    inner => IE::FloorDiv(Box::new(inner), *m),
                },
            };
            match t {
                IE::Const(k) => {
                    constant = c
                        .checked_mul(k)
                        .and_then(|p| constant.checked_add(p))
                        .ok_or_else(|| RunError::Overflow {
                            site: self.site.clone(),
                        })?
                }
                t => terms.push((c, t)),
            }
        }
        Ok(if terms.is_empty() {
            IE::Const(constant)
        } else {
            IE::Sum(terms, constant)
        })
    }

    fn symbol(&self, s: &str) -> Result<i64, RunError> {
        if !self.comp.symbols.iter().any(|x| x == s) {
            return Err(RunError::UnknownSymbol {
                name: s.to_string(),
                site: self.site.clone(),
            });
        }
        self.symbols
            .get(s)
            .copied()
            .ok_or_else(|| RunError::MissingSymbol {
                name: s.to_string(),
                site: self.site.clone(),
            })
    }

    fn index(&mut self, e: &IndexExpr) -> Result<IE, RunError> {
        Ok(match e {
            IndexExpr::Const(k) => IE::Const(*k),
            IndexExpr::Var(v) => match self.scope.iter().rposition(|n| n == v) {
                Some(slot) => IE::Slot(slot),
                None => {
                    return Err(RunError::UnboundVariable {
                        name: v.clone(),
                        site: self.site.clone(),
                    })
                }
            },
            IndexExpr::Sym(s) if crate::dynamic::is_size_space(self.comp, s) => {
                // A size space in a bound or a guard: the scalar's value when
                // the bound or guard is evaluated.
                IE::Read(Box::new(self.reference(s, Vec::new(), true)?))
            }
            IndexExpr::Sym(s) => IE::Const(self.symbol(s)?),
            IndexExpr::Call(name, args) => {
                let args = args
                    .iter()
                    .map(|a| self.index(a))
                    .collect::<Result<Vec<_>, _>>()?;
                IE::Read(Box::new(self.reference(name, args, true)?))
            }
            IndexExpr::Sum(terms, k) => IE::Sum(
                terms
                    .iter()
                    .map(|(c, t)| Ok((*c, self.index(t)?)))
                    .collect::<Result<_, RunError>>()?,
                *k,
            ),
            IndexExpr::Min(es) | IndexExpr::Max(es) => {
                if es.is_empty() {
                    return Err(RunError::EmptyMinMax {
                        site: self.site.clone(),
                    });
                }
                let es = es.iter().map(|x| self.index(x)).collect::<Result<_, _>>()?;
                if matches!(e, IndexExpr::Min(_)) {
                    IE::Min(es)
                } else {
                    IE::Max(es)
                }
            }
            IndexExpr::FloorDiv(a, d) | IndexExpr::CeilDiv(a, d) => {
                if *d <= 0 {
                    return Err(RunError::Divisor {
                        site: self.site.clone(),
                        divisor: *d,
                    });
                }
                let a = Box::new(self.index(a)?);
                if matches!(e, IndexExpr::FloorDiv(..)) {
                    IE::FloorDiv(a, *d)
                } else {
                    IE::CeilDiv(a, *d)
                }
            }
        })
    }
}

/// Both operands as reals when either is one, and the operation's type.
fn promote((a, ta): (VE, Ty), (b, tb): (VE, Ty)) -> (VE, VE, Ty) {
    match (ta, tb) {
        (Ty::Int, Ty::Int) => (a, b, Ty::Int),
        (Ty::Int, Ty::Real) => (VE::ToReal(Box::new(a)), b, Ty::Real),
        (Ty::Real, Ty::Int) => (a, VE::ToReal(Box::new(b)), Ty::Real),
        (Ty::Real, Ty::Real) => (a, b, Ty::Real),
    }
}

// ---------------------------------------------------------------------------
// Execution

/// What went wrong in an expression, before the site is known.
enum Fault {
    OutOfBounds {
        space: usize,
        index: Vec<i64>,
    },
    Overflow,
    DivisionByZero,
    SizeChanged {
        size_space: usize,
        array: usize,
        old: i64,
        new: i64,
    },
    Object {
        object: usize,
        method: Method,
        fault: ObjectFault,
    },
    NotRising {
        space: usize,
        index: Vec<i64>,
        old: Number,
        new: Number,
    },
}

/// A number an error reports: an element's value. Reals compare by their
/// bits, so that a report equals itself even when it holds a NaN.
#[derive(Clone, Copy, Debug)]
pub enum Number {
    /// Of an `int` data space.
    Int(i64),
    /// Of a `real` data space.
    Real(f64),
}

impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => a == b,
            (Number::Real(a), Number::Real(b)) => a.to_bits() == b.to_bits(),
            _ => false,
        }
    }
}

impl Eq for Number {}

impl Number {
    /// Whether `self` is above `other` of the same type: where `max=`
    /// (`max`, `max_f64`) would keep `self`. A NaN is above nothing.
    fn above(self, other: Number) -> bool {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => a > b,
            (a, b) => a.real() > b.real(),
        }
    }

    fn real(self) -> f64 {
        match self {
            Number::Int(k) => k as f64,
            Number::Real(x) => x,
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Int(k) => write!(f, "{k}"),
            Number::Real(x) => write!(f, "{x:?}"),
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Val {
    Int(i64),
    Real(f64),
}

impl Val {
    fn int(self) -> i64 {
        match self {
            Val::Int(k) => k,
            // Unreachable after type checking; truncation is C's conversion.
            Val::Real(x) => x as i64,
        }
    }

    fn real(self) -> f64 {
        match self {
            Val::Int(k) => k as f64,
            Val::Real(x) => x,
        }
    }
}

fn min_f64(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

fn max_f64(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

struct Machine<'a, 't> {
    comp: &'a Computation,
    spaces: &'a [SpaceInfo],
    store: Vec<Array>,
    slots: Vec<i64>,
    trace: Option<&'t mut Trace>,
    /// The runtime objects, by index in the computation's objects.
    objects: Vec<Object>,
    /// Per data space sized by the computation: the top-level node it is
    /// allocated before.
    alloc_at: &'a [Option<usize>],
    /// Per size space, once an array it sizes is allocated: its value then
    /// and that array.
    frozen: Vec<Option<(i64, usize)>>,
}

impl Machine<'_, '_> {
    fn fail(&self, f: Fault, site: Site) -> RunError {
        match f {
            Fault::OutOfBounds { space, index } => RunError::OutOfBounds {
                space: self.comp.spaces[space].name.clone(),
                index,
                len: self.store[space].len(),
                site,
            },
            Fault::Overflow => RunError::Overflow { site },
            Fault::SizeChanged {
                size_space,
                array,
                old,
                new,
            } => RunError::SizeChanged {
                size_space: self.comp.spaces[size_space].name.clone(),
                array: self.comp.spaces[array].name.clone(),
                old,
                new,
                site,
            },
            Fault::DivisionByZero => RunError::DivisionByZero { site },
            Fault::NotRising {
                space,
                index,
                old,
                new,
            } => RunError::NotRising {
                element: match index.as_slice() {
                    [] => self.comp.spaces[space].name.clone(),
                    _ => format!(
                        "{}[{}]",
                        self.comp.spaces[space].name,
                        index
                            .iter()
                            .map(i64::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                },
                old,
                new,
                site,
            },
            Fault::Object {
                object,
                method,
                fault,
            } => RunError::ObjectFault {
                site,
                call: format!("{}.{}", self.comp.objects[object].name, method.name()),
                fault,
            },
        }
    }

    /// Runs the top-level nodes, allocating the arrays sized by the
    /// computation before the node `alloc_at` gives.
    fn top_level(&mut self, body: &[CNode]) -> Result<(), RunError> {
        for t in 0..=body.len() {
            for s in 0..self.comp.spaces.len() {
                if self.alloc_at[s] == Some(t) {
                    self.allocate(s)?;
                }
            }
            if let Some(node) = body.get(t) {
                self.node(node)?;
            }
        }
        Ok(())
    }

    /// The length of data space `s` by its extents, evaluated now.
    fn length(&self, s: usize) -> Result<usize, RunError> {
        let d = &self.comp.spaces[s];
        let site = Site::Extent(d.name.clone());
        let mut len: i64 = 1;
        for e in &self.spaces[s].extents {
            let k = match e {
                Ext::Static(k) => *k,
                Ext::Dynamic(ie) => self.ie(ie, &[]).map_err(|f| self.fail(f, site.clone()))?,
            };
            if k < 0 {
                return Err(RunError::NegativeExtent {
                    space: d.name.clone(),
                    extent: k,
                });
            }
            len = len
                .checked_mul(k)
                .ok_or_else(|| RunError::Overflow { site: site.clone() })?;
        }
        usize::try_from(len).map_err(|_| RunError::Overflow { site })
    }

    /// Allocates (zeroed) data space `s`, sized by the computation, and
    /// freezes its size spaces.
    fn allocate(&mut self, s: usize) -> Result<(), RunError> {
        let len = self.length(s)?;
        let d = &self.comp.spaces[s];
        self.store[s] = Array::try_zeros(d.elem, len, &d.name)?;
        for k in crate::dynamic::size_spaces(self.comp, s) {
            if self.frozen[k].is_none() {
                let v = match &self.store[k] {
                    Array::Int(xs) => xs.first().copied().unwrap_or(0),
                    Array::Real(_) => 0,
                };
                self.frozen[k] = Some((v, s));
            }
        }
        Ok(())
    }

    fn setup_temps(&mut self) -> Result<(), RunError> {
        for (s, d) in self.comp.spaces.iter().enumerate() {
            if d.role != Role::Temp || self.alloc_at[s].is_some() {
                continue;
            }
            let site = Site::Extent(d.name.clone());
            let mut len: i64 = 1;
            for e in &self.spaces[s].extents {
                let k = match e {
                    Ext::Static(k) => *k,
                    Ext::Dynamic(ie) => self.ie(ie, &[]).map_err(|f| self.fail(f, site.clone()))?,
                };
                if k < 0 {
                    return Err(RunError::NegativeExtent {
                        space: d.name.clone(),
                        extent: k,
                    });
                }
                len = len
                    .checked_mul(k)
                    .ok_or_else(|| RunError::Overflow { site: site.clone() })?;
            }
            let len = usize::try_from(len).map_err(|_| RunError::Overflow { site })?;
            self.store[s] = Array::try_zeros(d.elem, len, &d.name)?;
        }
        Ok(())
    }

    fn nodes(&mut self, nodes: &[CNode]) -> Result<(), RunError> {
        for n in nodes {
            self.node(n)?;
        }
        Ok(())
    }

    fn node(&mut self, node: &CNode) -> Result<(), RunError> {
        match node {
            CNode::For {
                var,
                slot,
                lower,
                upper,
                body,
            } => {
                let bounds = self
                    .ie(lower, &[])
                    .and_then(|lo| Ok((lo, self.ie(upper, &[])?)));
                let (lo, hi) = bounds.map_err(|f| self.fail(f, Site::Loop(var.clone())))?;
                for v in lo..hi {
                    self.slots[*slot] = v;
                    self.nodes(body)?;
                }
            }
            CNode::Let {
                var,
                slot,
                value,
                body,
            } => {
                let v = self
                    .ie(value, &[])
                    .map_err(|f| self.fail(f, Site::Let(var.clone())))?;
                self.slots[*slot] = v;
                self.nodes(body)?;
            }
            CNode::If { guards, body } => {
                for (l, op, r) in guards {
                    let holds = self
                        .ie(l, &[])
                        .and_then(|l| Ok((l, self.ie(r, &[])?)))
                        .map(|(l, r)| match op {
                            GuardOp::Eq => l == r,
                            GuardOp::Le => l <= r,
                        })
                        .map_err(|f| self.fail(f, Site::Guard))?;
                    if !holds {
                        return Ok(());
                    }
                }
                self.nodes(body)?;
            }
            CNode::Stmt { index, iters, acts } => {
                let mut point = Vec::with_capacity(iters.len());
                for e in iters {
                    let v = self.ie(e, &[]).map_err(|f| {
                        self.fail(
                            f,
                            Site::Statement {
                                name: self.comp.stmts[*index].name.clone(),
                                point: Vec::new(),
                            },
                        )
                    })?;
                    point.push(v);
                }
                if let Some(t) = self.trace.as_deref_mut() {
                    t.instances.push((*index, point.clone()));
                }
                if let Err(f) = self.acts(acts, &point) {
                    let site = Site::Statement {
                        name: self.comp.stmts[*index].name.clone(),
                        point,
                    };
                    return Err(self.fail(f, site));
                }
            }
        }
        Ok(())
    }

    fn acts(&mut self, acts: &[Act], point: &[i64]) -> Result<(), Fault> {
        for a in acts {
            match a {
                Act::Update { target, op, value } => {
                    let v = self.val(value, point)?;
                    let at = self.locate(target, point)?;
                    if *op == UpdateOp::Rise {
                        let (old, new) = match &self.store[target.space] {
                            Array::Int(xs) => (Number::Int(xs[at]), Number::Int(v.int())),
                            Array::Real(xs) => (Number::Real(xs[at]), Number::Real(v.real())),
                        };
                        if old.above(new) {
                            return Err(self.not_rising(target, point, old, new));
                        }
                    }
                    let frozen = self.frozen[target.space];
                    match &mut self.store[target.space] {
                        Array::Int(xs) => {
                            let (old, v) = (xs[at], v.int());
                            let new = match op {
                                UpdateOp::Assign | UpdateOp::Rise => v,
                                UpdateOp::Add => old.checked_add(v).ok_or(Fault::Overflow)?,
                                UpdateOp::Sub => old.checked_sub(v).ok_or(Fault::Overflow)?,
                                UpdateOp::Mul => old.checked_mul(v).ok_or(Fault::Overflow)?,
                                UpdateOp::Min => old.min(v),
                                UpdateOp::Max => old.max(v),
                            };
                            if let Some((was, array)) = frozen {
                                if new != was {
                                    return Err(Fault::SizeChanged {
                                        size_space: target.space,
                                        array,
                                        old: was,
                                        new,
                                    });
                                }
                            }
                            xs[at] = new;
                        }
                        Array::Real(xs) => {
                            let (old, v) = (xs[at], v.real());
                            xs[at] = match op {
                                UpdateOp::Assign | UpdateOp::Rise => v,
                                UpdateOp::Add => old + v,
                                UpdateOp::Sub => old - v,
                                UpdateOp::Mul => old * v,
                                UpdateOp::Min => min_f64(old, v),
                                UpdateOp::Max => max_f64(old, v),
                            };
                        }
                    }
                }
                Act::If { conds, then } => {
                    let mut holds = true;
                    for (l, op, r) in conds {
                        let (l, r) = (self.val(l, point)?, self.val(r, point)?);
                        let ok = match (l, r) {
                            (Val::Int(a), Val::Int(b)) => compare(a.cmp(&b), *op),
                            (a, b) => compare_f64(a.real(), b.real(), *op),
                        };
                        if !ok {
                            holds = false;
                            break;
                        }
                    }
                    if holds {
                        self.acts(then, point)?;
                    }
                }
                Act::Call(o, m, args) => {
                    let values = self.args(args, point)?;
                    self.objects[*o]
                        .act(*m, &values)
                        .map_err(|fault| Fault::Object {
                            object: *o,
                            method: *m,
                            fault,
                        })?;
                }
            }
        }
        Ok(())
    }

    /// The values of a call's (integer) arguments.
    fn args(&self, args: &[VE], point: &[i64]) -> Result<Vec<i64>, Fault> {
        args.iter().map(|a| Ok(self.val(a, point)?.int())).collect()
    }

    fn val(&self, v: &VE, point: &[i64]) -> Result<Val, Fault> {
        Ok(match v {
            VE::Int(k) => Val::Int(*k),
            VE::Real(x) => Val::Real(*x),
            VE::Index(e) => Val::Int(self.ie(e, point)?),
            VE::Read(r) => {
                let at = self.locate(r, point)?;
                match &self.store[r.space] {
                    Array::Int(xs) => Val::Int(xs[at]),
                    Array::Real(xs) => Val::Real(xs[at]),
                }
            }
            VE::Neg(a) => match self.val(a, point)? {
                Val::Int(k) => Val::Int(k.checked_neg().ok_or(Fault::Overflow)?),
                Val::Real(x) => Val::Real(-x),
            },
            VE::ToReal(a) => Val::Real(self.val(a, point)?.real()),
            VE::Call(o, m, args) => {
                let values = self.args(args, point)?;
                let v = self.objects[*o]
                    .value(*m, &values)
                    .map_err(|fault| Fault::Object {
                        object: *o,
                        method: *m,
                        fault,
                    })?;
                Val::Int(v)
            }
            VE::Bin(op, Ty::Int, a, b) => {
                let (a, b) = (self.val(a, point)?.int(), self.val(b, point)?.int());
                Val::Int(match op {
                    BinOp::Add => a.checked_add(b).ok_or(Fault::Overflow)?,
                    BinOp::Sub => a.checked_sub(b).ok_or(Fault::Overflow)?,
                    BinOp::Mul => a.checked_mul(b).ok_or(Fault::Overflow)?,
                    BinOp::Div if b == 0 => return Err(Fault::DivisionByZero),
                    BinOp::Div => a.checked_div(b).ok_or(Fault::Overflow)?,
                    BinOp::Min => a.min(b),
                    BinOp::Max => a.max(b),
                })
            }
            VE::Bin(op, Ty::Real, a, b) => {
                let (a, b) = (self.val(a, point)?.real(), self.val(b, point)?.real());
                Val::Real(match op {
                    BinOp::Add => a + b,
                    BinOp::Sub => a - b,
                    BinOp::Mul => a * b,
                    BinOp::Div => a / b,
                    BinOp::Min => min_f64(a, b),
                    BinOp::Max => max_f64(a, b),
                })
            }
        })
    }

    /// A `rise=` of `target` from `old` down to `new` at `point`.
    fn not_rising(&self, target: &Ref, point: &[i64], old: Number, new: Number) -> Fault {
        let index = match target.index.iter().map(|e| self.ie(e, point)).collect() {
            Ok(index) => index,
            Err(fault) => return fault,
        };
        Fault::NotRising {
            space: target.space,
            index,
            old,
            new,
        }
    }

    /// The linear position of an element, every index checked.
    fn locate(&self, r: &Ref, point: &[i64]) -> Result<usize, Fault> {
        let len = self.store[r.space].len();
        let oob = |index: Vec<i64>| Fault::OutOfBounds {
            space: r.space,
            index,
        };
        let linear = match r.index.as_slice() {
            [] => 0,
            [i] => self.ie(i, point)?,
            idx => {
                let extents = &self.spaces[r.space].extents;
                let mut values = Vec::with_capacity(idx.len());
                for e in idx {
                    values.push(self.ie(e, point)?);
                }
                let mut linear: i64 = 0;
                for (d, (&v, ext)) in values.iter().zip(extents).enumerate() {
                    let extent = match ext {
                        Ext::Static(k) => *k,
                        Ext::Dynamic(ie) => self.ie(ie, &[])?,
                    };
                    if v < 0 || v >= extent {
                        return Err(oob(values));
                    }
                    linear = if d == 0 {
                        v
                    } else {
                        linear
                            .checked_mul(extent)
                            .and_then(|x| x.checked_add(v))
                            .ok_or(Fault::Overflow)?
                    };
                }
                match usize::try_from(linear) {
                    Ok(at) if at < len => return Ok(at),
                    _ => return Err(oob(values)),
                }
            }
        };
        match usize::try_from(linear) {
            Ok(at) if at < len => Ok(at),
            _ => Err(oob(if r.index.is_empty() {
                Vec::new()
            } else {
                vec![linear]
            })),
        }
    }

    fn ie(&self, e: &IE, point: &[i64]) -> Result<i64, Fault> {
        Ok(match e {
            IE::Const(k) => *k,
            IE::Slot(s) => self.slots[*s],
            IE::It(p) => point[*p],
            IE::Sum(terms, k) => {
                let mut acc = *k;
                for (c, t) in terms {
                    let v = self.ie(t, point)?;
                    acc = c
                        .checked_mul(v)
                        .and_then(|p| acc.checked_add(p))
                        .ok_or(Fault::Overflow)?;
                }
                acc
            }
            IE::Read(r) => {
                let at = self.locate(r, point)?;
                match &self.store[r.space] {
                    Array::Int(xs) => xs[at],
                    // Rejected when resolving; reals are never index arrays.
                    Array::Real(xs) => xs[at] as i64,
                }
            }
            IE::Min(es) | IE::Max(es) => {
                let mut acc: Option<i64> = None;
                for x in es {
                    let v = self.ie(x, point)?;
                    acc = Some(match (acc, e) {
                        (None, _) => v,
                        (Some(a), IE::Min(_)) => a.min(v),
                        (Some(a), _) => a.max(v),
                    });
                }
                acc.unwrap_or(0)
            }
            IE::FloorDiv(a, d) => {
                let a = self.ie(a, point)?;
                a.checked_div_euclid(*d).ok_or(Fault::Overflow)?
            }
            IE::CeilDiv(a, d) => {
                let a = self.ie(a, point)?;
                let q = a.checked_div(*d).ok_or(Fault::Overflow)?;
                if a % d > 0 {
                    q + 1
                } else {
                    q
                }
            }
        })
    }
}

fn compare(o: std::cmp::Ordering, op: CmpOp) -> bool {
    use std::cmp::Ordering::*;
    match op {
        CmpOp::Eq => o == Equal,
        CmpOp::Ne => o != Equal,
        CmpOp::Lt => o == Less,
        CmpOp::Le => o != Greater,
        CmpOp::Gt => o == Greater,
        CmpOp::Ge => o != Less,
    }
}

fn compare_f64(a: f64, b: f64, op: CmpOp) -> bool {
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
    }
}

/// Why [`allocate_outputs`] cannot size an `out` data space.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AllocError {
    /// An extent needs a symbol or index-array value the memory lacks.
    #[error("cannot size `{space}`: its extent {extent} needs values the input does not give")]
    Unknown {
        /// The data space.
        space: String,
        /// The extent.
        extent: String,
    },
    /// The size overflows, or the array cannot be allocated.
    #[error(transparent)]
    TooLarge(#[from] TooLarge),
}

/// Puts a zero-filled array into `memory` for every `out` data space it
/// lacks, sized by its extents over the memory's symbols and index arrays
/// (`rowptr[NR + 1]`, `A[rowptr(NR)]`); a space the computation sizes
/// itself (see [`crate::dynamic`]) gets an empty one, which the run
/// replaces. Outputs then have their types before the run, as
/// [`run`] expects of the caller's memory.
pub fn allocate_outputs(comp: &Computation, memory: &mut Memory) -> Result<(), AllocError> {
    for (i, d) in comp.spaces.iter().enumerate() {
        if d.role != Role::Out || memory.arrays.contains_key(&d.name) {
            continue;
        }
        let len = if crate::dynamic::is_dynamic(comp, i) {
            0
        } else {
            space_len(d, memory)?
        };
        let array = Array::try_zeros(d.elem, len, &d.name)?;
        memory.arrays.insert(d.name.clone(), array);
    }
    Ok(())
}

/// The number of elements of data space `d`: the product of its extents
/// over the memory's symbols, scalars and index arrays (1 for a scalar).
/// Compiled code's callers size its arrays with it: the inputs it reads,
/// and the arrays it allocates itself once its size outputs are known.
///
/// # Errors
///
/// [`AllocError::Unknown`] when an extent needs a value the memory lacks,
/// [`AllocError::TooLarge`] when the size overflows.
pub fn space_len(d: &iegen::computation::DataSpace, memory: &Memory) -> Result<usize, AllocError> {
    let overflow = || AllocError::TooLarge(TooLarge::overflow(&d.name));
    let mut len: i64 = 1;
    for e in &d.extents {
        // Evaluation fails for a missing value, or when the extent
        // itself overflows (`NR + 1` for NR = 2^63 - 1).
        let missing = std::cell::Cell::new(false);
        let v = e.evaluate(
            &mut |_| None,
            &mut |s| {
                let v = memory
                    .symbols
                    .get(s)
                    .copied()
                    .or_else(|| memory.int(s).filter(|a| a.len() == 1).map(|a| a[0]));
                missing.set(missing.get() || v.is_none());
                v
            },
            &mut |f, args| {
                let v = match args {
                    [x] => usize::try_from(*x)
                        .ok()
                        .and_then(|x| memory.int(f)?.get(x).copied()),
                    _ => None,
                };
                missing.set(missing.get() || v.is_none());
                v
            },
        );
        let v = match v {
            Some(v) => v,
            None if missing.get() => {
                return Err(AllocError::Unknown {
                    space: d.name.clone(),
                    extent: e.to_string(),
                })
            }
            None => return Err(overflow()),
        };
        len = len.checked_mul(v.max(0)).ok_or_else(overflow)?;
    }
    usize::try_from(len).map_err(|_| overflow())
}
