//! The runtime objects that synthesized conversions call: what they are, how
//! their declarations and calls are checked, and the C and Rust runtimes the
//! backends emit with the generated code.
//!
//! A computation declares its objects with `object NAME : KIND(ARGS);` (a
//! [`RuntimeObject`], arguments kept as written) and calls them in statement
//! bodies (`P.insert(i, j)`, `P.map(e)`). This module gives the declarations
//! their meaning ([`ObjectSpec::parse`]) and checks each call
//! ([`check_call`]); the interpreter ([`crate::interp`]), the C backend
//! ([`crate::c`]) and the Rust backend ([`crate::rust`]) all rely on it, so
//! that they accept the same programs and report the same errors.
//!
//! The kinds, their methods and their semantics are documented in
//! `docs/runtime.md`; in short:
//!
//! * `Permutation(K, ORDER)` — entries with a key of `K` integers, sorted
//!   stably by `ORDER` on the first `J` components (the rest is a payload
//!   carried along): `lex`/`lex(J)`, `morton`/`morton(J)`, or
//!   `counting(E1, ..., EJ)` (LSD counting sort, component `d` in `0..Ed`,
//!   one pass per compared component). Methods `insert(k1, ..., kK)`,
//!   `sort()`, and the values `map(e)`, `entry(p)`, `key(d, p)`, `size()`,
//!   `count(d, v)` (counting only), `start(v)` (counting and lex), and the
//!   *distinct ranks* `rank(p)` (how many distinct compared keys come
//!   before position `p`'s) and `ranks()` (how many distinct compared keys
//!   there are): BCSR numbers blocks, not entries; and the *prefix ranks*
//!   `prefix_rank(c, p)` and `prefix_ranks(c)`, the same over the first
//!   `c` key components: CSF numbers its fibers among entries sorted by
//!   the whole key.
//! * `OrderedSet(LO, HI)` / `OrderedSet()` — distinct integers, in increasing
//!   order once sorted. Methods `insert(v)`, `sort()`, and the values
//!   `size()`, `value(i)` and `index(v)`.
//! * `Scatter(E)` — the streaming counting-sort scatter (Gustavson's
//!   algorithm): counts keys in `0..E`, then hands out positions in key
//!   order, `O(E)` memory. Methods `insert(v)`, `sort()`, and the values
//!   `size()`, `start(v)`, `count(v)`, `place(v)` (the next free position
//!   of key `v`; it changes the object, so it must be the whole value of an
//!   assignment, [`CallSite::Assigned`]), `place_inserted(v)` (`place(v)`
//!   for an entry inserted with key `v`: the compiled runtimes trust that no
//!   key is placed more often than inserted and do not check it) and
//!   `slot(v)` (an entry's rank among its key's entries).
//!
//! The runtimes themselves:
//!
//! * [`C_RUNTIME`] (`c/*.h`, one header's text in six pieces, one idea
//!   each: the common helpers, a permutation's building, sorting and
//!   reading, the ordered set, the scatter): `static inline` functions and
//!   three types with the `spf_` prefix, guarded by `#ifndef SPF_RUNTIME_H`
//!   so that several generated functions can share one file. [`crate::c::emit_c`]
//!   prints it before the function when the function uses an object.
//! * [`RUST_RUNTIME`] (`spf_runtime.rs`): a module [`spf_runtime`] that
//!   [`crate::rust::emit_rust`] prints inside the generated function (as
//!   `mod spf_runtime { ... }`, so that several functions can share a file).
//!   The same file is compiled into this crate as [`spf_runtime`], where it is
//!   linted and unit-tested, and usable directly from Rust.
//! * The interpreter has its own, checked implementation (typed errors
//!   instead of panics), written independently as a cross-check.

use std::fmt;

use iegen::computation::{RuntimeObject, ValueExpr};
use iegen::Expr;

pub(crate) mod objects;
#[path = "spf_runtime.rs"]
pub mod spf_runtime;

pub use objects::ObjectFault;

/// The C runtime, emitted once per generated C file (guarded by
/// `#ifndef SPF_RUNTIME_H`): the pieces in `c/`, concatenated in order
/// (each needs the ones before it; the guard opens in the first and closes
/// in the last).
pub const C_RUNTIME: &str = concat!(
    include_str!("c/common.h"),
    include_str!("c/perm_build.h"),
    include_str!("c/perm_sort.h"),
    include_str!("c/perm_read.h"),
    include_str!("c/oset.h"),
    include_str!("c/scatter.h"),
);

/// The Rust runtime: the body of the `mod spf_runtime` that generated Rust
/// functions carry (the same text as the [`spf_runtime`] module).
pub const RUST_RUNTIME: &str = include_str!("spf_runtime.rs");

/// The identifiers the runtimes define; generated code never gives them to
/// anything else.
pub(crate) const RESERVED: &[&str] = &[
    "spf_runtime",
    "spf_perm",
    "spf_oset",
    "spf_scatter",
    "spf_die",
    "spf_alloc",
    "spf_grow",
    "spf_copy",
    "spf_key_cmp",
    "SPF_RUNTIME_H",
    "SPF_PREFETCH",
    "SPF_LEX",
    "SPF_COUNTING",
    "SPF_MORTON",
    "SPF_SCATTER_OPEN",
    "SPF_SCATTER_SORTED",
    "SPF_SCATTER_SLOTTED",
];

/// Whether generated code must not use `name` for a variable (it is a
/// runtime identifier, or starts like the runtime's C functions).
pub(crate) fn is_reserved(name: &str) -> bool {
    RESERVED.contains(&name)
        || name.starts_with("spf_perm_")
        || name.starts_with("spf_oset_")
        || name.starts_with("spf_scatter_")
}

// ---------------------------------------------------------------------------
// Declarations

/// How a [`Permutation`](ObjectKind::Permutation) orders its keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// `lex`: lexicographically, by a stable comparison sort.
    Lex,
    /// `counting(E1, ..., EK)`: lexicographically, each component `d` in
    /// `0..Ed` (affine expressions over the symbols); sorted by LSD counting
    /// sort, one stable pass per component, `O(n + ΣEi)`.
    Counting(Vec<Expr>),
    /// `morton`: by the Morton code `interleave(k1, ..., kK)` of non-negative
    /// components (bit 0 of `k1` lowest, then bit 0 of `k2`, ...).
    Morton,
}

impl Order {
    /// The order's name as written (`lex`, `counting`, `morton`).
    pub fn name(&self) -> &'static str {
        match self {
            Order::Lex => "lex",
            Order::Counting(_) => "counting",
            Order::Morton => "morton",
        }
    }
}

/// The kind of a runtime object and its constructor arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    /// `Permutation(K, ORDER)`.
    Permutation {
        /// The number of key components `K` (at least 1).
        arity: usize,
        /// How many leading components the order compares, `J` in `1..=K`
        /// (the number of `counting` extents; `lex(J)`, `morton(J)`; `K` for
        /// plain `lex` and `morton`). The other `K - J` components are a
        /// payload the sort carries along but does not compare.
        compared: usize,
        /// How the keys are ordered.
        order: Order,
    },
    /// `OrderedSet(LO, HI)` (`bounds`: `index` through a dense table over
    /// `LO..=HI`) or `OrderedSet()` (`index` by binary search).
    OrderedSet {
        /// `LO` and `HI`, affine expressions over the symbols.
        bounds: Option<(Expr, Expr)>,
    },
    /// `Scatter(E)`: the streaming counting-sort scatter over keys `0..E`;
    /// `Scatter(E1, E2, ...)` over keys `0..E1 * E2 * ...`, the row-major
    /// linear indices of a tuple of keys (a group of several positions;
    /// the calls take the linear index).
    Scatter {
        /// `E1, E2, ...`, affine expressions over the symbols; at least one.
        extents: Vec<Expr>,
    },
}

impl ObjectKind {
    /// The kind's name (`Permutation`, `OrderedSet`, `Scatter`).
    pub fn name(&self) -> &'static str {
        match self {
            ObjectKind::Permutation { .. } => "Permutation",
            ObjectKind::OrderedSet { .. } => "OrderedSet",
            ObjectKind::Scatter { .. } => "Scatter",
        }
    }
}

/// A runtime object declaration with its arguments understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectSpec {
    /// The object's name in the computation.
    pub name: String,
    /// Its kind and constructor arguments.
    pub kind: ObjectKind,
}

/// Why an object declaration is not one the runtime provides.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// A kind other than `Permutation`, `OrderedSet` and `Scatter`.
    #[error("unknown runtime object kind `{0}`; the runtime provides `Permutation(K, ORDER)`, `OrderedSet(LO, HI)` / `OrderedSet()` and `Scatter(E)`")]
    UnknownKind(String),
    /// The first argument of a permutation is not a positive integer.
    #[error("the key arity of `Permutation(K, ORDER)` must be a positive integer, found `{0}`")]
    Arity(String),
    /// An order other than `lex`, `morton` and `counting(...)`.
    #[error("unknown order `{0}`; expected `lex`, `morton` or `counting(E1, ..., EK)`")]
    UnknownOrder(String),
    /// A wrong number of constructor arguments.
    #[error("{kind} takes {expected}, found {found} argument(s)")]
    ArgumentCount {
        /// The kind.
        kind: &'static str,
        /// What it takes.
        expected: &'static str,
        /// The number given.
        found: usize,
    },
    /// A number of compared components (`counting` extents, `lex(J)`,
    /// `morton(J)`) outside `1..=K`.
    #[error("an order compares 1 to {arity} key component(s) (one `counting` extent each), found {found}")]
    Extents {
        /// The key arity.
        arity: usize,
        /// The number of extents given.
        found: usize,
    },
    /// An extent or bound that is not an affine expression over symbols.
    #[error("`{text}` is not an affine expression over the symbols: {reason}")]
    Expression {
        /// The argument.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An extent or bound that uses a name that is not a symbol.
    #[error("`{0}` is not a symbol of the computation")]
    UnknownSymbol(String),
}

impl ObjectSpec {
    /// Reads a declaration: `Permutation(K, lex)`, `Permutation(K, morton)`,
    /// `Permutation(K, counting(E1, ..., EK))` (one argument, as synthesis
    /// builds it) or `Permutation(K, counting, E1, ..., EK)` (the flat form
    /// the `.comp` grammar accepts today), `OrderedSet(LO, HI)`,
    /// `OrderedSet()`, `Scatter(E)`. Extents and bounds are affine expressions over
    /// `symbols` (`N`, `-3`, `1 - NR`, `2N + 1`).
    ///
    /// # Errors
    ///
    /// A [`SpecError`] saying what is wrong.
    pub fn parse(obj: &RuntimeObject, symbols: &[String]) -> Result<ObjectSpec, SpecError> {
        let affine = |text: &str| parse_affine(text, symbols);
        let args: Vec<&str> = obj.args.iter().map(|a| a.trim()).collect();
        let kind = match obj.kind.as_str() {
            "Permutation" => {
                let Some((first, rest)) = args.split_first() else {
                    return Err(SpecError::ArgumentCount {
                        kind: "Permutation",
                        expected: "(K, ORDER)",
                        found: 0,
                    });
                };
                let arity = first
                    .parse::<usize>()
                    .ok()
                    .filter(|&k| k >= 1)
                    .ok_or_else(|| SpecError::Arity(first.to_string()))?;
                let count = |text: &str| {
                    text.trim()
                        .parse::<usize>()
                        .map_err(|_| SpecError::Expression {
                            text: text.to_string(),
                            reason: "the number of compared components must be an integer".into(),
                        })
                };
                let (order, compared) = match rest {
                    ["lex"] => (Order::Lex, arity),
                    ["morton"] => (Order::Morton, arity),
                    ["lex", j] => (Order::Lex, count(j)?),
                    ["morton", j] => (Order::Morton, count(j)?),
                    ["counting", extents @ ..] => (
                        Order::Counting(
                            extents
                                .iter()
                                .map(|e| affine(e))
                                .collect::<Result<_, _>>()?,
                        ),
                        extents.len(),
                    ),
                    [one] => match (nested_counting(one), nested_order(one)) {
                        (Some(extents), _) => (
                            Order::Counting(
                                extents
                                    .iter()
                                    .map(|e| affine(e))
                                    .collect::<Result<_, _>>()?,
                            ),
                            extents.len(),
                        ),
                        (None, Some((order, j))) => (order, count(j)?),
                        _ => return Err(SpecError::UnknownOrder(one.to_string())),
                    },
                    _ => {
                        return Err(SpecError::ArgumentCount {
                            kind: "Permutation",
                            expected: "(K, ORDER)",
                            found: args.len(),
                        })
                    }
                };
                if compared == 0 || compared > arity {
                    return Err(SpecError::Extents {
                        arity,
                        found: compared,
                    });
                }
                ObjectKind::Permutation {
                    arity,
                    compared,
                    order,
                }
            }
            "OrderedSet" => match args.as_slice() {
                [] => ObjectKind::OrderedSet { bounds: None },
                [lo, hi] => ObjectKind::OrderedSet {
                    bounds: Some((affine(lo)?, affine(hi)?)),
                },
                _ => {
                    return Err(SpecError::ArgumentCount {
                        kind: "OrderedSet",
                        expected: "(LO, HI) or ()",
                        found: args.len(),
                    })
                }
            },
            "Scatter" => {
                if args.is_empty() {
                    return Err(SpecError::ArgumentCount {
                        kind: "Scatter",
                        expected: "(E) or (E1, E2, ...)",
                        found: 0,
                    });
                }
                ObjectKind::Scatter {
                    extents: args.iter().map(|a| affine(a)).collect::<Result<_, _>>()?,
                }
            }
            other => return Err(SpecError::UnknownKind(other.to_string())),
        };
        Ok(ObjectSpec {
            name: obj.name.clone(),
            kind,
        })
    }

    /// The expressions the object is built from (counting extents, set
    /// bounds, the scatter's extent), in order.
    pub fn init_exprs(&self) -> Vec<&Expr> {
        match &self.kind {
            ObjectKind::Permutation {
                order: Order::Counting(extents),
                ..
            } => extents.iter().collect(),
            ObjectKind::OrderedSet {
                bounds: Some((lo, hi)),
            } => vec![lo, hi],
            ObjectKind::Scatter { extents } => extents.iter().collect(),
            _ => Vec::new(),
        }
    }
}

/// `lex(J)` or `morton(J)` as one argument: the order and `J`'s text.
fn nested_order(text: &str) -> Option<(Order, &str)> {
    let (order, rest) = if let Some(rest) = text.strip_prefix("lex") {
        (Order::Lex, rest)
    } else {
        (Order::Morton, text.strip_prefix("morton")?)
    };
    let inner = rest.trim_start().strip_prefix('(')?.strip_suffix(')')?;
    Some((order, inner))
}

/// `counting(E1, ..., EK)` as one argument: the extents' texts.
fn nested_counting(text: &str) -> Option<Vec<&str>> {
    let inner = text
        .strip_prefix("counting")?
        .trim_start()
        .strip_prefix('(')?
        .strip_suffix(')')?;
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (at, c) in inner.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(inner[start..at].trim());
                start = at + 1;
            }
            _ => {}
        }
    }
    let last = inner[start..].trim();
    if !(parts.is_empty() && last.is_empty()) {
        parts.push(last);
    }
    Some(parts)
}

/// Parses an expression over `symbols` with the index-expression grammar:
/// integers, symbols, `+`, `-`, products with a constant factor (`2 * N`,
/// `2N`), parentheses and `floor(e / m)`; no index arrays.
pub fn parse_affine(text: &str, symbols: &[String]) -> Result<Expr, SpecError> {
    let fail = |reason: String| SpecError::Expression {
        text: text.to_string(),
        reason,
    };
    let ast = iegen::syntax::parse_index_expr(text).map_err(|e| fail(e.to_string()))?;
    let e = iegen::lower::lower_expr(text, &ast, &|_| None).map_err(|e| fail(e.to_string()))?;
    let mut calls = false;
    e.for_each_call(&mut |_, _| calls = true);
    if calls {
        return Err(fail("an index array cannot appear here".into()));
    }
    let mut unknown = None;
    e.for_each_sym(&mut |s| {
        if unknown.is_none() && !symbols.iter().any(|x| x == s) {
            unknown = Some(s.to_string());
        }
    });
    match unknown {
        Some(s) => Err(SpecError::UnknownSymbol(s)),
        None => Ok(e),
    }
}

// ---------------------------------------------------------------------------
// Calls

/// A method of a runtime object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// `P.insert(k1, ..., kK)`, `S.insert(v)`: adds an entry or a value.
    Insert,
    /// `P.sort()`, `S.sort()`: orders and freezes (a second call does nothing).
    Sort,
    /// `P.reserve(n)`: room for `n` entries in all, a capacity hint with no
    /// effect on any result (it saves regrowing the key store while the
    /// entries are inserted).
    Reserve,
    /// `P.map(e)`: the sorted position of entry `e`.
    Map,
    /// `P.entry(p)`: the entry at sorted position `p`.
    Entry,
    /// `P.key(d, p)`: component `d` of the key at sorted position `p`.
    Key,
    /// `P.size()`, `S.size()`: the number of entries or values.
    Size,
    /// `P.count(d, v)`: the number of entries whose component `d` is `v`.
    Count,
    /// `P.start(v)`: the number of entries whose first component is below
    /// `v`; `B.start(v)`: the number of entries whose key is below `v`.
    Start,
    /// `S.value(i)`: the `i`-th smallest value.
    Value,
    /// `S.index(v)`: the position of `v`, or -1.
    Index,
    /// `B.place(v)`: the next free position of key `v` (a value that changes
    /// the object).
    Place,
    /// `B.place_inserted(v)`: `place(v)` for an entry inserted with key `v`,
    /// so that no key is placed more often than it was inserted — a fact
    /// the caller states (synthesis places the entries it inserted, under
    /// the same key): the compiled runtimes trust it and leave out the
    /// over-placement check, the interpreter checks it as for `place`.
    PlaceInserted,
    /// `B.slot(v)`: how many slots key `v` has been given before: 0 the
    /// first time, then 1, 2, ... (a value that changes the object, like
    /// `place`; an entry's rank among its key's entries without prefix sums).
    Slot,
    /// `B.slot_inserted(v)`: `slot(v)` for an entry inserted with key `v`,
    /// so that no key is given more slots than it was inserted — stated by
    /// the caller as for `place_inserted`: the compiled runtimes trust it
    /// and leave out the check, the interpreter checks it as for `slot`.
    SlotInserted,
    /// `P.rank(p)`: after sort, the number of distinct compared keys before
    /// the key at position `p` (entries with equal keys share a rank).
    Rank,
    /// `P.ranks()`: after sort, the number of distinct compared keys.
    Ranks,
    /// `P.prefix_rank(c, p)`: after sort, the number of distinct values of
    /// the first `c` key components before position `p`'s (a nested
    /// level's position: CSF's fibers `(i, j)` among entries sorted by
    /// `(i, j, k)`).
    PrefixRank,
    /// `P.prefix_ranks(c)`: after sort, the number of distinct values of the
    /// first `c` key components.
    PrefixRanks,
}

impl Method {
    /// The method's name as written in computations.
    pub fn name(self) -> &'static str {
        match self {
            Method::Insert => "insert",
            Method::Sort => "sort",
            Method::Reserve => "reserve",
            Method::Map => "map",
            Method::Entry => "entry",
            Method::Key => "key",
            Method::Size => "size",
            Method::Count => "count",
            Method::Start => "start",
            Method::Value => "value",
            Method::Index => "index",
            Method::Rank => "rank",
            Method::Ranks => "ranks",
            Method::PrefixRank => "prefix_rank",
            Method::PrefixRanks => "prefix_ranks",
            Method::Place => "place",
            Method::PlaceInserted => "place_inserted",
            Method::Slot => "slot",
            Method::SlotInserted => "slot_inserted",
        }
    }

    /// Whether the method returns a value (is called in expressions) rather
    /// than changing the object (called as a statement body).
    pub fn returns_value(self) -> bool {
        !matches!(self, Method::Insert | Method::Sort | Method::Reserve)
    }

    /// Whether the method changes its object: `insert`, `sort`, `reserve`
    /// and the values `place`, `place_inserted`, `slot` and
    /// `slot_inserted`.
    pub fn changes_object(self) -> bool {
        matches!(self, Method::Insert | Method::Sort | Method::Reserve) || self.hands_out()
    }

    /// Whether each evaluation hands out something new (`place`,
    /// `place_inserted`, `slot`, `slot_inserted`): a value that may only be
    /// the whole value of an assignment, evaluated exactly once per
    /// statement instance.
    pub fn hands_out(self) -> bool {
        self.places() || self.slots()
    }

    /// Whether the method hands out a key's next slot (`slot`,
    /// `slot_inserted`).
    pub fn slots(self) -> bool {
        matches!(self, Method::Slot | Method::SlotInserted)
    }

    /// Whether the method hands out a scatter's next free position
    /// (`place`, `place_inserted`).
    pub fn places(self) -> bool {
        matches!(self, Method::Place | Method::PlaceInserted)
    }
}

/// Where a call of a runtime object stands in a statement body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallSite {
    /// The whole body, or a part of a `{ ...; ... }` sequence or of an `if`'s
    /// branch: `P.insert(i)`.
    Statement,
    /// Inside an expression: a right-hand side, a condition, an argument.
    Value,
    /// The whole value of an assignment `T = OBJ.m(...)` (`=`, not `+=`, ...):
    /// evaluated exactly once per statement instance, the only place where
    /// `place` is accepted. Otherwise like [`CallSite::Value`].
    Assigned,
}

impl CallSite {
    /// Whether the call is used as a value.
    pub fn is_value(self) -> bool {
        self != CallSite::Statement
    }
}

/// Why a call of a runtime object is not valid.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// The object is not declared.
    #[error("`{object}` is not a runtime object of the computation")]
    UnknownObject {
        /// The name.
        object: String,
    },
    /// The object's kind has no such method.
    #[error("`{object}` is a {kind}, which has no method `{method}` (it has {known})")]
    UnknownMethod {
        /// The object.
        object: String,
        /// Its kind.
        kind: &'static str,
        /// The method called.
        method: String,
        /// The methods it has.
        known: &'static str,
    },
    /// A wrong number of arguments.
    #[error("`{call}` takes {expected} argument(s) but is given {found}")]
    Arity {
        /// `P.insert`.
        call: String,
        /// The number of arguments it takes.
        expected: usize,
        /// The number given.
        found: usize,
    },
    /// `insert` or `sort` used as a value.
    #[error("`{call}` changes its object and returns no value; call it as a statement body")]
    NotAValue {
        /// `P.sort`.
        call: String,
    },
    /// A value method called as a statement body (its result would be lost).
    #[error("`{call}` returns a value; use it in an expression")]
    NotAStatement {
        /// `P.size`.
        call: String,
    },
    /// `place` anywhere but as the whole value of an assignment.
    #[error("`{call}` hands out a new value each time it is evaluated; it must be the whole value of an assignment (`k = {call}(v)`)")]
    PlaceNotAssigned {
        /// `B.place`.
        call: String,
    },
    /// A method the object's order does not provide.
    #[error("`{call}` is not available for a Permutation ordered by `{order}` ({why})")]
    Order {
        /// `P.count`.
        call: String,
        /// The order.
        order: &'static str,
        /// Which orders provide it.
        why: &'static str,
    },
    /// A real argument (every argument is an integer).
    #[error("argument {position} of `{call}` is real; the runtime takes integers")]
    RealArgument {
        /// `P.insert`.
        call: String,
        /// 1-based.
        position: usize,
    },
    /// A constant prefix length outside `1..=K`.
    #[error("`{call}`: a prefix of {length} components, but the key has {arity} component(s)")]
    Prefix {
        /// `P.prefix_rank`.
        call: String,
        /// The length given.
        length: i64,
        /// The key arity.
        arity: usize,
    },
    /// A constant key component outside `0..K`.
    #[error("`{call}`: component {component} is out of range, the key has {arity} component(s)")]
    Component {
        /// `P.key`.
        call: String,
        /// The component given.
        component: i64,
        /// The key arity.
        arity: usize,
    },
}

const PERMUTATION_METHODS: &str =
    "insert, sort, map, entry, key, size, count, start, rank, ranks, prefix_rank, prefix_ranks";
const SET_METHODS: &str = "insert, sort, size, value, index";
const SCATTER_METHODS: &str =
    "insert, sort, size, start, place, place_inserted, slot, slot_inserted, count";

/// Checks the call `object.method(args)` on the object `spec` (`as_value`:
/// the call is in an expression rather than a statement body) and returns
/// the method: [`check_call_at`] with [`CallSite::Value`] or
/// [`CallSite::Statement`] (so `place` is rejected).
///
/// # Errors
///
/// As [`check_call_at`].
pub fn check_call(
    spec: &ObjectSpec,
    method: &str,
    args: &[ValueExpr],
    as_value: bool,
) -> Result<Method, CallError> {
    let site = if as_value {
        CallSite::Value
    } else {
        CallSite::Statement
    };
    check_call_at(spec, method, args, site)
}

/// Checks the call `object.method(args)` on the object `spec`, standing at
/// `site` in a statement body, and returns the method. Argument types are
/// the backends' to check ([`CallError::RealArgument`]).
///
/// # Errors
///
/// A [`CallError`]: unknown method, wrong number of arguments, a value method
/// as a statement or the reverse, `count` on an order other than `counting`,
/// `start` on `morton`, a constant component outside `0..K`, `place`
/// elsewhere than as the whole value of an assignment.
pub fn check_call_at(
    spec: &ObjectSpec,
    method: &str,
    args: &[ValueExpr],
    site: CallSite,
) -> Result<Method, CallError> {
    let as_value = site.is_value();
    let call = format!("{}.{method}", spec.name);
    let (m, expected) = match (&spec.kind, method) {
        (ObjectKind::Permutation { arity, .. }, "insert") => (Method::Insert, *arity),
        (ObjectKind::Permutation { .. }, "sort") => (Method::Sort, 0),
        (ObjectKind::Permutation { .. }, "reserve") => (Method::Reserve, 1),
        (ObjectKind::Permutation { .. }, "map") => (Method::Map, 1),
        (ObjectKind::Permutation { .. }, "entry") => (Method::Entry, 1),
        (ObjectKind::Permutation { .. }, "key") => (Method::Key, 2),
        (ObjectKind::Permutation { .. }, "size") => (Method::Size, 0),
        (ObjectKind::Permutation { .. }, "count") => (Method::Count, 2),
        (ObjectKind::Permutation { .. }, "start") => (Method::Start, 1),
        (ObjectKind::Permutation { .. }, "rank") => (Method::Rank, 1),
        (ObjectKind::Permutation { .. }, "ranks") => (Method::Ranks, 0),
        (ObjectKind::Permutation { .. }, "prefix_rank") => (Method::PrefixRank, 2),
        (ObjectKind::Permutation { .. }, "prefix_ranks") => (Method::PrefixRanks, 1),
        (ObjectKind::OrderedSet { .. }, "insert") => (Method::Insert, 1),
        (ObjectKind::OrderedSet { .. }, "sort") => (Method::Sort, 0),
        (ObjectKind::OrderedSet { .. }, "size") => (Method::Size, 0),
        (ObjectKind::OrderedSet { .. }, "value") => (Method::Value, 1),
        (ObjectKind::OrderedSet { .. }, "index") => (Method::Index, 1),
        (ObjectKind::Scatter { .. }, "insert") => (Method::Insert, 1),
        (ObjectKind::Scatter { .. }, "sort") => (Method::Sort, 0),
        (ObjectKind::Scatter { .. }, "size") => (Method::Size, 0),
        (ObjectKind::Scatter { .. }, "start") => (Method::Start, 1),
        (ObjectKind::Scatter { .. }, "place") => (Method::Place, 1),
        (ObjectKind::Scatter { .. }, "place_inserted") => (Method::PlaceInserted, 1),
        (ObjectKind::Scatter { .. }, "slot") => (Method::Slot, 1),
        (ObjectKind::Scatter { .. }, "slot_inserted") => (Method::SlotInserted, 1),
        (ObjectKind::Scatter { .. }, "count") => (Method::Count, 1),
        (kind, _) => {
            return Err(CallError::UnknownMethod {
                object: spec.name.clone(),
                kind: kind.name(),
                method: method.to_string(),
                known: match kind {
                    ObjectKind::Permutation { .. } => PERMUTATION_METHODS,
                    ObjectKind::OrderedSet { .. } => SET_METHODS,
                    ObjectKind::Scatter { .. } => SCATTER_METHODS,
                },
            })
        }
    };
    if args.len() != expected {
        return Err(CallError::Arity {
            call,
            expected,
            found: args.len(),
        });
    }
    match (m.returns_value(), as_value) {
        (false, true) => return Err(CallError::NotAValue { call }),
        (true, false) => return Err(CallError::NotAStatement { call }),
        _ => {}
    }
    if m.hands_out() && site != CallSite::Assigned {
        return Err(CallError::PlaceNotAssigned { call });
    }
    if let ObjectKind::Permutation {
        arity,
        compared,
        order,
    } = &spec.kind
    {
        match (m, order) {
            (Method::Count, Order::Lex | Order::Morton) => {
                return Err(CallError::Order {
                    call,
                    order: order.name(),
                    why: "`count` needs a `counting` order",
                })
            }
            (Method::Start, Order::Morton) => {
                return Err(CallError::Order {
                    call,
                    order: order.name(),
                    why: "`start` needs a `counting` or `lex` order",
                })
            }
            _ => {}
        }
        if matches!(m, Method::PrefixRank | Method::PrefixRanks) {
            if let Some(c) = constant(&args[0]) {
                if c < 1 || c > *arity as i64 {
                    return Err(CallError::Prefix {
                        call,
                        length: c,
                        arity: *arity,
                    });
                }
            }
        }
        if matches!(m, Method::Key | Method::Count) {
            // `key` reads any component, `count` only the compared ones.
            let limit = if m == Method::Key { *arity } else { *compared };
            if let Some(d) = constant(&args[0]) {
                if d < 0 || d >= limit as i64 {
                    return Err(CallError::Component {
                        call,
                        component: d,
                        arity: limit,
                    });
                }
            }
        }
    }
    Ok(m)
}

/// The value of a constant argument.
fn constant(v: &ValueExpr) -> Option<i64> {
    match v {
        ValueExpr::Int(k) => Some(*k),
        ValueExpr::Index(e) => e.as_constant(),
        _ => None,
    }
}

impl fmt::Display for ObjectSpec {
    /// `P : Permutation(2, counting(N, M))`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |es: &[&Expr]| {
            es.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match &self.kind {
            ObjectKind::Permutation {
                arity,
                compared,
                order,
            } => match order {
                Order::Counting(es) => write!(
                    f,
                    "{} : Permutation({arity}, counting({}))",
                    self.name,
                    list(&es.iter().collect::<Vec<_>>())
                ),
                o if compared == arity => {
                    write!(f, "{} : Permutation({arity}, {})", self.name, o.name())
                }
                o => write!(
                    f,
                    "{} : Permutation({arity}, {}({compared}))",
                    self.name,
                    o.name()
                ),
            },
            ObjectKind::OrderedSet { bounds: None } => write!(f, "{} : OrderedSet()", self.name),
            ObjectKind::OrderedSet {
                bounds: Some((lo, hi)),
            } => write!(f, "{} : OrderedSet({})", self.name, list(&[lo, hi])),
            ObjectKind::Scatter { extents } => {
                let refs: Vec<&Expr> = extents.iter().collect();
                write!(f, "{} : Scatter({})", self.name, list(&refs))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(kind: &str, args: &[&str]) -> RuntimeObject {
        RuntimeObject {
            name: "P".into(),
            kind: kind.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
        }
    }

    fn syms() -> Vec<String> {
        vec!["N".into(), "M".into(), "NR".into()]
    }

    #[test]
    fn permutation_declarations_in_both_forms() {
        let nested = ObjectSpec::parse(&obj("Permutation", &["2", "counting(N, M + 1)"]), &syms());
        let flat = ObjectSpec::parse(
            &obj("Permutation", &["2", "counting", "N", "M + 1"]),
            &syms(),
        );
        assert_eq!(nested, flat);
        let spec = nested.unwrap();
        assert_eq!(
            spec.kind,
            ObjectKind::Permutation {
                arity: 2,
                compared: 2,
                order: Order::Counting(vec![
                    Expr::sym("N"),
                    Expr::sym("M").plus(&Expr::constant(1))
                ])
            }
        );
        assert_eq!(spec.to_string(), "P : Permutation(2, counting(N, M + 1))");
        for (order, want) in [("lex", Order::Lex), ("morton", Order::Morton)] {
            let s = ObjectSpec::parse(&obj("Permutation", &["3", order]), &syms()).unwrap();
            assert_eq!(
                s.kind,
                ObjectKind::Permutation {
                    arity: 3,
                    compared: 3,
                    order: want
                }
            );
        }
    }

    #[test]
    fn permutations_with_payloads() {
        let parse = |args: &[&str]| ObjectSpec::parse(&obj("Permutation", args), &syms()).unwrap();
        let p = parse(&["3", "counting(N, M)"]);
        assert_eq!(parse(&["3", "counting", "N", "M"]), p);
        assert!(matches!(
            p.kind,
            ObjectKind::Permutation {
                arity: 3,
                compared: 2,
                ..
            }
        ));
        for (args, order, j) in [
            (&["2", "lex(1)"][..], Order::Lex, 1),
            (&["2", "lex", "1"][..], Order::Lex, 1),
            (&["4", "morton(2)"][..], Order::Morton, 2),
            (&["4", "morton", "4"][..], Order::Morton, 4),
        ] {
            let s = parse(args);
            let ObjectKind::Permutation {
                compared, order: o, ..
            } = &s.kind
            else {
                panic!()
            };
            assert_eq!((o, *compared), (&order, j));
        }
        assert_eq!(
            parse(&["2", "lex(1)"]).to_string(),
            "P : Permutation(2, lex(1))"
        );
        assert_eq!(
            parse(&["2", "lex(2)"]).to_string(),
            "P : Permutation(2, lex)"
        );
        let int = |k| ValueExpr::Int(k);
        assert_eq!(
            check_call(&p, "key", &[int(2), int(0)], true),
            Ok(Method::Key)
        );
        assert!(matches!(
            check_call(&p, "count", &[int(2), int(0)], true),
            Err(CallError::Component {
                component: 2,
                arity: 2,
                ..
            })
        ));
    }

    #[test]
    fn bad_declarations_say_why() {
        let err =
            |kind: &str, args: &[&str]| ObjectSpec::parse(&obj(kind, args), &syms()).unwrap_err();
        assert_eq!(err("Heap", &[]), SpecError::UnknownKind("Heap".into()));
        assert_eq!(
            err("Permutation", &["0", "lex"]),
            SpecError::Arity("0".into())
        );
        assert_eq!(
            err("Permutation", &["2", "hilbert"]),
            SpecError::UnknownOrder("hilbert".into())
        );
        assert_eq!(
            err("Permutation", &["2", "counting(N, M, N)"]),
            SpecError::Extents { arity: 2, found: 3 }
        );
        assert_eq!(
            err("Permutation", &["2", "counting()"]),
            SpecError::Extents { arity: 2, found: 0 }
        );
        assert_eq!(
            err("Permutation", &["2", "lex(3)"]),
            SpecError::Extents { arity: 2, found: 3 }
        );
        assert!(matches!(
            err("Permutation", &["2", "morton(N)"]),
            SpecError::Expression { .. }
        ));
        assert_eq!(
            err("Permutation", &["1", "counting", "K"]),
            SpecError::UnknownSymbol("K".into())
        );
        assert!(matches!(
            err("OrderedSet", &["N"]),
            SpecError::ArgumentCount { found: 1, .. }
        ));
        assert!(matches!(
            err("OrderedSet", &["N * M", "0"]),
            SpecError::Expression { .. }
        ));
    }

    #[test]
    fn affine_arguments() {
        let s = syms();
        let p = |t: &str| parse_affine(t, &s).unwrap();
        let n = Expr::sym("N");
        assert_eq!(p("-(NR - 1)"), Expr::constant(1).minus(&Expr::sym("NR")));
        assert_eq!(p("1 - NR"), Expr::constant(1).minus(&Expr::sym("NR")));
        assert_eq!(p("2N + 1"), n.scale(2).plus(&Expr::constant(1)));
        assert_eq!(p("N * 2 - -3"), n.scale(2).plus(&Expr::constant(3)));
        assert_eq!(p("2 (N + 1)"), n.scale(2).plus(&Expr::constant(2)));
        assert_eq!(p("-7"), Expr::constant(-7));
        assert!(parse_affine("N +", &s).is_err());
        assert!(parse_affine("(N", &s).is_err());
        assert!(parse_affine("N / 2", &s).is_err());
    }

    #[test]
    fn calls_are_checked() {
        let perm = ObjectSpec::parse(&obj("Permutation", &["2", "lex"]), &syms()).unwrap();
        let int = |k| ValueExpr::Int(k);
        assert_eq!(
            check_call(&perm, "insert", &[int(0), int(1)], false),
            Ok(Method::Insert)
        );
        assert_eq!(
            check_call(&perm, "key", &[int(1), int(0)], true),
            Ok(Method::Key)
        );
        assert_eq!(
            check_call(&perm, "start", &[int(1)], true),
            Ok(Method::Start)
        );
        assert!(matches!(
            check_call(&perm, "insert", &[int(0)], false),
            Err(CallError::Arity {
                expected: 2,
                found: 1,
                ..
            })
        ));
        assert!(matches!(
            check_call(&perm, "sort", &[], true),
            Err(CallError::NotAValue { .. })
        ));
        assert!(matches!(
            check_call(&perm, "size", &[], false),
            Err(CallError::NotAStatement { .. })
        ));
        assert!(matches!(
            check_call(&perm, "count", &[int(0), int(0)], true),
            Err(CallError::Order { .. })
        ));
        assert!(matches!(
            check_call(&perm, "key", &[int(2), int(0)], true),
            Err(CallError::Component {
                component: 2,
                arity: 2,
                ..
            })
        ));
        assert!(matches!(
            check_call(&perm, "value", &[int(0)], true),
            Err(CallError::UnknownMethod { .. })
        ));
        let morton = ObjectSpec::parse(&obj("Permutation", &["2", "morton"]), &syms()).unwrap();
        assert!(matches!(
            check_call(&morton, "start", &[int(0)], true),
            Err(CallError::Order { .. })
        ));
        let set = ObjectSpec::parse(&obj("OrderedSet", &[]), &syms()).unwrap();
        assert_eq!(
            check_call(&set, "index", &[int(3)], true),
            Ok(Method::Index)
        );
        assert!(matches!(
            check_call(&set, "map", &[int(3)], true),
            Err(CallError::UnknownMethod { .. })
        ));
    }

    #[test]
    fn scatter_declarations_and_calls() {
        let parse = |args: &[&str]| ObjectSpec::parse(&obj("Scatter", args), &syms());
        let b = parse(&["NR + 1"]).unwrap();
        assert_eq!(
            b.kind,
            ObjectKind::Scatter {
                extents: vec![Expr::sym("NR").plus(&Expr::constant(1))]
            }
        );
        assert_eq!(b.to_string(), "P : Scatter(NR + 1)");
        assert_eq!(b.init_exprs().len(), 1);
        assert!(matches!(
            parse(&[]),
            Err(SpecError::ArgumentCount {
                kind: "Scatter",
                found: 0,
                ..
            })
        ));
        let two = parse(&["NR", "NR + 1"]).unwrap();
        assert_eq!(two.to_string(), "P : Scatter(NR, NR + 1)");
        assert_eq!(two.init_exprs().len(), 2);
        assert_eq!(parse(&["K"]), Err(SpecError::UnknownSymbol("K".into())));
        let int = |k| ValueExpr::Int(k);
        let at = |m: &str, args: &[ValueExpr], site| check_call_at(&b, m, args, site);
        assert_eq!(
            at("insert", &[int(0)], CallSite::Statement),
            Ok(Method::Insert)
        );
        assert_eq!(at("sort", &[], CallSite::Statement), Ok(Method::Sort));
        assert_eq!(at("size", &[], CallSite::Value), Ok(Method::Size));
        assert_eq!(at("start", &[int(0)], CallSite::Value), Ok(Method::Start));
        assert_eq!(
            at("start", &[int(0)], CallSite::Assigned),
            Ok(Method::Start)
        );
        assert_eq!(
            at("place", &[int(0)], CallSite::Assigned),
            Ok(Method::Place)
        );
        assert!(matches!(
            at("place", &[int(0)], CallSite::Value),
            Err(CallError::PlaceNotAssigned { .. })
        ));
        assert!(matches!(
            check_call(&b, "place", &[int(0)], true),
            Err(CallError::PlaceNotAssigned { .. })
        ));
        assert!(matches!(
            at("place", &[int(0)], CallSite::Statement),
            Err(CallError::NotAStatement { .. })
        ));
        assert!(matches!(
            at("place", &[], CallSite::Assigned),
            Err(CallError::Arity {
                expected: 1,
                found: 0,
                ..
            })
        ));
        assert!(matches!(
            at("insert", &[int(0), int(1)], CallSite::Statement),
            Err(CallError::Arity { expected: 1, .. })
        ));
        assert!(matches!(
            at("map", &[int(0)], CallSite::Value),
            Err(CallError::UnknownMethod {
                kind: "Scatter",
                ..
            })
        ));
        assert!(Method::Place.returns_value() && Method::Place.changes_object());
        assert_eq!(
            at("place_inserted", &[int(0)], CallSite::Assigned),
            Ok(Method::PlaceInserted)
        );
        assert!(matches!(
            at("place_inserted", &[int(0)], CallSite::Value),
            Err(CallError::PlaceNotAssigned { .. })
        ));
        assert!(Method::PlaceInserted.hands_out() && Method::PlaceInserted.places());
        assert!(Method::Slot.hands_out() && !Method::Slot.places());
        assert!(Method::SlotInserted.hands_out() && Method::SlotInserted.slots());
        assert!(!Method::Start.changes_object());
    }
}
