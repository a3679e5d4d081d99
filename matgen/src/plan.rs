//! From a spec and a scale to the concrete parameters a generator uses, and
//! the statistics it aims at ([`Targets`]).

use crate::rng::{ln, pow};
use crate::spec::{Band, Clip, Fem, Kind, MatrixSpec, PowerLaw, Random, Stencil};

/// The smallest extent a scaled grid axis gets (so that every stencil point
/// stays distinct and occupied).
const MIN_AXIS: i64 = 8;

/// Matrices other than stencils keep at least this many rows per entry of
/// their longest row, so that the longest row and the band still fit.
const ROWS_PER_MAX_ROW: u64 = 4;

/// A scale outside `(0, 1]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScaleError(pub f64);

impl std::fmt::Display for ScaleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the scale must be in (0, 1], not {}", self.0)
    }
}

impl std::error::Error for ScaleError {}

/// Checks that `scale` is in `(0, 1]` (and not NaN).
pub fn check_scale(scale: f64) -> Result<(), ScaleError> {
    if scale > 0.0 && scale <= 1.0 {
        Ok(())
    } else {
        Err(ScaleError(scale))
    }
}

/// What a generated instance will look like at a scale.
#[derive(Clone, Debug, PartialEq)]
pub struct Targets {
    /// The scale actually applied: the requested one, raised where the
    /// structure needs a minimum size (the longest row must fit in the
    /// matrix; grid axes keep at least 8 points).
    pub scale: f64,
    /// The extents.
    pub dims: Vec<i64>,
    /// The number of stored entries: exact for power-law and random
    /// instances, the expectation for stencils that drop couplings at
    /// random, within a few blocks for finite-element matrices.
    pub nnz: u64,
    /// The number of occupied diagonals, exact where known (matrices).
    pub diagonals: Option<u64>,
    /// The longest row: exact for power-law matrices, an upper bound for
    /// stencils, the spec's figure (approximated) for finite elements.
    pub max_row: Option<u64>,
}

/// The parameters of one generation.
#[derive(Clone, Debug)]
pub(crate) enum Plan {
    Stencil(StencilPlan),
    Fem(FemPlan),
    PowerLaw(PowerLawPlan),
    Random(RandomPlan),
}

#[derive(Clone, Debug)]
pub(crate) struct StencilPlan {
    /// Extents of the three axes (unused ones 1).
    pub grid: [i64; 3],
    /// The index of the last declared axis (where layers are counted).
    pub last_axis: usize,
    pub n: i64,
    pub clip: Clip,
    /// (flattened offset, displacement, layer), sorted by offset.
    pub points: Vec<(i64, [i64; 3], Option<i64>)>,
    /// The probability that an off-diagonal coupling is kept.
    pub keep: f64,
    pub full: u64,
    pub main: u64,
}

#[derive(Clone, Debug)]
pub(crate) struct FemPlan {
    pub n: i64,
    pub block: i64,
    /// Number of nodes (the last may be partial).
    pub nodes: i64,
    /// Half-width of the band, in nodes.
    pub band: i64,
    /// Mean number of neighbours per node (itself excluded).
    pub mean_neighbours: f64,
    /// The most neighbours a node has (itself excluded).
    pub max_neighbours: i64,
    /// Total number of node couplings to reach the spec's nnz.
    pub edges: u64,
}

#[derive(Clone, Debug)]
pub(crate) struct PowerLawPlan {
    pub n: i64,
    pub nnz: u64,
    pub pool: u64,
    pub max_row: i64,
    pub min_row: i64,
    pub diagonal: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct RandomPlan {
    pub dims: Vec<i64>,
    pub skew: Vec<f64>,
    pub nnz: u64,
}

fn round_i64(x: f64) -> i64 {
    x.round() as i64
}

/// Raises `scale` so that `rows · scale >= min_rows`.
fn floor_scale(scale: f64, rows: i64, min_rows: u64) -> f64 {
    let need = (min_rows as f64 / rows as f64).min(1.0);
    scale.max(need)
}

/// The plan and the targets for `spec` at `scale` (checked by the caller).
pub(crate) fn plan(spec: &MatrixSpec, scale: f64) -> (Plan, Targets) {
    match spec.kind {
        Kind::Stencil(st) => plan_stencil(spec, &st, scale),
        Kind::Fem(f) => plan_fem(spec, &f, scale),
        Kind::PowerLaw(p) => plan_power_law(spec, &p, scale),
        Kind::Random(r) => plan_random(spec, &r, scale),
    }
}

fn scaled_grid(st: &Stencil, scale: f64) -> [i64; 3] {
    let mut grid = [1i64; 3];
    let k = st.scaled_axes.clamp(1, st.grid.len());
    let factor = if scale == 1.0 {
        1.0
    } else {
        pow(scale, 1.0 / k as f64)
    };
    for (a, &g) in st.grid.iter().enumerate() {
        grid[a] = if a < st.scaled_axes && scale < 1.0 {
            round_i64(g as f64 * factor).max(g.min(MIN_AXIS))
        } else {
            g
        };
    }
    grid
}

fn flat_offset(grid: &[i64; 3], d: &[i64; 3]) -> i64 {
    d[0] + grid[0] * (d[1] + grid[1] * d[2])
}

/// The number of rows where a stencil point has a column.
fn point_count(
    grid: &[i64; 3],
    last_axis: usize,
    clip: Clip,
    d: &[i64; 3],
    layer: Option<i64>,
) -> u64 {
    let n = grid[0] * grid[1] * grid[2];
    match clip {
        Clip::Grid => {
            let mut count = 1u64;
            for a in 0..3 {
                let g = grid[a];
                let c = match layer {
                    Some(l) if a == last_axis => {
                        u64::from((0..g).contains(&l) && (0..g).contains(&(l + d[a])))
                    }
                    _ => (g - d[a].abs()).max(0) as u64,
                };
                count *= c;
            }
            count
        }
        Clip::Flat => {
            let o = flat_offset(grid, d);
            let (lo, hi) = match layer {
                Some(l) => {
                    let stride = n / grid[last_axis];
                    (l * stride, (l + 1) * stride)
                }
                None => (0, n),
            };
            let (lo, hi) = (lo.max(-o), hi.min(n - o));
            (hi - lo).max(0) as u64
        }
    }
}

fn stencil_counts(st: &Stencil, grid: &[i64; 3]) -> (u64, u64) {
    let last = st.grid.len() - 1;
    let mut full = 0;
    let mut main = 0;
    for p in st.points {
        let c = point_count(grid, last, st.clip, &p.delta, p.layer);
        full += c;
        if flat_offset(grid, &p.delta) == 0 {
            main += c;
        }
    }
    (full, main)
}

fn plan_stencil(spec: &MatrixSpec, st: &Stencil, scale: f64) -> (Plan, Targets) {
    let grid1 = scaled_grid(st, 1.0);
    let (full1, main1) = stencil_counts(st, &grid1);
    let keep = if spec.nnz >= full1 || full1 == main1 {
        1.0
    } else {
        (spec.nnz.saturating_sub(main1)) as f64 / (full1 - main1) as f64
    };
    let grid = scaled_grid(st, scale);
    let (full, main) = stencil_counts(st, &grid);
    let n = grid[0] * grid[1] * grid[2];
    let mut points: Vec<(i64, [i64; 3], Option<i64>)> = st
        .points
        .iter()
        .map(|p| (flat_offset(&grid, &p.delta), p.delta, p.layer))
        .collect();
    points.sort_by_key(|p| p.0);
    let mut offsets: Vec<i64> = points.iter().map(|p| p.0).collect();
    offsets.dedup();
    let nnz = if keep >= 1.0 {
        full
    } else {
        main + ((full - main) as f64 * keep).round() as u64
    };
    let rows1: i64 = st.grid.iter().product();
    let targets = Targets {
        scale: n as f64 / rows1 as f64,
        dims: vec![n, n],
        nnz,
        diagonals: Some(offsets.len() as u64),
        max_row: spec.max_row,
    };
    let plan = StencilPlan {
        grid,
        last_axis: st.grid.len() - 1,
        n,
        clip: st.clip,
        points,
        keep,
        full,
        main,
    };
    (Plan::Stencil(plan), targets)
}

fn plan_fem(spec: &MatrixSpec, f: &Fem, scale: f64) -> (Plan, Targets) {
    let rows = spec.dims[0];
    let max_row = spec.max_row.unwrap_or(1).max(1);
    let scale = floor_scale(scale, rows, ROWS_PER_MAX_ROW * max_row);
    let b = f.block.max(1);
    let n = round_i64(rows as f64 * scale).max(2 * b);
    let nodes = (n + b - 1) / b;
    let nnz = round_i64(spec.nnz as f64 * scale).max(n) as u64;
    let mean_neighbours = (nnz as f64 / (b * b) as f64 / nodes as f64 - 1.0).max(0.0);
    let max_neighbours = (max_row as i64 / b - 1)
        .max(mean_neighbours.ceil() as i64)
        .min(nodes - 1);
    let diagonals = spec.diagonals.unwrap_or((2 * n - 1) as u64);
    let diagonals = match f.band {
        Band::Fixed => diagonals,
        Band::Proportional => round_i64(diagonals as f64 * scale).max(1) as u64,
    };
    // The band must hold the longest node's neighbours on both sides.
    let narrowest = (max_neighbours + 1) / 2;
    let band = (round_i64((diagonals as f64 + 1.0) / (2 * b) as f64) - 1)
        .max(narrowest)
        .clamp(1, (nodes - 1).max(1));
    let reach = (band * b + b - 1).min(n - 1);
    let edges = (mean_neighbours * nodes as f64 / 2.0).round() as u64;
    let targets = Targets {
        scale,
        dims: vec![n, n],
        nnz: (b * b) as u64 * (nodes as u64 + 2 * edges),
        diagonals: Some((2 * reach + 1) as u64),
        max_row: Some(((max_neighbours + 1) * b) as u64),
    };
    let plan = FemPlan {
        n,
        block: b,
        nodes,
        band,
        mean_neighbours,
        max_neighbours,
        edges,
    };
    (Plan::Fem(plan), targets)
}

fn plan_power_law(spec: &MatrixSpec, p: &PowerLaw, scale: f64) -> (Plan, Targets) {
    let rows = spec.dims[0];
    let max_row = spec.max_row.unwrap_or(1).max(1);
    let scale = floor_scale(scale, rows, ROWS_PER_MAX_ROW * max_row);
    let n = round_i64(rows as f64 * scale).max(2);
    let nnz = round_i64(spec.nnz as f64 * scale).max(n) as u64;
    let diagonals = spec.diagonals.unwrap_or((2 * n - 1) as u64);
    let pool = match p.band {
        Band::Fixed => diagonals,
        Band::Proportional => round_i64(diagonals as f64 * scale) as u64,
    };
    let pool = pool
        .max(max_row)
        .min((2 * n - 1) as u64)
        .min(nnz / 2)
        .max(1);
    let max_row = (max_row as i64).min(pool as i64).min(n);
    let targets = Targets {
        scale,
        dims: vec![n, n],
        nnz,
        diagonals: Some(pool),
        max_row: Some(max_row as u64),
    };
    let plan = PowerLawPlan {
        n,
        nnz,
        pool,
        max_row,
        min_row: p.min_row.max(1),
        diagonal: p.diagonal,
    };
    (Plan::PowerLaw(plan), targets)
}

fn plan_random(spec: &MatrixSpec, r: &Random, scale: f64) -> (Plan, Targets) {
    let dims: Vec<i64> = spec
        .dims
        .iter()
        .enumerate()
        .map(|(k, &d)| {
            if r.scaled.get(k).copied().unwrap_or(true) {
                round_i64(d as f64 * scale).max(1)
            } else {
                d
            }
        })
        .collect();
    let cells: f64 = dims.iter().map(|&d| d as f64).product();
    let nnz = (round_i64(spec.nnz as f64 * scale).max(1) as u64).min((cells / 2.0).floor() as u64);
    let skew = (0..dims.len())
        .map(|k| r.skew.get(k).copied().unwrap_or(0.0))
        .collect();
    let targets = Targets {
        scale,
        dims: dims.clone(),
        nnz,
        diagonals: None,
        max_row: None,
    };
    (Plan::Random(RandomPlan { dims, skew, nnz }), targets)
}

/// The exponent `alpha` of a Zipf law on `[lo, hi]` (`P(k) ∝ k^-alpha`)
/// whose mean is `mean`, by bisection; 0 when even the uniform law's mean
/// is too small.
pub(crate) fn zipf_exponent(lo: i64, hi: i64, mean: f64) -> f64 {
    let logs: Vec<f64> = (lo..=hi).map(|k| ln(k as f64)).collect();
    let mean_of = |alpha: f64| -> f64 {
        let (mut w, mut s) = (0.0, 0.0);
        for (i, &l) in logs.iter().enumerate() {
            let p = crate::rng::exp(-alpha * l);
            w += p;
            s += p * (lo + i as i64) as f64;
        }
        s / w
    };
    if mean >= mean_of(0.0) {
        return 0.0;
    }
    let (mut a, mut b) = (0.0f64, 1.0f64);
    while mean_of(b) > mean && b < 64.0 {
        b *= 2.0;
    }
    for _ in 0..60 {
        let mid = 0.5 * (a + b);
        if mean_of(mid) > mean {
            a = mid;
        } else {
            b = mid;
        }
    }
    0.5 * (a + b)
}
