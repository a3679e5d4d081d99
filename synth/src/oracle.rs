//! The format-independent correctness oracle (DESIGN.md, "The correctness
//! oracle").
//!
//! A descriptor's sparse-to-dense map, evaluated on an instance's concrete
//! arrays, enumerates the points of the sparse iteration space with their
//! dense coordinates; the data relation gives each point's position in the
//! value array. [`entries`] collects the `(coordinate, value)` pairs,
//! ignoring stored zeros. A conversion is correct when the destination's
//! entries equal the source's ([`compare`], exact equality: conversions copy
//! values, they never compute them) and the destination passes
//! [`validate`](crate::instance::validate).
//!
//! # Semantics
//!
//! - The map is enumerated with the instance's symbols as symbolic
//!   constants and its index arrays as UF tables (an
//!   [`iegen::eval::Interpretation`]). A point counts only where every
//!   index-array access of the map is inside that array's declared domain
//!   (the arrays are defined nowhere else); the guards are added to the
//!   map's constraints, which also bounds the enumeration.
//! - Every sparse point must have exactly one dense coordinate (the map is
//!   a function) and exactly one position, inside the value array (whose
//!   extents, row-major, are the descriptor's `data_size`).
//! - Two stored entries at one coordinate are an error when both are
//!   nonzero. A format that declares padding (DIA, ELL, BCSR) stores
//!   explicit zeros whose coordinates may coincide with other entries';
//!   there the error adds that padding slots must hold zeros.
//!
//! # Cost
//!
//! [`iegen::eval`] assigns the variable with the smallest range first,
//! which is quadratic on a COO map with `0 <= i < NR` bounds (it tries every
//! row and column before the entry). The oracle enumerates with its own
//! search instead (`ordered`): the variables that an equality with a unit
//! coefficient defines (`i = ii`, `jj = col(k)`, `k2 = k1 + 1`) are
//! substituted away, and the others are assigned in the order of the tuple,
//! the loop order in which a descriptor writes its sparse iteration space.
//! Enumerating COO, CSR, CSC, DIA, ELL or BCSR then takes a few steps per
//! stored slot. Its result is checked against `iegen::eval` by a property
//! test. On the largest test matrix, dwt_2680 (25,026 entries after
//! symmetric expansion), [`entries`] takes 35–60 ms for CSR and 45–65 ms
//! for COO in a release build (measured by the test
//! `oracle_on_the_real_matrices_is_linear_and_agrees`). The data position is computed directly when the
//! data relation defines it by equalities (`[n, ii, jj] -> [n]`), and by a
//! small enumeration per point otherwise. Enumeration is limited to work
//! proportional to the instance's size.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use iegen::constraint::Normalized;
use iegen::eval::enumerate_conjunction;
use iegen::{Atom, Bounds, Conjunction, ConstraintKind, EvalError, Expr, Interpretation, Var};

use crate::descriptor::Descriptor;
use crate::instance::{self, domain_guards, Instance, InstanceError};
use crate::tensor_io::Coordinates;

/// Why the oracle could not read an instance.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum OracleError {
    /// The instance does not fit the descriptor (names, types, lengths).
    #[error(transparent)]
    Instance(#[from] InstanceError),
    /// Enumeration failed.
    #[error("cannot enumerate {what}: {error}")]
    Eval {
        /// What was being enumerated.
        what: String,
        /// Why.
        error: EvalError,
    },
    /// A sparse point with several dense coordinates.
    #[error("the sparse-to-dense map is not a function: sparse point ({point}) maps to ({first}) and ({second})")]
    NotAFunction {
        /// The sparse point.
        point: String,
        /// One coordinate.
        first: String,
        /// Another.
        second: String,
    },
    /// A sparse point without exactly one position in the value array.
    #[error(
        "sparse point ({point}) has {count} positions in {array} (it needs exactly one){detail}"
    )]
    Position {
        /// The sparse point.
        point: String,
        /// The value array.
        array: String,
        /// How many positions the data relation gives (2 means "several").
        count: usize,
        /// The positions found, if any.
        detail: String,
    },
    /// A position outside the value array.
    #[error("sparse point ({point}) reads {array}({position}), outside its extents {extents}")]
    OutOfBounds {
        /// The sparse point.
        point: String,
        /// The value array.
        array: String,
        /// The position, comma-separated.
        position: String,
        /// The array's extents, e.g. `5` or `4 × 3`.
        extents: String,
    },
    /// Two nonzero stored entries at one coordinate.
    #[error(
        "two nonzero entries at ({coordinate}): {array}({first_pos}) = {first} and \
         {array}({second_pos}) = {second}{}",
        if *.padding { " (padding slots must hold zeros)" } else { "" }
    )]
    Duplicate {
        /// The coordinate.
        coordinate: String,
        /// The value array.
        array: String,
        /// The first entry's position, comma-separated.
        first_pos: String,
        /// Its value.
        first: f64,
        /// The second entry's position, comma-separated.
        second_pos: String,
        /// Its value.
        second: f64,
        /// Whether the format declares padding.
        padding: bool,
    },
}

/// One stored entry: the sparse point, its coordinate, its position (as
/// the data relation gives it, and linearized).
struct Stored {
    sparse: Vec<i64>,
    coord: Vec<i64>,
    position: Vec<i64>,
    linear: usize,
}

fn text(p: &[i64]) -> String {
    p.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The data position of sparse points: by equalities, or by enumeration.
enum DataFn<'a> {
    /// Output `k` is `sign_k * rest_k` (an expression of the inputs); then
    /// every constraint of the conjunction is checked.
    Direct {
        defs: Vec<(Expr, i64)>,
        conj: &'a Conjunction,
    },
    /// Anything else: a small enumeration per sparse point.
    General,
}

fn data_fn(d: &Descriptor) -> DataFn<'_> {
    let n_in = d.data.in_arity();
    let n_out = d.data.out_arity();
    let [conj] = d.data.conjunctions() else {
        return DataFn::General;
    };
    if conj.num_exists() > 0 {
        return DataFn::General;
    }
    let is_out = |v: Var| matches!(v, Var::Tuple(i) if i >= n_in);
    let mut defs = Vec::with_capacity(n_out);
    for k in 0..n_out {
        let out = Var::Tuple(n_in + k);
        let def = conj.constraints().find_map(|c| {
            let a = c.expr().coefficient_of_var(out);
            if c.kind() != ConstraintKind::Eq || a.abs() != 1 {
                return None;
            }
            let mut rest = c.expr().clone();
            rest.add_term(Atom::Var(out), -a);
            let mut other_out = false;
            rest.for_each_var(&mut |v| other_out |= is_out(v));
            // a·out + rest = 0  =>  out = -a·rest (a = ±1)
            (!other_out).then_some((rest, -a))
        });
        match def {
            Some(def) => defs.push(def),
            None => return DataFn::General,
        }
    }
    DataFn::Direct { defs, conj }
}

fn eval_err(what: &str) -> impl FnOnce(EvalError) -> OracleError + '_ {
    move |error| OracleError::Eval {
        what: what.to_string(),
        error,
    }
}

/// The positions the data relation gives the sparse point `s`.
fn positions(
    d: &Descriptor,
    f: &DataFn<'_>,
    interp: &Interpretation,
    s: &[i64],
) -> Result<Vec<Vec<i64>>, OracleError> {
    let what = "the data relation";
    match f {
        DataFn::Direct { defs, conj } => {
            let mut p = Vec::with_capacity(defs.len());
            for (rest, sign) in defs {
                let v = interp
                    .evaluate(rest, &mut |v| match v {
                        Var::Tuple(i) => s.get(i).copied(),
                        Var::Exist(_) => None,
                    })
                    .map_err(eval_err(what))?;
                p.push(v.checked_mul(*sign).ok_or(OracleError::Eval {
                    what: what.into(),
                    error: EvalError::Overflow,
                })?);
            }
            for c in conj.constraints() {
                let x = interp
                    .evaluate(c.expr(), &mut |v| match v {
                        Var::Tuple(i) if i < s.len() => Some(s[i]),
                        Var::Tuple(i) => p.get(i - s.len()).copied(),
                        Var::Exist(_) => None,
                    })
                    .map_err(eval_err(what))?;
                let ok = match c.kind() {
                    ConstraintKind::Eq => x == 0,
                    ConstraintKind::Geq => x >= 0,
                };
                if !ok {
                    return Ok(Vec::new());
                }
            }
            Ok(vec![p])
        }
        DataFn::General => {
            let n_in = s.len();
            let mut found = Vec::new();
            for conj in d.data.conjunctions() {
                let constraints: Vec<Normalized> = conj
                    .constraints()
                    .map(|c| {
                        c.map_expr(|e| {
                            e.substitute(&mut |v| match v {
                                Var::Tuple(i) if i < n_in => Some(Expr::constant(s[i])),
                                Var::Tuple(i) => Some(Expr::var(Var::Tuple(i - n_in))),
                                Var::Exist(_) => None,
                            })
                        })
                    })
                    .collect();
                let out_names = conj.tuple_names()[n_in.min(conj.arity())..].to_vec();
                let Some(c) =
                    Conjunction::from_parts(out_names, conj.exist_names().to_vec(), constraints)
                else {
                    continue;
                };
                let bounds = Bounds {
                    max_points: 2,
                    ..Bounds::unboxed()
                };
                found.extend(enumerate_conjunction(&c, interp, &bounds).map_err(eval_err(what))?);
            }
            found.sort_unstable();
            found.dedup();
            Ok(found)
        }
    }
}

/// The row-major index of `p` in an array of the given extents.
fn linearize(p: &[i64], extents: &[i64]) -> Option<usize> {
    if p.len() != extents.len() {
        return None;
    }
    let mut at: usize = 0;
    for (&x, &e) in p.iter().zip(extents) {
        if x < 0 || x >= e {
            return None;
        }
        at = at
            .checked_mul(usize::try_from(e).ok()?)?
            .checked_add(usize::try_from(x).ok()?)?;
    }
    Some(at)
}

/// Every stored entry, in the order of the sparse iteration space.
fn stored(
    d: &Descriptor,
    interp: &Interpretation,
    extents: &[i64],
    work: u64,
) -> Result<Vec<Stored>, OracleError> {
    let n_sparse = d.sparse_arity();
    let mut guarded = Vec::new();
    for conj in d.map.conjunctions() {
        let exprs: Vec<&Expr> = conj.constraints().map(|c| c.expr()).collect();
        for guard in domain_guards(d, exprs)? {
            let constraints = conj
                .constraints()
                .cloned()
                .map(Normalized::Constraint)
                .chain(guard);
            if let Some(c) = Conjunction::from_parts(
                conj.tuple_names().to_vec(),
                conj.exist_names().to_vec(),
                constraints,
            ) {
                guarded.push(c);
            }
        }
    }
    let mut points = Vec::new();
    let limits = ordered::Limits::from(instance::work_bounds(work));
    for conj in &guarded {
        points.extend(
            ordered::points(conj, interp, limits).map_err(eval_err("the sparse-to-dense map"))?,
        );
    }
    if guarded.len() > 1 {
        points.sort_unstable();
        points.dedup();
    }
    let f = data_fn(d);
    let mut out: Vec<Stored> = Vec::with_capacity(points.len());
    for mut p in points {
        let coord = p.split_off(n_sparse);
        if let Some(last) = out.last() {
            if last.sparse == p {
                return Err(OracleError::NotAFunction {
                    point: text(&p),
                    first: text(&last.coord),
                    second: text(&coord),
                });
            }
        }
        let mut pos = positions(d, &f, interp, &p)?;
        if pos.len() != 1 {
            let detail = if pos.is_empty() {
                String::new()
            } else {
                format!(
                    ": {}",
                    pos.iter()
                        .map(|q| format!("{}({})", d.data_name, text(q)))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            return Err(OracleError::Position {
                point: text(&p),
                array: d.data_name.clone(),
                count: pos.len(),
                detail,
            });
        }
        let position = pos.remove(0);
        let Some(linear) = linearize(&position, extents) else {
            return Err(OracleError::OutOfBounds {
                point: text(&p),
                array: d.data_name.clone(),
                position: text(&position),
                extents: extents
                    .iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join(" × "),
            });
        };
        out.push(Stored {
            sparse: p,
            coord,
            position,
            linear,
        });
    }
    Ok(out)
}

/// The nonzero entries in sparse order, checking for coinciding ones.
fn nonzeros(d: &Descriptor, inst: &Instance) -> Result<Vec<(Vec<i64>, f64)>, OracleError> {
    let c = instance::prepare(d, inst)?;
    let all = stored(d, &c.interp, &c.data_extents, c.work)?;
    let mut seen: HashMap<&[i64], (&[i64], f64)> = HashMap::with_capacity(all.len());
    let mut out = Vec::with_capacity(all.len());
    for s in &all {
        // `stored` checked the position against the array's extents, and
        // `prepare` the array's length against their product.
        let value = c.values[s.linear];
        if value == 0.0 {
            continue;
        }
        if let Some(&(first_pos, first)) = seen.get(&s.coord[..]) {
            return Err(OracleError::Duplicate {
                coordinate: text(&s.coord),
                array: d.data_name.clone(),
                first_pos: text(first_pos),
                first,
                second_pos: text(&s.position),
                second: value,
                padding: d.padding,
            });
        }
        seen.insert(&s.coord, (&s.position, value));
        out.push((s.coord.clone(), value));
    }
    Ok(out)
}

/// The `(dense coordinate, value)` pairs an instance stores, stored zeros
/// ignored (see the module documentation).
pub fn entries(d: &Descriptor, inst: &Instance) -> Result<BTreeMap<Vec<i64>, f64>, OracleError> {
    Ok(nonzeros(d, inst)?.into_iter().collect())
}

/// The instance's nonzero entries as coordinates, in the order of the
/// sparse iteration space (for `spf dump`); the extents are the values of
/// the descriptor's dense symbols.
pub fn coordinates_from(d: &Descriptor, inst: &Instance) -> Result<Coordinates, OracleError> {
    let entries = nonzeros(d, inst)?;
    let dims = d
        .dense
        .iter()
        .map(|s| {
            inst.symbols.get(s).copied().ok_or_else(|| {
                OracleError::Instance(InstanceError::MissingSymbol {
                    name: s.clone(),
                    all: d.symbols.join(", "),
                })
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Coordinates { dims, entries })
}

/// The entries of a list of coordinates: duplicates summed, zeros dropped.
pub fn coordinate_entries(c: &Coordinates) -> BTreeMap<Vec<i64>, f64> {
    let mut out: BTreeMap<Vec<i64>, f64> = BTreeMap::new();
    for (index, value) in &c.entries {
        *out.entry(index.clone()).or_insert(0.0) += value;
    }
    out.retain(|_, v| *v != 0.0);
    out
}

/// The first difference between two sets of entries.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// The first coordinate (in lexicographic order) where they differ.
    pub coordinate: Vec<i64>,
    /// The expected value there, if any.
    pub expected: Option<f64>,
    /// The actual value there, if any.
    pub actual: Option<f64>,
    /// The number of expected entries.
    pub expected_len: usize,
    /// The number of actual entries.
    pub actual_len: usize,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |v: Option<f64>| match v {
            Some(x) => format!("{x:?}"),
            None => "no entry".to_string(),
        };
        write!(
            f,
            "the entries differ first at ({}): expected {}, found {} ({} entries expected, {} found)",
            text(&self.coordinate),
            show(self.expected),
            show(self.actual),
            self.expected_len,
            self.actual_len
        )
    }
}

impl std::error::Error for Mismatch {}

/// Compares two sets of entries exactly (conversions copy values, they
/// never compute them): values are equal when `==` says so, or when both
/// are NaN. The error names the first differing coordinate in
/// lexicographic order.
///
/// ```
/// use std::collections::{BTreeMap, HashMap};
/// use synth::oracle::compare;
/// let a: BTreeMap<Vec<i64>, f64> = [(vec![0, 1], 2.0), (vec![1, 0], 3.0)].into();
/// let mut b = a.clone();
/// assert!(compare(&a, &b).is_ok());
/// b.insert(vec![0, 1], 2.5);
/// let m = compare(&a, &b).unwrap_err();
/// assert_eq!(m.coordinate, vec![0, 1]);
/// ```
pub fn compare(
    expected: &BTreeMap<Vec<i64>, f64>,
    actual: &BTreeMap<Vec<i64>, f64>,
) -> Result<(), Mismatch> {
    let mismatch = |coordinate: &[i64], e: Option<f64>, a: Option<f64>| Mismatch {
        coordinate: coordinate.to_vec(),
        expected: e,
        actual: a,
        expected_len: expected.len(),
        actual_len: actual.len(),
    };
    let same = |x: f64, y: f64| x == y || (x.is_nan() && y.is_nan());
    let mut e = expected.iter().peekable();
    let mut a = actual.iter().peekable();
    loop {
        match (e.peek(), a.peek()) {
            (None, None) => return Ok(()),
            (Some((k, v)), None) => return Err(mismatch(k, Some(**v), None)),
            (None, Some((k, v))) => return Err(mismatch(k, None, Some(**v))),
            (Some((ke, ve)), Some((ka, va))) => match ke.cmp(ka) {
                std::cmp::Ordering::Less => return Err(mismatch(ke, Some(**ve), None)),
                std::cmp::Ordering::Greater => return Err(mismatch(ka, None, Some(**va))),
                std::cmp::Ordering::Equal => {
                    if !same(**ve, **va) {
                        return Err(mismatch(ke, Some(**ve), Some(**va)));
                    }
                    e.next();
                    a.next();
                }
            },
        }
    }
}

// ---------------------------------------------------------------------------
// Enumeration in loop order

/// Enumeration of the points of one conjunction in the order of its tuple.
///
/// [`iegen::eval`] assigns next the variable with the *smallest* finite
/// range. On a sparse-to-dense map that is the wrong choice: in COO's
/// `{[n, ii, jj] -> [i, j] : ii = row(n) && ... && 0 <= i < NR && 0 <= j < NC}`
/// it tries every `i` and every `j` before `n` (NR · NC · NNZ steps for NNZ
/// points), and in CSR with more rows than nonzeros it tries every row for
/// every position. The tuple of a descriptor's sparse iteration space is
/// written in loop order (`[ii, k, jj]`: rows, then positions, then the
/// column they define), and so are the variables of its rules, so this
/// search assigns next the *first* variable in tuple order that has finite
/// bounds from the constraints whose other atoms are known (falling back to
/// later variables, then to existentials, which are searched for one
/// witness per tuple). The values come from the same [`Interpretation`] as
/// `iegen::eval`'s, and the result is the same set of points, sorted.
pub(crate) mod ordered {
    use iegen::{Atom, Conjunction, ConstraintKind, EvalError, Expr, Interpretation, Var};

    /// Limits of a search.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Limits {
        /// At most this many points; one more is `TooManyPoints`.
        pub max_points: usize,
        /// At most this many values tried; one more is `TooManySteps`.
        pub max_steps: u64,
    }

    impl From<iegen::Bounds> for Limits {
        fn from(b: iegen::Bounds) -> Self {
            Limits {
                max_points: b.max_points,
                max_steps: b.max_steps,
            }
        }
    }

    /// A constraint, and for each variable it bounds: the coefficient and
    /// the rest of the expression.
    struct Bound {
        kind: ConstraintKind,
        coefficient: i64,
        rest: Expr,
        /// The slots `rest` mentions.
        needs: Vec<usize>,
    }

    struct Search<'a> {
        interp: &'a Interpretation,
        limits: Limits,
        n_tuple: usize,
        values: Vec<Option<i64>>,
        /// Slots defined by an equality and substituted away, with their
        /// definition over the remaining slots.
        defined: Vec<Option<Expr>>,
        /// Constraints, with the slots each mentions.
        constraints: Vec<(ConstraintKind, Expr, Vec<usize>)>,
        /// For each slot, the constraints that mention it.
        by_slot: Vec<Vec<usize>>,
        bounds: Vec<Vec<Bound>>,
        steps: u64,
        out: Vec<Vec<i64>>,
    }

    fn slot(n_tuple: usize, v: Var) -> usize {
        match v {
            Var::Tuple(i) => i,
            Var::Exist(j) => n_tuple + j,
        }
    }

    fn var(n_tuple: usize, s: usize) -> Var {
        if s < n_tuple {
            Var::Tuple(s)
        } else {
            Var::Exist(s - n_tuple)
        }
    }

    fn slots_of(n_tuple: usize, e: &Expr) -> Vec<usize> {
        let mut s = Vec::new();
        e.for_each_var(&mut |v| s.push(slot(n_tuple, v)));
        s.sort_unstable();
        s.dedup();
        s
    }

    impl Search<'_> {
        fn eval(&self, e: &Expr) -> Result<i64, EvalError> {
            let n = self.n_tuple;
            let values = &self.values;
            self.interp
                .evaluate(e, &mut |v| values.get(slot(n, v)).copied().flatten())
        }

        fn holds(&self, i: usize) -> Result<bool, EvalError> {
            let (kind, e, _) = &self.constraints[i];
            let x = self.eval(e)?;
            Ok(match kind {
                ConstraintKind::Eq => x == 0,
                ConstraintKind::Geq => x >= 0,
            })
        }

        /// Whether every constraint mentioning `s` whose slots are all
        /// assigned holds.
        fn consistent(&self, s: usize) -> Result<bool, EvalError> {
            for &i in &self.by_slot[s] {
                if self.constraints[i]
                    .2
                    .iter()
                    .all(|&t| self.values[t].is_some())
                    && !self.holds(i)?
                {
                    return Ok(false);
                }
            }
            Ok(true)
        }

        /// The range of slot `s` given the assigned slots: `None` when
        /// unbounded, `Some(None)` when empty.
        fn range(&self, s: usize) -> Result<Option<Option<(i64, i64)>>, EvalError> {
            let (mut lo, mut hi): (Option<i128>, Option<i128>) = (None, None);
            for b in &self.bounds[s] {
                if !b.needs.iter().all(|&t| self.values[t].is_some()) {
                    continue;
                }
                let r = i128::from(self.eval(&b.rest)?);
                let a = i128::from(b.coefficient);
                match b.kind {
                    ConstraintKind::Eq => {
                        if r % a != 0 {
                            return Ok(Some(None));
                        }
                        let x = -r / a;
                        lo = Some(lo.map_or(x, |l| l.max(x)));
                        hi = Some(hi.map_or(x, |h| h.min(x)));
                    }
                    ConstraintKind::Geq if a > 0 => {
                        let x = -(r.div_euclid(a));
                        lo = Some(lo.map_or(x, |l| l.max(x)));
                    }
                    ConstraintKind::Geq => {
                        let x = r.div_euclid(-a);
                        hi = Some(hi.map_or(x, |h| h.min(x)));
                    }
                }
            }
            Ok(match (lo, hi) {
                (Some(l), Some(h)) if l > h => Some(None),
                (Some(l), Some(h)) => match (i64::try_from(l), i64::try_from(h)) {
                    (Ok(l), Ok(h)) => Some(Some((l, h))),
                    _ => return Err(EvalError::Overflow),
                },
                _ => None,
            })
        }

        fn free(&self, s: usize) -> bool {
            self.values[s].is_none() && self.defined[s].is_none()
        }

        /// The current tuple, defined slots computed.
        fn tuple(&self) -> Result<Vec<i64>, EvalError> {
            (0..self.n_tuple)
                .map(|s| match (&self.defined[s], self.values[s]) {
                    (Some(def), _) => self.eval(def),
                    (None, Some(x)) => Ok(x),
                    (None, None) => Err(EvalError::UnassignedVariable(format!(
                        "tuple variable at position {s}"
                    ))),
                })
                .collect()
        }

        /// Assigns the remaining slots; in witness mode stops at the first
        /// complete assignment. Returns whether one was found.
        fn search(&mut self, witness: bool) -> Result<bool, EvalError> {
            let tuple_done = (0..self.n_tuple).all(|s| !self.free(s));
            if tuple_done && !witness {
                let found = self.search(true)?;
                if found {
                    let point = self.tuple()?;
                    self.out.push(point);
                    if self.out.len() > self.limits.max_points {
                        return Err(EvalError::TooManyPoints {
                            limit: self.limits.max_points,
                        });
                    }
                }
                return Ok(found);
            }
            // The first free slot (tuple first) with finite bounds.
            let mut choice = None;
            let mut unbounded = None;
            for s in 0..self.values.len() {
                if !self.free(s) {
                    continue;
                }
                match self.range(s)? {
                    Some(None) => return Ok(false),
                    Some(Some((l, h))) => {
                        choice = Some((s, l, h));
                        break;
                    }
                    None => {
                        unbounded.get_or_insert(s);
                    }
                }
            }
            let Some((s, lo, hi)) = choice else {
                return match unbounded {
                    None => Ok(true),
                    Some(s) => Err(EvalError::Unbounded {
                        var: if s < self.n_tuple {
                            format!("tuple variable at position {s}")
                        } else {
                            "an existential variable".to_string()
                        },
                    }),
                };
            };
            let mut any = false;
            let mut x = lo;
            loop {
                self.steps += 1;
                if self.steps > self.limits.max_steps {
                    return Err(EvalError::TooManySteps {
                        limit: self.limits.max_steps,
                    });
                }
                self.values[s] = Some(x);
                if self.consistent(s)? && self.search(witness)? {
                    any = true;
                    if witness {
                        break;
                    }
                }
                if x == hi {
                    break;
                }
                x += 1;
            }
            self.values[s] = None;
            Ok(any)
        }
    }

    /// Substitutes away every slot that an equality defines with a unit
    /// coefficient (outside UF arguments), last slots first, so that the
    /// loop-order variables remain: `k2 = k1 + 1` keeps `k1` and gives its
    /// upper bound through `k2 < rowptr(i + 1)`. A tuple slot is only
    /// defined by an expression without existentials, so that its value is
    /// known once the remaining tuple slots are.
    fn eliminate(
        n_tuple: usize,
        n_slots: usize,
        constraints: &mut Vec<(ConstraintKind, Expr)>,
    ) -> Vec<Option<Expr>> {
        let mut defined: Vec<Option<Expr>> = vec![None; n_slots];
        loop {
            let mut changed = false;
            for s in (0..n_slots).rev() {
                if defined[s].is_some() {
                    continue;
                }
                let v = var(n_tuple, s);
                let found = constraints.iter().position(|(kind, e)| {
                    let a = e.coefficient_of_var(v);
                    if *kind != ConstraintKind::Eq || a.abs() != 1 || e.mentions_in_uf_args(v) {
                        return false;
                    }
                    let mut existential = false;
                    e.for_each_var(&mut |w| existential |= matches!(w, Var::Exist(_)) && w != v);
                    s >= n_tuple || !existential
                });
                let Some(i) = found else { continue };
                let (_, e) = constraints.remove(i);
                let a = e.coefficient_of_var(v);
                let mut rest = e;
                rest.add_term(Atom::Var(v), -a);
                // a·v + rest = 0  =>  v = -a·rest  (a = ±1)
                let def = rest.scale(-a);
                for (_, c) in constraints.iter_mut() {
                    *c = c.substitute_var(v, &def);
                }
                for d in defined.iter_mut().flatten() {
                    *d = d.substitute_var(v, &def);
                }
                defined[s] = Some(def);
                changed = true;
            }
            if !changed {
                return defined;
            }
        }
    }

    /// The points of `conj` (tuples with some witness for the
    /// existentials), sorted.
    pub(crate) fn points(
        conj: &Conjunction,
        interp: &Interpretation,
        limits: Limits,
    ) -> Result<Vec<Vec<i64>>, EvalError> {
        let n_tuple = conj.arity();
        let n_slots = n_tuple + conj.num_exists();
        let mut work: Vec<(ConstraintKind, Expr)> = conj
            .constraints()
            .map(|c| (c.kind(), c.expr().clone()))
            .collect();
        for (_, e) in &work {
            if slots_of(n_tuple, e).iter().any(|&s| s >= n_slots) {
                return Err(EvalError::UnassignedVariable(format!("{e}")));
            }
        }
        let defined = eliminate(n_tuple, n_slots, &mut work);
        let mut constraints = Vec::new();
        let mut by_slot = vec![Vec::new(); n_slots];
        let mut bounds: Vec<Vec<Bound>> = (0..n_slots).map(|_| Vec::new()).collect();
        for (i, (kind, e)) in work.into_iter().enumerate() {
            let slots = slots_of(n_tuple, &e);
            for &s in &slots {
                by_slot[s].push(i);
                let v = var(n_tuple, s);
                let a = e.coefficient_of_var(v);
                if a != 0 && !e.mentions_in_uf_args(v) {
                    let mut rest = e.clone();
                    rest.add_term(Atom::Var(v), -a);
                    let needs = slots_of(n_tuple, &rest);
                    bounds[s].push(Bound {
                        kind,
                        coefficient: a,
                        rest,
                        needs,
                    });
                }
            }
            constraints.push((kind, e, slots));
        }
        let mut search = Search {
            interp,
            limits,
            n_tuple,
            values: vec![None; n_slots],
            defined,
            constraints,
            by_slot,
            bounds,
            steps: 0,
            out: Vec::new(),
        };
        for i in 0..search.constraints.len() {
            if search.constraints[i].2.is_empty() && !search.holds(i)? {
                return Ok(Vec::new());
            }
        }
        search.search(false)?;
        let mut out = search.out;
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::ordered::{points, Limits};
    use iegen::eval::{enumerate_conjunction, Bounds, Interpretation, UfTable};
    use iegen::Set;
    use proptest::prelude::*;

    const SHAPES: &[&str] = &[
        // CSR rows and the column order rule (k2 is defined by k1).
        "{[i, k, j] : 0 <= i < N && f(i) <= k < f(i + 1) && j = g(k)}",
        "{[i, k1, k2] : 0 <= i < N && f(i) <= k1 < 10 && k2 = k1 + 1 && k2 < f(i + 1)}",
        // COO with bounds on the defined variables.
        "{[n, a, b, i, j] : i = a && j = b && a = f(n) && b = g(n) && 0 <= n < N \
         && 0 <= i < M && 0 <= j < M}",
        // Existentials, a divisibility, a defined variable after a free one.
        "{[x, y] : exists e : 0 <= x < N && y = 2e && 0 <= e < M && y <= x + f(x)}",
        "{[x, y] : exists e : 0 <= x < N && x = y + e && 0 <= e <= 2 && 0 <= y}",
        "{[d, j] : 0 <= d < N && j = d + g(d) && 0 <= j < M}",
        "{[a, b] : 0 <= a < N && 0 <= b < N && f(a) = g(b)}",
        "{[a] : 2a = f(1) + 1 && 0 <= a < N}",
        "{[a, b] : M <= 2 && 0 <= a < N && b = a - 1 && b >= 0}",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The ordered search finds exactly the points of `iegen::eval`.
        #[test]
        fn ordered_enumeration_matches_iegen(
            f in proptest::collection::vec(-2i64..8, 10),
            g in proptest::collection::vec(-2i64..8, 10),
            n in 0i64..6,
            m in 0i64..6,
            shape in 0..SHAPES.len(),
        ) {
            let mut sorted_f = f.clone();
            if shape <= 1 {
                sorted_f.sort_unstable(); // a row pointer
            }
            let interp = Interpretation::new()
                .with_symbol("N", n)
                .with_symbol("M", m)
                .with_uf("f", UfTable::from_array(&sorted_f, 0))
                .with_uf("g", UfTable::from_array(&g, 0));
            let s: Set = SHAPES[shape].parse().unwrap();
            for c in s.conjunctions() {
                let expected: Vec<Vec<i64>> =
                    enumerate_conjunction(c, &interp, &Bounds::unboxed()).unwrap().into_iter().collect();

                let limits = Limits { max_points: 10_000, max_steps: 1_000_000 };
                prop_assert_eq!(points(c, &interp, limits).unwrap(), expected);
            }
        }
    }

    #[test]
    fn ordered_enumeration_limits_and_errors() {
        let interp = Interpretation::new().with_symbol("N", 100);
        let s: Set = "{[i, j] : 0 <= i < N && 0 <= j < N}".parse().unwrap();
        let c = &s.conjunctions()[0];
        let few = Limits {
            max_points: 10,
            max_steps: 1_000_000,
        };
        assert!(matches!(
            points(c, &interp, few),
            Err(iegen::EvalError::TooManyPoints { limit: 10 })
        ));
        let short = Limits {
            max_points: 1_000_000,
            max_steps: 50,
        };
        assert!(matches!(
            points(c, &interp, short),
            Err(iegen::EvalError::TooManySteps { limit: 50 })
        ));
        let open: Set = "{[i] : i >= 0}".parse().unwrap();
        assert!(matches!(
            points(&open.conjunctions()[0], &interp, few),
            Err(iegen::EvalError::Unbounded { .. })
        ));
        let adjacent: Set = "{[i, k1, k2] : 0 <= i < N && k1 >= 3i && k2 = k1 + 1 && k2 < 3i + 3}"
            .parse()
            .unwrap();
        let p = points(
            &adjacent.conjunctions()[0],
            &Interpretation::new().with_symbol("N", 2),
            few,
        );
        assert_eq!(
            p.unwrap(),
            vec![vec![0, 0, 1], vec![0, 1, 2], vec![1, 3, 4], vec![1, 4, 5]]
        );
        let unknown: Set = "{[i] : 0 <= i < K}".parse().unwrap();
        assert!(matches!(
            points(&unknown.conjunctions()[0], &interp, few),
            Err(iegen::EvalError::UnknownSymbol(_))
        ));
    }
}
