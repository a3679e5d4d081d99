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
//! [`validate`](crate::instance_validation::validate).
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
//! # Explicit zeros
//!
//! One rule, for every format, pair and output kind: a stored zero is an
//! entry (an *explicit zero*, as scipy keeps one) in a format that can
//! tell a stored entry from padding, that is one without `padding`; in a
//! format with `padding` (BCSR, DIA, ELL, NM24, SKYL, SKYU) a stored zero
//! is padding and never an entry. So a conversion between formats without
//! padding keeps explicit zeros (a conversion copies values), one into or
//! out of a padded format has none on the padded side, and the writers of
//! coordinates write the entries so told ([`coordinates_from`]).
//! Correctness ([`entries`], [`compare`], the fingerprints) compares the
//! nonzero entries: an explicit zero is kept by construction, which
//! `synth/tests/synthesis.rs` checks on every pair of 2-D formats.
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
//! (`ordered_points::points_in_order`; they are collected and sorted otherwise,
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

use crate::compiled_expr::{CExpr, Env, Slot};
use crate::concrete::{self, domain_guards, Concrete};
use crate::coordinate_sort::coordinate_order;
use crate::descriptor::Descriptor;
use crate::instance::{Instance, InstanceError, Values};
use crate::ordered_points::{self, Points};
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
/// map of one conjunction streamed, [`ordered_points::points_in_order`], when
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
    let mut limits = ordered_points::Limits::from(concrete::work_bounds(work));
    let f = data_fn(d, env);
    let mut placed = Placed::new(d, c, &f, extents);
    if let [conj] = guarded.as_slice() {
        // A stored entry addresses a value: about as many as values.
        placed.reserve(c.values.len());
        // Streamed: no point is kept but its coordinate.
        let mut failed = None;
        let streamed =
            ordered_points::points_in_order(conj, env, limits, &mut |p| match placed.add(p) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    failed = Some(e);
                    ControlFlow::Break(())
                }
            })
            .map_err(eval_err("the sparse-to-dense map"))?;
        if streamed == ordered_points::Streamed::Done {
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
        let found = ordered_points::points(conj, env, limits)
            .map_err(eval_err("the sparse-to-dense map"))?;
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
    /// The number of stored points, zeros included.
    stored: usize,
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
    nonzeros_in(d, &concrete::prepare(d, inst)?, every_value)
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
    let stored = positions.len();
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
        stored,
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
    let c = concrete::prepare(d, inst)?;
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

/// The instance's entries as coordinates, in the order of the sparse
/// iteration space (what `spf dump` and `spf convert -o OUT.mtx` write);
/// the extents are the values of the descriptor's dense symbols.
///
/// The entries are the stored ones as the format tells them (the module
/// documentation, "Explicit zeros"): a stored zero of a format without
/// `padding` is an entry (an explicit zero, as scipy keeps one), once per
/// coordinate and not beside a nonzero entry there; a stored zero of a
/// format with `padding` (DIA, ELL, BCSR, ...) is padding, not an entry.
pub fn coordinates_from(d: &Descriptor, inst: &Instance) -> Result<Coordinates, OracleError> {
    let nz = nonzeros(d, inst)?;
    let entries = if d.padding || nz.stored == nz.values.len() {
        nz.coords
            .iter()
            .zip(&nz.values)
            .map(|(p, &v)| (p.to_vec(), v))
            .collect()
    } else {
        // Explicit zeros: every stored point, a zero only where nothing
        // else is stored.
        let mut taken: std::collections::BTreeSet<Vec<i64>> =
            nz.coords.iter().map(<[i64]>::to_vec).collect();
        stored_points(d, inst)?
            .into_iter()
            .filter(|(p, v)| *v != 0.0 || taken.insert(p.clone()))
            .collect()
    };
    let dims = d
        .dense
        .iter()
        .map(|s| {
            inst.symbols.get(s).copied().ok_or_else(|| {
                OracleError::Instance(InstanceError::MissingSymbol {
                    name: s.clone(),
                    all: d.symbols.join(", "),
                    hint: String::new(),
                })
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Coordinates { dims, entries })
}

/// A matrix's or tensor's extents and its entries with integer values.
pub type IntegerCoordinates = (Vec<i64>, Vec<(Vec<i64>, i64)>);

/// [`coordinates_from`] of an instance whose values are integers, each
/// value exactly (not through a double, so beyond 2^53 too): the oracle
/// reads a copy whose values are their positions (from 1; a zero stays
/// zero, so padding stays padding), and each entry takes the integer at
/// its position. `None` when the values are not integers, or an entry is
/// not one stored value (positions past 2^53, or a sum).
///
/// # Errors
///
/// As [`coordinates_from`].
pub fn integer_coordinates_from(
    d: &Descriptor,
    inst: &Instance,
) -> Result<Option<IntegerCoordinates>, OracleError> {
    let Some(ints) = inst
        .arrays
        .get(&d.data_name)
        .filter(|_| inst.value_type.is_integer())
        .and_then(Values::as_ints)
    else {
        return Ok(None);
    };
    let positions = ints
        .iter()
        .enumerate()
        .map(|(k, &v)| if v == 0 { 0.0 } else { (k + 1) as f64 })
        .collect();
    let mut proxy = inst.clone();
    proxy
        .arrays
        .insert(d.data_name.clone(), Values::Real(positions));
    proxy.value_type = crate::instance::ValueType::F64;
    let c = coordinates_from(d, &proxy)?;
    let value = |w: f64| -> Option<i64> {
        if w == 0.0 {
            return Some(0);
        }
        let k = w as usize;
        (k as f64 == w && k >= 1).then(|| ints.get(k - 1).copied())?
    };
    let entries: Option<Vec<(Vec<i64>, i64)>> = c
        .entries
        .into_iter()
        .map(|(p, w)| value(w).map(|v| (p, v)))
        .collect();
    Ok(entries.map(|e| (c.dims, e)))
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
