//! Which coordinates a format can store at all.
//!
//! Most formats store any entry inside the dense shape, but not every one:
//! a lower skyline stores row `i`'s columns from its first nonzero up to the
//! diagonal, so an entry above the diagonal has no place in it. The
//! constraints that say so are read off the format's map: every sparse
//! position that an equality defines (`k = jj - ii + sky(ii + 1) - 1`) is
//! substituted, and what remains over the dense coordinates alone, with no
//! index array, is a condition on each entry (`k < sky(ii + 1)` becomes
//! `j <= i`). A conversion into the format refuses an input with an entry
//! that breaks one, naming the entry, instead of writing outside its arrays.
//!
//! A format can also limit how many entries share a group ([`Capacity`]):
//! a 2:4 format's slot `0 <= s < 2` is a rank within the group of its row
//! and block of four columns, so a third entry in a block has no place.

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use iegen::{Conjunction, Constraint, Expr, Prover, UfEnvironment, Var};

use crate::descriptor::Descriptor;
use crate::tensor_io::Coordinates;

/// The conditions every stored entry of a format satisfies, over its dense
/// coordinates (tuple variable `d` is coordinate `d`) and its symbols.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Representable {
    /// The format's name.
    pub format: String,
    /// The coordinates' names, as the map's output tuple gives them.
    pub names: Vec<String>,
    /// The dense extents' symbols, in order.
    pub dense: Vec<String>,
    /// The conditions, none implied by the dense shape alone.
    pub conditions: Vec<Constraint>,
    /// The limits on entries per group.
    pub capacities: Vec<Capacity>,
}

/// At most `at_most` entries share a group: a sparse position bounded by
/// constants (`0 <= s < 2`) that is a rank within the group of other
/// positions (every index array and the value access that take it also
/// take them, [`crate::order::PositionOrder::group`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capacity {
    /// The ranked position's name (`s`).
    pub slot: String,
    /// The group positions' names (`ii`, `b`).
    pub names: Vec<String>,
    /// The group positions over the dense coordinates (tuple variable `d`
    /// is coordinate `d`: `i`, `floor(j / 4)`); `None` when the map does
    /// not give them, and then no input can be checked.
    pub group: Option<Vec<Expr>>,
    /// How many entries a group holds.
    pub at_most: i64,
}

/// An entry a format cannot store.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the entry at ({}) cannot be stored in {format}: {reason}",
    coordinates.iter().map(|c| (c + 1).to_string()).collect::<Vec<_>>().join(", ")
)]
pub struct Unrepresentable {
    /// The destination format.
    pub format: String,
    /// The entry's coordinates, 0-based (printed 1-based, as in the files).
    pub coordinates: Vec<i64>,
    /// Why, with the coordinates' names: the condition it breaks, or the
    /// capacity its group is at.
    pub reason: String,
}

impl Representable {
    /// The conditions of `d`'s map on single entries.
    pub fn of(d: &Descriptor) -> Representable {
        let dims = d.dense.len();
        let inverse = d.map.inverse().simplify();
        let names: Vec<String> = inverse
            .conjunctions()
            .first()
            .map(|c| c.tuple_names()[..dims].to_vec())
            .unwrap_or_else(|| (0..dims).map(|k| format!("x{k}")).collect());
        let (conditions, capacities) = match inverse.conjunctions() {
            [c] => (conditions(c, dims, d), capacities(c, dims, d)),
            _ => (Vec::new(), Vec::new()),
        };
        Representable {
            format: d.name.clone(),
            names,
            dense: d.dense.clone(),
            conditions,
            capacities,
        }
    }

    /// Whether every entry inside the dense shape can be stored.
    pub fn is_everything(&self) -> bool {
        self.conditions.is_empty() && self.capacities.is_empty()
    }

    /// A check of a sequence of entries, one at a time: each entry's
    /// conditions, and the groups' capacities over the entries so far.
    pub fn checker(&self) -> StorableChecker<'_> {
        StorableChecker {
            storable: self,
            groups: vec![HashMap::new(); self.capacities.len()],
        }
    }

    /// The first condition the entry at `coordinates` breaks, given the
    /// symbols' values. A condition that cannot be evaluated (a symbol
    /// without a value) counts as broken.
    pub fn check(
        &self,
        coordinates: &[i64],
        symbol: &dyn Fn(&str) -> Option<i64>,
    ) -> Result<(), Unrepresentable> {
        for c in &self.conditions {
            let value = c.expr().evaluate(
                &mut |v| match v {
                    Var::Tuple(k) => coordinates.get(k).copied(),
                    Var::Exist(_) => None,
                },
                &mut |s| symbol(s),
                &mut |_, _| None,
            );
            let holds = match value {
                Some(v) if c.is_eq() => v == 0,
                Some(v) => v >= 0,
                None => false,
            };
            if !holds {
                return Err(Unrepresentable {
                    format: self.format.clone(),
                    coordinates: coordinates.to_vec(),
                    reason: format!(
                        "{} stores only entries with {}",
                        self.format,
                        self.describe(c)
                    ),
                });
            }
        }
        Ok(())
    }

    /// The first entry of `c` the format cannot store (a listed zero
    /// too: a conversion from coordinates visits it).
    pub fn check_coordinates(&self, c: &Coordinates) -> Result<(), Unrepresentable> {
        let symbol = |s: &str| self.dense.iter().position(|d| d == s).map(|k| c.dims[k]);
        let mut checker = self.checker();
        for (at, _) in &c.entries {
            checker.check(at, &symbol)?;
        }
        Ok(())
    }

    /// The entries of `c` the format can store: those that meet the
    /// conditions, and of a group over its capacity the first ones.
    pub fn restrict(&self, c: &Coordinates) -> Coordinates {
        let symbol = |s: &str| self.dense.iter().position(|d| d == s).map(|k| c.dims[k]);
        let mut checker = self.checker();
        Coordinates {
            dims: c.dims.clone(),
            entries: c
                .entries
                .iter()
                .filter(|(at, _)| checker.check(at, &symbol).is_ok())
                .cloned()
                .collect(),
        }
    }

    /// A condition as text over the coordinates' names (`j <= i`).
    pub fn describe(&self, c: &Constraint) -> String {
        let name = |v: Var| match v {
            Var::Tuple(k) => self.names.get(k).cloned().unwrap_or_else(|| v.to_string()),
            Var::Exist(_) => v.to_string(),
        };
        // e >= 0 or e = 0, printed as positive terms against negative ones.
        let e = c.expr();
        let mut lhs = Expr::constant(0);
        let mut rhs = Expr::constant(0);
        for (atom, coef) in e.terms() {
            if coef > 0 {
                lhs.add_term(atom.clone(), coef);
            } else {
                rhs.add_term(atom.clone(), -coef);
            }
        }
        let k = e.constant_term();
        if k > 0 {
            lhs = lhs.plus(&Expr::constant(k));
        } else {
            rhs = rhs.plus(&Expr::constant(-k));
        }
        let op = if c.is_eq() { "=" } else { ">=" };
        let (l, r) = (
            iegen::print::expr_with_names(&lhs, &name),
            iegen::print::expr_with_names(&rhs, &name),
        );
        if c.is_eq() {
            format!("{l} {op} {r}")
        } else {
            format!("{r} <= {l}")
        }
    }
}

impl fmt::Display for Representable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_everything() {
            return write!(f, "every entry");
        }
        let parts: Vec<String> = self
            .conditions
            .iter()
            .map(|c| self.describe(c))
            .chain(self.capacities.iter().map(|c| self.describe_capacity(c)))
            .collect();
        write!(f, "{}", parts.join(" and "))
    }
}

impl Representable {
    /// A capacity as text: `at most 2 entries with the same i and floor(j
    /// / 4) (the group of `ii` and `b`)`.
    pub fn describe_capacity(&self, c: &Capacity) -> String {
        let group = c.names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>();
        match &c.group {
            Some(exprs) => {
                let name = |v: Var| match v {
                    Var::Tuple(k) => self.names.get(k).cloned().unwrap_or_else(|| v.to_string()),
                    Var::Exist(_) => v.to_string(),
                };
                let over: Vec<String> = exprs
                    .iter()
                    .map(|e| iegen::print::expr_with_names(e, &name))
                    .collect();
                format!(
                    "at most {} entries with the same {} (slot `{}` is a rank within the group of {})",
                    c.at_most,
                    over.join(" and "),
                    c.slot,
                    group.join(" and "),
                )
            }
            None => format!(
                "at most {} entries per group of {} (slot `{}`), which spf cannot compute from the \
                 coordinates",
                c.at_most,
                group.join(" and "),
                c.slot
            ),
        }
    }
}

/// [`Representable::checker`]: the entries seen so far of each group.
pub struct StorableChecker<'r> {
    storable: &'r Representable,
    /// Per capacity: a group's key → the coordinates of its entries, up to
    /// the capacity.
    groups: Vec<HashMap<Vec<i64>, Vec<Vec<i64>>>>,
}

impl StorableChecker<'_> {
    /// Checks the next entry: its conditions ([`Representable::check`]),
    /// then that its group has room; an entry refused takes no room.
    pub fn check(
        &mut self,
        coordinates: &[i64],
        symbol: &dyn Fn(&str) -> Option<i64>,
    ) -> Result<(), Unrepresentable> {
        let s = self.storable;
        s.check(coordinates, symbol)?;
        for (c, groups) in s.capacities.iter().zip(&mut self.groups) {
            let refuse = |reason: String| Unrepresentable {
                format: s.format.clone(),
                coordinates: coordinates.to_vec(),
                reason,
            };
            let stores = || format!("{} stores {}", s.format, s.describe_capacity(c));
            let Some(exprs) = &c.group else {
                return Err(refuse(stores()));
            };
            let key = exprs
                .iter()
                .map(|e| {
                    e.evaluate(
                        &mut |v| match v {
                            Var::Tuple(k) => coordinates.get(k).copied(),
                            Var::Exist(_) => None,
                        },
                        &mut |x| symbol(x),
                        &mut |_, _| None,
                    )
                })
                .collect::<Option<Vec<i64>>>()
                .ok_or_else(|| refuse(stores()))?;
            let members = groups.entry(key).or_default();
            if members.len() as i64 >= c.at_most {
                let at = |m: &Vec<i64>| {
                    format!(
                        "({})",
                        m.iter()
                            .map(|x| (x + 1).to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                return Err(refuse(format!(
                    "{}, and the entries at {} already fill its group",
                    stores(),
                    members.iter().map(at).collect::<Vec<_>>().join(", ")
                )));
            }
            members.push(coordinates.to_vec());
        }
        Ok(())
    }
}

/// The constraints of `inverse` (coordinates first, then the sparse
/// positions) over the coordinates alone once every position an equality
/// defines is substituted, less those the dense shape implies.
fn conditions(inverse: &Conjunction, dims: usize, d: &Descriptor) -> Vec<Constraint> {
    let mut c = inverse.clone();
    let is_position =
        |v: Var| matches!(v, Var::Tuple(p) if p >= dims) || matches!(v, Var::Exist(_));
    'substitute: loop {
        let defining: Vec<Constraint> = c.constraints().filter(|k| k.is_eq()).cloned().collect();
        for k in defining {
            let mut target = None;
            k.expr().for_each_var(&mut |v| {
                if target.is_none()
                    && is_position(v)
                    && k.expr().coefficient_of_var(v).abs() == 1
                    && !k.expr().mentions_in_uf_args(v)
                {
                    target = Some(v);
                }
            });
            let Some(v) = target else { continue };
            let coef = k.expr().coefficient_of_var(v);
            let definition = k.expr().plus(&Expr::var(v).scale(-coef)).scale(-coef);
            c.remove(&k);
            if c.substitute(v, &definition).is_err() {
                return Vec::new();
            }
            continue 'substitute;
        }
        break;
    }
    let shape = shape(d, dims);
    let env = UfEnvironment::new();
    let prover = Prover::new(&env);
    c.constraints()
        .filter(|k| {
            let mut only_coordinates = true;
            k.expr()
                .for_each_var(&mut |v| only_coordinates &= !is_position(v));
            let mut calls = false;
            k.expr().for_each_call(&mut |_, _| calls = true);
            // A relation among symbols other than the dense extents (a
            // group count `NB = floor((NC + 3) / 4)`) is no condition on
            // an entry: a destination's sizes are computed to satisfy it,
            // and a source's are checked by its instance's validation.
            // A relation among dense extents alone (a square shape) stays.
            let mut coordinate = false;
            k.expr()
                .for_each_var(&mut |v| coordinate |= matches!(v, Var::Tuple(p) if p < dims));
            let mut computed = false;
            k.expr()
                .for_each_sym(&mut |s| computed |= !d.dense.iter().any(|e| e == s));
            only_coordinates && !calls && (coordinate || !computed)
        })
        // A bound of the shape itself needs no solver (most formats' only
        // conditions are those; validation asks for every run).
        .filter(|k| !shape.contains(k) && !prover.implies(&shape, k).holds())
        .cloned()
        .collect()
}

/// The capacities of `d`'s groups ([`Capacity`]), read off `inverse`
/// (coordinates first, then the sparse positions).
fn capacities(inverse: &Conjunction, dims: usize, d: &Descriptor) -> Vec<Capacity> {
    let map = &d.map.conjunctions()[0];
    let names = map.tuple_names();
    let unknown: BTreeSet<&str> = d
        .ufs
        .iter()
        .map(|u| u.name.as_str())
        .chain(
            d.symbols
                .iter()
                .filter(|s| !d.dense.contains(s))
                .map(String::as_str),
        )
        .collect();
    let resolved = crate::conversion::resolve_outputs(inverse, dims, &unknown);
    let mut out = Vec::new();
    for q in 0..d.sparse_arity() {
        if resolved.get(q).is_some_and(Option::is_some) {
            continue;
        }
        let Ok(order) = crate::order::position_order(d, q) else {
            continue;
        };
        if order.group.is_empty() {
            continue;
        }
        let Some(at_most) = crate::conversion::constant_bound(map, q) else {
            continue;
        };
        out.push(Capacity {
            slot: names[q].clone(),
            names: order.group.iter().map(|&g| names[g].clone()).collect(),
            group: order
                .group
                .iter()
                .map(|&g| resolved.get(g).cloned().flatten())
                .collect(),
            at_most,
        });
    }
    out
}

/// `0 <= x_d < N_d` for every dense dimension, and every symbol positive.
fn shape(d: &Descriptor, dims: usize) -> Conjunction {
    let mut c = Conjunction::universe_of_arity(dims);
    for (k, n) in d.dense.iter().enumerate() {
        let x = Expr::var(Var::Tuple(k));
        let n = Expr::sym(n.clone());
        let _ = c.add(Constraint::le(&Expr::constant(0), &x));
        let _ = c.add(Constraint::lt(&x, &n));
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::{builtin_names, load_format};
    use crate::descriptor_file::parse_descriptor;

    fn skyline(text: &str) -> Representable {
        Representable::of(&parse_descriptor(text).expect("parses"))
    }

    #[test]
    fn every_builtin_but_the_skylines_and_nm24_stores_every_entry_of_its_shape() {
        for name in builtin_names() {
            let r = Representable::of(&load_format(name).expect("built-in"));
            let limited = name.starts_with("sky") || *name == "nm24";
            assert_eq!(r.is_everything(), !limited, "{name}: {r}");
        }
    }

    /// A 2:4 format's slot ranks the entries of a row's block of four
    /// columns: at most two per block, the group read off the map as the
    /// row and the column's quotient by 4; a third entry is refused naming
    /// the two before it, and `restrict` keeps the first two.
    #[test]
    fn nm24_holds_two_entries_per_block_of_four_columns() {
        let r = Representable::of(&load_format("nm24").expect("built-in"));
        assert!(r.conditions.is_empty(), "{r}");
        let [c] = r.capacities.as_slice() else {
            panic!("one capacity: {r}")
        };
        assert_eq!((c.slot.as_str(), c.at_most), ("s", 2));
        assert_eq!(c.names, vec!["ii".to_string(), "b".to_string()]);
        assert_eq!(
            r.to_string(),
            "at most 2 entries with the same i and floor(j / 4) (slot `s` is a rank within the \
             group of `ii` and `b`)"
        );
        let m = Coordinates {
            dims: vec![2, 9],
            entries: vec![
                (vec![0, 4], 1.0),
                (vec![1, 5], 2.0),
                (vec![0, 7], 3.0),
                (vec![0, 3], 4.0),
                (vec![0, 8], 5.0),
                (vec![0, 6], 6.0),
            ],
        };
        let err = r.check_coordinates(&m).unwrap_err();
        assert_eq!(err.coordinates, vec![0, 6]);
        assert!(
            err.to_string()
                .ends_with("the entries at (1, 5), (1, 8) already fill its group"),
            "{err}"
        );
        let kept = r.restrict(&m);
        assert_eq!(kept.entries.len(), 5);
        assert!(r.check_coordinates(&kept).is_ok());
    }

    #[test]
    fn a_skyline_stores_one_triangle() {
        let lower = skyline(include_str!("../../descriptors/skyl.desc"));
        assert_eq!(lower.to_string(), "j <= i");
        let upper = skyline(include_str!("../../descriptors/skyu.desc"));
        assert_eq!(upper.to_string(), "i <= j");
        let c = Coordinates {
            dims: vec![3, 4],
            entries: vec![
                (vec![0, 0], 1.0),
                (vec![0, 3], 0.0),
                (vec![2, 1], 2.0),
                (vec![1, 2], 3.0),
            ],
        };
        // A listed zero counts: a conversion from coordinates visits it.
        let err = lower.check_coordinates(&c).unwrap_err();
        assert_eq!(err.coordinates, vec![0, 3]);
        assert_eq!(
            err.to_string(),
            "the entry at (1, 4) cannot be stored in SKYL: SKYL stores only entries with j <= i"
        );
        assert_eq!(
            lower.restrict(&c).entries,
            vec![(vec![0, 0], 1.0), (vec![2, 1], 2.0)]
        );
        assert_eq!(
            upper.check_coordinates(&c).unwrap_err().coordinates,
            vec![2, 1]
        );
        let both = upper.restrict(&lower.restrict(&c));
        assert_eq!(both.entries, vec![(vec![0, 0], 1.0)]);
    }
}
