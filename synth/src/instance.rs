//! Concrete instances of a format: JSON in and out, and validation against
//! the format's descriptor.
//!
//! An instance is `{"format": NAME, "symbols": {"NR": 4, ...}, "arrays":
//! {"rowptr": [...], "col": [...], "A": [...]}}`: a value for every symbol
//! of the descriptor, and an array for every index array (UF) and for the
//! value array (`data_name`). Index arrays hold integers; the value array
//! holds reals (integers are accepted there too).
//!
//! # Array layout
//!
//! An index array covers its UF's domain. The domain is enumerated for the
//! instance's symbols; the array's extent in each dimension is the largest
//! index of the domain in that dimension plus one, and a UF of several
//! arguments is stored row-major (like codegen's multi-dimensional data
//! spaces). So `rowptr : {[x] : 0 <= x <= NR}` has `NR + 1` entries. The value
//! array has exactly as many entries as the product of the `data_size`
//! extents (it is stored row-major too).
//!
//! # Validation
//!
//! [`validate`] checks, in this order: the format name, every symbol and
//! array present (and nothing else), the arrays' types and lengths, every UF
//! value inside its declared range at every domain point, the declared
//! monotonicity, every rule of the descriptor, and that every nonzero value
//! is addressed by a stored entry (a value no point of the map reaches, such
//! as one past a CSR's `rowptr(NR)` or in a DIA slot outside the matrix,
//! would be lost by any conversion) and that no two nonzero entries share a
//! coordinate ([`InstanceError::Storage`]).
//!
//! A rule `forall v... : P => Q` must hold at every assignment of its
//! variables for which every UF call in it has its arguments inside the UF's
//! domain (the index arrays are defined nowhere else). A rule with a
//! conclusion of several constraints is checked one constraint at a time,
//! in the first of these ways that applies:
//!
//! 1. **Adjacent pairs** (linear). Most rules are *ordering* rules; they
//!    are checked on pairs `v2 = v1 + 1` only.
//! 2. **The contrapositive**, `P' ∧ ¬Q ⇒ ¬p` for an inequality `p` of the
//!    premise, checked on adjacent pairs: this turns the reverse half of an
//!    `<=>`, `C(x(n1)) < C(x(n2)) => n1 < n2`, or "rows sorted" stated as
//!    `row(n1) < row(n2) => n1 < n2`, into an ordering rule.
//! 3. **A join** (a sort plus the pairs with equal keys). A rule whose
//!    premise relates two variables only by equalities `k1(v1, s) =
//!    k2(v2, s)`, the others `s` shared, such as COO's "two entries with
//!    the same row and column are the same entry" or UCSR's "within a row,
//!    equal columns are the same position", is checked by sorting one
//!    side's keys (the shared variables first).
//! 4. **Full enumeration** of every assignment, bounded by the UF domains;
//!    beyond a budget ([`RULE_BUDGET`] evaluations), validation gives up
//!    with [`InstanceError::RuleTooExpensive`] rather than run for hours.
//!
//! **When adjacent pairs suffice.** The premise contains `v1 < v2` (or
//! `v1 <= v2`) for two rule variables; the conclusion is one comparison
//! `g(v2) - g(v1) >= m` with a constant `m >= 0` (so `g(v1) <= g(v2)` or
//! `g(v1) < g(v2)`), or `g(v1) = g(v2)`, or `C(x(v1)) < C(x(v2))` (or `<=`,
//! `=`) between two calls of one comparator, compared by keys, where in
//! each case the `v1` side is the `v2` side with `v2` replaced by `v1`; and
//! the rest `R` of the premise is *closed under stepping*: each of its
//! constraints mentions at most one of `v1`, `v2`, only outside UF
//! arguments, as an inequality; every upper bound on `v1` in `R` is also in
//! `R` as a bound on `v2`, and every lower bound on `v2` also as a bound on
//! `v1`; and every index-array call that mentions `v1` or `v2` mentions only
//! one of them, only as an affine argument (no nested call of it), and has
//! a domain of one conjunction.
//!
//! *Proof.* Fix the other variables; every constraint of `R` on `v1` or `v2`
//! is then a half-line in that variable, and the domain guards of the
//! conclusion's calls restrict `v1` and `v2` to one and the same interval
//! `D` (a polyhedron cut by a line), since both sides make the same calls.
//! Let `a < b` satisfy the premise and the guards, and let `a <= c < b`.
//! The pair `(c, c + 1)` satisfies them too: a lower bound on `v1` holds at
//! `c` as `c >= a`; an upper bound `U` on `v1` bounds `v2` as well, so
//! `c < b <= U`; an upper bound on `v2` holds at `c + 1` as `c + 1 <= b`; a
//! lower bound `L` on `v2` bounds `v1` as well, so `c + 1 > a >= L`;
//! `c < c + 1`; constraints on neither variable do not change; and
//! `c, c + 1` lie between `a` and `b`, both in the interval `D`. So the
//! adjacent checks give `g(c + 1) - g(c) >= m` for every such `c`, and
//! summing the `b - a` of them, `g(b) - g(a) >= (b - a)·m >= m` because
//! `m >= 0`. Key comparisons and equalities chain by transitivity. When the
//! premise is `v1 <= v2`, the pairs `v1 = v2` are checked directly too. ∎
//!
//! The enumerations follow the rule's variables in the order they are
//! written, after substituting away the variables that equalities define
//! (see [`crate::oracle`]), so `forall i, k1, k2 : 0 <= i < NR &&
//! rowptr(i) <= k1 < k2 < rowptr(i + 1) => col(k1) < col(k2)` costs one step
//! per stored entry. Every enumeration is also limited to work proportional
//! to the instance's size, so symbols that promise far more than the arrays
//! hold fail quickly.
//!
//! Comparator calls (functions defined by a descriptor `comparator`) are
//! evaluated through their key definition: two calls compare by keys,
//! lexicographically; a comparator with a one-component key may also appear
//! in ordinary arithmetic.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::ops::ControlFlow;

use iegen::constraint::Normalized;

use crate::strict_json::StrictValue;
use iegen::eval::{enumerate_set, set_contains};
use iegen::print::expr_with_names;
use iegen::{
    Atom, Bounds, Conjunction, Constraint, ConstraintKind, EvalError, Expr, Interpretation,
    Monotonicity, Set, UfRule, Var,
};

use codegen::width::{IndexKind, IndexWidth, IndexWidths, Size};

use crate::coordinate_sort::coordinate_order;
use crate::descriptor::{Comparator, Descriptor, KeyExpr};
use crate::oracle::fast::{CExpr, Env, Slot, Table};
use crate::oracle::ordered::Points;
use crate::oracle::Entries;
use crate::rule_plan::{rule_checks, Check, Join, RuleCheck};

/// The values of one array.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// Integers: index arrays (and a value array written with integers).
    Int(Vec<i64>),
    /// Reals: the value array.
    Real(Vec<f64>),
}

impl Values {
    /// The number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::Int(v) => v.len(),
            Values::Real(v) => v.len(),
        }
    }

    /// Whether there is no value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values as reals (integers converted).
    pub fn to_reals(&self) -> Vec<f64> {
        match self {
            Values::Int(v) => v.iter().map(|&x| x as f64).collect(),
            Values::Real(v) => v.clone(),
        }
    }

    /// The integers, when the values are integers.
    pub fn as_ints(&self) -> Option<&[i64]> {
        match self {
            Values::Int(v) => Some(v),
            Values::Real(_) => None,
        }
    }
}

/// A concrete instance of a format: symbol values and arrays.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Instance {
    /// The format's name.
    pub format: String,
    /// The value of every symbol.
    pub symbols: BTreeMap<String, i64>,
    /// The index arrays and the value array, by name.
    pub arrays: BTreeMap<String, Values>,
    /// The index widths the instance records (JSON's `"index_width"`, an
    /// `.npz`'s dtypes), when it records them: the sizes and index values
    /// of a kind recorded 32-bit must fit 32 bits ([`validate`] checks).
    pub index_width: Option<IndexWidths>,
}

/// What a size of an instance ([`Instance::sizes`]) is, displayed as an
/// error names it: `the symbol NNZ`, `the length of col`, `col[17]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeOf<'a> {
    /// A symbol's value.
    Symbol(&'a str),
    /// An array's length.
    Length(&'a str),
    /// An element of an index array.
    Element(&'a str, usize),
}

impl std::fmt::Display for SizeOf<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SizeOf::Symbol(name) => write!(f, "the symbol {name}"),
            SizeOf::Length(name) => write!(f, "the length of {name}"),
            SizeOf::Element(name, k) => write!(f, "{name}[{k}]"),
        }
    }
}

/// What is wrong with an instance: its JSON, or its content.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum InstanceError {
    /// Malformed JSON.
    #[error("{line}:{column}: invalid JSON: {message}")]
    Json {
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
        /// serde_json's reason.
        message: String,
    },
    /// Well-formed JSON that is not an instance.
    #[error("at `{path}`: {message}")]
    Structure {
        /// Where: `symbols.NR`, `arrays.col[3]`, ...
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A size or an index value that does not fit the index width the
    /// instance records.
    #[error("{0}")]
    Width(String),
    /// The instance names another format.
    #[error("the instance is of format `{instance}`, not `{descriptor}`")]
    Format {
        /// The instance's `format`.
        instance: String,
        /// The descriptor's name.
        descriptor: String,
    },
    /// A symbol of the descriptor has no value.
    #[error("symbol `{name}` has no value (the format's symbols: {all})")]
    MissingSymbol {
        /// The symbol.
        name: String,
        /// All symbols of the format.
        all: String,
    },
    /// A dense extent (a dimension of the tensor) below zero.
    #[error("symbol `{name}` is a dimension of the tensor, so it cannot be negative ({value})")]
    NegativeExtent {
        /// The symbol.
        name: String,
        /// Its value.
        value: i64,
    },
    /// A symbol the descriptor does not declare.
    #[error("`{name}` is not a symbol of {format} (its symbols: {all})")]
    UnknownSymbol {
        /// The symbol.
        name: String,
        /// The format.
        format: String,
        /// All symbols of the format.
        all: String,
    },
    /// An array of the descriptor is missing.
    #[error("array `{name}` is missing (the format's arrays: {all})")]
    MissingArray {
        /// The array.
        name: String,
        /// All arrays of the format.
        all: String,
    },
    /// An array the descriptor does not declare.
    #[error("`{name}` is not an array of {format} (its arrays: {all})")]
    UnknownArray {
        /// The array.
        name: String,
        /// The format.
        format: String,
        /// All arrays of the format.
        all: String,
    },
    /// An index array with non-integer values.
    #[error("{array} is an index array and must hold integers, but it holds reals")]
    NotIntegers {
        /// The array.
        array: String,
    },
    /// An array of the wrong length.
    #[error("{array} has {found} values but {why}")]
    Length {
        /// The array.
        array: String,
        /// Its length.
        found: usize,
        /// The expectation, e.g. "its domain 0 <= x <= NR (NR = 4) needs 5".
        why: String,
    },
    /// A value that is NaN or infinite.
    #[error("{array}({index}) = {value} is not a finite number")]
    NonFinite {
        /// The array.
        array: String,
        /// The position.
        index: usize,
        /// The value.
        value: f64,
    },
    /// A UF value outside its declared range.
    #[error("{array}({index}) = {value} is outside its range {range}")]
    OutOfRange {
        /// The array.
        array: String,
        /// The domain point, comma-separated.
        index: String,
        /// The value.
        value: i64,
        /// The range's constraints and the symbols' values.
        range: String,
    },
    /// A monotonicity property that does not hold.
    #[error("{array} is not {property}: {detail}")]
    NotMonotone {
        /// The array.
        array: String,
        /// `nondecreasing`, `increasing`, ...
        property: &'static str,
        /// E.g. "rowptr(3) = 7 > rowptr(4) = 5".
        detail: String,
    },
    /// A rule that does not hold.
    #[error("rule `{rule}` does not hold at {at}{detail}")]
    Rule {
        /// The rule, printed.
        rule: String,
        /// The assignment, e.g. "n1 = 3, n2 = 4".
        at: String,
        /// The values involved, e.g. ": row(3) = 2, row(4) = 1".
        detail: String,
    },
    /// A rule whose check would need more evaluations than the budget.
    #[error(
        "cannot check rule `{rule}`: it needs more than {budget} evaluations \
         (neither the adjacent-pair check of an ordering nor a join on equal keys applies)"
    )]
    RuleTooExpensive {
        /// The rule, printed.
        rule: String,
        /// The budget.
        budget: u64,
    },
    /// A comparator key that cannot be computed.
    #[error("comparator {comparator}: {message}")]
    Key {
        /// The comparator.
        comparator: String,
        /// Why.
        message: String,
    },
    /// Concrete evaluation failed.
    #[error("cannot evaluate {what}: {error}")]
    Eval {
        /// What was being evaluated.
        what: String,
        /// Why it failed.
        error: EvalError,
    },
    /// The stored values do not make a tensor: a nonzero value no stored
    /// entry addresses, or two nonzero entries at one coordinate
    /// ([`crate::oracle::check_storage`]).
    #[error("{0}")]
    Storage(String),
}

// ---------------------------------------------------------------------------
// JSON

/// An `"index_width"`: `32` or `64` for both kinds, or
/// `{"positions": 64, "coordinates": 32}`.
fn index_widths(v: &serde_json::Value) -> Option<IndexWidths> {
    let width = |v: &serde_json::Value| v.as_i64()?.to_string().parse::<IndexWidth>().ok();
    if let Some(map) = v.as_object() {
        if map.len() != 2 {
            return None;
        }
        return Some(IndexWidths {
            positions: width(map.get("positions")?)?,
            coordinates: width(map.get("coordinates")?)?,
        });
    }
    width(v).map(IndexWidths::uniform)
}

fn describe(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "null".into(),
        serde_json::Value::Bool(b) => format!("the boolean {b}"),
        serde_json::Value::Number(n) if n.is_u64() && !n.is_i64() => {
            format!(
                "the integer {n}, which is beyond the 64-bit range (at most {})",
                i64::MAX
            )
        }
        serde_json::Value::Number(n)
            if n.as_f64()
                .is_some_and(|x| x.fract() == 0.0 && x.abs() >= 9.2e18) =>
        {
            format!(
                "the number {n}, which is beyond the 64-bit integer range (at most {})",
                i64::MAX
            )
        }
        serde_json::Value::Number(n) => format!("the number {n}"),
        serde_json::Value::String(_) => "a string".into(),
        serde_json::Value::Array(_) => "an array".into(),
        serde_json::Value::Object(_) => "an object".into(),
    }
}

fn structure(path: impl Into<String>, message: impl Into<String>) -> InstanceError {
    InstanceError::Structure {
        path: path.into(),
        message: message.into(),
    }
}

fn json_error(e: &serde_json::Error) -> InstanceError {
    let text = e.to_string();
    let reason = text.split(" at line ").next().unwrap_or(&text).to_string();
    InstanceError::Json {
        line: e.line().max(1),
        column: e.column().max(1),
        message: reason,
    }
}

impl Instance {
    /// Reads an instance from JSON text. Syntax errors carry the line and
    /// column; structural errors name the key path (`arrays.col[3]`).
    ///
    /// ```
    /// use synth::instance::{Instance, Values};
    /// let i = Instance::from_json(r#"{"format": "csr", "symbols": {"NR": 1},
    ///     "arrays": {"rowptr": [0, 1], "A": [2.5]}}"#).unwrap();
    /// assert_eq!(i.symbols["NR"], 1);
    /// assert_eq!(i.arrays["rowptr"], Values::Int(vec![0, 1]));
    /// assert_eq!(i.arrays["A"], Values::Real(vec![2.5]));
    /// assert_eq!(Instance::from_json(&i.to_json()).unwrap(), i);
    /// ```
    pub fn from_json(text: &str) -> Result<Instance, InstanceError> {
        let value = serde_json::from_str::<StrictValue>(text).map_err(|e| json_error(&e))?;
        Self::from_value(&value.0)
    }

    /// Reads an instance from JSON bytes (invalid UTF-8 is a located error).
    pub fn from_json_bytes(bytes: &[u8]) -> Result<Instance, InstanceError> {
        let value = serde_json::from_slice::<StrictValue>(bytes).map_err(|e| json_error(&e))?;
        Self::from_value(&value.0)
    }

    /// Reads an instance from a parsed JSON value.
    pub fn from_value(value: &serde_json::Value) -> Result<Instance, InstanceError> {
        let object = value.as_object().ok_or_else(|| {
            structure(
                "(top level)",
                format!(
                    "expected an object with \"format\", \"symbols\" and \"arrays\", found {}",
                    describe(value)
                ),
            )
        })?;
        for key in object.keys() {
            if !["format", "symbols", "arrays", "index_width"].contains(&key.as_str()) {
                return Err(structure(
                    key.clone(),
                    "unknown key; an instance has \"format\", \"symbols\", \"arrays\" \
                     and optionally \"index_width\"",
                ));
            }
        }
        let index_width = match object.get("index_width") {
            None => None,
            Some(v) => Some(index_widths(v).ok_or_else(|| {
                structure(
                    "index_width",
                    format!(
                        "expected 32 or 64, or {{\"positions\": 32|64, \"coordinates\": \
                         32|64}}, found {}",
                        describe(v)
                    ),
                )
            })?),
        };
        let format = match object.get("format") {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(structure(
                    "format",
                    format!(
                        "expected the format's name (a string), found {}",
                        describe(other)
                    ),
                ))
            }
            None => return Err(structure("format", "missing: the format's name")),
        };
        let mut symbols = BTreeMap::new();
        match object.get("symbols") {
            None => {}
            Some(serde_json::Value::Object(map)) => {
                for (name, v) in map {
                    let n = v.as_i64().ok_or_else(|| {
                        structure(
                            format!("symbols.{name}"),
                            format!("expected an integer, found {}", describe(v)),
                        )
                    })?;
                    symbols.insert(name.clone(), n);
                }
            }
            Some(other) => {
                return Err(structure(
                    "symbols",
                    format!("expected an object of integers, found {}", describe(other)),
                ))
            }
        }
        let mut arrays = BTreeMap::new();
        match object.get("arrays") {
            None => {}
            Some(serde_json::Value::Object(map)) => {
                for (name, v) in map {
                    let items = v.as_array().ok_or_else(|| {
                        structure(
                            format!("arrays.{name}"),
                            format!("expected an array of numbers, found {}", describe(v)),
                        )
                    })?;
                    let mut ints = Vec::with_capacity(items.len());
                    let mut all_int = true;
                    for (k, x) in items.iter().enumerate() {
                        if !x.is_number() {
                            return Err(structure(
                                format!("arrays.{name}[{k}]"),
                                format!("expected a number, found {}", describe(x)),
                            ));
                        }
                        if x.is_u64() && !x.is_i64() {
                            return Err(structure(
                                format!("arrays.{name}[{k}]"),
                                format!(
                                    "{}; write a value with a decimal point if it is a real",
                                    describe(x)
                                ),
                            ));
                        }
                        match x.as_i64() {
                            Some(n) if all_int => ints.push(n),
                            _ => all_int = false,
                        }
                    }
                    let values = if all_int {
                        Values::Int(ints)
                    } else {
                        // Every item is a number; serde_json gives every number an f64.
                        Values::Real(items.iter().map(|x| x.as_f64().unwrap_or(0.0)).collect())
                    };
                    arrays.insert(name.clone(), values);
                }
            }
            Some(other) => {
                return Err(structure(
                    "arrays",
                    format!("expected an object of arrays, found {}", describe(other)),
                ))
            }
        }
        Ok(Instance {
            format,
            symbols,
            arrays,
            index_width,
        })
    }

    /// Every size an index width must hold to store the instance as an
    /// instance of `d` ([`codegen::width`]), lazily (a caller that stops
    /// early, or [`codegen::width::WidthChoices::resolve`] at 64 bits, does
    /// not pay for the rest): each symbol, each array's length (of the
    /// array's kind, [`Descriptor::index_kind`]; the value array's counts
    /// as positions), and the value of largest magnitude (`col[17]`) of
    /// each index array.
    pub fn sizes<'a>(&'a self, d: &'a Descriptor) -> impl Iterator<Item = Size<SizeOf<'a>>> + 'a {
        let symbols = self.symbols.iter().map(|(name, &v)| Size {
            kind: None,
            what: SizeOf::Symbol(name),
            value: i128::from(v),
        });
        let arrays = self.arrays.iter().flat_map(move |(name, values)| {
            let kind = if *name == d.data_name {
                IndexKind::Position
            } else {
                d.index_kind(name)
            };
            let len = Size {
                kind: Some(kind),
                what: SizeOf::Length(name),
                value: i128::try_from(values.len()).unwrap_or(i128::MAX),
            };
            // The widest value, looked for only when the length was looked at.
            let widest = std::iter::once(()).filter_map(move |()| {
                let (k, &v) = values
                    .as_ints()
                    .filter(|_| *name != d.data_name)?
                    .iter()
                    .enumerate()
                    .max_by_key(|(_, x)| x.unsigned_abs())?;
                Some(Size {
                    kind: Some(kind),
                    what: SizeOf::Element(name, k),
                    value: i128::from(v),
                })
            });
            std::iter::once(len).chain(widest)
        });
        symbols.chain(arrays)
    }

    /// The instance as JSON: `format`, `symbols`, `arrays`, keys sorted, one
    /// array per line. Reals print with a decimal point or an exponent, so
    /// they read back as reals, exactly; non-finite reals (which
    /// [`validate`] rejects) print as `null`.
    pub fn to_json(&self) -> String {
        let string = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
        let mut out = String::new();
        let _ = write!(
            out,
            "{{\n  \"format\": {},\n  \"symbols\": {{",
            string(&self.format)
        );
        for (k, (name, v)) in self.symbols.iter().enumerate() {
            let sep = if k == 0 { "" } else { ", " };
            let _ = write!(out, "{sep}{}: {v}", string(name));
        }
        out.push_str("},\n  \"arrays\": {");
        for (k, (name, values)) in self.arrays.iter().enumerate() {
            let sep = if k == 0 { "\n" } else { ",\n" };
            let _ = write!(out, "{sep}    {}: [", string(name));
            match values {
                Values::Int(v) => {
                    for (i, x) in v.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        let _ = write!(out, "{x}");
                    }
                }
                Values::Real(v) => {
                    for (i, x) in v.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        let text = serde_json::to_string(x).unwrap_or_else(|_| "null".into());
                        out.push_str(&text);
                    }
                }
            }
            out.push(']');
        }
        if !self.arrays.is_empty() {
            out.push_str("\n  ");
        }
        out.push('}');
        match self.index_width.map(|w| (w, w.uniform_width())) {
            None => {}
            Some((_, Some(w))) => {
                let _ = write!(out, ",\n  \"index_width\": {w}");
            }
            Some((w, None)) => {
                let _ = write!(
                    out,
                    ",\n  \"index_width\": {{\"positions\": {}, \"coordinates\": {}}}",
                    w.positions, w.coordinates
                );
            }
        }
        out.push_str("\n}\n");
        out
    }
}

// ---------------------------------------------------------------------------
// Comparator keys

/// The key of `comparator` at `args`: one value per key component,
/// compared lexicographically.
///
/// Arithmetic is exact in `i128` (overflow is an error); `/` rounds toward
/// negative infinity and `%` takes the sign of the divisor; `interleave`
/// needs non-negative arguments and computes the Morton code in `u128`
/// (bit `b` of argument `k` of `n` goes to bit `b·n + k`), which must fit
/// in 127 bits.
///
/// ```
/// use synth::instance::comparator_key;
/// use synth::{Comparator, KeyExpr};
/// let morton = Comparator {
///     name: "MORTON".into(),
///     params: vec!["i".into(), "j".into()],
///     key: vec![KeyExpr::Interleave(vec![KeyExpr::Param(0), KeyExpr::Param(1)])],
/// };
/// // i = 0b11, j = 0b01: bits i0 j0 i1 j1 = 1 1 1 0 -> 0b0111
/// assert_eq!(comparator_key(&morton, &[3, 1]).unwrap(), vec![7]);
/// assert!(comparator_key(&morton, &[-1, 0]).is_err());
/// ```
pub fn comparator_key(c: &Comparator, args: &[i64]) -> Result<Vec<i128>, InstanceError> {
    let fail = |message: String| InstanceError::Key {
        comparator: c.name.clone(),
        message,
    };
    if args.len() != c.params.len() {
        return Err(fail(format!(
            "takes {} argument(s) but is called with {}",
            c.params.len(),
            args.len()
        )));
    }
    c.key
        .iter()
        .map(|k| eval_key(k, args).map_err(&fail))
        .collect()
}

/// [`comparator_key`] into `out` (cleared first).
fn comparator_key_into(
    c: &Comparator,
    args: &[i64],
    out: &mut Vec<i128>,
) -> Result<(), InstanceError> {
    out.clear();
    if args.len() != c.params.len() {
        return Err(comparator_key(c, args).expect_err("an arity error"));
    }
    for k in &c.key {
        match eval_key(k, args) {
            Ok(x) => out.push(x),
            Err(message) => {
                return Err(InstanceError::Key {
                    comparator: c.name.clone(),
                    message,
                })
            }
        }
    }
    Ok(())
}

fn eval_key(k: &KeyExpr, args: &[i64]) -> Result<i128, String> {
    let overflow = || "arithmetic overflow in the key".to_string();
    Ok(match k {
        KeyExpr::Int(n) => i128::from(*n),
        KeyExpr::Param(p) => i128::from(
            *args
                .get(*p)
                .ok_or_else(|| format!("the key uses parameter {p}, which does not exist"))?,
        ),
        KeyExpr::Neg(a) => eval_key(a, args)?.checked_neg().ok_or_else(overflow)?,
        KeyExpr::Add(a, b) => eval_key(a, args)?
            .checked_add(eval_key(b, args)?)
            .ok_or_else(overflow)?,
        KeyExpr::Sub(a, b) => eval_key(a, args)?
            .checked_sub(eval_key(b, args)?)
            .ok_or_else(overflow)?,
        KeyExpr::Mul(a, b) => eval_key(a, args)?
            .checked_mul(eval_key(b, args)?)
            .ok_or_else(overflow)?,
        KeyExpr::Div(a, b) | KeyExpr::Rem(a, b) => {
            let (x, y) = (eval_key(a, args)?, eval_key(b, args)?);
            if y == 0 {
                return Err("division by zero in the key".into());
            }
            let mut q = x.checked_div(y).ok_or_else(overflow)?;
            if x % y != 0 && ((x < 0) != (y < 0)) {
                q = q.checked_sub(1).ok_or_else(overflow)?;
            }
            if matches!(k, KeyExpr::Div(..)) {
                q
            } else {
                y.checked_mul(q)
                    .and_then(|p| x.checked_sub(p))
                    .ok_or_else(overflow)?
            }
        }
        KeyExpr::Interleave(parts) => {
            let n = parts.len() as u64;
            let mut out: u128 = 0;
            for (i, p) in parts.iter().enumerate() {
                let x = eval_key(p, args)?;
                if x < 0 {
                    return Err(format!(
                        "interleave needs non-negative values, but argument {} is {x}",
                        i + 1
                    ));
                }
                let x = x as u128;
                let bits = 128 - u64::from(x.leading_zeros());
                for b in 0..bits {
                    if x >> b & 1 == 1 {
                        let at = b * n + i as u64;
                        if at >= 127 {
                            return Err(format!(
                                "interleave of {n} values does not fit in 127 bits (argument {} is {x})",
                                i + 1
                            ));
                        }
                        out |= 1u128 << at;
                    }
                }
            }
            out as i128
        }
    })
}

// ---------------------------------------------------------------------------
// Evaluation helpers

fn eval_error(what: impl FnOnce() -> String) -> impl FnOnce(EvalError) -> InstanceError {
    move |error| InstanceError::Eval {
        what: what(),
        error,
    }
}

/// Evaluates `e` at `point` (tuple variables) without comparators.
fn eval_plain(env: &Env, e: &Expr, point: &[i64]) -> Result<i64, EvalError> {
    env.evaluate(e, &mut |v| match v {
        Var::Tuple(i) => point.get(i).copied(),
        Var::Exist(_) => None,
    })
}

/// `e` compiled for [`eval_plain`]'s evaluation: tuple variable `i` is
/// position `i` of the point, existentials are never known.
fn compile_plain(env: &Env, e: &Expr) -> CExpr {
    CExpr::compile(e, env, &mut |v| match v {
        Var::Tuple(i) => Slot::At(i),
        Var::Exist(_) => Slot::Unknown(v),
    })
}

/// A constraint compiled for evaluation at many points: exactly what
/// [`constraint_holds`] decides (errors included), without recompiling or
/// allocating at each point.
struct Holds<'a> {
    constraint: &'a Constraint,
    how: How<'a>,
    args: Vec<i64>,
    keys: Vec<Vec<i128>>,
}

enum How<'a> {
    /// No comparator.
    Plain(CExpr),
    /// Comparator calls (none nested) and the rest.
    Keys {
        calls: Vec<(&'a Comparator, i64, Vec<CExpr>)>,
        others: CExpr,
        others_constant: bool,
    },
    /// Anything else: [`constraint_holds`] at each point.
    Generic,
}

impl<'a> Holds<'a> {
    fn new(d: &'a Descriptor, env: &Env, c: &'a Constraint) -> Holds<'a> {
        let e = c.expr();
        let how = if !d.mentions_comparator(e) {
            How::Plain(compile_plain(env, e))
        } else {
            let mut calls = Vec::new();
            let mut others = Expr::constant(e.constant_term());
            let mut nested = false;
            for (atom, coef) in e.terms() {
                match d.comparator_call(atom) {
                    Some((cmp, args)) => {
                        nested |= args.iter().any(|a| d.mentions_comparator(a));
                        let args = args.iter().map(|a| compile_plain(env, a)).collect();
                        calls.push((cmp, coef, args));
                    }
                    None => {
                        if let Atom::Uf(_, args) = atom {
                            nested |= args.iter().any(|a| d.mentions_comparator(a));
                        }
                        others.add_term(atom.clone(), coef);
                    }
                }
            }
            if nested {
                How::Generic
            } else {
                How::Keys {
                    calls,
                    others_constant: others.is_constant(),
                    others: compile_plain(env, &others),
                }
            }
        };
        Holds {
            constraint: c,
            how,
            args: Vec::new(),
            keys: Vec::new(),
        }
    }

    fn holds(
        &mut self,
        d: &Descriptor,
        env: &Env,
        point: &[i64],
        what: &dyn Fn() -> String,
    ) -> Result<bool, InstanceError> {
        let c = self.constraint;
        let decide = |x: i128| match c.kind() {
            ConstraintKind::Eq => x == 0,
            ConstraintKind::Geq => x >= 0,
        };
        let (calls, others, others_constant) = match &self.how {
            How::Plain(e) => {
                let x = e.eval(env, point).map_err(eval_error(what))?;
                return Ok(decide(i128::from(x)));
            }
            How::Generic => return constraint_holds(d, env, c, point, what),
            How::Keys {
                calls,
                others,
                others_constant,
            } => (calls, others, *others_constant),
        };
        if self.keys.len() < calls.len() {
            self.keys.resize(calls.len(), Vec::new());
        }
        for ((cmp, _, args), key) in calls.iter().zip(&mut self.keys) {
            self.args.clear();
            for a in args {
                self.args
                    .push(a.eval(env, point).map_err(eval_error(what))?);
            }
            comparator_key_into(cmp, &self.args, key)?;
        }
        // Two calls of one comparator, compared by keys.
        if let [(c1, a, _), (c2, b, _)] = &calls[..] {
            let constant = c.expr().constant_term();
            if c1.name == c2.name && others_constant {
                if let Some(ok) =
                    compare_keys(c.kind(), constant, *a, *b, &self.keys[0], &self.keys[1])
                {
                    return Ok(ok);
                }
            }
        }
        // Otherwise only one-component keys take part in arithmetic.
        let acc = i128::from(others.eval(env, point).map_err(eval_error(what))?);
        let terms = calls
            .iter()
            .zip(&self.keys)
            .map(|((cmp, coef, _), key)| (*cmp, *coef, &key[..]));
        Ok(decide(sum_one_component_keys(acc, terms, what)?))
    }
}

/// `a F(..) + b F(..) + constant (op) 0` with two calls of one comparator
/// (`a = -b = ±1`), decided by comparing their keys; `None` for another
/// shape (left to arithmetic).
fn compare_keys(
    kind: ConstraintKind,
    constant: i64,
    a: i64,
    b: i64,
    k1: &[i128],
    k2: &[i128],
) -> Option<bool> {
    if a != -b || a.abs() != 1 {
        return None;
    }
    let (plus, minus) = if a == 1 { (k1, k2) } else { (k2, k1) };
    let ord = plus.cmp(minus);
    match (kind, constant) {
        (ConstraintKind::Eq, 0) => Some(ord.is_eq()),
        (ConstraintKind::Geq, 0) => Some(ord.is_ge()),
        (ConstraintKind::Geq, -1) => Some(ord.is_gt()),
        _ => None,
    }
}

/// `acc + Σ coef · key` over comparator calls whose keys have one
/// component (a longer key can only be compared with another call).
fn sum_one_component_keys<'a>(
    mut acc: i128,
    terms: impl Iterator<Item = (&'a Comparator, i64, &'a [i128])>,
    what: &dyn Fn() -> String,
) -> Result<i128, InstanceError> {
    for (cmp, coef, key) in terms {
        let [x] = key[..] else {
            return Err(InstanceError::Key {
                comparator: cmp.name.clone(),
                message: format!(
                    "its key has {} components, so a call can only be compared with another call of {}",
                    key.len(),
                    cmp.name
                ),
            });
        };
        acc = i128::from(coef)
            .checked_mul(x)
            .and_then(|t| acc.checked_add(t))
            .ok_or_else(|| InstanceError::Eval {
                what: what(),
                error: EvalError::Overflow,
            })?;
    }
    Ok(acc)
}

/// Evaluates a constraint at `point`, comparators included.
pub(crate) fn constraint_holds(
    d: &Descriptor,
    env: &Env,
    c: &Constraint,
    point: &[i64],
    what: &dyn Fn() -> String,
) -> Result<bool, InstanceError> {
    let e = c.expr();
    let decide = |x: i128| match c.kind() {
        ConstraintKind::Eq => x == 0,
        ConstraintKind::Geq => x >= 0,
    };
    if !d.mentions_comparator(e) {
        let x = eval_plain(env, e, point).map_err(eval_error(what))?;
        return Ok(decide(i128::from(x)));
    }
    let mut calls = Vec::new();
    let mut others = Expr::constant(e.constant_term());
    for (atom, coef) in e.terms() {
        match d.comparator_call(atom) {
            Some((cmp, args)) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    if d.mentions_comparator(a) {
                        return Err(InstanceError::Key {
                            comparator: cmp.name.clone(),
                            message: "a comparator call cannot be an argument of another call"
                                .into(),
                        });
                    }
                    vals.push(eval_plain(env, a, point).map_err(eval_error(what))?);
                }
                calls.push((cmp, coef, comparator_key(cmp, &vals)?));
            }
            None => {
                if let Atom::Uf(_, args) = atom {
                    if args.iter().any(|a| d.mentions_comparator(a)) {
                        return Err(InstanceError::Eval {
                            what: what(),
                            error: EvalError::UnknownUf(
                                "a comparator used inside an index array's argument".into(),
                            ),
                        });
                    }
                }
                others.add_term(atom.clone(), coef);
            }
        }
    }
    // Two calls of one comparator, compared by keys.
    if let [(c1, a, k1), (c2, b, k2)] = &calls[..] {
        let constant = e.constant_term();
        if c1.name == c2.name && others.is_constant() {
            if let Some(ok) = compare_keys(c.kind(), constant, *a, *b, k1, k2) {
                return Ok(ok);
            }
        }
    }
    // Otherwise only one-component keys take part in arithmetic.
    let acc = i128::from(eval_plain(env, &others, point).map_err(eval_error(what))?);
    let terms = calls.iter().map(|(cmp, coef, key)| (*cmp, *coef, &key[..]));
    Ok(decide(sum_one_component_keys(acc, terms, what)?))
}

/// The constraints stating that every UF call in `exprs` has its
/// arguments inside its domain: one list of constraints per combination of
/// the domains' conjunctions (usually exactly one).
pub fn domain_guards<'a>(
    d: &Descriptor,
    exprs: impl IntoIterator<Item = &'a Expr>,
) -> Result<Vec<Vec<Normalized>>, InstanceError> {
    let mut calls: BTreeSet<(String, Vec<Expr>)> = BTreeSet::new();
    for e in exprs {
        e.for_each_call(&mut |name, args| {
            if d.uf(name).is_some() {
                calls.insert((name.to_string(), args.to_vec()));
            }
        });
    }
    let mut alternatives: Vec<Vec<Normalized>> = vec![Vec::new()];
    for (name, args) in calls {
        let Some(decl) = d.uf(&name) else { continue };
        let mut next = Vec::new();
        for conj in decl.domain.conjunctions() {
            if conj.num_exists() > 0 {
                return Err(InstanceError::Eval {
                    what: format!("the domain of {name}"),
                    error: EvalError::UnassignedVariable(
                        "an existential variable in a UF domain".into(),
                    ),
                });
            }
            let guard: Vec<Normalized> = conj
                .constraints()
                .map(|k| {
                    k.map_expr(|e| {
                        e.substitute(&mut |v| match v {
                            Var::Tuple(i) => args.get(i).cloned(),
                            Var::Exist(_) => None,
                        })
                    })
                })
                .collect();
            for alt in &alternatives {
                let mut a = alt.clone();
                a.extend(guard.iter().cloned());
                next.push(a);
            }
        }
        if next.len() > 256 {
            return Err(InstanceError::Eval {
                what: "the domains of the index arrays".into(),
                error: EvalError::TooManyPoints { limit: 256 },
            });
        }
        alternatives = next;
    }
    Ok(alternatives)
}

fn tuple_text(point: &[i64]) -> String {
    point
        .iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `0 <= y < NC` from `{[y] : 0 <= y < NC}`.
fn set_body(s: &Set) -> String {
    let text = s.to_string();
    match (text.find(" : "), text.strip_suffix('}')) {
        (Some(at), Some(_)) if s.conjunctions().len() == 1 => {
            text[at + 3..text.len() - 1].to_string()
        }
        _ => text,
    }
}

/// ` (NC = 4, NNZ = 5)` for the symbols of `s`, or nothing.
fn symbol_values(symbols: &BTreeSet<String>, interp: &Interpretation) -> String {
    let parts: Vec<String> = symbols
        .iter()
        .filter_map(|s| interp.symbols.get(s).map(|v| format!("{s} = {v}")))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

fn set_symbols(s: &Set) -> BTreeSet<String> {
    s.conjunctions().iter().flat_map(|c| c.symbols()).collect()
}

fn expr_symbols(e: &Expr) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    e.for_each_sym(&mut |s| {
        out.insert(s.to_string());
    });
    out
}

/// Prints a constraint with the rule's names: `n1 < n2`, `row(n1) <= row(n2)`.
pub(crate) fn constraint_text(c: &Constraint, names: &dyn Fn(Var) -> String) -> String {
    let e = c.expr();
    let mut pos = Expr::constant(0);
    let mut neg = Expr::constant(0);
    for (atom, coef) in e.terms() {
        if coef > 0 {
            pos.add_term(atom.clone(), coef);
        } else {
            neg.add_term(atom.clone(), -coef);
        }
    }
    let k = e.constant_term();
    let strict = c.kind() == ConstraintKind::Geq && k == -1;
    if !strict {
        if k > 0 {
            pos.add_constant(k);
        } else {
            neg.add_constant(k.saturating_neg());
        }
    }
    let (pos, neg) = (expr_with_names(&pos, names), expr_with_names(&neg, names));
    match c.kind() {
        // An equality reads better with its positive side first: `j = ii + off(d)`.
        ConstraintKind::Eq => format!("{pos} = {neg}"),
        ConstraintKind::Geq if strict => format!("{neg} < {pos}"),
        ConstraintKind::Geq => format!("{neg} <= {pos}"),
    }
}

fn rule_names(rule: &UfRule) -> impl Fn(Var) -> String + '_ {
    move |v| match v {
        Var::Tuple(i) => rule.vars.get(i).cloned().unwrap_or_else(|| format!("v{i}")),
        Var::Exist(j) => format!("e{j}"),
    }
}

/// The rule, printed: `forall n1, n2 : n1 < n2 => row(n1) <= row(n2)`.
pub fn rule_text(rule: &UfRule) -> String {
    let names = rule_names(rule);
    let side = |cs: &[Constraint]| {
        if cs.is_empty() {
            "true".to_string()
        } else {
            cs.iter()
                .map(|c| constraint_text(c, &names))
                .collect::<Vec<_>>()
                .join(" && ")
        }
    };
    format!(
        "forall {} : {} => {}",
        rule.vars.join(", "),
        side(&rule.premise),
        side(&rule.conclusion)
    )
}

// ---------------------------------------------------------------------------
// Shape: symbols, arrays, lengths

/// The points of an index array's domain, in increasing order.
pub(crate) enum Domain {
    /// Every point of a box `lo ..= hi` (not empty).
    Box { lo: Vec<i64>, hi: Vec<i64> },
    /// Listed points.
    Points(Points),
}

impl Domain {
    /// Calls `f` on every point, in increasing order.
    fn for_each<E>(&self, mut f: impl FnMut(&[i64]) -> Result<(), E>) -> Result<(), E> {
        match self {
            Domain::Points(ps) => ps.iter().try_for_each(f),
            Domain::Box { lo, hi } => {
                let mut p = lo.clone();
                loop {
                    f(&p)?;
                    // The next point, last coordinate fastest.
                    let mut k = p.len();
                    loop {
                        if k == 0 {
                            return Ok(());
                        }
                        k -= 1;
                        if p[k] < hi[k] {
                            p[k] += 1;
                            break;
                        }
                        p[k] = lo[k];
                    }
                }
            }
        }
    }
}

/// An instance checked for shape, ready for evaluation: the symbols and
/// index arrays (as dense tables), the value array, and each UF's domain
/// points.
pub(crate) struct Concrete<'a> {
    pub env: Env<'a>,
    /// The value array (borrowed when it holds reals).
    pub values: Cow<'a, [f64]>,
    pub data_extents: Vec<i64>,
    /// The number of values of the instance, plus one (see [`work_bounds`]).
    pub work: u64,
    /// The domain of each index array, in the order of the descriptor's.
    pub domains: Vec<Domain>,
    /// The same values as an interpretation, built when first needed.
    interp: OnceCell<Interpretation>,
}

impl Concrete<'_> {
    /// The symbols and index arrays as an [`Interpretation`] (for the
    /// paths that enumerate with `iegen::eval`).
    pub fn interp(&self) -> &Interpretation {
        self.interp.get_or_init(|| self.env.to_interpretation())
    }
}

/// The number of domain points always enumerated, whatever the array's length.
const DOMAIN_POINTS: u64 = 100_000;

/// Limits of an enumeration whose size is proportional to `work` (the
/// number of values of an instance, plus one): at most `work` points, and
/// 64 tries per point plus a constant. A well-formed instance has no more
/// domain points, sparse points or adjacent pairs than values, so the
/// limits only stop instances whose symbols promise far more than their
/// arrays hold.
pub(crate) fn work_bounds(work: u64) -> Bounds {
    Bounds {
        box_: None,
        max_points: usize::try_from(work).unwrap_or(usize::MAX),
        max_steps: work.saturating_mul(64).saturating_add(100_000),
    }
}

fn names_list(names: impl IntoIterator<Item = impl AsRef<str>>) -> String {
    names
        .into_iter()
        .map(|n| n.as_ref().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The bounds `lo ..= hi` of a domain that is a non-empty box: one
/// conjunction without existentials whose every constraint bounds one
/// variable by an expression of symbols, every variable bounded on both
/// sides. `None` for any other domain (which is then enumerated): the box
/// holds exactly the points the enumeration finds, in the same order.
fn box_domain(s: &Set, interp: &Interpretation) -> Option<(Vec<i64>, Vec<i64>)> {
    let [conj] = s.conjunctions() else {
        return None;
    };
    if conj.num_exists() > 0 {
        return None;
    }
    let n = conj.arity();
    let mut lo: Vec<Option<i128>> = vec![None; n];
    let mut hi: Vec<Option<i128>> = vec![None; n];
    for c in conj.constraints() {
        let mut var = None;
        let mut rest = i128::from(c.expr().constant_term());
        for (atom, coef) in c.expr().terms() {
            match atom {
                Atom::Var(Var::Tuple(k)) if var.is_none() && *k < n => var = Some((*k, coef)),
                Atom::Sym(name) => {
                    rest += i128::from(coef) * i128::from(*interp.symbols.get(name)?);
                }
                _ => return None,
            }
        }
        // a·x + rest >= 0 (or = 0)
        let (k, a) = var?;
        let a = i128::from(a);
        let (l, h) = match c.kind() {
            ConstraintKind::Eq if rest % a == 0 => (Some(-rest / a), Some(-rest / a)),
            ConstraintKind::Eq => return None,
            ConstraintKind::Geq if a > 0 => (Some(-(rest.div_euclid(a))), None),
            ConstraintKind::Geq => (None, Some(rest.div_euclid(-a))),
        };
        if let Some(l) = l {
            lo[k] = Some(lo[k].map_or(l, |x| x.max(l)));
        }
        if let Some(h) = h {
            hi[k] = Some(hi[k].map_or(h, |x| x.min(h)));
        }
    }
    let mut out = (Vec::with_capacity(n), Vec::with_capacity(n));
    for (l, h) in lo.into_iter().zip(hi) {
        let (l, h) = (i64::try_from(l?).ok()?, i64::try_from(h?).ok()?);
        if l > h || h == i64::MAX {
            return None;
        }
        out.0.push(l);
        out.1.push(h);
    }
    Some(out)
}

/// Checks names, types and lengths, and builds the interpretation.
pub(crate) fn prepare<'a>(
    d: &Descriptor,
    inst: &'a Instance,
) -> Result<Concrete<'a>, InstanceError> {
    if !inst.format.eq_ignore_ascii_case(&d.name) {
        return Err(InstanceError::Format {
            instance: inst.format.clone(),
            descriptor: d.name.clone(),
        });
    }
    let all_symbols = names_list(&d.symbols);
    for s in &d.symbols {
        if !inst.symbols.contains_key(s) {
            return Err(InstanceError::MissingSymbol {
                name: s.clone(),
                all: all_symbols,
            });
        }
    }
    for s in inst.symbols.keys() {
        if !d.symbols.contains(s) {
            return Err(InstanceError::UnknownSymbol {
                name: s.clone(),
                format: d.name.clone(),
                all: all_symbols,
            });
        }
    }
    // A dense extent is a size.
    for s in &d.dense {
        let v = inst.symbols[s];
        if v < 0 {
            return Err(InstanceError::NegativeExtent {
                name: s.clone(),
                value: v,
            });
        }
    }
    let array_names: Vec<&str> = d
        .ufs
        .iter()
        .map(|u| u.name.as_str())
        .chain([d.data_name.as_str()])
        .collect();
    let all_arrays = names_list(&array_names);
    for a in &array_names {
        if !inst.arrays.contains_key(*a) {
            return Err(InstanceError::MissingArray {
                name: a.to_string(),
                all: all_arrays,
            });
        }
    }
    for a in inst.arrays.keys() {
        if !array_names.contains(&a.as_str()) {
            return Err(InstanceError::UnknownArray {
                name: a.clone(),
                format: d.name.clone(),
                all: all_arrays,
            });
        }
    }
    // The symbols only: the domains and sizes are evaluated without the
    // index arrays.
    let mut interp = Interpretation::new();
    for (k, v) in &inst.symbols {
        interp.symbols.insert(k.clone(), *v);
    }
    let mut tables = Vec::new();
    let mut domains = Vec::new();
    for u in &d.ufs {
        let what = format!("the domain of {}", u.name);
        let Some(ints) = inst.arrays[&u.name].as_ints() else {
            return Err(InstanceError::NotIntegers {
                array: u.name.clone(),
            });
        };
        let arity = u.domain.arity();
        let domain_text = || {
            format!(
                "its domain {}{}",
                set_body(&u.domain),
                symbol_values(&set_symbols(&u.domain), &interp)
            )
        };
        // A domain has at most as many points as its array has values; the
        // bound keeps the work proportional to the instance (with a floor,
        // so that a short array of a small domain says what it needs).
        let limit = (ints.len() as u64 + 1).max(DOMAIN_POINTS);
        let too_many = || InstanceError::Length {
            array: u.name.clone(),
            found: ints.len(),
            why: format!("{} has more points than that", domain_text()),
        };
        let negative = |p: &[i64]| InstanceError::Eval {
            what: what.clone(),
            error: EvalError::UnassignedVariable(format!(
                "its point ({}) has a negative index, which no array can store",
                tuple_text(p)
            )),
        };
        let (domain, extents, lo, count) = match box_domain(&u.domain, &interp) {
            Some((lo, hi)) => {
                let count = lo.iter().zip(&hi).try_fold(1u128, |acc, (&l, &h)| {
                    acc.checked_mul(u128::try_from(i128::from(h) - i128::from(l) + 1).ok()?)
                });
                if count.is_none_or(|n| n > u128::from(work_bounds(limit).max_points as u64)) {
                    return Err(too_many());
                }
                if lo.iter().any(|&x| x < 0) {
                    return Err(negative(&lo));
                }
                let extents: Vec<i64> = hi.iter().map(|h| h + 1).collect();
                let count = count.unwrap_or(0) as usize;
                (Domain::Box { lo: lo.clone(), hi }, extents, lo, count)
            }
            None => {
                let set = match enumerate_set(&u.domain, &interp, &work_bounds(limit)) {
                    Ok(points) => points,
                    Err(EvalError::TooManyPoints { .. } | EvalError::TooManySteps { .. }) => {
                        return Err(too_many())
                    }
                    Err(e) => return Err(eval_error(|| what.clone())(e)),
                };
                let mut points = Points::new(arity);
                let mut extents = vec![0i64; arity];
                for p in &set {
                    for (k, &x) in p.iter().enumerate() {
                        if x < 0 {
                            return Err(negative(p));
                        }
                        extents[k] = extents[k].max(x + 1);
                    }
                    points.push(p);
                }
                let count = points.len();
                (Domain::Points(points), extents, vec![0; arity], count)
            }
        };
        let expected = if count == 0 {
            Some(0usize)
        } else {
            extents
                .iter()
                .try_fold(1usize, |acc, &e| acc.checked_mul(usize::try_from(e).ok()?))
        };
        if expected != Some(ints.len()) {
            let needs = match expected {
                Some(n) => n.to_string(),
                None => "more than can be stored".to_string(),
            };
            let shape = if arity > 1 {
                format!(
                    " ({}, row-major)",
                    extents
                        .iter()
                        .map(|e| e.to_string())
                        .collect::<Vec<_>>()
                        .join(" × ")
                )
            } else {
                String::new()
            };
            return Err(InstanceError::Length {
                array: u.name.clone(),
                found: ints.len(),
                why: format!("{} needs {needs}{shape}", domain_text()),
            });
        }
        // Listed points that do not fill their extents leave holes.
        let mask = match &domain {
            Domain::Points(ps) if ps.len() != ints.len() => {
                let mut mask = vec![false; ints.len()];
                for p in ps.iter() {
                    mask[linear(p, &extents)] = true;
                }
                Some(mask)
            }
            _ => None,
        };
        tables.push((
            u.name.clone(),
            Table::Dense {
                extents,
                lo,
                values: Cow::Borrowed(ints),
                mask,
            },
        ));
        domains.push(domain);
    }
    // The value array's length: the product of its extents (row-major).
    let mut data_extents = Vec::with_capacity(d.data_size.len());
    let mut size: Option<i64> = Some(1);
    for extent in &d.data_size {
        let n = interp
            .evaluate(extent, &mut |_| None)
            .map_err(eval_error(|| format!("the size of {}", d.data_name)))?;
        data_extents.push(n);
        size = size.and_then(|s| if n < 0 { None } else { s.checked_mul(n) });
    }
    let data = &inst.arrays[&d.data_name];
    if size.and_then(|s| usize::try_from(s).ok()) != Some(data.len()) {
        let syms: BTreeSet<String> = d.data_size.iter().flat_map(expr_symbols).collect();
        let texts: Vec<String> = d.data_size.iter().map(|e| e.to_string()).collect();
        let why = match &texts[..] {
            [one] if syms.len() == 1 && syms.contains(one) => {
                format!("the descriptor's size {one} is {}", data_extents[0])
            }
            [one] => format!(
                "the descriptor's size {one} is {}{}",
                data_extents[0],
                symbol_values(&syms, &interp)
            ),
            _ => {
                let product =
                    size.map_or_else(|| "not a valid size".to_string(), |s| s.to_string());
                format!(
                    "the descriptor's size [{}] is {} = {product}{}",
                    texts.join(", "),
                    data_extents
                        .iter()
                        .map(|e| e.to_string())
                        .collect::<Vec<_>>()
                        .join(" × "),
                    symbol_values(&syms, &interp)
                )
            }
        };
        return Err(InstanceError::Length {
            array: d.data_name.clone(),
            found: data.len(),
            why,
        });
    }
    let values = match data {
        Values::Real(v) => Cow::Borrowed(&v[..]),
        other => Cow::Owned(other.to_reals()),
    };
    if let Some((index, value)) = values.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        return Err(InstanceError::NonFinite {
            array: d.data_name.clone(),
            index,
            value: *value,
        });
    }
    let mut env = Env::default();
    env.symbols = interp.symbols;
    for (name, table) in tables {
        env.insert(name, table);
    }
    let work = inst
        .arrays
        .values()
        .map(|v| v.len() as u64)
        .sum::<u64>()
        .saturating_add(1);
    Ok(Concrete {
        env,
        values,
        data_extents,
        work,
        domains,
        interp: OnceCell::new(),
    })
}

/// The row-major position of `p` in an array of the given extents.
fn linear(p: &[i64], extents: &[i64]) -> usize {
    let mut at: i64 = 0;
    for (x, e) in p.iter().zip(extents) {
        at = at * e + x;
    }
    at as usize
}

// ---------------------------------------------------------------------------
// Validation

/// The largest number of rule evaluations [`validate`] spends on a rule
/// that needs full enumeration.
pub const RULE_BUDGET: u64 = 4_000_000;

/// Checks an instance against its descriptor: names, lengths, ranges,
/// monotonicity and rules (see the module documentation).
pub fn validate(d: &Descriptor, inst: &Instance) -> Result<(), InstanceError> {
    validate_with_budget(d, inst, RULE_BUDGET)
}

/// [`validate`], with the budget of evaluations for a rule that has to be
/// checked by full enumeration.
pub fn validate_with_budget(
    d: &Descriptor,
    inst: &Instance,
    budget: u64,
) -> Result<(), InstanceError> {
    validate_entries_with_budget(d, inst, budget).map(drop)
}

/// [`validate`], and the instance's entries sorted by coordinate (what
/// [`crate::oracle::sorted_entries`] gives), from the one enumeration of
/// the storage check: a result's check needs both.
pub fn validate_entries(d: &Descriptor, inst: &Instance) -> Result<Entries, InstanceError> {
    validate_entries_with_budget(d, inst, RULE_BUDGET)
}

/// An instance that records 32-bit indices holds only what fits them:
/// part of [`validate`], and what a compiled check of the rest (which
/// holds every array at 64 bits) leaves to its caller.
///
/// # Errors
///
/// [`InstanceError::Width`] for the first size that does not fit.
pub fn check_recorded_widths(d: &Descriptor, inst: &Instance) -> Result<(), InstanceError> {
    if let Some(w) = inst.index_width {
        for size in inst.sizes(d) {
            let width = size.kind.map_or(w.narrowest(), |k| w.of(k));
            width
                .check(size.what, size.value)
                .map_err(|e| InstanceError::Width(format!("the instance records {w}, but {e}")))?;
        }
    }
    Ok(())
}

fn validate_entries_with_budget(
    d: &Descriptor,
    inst: &Instance,
    budget: u64,
) -> Result<Entries, InstanceError> {
    let c = prepare(d, inst)?;
    check_recorded_widths(d, inst)?;
    for (u, domain) in d.ufs.iter().zip(&c.domains) {
        let table = c.env.table(&u.name).expect("a table per index array");
        check_range(u, table, domain, &c)?;
        if u.domain.arity() == 1 {
            check_monotone(u, table, domain)?;
        }
    }
    for rule in &d.rules {
        check_rule(d, &c, rule, budget, c.work)?;
    }
    crate::oracle::checked_sorted_entries_in(d, &c).map_err(|e| match e {
        crate::oracle::OracleError::Instance(e) => e,
        other => InstanceError::Storage(other.to_string()),
    })
}

fn check_range(
    u: &iegen::UfDecl,
    table: &Table,
    domain: &Domain,
    c: &Concrete,
) -> Result<(), InstanceError> {
    let simple = u.range.conjunctions().iter().all(|c| c.num_exists() == 0);
    let compiled: Vec<Vec<(ConstraintKind, CExpr)>> = u
        .range
        .conjunctions()
        .iter()
        .map(|conj| {
            conj.constraints()
                .map(|k| (k.kind(), compile_plain(&c.env, k.expr())))
                .collect()
        })
        .collect();
    let what = || format!("the range of {}", u.name);
    domain.for_each(|p| {
        let v = table.get(p);
        let inside = if simple {
            let mut any = false;
            for conj in &compiled {
                let mut all = true;
                for (kind, e) in conj {
                    let x = e.eval(&c.env, &[v][..]).map_err(eval_error(what))?;
                    let ok = match kind {
                        ConstraintKind::Eq => x == 0,
                        ConstraintKind::Geq => x >= 0,
                    };
                    if !ok {
                        all = false;
                        break;
                    }
                }
                if all {
                    any = true;
                    break;
                }
            }
            any
        } else {
            set_contains(&u.range, &[v], c.interp(), &Bounds::unboxed())
                .map_err(eval_error(what))?
        };
        if !inside {
            return Err(InstanceError::OutOfRange {
                array: u.name.clone(),
                index: tuple_text(p),
                value: v,
                range: format!(
                    "{}{}",
                    set_body(&u.range),
                    symbol_values(&set_symbols(&u.range), c.interp())
                ),
            });
        }
        Ok(())
    })
}

fn check_monotone(u: &iegen::UfDecl, table: &Table, domain: &Domain) -> Result<(), InstanceError> {
    // Domain points are sorted; adjacent ones suffice by transitivity.
    for m in &u.monotonicity {
        let mut last: Option<(Vec<i64>, i64)> = None;
        domain.for_each(|b| {
            let fb = table.get(b);
            if let Some((a, fa)) = &mut last {
                let fa = *fa;
                let (bad, op) = match m {
                    Monotonicity::Nondecreasing => (fa > fb, ">"),
                    Monotonicity::Increasing => (fa >= fb, ">="),
                    Monotonicity::Nonincreasing => (fa < fb, "<"),
                    Monotonicity::Decreasing => (fa <= fb, "<="),
                };
                if bad {
                    return Err(InstanceError::NotMonotone {
                        array: u.name.clone(),
                        property: m.keyword(),
                        detail: format!(
                            "{n}({}) = {fa} {op} {n}({}) = {fb}",
                            tuple_text(a),
                            tuple_text(b),
                            n = u.name
                        ),
                    });
                }
                a.clear();
                a.extend_from_slice(b);
            }
            match &mut last {
                Some((_, f)) => *f = fb,
                None => last = Some((b.to_vec(), fb)),
            }
            Ok(())
        })?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Rules

/// The keys of `points` (`nk` each, appended by `key`), flat, in order up
/// to the first that fails, and that failure: its error comes after the
/// checks of the points before it.
fn keys_in_order(
    points: &Points,
    nk: usize,
    mut key: impl FnMut(&[i64], &mut Vec<i64>) -> Result<(), InstanceError>,
) -> (Vec<i64>, Option<InstanceError>) {
    let mut all = Vec::with_capacity(points.len() * nk);
    for p in points.iter() {
        let mark = all.len();
        if let Err(e) = key(p, &mut all) {
            all.truncate(mark);
            return (all, Some(e));
        }
    }
    (all, None)
}

/// The indices `0..n` of the keys in `keys` (`nk` components each, flat)
/// sorted by key, ties by index ([`coordinate_order`]: a counting sort
/// when the keys' spans allow).
fn sorted_by_key(keys: &[i64], nk: usize, n: usize) -> Vec<usize> {
    coordinate_order(n, nk, |e, c| keys[e * nk + c])
}

fn run_join(
    d: &Descriptor,
    env: &Env,
    rule: &UfRule,
    join: &Join,
    budget: u64,
    work: u64,
) -> Result<(), InstanceError> {
    let what = || format!("rule `{}`", rule_text(rule));
    let m = join.shared.len();
    // Two sides alike (COO's `row(n1) = row(n2) && col(n1) = col(n2) =>
    // n1 = n2`) have the same points and keys: enumerated and computed once.
    let alike = join.sides[0] == join.sides[1]
        && join.keys[0] == join.keys[1]
        && join.guarded[0] == join.guarded[1];
    // Each side's points: the shared variables, then its own.
    let mut side_points: [Points; 2] = [Points::new(m + 1), Points::new(m + 1)];
    for (k, side) in side_points.iter_mut().enumerate() {
        if alike && k == 0 {
            continue;
        }
        let names = join.side_names(rule, k);
        let mut guards = 0;
        for guard in domain_guards(d, &join.guarded[k])? {
            let mut constraints = join.sides[k].clone();
            constraints.extend(guard);
            let Some(conj) = Conjunction::from_parts(names.clone(), Vec::new(), constraints) else {
                continue;
            };
            let mut limits = crate::oracle::ordered::Limits::from(work_bounds(work));
            // Each side has about one point per stored entry.
            limits.expected = usize::try_from(work / 2).unwrap_or(0);
            let points =
                crate::oracle::ordered::points(&conj, env, limits).map_err(eval_error(what))?;
            side.append(&points);
            guards += 1;
        }
        if guards > 1 {
            side.sort_dedup();
        }
    }
    if alike {
        side_points[0] = side_points[1].clone();
    }
    let keys: [Vec<CExpr>; 2] =
        [0, 1].map(|k| join.keys[k].iter().map(|e| compile_plain(env, e)).collect());
    let nk = join.keys[0].len();
    // The keys of side `k` at point `x`, appended to `out`.
    let key = |k: usize, x: &[i64], out: &mut Vec<i64>| -> Result<(), InstanceError> {
        for e in &keys[k] {
            out.push(e.eval(env, x).map_err(eval_error(what))?);
        }
        Ok(())
    };
    let arity = rule.vars.len();
    let mut conclusion = Holds::new(d, env, &join.conclusion);
    let mut check_pair = |a: &[i64], b: &[i64]| -> Result<(), InstanceError> {
        let point = join.rule_point(arity, a, b);
        if !conclusion.holds(d, env, &point, &what)? {
            return Err(rule_violation(d, env, rule, &point));
        }
        Ok(())
    };
    if join.ordered && join.sides[0] == join.sides[1] && join.keys[0] == join.keys[1] {
        // Points are in increasing order; within a group of equal keys (the
        // shared variables among them) the order is transitive, so
        // consecutive members suffice. Keys are computed in order up to the
        // first that fails, whose error comes after the checks of the
        // points before it.
        let side = &side_points[0];
        let (all, key_error) = keys_in_order(side, nk, |p, out| key(0, p, out));
        let n = all.len().checked_div(nk).unwrap_or(side.len());
        let at = |i: usize| &all[i * nk..(i + 1) * nk];
        let order = sorted_by_key(&all, nk, n);
        let mut prev = vec![usize::MAX; n];
        for w in order.windows(2) {
            if at(w[0]) == at(w[1]) {
                prev[w[1]] = w[0];
            }
        }
        for (i, &p) in prev.iter().enumerate() {
            if p != usize::MAX {
                check_pair(side.get(p), side.get(i))?;
            }
        }
        return match key_error {
            Some(e) => Err(e),
            None => Ok(()),
        };
    }
    // Index the second side by key (a sorted list); scanning the first in
    // order finds the smallest violating pair first.
    let side = &side_points[1];
    let mut all = Vec::with_capacity(side.len() * nk);
    for p in side.iter() {
        key(1, p, &mut all)?;
    }
    let at = |i: usize| &all[i * nk..(i + 1) * nk];
    let index = sorted_by_key(&all, nk, side.len());
    // The first side's keys, in order up to the first that fails (whose
    // error comes after the checks of the points before it), and each
    // point's range of equal keys in `index`, found by merging the two
    // sorted lists (no binary search per point: at millions of points,
    // each probe of one is a cache miss). Two sides alike share their keys.
    let first = &side_points[0];
    let (keys_a, key_error) = if alike {
        (Vec::new(), None)
    } else {
        keys_in_order(first, nk, |p, out| key(0, p, out))
    };
    let (keys_a, n_a) = if alike {
        (&all, side.len())
    } else {
        let n = keys_a.len().checked_div(nk).unwrap_or(first.len());
        (&keys_a, n)
    };
    let at_a = |i: usize| &keys_a[i * nk..(i + 1) * nk];
    let order_a = if alike {
        index.clone()
    } else {
        sorted_by_key(keys_a, nk, n_a)
    };
    let mut range = vec![(0usize, 0usize); n_a];
    let mut lo = 0;
    for &x in &order_a {
        let ka = at_a(x);
        while lo < index.len() && at(index[lo]) < ka {
            lo += 1;
        }
        let mut hi = lo;
        while hi < index.len() && at(index[hi]) == ka {
            hi += 1;
        }
        range[x] = (lo, hi);
    }
    let mut pairs: u64 = 0;
    for (x, a) in first.iter().take(n_a).enumerate() {
        let (lo, hi) = range[x];
        for &i in &index[lo..hi] {
            let b = side.get(i);
            if join.ordered && a[m] >= b[m] {
                continue;
            }
            pairs += 1;
            if pairs > budget {
                return Err(InstanceError::RuleTooExpensive {
                    rule: rule_text(rule),
                    budget,
                });
            }
            check_pair(a, b)?;
        }
    }
    match key_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn check_rule(
    d: &Descriptor,
    c: &Concrete,
    rule: &UfRule,
    budget: u64,
    work: u64,
) -> Result<(), InstanceError> {
    let env = &c.env;
    for how in rule_checks(d, rule) {
        match how {
            RuleCheck::Points(checks) => {
                for check in checks {
                    run_check(d, env, rule, &check, budget, work)?;
                }
            }
            RuleCheck::Join(join) => run_join(d, env, rule, &join, budget, work)?,
        }
    }
    Ok(())
}

fn run_check(
    d: &Descriptor,
    env: &Env,
    rule: &UfRule,
    check: &Check,
    budget: u64,
    work: u64,
) -> Result<(), InstanceError> {
    let text = || rule_text(rule);
    // Constraints with comparator calls are tested at each point; the rest
    // is enumerated.
    let mut enumerated = Vec::new();
    let mut filters = Vec::new();
    for n in &check.premise {
        match n {
            Normalized::Constraint(c) if d.mentions_comparator(c.expr()) => filters.push(c.clone()),
            other => enumerated.push(other.clone()),
        }
    }
    let exprs: Vec<&Expr> = check
        .premise
        .iter()
        .filter_map(|n| match n {
            Normalized::Constraint(c) => Some(c.expr()),
            _ => None,
        })
        .chain([check.conclusion.expr()])
        .collect();
    let guards = domain_guards(d, exprs)?;
    let bounds = Bounds {
        box_: None,
        max_points: if check.adjacent {
            work_bounds(work).max_points
        } else {
            usize::try_from(budget).unwrap_or(usize::MAX)
        },
        max_steps: if check.adjacent {
            work_bounds(work).max_steps
        } else {
            budget.saturating_mul(8)
        },
    };
    let mut filters: Vec<Holds> = filters.iter().map(|f| Holds::new(d, env, f)).collect();
    let mut conclusion = Holds::new(d, env, &check.conclusion);
    for guard in guards {
        let mut constraints = enumerated.clone();
        constraints.extend(guard);
        let Some(conj) = Conjunction::from_parts(rule.vars.clone(), Vec::new(), constraints) else {
            continue; // trivially false premise
        };
        let mut limits = crate::oracle::ordered::Limits::from(bounds);
        let too_expensive = || InstanceError::RuleTooExpensive {
            rule: text(),
            budget: bounds.max_points as u64,
        };
        let enumeration_failed = |e: EvalError| match e {
            EvalError::TooManyPoints { .. } | EvalError::TooManySteps { .. } => too_expensive(),
            e => eval_error(|| format!("rule `{}`", text()))(e),
        };
        let what = || format!("rule `{}`", text());
        // Whether the rule holds at point `p`.
        let mut check_point = |p: &[i64]| -> Result<bool, InstanceError> {
            for f in &mut filters {
                if !f.holds(d, env, p, &what)? {
                    return Ok(true);
                }
            }
            conclusion.holds(d, env, p, &what)
        };
        // The points streamed as the search finds them (none kept); when
        // they do not come in order, or the rule fails somewhere, they are
        // collected and checked in order, so that the first failing point
        // (or the enumeration's error) is the one reported.
        let mut failed = false;
        let streamed =
            crate::oracle::ordered::points_in_order(
                &conj,
                env,
                limits,
                &mut |p| match check_point(p) {
                    Ok(true) => ControlFlow::Continue(()),
                    _ => {
                        failed = true;
                        ControlFlow::Break(())
                    }
                },
            )
            .map_err(enumeration_failed)?;
        if streamed == crate::oracle::ordered::Streamed::Done && !failed {
            continue;
        }
        if check.adjacent {
            // About one pair per value (`work` counts the index arrays' and
            // the value array's values): room made at once.
            limits.expected = usize::try_from(work / 2).unwrap_or(0);
        }
        let points =
            crate::oracle::ordered::points(&conj, env, limits).map_err(enumeration_failed)?;
        for p in points.iter() {
            if !check_point(p)? {
                return Err(rule_violation(d, env, rule, p));
            }
        }
    }
    Ok(())
}

/// The error for `rule` failing at `point`, with the values of its calls.
fn rule_violation(d: &Descriptor, env: &Env, rule: &UfRule, point: &[i64]) -> InstanceError {
    let at = rule
        .vars
        .iter()
        .zip(point)
        .map(|(n, v)| format!("{n} = {v}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut shown: BTreeSet<String> = BTreeSet::new();
    let mut parts = Vec::new();
    let mut keys = Vec::new();
    for c in rule.premise.iter().chain(&rule.conclusion) {
        c.expr().for_each_call(&mut |name, args| {
            let vals: Option<Vec<i64>> = args
                .iter()
                .map(|a| eval_plain(env, a, point).ok())
                .collect();
            let Some(vals) = vals else { return };
            let call = format!("{name}({})", tuple_text(&vals));
            if !shown.insert(call.clone()) {
                return;
            }
            if d.uf(name).is_some() {
                if let Ok(v) = env.call(name, &vals) {
                    parts.push(format!("{call} = {v}"));
                }
            } else if let Some(cmp) = d.comparator(name) {
                if let Ok(k) = comparator_key(cmp, &vals) {
                    keys.push(format!(
                        "{call} has key ({})",
                        k.iter()
                            .map(|x| x.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            }
        });
    }
    parts.extend(keys);
    let detail = if parts.is_empty() {
        String::new()
    } else {
        format!(": {}", parts.join(", "))
    };
    InstanceError::Rule {
        rule: rule_text(rule),
        at,
        detail,
    }
}

impl Instance {
    /// The COO instance (COO3D for three dimensions) holding `c`'s entries
    /// in their order: what a coordinate file (`.mtx`, `.tns`) is read as.
    /// Arrays are named as `descriptors/coo.desc` and `coo3d.desc` name
    /// them (`row`, `col`, `z`, `A`).
    ///
    /// ```
    /// use synth::instance::{Instance, Values};
    /// use synth::tensor_io::Coordinates;
    /// let c = Coordinates { dims: vec![2, 3], entries: vec![(vec![1, 2], 5.0)] };
    /// let i = Instance::from_coordinates(&c);
    /// assert_eq!(i.format, "COO");
    /// assert_eq!(i.symbols["NNZ"], 1);
    /// assert_eq!(i.arrays["col"], Values::Int(vec![2]));
    /// ```
    pub fn from_coordinates(c: &crate::tensor_io::Coordinates) -> Instance {
        let (format, arrays): (&str, &[(&str, &str)]) = if c.order() == 3 {
            ("COO3D", &[("NR", "row"), ("NC", "col"), ("NZ", "z")])
        } else {
            ("COO", &[("NR", "row"), ("NC", "col")])
        };
        let mut inst = Instance {
            format: format.to_string(),
            ..Instance::default()
        };
        for (d, (extent, array)) in arrays.iter().enumerate() {
            inst.symbols
                .insert(extent.to_string(), c.dims.get(d).copied().unwrap_or(0));
            inst.arrays.insert(
                array.to_string(),
                Values::Int(c.entries.iter().map(|e| e.0[d]).collect()),
            );
        }
        inst.symbols.insert("NNZ".into(), c.len() as i64);
        inst.arrays.insert(
            "A".into(),
            Values::Real(c.entries.iter().map(|e| e.1).collect()),
        );
        inst
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(e: KeyExpr) -> i128 {
        eval_key(&e, &[7, -3]).unwrap()
    }

    #[test]
    fn key_arithmetic_rounds_toward_negative_infinity() {
        use KeyExpr::*;
        let p = |i| Box::new(Param(i));
        let n = |x| Box::new(Int(x));
        assert_eq!(k(Div(p(0), n(2))), 3);
        assert_eq!(k(Div(p(1), n(2))), -2);
        assert_eq!(k(Rem(p(1), n(2))), 1);
        assert_eq!(k(Rem(p(0), n(-2))), -1);
        assert_eq!(k(Div(p(0), n(-2))), -4);
        assert_eq!(k(Sub(p(0), Box::new(Mul(p(1), n(2))))), 13);
        assert_eq!(k(Neg(p(1))), 3);
        assert!(eval_key(&Div(p(0), n(0)), &[1, 1]).is_err());
        assert_eq!(k(Interleave(vec![Int(0b101), Int(0b011)])), 0b011011);
        assert!(eval_key(&Interleave(vec![Param(1)]), &[7, -3]).is_err());
        // Three 63-bit values do not fit.
        assert!(eval_key(
            &Interleave(vec![Int(i64::MAX), Int(i64::MAX), Int(i64::MAX)]),
            &[]
        )
        .is_err());
        assert!(eval_key(
            &Mul(n(i64::MAX), Box::new(Mul(n(i64::MAX), n(i64::MAX)))),
            &[]
        )
        .is_err());
    }
}
