//! The built-in formats: the descriptor files of `descriptors/`, compiled
//! into the crate, and [`load_format`], which takes a built-in name or a
//! path to a descriptor file (wherever a command takes a format).

use std::path::Path;

use iegen::syntax::SyntaxError;

use crate::descriptor::Descriptor;
use crate::descriptor_file::parse_descriptor;

/// The built-in descriptors: name, file text, and what the format is in a
/// line (the README's table of formats says the same; `tests/readme_tour.rs`
/// holds them together).
const BUILTINS: &[(&str, &str, &str)] = &[
    (
        "coo",
        include_str!("../../descriptors/coo.desc"),
        "coordinates (row, column, value) in any order",
    ),
    (
        "scoo",
        include_str!("../../descriptors/scoo.desc"),
        "coordinates sorted by row, then column",
    ),
    (
        "mcoo",
        include_str!("../../descriptors/mcoo.desc"),
        "coordinates in Morton (Z-curve) order",
    ),
    (
        "tcoo8",
        include_str!("../../descriptors/tcoo8.desc"),
        "coordinates in 8 × 8 tiles, row-major inside a tile",
    ),
    (
        "coo3d",
        include_str!("../../descriptors/coo3d.desc"),
        "3-D coordinates in any order",
    ),
    (
        "mcoo3",
        include_str!("../../descriptors/mcoo3.desc"),
        "3-D coordinates in Morton order",
    ),
    (
        "scoo3",
        include_str!("../../descriptors/scoo3.desc"),
        "3-D coordinates sorted by (i, j, k)",
    ),
    (
        "csf3",
        include_str!("../../descriptors/csf3.desc"),
        "compressed sparse fiber, modes i, j, k",
    ),
    (
        "csr",
        include_str!("../../descriptors/csr.desc"),
        "compressed sparse row, columns increasing within a row",
    ),
    (
        "ucsr",
        include_str!("../../descriptors/ucsr.desc"),
        "compressed sparse row, columns in any order",
    ),
    (
        "dcsr",
        include_str!("../../descriptors/dcsr.desc"),
        "doubly compressed sparse row: only the rows that hold entries",
    ),
    (
        "lcsr",
        include_str!("../../descriptors/lcsr.desc"),
        "loose compressed rows: a begin and an end pointer per row, slack between rows",
    ),
    (
        "csc",
        include_str!("../../descriptors/csc.desc"),
        "compressed sparse column",
    ),
    (
        "dia",
        include_str!("../../descriptors/dia.desc"),
        "diagonals: an offset per stored diagonal, zero-padded",
    ),
    (
        "ell",
        include_str!("../../descriptors/ell.desc"),
        "ELLPACK: the same number of slots in every row, zero-padded",
    ),
    (
        "bcsr",
        include_str!("../../descriptors/bcsr.desc"),
        "block compressed sparse row, 2 × 2 blocks",
    ),
    (
        "skyl",
        include_str!("../../descriptors/skyl.desc"),
        "lower skyline, row-wise: each row from its first entry to the diagonal",
    ),
    (
        "skyu",
        include_str!("../../descriptors/skyu.desc"),
        "upper skyline, column-wise: each column from its first entry to the diagonal",
    ),
    (
        "nm24",
        include_str!("../../descriptors/nm24.desc"),
        "2:4 structured sparsity: at most two entries in each aligned block of four columns",
    ),
    (
        "jad",
        include_str!("../../descriptors/jad.desc"),
        "jagged diagonals: rows ranked by their number of entries, most first",
    ),
];

/// What the built-in format `name` is, in a line.
///
/// ```
/// assert_eq!(synth::builtin::summary("csc"), Some("compressed sparse column"));
/// ```
pub fn summary(name: &str) -> Option<&'static str> {
    BUILTINS
        .iter()
        .find(|(n, _, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, _, s)| *s)
}

/// The names of the built-in formats, lower case, in a fixed order.
const NAMES: &[&str] = &[
    "coo", "scoo", "mcoo", "tcoo8", "coo3d", "mcoo3", "scoo3", "csf3", "csr", "ucsr", "dcsr",
    "lcsr", "csc", "dia", "ell", "bcsr", "skyl", "skyu", "nm24", "jad",
];

/// The text of the built-in descriptor called `name` (case-insensitive:
/// `csr`, `CSR`), if there is one.
///
/// ```
/// let text = synth::builtin::builtin("CSR").unwrap();
/// assert!(text.contains("format CSR {"));
/// assert!(synth::builtin::builtin("csr5").is_none());
/// ```
pub fn builtin(name: &str) -> Option<&'static str> {
    BUILTINS
        .iter()
        .find(|(n, _, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, text, _)| *text)
}

/// Whether `d` is a built-in format exactly as built in (equal to what its
/// built-in text parses to). The built-in formats' well-formedness is
/// established once, by the test suite (`synth/tests/descriptors.rs`,
/// `every_builtin_parses_and_passes_check`), so the commands need not prove
/// it again with z3 on every run ([`crate::check::first_error`]).
///
/// ```
/// let mut csr = synth::builtin::load_format("csr").unwrap();
/// assert!(synth::builtin::is_builtin(&csr));
/// csr.dense.reverse();
/// assert!(!synth::builtin::is_builtin(&csr));
/// ```
pub fn is_builtin(d: &Descriptor) -> bool {
    if let Some((r, c)) = block_shape(&d.name) {
        return parse_descriptor(&block_format_text(r, c)).is_ok_and(|b| b == *d);
    }
    builtin(&d.name)
        .and_then(|text| parse_descriptor(text).ok())
        .is_some_and(|b| b == *d)
}

/// The block shape a name of the BCSR family gives: `bcsr3x3` (any case)
/// is BCSR with 3 × 3 blocks, `bcsr4x2` with 4 × 2 ([`block_format_text`]; a
/// block of one row or one column parses, but its conversions do not
/// synthesize);
/// `None` for any other name, and for a block of more than 2^20 values.
///
/// ```
/// assert_eq!(synth::builtin::block_shape("BCSR3x2"), Some((3, 2)));
/// assert_eq!(synth::builtin::block_shape("bcsr"), None);
/// assert_eq!(synth::builtin::block_shape("bcsr0x2"), None);
/// ```
pub fn block_shape(name: &str) -> Option<(i64, i64)> {
    let lower = name.to_ascii_lowercase();
    let (r, c) = lower.strip_prefix("bcsr")?.split_once('x')?;
    let digits = |t: &str| !t.is_empty() && t.len() <= 7 && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(r) || !digits(c) || r.starts_with('0') || c.starts_with('0') {
        return None;
    }
    let (r, c): (i64, i64) = (r.parse().ok()?, c.parse().ok()?);
    (r * c <= 1 << 20).then_some((r, c))
}

/// The name of BCSR with `r × c` blocks: `bcsr` for 2 × 2 (the built-in
/// format), `bcsrRxC` otherwise ([`block_shape`]).
pub fn block_format_name((r, c): (i64, i64)) -> String {
    if (r, c) == (2, 2) {
        "bcsr".into()
    } else {
        format!("bcsr{r}x{c}")
    }
}

/// The descriptor of BCSR with `r × c` blocks, named `BCSR{r}x{c}`:
/// `descriptors/bcsr.desc` with its block size changed (the 2 × 2 text
/// parses to BCSR's descriptor but for the name). A scipy `bsr` matrix of
/// any block shape reads as the one of its shape.
pub fn block_format_text(r: i64, c: i64) -> String {
    let rc = r * c;
    format!(
        "format BCSR{r}x{c} {{
    dense [NR, NC];
    map {{[bi, kb, r, c, ii, jj] -> [i, j] : i = ii && j = jj && 0 <= bi && {r} * bi < NR && browptr(bi) <= kb < browptr(bi + 1) && 0 <= r < {r} && 0 <= c < {c} && ii = {r} * bi + r && jj = {c} * bcol(kb) + c && ii < NR && jj < NC}};
    data A : {{[bi, kb, r, c, ii, jj] -> [{rc} * kb + {c} * r + c]}} size {rc} * NNZB;
    uf browptr : {{[x] : 0 <= x && {r} * x <= NR + {r1}}} -> {{[y] : 0 <= y <= NNZB}} nondecreasing;
    uf bcol : {{[x] : 0 <= x < NNZB}} -> {{[y] : 0 <= y && {c} * y < NC}};
    forall b, k1, k2 : 0 <= b && {r} * b < NR && browptr(b) <= k1 < k2 < browptr(b + 1) => bcol(k1) < bcol(k2);
    padding;
}}",
        r1 = r - 1
    )
}

/// The names of the built-in formats, lower case:
/// `coo, scoo, mcoo, tcoo8, coo3d, mcoo3, scoo3, csf3, csr, ucsr, dcsr,
/// lcsr, csc, dia, ell, bcsr, skyl, skyu, nm24, jad`.
pub fn builtin_names() -> &'static [&'static str] {
    NAMES
}

/// The name of the built-in coordinate format of `order` dimensions (`coo`,
/// `coo3d`): what coordinate files are read as, and what test instances
/// and verification convert through.
pub fn coordinate_format_name(order: usize) -> Option<&'static str> {
    match order {
        2 => Some("coo"),
        3 => Some("coo3d"),
        _ => None,
    }
}

/// The coordinate format of `order` dimensions: the built-in COO (2) and
/// COO3D (3), else a COO of that order written on the fly (`COO1D` for
/// sparse vectors, `COO4D`, ...: extents `N0, N1, ...`, index arrays
/// `idx0, idx1, ...`, a uniqueness rule), so that coordinate files, test
/// tensors and verification exist for every order. `None` for order 0.
pub fn coordinate_format(order: usize) -> Option<Descriptor> {
    if let Some(name) = coordinate_format_name(order) {
        return load_format(name).ok();
    }
    (order > 0)
        .then(|| parse_descriptor(&coordinate_format_text(order)).ok())
        .flatten()
}

/// The descriptor text of [`coordinate_format`] for an order without a
/// built-in.
fn coordinate_format_text(order: usize) -> String {
    let each =
        |f: &dyn Fn(usize) -> String, sep: &str| (0..order).map(f).collect::<Vec<_>>().join(sep);
    format!(
        "format COO{order}D {{\n    dense [{dense}];\n    map {{[n, {tuple}] -> [{coords}] : \
         {equal} && 0 <= n < NNZ && {arrays}}};\n    data A : {{[n, {tuple}] -> [n]}} size NNZ;\n\
         {ufs}    forall n1, n2 : 0 <= n1 < NNZ && 0 <= n2 < NNZ && {same} => n1 = n2;\n}}\n",
        dense = each(&|d| format!("N{d}"), ", "),
        tuple = each(&|d| format!("t{d}"), ", "),
        coords = each(&|d| format!("x{d}"), ", "),
        equal = each(&|d| format!("x{d} = t{d}"), " && "),
        arrays = each(&|d| format!("t{d} = idx{d}(n)"), " && "),
        ufs = each(
            &|d| format!("    uf idx{d} : {{[x] : 0 <= x < NNZ}} -> {{[y] : 0 <= y < N{d}}};\n"),
            ""
        ),
        same = each(&|d| format!("idx{d}(n1) = idx{d}(n2)"), " && "),
    )
}

/// The built-in formats of `order` dense dimensions (2 for matrices, 3 for
/// 3-D tensors), in [`builtin_names`]' order. Tests enumerate pairs with
/// it, so a new descriptor file in `descriptors/` (listed here, which
/// `synth/tests/descriptors.rs` checks against the directory) is covered
/// by adding it.
pub fn builtin_names_of_order(order: usize) -> Vec<&'static str> {
    orders()
        .iter()
        .filter(|&&(_, o)| o == order)
        .map(|&(n, _)| n)
        .collect()
}

/// Each built-in name with its order, the descriptors parsed once per
/// process (a build asks for the formats of every order).
fn orders() -> &'static [(&'static str, usize)] {
    static ORDERS: std::sync::OnceLock<Vec<(&'static str, usize)>> = std::sync::OnceLock::new();
    ORDERS.get_or_init(|| {
        NAMES
            .iter()
            .filter_map(|&n| Some((n, load_format(n).ok()?.dense.len())))
            .collect()
    })
}

/// What to say to an input of `order` dimensions given to a format of
/// another order: the built-in formats that have that order
/// (`the built-in formats of 2 dimensions: coo, scoo, ...`), or that none
/// does.
pub fn formats_of_order_hint(order: usize) -> String {
    match builtin_names_of_order(order)[..] {
        [] => format!("no built-in format has {order} dimensions"),
        ref names => format!(
            "the built-in formats of {order} dimensions: {}",
            names.join(", ")
        ),
    }
}

/// The orders of the built-in formats (the number of their dense
/// dimensions), increasing, each once. Tests enumerate the registry by
/// order with it and [`builtin_names_of_order`], so a format of a new order
/// is covered by adding it too.
///
/// ```
/// let orders = synth::builtin::builtin_orders();
/// assert!(orders.contains(&2) && orders.contains(&3));
/// assert!(orders.windows(2).all(|w| w[0] < w[1]));
/// ```
pub fn builtin_orders() -> Vec<usize> {
    let mut orders: Vec<usize> = self::orders().iter().map(|&(_, o)| o).collect();
    orders.sort_unstable();
    orders.dedup();
    orders
}

/// Why a format could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The descriptor text is wrong; `file` is the path given, or
    /// `descriptors/NAME.desc` for a built-in format. Displays as
    /// `FILE:LINE:COL: message`.
    #[error("{file}:{error}")]
    Syntax {
        /// The file the text came from.
        file: String,
        /// The located error.
        error: SyntaxError,
    },
    /// The file could not be read (for a name that is not a built-in format
    /// either, the message lists the built-in names).
    #[error("{file}: {}", io_message(.file, .source))]
    Io {
        /// The path given.
        file: String,
        /// What reading it reported.
        source: std::io::Error,
    },
}

fn io_message(file: &str, e: &std::io::Error) -> String {
    let looks_like_name = !file.contains(['/', '\\', '.']);
    if e.kind() == std::io::ErrorKind::NotFound && looks_like_name {
        let guess = match nearest_name(file) {
            Some(name) => format!("; did you mean `{name}`?"),
            None => String::new(),
        };
        format!(
            "not a built-in format ({}) nor a descriptor file{guess} ({e})",
            NAMES.join(", ")
        )
    } else {
        e.to_string()
    }
}

/// The built-in name closest to `name` (a misspelling: at most two
/// letters added, dropped, changed or swapped, and fewer than the name
/// has), if one is.
pub fn nearest_name(name: &str) -> Option<&'static str> {
    let name = name.to_ascii_lowercase();
    NAMES
        .iter()
        .map(|&n| (strsim::damerau_levenshtein(&name, n), n))
        .filter(|&(d, n)| d <= 2 && d < n.len().min(name.len()))
        .min_by_key(|&(d, _)| d)
        .map(|(_, n)| n)
}

/// Loads a format: a built-in name (case-insensitive, see
/// [`builtin_names`]) or a path to a descriptor file. A name that is both a
/// built-in name and a file in the current directory means the built-in
/// format; write `./csr` for the file.
///
/// # Errors
///
/// [`LoadError::Io`] when the file cannot be read, [`LoadError::Syntax`] when
/// its text is not a valid descriptor; both carry the file name.
///
/// ```
/// let csr = synth::builtin::load_format("csr").unwrap();
/// assert_eq!(csr.name, "CSR");
/// let err = synth::builtin::load_format("no/such/file.desc").unwrap_err();
/// assert!(err.to_string().starts_with("no/such/file.desc: "));
/// ```
pub fn load_format(name_or_path: &str) -> Result<Descriptor, LoadError> {
    if let Some((r, c)) = block_shape(name_or_path) {
        let file = format!("the block format {}", name_or_path.to_ascii_lowercase());
        return parse_descriptor(&block_format_text(r, c))
            .map_err(|error| LoadError::Syntax { file, error });
    }
    if let Some(text) = builtin(name_or_path) {
        let file = format!("descriptors/{}.desc", name_or_path.to_ascii_lowercase());
        return parse_descriptor(text).map_err(|error| LoadError::Syntax { file, error });
    }
    let file = name_or_path.to_string();
    let text = match std::fs::read_to_string(Path::new(name_or_path)) {
        Ok(text) => text,
        Err(source) => return Err(LoadError::Io { file, source }),
    };
    parse_descriptor(&text).map_err(|error| LoadError::Syntax { file, error })
}
