//! What is measured: the conversions of the dissertation's experiments
//! and of the formats of nested and unordered levels, and the baselines
//! each is measured against.

use std::fmt;

/// One conversion of the benchmark: a source format, a destination format,
/// and the order of the entries in the input file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Conversion {
    /// COO → CSR from entries in random (seeded) order.
    CooCsrUnsorted,
    /// COO → CSR from entries in row-major order (the generator's).
    CooCsrSorted,
    /// SCOO → CSR: the source descriptor demands row-sorted entries, as
    /// the sorted-input baselines' work assumes.
    ScooCsr,
    /// COO → CSC from entries in random order.
    CooCsc,
    /// CSR → CSC.
    CsrCsc,
    /// COO → DIA from entries in random order.
    CooDia,
    /// CSR → DIA.
    CsrDia,
    /// CSC → DIA.
    CscDia,
    /// CSR → ELL.
    CsrEll,
    /// CSC → ELL.
    CscEll,
    /// COO3D → MCOO3 (Morton order) from the generator's (lexicographic)
    /// order.
    Coo3dMcoo3,
    /// COO → UCSR (columns in any order within a row) from entries in
    /// random order.
    CooUcsr,
    /// COO → DCSR (only nonempty rows) from entries in random order.
    CooDcsr,
    /// COO → TCOO8 (8 x 8 tiles) from entries in random order.
    CooTcoo8,
    /// COO3D → CSF3 (compressed sparse fiber, mode order i, j, k) from the
    /// generator's order.
    Coo3dCsf3,
}

impl Conversion {
    /// Every conversion, in report order.
    pub const ALL: [Conversion; 15] = [
        Conversion::CooCsrUnsorted,
        Conversion::CooCsrSorted,
        Conversion::ScooCsr,
        Conversion::CooCsc,
        Conversion::CsrCsc,
        Conversion::CooDia,
        Conversion::CsrDia,
        Conversion::CscDia,
        Conversion::CsrEll,
        Conversion::CscEll,
        Conversion::Coo3dMcoo3,
        Conversion::CooUcsr,
        Conversion::CooDcsr,
        Conversion::CooTcoo8,
        Conversion::Coo3dCsf3,
    ];

    /// The short name used on the command line and in file names.
    pub fn slug(self) -> &'static str {
        match self {
            Conversion::CooCsrUnsorted => "coo_csr",
            Conversion::CooCsrSorted => "coo_csr_sorted",
            Conversion::ScooCsr => "scoo_csr",
            Conversion::CooCsc => "coo_csc",
            Conversion::CsrCsc => "csr_csc",
            Conversion::CooDia => "coo_dia",
            Conversion::CsrDia => "csr_dia",
            Conversion::CscDia => "csc_dia",
            Conversion::CsrEll => "csr_ell",
            Conversion::CscEll => "csc_ell",
            Conversion::Coo3dMcoo3 => "coo3d_mcoo3",
            Conversion::CooUcsr => "coo_ucsr",
            Conversion::CooDcsr => "coo_dcsr",
            Conversion::CooTcoo8 => "coo_tcoo8",
            Conversion::Coo3dCsf3 => "coo3d_csf3",
        }
    }

    /// The conversion named `slug`.
    pub fn from_slug(slug: &str) -> Option<Conversion> {
        Conversion::ALL.into_iter().find(|c| c.slug() == slug)
    }

    /// The source format's built-in name (what `spf build` takes).
    pub fn src(self) -> &'static str {
        match self {
            Conversion::CooCsrUnsorted
            | Conversion::CooCsrSorted
            | Conversion::CooCsc
            | Conversion::CooDia
            | Conversion::CooUcsr
            | Conversion::CooDcsr
            | Conversion::CooTcoo8 => "coo",
            Conversion::ScooCsr => "scoo",
            Conversion::CsrCsc | Conversion::CsrDia | Conversion::CsrEll => "csr",
            Conversion::CscDia | Conversion::CscEll => "csc",
            Conversion::Coo3dMcoo3 | Conversion::Coo3dCsf3 => "coo3d",
        }
    }

    /// The destination format's built-in name.
    pub fn dst(self) -> &'static str {
        match self {
            Conversion::CooCsrUnsorted | Conversion::CooCsrSorted | Conversion::ScooCsr => "csr",
            Conversion::CooCsc | Conversion::CsrCsc => "csc",
            Conversion::CooDia | Conversion::CsrDia | Conversion::CscDia => "dia",
            Conversion::CsrEll | Conversion::CscEll => "ell",
            Conversion::Coo3dMcoo3 => "mcoo3",
            Conversion::CooUcsr => "ucsr",
            Conversion::CooDcsr => "dcsr",
            Conversion::CooTcoo8 => "tcoo8",
            Conversion::Coo3dCsf3 => "csf3",
        }
    }

    /// The destination descriptor's format name (`CSR`, `DIA`, …).
    pub fn dst_format(self) -> &'static str {
        match self.dst() {
            "csr" => "CSR",
            "csc" => "CSC",
            "dia" => "DIA",
            "ell" => "ELL",
            "ucsr" => "UCSR",
            "dcsr" => "DCSR",
            "tcoo8" => "TCOO8",
            "csf3" => "CSF3",
            _ => "MCOO3",
        }
    }

    /// Whether the input file's entries are in random order (otherwise the
    /// generator's row-major order).
    pub fn shuffled(self) -> bool {
        matches!(
            self,
            Conversion::CooCsrUnsorted
                | Conversion::CooCsc
                | Conversion::CooDia
                | Conversion::CooUcsr
                | Conversion::CooDcsr
                | Conversion::CooTcoo8
        )
    }

    /// 2 for matrices, 3 for the tensor conversion.
    pub fn order(self) -> usize {
        if matches!(self, Conversion::Coo3dMcoo3 | Conversion::Coo3dCsf3) {
            3
        } else {
            2
        }
    }

    /// Whether the destination pads (DIA, ELL): its size is not nnz.
    pub fn padded(self) -> bool {
        matches!(self.dst(), "dia" | "ell")
    }

    /// The baselines that have this conversion (memcpy always).
    pub fn baselines(self) -> Vec<Baseline> {
        let mut b = vec![Baseline::C];
        match self {
            Conversion::CooCsrUnsorted
            | Conversion::CooCsrSorted
            | Conversion::ScooCsr
            | Conversion::CooCsc
            | Conversion::CsrCsc => {
                b.extend([Baseline::Sprs, Baseline::Nalgebra, Baseline::Scipy]);
            }
            Conversion::CooDia | Conversion::CsrDia | Conversion::CscDia => b.push(Baseline::Scipy),
            Conversion::CsrEll
            | Conversion::CscEll
            | Conversion::Coo3dMcoo3
            | Conversion::CooUcsr
            | Conversion::CooDcsr
            | Conversion::CooTcoo8
            | Conversion::Coo3dCsf3 => {}
        }
        b.push(Baseline::Memcpy);
        b
    }
}

impl fmt::Display for Conversion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Conversion::CooCsrUnsorted => "COO→CSR (unsorted)",
            Conversion::CooCsrSorted => "COO→CSR (row-sorted)",
            Conversion::ScooCsr => "SCOO→CSR",
            Conversion::CooCsc => "COO→CSC",
            Conversion::CsrCsc => "CSR→CSC",
            Conversion::CooDia => "COO→DIA",
            Conversion::CsrDia => "CSR→DIA",
            Conversion::CscDia => "CSC→DIA",
            Conversion::CsrEll => "CSR→ELL",
            Conversion::CscEll => "CSC→ELL",
            Conversion::Coo3dMcoo3 => "COO3D→MCOO3",
            Conversion::CooUcsr => "COO→UCSR",
            Conversion::CooDcsr => "COO→DCSR",
            Conversion::CooTcoo8 => "COO→TCOO8",
            Conversion::Coo3dCsf3 => "COO3D→CSF3",
        };
        f.write_str(name)
    }
}

/// What the generated converter is measured against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Baseline {
    /// Hand-written C of the best known algorithm (bench/c/baselines.c).
    C,
    /// sprs (`TriMat::to_csr`/`to_csc`, `CsMat::to_other_storage`).
    Sprs,
    /// nalgebra-sparse (`CsrMatrix::from(&CooMatrix)`, `CscMatrix::from`).
    Nalgebra,
    /// scipy.sparse (`tocsr`, `tocsc`, `todia`), when python3 has scipy.
    Scipy,
    /// The limit: reading the input's bytes and writing the output's.
    Memcpy,
}

impl Baseline {
    /// Every baseline, in report order.
    pub const ALL: [Baseline; 5] = [
        Baseline::C,
        Baseline::Sprs,
        Baseline::Nalgebra,
        Baseline::Scipy,
        Baseline::Memcpy,
    ];

    /// The name in tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Baseline::C => "c",
            Baseline::Sprs => "sprs",
            Baseline::Nalgebra => "nalgebra",
            Baseline::Scipy => "scipy",
            Baseline::Memcpy => "memcpy",
        }
    }
}

impl fmt::Display for Baseline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
