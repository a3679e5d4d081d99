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
//! test. The data position is computed directly when the data relation
//! defines it by equalities (`[n, ii, jj] -> [n]`), and by a small
//! enumeration per point otherwise. Enumeration is limited to work
//! proportional to the instance's size.
//!
//! Each step is cheap (`fast`): the expressions of the map, the data
//! relation and the rules are compiled once per instance, symbols become
//! constants and index arrays tables borrowed from the instance (no
//! hashing, no copy, no allocation per evaluation), and points are stored
//! flat, or not at all: a map of one conjunction and a rule check take
//! their points from the search as it finds them while they come in order
//! (`ordered::points_in_order`; they are collected and sorted otherwise,
//! which also gives the first error in order). Coinciding entries are found
//! by sorting the coordinates (a radix sort, [`crate::coordinate_sort`];
//! skipped when the sparse order already sorts them, as CSR's and DIA's
//! does), and [`sorted_entries`] gives the entries in that order without an
//! allocation per entry, for [`compare_sorted`]. In a release build,
//! checking a 2.37-million-entry CSR result against its descriptor and the
//! input's entries takes about 0.45 s (`bench --end-to-end`).

use std::collections::BTreeMap;
use std::fmt;
use std::ops::ControlFlow;

use iegen::constraint::Normalized;
use iegen::eval::enumerate_conjunction;
use iegen::{Atom, Bounds, Conjunction, ConstraintKind, EvalError, Expr, Interpretation, Var};

use crate::coordinate_sort::coordinate_order;
use crate::descriptor::Descriptor;
use crate::instance::{self, domain_guards, Concrete, Instance, InstanceError};
use crate::tensor_io::Coordinates;
use fast::{CExpr, Env, Slot};
use ordered::Points;

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
    /// A nonzero value at a position of the value array that no stored
    /// entry addresses: it belongs to no coordinate, and a conversion would
    /// lose it.
    #[error(
        "{array}({position}) = {value} belongs to no stored entry (no point of the map \
         addresses it), so it would be lost; {}",
        if *.padding {
            "slots outside the stored entries must hold zero"
        } else {
            "do the pointer arrays start at 0 and end at the number of stored values?"
        }
    )]
    Unaddressed {
        /// The value array.
        array: String,
        /// The position, comma-separated.
        position: String,
        /// The value there.
        value: f64,
        /// Whether the format declares padding.
        padding: bool,
    },
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

fn text(p: &[i64]) -> String {
    p.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The data position of sparse points: by equalities, or by enumeration.
enum DataFn {
    /// Output `k` is `sign_k * rest_k` (an expression of the inputs); then
    /// every constraint of the conjunction is checked. Compiled over the
    /// slots `[sparse point.., position..]`.
    Direct {
        defs: Vec<(CExpr, i64)>,
        checks: Vec<(ConstraintKind, CExpr)>,
    },
    /// Anything else: a small enumeration per sparse point.
    General,
}

fn data_fn(d: &Descriptor, env: &Env) -> DataFn {
    let n_in = d.data.in_arity();
    let n_out = d.data.out_arity();
    let [conj] = d.data.conjunctions() else {
        return DataFn::General;
    };
    if conj.num_exists() > 0 {
        return DataFn::General;
    }
    let is_out = |v: Var| matches!(v, Var::Tuple(i) if i >= n_in);
    let mut slot = |v: Var| match v {
        Var::Tuple(i) => Slot::At(i),
        Var::Exist(_) => Slot::Unknown(v),
    };
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
            // The definition reads the sparse point only (the position
            // slots are unassigned while it is evaluated).
            Some((rest, sign)) => defs.push((CExpr::compile(&rest, env, &mut slot), sign)),
            None => return DataFn::General,
        }
    }
    // The constraints read the sparse point and then the position:
    // `Tuple(i)` past the sparse point is position `i - n_sparse`.
    let checks = conj
        .constraints()
        .map(|c| (c.kind(), CExpr::compile(c.expr(), env, &mut slot)))
        .collect();
    DataFn::Direct { defs, checks }
}

fn eval_err(what: &str) -> impl FnOnce(EvalError) -> OracleError + '_ {
    move |error| OracleError::Eval {
        what: what.to_string(),
        error,
    }
}

/// The positions the data relation gives the sparse point `s` (by
/// enumeration: [`DataFn::General`]).
fn general_positions(
    d: &Descriptor,
    interp: &Interpretation,
    s: &[i64],
) -> Result<Vec<Vec<i64>>, OracleError> {
    let what = "the data relation";
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
        let Some(c) = Conjunction::from_parts(out_names, conj.exist_names().to_vec(), constraints)
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

/// The position of row-major index `at` in an array of the given extents
/// (the inverse of [`linearize`]).
fn delinearize(mut at: usize, extents: &[i64]) -> Vec<i64> {
    let mut p = vec![0i64; extents.len()];
    for (x, &e) in p.iter_mut().zip(extents).rev() {
        let e = e as usize;
        *x = (at % e) as i64;
        at /= e;
    }
    p
}

/// Every stored entry, in the order of the sparse iteration space: the
/// dense coordinate and the linearized position of each (the points of a
/// map of one conjunction streamed, [`ordered::points_in_order`], when
/// they come in order).
fn stored(
    d: &Descriptor,
    c: &Concrete,
    extents: &[i64],
    work: u64,
) -> Result<(Points, Vec<usize>), OracleError> {
    let env = &c.env;
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
    let mut limits = ordered::Limits::from(instance::work_bounds(work));
    let f = data_fn(d, env);
    let mut placed = Placed::new(d, c, &f, extents);
    if let [conj] = guarded.as_slice() {
        // A stored entry addresses a value: about as many as values.
        placed.reserve(c.values.len());
        // Streamed: no point is kept but its coordinate.
        let mut failed = None;
        let streamed = ordered::points_in_order(conj, env, limits, &mut |p| match placed.add(p) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                failed = Some(e);
                ControlFlow::Break(())
            }
        })
        .map_err(eval_err("the sparse-to-dense map"))?;
        if streamed == ordered::Streamed::Done {
            return Ok((placed.coords, placed.linear));
        }
        // Stopped at an error, or out of order: the collected points give
        // the same entries, in order, and the same first error.
        placed = Placed::new(d, c, &f, extents);
    }
    // A stored entry addresses a value: about as many points as values.
    limits.expected = c.values.len();
    let mut points = Points::new(d.map.in_arity() + d.map.out_arity());
    for (k, conj) in guarded.iter().enumerate() {
        let found =
            ordered::points(conj, env, limits).map_err(eval_err("the sparse-to-dense map"))?;
        if k == 0 {
            points = found;
        } else {
            points.append(&found);
        }
    }
    if guarded.len() > 1 {
        points.sort_dedup();
    }
    placed.reserve(points.len());
    for p in points.iter() {
        placed.add(p)?;
    }
    Ok((placed.coords, placed.linear))
}

/// The stored entries found so far, in order: each point's dense
/// coordinate and the linearized position of its value.
struct Placed<'a> {
    d: &'a Descriptor,
    c: &'a Concrete<'a>,
    f: &'a DataFn,
    extents: &'a [i64],
    n_sparse: usize,
    /// The last point `[sparse.., coordinate..]`, if any.
    last: Vec<i64>,
    slots: Vec<Option<i64>>,
    position: Vec<i64>,
    coords: Points,
    linear: Vec<usize>,
}

impl<'a> Placed<'a> {
    fn new(d: &'a Descriptor, c: &'a Concrete<'a>, f: &'a DataFn, extents: &'a [i64]) -> Self {
        let n_sparse = d.sparse_arity();
        let n_out = match f {
            DataFn::Direct { defs, .. } => defs.len(),
            DataFn::General => 0,
        };
        Placed {
            d,
            c,
            f,
            extents,
            n_sparse,
            last: Vec::new(),
            slots: vec![None; n_sparse + n_out],
            position: Vec::with_capacity(n_out),
            coords: Points::new(d.map.out_arity()),
            linear: Vec::new(),
        }
    }

    /// Makes room for about `n` entries at once, when the allocator gives
    /// it.
    fn reserve(&mut self, n: usize) {
        let _ = self
            .coords
            .data
            .try_reserve_exact(n.saturating_mul(self.coords.arity));
        let _ = self.linear.try_reserve_exact(n);
    }

    /// Places the next point (greater than the last): its position, or
    /// why it has none.
    fn add(&mut self, point: &[i64]) -> Result<(), OracleError> {
        let (d, env) = (self.d, &self.c.env);
        let (p, coord) = point.split_at(self.n_sparse.min(point.len()));
        if !self.last.is_empty() {
            let (last, last_coord) = self.last.split_at(p.len());
            if last == p {
                return Err(OracleError::NotAFunction {
                    point: text(p),
                    first: text(last_coord),
                    second: text(coord),
                });
            }
        }
        self.last.clear();
        self.last.extend_from_slice(point);
        let what = "the data relation";
        let slots = &mut self.slots;
        let found: Option<Vec<Vec<i64>>> = match self.f {
            DataFn::Direct { defs, checks } => {
                for (slot, &x) in slots.iter_mut().zip(p) {
                    *slot = Some(x);
                }
                for slot in &mut slots[p.len()..] {
                    *slot = None;
                }
                self.position.clear();
                for (rest, sign) in defs {
                    let v = rest.eval(env, &slots[..]).map_err(eval_err(what))?;
                    self.position
                        .push(v.checked_mul(*sign).ok_or(OracleError::Eval {
                            what: what.into(),
                            error: EvalError::Overflow,
                        })?);
                }
                for (slot, &x) in slots[p.len()..].iter_mut().zip(&self.position) {
                    *slot = Some(x);
                }
                let mut inside = true;
                for (kind, e) in checks {
                    let x = e.eval(env, &slots[..]).map_err(eval_err(what))?;
                    let ok = match kind {
                        ConstraintKind::Eq => x == 0,
                        ConstraintKind::Geq => x >= 0,
                    };
                    if !ok {
                        inside = false;
                        break;
                    }
                }
                (!inside).then(Vec::new)
            }
            DataFn::General => {
                let mut pos = general_positions(d, self.c.interp(), p)?;
                if pos.len() == 1 {
                    self.position = pos.remove(0);
                    None
                } else {
                    Some(pos)
                }
            }
        };
        if let Some(pos) = found {
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
                point: text(p),
                array: d.data_name.clone(),
                count: pos.len(),
                detail,
            });
        }
        let Some(at) = linearize(&self.position, self.extents) else {
            return Err(OracleError::OutOfBounds {
                point: text(p),
                array: d.data_name.clone(),
                position: text(&self.position),
                extents: self
                    .extents
                    .iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join(" × "),
            });
        };
        self.coords.push(coord);
        self.linear.push(at);
        Ok(())
    }
}

/// The nonzero entries of an instance.
struct Nonzeros {
    /// Their coordinates, in the order of the sparse iteration space.
    coords: Points,
    /// Their values.
    values: Vec<f64>,
    /// Their indices sorted by coordinate.
    order: Vec<usize>,
}

/// The indices of `coords` sorted by coordinate, ties by index (a
/// counting sort, [`coordinate_order`], unless they already are).
fn sort_by_coordinate(coords: &Points) -> Vec<usize> {
    let n = coords.len();
    if (1..n).all(|k| coords.get(k - 1) <= coords.get(k)) {
        return (0..n).collect();
    }
    let arity = coords.arity;
    coordinate_order(n, arity, |e, c| coords.data[e * arity + c])
}

/// The nonzero entries in sparse order, checking for coinciding ones.
fn nonzeros(d: &Descriptor, inst: &Instance) -> Result<Nonzeros, OracleError> {
    nonzeros_of(d, inst, false)
}

/// [`nonzeros`], checking too, with `every_value`, that every nonzero value
/// is addressed ([`check_storage`]).
fn nonzeros_of(
    d: &Descriptor,
    inst: &Instance,
    every_value: bool,
) -> Result<Nonzeros, OracleError> {
    nonzeros_in(d, &instance::prepare(d, inst)?, every_value)
}

/// [`nonzeros_of`] an instance already prepared.
fn nonzeros_in(d: &Descriptor, c: &Concrete, every_value: bool) -> Result<Nonzeros, OracleError> {
    let (mut coords, mut positions) = stored(d, c, &c.data_extents, c.work)?;
    if every_value {
        let mut addressed = vec![false; c.values.len()];
        for &at in &positions {
            addressed[at] = true;
        }
        let lost = addressed
            .iter()
            .zip(c.values.iter())
            .position(|(a, v)| !a && *v != 0.0);
        if let Some(k) = lost {
            return Err(OracleError::Unaddressed {
                array: d.data_name.clone(),
                position: text(&delinearize(k, &c.data_extents)),
                value: c.values[k],
                padding: d.padding,
            });
        }
    }
    // The stored zeros left out, in place.
    let arity = coords.arity;
    let mut values = Vec::with_capacity(positions.len());
    let mut kept = 0;
    for k in 0..positions.len() {
        // `stored` checked the position against the array's extents, and
        // `prepare` the array's length against their product.
        let at = positions[k];
        let value = c.values[at];
        if value == 0.0 {
            continue;
        }
        coords
            .data
            .copy_within(k * arity..(k + 1) * arity, kept * arity);
        positions[kept] = at;
        values.push(value);
        kept += 1;
    }
    coords.data.truncate(kept * arity);
    coords.len = kept;
    positions.truncate(kept);
    let order = sort_by_coordinate(&coords);
    // The first entry (in sparse order) whose coordinate an earlier one
    // has: the second of its group of equal coordinates.
    let mut first_duplicate: Option<(usize, usize)> = None;
    for w in order.windows(2) {
        let (a, b) = (w[0], w[1]);
        if coords.get(a) == coords.get(b) && first_duplicate.is_none_or(|(_, s)| b < s) {
            // `a` is the first of the group when `b` is its second; a later
            // member of the group comes after `b` in sparse order.
            first_duplicate = Some((a, b));
        }
    }
    if let Some((a, b)) = first_duplicate {
        // Walk back to the group's first member (the smallest index).
        let first = order
            .iter()
            .copied()
            .filter(|&k| coords.get(k) == coords.get(b))
            .min()
            .unwrap_or(a);
        return Err(OracleError::Duplicate {
            coordinate: text(coords.get(b)),
            array: d.data_name.clone(),
            first_pos: text(&delinearize(positions[first], &c.data_extents)),
            first: values[first],
            second_pos: text(&delinearize(positions[b], &c.data_extents)),
            second: values[b],
            padding: d.padding,
        });
    }
    Ok(Nonzeros {
        coords,
        values,
        order,
    })
}

/// What the oracle requires of an instance's storage, beyond what the
/// index arrays' declarations say: every nonzero value is addressed by a
/// stored entry, and no two stored nonzero entries share a coordinate.
///
/// A value no point of the sparse-to-dense map addresses belongs to no
/// coordinate, and any conversion drops it (a CSR whose `rowptr` ends
/// before `NNZ`, a DIA value in a slot whose column falls outside the
/// matrix): [`OracleError::Unaddressed`]. Two nonzero entries at one
/// coordinate (an ELL row with one column in two slots) have no one value:
/// [`OracleError::Duplicate`].
pub fn check_storage(d: &Descriptor, inst: &Instance) -> Result<(), OracleError> {
    nonzeros_of(d, inst, true).map(drop)
}

/// Every point an instance stores, with its dense coordinate and value,
/// stored zeros included, in the map's order: what a conversion from the
/// format visits (one whose source declares `padding` skips the zeros).
pub fn stored_points(d: &Descriptor, inst: &Instance) -> Result<Vec<(Vec<i64>, f64)>, OracleError> {
    let c = instance::prepare(d, inst)?;
    let (coords, linear) = stored(d, &c, &c.data_extents, c.work)?;
    Ok(linear
        .iter()
        .enumerate()
        .map(|(k, &at)| (coords.get(k).to_vec(), c.values[at]))
        .collect())
}

/// The `(dense coordinate, value)` pairs an instance stores, stored zeros
/// ignored (see the module documentation).
pub fn entries(d: &Descriptor, inst: &Instance) -> Result<BTreeMap<Vec<i64>, f64>, OracleError> {
    let nz = nonzeros(d, inst)?;
    Ok(nz
        .order
        .iter()
        .map(|&k| (nz.coords.get(k).to_vec(), nz.values[k]))
        .collect())
}

/// Entries sorted by coordinate, flat: what [`entries`] gives, without an
/// allocation per entry.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Entries {
    /// The number of coordinates of each entry.
    pub arity: usize,
    /// The coordinates, entry after entry (`arity` each), increasing.
    pub coords: Vec<i64>,
    /// The values.
    pub values: Vec<f64>,
}

impl Entries {
    /// The number of entries.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The entries, in increasing order of coordinates.
    pub fn iter(&self) -> impl Iterator<Item = (&[i64], f64)> + '_ {
        let n = self.arity;
        self.values
            .iter()
            .enumerate()
            .map(move |(k, &v)| (&self.coords[k * n..(k + 1) * n], v))
    }

    /// The entries of a map (of coordinates of one arity).
    pub fn from_map(map: &BTreeMap<Vec<i64>, f64>) -> Entries {
        let arity = map.keys().next().map_or(0, |k| k.len());
        let mut out = Entries {
            arity,
            coords: Vec::with_capacity(map.len() * arity),
            values: Vec::with_capacity(map.len()),
        };
        for (k, &v) in map {
            out.coords.extend_from_slice(k);
            out.values.push(v);
        }
        out
    }
}

/// [`entries`], flat: the same entries (and the same errors) as a sorted
/// [`Entries`].
pub fn sorted_entries(d: &Descriptor, inst: &Instance) -> Result<Entries, OracleError> {
    Ok(flat_entries(nonzeros(d, inst)?))
}

/// [`sorted_entries`] after [`check_storage`]'s checks, from one
/// enumeration.
pub fn checked_sorted_entries(d: &Descriptor, inst: &Instance) -> Result<Entries, OracleError> {
    Ok(flat_entries(nonzeros_of(d, inst, true)?))
}

/// [`checked_sorted_entries`] of an instance already prepared (and
/// checked by [`crate::instance`]): its arrays are not read again.
pub(crate) fn checked_sorted_entries_in(
    d: &Descriptor,
    c: &Concrete,
) -> Result<Entries, OracleError> {
    Ok(flat_entries(nonzeros_in(d, c, true)?))
}

/// The entries of `nz` in coordinate order (moved when they already are).
fn flat_entries(nz: Nonzeros) -> Entries {
    let arity = nz.coords.arity;
    if nz.order.iter().enumerate().all(|(k, &i)| k == i) {
        return Entries {
            arity,
            coords: nz.coords.data,
            values: nz.values,
        };
    }
    let mut out = Entries {
        arity,
        coords: Vec::with_capacity(nz.order.len() * arity),
        values: Vec::with_capacity(nz.order.len()),
    };
    for &k in &nz.order {
        out.coords.extend_from_slice(nz.coords.get(k));
        out.values.push(nz.values[k]);
    }
    out
}

/// The instance's nonzero entries as coordinates, in the order of the
/// sparse iteration space (for `spf dump`); the extents are the values of
/// the descriptor's dense symbols.
pub fn coordinates_from(d: &Descriptor, inst: &Instance) -> Result<Coordinates, OracleError> {
    let nz = nonzeros(d, inst)?;
    let entries = nz
        .coords
        .iter()
        .zip(&nz.values)
        .map(|(p, &v)| (p.to_vec(), v))
        .collect();
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
    merge(
        expected.iter().map(|(k, v)| (&k[..], *v)),
        expected.len(),
        actual.iter().map(|(k, v)| (&k[..], *v)),
        actual.len(),
    )
}

/// [`compare`] with the actual entries flat ([`sorted_entries`]): the same
/// answer, the same first difference.
///
/// ```
/// use std::collections::BTreeMap;
/// use synth::oracle::{compare_sorted, Entries};
/// let a: BTreeMap<Vec<i64>, f64> = [(vec![0, 1], 2.0), (vec![1, 0], 3.0)].into();
/// let mut b = Entries::from_map(&a);
/// assert!(compare_sorted(&a, &b).is_ok());
/// b.values[0] = 2.5;
/// assert_eq!(compare_sorted(&a, &b).unwrap_err().coordinate, vec![0, 1]);
/// ```
pub fn compare_sorted(
    expected: &BTreeMap<Vec<i64>, f64>,
    actual: &Entries,
) -> Result<(), Mismatch> {
    merge(
        expected.iter().map(|(k, v)| (&k[..], *v)),
        expected.len(),
        actual.iter(),
        actual.len(),
    )
}

/// [`compare`] of two flat entry lists ([`sorted_entries`]): the same
/// answer, the same first difference, in one merge.
pub fn compare_entries(expected: &Entries, actual: &Entries) -> Result<(), Mismatch> {
    merge(expected.iter(), expected.len(), actual.iter(), actual.len())
}

/// The first difference between two increasing sequences of entries.
fn merge<'e, 'a>(
    expected: impl Iterator<Item = (&'e [i64], f64)>,
    expected_len: usize,
    actual: impl Iterator<Item = (&'a [i64], f64)>,
    actual_len: usize,
) -> Result<(), Mismatch> {
    let mismatch = |coordinate: &[i64], e: Option<f64>, a: Option<f64>| Mismatch {
        coordinate: coordinate.to_vec(),
        expected: e,
        actual: a,
        expected_len,
        actual_len,
    };
    let same = |x: f64, y: f64| x == y || (x.is_nan() && y.is_nan());
    let mut e = expected.peekable();
    let mut a = actual.peekable();
    loop {
        match (e.peek(), a.peek()) {
            (None, None) => return Ok(()),
            (Some(&(k, v)), None) => return Err(mismatch(k, Some(v), None)),
            (None, Some(&(k, v))) => return Err(mismatch(k, None, Some(v))),
            (Some(&(ke, ve)), Some(&(ka, va))) => match ke.cmp(ka) {
                std::cmp::Ordering::Less => return Err(mismatch(ke, Some(ve), None)),
                std::cmp::Ordering::Greater => return Err(mismatch(ka, None, Some(va))),
                std::cmp::Ordering::Equal => {
                    if !same(ve, va) {
                        return Err(mismatch(ke, Some(ve), Some(va)));
                    }
                    e.next();
                    a.next();
                }
            },
        }
    }
}

// ---------------------------------------------------------------------------
// Compiled evaluation

/// Concrete evaluation without hashing per evaluation: the symbols and
/// index arrays of an instance ([`Env`]), and expressions compiled against
/// them ([`CExpr`]): symbols resolved to constants, index arrays to dense
/// tables, variables to slots. Evaluation gives exactly what
/// [`Interpretation::evaluate`](iegen::Interpretation::evaluate) gives for
/// the same values, errors included (the first failing leaf, in term order).
pub(crate) mod fast {
    use std::borrow::Cow;
    use std::cell::RefCell;
    use std::collections::HashMap;

    use iegen::{Atom, EvalError, Expr, Interpretation, UfTable, Var};

    /// The values of one index array (borrowed from the instance, not
    /// copied).
    pub(crate) enum Table<'a> {
        /// Row-major values over `extents`; a point is defined when it lies
        /// inside `lo ..= extents - 1` in every dimension and, with a
        /// `mask`, where the mask is set. Elsewhere the value is 0.
        Dense {
            extents: Vec<i64>,
            lo: Vec<i64>,
            values: Cow<'a, [i64]>,
            mask: Option<Vec<bool>>,
        },
        /// Any table (the tests' interpretations).
        #[cfg_attr(not(test), allow(dead_code))]
        Map(UfTable),
    }

    impl Table<'_> {
        fn arity(&self) -> usize {
            match self {
                Table::Dense { extents, .. } => extents.len(),
                Table::Map(t) => t.arity,
            }
        }

        /// The row-major index of `args`, when defined.
        pub(crate) fn index(&self, args: &[i64]) -> Option<usize> {
            match self {
                Table::Dense {
                    extents, lo, mask, ..
                } => {
                    let mut at: usize = 0;
                    for ((&x, &e), &l) in args.iter().zip(extents).zip(lo) {
                        if x < l || x >= e {
                            return None;
                        }
                        at = at * e as usize + x as usize;
                    }
                    match mask {
                        Some(m) if !m[at] => None,
                        _ => Some(at),
                    }
                }
                Table::Map(_) => None,
            }
        }

        /// The value at `args` (of the right arity).
        pub(crate) fn get(&self, args: &[i64]) -> i64 {
            match self {
                Table::Dense { values, .. } => self.index(args).map_or(0, |at| values[at]),
                Table::Map(t) => t.get(args),
            }
        }

        fn to_uf_table(&self) -> UfTable {
            match self {
                Table::Map(t) => t.clone(),
                Table::Dense {
                    extents,
                    lo,
                    values,
                    mask,
                } => {
                    let mut t = UfTable::new(extents.len(), 0);
                    let mut p = vec![0i64; extents.len()];
                    for (at, &v) in values.iter().enumerate() {
                        let mut rest = at as i64;
                        for k in (0..extents.len()).rev() {
                            p[k] = rest % extents[k];
                            rest /= extents[k];
                        }
                        let inside = p.iter().zip(lo).all(|(x, l)| x >= l)
                            && mask.as_ref().is_none_or(|m| m[at]);
                        if inside {
                            t.insert(p.clone(), v);
                        }
                    }
                    t
                }
            }
        }
    }

    /// Symbols and index arrays, by name.
    #[derive(Default)]
    pub(crate) struct Env<'a> {
        pub(crate) symbols: HashMap<String, i64>,
        names: HashMap<String, usize>,
        tables: Vec<Table<'a>>,
    }

    impl<'a> Env<'a> {
        /// The symbols and tables of an interpretation.
        #[cfg_attr(not(test), allow(dead_code))]
        pub(crate) fn from_interpretation(interp: &Interpretation) -> Env<'a> {
            let mut env = Env {
                symbols: interp.symbols.clone(),
                ..Env::default()
            };
            for (name, t) in &interp.ufs {
                env.insert(name.clone(), Table::Map(t.clone()));
            }
            env
        }

        /// Adds (or replaces) the table `name`.
        pub(crate) fn insert(&mut self, name: String, table: Table<'a>) {
            match self.names.get(&name) {
                Some(&k) => self.tables[k] = table,
                None => {
                    self.names.insert(name, self.tables.len());
                    self.tables.push(table);
                }
            }
        }

        /// The table `name`.
        pub(crate) fn table(&self, name: &str) -> Option<&Table<'a>> {
            self.names.get(name).map(|&k| &self.tables[k])
        }

        /// The same values as an [`Interpretation`] (for the rare paths that
        /// enumerate with `iegen::eval`).
        pub(crate) fn to_interpretation(&self) -> Interpretation {
            let mut interp = Interpretation::new();
            interp.symbols = self.symbols.clone();
            for (name, &k) in &self.names {
                interp
                    .ufs
                    .insert(name.clone(), self.tables[k].to_uf_table());
            }
            interp
        }

        /// As [`Interpretation::call`].
        pub(crate) fn call(&self, name: &str, args: &[i64]) -> Result<i64, EvalError> {
            let table = self
                .table(name)
                .ok_or_else(|| EvalError::UnknownUf(name.to_string()))?;
            if table.arity() != args.len() {
                return Err(EvalError::UfArity {
                    name: name.to_string(),
                    expected: table.arity(),
                    found: args.len(),
                });
            }
            Ok(table.get(args))
        }

        /// As [`Interpretation::evaluate`], uncompiled (for one-off uses).
        pub(crate) fn evaluate(
            &self,
            e: &Expr,
            var: &mut impl FnMut(Var) -> Option<i64>,
        ) -> Result<i64, EvalError> {
            let c = CExpr::compile(e, self, &mut Slot::Var);
            c.eval(self, &ByName(RefCell::new(var)))
        }
    }

    /// Where a compiled variable's value comes from.
    #[derive(Clone, Copy, Debug)]
    pub(crate) enum Slot {
        /// Position `k` of the slice evaluated over.
        At(usize),
        /// Asked by name from the evaluator's function.
        Var(Var),
        /// Never known.
        Unknown(Var),
    }

    enum CAtom {
        Slot(usize, Var),
        Var(Var),
        Const(i64),
        Call(Result<usize, EvalError>, Vec<CExpr>),
        Div(Box<CExpr>, i64),
        Fail(EvalError),
    }

    /// An expression compiled against an [`Env`].
    pub(crate) struct CExpr {
        constant: i64,
        terms: Vec<(CAtom, i64)>,
    }

    /// Values of the variables of a compiled expression.
    pub(crate) trait Values {
        /// The value at slot `k`.
        fn at(&self, k: usize) -> Option<i64>;
        /// The value of a variable asked by name.
        fn var(&self, _: Var) -> Option<i64> {
            None
        }
    }

    impl Values for [i64] {
        fn at(&self, k: usize) -> Option<i64> {
            self.get(k).copied()
        }
    }

    impl Values for [Option<i64>] {
        fn at(&self, k: usize) -> Option<i64> {
            self.get(k).copied().flatten()
        }
    }

    /// Variables asked by name from a function.
    struct ByName<'a, F>(RefCell<&'a mut F>);

    impl<F: FnMut(Var) -> Option<i64>> Values for ByName<'_, F> {
        fn at(&self, _: usize) -> Option<i64> {
            None
        }
        fn var(&self, v: Var) -> Option<i64> {
            (*self.0.borrow_mut())(v)
        }
    }

    impl CExpr {
        /// Compiles `e`: `slot` says where each variable's value is.
        pub(crate) fn compile(e: &Expr, env: &Env, slot: &mut impl FnMut(Var) -> Slot) -> CExpr {
            let terms = e
                .terms()
                .map(|(a, c)| {
                    let atom = match a {
                        Atom::Var(v) => match slot(*v) {
                            Slot::At(k) => CAtom::Slot(k, *v),
                            Slot::Var(v) => CAtom::Var(v),
                            Slot::Unknown(v) => {
                                CAtom::Fail(EvalError::UnassignedVariable(v.to_string()))
                            }
                        },
                        Atom::Sym(s) => match env.symbols.get(s) {
                            Some(&x) => CAtom::Const(x),
                            None => CAtom::Fail(EvalError::UnknownSymbol(s.clone())),
                        },
                        Atom::Uf(name, args) => {
                            let table = match env.names.get(name) {
                                None => Err(EvalError::UnknownUf(name.clone())),
                                Some(&k) if env.tables[k].arity() != args.len() => {
                                    Err(EvalError::UfArity {
                                        name: name.clone(),
                                        expected: env.tables[k].arity(),
                                        found: args.len(),
                                    })
                                }
                                Some(&k) => Ok(k),
                            };
                            let args = args.iter().map(|x| CExpr::compile(x, env, slot)).collect();
                            CAtom::Call(table, args)
                        }
                        Atom::Div(x, m) => CAtom::Div(Box::new(CExpr::compile(x, env, slot)), *m),
                    };
                    (atom, c)
                })
                .collect();
            CExpr {
                constant: e.constant_term(),
                terms,
            }
        }

        /// The value, with the variables' values from `vals`.
        pub(crate) fn eval<V: Values + ?Sized>(
            &self,
            env: &Env,
            vals: &V,
        ) -> Result<i64, EvalError> {
            let mut acc = self.constant;
            for (a, c) in &self.terms {
                let x = match a {
                    CAtom::Const(x) => *x,
                    CAtom::Slot(k, v) => vals
                        .at(*k)
                        .ok_or_else(|| EvalError::UnassignedVariable(v.to_string()))?,
                    CAtom::Var(v) => vals
                        .var(*v)
                        .ok_or_else(|| EvalError::UnassignedVariable(v.to_string()))?,
                    CAtom::Call(table, args) => {
                        let mut buf = [0i64; 8];
                        let mut long = Vec::new();
                        let xs: &[i64] = if args.len() <= buf.len() {
                            for (b, x) in buf.iter_mut().zip(args) {
                                *b = x.eval(env, vals)?;
                            }
                            &buf[..args.len()]
                        } else {
                            for x in args {
                                long.push(x.eval(env, vals)?);
                            }
                            &long
                        };
                        match table {
                            Ok(k) => env.tables[*k].get(xs),
                            Err(e) => return Err(e.clone()),
                        }
                    }
                    CAtom::Div(x, m) => x.eval(env, vals)?.div_euclid(*m),
                    CAtom::Fail(e) => return Err(e.clone()),
                };
                acc = c
                    .checked_mul(x)
                    .and_then(|t| acc.checked_add(t))
                    .ok_or(EvalError::Overflow)?;
            }
            Ok(acc)
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
    use std::ops::ControlFlow;

    use iegen::{Atom, Conjunction, ConstraintKind, EvalError, Expr, Var};

    use super::fast::{CExpr, Env, Slot};

    /// Limits of a search.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Limits {
        /// At most this many points; one more is `TooManyPoints`.
        pub max_points: usize,
        /// At most this many values tried; one more is `TooManySteps`.
        pub max_steps: u64,
        /// About how many points to expect (room is made for them at
        /// once, when the allocator gives it, instead of growing by
        /// copies); 0 when unknown.
        pub expected: usize,
    }

    impl From<iegen::Bounds> for Limits {
        fn from(b: iegen::Bounds) -> Self {
            Limits {
                max_points: b.max_points,
                max_steps: b.max_steps,
                expected: 0,
            }
        }
    }

    /// Points of one arity, flat: point `k` is `data[k * arity ..][.. arity]`.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub(crate) struct Points {
        pub arity: usize,
        pub data: Vec<i64>,
        /// The number of points (also right when `arity` is 0).
        pub len: usize,
    }

    impl Points {
        pub(crate) fn new(arity: usize) -> Points {
            Points {
                arity,
                data: Vec::new(),
                len: 0,
            }
        }

        pub(crate) fn len(&self) -> usize {
            self.len
        }

        pub(crate) fn get(&self, k: usize) -> &[i64] {
            &self.data[k * self.arity..(k + 1) * self.arity]
        }

        pub(crate) fn push(&mut self, p: &[i64]) {
            debug_assert_eq!(p.len(), self.arity);
            self.data.extend_from_slice(p);
            self.len += 1;
        }

        pub(crate) fn iter(&self) -> impl Iterator<Item = &[i64]> + '_ {
            (0..self.len).map(move |k| self.get(k))
        }

        /// Appends the points of `other` (of the same arity).
        pub(crate) fn append(&mut self, other: &Points) {
            self.data.extend_from_slice(&other.data);
            self.len += other.len;
        }

        /// Sorts lexicographically and removes repeated points (a no-op,
        /// after one pass, when they already are).
        pub(crate) fn sort_dedup(&mut self) {
            let n = self.arity;
            if n == 0 {
                self.len = self.len.min(1);
                return;
            }
            if (1..self.len).all(|k| self.get(k - 1) < self.get(k)) {
                return;
            }
            let mut order: Vec<usize> = (0..self.len).collect();
            order.sort_unstable_by(|&a, &b| self.get(a).cmp(self.get(b)));
            order.dedup_by(|a, b| self.get(*a) == self.get(*b));
            let mut data = Vec::with_capacity(order.len() * n);
            for &k in &order {
                data.extend_from_slice(self.get(k));
            }
            self.data = data;
            self.len = order.len();
        }

        /// The points as vectors (tests).
        #[cfg(test)]
        pub(crate) fn to_vecs(&self) -> Vec<Vec<i64>> {
            self.iter().map(|p| p.to_vec()).collect()
        }
    }

    /// A constraint, and for each variable it bounds: the coefficient and
    /// the rest of the expression.
    struct Bound {
        kind: ConstraintKind,
        coefficient: i64,
        rest: CExpr,
        /// The slots `rest` mentions.
        needs: Vec<usize>,
    }

    /// What a streamed enumeration ([`points_in_order`]) did.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) enum Streamed {
        /// Every point was handed over, in increasing order, once.
        Done,
        /// The visitor asked to stop.
        Stopped,
        /// A point came that was not greater than the one before (the
        /// search order is not the points' order here): the caller
        /// enumerates with [`points`] instead.
        Unordered,
    }

    /// Why a search ended early.
    enum Abort {
        Eval(EvalError),
        Stream(Streamed),
    }

    impl From<EvalError> for Abort {
        fn from(e: EvalError) -> Abort {
            Abort::Eval(e)
        }
    }

    /// A visitor of streamed points.
    type Visitor<'v> = &'v mut dyn FnMut(&[i64]) -> ControlFlow<()>;

    struct Search<'a, 'v> {
        env: &'a Env<'a>,
        limits: Limits,
        n_tuple: usize,
        values: Vec<Option<i64>>,
        /// Slots defined by an equality and substituted away, with their
        /// definition over the remaining slots.
        defined: Vec<Option<CExpr>>,
        /// Constraints, with the slots each mentions.
        constraints: Vec<(ConstraintKind, CExpr, Vec<usize>)>,
        /// For each slot, the constraints that mention it other than as
        /// one of its bounds.
        by_slot: Vec<Vec<usize>>,
        bounds: Vec<Vec<Bound>>,
        steps: u64,
        /// The points found (collected, or handed to `visit` in order).
        out: Points,
        /// Where points go when streamed, with the last one and the count.
        visit: Option<Visitor<'v>>,
        last: Vec<i64>,
        current: Vec<i64>,
        count: usize,
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

    impl Search<'_, '_> {
        fn eval(&self, e: &CExpr) -> Result<i64, EvalError> {
            e.eval(self.env, &self.values[..])
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
        /// assigned holds. The constraints that bound `s` are not
        /// evaluated: `s` takes the values of [`Search::range`] only, which
        /// applied every bound whose other slots were assigned, exactly
        /// (a constraint whose only unassigned slot is `s` holds exactly at
        /// the values in its bound), and the other slots do not change
        /// while `s` runs through its range.
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

        /// Appends the current tuple, defined slots computed, or hands it
        /// to the visitor.
        fn push_tuple(&mut self) -> Result<(), Abort> {
            self.current.clear();
            for s in 0..self.n_tuple {
                let x = match (&self.defined[s], self.values[s]) {
                    (Some(def), _) => self.eval(def)?,
                    (None, Some(x)) => x,
                    (None, None) => {
                        return Err(EvalError::UnassignedVariable(format!(
                            "tuple variable at position {s}"
                        ))
                        .into())
                    }
                };
                self.current.push(x);
            }
            self.count += 1;
            match &mut self.visit {
                None => {
                    self.out.data.extend_from_slice(&self.current);
                    self.out.len += 1;
                }
                Some(visit) => {
                    if self.count > 1 && self.current <= self.last {
                        return Err(Abort::Stream(Streamed::Unordered));
                    }
                    if visit(&self.current).is_break() {
                        return Err(Abort::Stream(Streamed::Stopped));
                    }
                    std::mem::swap(&mut self.last, &mut self.current);
                }
            }
            Ok(())
        }

        /// Assigns the remaining slots; in witness mode stops at the first
        /// complete assignment. Returns whether one was found.
        fn search(&mut self, witness: bool) -> Result<bool, Abort> {
            let tuple_done = (0..self.n_tuple).all(|s| !self.free(s));
            if tuple_done && !witness {
                // Existentials left: one witness is searched for.
                let found = (self.n_tuple..self.values.len()).all(|s| !self.free(s))
                    || self.search(true)?;
                if found {
                    self.push_tuple()?;
                    if self.count > self.limits.max_points {
                        return Err(EvalError::TooManyPoints {
                            limit: self.limits.max_points,
                        }
                        .into());
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
                    }
                    .into()),
                };
            };
            let mut any = false;
            let mut x = lo;
            loop {
                self.steps += 1;
                if self.steps > self.limits.max_steps {
                    return Err(EvalError::TooManySteps {
                        limit: self.limits.max_steps,
                    }
                    .into());
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
        env: &Env,
        limits: Limits,
    ) -> Result<Points, EvalError> {
        let n_tuple = conj.arity();
        let Some(mut search) = prepared(conj, env, limits, None)? else {
            return Ok(Points::new(n_tuple));
        };
        let room = limits
            .expected
            .min(limits.max_points)
            .saturating_mul(n_tuple);
        // Only room: a failed reservation leaves the points to grow.
        let _ = search.out.data.try_reserve_exact(room);
        match search.search(false) {
            Ok(_) => {}
            Err(Abort::Eval(e)) => return Err(e),
            Err(Abort::Stream(_)) => unreachable!("points are collected, not streamed"),
        }
        let mut out = search.out;
        out.sort_dedup();
        Ok(out)
    }

    /// The points of `conj`, handed to `visit` one at a time as the search
    /// finds them, without collecting them, as long as they come in
    /// increasing order (as [`points`] would give them): then
    /// [`Streamed::Done`]. [`Streamed::Unordered`] when one does not (the
    /// points after it are not visited), [`Streamed::Stopped`] when `visit`
    /// breaks. Limits and errors are [`points`]'.
    pub(crate) fn points_in_order(
        conj: &Conjunction,
        env: &Env,
        limits: Limits,
        visit: &mut dyn FnMut(&[i64]) -> ControlFlow<()>,
    ) -> Result<Streamed, EvalError> {
        let Some(mut search) = prepared(conj, env, limits, Some(visit))? else {
            return Ok(Streamed::Done);
        };
        match search.search(false) {
            Ok(_) => Ok(Streamed::Done),
            Err(Abort::Eval(e)) => Err(e),
            Err(Abort::Stream(how)) => Ok(how),
        }
    }

    /// The search of `conj`'s points; `None` when a constraint without
    /// variables fails (no point).
    fn prepared<'a, 'v>(
        conj: &Conjunction,
        env: &'a Env<'a>,
        limits: Limits,
        visit: Option<Visitor<'v>>,
    ) -> Result<Option<Search<'a, 'v>>, EvalError> {
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
        let compile = |e: &Expr| CExpr::compile(e, env, &mut |v| Slot::At(slot(n_tuple, v)));
        let mut constraints = Vec::new();
        let mut by_slot = vec![Vec::new(); n_slots];
        let mut bounds: Vec<Vec<Bound>> = (0..n_slots).map(|_| Vec::new()).collect();
        for (i, (kind, e)) in work.into_iter().enumerate() {
            let slots = slots_of(n_tuple, &e);
            for &s in &slots {
                let v = var(n_tuple, s);
                let a = e.coefficient_of_var(v);
                if a == 0 || e.mentions_in_uf_args(v) {
                    // Checked once `s` is assigned; a bound of `s` holds
                    // at every value of its range (`Search::consistent`).
                    by_slot[s].push(i);
                } else {
                    let mut rest = e.clone();
                    rest.add_term(Atom::Var(v), -a);
                    let needs = slots_of(n_tuple, &rest);
                    bounds[s].push(Bound {
                        kind,
                        coefficient: a,
                        rest: compile(&rest),
                        needs,
                    });
                }
            }
            constraints.push((kind, compile(&e), slots));
        }
        let search = Search {
            env,
            limits,
            n_tuple,
            values: vec![None; n_slots],
            defined: defined.iter().map(|d| d.as_ref().map(compile)).collect(),
            constraints,
            by_slot,
            bounds,
            steps: 0,
            out: Points::new(n_tuple),
            visit,
            last: Vec::with_capacity(n_tuple),
            current: Vec::with_capacity(n_tuple),
            count: 0,
        };
        for i in 0..search.constraints.len() {
            if search.constraints[i].2.is_empty() && !search.holds(i)? {
                return Ok(None);
            }
        }
        Ok(Some(search))
    }
}

#[cfg(test)]
mod tests {
    use super::fast::Env;
    use super::ordered::{Limits, Points, Streamed};
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

    fn points(
        c: &iegen::Conjunction,
        interp: &Interpretation,
        limits: Limits,
    ) -> Result<Points, iegen::EvalError> {
        super::ordered::points(c, &Env::from_interpretation(interp), limits)
    }

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

                let limits = Limits { max_points: 10_000, max_steps: 1_000_000, expected: 0 };
                prop_assert_eq!(&points(c, &interp, limits).unwrap().to_vecs(), &expected);
                // Streamed: the same points when they come in order; a
                // strictly increasing prefix of them otherwise.
                let mut streamed: Vec<Vec<i64>> = Vec::new();
                let how = super::ordered::points_in_order(
                    c,
                    &Env::from_interpretation(&interp),
                    limits,
                    &mut |p| {
                        streamed.push(p.to_vec());
                        std::ops::ControlFlow::Continue(())
                    },
                )
                .unwrap();
                match how {
                    Streamed::Done => prop_assert_eq!(&streamed, &expected),
                    Streamed::Unordered => {
                        prop_assert!(streamed.windows(2).all(|w| w[0] < w[1]));
                    }
                    Streamed::Stopped => prop_assert!(false, "the visitor never stops"),
                }
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
            expected: 100,
        };
        assert!(matches!(
            points(c, &interp, few),
            Err(iegen::EvalError::TooManyPoints { limit: 10 })
        ));
        let short = Limits {
            max_points: 1_000_000,
            max_steps: 50,
            expected: 0,
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
            p.unwrap().to_vecs(),
            vec![vec![0, 0, 1], vec![0, 1, 2], vec![1, 3, 4], vec![1, 4, 5]]
        );
        let unknown: Set = "{[i] : 0 <= i < K}".parse().unwrap();
        assert!(matches!(
            points(&unknown.conjunctions()[0], &interp, few),
            Err(iegen::EvalError::UnknownSymbol(_))
        ));
    }
}
