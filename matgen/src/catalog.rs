//! The papers' test sets: the matrices of the dissertation's Table 4.4 (the
//! same as Chou et al.'s Table 2) and the 3-D tensors of its Table 4.5.
//!
//! # Sources and assumptions
//!
//! Rows, columns and nnz are the SuiteSparse collection's exact figures; they
//! round to the tables' (Table 4.4 prints rma10's nnz as 2.4M, Table 2 as
//! 2.37M: 2,374,001). The number of occupied diagonals and the longest row
//! are Chou et al.'s Table 2; where it prints "26K" the spec says 26,000.
//! Symmetry is SuiteSparse's (Table 2 greys the non-symmetric ones, which
//! the text of the paper does not preserve).
//!
//! Neither paper describes the matrices' inner structure; each spec's
//! `notes` says what was assumed. In short:
//!
//! - **Stencils.** jnlbrng1, obstclae (200×200), chem_master1 (201×201) and
//!   ecology1 (1000×1000) are 5-point stencils on square grids; Lin
//!   (80×80×40) and atmosmodd (148×148×58) 7-point stencils on boxes;
//!   denormal a 13-point (biharmonic) stencil on a 300×298 image; for each
//!   the grid reproduces the collection's nnz exactly. dixmaanl is the CUTE
//!   dixmaan Hessian (couplings `i±1`, `i±n/3`, `i±2n/3`), also exact.
//!   Baumann is taken as a 7-point stencil on 101×101×11 with 1.9% of its
//!   off-diagonal couplings missing (the full stencil has 760,631 entries);
//!   shyy161 as two coupled 5-point fields on 160×239 (7 diagonals, at most 6
//!   per row) with a third of the couplings missing to reach its mean of
//!   4.3 per row; majorbasis as a 2×2 block system on 400×200 whose two row
//!   blocks use 11 disjoint diagonals each (22 in all, 11 per row).
//! - **Finite elements** (pdb1HYS, rma10, cant, consph, cop20k_A, shipsec1,
//!   pwtk): dense node blocks (3×3 for the 3-D solids, 6×6 for pwtk's
//!   6-degree-of-freedom nodes, 1×1 for rma10 and cop20k_A) within a band
//!   sized to give Table 2's diagonal count (to within the block size);
//!   neighbour offsets are log-uniform in the band, so most couplings are
//!   near the diagonal and a few far.
//! - **Power law** (scircuit, webbase-1M, mac_econ_fwd500): a truncated
//!   Zipf law for row lengths with the matrix's mean and Table 2's maximum,
//!   columns from a pool of exactly Table 2's number of diagonals.
//! - **Tensors.** FROSTT's shapes; the conversion of Table 4.5 must fit in
//!   the 24 GiB of the benchmark machine, see [`TENSOR_NNZ_BUDGET`].

use crate::spec::{Band, Clip, Fem, Kind, MatrixSpec, Point, PowerLaw, Random, Stencil};

/// The largest 3-D tensor, in stored entries, that the catalog holds.
///
/// Measured on darpa at scale 0.1 (2.8M nonzeros): `synth::tensor_io`
/// reading the `.tns` file peaks at about 170 bytes per nonzero (the text,
/// its `Coordinates` and the duplicate map). A COO3D→MCOO3 conversion adds
/// the source and destination arrays (3 indices and a value each: 64 bytes)
/// and a permutation with its Morton keys (about 24 bytes): some 260 bytes
/// per nonzero in all, so 32 million nonzeros need about 8.5 GB, which
/// leaves room within the benchmark machine's 24 GiB for a baseline run side
/// by side and for the operating system. (Generating darpa at full size with
/// `spf generate` peaks at 2.7 GB.) darpa (28.4M) fits as it is;
/// freebase-music (99.5M) and freebase-sampled (139.9M) are shrunk to this
/// many nonzeros, their two entity modes by the same factor, their relation
/// mode unchanged.
pub const TENSOR_NNZ_BUDGET: u64 = 32_000_000;

const FIVE_POINT: &[Point] = &[
    Point::at(0, 0, 0),
    Point::at(1, 0, 0),
    Point::at(-1, 0, 0),
    Point::at(0, 1, 0),
    Point::at(0, -1, 0),
];

const SEVEN_POINT: &[Point] = &[
    Point::at(0, 0, 0),
    Point::at(1, 0, 0),
    Point::at(-1, 0, 0),
    Point::at(0, 1, 0),
    Point::at(0, -1, 0),
    Point::at(0, 0, 1),
    Point::at(0, 0, -1),
];

/// The 13-point biharmonic stencil: distance 1 and 2 along the axes, and
/// the four diagonal neighbours.
const THIRTEEN_POINT: &[Point] = &[
    Point::at(0, 0, 0),
    Point::at(1, 0, 0),
    Point::at(-1, 0, 0),
    Point::at(2, 0, 0),
    Point::at(-2, 0, 0),
    Point::at(0, 1, 0),
    Point::at(0, -1, 0),
    Point::at(0, 2, 0),
    Point::at(0, -2, 0),
    Point::at(1, 1, 0),
    Point::at(1, -1, 0),
    Point::at(-1, 1, 0),
    Point::at(-1, -1, 0),
];

/// dixmaan on `n = 3m` unknowns as a grid `m × 3` with flat clipping:
/// offsets `±1` (`x_i x_{i+1}`), `±m` and `±2m`.
const DIXMAAN: &[Point] = &[
    Point::at(0, 0, 0),
    Point::at(1, 0, 0),
    Point::at(-1, 0, 0),
    Point::at(0, 1, 0),
    Point::at(0, -1, 0),
    Point::at(0, 2, 0),
    Point::at(0, -2, 0),
];

/// Two fields on one 2-D grid (layers 0 and 1), each a 5-point stencil
/// coupled to the other field at the same grid point.
const TWO_FIELDS: &[Point] = &[
    Point::at(0, 0, 0),
    Point::at(1, 0, 0),
    Point::at(-1, 0, 0),
    Point::at(0, 1, 0),
    Point::at(0, -1, 0),
    Point::in_layer(0, 0, 0, 1),
    Point::in_layer(1, 0, 0, -1),
];

/// A 2×2 block system: the first row block (layer 0) couples to itself
/// along x and y at distance 1 and 2 and to two points of the second block;
/// the second couples to five points of the first and to itself at
/// distance 3 and along the grid's diagonals. The two sets of diagonals
/// are disjoint: 22 in all, 11 per row.
const BLOCK_SYSTEM: &[Point] = &[
    Point::in_layer(0, 0, 0, 0),
    Point::in_layer(0, 1, 0, 0),
    Point::in_layer(0, -1, 0, 0),
    Point::in_layer(0, 2, 0, 0),
    Point::in_layer(0, -2, 0, 0),
    Point::in_layer(0, 0, 1, 0),
    Point::in_layer(0, 0, -1, 0),
    Point::in_layer(0, 0, 2, 0),
    Point::in_layer(0, 0, -2, 0),
    Point::in_layer(0, 0, 0, 1),
    Point::in_layer(0, 0, 1, 1),
    Point::in_layer(1, 0, 0, -1),
    Point::in_layer(1, 1, 0, -1),
    Point::in_layer(1, -1, 0, -1),
    Point::in_layer(1, 0, 1, -1),
    Point::in_layer(1, 0, -1, -1),
    Point::in_layer(1, 3, 0, 0),
    Point::in_layer(1, -3, 0, 0),
    Point::in_layer(1, 1, 1, 0),
    Point::in_layer(1, -1, -1, 0),
    Point::in_layer(1, 1, -1, 0),
    Point::in_layer(1, -1, 1, 0),
];

const fn stencil(grid: &'static [i64], points: &'static [Point]) -> Kind {
    Kind::Stencil(Stencil {
        grid,
        scaled_axes: grid.len(),
        points,
        clip: Clip::Grid,
    })
}

const fn fem(block: i64, band: Band) -> Kind {
    Kind::Fem(Fem { block, band })
}

const fn power_law(diagonal: bool, band: Band) -> Kind {
    Kind::PowerLaw(PowerLaw {
        min_row: 1,
        diagonal,
        band,
    })
}

const STENCIL_SPREAD: &str = "uniform: every interior row has one entry per stencil point";
const FEM_SPREAD: &str = "moderate: block rows vary with the node's number of neighbours";

/// The catalog, in the order of Table 4.4, then the tensors.
static CATALOG: &[MatrixSpec] = &[
    MatrixSpec {
        name: "pdb1HYS",
        kind: fem(3, Band::Proportional),
        dims: &[36_417, 36_417],
        nnz: 4_344_765,
        diagonals: Some(26_000),
        max_row: Some(204),
        symmetric: true,
        spread: FEM_SPREAD,
        notes: "protein data bank 1HYS; 3 unknowns per atom assumed (3x3 blocks), mean 119 per row",
    },
    MatrixSpec {
        name: "jnlbrng1",
        kind: stencil(&[200, 200], FIVE_POINT),
        dims: &[40_000, 40_000],
        nnz: 199_200,
        diagonals: Some(5),
        max_row: Some(5),
        symmetric: true,
        spread: STENCIL_SPREAD,
        notes: "journal bearing (MINPACK-2): 5-point stencil on a 200x200 grid, nnz exact",
    },
    MatrixSpec {
        name: "obstclae",
        kind: stencil(&[200, 200], FIVE_POINT),
        dims: &[40_000, 40_000],
        nnz: 199_200,
        diagonals: Some(5),
        max_row: Some(5),
        symmetric: true,
        spread: STENCIL_SPREAD,
        notes: "obstacle problem (MINPACK-2): 5-point stencil on a 200x200 grid; Table 2's 199K",
    },
    MatrixSpec {
        name: "chem_master1",
        kind: stencil(&[201, 201], FIVE_POINT),
        dims: &[40_401, 40_401],
        nnz: 201_201,
        diagonals: Some(5),
        max_row: Some(5),
        symmetric: false,
        spread: STENCIL_SPREAD,
        notes: "chemical master equation: 5-point stencil on a 201x201 grid, nnz exact",
    },
    MatrixSpec {
        name: "rma10",
        kind: fem(1, Band::Proportional),
        dims: &[46_835, 46_835],
        nnz: 2_374_001,
        diagonals: Some(17_000),
        max_row: Some(145),
        symmetric: false,
        spread: FEM_SPREAD,
        notes: "3-D CFD of Charleston harbour; scalar nodes (1x1 blocks), symmetric pattern assumed",
    },
    MatrixSpec {
        name: "dixmaanl",
        kind: Kind::Stencil(Stencil {
            grid: &[20_000, 3],
            scaled_axes: 1,
            points: DIXMAAN,
            clip: Clip::Flat,
        }),
        dims: &[60_000, 60_000],
        nnz: 299_998,
        diagonals: Some(7),
        max_row: Some(5),
        symmetric: true,
        spread: "uniform: 5 entries per row except the first and last",
        notes: "CUTE dixmaan Hessian, n = 3m: offsets +-1, +-m (rows < 2m), +-2m (rows < m), nnz exact",
    },
    MatrixSpec {
        name: "cant",
        kind: fem(3, Band::Fixed),
        dims: &[62_451, 62_451],
        nnz: 4_007_383,
        diagonals: Some(99),
        max_row: Some(78),
        symmetric: true,
        spread: FEM_SPREAD,
        notes: "FEM cantilever: 3x3 blocks in a fixed band (101 diagonals, Table 2: 99)",
    },
    MatrixSpec {
        name: "shyy161",
        kind: Kind::Stencil(Stencil {
            grid: &[160, 239, 2],
            scaled_axes: 2,
            points: TWO_FIELDS,
            clip: Clip::Grid,
        }),
        dims: &[76_480, 76_480],
        nnz: 329_762,
        diagonals: Some(7),
        max_row: Some(6),
        symmetric: false,
        spread: "narrow: 1 to 6 entries, mean 4.3 (a third of the couplings missing)",
        notes: "Navier-Stokes (Shyy): assumed two coupled 5-point fields on 160x239, couplings dropped at random to reach nnz",
    },
    MatrixSpec {
        name: "consph",
        kind: fem(3, Band::Proportional),
        dims: &[83_334, 83_334],
        nnz: 6_010_480,
        diagonals: Some(13_000),
        max_row: Some(81),
        symmetric: true,
        spread: FEM_SPREAD,
        notes: "FEM concentric spheres: 3x3 blocks, mean 72 per row",
    },
    MatrixSpec {
        name: "denormal",
        kind: stencil(&[300, 298], THIRTEEN_POINT),
        dims: &[89_400, 89_400],
        nnz: 1_156_224,
        diagonals: Some(13),
        max_row: Some(13),
        symmetric: true,
        spread: STENCIL_SPREAD,
        notes: "image denoising: 13-point biharmonic stencil on a 300x298 image, nnz exact",
    },
    MatrixSpec {
        name: "Baumann",
        kind: stencil(&[101, 101, 11], SEVEN_POINT),
        dims: &[112_211, 112_211],
        nnz: 748_331,
        diagonals: Some(7),
        max_row: Some(7),
        symmetric: false,
        spread: STENCIL_SPREAD,
        notes: "assumed 7-point stencil on 101x101x11 (760,631 entries) with 1.9% of the couplings dropped at random",
    },
    MatrixSpec {
        name: "cop20k_A",
        kind: fem(1, Band::Proportional),
        dims: &[121_192, 121_192],
        nnz: 2_624_331,
        diagonals: Some(221_000),
        max_row: Some(81),
        symmetric: true,
        spread: FEM_SPREAD,
        notes: "accelerator cavity FEM, unordered mesh: scalar nodes, band nearly the whole matrix",
    },
    MatrixSpec {
        name: "shipsec1",
        kind: fem(3, Band::Proportional),
        dims: &[140_874, 140_874],
        nnz: 3_568_176,
        diagonals: Some(10_000),
        max_row: Some(102),
        symmetric: true,
        spread: FEM_SPREAD,
        notes: "ship section FEM: 3x3 blocks assumed, mean 25 per row",
    },
    MatrixSpec {
        name: "majorbasis",
        kind: Kind::Stencil(Stencil {
            grid: &[400, 200, 2],
            scaled_axes: 2,
            points: BLOCK_SYSTEM,
            clip: Clip::Grid,
        }),
        dims: &[160_000, 160_000],
        nnz: 1_750_416,
        diagonals: Some(22),
        max_row: Some(11),
        symmetric: false,
        spread: "uniform: 11 entries in nearly every row",
        notes: "optimization (MCP): assumed 2x2 block system on 400x200, 11 disjoint diagonals per row block, a few couplings dropped",
    },
    MatrixSpec {
        name: "scircuit",
        kind: power_law(true, Band::Proportional),
        dims: &[170_998, 170_998],
        nnz: 958_936,
        diagonals: Some(159_000),
        max_row: Some(353),
        symmetric: false,
        spread: "power law: mean 5.6, max 353",
        notes: "circuit simulation: every row stores its diagonal",
    },
    MatrixSpec {
        name: "mac_econ_fwd500",
        kind: power_law(true, Band::Fixed),
        dims: &[206_500, 206_500],
        nnz: 1_273_389,
        diagonals: Some(511),
        max_row: Some(44),
        symmetric: false,
        spread: "power law: mean 6.2, max 44",
        notes: "macroeconomic model: a fixed pool of 511 diagonals, every row stores its diagonal",
    },
    MatrixSpec {
        name: "pwtk",
        kind: fem(6, Band::Proportional),
        dims: &[217_918, 217_918],
        nnz: 11_524_432,
        diagonals: Some(20_000),
        max_row: Some(180),
        symmetric: true,
        spread: FEM_SPREAD,
        notes: "pressurized wind tunnel: 6 unknowns per node assumed (6x6 blocks), mean 53 per row",
    },
    MatrixSpec {
        name: "Lin",
        kind: stencil(&[80, 80, 40], SEVEN_POINT),
        dims: &[256_000, 256_000],
        nnz: 1_766_400,
        diagonals: Some(7),
        max_row: Some(7),
        symmetric: true,
        spread: STENCIL_SPREAD,
        notes: "7-point stencil on an 80x80x40 box, nnz exact",
    },
    MatrixSpec {
        name: "ecology1",
        kind: stencil(&[1000, 1000], FIVE_POINT),
        dims: &[1_000_000, 1_000_000],
        nnz: 4_996_000,
        diagonals: Some(5),
        max_row: Some(5),
        symmetric: true,
        spread: STENCIL_SPREAD,
        notes: "landscape ecology (circuitscape): 5-point stencil on a 1000x1000 grid, nnz exact",
    },
    MatrixSpec {
        name: "webbase-1M",
        kind: power_law(false, Band::Proportional),
        dims: &[1_000_005, 1_000_005],
        nnz: 3_105_536,
        diagonals: Some(564_000),
        max_row: Some(4_700),
        symmetric: false,
        spread: "power law: mean 3.1, max 4700",
        notes: "web crawl (Table 4.4: webbase1M): links favour nearby pages",
    },
    MatrixSpec {
        name: "atmosmodd",
        kind: stencil(&[148, 148, 58], SEVEN_POINT),
        dims: &[1_270_432, 1_270_432],
        nnz: 8_814_880,
        diagonals: Some(7),
        max_row: Some(7),
        symmetric: false,
        spread: STENCIL_SPREAD,
        notes: "atmospheric model: 7-point stencil on a 148x148x58 box, nnz exact",
    },
    MatrixSpec {
        name: "darpa",
        kind: Kind::Random(Random {
            skew: &[0.8, 0.8, 0.0],
            scaled: &[true, true, true],
        }),
        dims: &[22_476, 22_476, 23_776_223],
        nnz: 28_436_033,
        diagonals: None,
        max_row: None,
        symmetric: false,
        spread: "skewed source and destination hosts, uniform time",
        notes: "FROSTT DARPA 1998 intrusion detection (source x destination x time); fits the budget unscaled",
    },
    MatrixSpec {
        name: "freebase-music",
        kind: Kind::Random(Random {
            skew: &[0.8, 0.8, 0.5],
            scaled: &[true, true, false],
        }),
        dims: &[7_505_000, 7_505_000, 166],
        nnz: TENSOR_NNZ_BUDGET,
        diagonals: None,
        max_row: None,
        symmetric: false,
        spread: "skewed entities and relations",
        notes: "FROSTT freebase-music (Table 4.5: f-m), 23.3M x 23.3M x 166 with 99.5M nnz, entity modes and nnz scaled by 0.32",
    },
    MatrixSpec {
        name: "freebase-sampled",
        kind: Kind::Random(Random {
            skew: &[0.8, 0.8, 0.5],
            scaled: &[true, true, false],
        }),
        dims: &[8_909_000, 8_909_000, 532],
        nnz: TENSOR_NNZ_BUDGET,
        diagonals: None,
        max_row: None,
        symmetric: false,
        spread: "skewed entities and relations",
        notes: "FROSTT freebase-sampled (Table 4.5: fb-s), 39.0M x 39.0M x 532 with 139.9M nnz, entity modes and nnz scaled by 0.229",
    },
];

/// Every matrix and tensor of the papers' test sets: Table 4.4 of the
/// dissertation (= Chou et al.'s Table 2) in its order, then the tensors of
/// Table 4.5 shrunk to fit the benchmark machine ([`TENSOR_NNZ_BUDGET`]).
pub fn catalog() -> &'static [MatrixSpec] {
    CATALOG
}

/// The catalog entry called `name`, ignoring case, `-` and `_` (so
/// `webbase1M`, Table 4.4's spelling, finds `webbase-1M`); the tables'
/// short tensor names `f-m` and `fb-s` are accepted too.
pub fn find(name: &str) -> Option<&'static MatrixSpec> {
    let key = |s: &str| -> String {
        s.chars()
            .filter(|c| *c != '-' && *c != '_')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let wanted = match key(name).as_str() {
        "fm" => key("freebase-music"),
        "fbs" => key("freebase-sampled"),
        other => other.to_string(),
    };
    CATALOG.iter().find(|s| key(s.name) == wanted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_loosely() {
        assert_eq!(find("webbase1M").map(|s| s.name), Some("webbase-1M"));
        assert_eq!(find("ECOLOGY1").map(|s| s.name), Some("ecology1"));
        assert_eq!(find("chem-master1").map(|s| s.name), Some("chem_master1"));
        assert_eq!(find("f-m").map(|s| s.name), Some("freebase-music"));
        assert_eq!(find("fb-s").map(|s| s.name), Some("freebase-sampled"));
        assert!(find("nothing").is_none());
    }

    #[test]
    fn specs_are_consistent() {
        for s in catalog() {
            assert!(s.dims.iter().all(|&d| d > 0), "{}", s.name);
            let cells: f64 = s.dims.iter().map(|&d| d as f64).product();
            assert!((s.nnz as f64) < cells / 2.0, "{}", s.name);
            match s.kind {
                Kind::Stencil(st) => {
                    let n: i64 = st.grid.iter().product();
                    assert_eq!(s.dims, &[n, n], "{}", s.name);
                    assert_eq!(s.diagonals, Some(st.points.len() as u64), "{}", s.name);
                }
                Kind::Random(r) => {
                    assert_eq!(r.skew.len(), s.dims.len(), "{}", s.name);
                    assert_eq!(r.scaled.len(), s.dims.len(), "{}", s.name);
                    assert!(s.nnz <= TENSOR_NNZ_BUDGET, "{}", s.name);
                }
                Kind::Fem(_) | Kind::PowerLaw(_) => {
                    assert_eq!(s.dims.len(), 2, "{}", s.name);
                    assert!(s.diagonals.is_some() && s.max_row.is_some(), "{}", s.name);
                }
            }
        }
    }
}
