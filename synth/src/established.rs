//! Validation that consumes what a reader established: an instance made
//! from [`ReadCoordinates`] is not checked again for what the reader
//! guarantees.
//!
//! [`crate::instance_validation::validate`] checks an instance against its descriptor
//! from nothing: lengths, ranges, monotonicity, rules, storage. Coordinates
//! that spf's readers made come with two facts ([`ReadCoordinates`]):
//! every index lies inside its extent, and no two entries share a
//! coordinate. For a descriptor that *is* a coordinate format, those facts
//! are every check validation would make, except that values are finite:
//!
//! - its layout, after renaming, is the template below ([`match_layout`]:
//!   map, data relation, value extent, index arrays' domains and ranges,
//!   no monotonicity, no padding): so the instance's arrays have the
//!   lengths the domains give (one entry per position `0 <= n < NNZ`), the
//!   ranges are the extents the reader checked, and every value is
//!   addressed by exactly its entry;
//! - each of its rules, renamed, is the template's rule (the same premise
//!   and conclusion constraints): "two entries with the same coordinates
//!   are the same entry", which distinct coordinates make true.
//!
//! A descriptor with any other rule, or another layout, is not recognized
//! ([`CoordinateFormat::of`] is `None`) and the caller validates the
//! instance in full: a check whose guarantee is not established is never
//! skipped. Values are checked here (finite), and the entries the oracle
//! would read off the instance (nonzero values, sorted by coordinate) are
//! read straight off the columns, in `O(n + extents)`
//! ([`coordinate_order`]).

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use iegen::constraint::Normalized;
use iegen::{Constraint, UfRule};

use crate::coordinate_sort::{coordinate_order, Linear};
use crate::descriptor::Descriptor;
use crate::descriptor_file::parse_descriptor;
use crate::fingerprint::Fingerprint;
use crate::instance::{Instance, InstanceError, Values};
use crate::npz::layout::match_layout;
use crate::oracle::Entries;
use crate::tensor_io::{CooTensor, CooValue, IndexInt, ReadCoordinates, ReadTensor};

/// A descriptor recognized as a coordinate format: its names, in the
/// template's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoordinateFormat {
    /// The format's name.
    pub format: String,
    /// The dense extents.
    pub dims: Vec<String>,
    /// The index array of each dimension.
    pub index: Vec<String>,
    /// The number of entries.
    pub count: String,
    /// The value array.
    pub values: String,
    /// Whether values that are not finite pass (NaN, infinities); false
    /// unless [`CoordinateFormat::allowing_nonfinite`] says otherwise.
    pub allow_nonfinite: bool,
}

/// The template of a coordinate format of `order` dimensions: extents
/// `D0..`, index arrays `c0..`, `NNZ` entries, values `A`, and the rule
/// that distinct positions have distinct coordinates.
fn template(order: usize) -> Option<Descriptor> {
    let list =
        |f: &dyn Fn(usize) -> String, sep: &str| (0..order).map(f).collect::<Vec<_>>().join(sep);
    let dense = list(&|k| format!("D{k}"), ", ");
    let sparse = list(&|k| format!("t{k}"), ", ");
    let dense_vars = list(&|k| format!("o{k}"), ", ");
    let map = format!(
        "{} && 0 <= n < NNZ && {}",
        list(&|k| format!("o{k} = t{k}"), " && "),
        list(&|k| format!("t{k} = c{k}(n)"), " && ")
    );
    let ufs = list(
        &|k| format!("uf c{k} : {{[x] : 0 <= x < NNZ}} -> {{[y] : 0 <= y < D{k}}};"),
        "\n",
    );
    let rule = format!(
        "forall n1, n2 : 0 <= n1 < NNZ && 0 <= n2 < NNZ && {} => n1 = n2;",
        list(&|k| format!("c{k}(n1) = c{k}(n2)"), " && ")
    );
    let text = format!(
        "format coordinates {{\n dense [{dense}];\n map {{[n, {sparse}] -> [{dense_vars}] : {map}}};\n \
         data A : {{[n, {sparse}] -> [n]}} size NNZ;\n{ufs}\n{rule}\n}}"
    );
    parse_descriptor(&text).ok()
}

/// A rule's constraints as sorted lists (premise, conclusion): two rules
/// with the same lists state the same thing.
fn constraint_sets(r: &UfRule) -> (Vec<Constraint>, Vec<Constraint>) {
    let mut premise = r.premise.clone();
    premise.sort();
    premise.dedup();
    let mut conclusion = r.conclusion.clone();
    conclusion.sort();
    conclusion.dedup();
    (premise, conclusion)
}

impl CoordinateFormat {
    /// `d`'s names when `d` is a coordinate format whose every check the
    /// readers' guarantee establishes (see the module documentation);
    /// `None` otherwise.
    pub fn of(d: &Descriptor) -> Option<CoordinateFormat> {
        let t = template(d.dense.len())?;
        let pairs = match_layout(d, &t)?;
        let rename = |s: &str| {
            pairs
                .iter()
                .find(|(from, _)| from == s)
                .map(|(_, to)| to.clone())
        };
        let renamed = |c: &Constraint| match c.map_expr(|e| e.rename_names(&rename)) {
            Normalized::Constraint(c) => Some(c),
            _ => None,
        };
        let wanted: Vec<_> = t.rules.iter().map(constraint_sets).collect();
        for r in &d.rules {
            let premise: Option<Vec<Constraint>> = r.premise.iter().map(renamed).collect();
            let conclusion: Option<Vec<Constraint>> = r.conclusion.iter().map(renamed).collect();
            let rule = UfRule {
                vars: r.vars.clone(),
                premise: premise?,
                conclusion: conclusion?,
            };
            if r.vars.len() != 2 || !wanted.contains(&constraint_sets(&rule)) {
                return None;
            }
        }
        let back = |name: &str| {
            pairs
                .iter()
                .find(|(_, to)| to == name)
                .map(|(from, _)| from.clone())
        };
        Some(CoordinateFormat {
            format: d.name.clone(),
            dims: d.dense.clone(),
            index: (0..d.dense.len())
                .map(|k| back(&format!("c{k}")))
                .collect::<Option<_>>()?,
            count: back("NNZ")?,
            values: d.data_name.clone(),
            allow_nonfinite: false,
        })
    }

    /// The same format, its checks accepting values that are not finite
    /// when `allow` says so.
    pub fn allowing_nonfinite(mut self, allow: bool) -> CoordinateFormat {
        self.allow_nonfinite = allow;
        self
    }

    /// The names of the coordinate format of `order` dimensions
    /// ([`crate::builtin::coordinate_format`]: COO, COO3D, or one written
    /// for the order), read off its descriptor once per process; `None`
    /// for order 0.
    pub fn of_order(order: usize) -> Option<CoordinateFormat> {
        static KNOWN: Mutex<BTreeMap<usize, Option<CoordinateFormat>>> =
            Mutex::new(BTreeMap::new());
        let known = || KNOWN.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(f) = known().get(&order) {
            return f.clone();
        }
        let f = crate::builtin::coordinate_format(order).and_then(|d| CoordinateFormat::of(&d));
        known().insert(order, f.clone());
        f
    }

    /// The instance holding `read` (its columns moved, not copied) and its
    /// entries sorted by coordinate (stored zeros left out, as the oracle
    /// reads them), checking what the readers do not guarantee.
    ///
    /// # Errors
    ///
    /// [`InstanceError::NonFinite`] for a value that is not finite (a sum
    /// of duplicates can overflow), [`InstanceError::Length`] when the
    /// coordinates have another number of dimensions (or columns of
    /// different lengths), [`InstanceError::NegativeExtent`].
    pub fn instance(&self, read: ReadCoordinates) -> Result<(Instance, Entries), InstanceError> {
        match read.into_read() {
            ReadTensor::WideInt(t) => self.sorted(t),
            ReadTensor::NarrowInt(t) => self.sorted(t.widened()),
            other => self.sorted(other.widened()),
        }
    }

    /// [`CoordinateFormat::instance`] of 64-bit columns, values of any type.
    fn sorted<V: CooValue>(
        &self,
        t: CooTensor<i64, V>,
    ) -> Result<(Instance, Entries), InstanceError> {
        let c = self.checked(t)?;
        let entries = sorted_nonzeros(&c);
        Ok((self.instance_with(c, |v| Values::Int(v.into())), entries))
    }

    /// [`CoordinateFormat::instance`] with the entries' [`Fingerprint`]
    /// instead of the entries themselves: one pass, nothing sorted. Index
    /// columns read at 32 bits stay so ([`Values::Int32`]).
    ///
    /// # Errors
    ///
    /// As [`CoordinateFormat::instance`].
    pub fn instance_fingerprinted(
        &self,
        read: ReadCoordinates,
    ) -> Result<(Instance, Fingerprint), InstanceError> {
        match read.into_read() {
            ReadTensor::Wide(t) => self.fingerprinted(t, |v| Values::Int(v.into())),
            ReadTensor::Narrow(t) => self.fingerprinted(t, |v| Values::Int32(v.into())),
            ReadTensor::WideInt(t) => self.fingerprinted(t, |v| Values::Int(v.into())),
            ReadTensor::NarrowInt(t) => self.fingerprinted(t, |v| Values::Int32(v.into())),
        }
    }

    /// [`CoordinateFormat::instance_fingerprinted`] of columns at any
    /// width, each made an array by `column`.
    fn fingerprinted<I: IndexInt, V: CooValue>(
        &self,
        t: CooTensor<I, V>,
        column: impl Fn(Vec<I>) -> Values,
    ) -> Result<(Instance, Fingerprint), InstanceError> {
        let c = self.checked(t)?;
        let print = Fingerprint::of_columns(&c.indices, &c.values);
        Ok((self.instance_with(c, column), print))
    }

    /// The [`Fingerprint`] of the entries of `inst`, an instance of this
    /// format, when it holds what spf's readers guarantee of coordinates
    /// (every index inside its extent, no two entries at one coordinate)
    /// and passes the rest of the format's check (its symbols and arrays
    /// and their lengths, no negative extent, finite values): found in one
    /// pass over the columns and the readers' search for repeated
    /// coordinates, where the format's own check sorts every entry for its
    /// rule. `None` when any of it fails, or when the values are not
    /// doubles: the full check then runs and names the problem.
    pub fn established_fingerprint(&self, inst: &Instance) -> Option<Fingerprint> {
        let symbol = |name: &String| inst.symbols.get(name).copied();
        let dims: Vec<i64> = self.dims.iter().map(symbol).collect::<Option<_>>()?;
        let n = usize::try_from(symbol(&self.count)?).ok()?;
        let Some(Values::Real(values)) = inst.arrays.get(&self.values) else {
            return None;
        };
        if inst.symbols.len() != dims.len() + 1
            || inst.arrays.len() != self.index.len() + 1
            || dims.iter().any(|&e| e < 0)
            || values.len() != n
            || !(self.allow_nonfinite || values.iter().all(|v| v.is_finite()))
        {
            return None;
        }
        let columns: Vec<&Values> = self
            .index
            .iter()
            .map(|a| inst.arrays.get(a))
            .collect::<Option<_>>()?;
        let narrow: Option<Vec<&[i32]>> = columns
            .iter()
            .map(|c| match c {
                Values::Int32(v) => Some(&v[..]),
                _ => None,
            })
            .collect();
        if let Some(narrow) = narrow {
            return distinct_inside(&narrow, &dims, n)
                .then(|| Fingerprint::of_columns(&narrow, values));
        }
        let wide: Vec<&[i64]> = columns
            .iter()
            .map(|c| match c {
                Values::Int(v) => Some(&v[..]),
                _ => None,
            })
            .collect::<Option<_>>()?;
        distinct_inside(&wide, &dims, n).then(|| Fingerprint::of_columns(&wide, values))
    }

    /// The read coordinates, checked for what the readers do not
    /// guarantee ([`CoordinateFormat::instance`]).
    fn checked<I: IndexInt, V: CooValue>(
        &self,
        c: CooTensor<I, V>,
    ) -> Result<CooTensor<I, V>, InstanceError> {
        // The readers build the columns together and the extents from the
        // file; checked anyway, as they cost nothing.
        if c.indices.len() != self.index.len()
            || c.dims.len() != self.dims.len()
            || c.indices
                .iter()
                .any(|column| column.len() != c.values.len())
        {
            return Err(InstanceError::Length {
                array: self.index.join(", "),
                found: c.indices.len(),
                why: format!("{} has {} dimensions", self.format, self.dims.len()),
            });
        }
        if let Some((name, &value)) = self.dims.iter().zip(&c.dims).find(|(_, &v)| v < 0) {
            return Err(InstanceError::NegativeExtent {
                name: name.clone(),
                value,
            });
        }
        let nonfinite = c.values.iter().enumerate().find(|(_, v)| !v.is_finite());
        if let Some((index, value)) = nonfinite.filter(|_| !self.allow_nonfinite) {
            return Err(InstanceError::NonFinite {
                array: self.values.clone(),
                index,
                value: value.to_f64(),
            });
        }
        Ok(c)
    }

    /// The read coordinates as an instance of the format (64-bit columns,
    /// the values at the type they were read at), checked for nothing.
    pub fn instance_of_read(&self, read: ReadCoordinates) -> Instance {
        match read.into_read() {
            ReadTensor::WideInt(t) => self.instance_with(t, |v| Values::Int(v.into())),
            ReadTensor::NarrowInt(t) => self.instance_with(t.widened(), |v| Values::Int(v.into())),
            other => self.instance_of(other.widened()),
        }
    }

    /// The columns as an instance of the format, in their order (moved,
    /// not copied), checked for nothing.
    pub fn instance_of(&self, c: CooTensor) -> Instance {
        self.instance_with(c, |v| Values::Int(v.into()))
    }

    /// [`CoordinateFormat::instance_of`] of columns at any width, each
    /// made an array by `column`, the values at their type.
    fn instance_with<I: IndexInt, V: CooValue>(
        &self,
        c: CooTensor<I, V>,
        column: impl Fn(Vec<I>) -> Values,
    ) -> Instance {
        let mut inst = Instance {
            format: self.format.clone(),
            value_type: V::TYPE,
            ..Instance::default()
        };
        for (name, extent) in self.dims.iter().zip(&c.dims) {
            inst.symbols.insert(name.clone(), *extent);
        }
        inst.symbols.insert(self.count.clone(), c.len() as i64);
        for (name, values) in self.index.iter().zip(c.indices) {
            inst.arrays.insert(name.clone(), column(values));
        }
        inst.arrays
            .insert(self.values.clone(), V::into_values(c.values));
        inst
    }
}

/// The nonzero entries of `c`, sorted by coordinate (values as doubles,
/// as the oracle reads them): the records (linearized coordinate, value)
/// radix-sorted, when the coordinates' spans allow ([`Linear`]), else
/// through [`coordinate_order`].
fn sorted_nonzeros<V: CooValue>(c: &CooTensor<i64, V>) -> Entries {
    let arity = c.indices.len();
    let key = |e: usize, k: usize| c.indices[k][e];
    let mut entries = Entries {
        arity,
        coords: Vec::with_capacity(c.len() * arity),
        values: Vec::with_capacity(c.len()),
    };
    let Some(linear) = Linear::of(c.len(), arity, &key) else {
        for e in coordinate_order(c.len(), arity, key) {
            let v = c.values[e];
            if !v.is_zero() {
                entries
                    .coords
                    .extend(c.indices.iter().map(|column| column[e]));
                entries.values.push(v.to_f64());
            }
        }
        return entries;
    };
    let mut records: Vec<(u64, u64)> = (0..c.len())
        .filter(|&e| !c.values[e].is_zero())
        .map(|e| {
            (
                linear.key((0..arity).map(|k| key(e, k))),
                c.values[e].to_f64().to_bits(),
            )
        })
        .collect();
    linear.sort(&mut records);
    for (k, v) in records {
        linear.coordinate(k, &mut entries.coords);
        entries.values.push(f64::from_bits(v));
    }
    entries
}

/// Instances of the coordinate format of an order, made from coordinates
/// (here, beside [`CoordinateFormat`], which knows that format's layout).
impl Instance {
    /// The instance of the coordinate format of `c`'s order
    /// ([`crate::builtin::coordinate_format`]: COO, COO3D, COO4D, ...)
    /// holding `c`'s entries in their order: what a coordinate file
    /// (`.mtx`, `.tns`) is read as. Its names are that descriptor's (`row`,
    /// `col`, `z`, `A` for COO3D).
    ///
    /// ```
    /// use synth::instance::{Instance, Values};
    /// use synth::tensor_io::Coordinates;
    /// let c = Coordinates { dims: vec![2, 3], entries: vec![(vec![1, 2], 5.0)] };
    /// let i = Instance::from_coordinates(&c);
    /// assert_eq!(i.format, "COO");
    /// assert_eq!(i.symbols["NNZ"], 1);
    /// assert_eq!(i.arrays["col"], Values::Int(vec![2].into()));
    /// ```
    ///
    /// # Panics
    ///
    /// For coordinates of no dimension, which no reader makes and no
    /// coordinate format stores.
    pub fn from_coordinates(c: &crate::tensor_io::Coordinates) -> Instance {
        CoordinateFormat::of_order(c.order())
            .unwrap_or_else(|| panic!("no coordinate format has order {}", c.order()))
            .instance_of(crate::tensor_io::CooTensor::from_coordinates(c))
    }
}

/// Whether `columns` (one per dimension, `n` entries each) hold every
/// index inside its extent in `dims` and no two entries at one coordinate
/// (the readers' search: [`crate::tensor_io::duplicates`]). False too
/// when the extents' product does not fit 64 bits.
fn distinct_inside<I: IndexInt>(columns: &[&[I]], dims: &[i64], n: usize) -> bool {
    use crate::tensor_io::duplicates::{has_repeated_keys, row_major_strides};
    let inside = columns.len() == dims.len()
        && columns.iter().zip(dims).all(|(c, &extent)| {
            c.len() == n
                && c.iter().all(|&i| {
                    let i: i64 = i.into();
                    0 <= i && i < extent
                })
        });
    let Some(strides) = row_major_strides(dims).filter(|_| inside) else {
        return false;
    };
    !has_repeated_keys(n, |e| {
        columns
            .iter()
            .zip(&strides)
            .map(|(c, &s)| (c[e].into() as u64).wrapping_mul(s))
            .fold(0u64, u64::wrapping_add)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::load_format;
    use crate::instance_validation::validate_entries;
    use crate::tensor_io::{read_checked_coo_file, ReadOptions};

    fn format(name: &str) -> Descriptor {
        load_format(name).expect("built-in")
    }

    /// A COO instance's fingerprint is taken in one pass exactly when
    /// the format's check passes: the same fingerprint as its entries',
    /// at either width of the columns; `None` for a repeated coordinate,
    /// an index outside its extent, a value that is not finite, a column
    /// of the wrong length or values that are not doubles.
    #[test]
    fn coordinates_are_fingerprinted_in_one_pass_only_when_their_check_passes() {
        let coo = format("coo");
        let f = CoordinateFormat::of(&coo).expect("a coordinate format");
        let instance = |row: Vec<i64>, col: Vec<i64>, a: Values| {
            let mut inst = Instance {
                format: "COO".into(),
                ..Instance::default()
            };
            inst.symbols.insert("NR".into(), 3);
            inst.symbols.insert("NC".into(), 4);
            inst.symbols.insert("NNZ".into(), a.len() as i64);
            inst.arrays.insert("row".into(), Values::Int(row.into()));
            inst.arrays.insert("col".into(), Values::Int(col.into()));
            inst.arrays.insert("A".into(), a);
            inst
        };
        let reals = |v: &[f64]| Values::Real(v.to_vec().into());
        let good = instance(vec![2, 0, 1], vec![3, 0, 0], reals(&[1.0, -2.0, 0.5]));
        let want = Fingerprint::of_entries(&validate_entries(&coo, &good).expect("valid"));
        assert_eq!(f.established_fingerprint(&good), Some(want));
        let mut narrow = good.clone();
        for name in ["row", "col"] {
            let v = narrow.arrays[name].as_ints().expect("ints").into_owned();
            let v: Vec<i32> = v.iter().map(|&x| x as i32).collect();
            narrow.arrays.insert(name.into(), Values::Int32(v.into()));
        }
        assert_eq!(f.established_fingerprint(&narrow), Some(want));
        for (bad, what) in [
            (
                instance(vec![2, 0, 2], vec![3, 0, 3], reals(&[1.0, 2.0, 3.0])),
                "a repeated coordinate",
            ),
            (
                instance(vec![2, 0, 3], vec![3, 0, 0], reals(&[1.0, 2.0, 3.0])),
                "a row outside NR",
            ),
            (
                instance(vec![2, 0, 1], vec![3, -1, 0], reals(&[1.0, 2.0, 3.0])),
                "a negative column",
            ),
            (
                instance(vec![2, 0, 1], vec![3, 0, 0], reals(&[1.0, f64::NAN, 3.0])),
                "a value that is not finite",
            ),
            (
                instance(vec![2, 0], vec![3, 0, 0], reals(&[1.0, 2.0, 3.0])),
                "a short column",
            ),
            (
                instance(
                    vec![2, 0, 1],
                    vec![3, 0, 0],
                    Values::Real32(vec![1.0f32, 2.0, 3.0].into()),
                ),
                "float32 values",
            ),
        ] {
            assert_eq!(f.established_fingerprint(&bad), None, "{what}");
        }
    }

    #[test]
    fn the_coordinate_formats_are_recognized_and_no_other() {
        let coo = CoordinateFormat::of(&format("coo")).expect("COO is one");
        assert_eq!(coo.index, ["row", "col"]);
        assert_eq!((coo.count.as_str(), coo.values.as_str()), ("NNZ", "A"));
        let coo3 = CoordinateFormat::of(&format("coo3d")).expect("COO3D is one");
        assert_eq!(coo3.index, ["row", "col", "z"]);
        // Sorted coordinate formats have rules the readers do not establish.
        for name in ["scoo", "csr", "csc", "dia", "ell"] {
            assert!(CoordinateFormat::of(&format(name)).is_none(), "{name}");
        }
        // COO with one more rule (its entries sorted by row) is not one.
        let mut sorted = format("coo");
        let extra = format("scoo").rules;
        sorted.rules.extend(extra);
        assert!(CoordinateFormat::of(&sorted).is_none());
        // Nor is COO without its range on the columns.
        let mut loose = format("coo");
        loose.ufs[1].range = "{[y] : 0 <= y}".parse().expect("a set");
        assert!(CoordinateFormat::of(&loose).is_none());
    }

    /// Every order's coordinate format is one, and the instance of
    /// coordinates of that order (`Instance::from_coordinates`) bears its
    /// descriptor's names and validates against it.
    #[test]
    fn coordinates_of_every_order_make_an_instance_of_its_coordinate_format() {
        assert_eq!(CoordinateFormat::of_order(0), None);
        for order in 1..=5 {
            let d = crate::builtin::coordinate_format(order).expect("a coordinate format");
            let f = CoordinateFormat::of_order(order).expect("recognized");
            assert_eq!(Some(&f), CoordinateFormat::of(&d).as_ref());
            let c = crate::tensor_io::Coordinates {
                dims: (2..2 + order as i64).collect(),
                entries: vec![(vec![1; order], 2.5), (vec![0; order], -1.0)],
            };
            let inst = Instance::from_coordinates(&c);
            assert_eq!(inst.format, d.name);
            assert_eq!(inst.symbols[&f.count], 2);
            for (k, (extent, index)) in f.dims.iter().zip(&f.index).enumerate() {
                assert_eq!(inst.symbols[extent], 2 + k as i64, "{order}: {extent}");
                assert_eq!(
                    inst.arrays[index],
                    Values::Int(vec![1, 0].into()),
                    "{order}: {index}"
                );
            }
            assert_eq!(inst.arrays[&f.values], Values::Real(vec![2.5, -1.0].into()));
            crate::instance_validation::validate(&d, &inst).expect("valid");
        }
        let coo3 = Instance::from_coordinates(&crate::tensor_io::Coordinates {
            dims: vec![1, 1, 1],
            entries: Vec::new(),
        });
        let names: Vec<&String> = coo3.arrays.keys().collect();
        assert_eq!(names, ["A", "col", "row", "z"]);
    }

    #[test]
    fn the_instance_and_its_entries_are_what_validation_gives() {
        let coo = format("coo");
        let f = CoordinateFormat::of(&coo).expect("COO");
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/matrices");
        for m in ["jgl009.mtx", "lund_a.mtx", "pores_1.mtx"] {
            let path = std::path::Path::new(dir).join(m);
            let read = read_checked_coo_file(&path, &ReadOptions::default()).expect("readable");
            let (inst, entries) = f.instance(read).expect("an instance");
            let full = validate_entries(&coo, &inst).expect("valid in full");
            assert_eq!(entries, full, "{m}");
        }
    }

    #[test]
    fn columns_read_at_32_bits_stay_so_with_the_same_fingerprint() {
        let coo = format("coo");
        let f = CoordinateFormat::of(&coo).expect("COO");
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/matrices");
        let narrow = ReadOptions {
            narrow: true,
            ..ReadOptions::default()
        };
        for m in ["jgl009.mtx", "lund_a.mtx", "pores_1.mtx"] {
            let path = std::path::Path::new(dir).join(m);
            let read = |o: &ReadOptions| read_checked_coo_file(&path, o).expect("readable");
            let (wide, wide_print) = f
                .instance_fingerprinted(read(&ReadOptions::default()))
                .expect("an instance");
            let (thin, thin_print) = f
                .instance_fingerprinted(read(&narrow))
                .expect("an instance");
            assert_eq!(thin_print, wide_print, "{m}");
            for name in ["row", "col"] {
                assert!(matches!(thin.arrays[name], Values::Int32(_)), "{m} {name}");
                assert!(matches!(wide.arrays[name], Values::Int(_)), "{m} {name}");
            }
            let full = validate_entries(&coo, &thin).expect("valid in full");
            assert_eq!(full, validate_entries(&coo, &wide).expect("valid"), "{m}");
            assert_eq!(Fingerprint::of_entries(&full), thin_print, "{m}");
        }
    }
}
