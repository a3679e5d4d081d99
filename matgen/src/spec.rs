//! What a generated matrix or tensor must look like: [`MatrixSpec`] and the
//! structural families of [`Kind`].

/// A matrix (or 3-D tensor) to generate: its size and the statistics the
/// generator reproduces. The catalog's entries are in [`crate::catalog()`];
/// a caller may build its own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatrixSpec {
    /// The name (the SuiteSparse or FROSTT name for the catalog's entries).
    pub name: &'static str,
    /// The structural family and its parameters.
    pub kind: Kind,
    /// The extents at scale 1: rows and columns, or the three modes.
    pub dims: &'static [i64],
    /// The number of stored entries at scale 1.
    pub nnz: u64,
    /// The number of occupied diagonals (distinct `j - i`) at scale 1, where
    /// the sources give it; matrices only.
    pub diagonals: Option<u64>,
    /// The largest number of entries in a row at scale 1, where known.
    pub max_row: Option<u64>,
    /// Whether the matrix is symmetric (pattern and values).
    pub symmetric: bool,
    /// How row lengths are spread, in words.
    pub spread: &'static str,
    /// Where the figures come from and what was assumed.
    pub notes: &'static str,
}

/// The structural families the generator knows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A banded stencil on a grid: a fixed set of diagonals, nearly uniform
    /// rows. The number of occupied diagonals is the same at every scale.
    Stencil(Stencil),
    /// A finite-element matrix: dense `block × block` blocks coupling mesh
    /// nodes within a band, a symmetric pattern, moderately spread rows.
    Fem(Fem),
    /// Power-law row lengths (a truncated Zipf law with the spec's mean and
    /// maximum), columns drawn from a fixed pool of diagonals, nearer ones
    /// more often.
    PowerLaw(PowerLaw),
    /// Independent coordinates per mode, each uniform or skewed: random
    /// uniform matrices, and the 3-D tensors.
    Random(Random),
}

impl Kind {
    /// A short name for listings: `stencil`, `fem`, `power-law`, `random`.
    pub fn label(&self) -> &'static str {
        match self {
            Kind::Stencil(_) => "stencil",
            Kind::Fem(_) => "fem",
            Kind::PowerLaw(_) => "power-law",
            Kind::Random(_) => "random",
        }
    }
}

/// A stencil on a grid of up to three axes, the first axis varying fastest:
/// row `i` is the grid point `(x, y, z)` with `i = x + g0 (y + g1 z)`, and a
/// point `(dx, dy, dz)` of the stencil puts an entry in column
/// `i + dx + g0 (dy + g1 dz)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stencil {
    /// The grid's extents at scale 1 (their product is the number of rows).
    pub grid: &'static [i64],
    /// How many of the leading axes shrink with the scale (by
    /// `scale^(1/scaled_axes)` each); the others keep their extent.
    pub scaled_axes: usize,
    /// The stencil's points.
    pub points: &'static [Point],
    /// When a point's column exists.
    pub clip: Clip,
}

/// One point of a stencil.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    /// The displacement along each axis (unused axes 0).
    pub delta: [i64; 3],
    /// Restricts the point to the rows whose coordinate on the grid's last
    /// axis is this value (block-structured systems); `None`: every row.
    pub layer: Option<i64>,
}

impl Point {
    /// A point that applies to every row.
    pub const fn at(dx: i64, dy: i64, dz: i64) -> Point {
        Point {
            delta: [dx, dy, dz],
            layer: None,
        }
    }

    /// A point that applies to the rows of one layer of the last axis.
    pub const fn in_layer(layer: i64, dx: i64, dy: i64, dz: i64) -> Point {
        Point {
            delta: [dx, dy, dz],
            layer: Some(layer),
        }
    }
}

/// When a stencil point's column exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clip {
    /// The neighbour must be inside the grid on every axis (a PDE stencil
    /// with boundaries).
    Grid,
    /// Only the flattened column must be in `[0, n)`: couplings wrap from
    /// the end of one grid line to the start of the next (e.g. dixmaanl's
    /// `x_i x_{i+1}` terms).
    Flat,
}

/// How the number of occupied diagonals follows the scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Band {
    /// The diagonals are a fixed band or pool: their number does not change
    /// with the scale (capped by what the scaled matrix can hold).
    Fixed,
    /// The diagonals spread over the whole matrix: their number shrinks in
    /// proportion with the scale.
    Proportional,
}

/// A finite-element matrix: mesh nodes of `block` unknowns each, coupled to
/// neighbours at node offsets drawn log-uniformly from a band chosen so that
/// the occupied diagonals match the spec's (within `block`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fem {
    /// Unknowns per node: the dense blocks are `block × block`.
    pub block: i64,
    /// How the band follows the scale.
    pub band: Band,
}

/// Power-law rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PowerLaw {
    /// The shortest row.
    pub min_row: i64,
    /// Whether every row stores its diagonal entry.
    pub diagonal: bool,
    /// How the pool of diagonals follows the scale.
    pub band: Band,
}

/// Independent coordinates per mode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Random {
    /// Per mode, the exponent `a` of an index density close to `x^-a`
    /// (0: uniform, 1: log-uniform); heavy indices are scattered over the
    /// mode by a seeded bijection.
    pub skew: &'static [f64],
    /// Per mode, whether its extent shrinks with the scale (a tensor's short
    /// relation mode keeps its extent).
    pub scaled: &'static [bool],
}
