//! Index widths: how many bits the generated code stores an index-array
//! element in (MLIR's `posWidth` / `crdWidth`).
//!
//! Only the storage of the arrays a generated function takes and returns
//! changes: symbols, loop variables and every computation stay 64-bit
//! (`int64_t`, `i64`), a 32-bit element is widened where it is read and
//! narrowed where it is stored. A narrowing store cannot wrap around: a
//! 32-bit function is only called on an instance whose sizes fit
//! ([`IndexWidth::check`]: every symbol, every array length and every
//! index value at most `2^31 - 1` in magnitude), and the function itself
//! checks its symbols on entry and the length of every array it sizes
//! before it writes it. Every index value it stores is a coordinate
//! (bounded by a dimension, a symbol) or a position (bounded by the length
//! of the array it points into), so these checks cover them all.
//! Temporaries stay 64-bit.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use iegen::computation::ElemType;

pub use crate::value::ValueType;

/// The width of the integers an index array stores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IndexWidth {
    /// `int32_t` / `i32`: half the bytes, for instances whose sizes fit.
    W32,
    /// `int64_t` / `i64`.
    #[default]
    W64,
}

/// A size that does not fit the width asked for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what} is {value}: more than {width}-bit indices hold ({max}); use 64-bit indices")]
pub struct TooWide {
    /// What the size is (`the symbol NNZ`, `the length of col`).
    pub what: String,
    /// Its value.
    pub value: i128,
    /// The width's bits.
    pub width: u32,
    /// The largest magnitude the width holds.
    pub max: i64,
}

impl IndexWidth {
    /// 32 or 64.
    pub fn bits(self) -> u32 {
        match self {
            IndexWidth::W32 => 32,
            IndexWidth::W64 => 64,
        }
    }

    /// The largest value an element holds (`2^31 - 1`, `2^63 - 1`).
    pub fn max(self) -> i64 {
        match self {
            IndexWidth::W32 => i64::from(i32::MAX),
            IndexWidth::W64 => i64::MAX,
        }
    }

    /// Whether `value` fits, as a size or an index value: `|value| <=
    /// max()` (the negated maximum too, so that an offset `j - i` of two
    /// coordinates that fit fits as well).
    pub fn fits(self, value: i128) -> bool {
        let max = i128::from(self.max());
        (-max..=max).contains(&value)
    }

    /// `Ok` when `value` fits ([`IndexWidth::fits`]), otherwise the error
    /// that names `what`.
    ///
    /// # Errors
    ///
    /// [`TooWide`] naming the size.
    pub fn check(self, what: impl fmt::Display, value: i128) -> Result<(), TooWide> {
        if self.fits(value) {
            return Ok(());
        }
        Err(TooWide {
            what: what.to_string(),
            value,
            width: self.bits(),
            max: self.max(),
        })
    }

    /// The C type of an element: `int32_t`, `int64_t`.
    pub fn c_type(self) -> &'static str {
        match self {
            IndexWidth::W32 => "int32_t",
            IndexWidth::W64 => "int64_t",
        }
    }

    /// The Rust type of an element: `i32`, `i64`.
    pub fn rust_type(self) -> &'static str {
        match self {
            IndexWidth::W32 => "i32",
            IndexWidth::W64 => "i64",
        }
    }

    /// Bytes per element.
    pub fn bytes(self) -> usize {
        self.bits() as usize / 8
    }
}

impl fmt::Display for IndexWidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.bits())
    }
}

impl FromStr for IndexWidth {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "32" => Ok(IndexWidth::W32),
            "64" => Ok(IndexWidth::W64),
            _ => Err(format!("an index width is 32 or 64, not `{s}`")),
        }
    }
}

/// The index width a command is asked for: one width, or `auto`, the
/// narrowest the instance's sizes fit ([`IndexWidths::narrowest`]), decided
/// when the instance is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WidthChoice {
    /// 32 when every size fits, else 64.
    #[default]
    Auto,
    /// This width; an instance that does not fit it is an error.
    Fixed(IndexWidth),
}

impl fmt::Display for WidthChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WidthChoice::Auto => f.write_str("auto"),
            WidthChoice::Fixed(w) => write!(f, "{w}"),
        }
    }
}

impl FromStr for WidthChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(WidthChoice::Auto),
            _ => s
                .parse()
                .map(WidthChoice::Fixed)
                .map_err(|_| format!("an index width is 32, 64 or auto, not `{s}`")),
        }
    }
}

/// What an index array holds, which decides its width (MLIR's `posWidth`
/// and `crdWidth`): positions (pointers into the arrays of the next level,
/// bounded by a number of stored entries) or coordinates (bounded by a
/// dimension).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IndexKind {
    /// Pointer arrays: `rowptr`, `ptr1`.
    Position,
    /// Coordinate arrays: `col`, `rowidx`, `off`.
    Coordinate,
}

/// The widths of a conversion's index arrays, by kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IndexWidths {
    /// The pointer arrays' width.
    pub positions: IndexWidth,
    /// The coordinate arrays' width.
    pub coordinates: IndexWidth,
}

impl IndexWidths {
    /// Every index array at `width`.
    pub fn uniform(width: IndexWidth) -> IndexWidths {
        IndexWidths {
            positions: width,
            coordinates: width,
        }
    }

    /// The width of arrays of `kind`.
    pub fn of(self, kind: IndexKind) -> IndexWidth {
        match kind {
            IndexKind::Position => self.positions,
            IndexKind::Coordinate => self.coordinates,
        }
    }

    /// The one width of both kinds, when they agree.
    pub fn uniform_width(self) -> Option<IndexWidth> {
        (self.positions == self.coordinates).then_some(self.positions)
    }

    /// The narrower of the two.
    pub fn narrowest(self) -> IndexWidth {
        self.positions.min(self.coordinates)
    }

    /// A short tag for file names: `i32`, `i64`, `p64c32`.
    pub fn tag(self) -> String {
        match self.uniform_width() {
            Some(w) => format!("i{w}"),
            None => format!("p{}c{}", self.positions, self.coordinates),
        }
    }
}

impl fmt::Display for IndexWidths {
    /// `32-bit indices`, or `64-bit positions and 32-bit coordinates`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.uniform_width() {
            Some(w) => write!(f, "{w}-bit indices"),
            None => write!(
                f,
                "{}-bit positions and {}-bit coordinates",
                self.positions, self.coordinates
            ),
        }
    }
}

/// One size of an instance that an index width must hold: what it is, its
/// value, and the kind of array it belongs to (`None`: a symbol, which
/// every 32-bit array needs to fit, since the generated code checks them
/// all when any array is 32-bit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Size<S> {
    /// The array's kind, or `None` for a symbol.
    pub kind: Option<IndexKind>,
    /// What the size is (`the symbol NNZ`, `col[7]`).
    pub what: S,
    /// Its value.
    pub value: i128,
}

/// The widths a command is asked for, by kind (`--index-width`, and
/// `--pos-width` / `--crd-width` overriding it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WidthChoices {
    /// The pointer arrays' width.
    pub positions: WidthChoice,
    /// The coordinate arrays' width.
    pub coordinates: WidthChoice,
}

impl WidthChoices {
    /// Both kinds chosen alike.
    pub fn uniform(choice: WidthChoice) -> WidthChoices {
        WidthChoices {
            positions: choice,
            coordinates: choice,
        }
    }

    /// `index` for both kinds, each overridden by its own choice when
    /// given.
    pub fn from_flags(
        index: WidthChoice,
        positions: Option<WidthChoice>,
        coordinates: Option<WidthChoice>,
    ) -> WidthChoices {
        WidthChoices {
            positions: positions.unwrap_or(index),
            coordinates: coordinates.unwrap_or(index),
        }
    }

    /// The widths for an instance whose sizes are `sizes`: a fixed width
    /// as asked (every size it must hold checked), `auto` 32 for a kind
    /// when the symbols and that kind's arrays fit 32 bits, else 64. Lazy:
    /// with both kinds fixed at 64 no size is looked at.
    ///
    /// # Errors
    ///
    /// [`TooWide`] naming the first size that does not fit a fixed 32-bit
    /// width.
    pub fn resolve<S: fmt::Display>(
        self,
        sizes: impl IntoIterator<Item = Size<S>>,
    ) -> Result<IndexWidths, TooWide> {
        let start = |c: WidthChoice| match c {
            WidthChoice::Fixed(w) => w,
            WidthChoice::Auto => IndexWidth::W32,
        };
        let mut out = IndexWidths {
            positions: start(self.positions),
            coordinates: start(self.coordinates),
        };
        if out == IndexWidths::uniform(IndexWidth::W64) {
            return Ok(out);
        }
        for size in sizes {
            let kinds: &[IndexKind] = match size.kind {
                Some(IndexKind::Position) => &[IndexKind::Position],
                Some(IndexKind::Coordinate) => &[IndexKind::Coordinate],
                None => &[IndexKind::Position, IndexKind::Coordinate],
            };
            for &kind in kinds {
                let (choice, width) = match kind {
                    IndexKind::Position => (self.positions, &mut out.positions),
                    IndexKind::Coordinate => (self.coordinates, &mut out.coordinates),
                };
                if *width == IndexWidth::W64 || IndexWidth::W32.fits(size.value) {
                    continue;
                }
                match choice {
                    WidthChoice::Auto => *width = IndexWidth::W64,
                    WidthChoice::Fixed(w) => w.check(&size.what, size.value)?,
                }
            }
        }
        Ok(out)
    }
}

/// How an array element is stored: an index of some width, or a value
/// at the function's value type ([`ValueType`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Elem {
    /// An integer of this width.
    Int(IndexWidth),
    /// A value (an element of a `real` data space) of this type.
    Real(ValueType),
}

impl Elem {
    /// The element of an `elem` array stored at `width` (values ignore it)
    /// in a function whose values are of type `values` (indices ignore it).
    pub fn of(elem: ElemType, width: IndexWidth, values: ValueType) -> Elem {
        match elem {
            ElemType::Int => Elem::Int(width),
            ElemType::Real => Elem::Real(values),
        }
    }

    /// The computation's element type.
    pub fn elem_type(self) -> ElemType {
        match self {
            Elem::Int(_) => ElemType::Int,
            Elem::Real(_) => ElemType::Real,
        }
    }

    /// The C type: `int32_t`, `int64_t`, `double`, `float`.
    pub fn c_type(self) -> &'static str {
        match self {
            Elem::Int(w) => w.c_type(),
            Elem::Real(t) => t.c_type(),
        }
    }

    /// The Rust type: `i32`, `i64`, `f64`, `f32`.
    pub fn rust_type(self) -> &'static str {
        match self {
            Elem::Int(w) => w.rust_type(),
            Elem::Real(t) => t.rust_type(),
        }
    }

    /// Bytes per element.
    pub fn bytes(self) -> usize {
        match self {
            Elem::Int(w) => w.bytes(),
            Elem::Real(t) => t.bytes(),
        }
    }
}

/// The index width of each index array a generated function takes or
/// returns, by data-space name: positions and coordinates may differ (as
/// MLIR's `posWidth` and `crdWidth`). Arrays not named take the default;
/// temporaries and scalars are always 64-bit. With the type of the
/// function's values ([`ValueType`], `double` unless set).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Widths {
    default: IndexWidth,
    spaces: BTreeMap<String, IndexWidth>,
    values: ValueType,
}

impl Widths {
    /// Every index array at `width`.
    pub fn uniform(width: IndexWidth) -> Widths {
        Widths {
            default: width,
            spaces: BTreeMap::new(),
            values: ValueType::F64,
        }
    }

    /// The function's values at `values` (builder style).
    #[must_use]
    pub fn with_values(mut self, values: ValueType) -> Widths {
        self.values = values;
        self
    }

    /// The type of the function's values.
    pub fn values(&self) -> ValueType {
        self.values
    }

    /// Data space `space` at `width`.
    #[must_use]
    pub fn with(mut self, space: impl Into<String>, width: IndexWidth) -> Widths {
        self.spaces.insert(space.into(), width);
        self
    }

    /// The width of data space `space`'s elements (if it is an index array
    /// parameter).
    pub fn of(&self, space: &str) -> IndexWidth {
        self.spaces.get(space).copied().unwrap_or(self.default)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_boundary_is_two_to_the_31_minus_one() {
        let max = i128::from(i32::MAX);
        assert!(IndexWidth::W32.fits(max));
        assert!(IndexWidth::W32.fits(-max));
        assert!(!IndexWidth::W32.fits(max + 1));
        assert!(!IndexWidth::W32.fits(-max - 1));
        assert!(IndexWidth::W64.fits(max + 1));
        assert!(!IndexWidth::W64.fits(i128::from(i64::MAX) + 1));
        let e = IndexWidth::W32
            .check("the symbol NNZ", max + 1)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "the symbol NNZ is 2147483648: more than 32-bit indices hold (2147483647); \
             use 64-bit indices"
        );
    }

    #[test]
    fn widths_by_name() {
        let w = Widths::uniform(IndexWidth::W64).with("col", IndexWidth::W32);
        assert_eq!(w.of("col"), IndexWidth::W32);
        assert_eq!(w.of("rowptr"), IndexWidth::W64);
        assert_eq!("32".parse::<IndexWidth>(), Ok(IndexWidth::W32));
        assert!("16".parse::<IndexWidth>().is_err());
    }

    fn size(kind: Option<IndexKind>, what: &'static str, value: i128) -> Size<&'static str> {
        Size { kind, what, value }
    }

    #[test]
    fn choices_resolve_by_the_sizes() {
        use IndexKind::{Coordinate, Position};
        let big = i128::from(i32::MAX) + 1;
        let (w32, w64) = (IndexWidth::W32, IndexWidth::W64);
        let fits = [
            size(None, "the symbol NR", 5),
            size(Some(Coordinate), "col[3]", 7),
        ];
        let auto = WidthChoices::uniform(WidthChoice::Auto);
        assert_eq!(auto.resolve(fits.clone()), Ok(IndexWidths::uniform(w32)));
        // A symbol too big: every kind 64 under auto, an error for a fixed 32.
        let too_big = [
            size(None, "the symbol NR", 5),
            size(None, "the symbol NNZ", big),
        ];
        assert_eq!(auto.resolve(too_big.clone()), Ok(IndexWidths::uniform(w64)));
        let e = WidthChoices::uniform(WidthChoice::Fixed(w32))
            .resolve(too_big.clone())
            .unwrap_err();
        assert_eq!(e.what, "the symbol NNZ");
        // Fixed 64 looks at nothing.
        let never = std::iter::from_fn(|| -> Option<Size<&str>> { panic!("looked at a size") });
        assert_eq!(
            WidthChoices::uniform(WidthChoice::Fixed(w64)).resolve(never),
            Ok(IndexWidths::uniform(w64))
        );
        // A large position decides the positions alone.
        let wide_pos = [
            size(Some(Position), "rowptr[9]", big),
            size(Some(Coordinate), "col[0]", 3),
        ];
        assert_eq!(
            auto.resolve(wide_pos.clone()),
            Ok(IndexWidths {
                positions: w64,
                coordinates: w32
            })
        );
        let mixed =
            WidthChoices::from_flags(WidthChoice::Fixed(w32), Some(WidthChoice::Fixed(w64)), None);
        assert_eq!(
            mixed.resolve(wide_pos.clone()),
            Ok(IndexWidths {
                positions: w64,
                coordinates: w32
            })
        );
        let e = WidthChoices::uniform(WidthChoice::Fixed(w32))
            .resolve(wide_pos)
            .unwrap_err();
        assert_eq!(e.what, "rowptr[9]");
        assert_eq!(
            IndexWidths {
                positions: w64,
                coordinates: w32
            }
            .tag(),
            "p64c32"
        );
        assert_eq!(IndexWidths::uniform(w32).tag(), "i32");
        assert_eq!(
            IndexWidths {
                positions: w64,
                coordinates: w32
            }
            .to_string(),
            "64-bit positions and 32-bit coordinates"
        );
        assert_eq!("auto".parse(), Ok(WidthChoice::Auto));
        assert_eq!("32".parse(), Ok(WidthChoice::Fixed(w32)));
        assert!("128".parse::<WidthChoice>().is_err());
    }

    proptest! {
        /// Symbolic sizes around 2^31 - 1 and 2^63 - 1, each a symbol or
        /// of a kind of array: a size fits a width exactly when its
        /// magnitude is at most the width's maximum; auto picks 32 for a
        /// kind exactly when every symbol and every size of the kind fits,
        /// and a fixed 32 is an error exactly when one of them does not.
        #[test]
        fn sizes_at_the_boundary(
            deltas in proptest::collection::vec(
                (-3i128..=3, any::<bool>(), any::<bool>(), 0usize..3),
                0..6,
            )
        ) {
            let kinds = [None, Some(IndexKind::Position), Some(IndexKind::Coordinate)];
            let sizes: Vec<Size<&str>> = deltas
                .iter()
                .map(|&(d, wide, neg, k)| {
                    let base = if wide { i128::from(i64::MAX) } else { i128::from(i32::MAX) };
                    let value = if neg { -(base + d) } else { base + d };
                    Size { kind: kinds[k], what: "n", value }
                })
                .collect();
            for s in &sizes {
                let v = s.value;
                prop_assert_eq!(IndexWidth::W32.fits(v), v.abs() < (1 << 31));
                prop_assert_eq!(IndexWidth::W64.fits(v), v.abs() < 1i128 << 63);
                prop_assert_eq!(IndexWidth::W32.check("n", v).is_ok(), IndexWidth::W32.fits(v));
            }
            let fits = |kind: IndexKind| {
                sizes
                    .iter()
                    .filter(|s| s.kind.is_none_or(|k| k == kind))
                    .all(|s| s.value.abs() < 1i128 << 31)
            };
            let narrow = |kind| if fits(kind) { IndexWidth::W32 } else { IndexWidth::W64 };
            prop_assert_eq!(
                WidthChoices::uniform(WidthChoice::Auto).resolve(sizes.clone()),
                Ok(IndexWidths {
                    positions: narrow(IndexKind::Position),
                    coordinates: narrow(IndexKind::Coordinate),
                })
            );
            let fixed = WidthChoices::uniform(WidthChoice::Fixed(IndexWidth::W32)).resolve(sizes.clone());
            prop_assert_eq!(
                fixed.is_ok(),
                fits(IndexKind::Position) && fits(IndexKind::Coordinate)
            );
        }
    }
}
