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
//! * integers are `i64`, reals the run's value type ([`value_type`]: the
//!   input value arrays', `f64` by default); an operation with a real
//!   operand converts the integer one; an operation on `f32` reals is
//!   rounded to `f32`, one on integer reals is integer arithmetic
//!   (overflow checked, an `i32` result out of its range an overflow);
//!   integer division truncates toward zero (as in C); `min(a, b)` is
//!   `a < b ? a : b` and `max(a, b)` is `a > b ? a : b`;
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

use iegen::computation::{Computation, ElemType, Role};

pub use crate::allocation::{try_zeroed, TooLarge};
use crate::ast::LoopProgram;
pub use crate::buffer::Buffer;
use crate::runtime::objects::{Object, RunOrder};
use crate::runtime::{CallError, ObjectFault, ObjectKind, ObjectSpec, Order, SpecError};
pub use crate::value::ValueType;
use crate::width::{IndexWidth, TooWide, Widths};

mod machine;
mod outputs;
mod resolve;

pub use machine::Number;
use machine::*;
pub use outputs::{allocate_outputs, space_len, AllocError};
use resolve::*;

/// The contents of one data space. A `real` data space is held at the
/// run's value type ([`ValueType`]): `Real` (`f64`), `Real32`, `RealInt`
/// or `RealInt32`. An input's elements may be the caller's memory
/// ([`Buffer`]), read in place; the run writes only its own arrays.
#[derive(Clone, Debug, PartialEq)]
pub enum Array {
    /// Elements of an `int` data space.
    Int(Buffer<i64>),
    /// Elements of a `real` data space at `f64`.
    Real(Buffer<f64>),
    /// Elements of a `real` data space at `f32`.
    Real32(Buffer<f32>),
    /// Elements of a `real` data space at `i64` (integer values).
    RealInt(Buffer<i64>),
    /// Elements of a `real` data space at `i32` (integer values).
    RealInt32(Buffer<i32>),
}

impl Array {
    /// The number of elements.
    pub fn len(&self) -> usize {
        match self {
            Array::Int(v) | Array::RealInt(v) => v.len(),
            Array::Real(v) => v.len(),
            Array::Real32(v) => v.len(),
            Array::RealInt32(v) => v.len(),
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
            _ => ElemType::Real,
        }
    }

    /// The value type of the elements of a `real` data space.
    pub fn value_type(&self) -> Option<ValueType> {
        match self {
            Array::Int(_) => None,
            Array::Real(_) => Some(ValueType::F64),
            Array::Real32(_) => Some(ValueType::F32),
            Array::RealInt(_) => Some(ValueType::I64),
            Array::RealInt32(_) => Some(ValueType::I32),
        }
    }

    /// The elements of an integer array.
    pub fn as_int(&self) -> Option<&[i64]> {
        match self {
            Array::Int(v) => Some(v),
            _ => None,
        }
    }

    /// The elements of a real array at `f64`.
    pub fn as_real(&self) -> Option<&[f64]> {
        match self {
            Array::Real(v) => Some(v),
            _ => None,
        }
    }

    fn zeros(elem: ElemType, values: ValueType, len: usize) -> Array {
        match (elem, values) {
            (ElemType::Int, _) => Array::Int(vec![0; len].into()),
            (ElemType::Real, ValueType::F64) => Array::Real(vec![0.0; len].into()),
            (ElemType::Real, ValueType::F32) => Array::Real32(vec![0.0; len].into()),
            (ElemType::Real, ValueType::I64) => Array::RealInt(vec![0; len].into()),
            (ElemType::Real, ValueType::I32) => Array::RealInt32(vec![0; len].into()),
        }
    }

    /// [`Array::zeros`] for a size that comes from the input: an array the
    /// machine cannot allocate is [`TooLarge`], not an abort.
    fn try_zeros(
        elem: ElemType,
        values: ValueType,
        len: usize,
        space: &str,
    ) -> Result<Array, TooLarge> {
        Ok(match (elem, values) {
            (ElemType::Int, _) => Array::Int(try_zeroed(len, 0, space)?.into()),
            (ElemType::Real, ValueType::F64) => Array::Real(try_zeroed(len, 0.0, space)?.into()),
            (ElemType::Real, ValueType::F32) => Array::Real32(try_zeroed(len, 0.0, space)?.into()),
            (ElemType::Real, ValueType::I64) => Array::RealInt(try_zeroed(len, 0, space)?.into()),
            (ElemType::Real, ValueType::I32) => Array::RealInt32(try_zeroed(len, 0, space)?.into()),
        })
    }
}

/// The value type of a run on `memory`: that of the arrays of the `in`
/// and `inout` `real` data spaces (`f64` when there is none).
///
/// # Errors
///
/// [`RunError::ValueTypes`] when two of them differ.
pub fn value_type(comp: &Computation, memory: &Memory) -> Result<ValueType, RunError> {
    let mut found: Option<(&str, ValueType)> = None;
    for d in comp
        .spaces
        .iter()
        .filter(|d| matches!(d.role, Role::In | Role::InOut) && d.elem == ElemType::Real)
    {
        let Some(t) = memory.arrays.get(&d.name).and_then(Array::value_type) else {
            continue;
        };
        match found {
            Some((first, u)) if u != t => {
                return Err(RunError::ValueTypes {
                    first: first.to_string(),
                    first_type: u,
                    second: d.name.clone(),
                    second_type: t,
                })
            }
            Some(_) => {}
            None => found = Some((&d.name, t)),
        }
    }
    Ok(found.map_or(ValueType::F64, |(_, t)| t))
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
    /// Two input value arrays of different value types.
    #[error(
        "data space `{first}` holds {first_type} values but `{second}` holds {second_type}: \
         a run has one value type"
    )]
    ValueTypes {
        /// The first data space.
        first: String,
        /// Its value type.
        first_type: ValueType,
        /// The other.
        second: String,
        /// Its value type.
        second_type: ValueType,
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

    let values = value_type(comp, memory)?;
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
                // The linear keys of the extents' tuple (too many to count:
                // the largest extent, refused as too large).
                let keys = values
                    .iter()
                    .try_fold(1i64, |a, &b| a.checked_mul(b))
                    .unwrap_or(i64::MAX);
                Object::scatter(keys).map_err(|fault| RunError::ObjectFault {
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
            Role::Temp => Array::zeros(d.elem, values, 0),
            _ if alloc_at[s].is_some() => {
                memory.arrays.remove(&d.name);
                Array::zeros(d.elem, values, 0)
            }
            // `out` data spaces start at zero: the computation defines them whole.
            Role::Out => {
                let len = memory.arrays.get(&d.name).map_or(0, Array::len);
                memory.arrays.remove(&d.name);
                Array::try_zeros(d.elem, values, len, &d.name)?
            }
            _ => memory
                .arrays
                .remove(&d.name)
                .unwrap_or_else(|| Array::zeros(d.elem, values, 0)),
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
        values,
    };
    let result = m.setup_temps().and_then(|()| m.top_level(&body));
    for (d, a) in comp.spaces.iter().zip(m.store) {
        if d.role != Role::Temp {
            memory.arrays.insert(d.name.clone(), a);
        }
    }
    result
}
