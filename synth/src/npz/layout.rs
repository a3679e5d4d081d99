//! Which spf formats are scipy.sparse formats: the table of scipy's
//! `save_npz` layouts, each written as an spf descriptor, and the match of
//! a descriptor against them by shape.
//!
//! A descriptor *is* a scipy layout when, after renaming its symbols, index
//! arrays and value array, its map, data relation, value extents, index
//! arrays (domain, range, monotonicity) and padding equal the layout's
//! template below (its name and rules do not matter: they are checked on
//! every instance by validation, so scipy's CSR file becomes a CSR or a
//! UCSR instance alike, its rows sorted by the reader, `canonical`). So a
//! user's descriptor with other names matches as well as a built-in, and a
//! format that only resembles one (DCSR, ELL) does not.
//!
//! | scipy | keys | template (spf names → keys) | spf built-ins |
//! |---|---|---|---|
//! | `csr` | `indptr`, `indices`, `data`, `shape` | CSR's | CSR, UCSR |
//! | `csc` | `indptr`, `indices`, `data`, `shape` | CSC's | CSC |
//! | `coo` | `row`, `col`, `data`, `shape` | COO's (2-D) | COO, SCOO, MCOO, TCOO8 |
//! | `coo` (3-D) | `coords` (`3 × nnz`), `data`, `shape` | COO3D's | COO3D, SCOO3, MCOO3 |
//! | `bsr` | `indptr`, `indices`, `data` (`nnzb × R × C`), `shape` | BCSR's with `R × C` blocks | BCSR (2 × 2), `bcsrRxC` |
//! | `dia` | `offsets`, `data` (`ndiag × L`), `shape` | DIA's, the values transposed | DIA |
//!
//! scipy's DIA stores the value of diagonal `k` at column `j` in
//! `data[k, j]` (row `j - offsets[k]`); spf's DIA stores it by row
//! (`A(ii, d)`, column `ii + off(d)`), with offsets increasing. The DIA
//! entry is the one layout converted on the way ([`Transform::DiaByColumn`]);
//! the others copy arrays. scipy's BSR needs the extents to be multiples
//! of the block; an instance whose are not is written in the generic
//! layout.

use iegen::Expr;

use crate::descriptor::Descriptor;
use crate::descriptor_file::parse_descriptor;

/// How a scipy layout's arrays become the template's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transform {
    /// The arrays are the template's, as they are.
    Copy,
    /// scipy's DIA: `data[k, j]` by column and offsets in any order, to
    /// spf's by-row values with offsets increasing.
    DiaByColumn,
}

/// One scipy layout: its `format` string, its template, which npz key holds
/// each template array, and which array's length gives each count.
#[derive(Clone, Debug)]
pub struct ScipyLayout {
    /// scipy's format name (`csr`, ...), the npz key `format`.
    pub format: &'static str,
    /// The template descriptor (its names are the keys, the value array
    /// is `data`).
    pub template: Descriptor,
    /// The block shape of `bsr` (`data` is `nnzb × R × C`).
    pub block: Option<(i64, i64)>,
    /// Template symbol (not a dense extent) → the template array whose
    /// length it is.
    pub counts: Vec<(&'static str, &'static str)>,
    /// The key that holds the index arrays as the rows of one 2-D array
    /// (`coords` of an n-D COO), in the template's order; `None` when each
    /// index array has its own key.
    pub stacked: Option<&'static str>,
    /// How the arrays convert.
    pub transform: Transform,
}

const CSR: &str = "format csr {
    dense [M, N];
    map {[ii, k, jj] -> [i, j] : i = ii && j = jj && 0 <= ii < M && indptr(ii) <= k < indptr(ii + 1) && j = indices(k)};
    data data : {[ii, k, jj] -> [k]} size NNZ;
    uf indptr : {[x] : 0 <= x <= M} -> {[y] : 0 <= y <= NNZ} nondecreasing;
    uf indices : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < N};
}";

const CSC: &str = "format csc {
    dense [M, N];
    map {[jj, k, ii] -> [i, j] : i = ii && j = jj && 0 <= jj < N && indptr(jj) <= k < indptr(jj + 1) && i = indices(k)};
    data data : {[jj, k, ii] -> [k]} size NNZ;
    uf indptr : {[x] : 0 <= x <= N} -> {[y] : 0 <= y <= NNZ} nondecreasing;
    uf indices : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < M};
}";

const COO: &str = "format coo {
    dense [M, N];
    map {[n, ii, jj] -> [i, j] : i = ii && j = jj && 0 <= n < NNZ && ii = row(n) && jj = col(n)};
    data data : {[n, ii, jj] -> [n]} size NNZ;
    uf row : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < M};
    uf col : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < N};
}";

const COO3: &str = "format coo {
    dense [M, N, L];
    map {[n, ii, jj, kk] -> [i, j, k] : i = ii && j = jj && k = kk && 0 <= n < NNZ && ii = coords0(n) && jj = coords1(n) && kk = coords2(n)};
    data data : {[n, ii, jj, kk] -> [n]} size NNZ;
    uf coords0 : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < M};
    uf coords1 : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < N};
    uf coords2 : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < L};
}";

const DIA: &str = "format dia {
    dense [M, N];
    map {[ii, d, jj] -> [i, j] : i = ii && j = jj && 0 <= ii < M && 0 <= d < ND && jj = ii + offsets(d) && 0 <= jj < N};
    data data : {[ii, d, jj] -> [ii, d]} size [M, ND];
    uf offsets : {[x] : 0 <= x < ND} -> {[y] : -M < y < N} increasing;
    padding;
}";

/// The BSR template with `r × c` blocks (BCSR's descriptor, generalized).
fn bsr_text(r: i64, c: i64) -> String {
    let rc = r * c;
    format!(
        "format bsr {{
    dense [M, N];
    map {{[bi, kb, r, c, ii, jj] -> [i, j] : i = ii && j = jj && 0 <= bi && {r} * bi < M && indptr(bi) <= kb < indptr(bi + 1) && 0 <= r < {r} && 0 <= c < {c} && ii = {r} * bi + r && jj = {c} * indices(kb) + c && ii < M && jj < N}};
    data data : {{[bi, kb, r, c, ii, jj] -> [{rc} * kb + {c} * r + c]}} size {rc} * NNZB;
    uf indptr : {{[x] : 0 <= x && {r} * x <= M + {r1}}} -> {{[y] : 0 <= y <= NNZB}} nondecreasing;
    uf indices : {{[x] : 0 <= x < NNZB}} -> {{[y] : 0 <= y && {c} * y < N}};
    padding;
}}",
        r1 = r - 1
    )
}

fn layout(
    format: &'static str,
    text: &str,
    block: Option<(i64, i64)>,
    counts: Vec<(&'static str, &'static str)>,
    transform: Transform,
    stacked: Option<&'static str>,
) -> ScipyLayout {
    ScipyLayout {
        format,
        template: template(format, text),
        block,
        counts,
        transform,
        stacked,
    }
}

/// The template of `text`, parsed once per process (a layout is asked for
/// at every scipy object converted; a parse costs more than converting a
/// small one).
fn template(format: &str, text: &str) -> Descriptor {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static PARSED: Mutex<Option<HashMap<String, Descriptor>>> = Mutex::new(None);
    let mut parsed = PARSED.lock().unwrap_or_else(|e| e.into_inner());
    let parsed = parsed.get_or_insert_with(HashMap::new);
    if let Some(d) = parsed.get(text) {
        return d.clone();
    }
    // The templates are constants of this file; the tests parse each.
    let d = parse_descriptor(text)
        .unwrap_or_else(|e| unreachable!("the scipy template {format} does not parse: {e}"));
    parsed.insert(text.to_string(), d.clone());
    d
}

/// The layout scipy calls `format` for a tensor of `ndim` dimensions;
/// `block` is the block shape of `bsr`.
pub fn scipy_layout(format: &str, block: Option<(i64, i64)>, ndim: usize) -> Option<ScipyLayout> {
    let nnz = vec![("NNZ", "indices")];
    Some(match (format, ndim) {
        ("csr", 2) => layout("csr", CSR, None, nnz, Transform::Copy, None),
        ("csc", 2) => layout("csc", CSC, None, nnz, Transform::Copy, None),
        ("coo", 2) => layout(
            "coo",
            COO,
            None,
            vec![("NNZ", "row")],
            Transform::Copy,
            None,
        ),
        ("coo", 3) => layout(
            "coo",
            COO3,
            None,
            vec![("NNZ", "coords0")],
            Transform::Copy,
            Some("coords"),
        ),
        ("dia", 2) => layout(
            "dia",
            DIA,
            None,
            vec![("ND", "offsets")],
            Transform::DiaByColumn,
            None,
        ),
        ("bsr", 2) => {
            let (r, c) = block?;
            if r < 1 || c < 1 || r.checked_mul(c).is_none_or(|rc| rc > 1 << 20) {
                return None;
            }
            layout(
                "bsr",
                &bsr_text(r, c),
                Some((r, c)),
                vec![("NNZB", "indices")],
                Transform::Copy,
                None,
            )
        }
        _ => return None,
    })
}

/// The names of a descriptor that a match renames: symbols (dense first),
/// index arrays, value array.
fn names(d: &Descriptor) -> (Vec<&String>, Vec<&String>) {
    let others = d.symbols.iter().filter(|s| !d.dense.contains(s)).collect();
    let ufs = d.ufs.iter().map(|u| &u.name).collect();
    (others, ufs)
}

/// Every ordering of `0..n` (n is at most a handful here).
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for at in 0..=p.len() {
            let mut q = p.clone();
            q.insert(at, n - 1);
            out.push(q);
        }
    }
    out
}

/// A renaming of `d`'s names to the template's under which the two have
/// the same layout: `(d's name, template's name)` pairs, or `None`.
pub fn match_layout(d: &Descriptor, t: &Descriptor) -> Option<Vec<(String, String)>> {
    let (d_syms, d_ufs) = names(d);
    let (t_syms, t_ufs) = names(t);
    if d.dense.len() != t.dense.len()
        || d_syms.len() != t_syms.len()
        || d_ufs.len() != t_ufs.len()
        || d.padding != t.padding
        || d_syms.len() + d_ufs.len() > 8
    {
        return None;
    }
    for ps in permutations(d_syms.len()) {
        for pu in permutations(d_ufs.len()) {
            let mut pairs: Vec<(String, String)> = d
                .dense
                .iter()
                .zip(&t.dense)
                .map(|(a, b)| (a.clone(), b.clone()))
                .collect();
            pairs.extend(
                ps.iter()
                    .enumerate()
                    .map(|(k, &p)| (d_syms[k].clone(), t_syms[p].clone())),
            );
            pairs.extend(
                pu.iter()
                    .enumerate()
                    .map(|(k, &p)| (d_ufs[k].clone(), t_ufs[p].clone())),
            );
            pairs.push((d.data_name.clone(), t.data_name.clone()));
            if same_layout(d, t, &pairs) {
                return Some(pairs);
            }
        }
    }
    None
}

/// Whether `d` renamed by `pairs` has `t`'s map, data, extents and arrays.
fn same_layout(d: &Descriptor, t: &Descriptor, pairs: &[(String, String)]) -> bool {
    let rename = |s: &str| {
        pairs
            .iter()
            .find(|(from, _)| from == s)
            .map(|(_, to)| to.clone())
    };
    let r = |e: &Expr| e.rename_names(&rename);
    if d.map.map_exprs(&r) != t.map
        || d.data.map_exprs(&r) != t.data
        || d.data_size.iter().map(r).collect::<Vec<_>>() != t.data_size
    {
        return false;
    }
    d.ufs.iter().all(|u| {
        let name = rename(&u.name).unwrap_or_default();
        t.uf(&name).is_some_and(|tu| {
            u.domain.map_exprs(&r) == tu.domain
                && u.range.map_exprs(&r) == tu.range
                && u.monotonicity == tu.monotonicity
        })
    })
}

/// The scipy layout a descriptor has, with the renaming, if any. The BSR
/// block shapes tried are the factorizations of the constant that
/// multiplies the value extent (`4 * NNZB`: 1 × 4, 2 × 2, 4 × 1).
pub fn layout_of(d: &Descriptor) -> Option<(ScipyLayout, Vec<(String, String)>)> {
    let ndim = d.dense.len();
    let mut candidates: Vec<ScipyLayout> = ["csr", "csc", "coo", "dia"]
        .iter()
        .filter_map(|f| scipy_layout(f, None, ndim))
        .collect();
    if let [size] = d.data_size.as_slice() {
        let rc = size.terms().map(|(_, c)| c).max().unwrap_or(1);
        for r in 1..=rc.min(1 << 10) {
            if rc % r == 0 {
                candidates.extend(scipy_layout("bsr", Some((r, rc / r)), ndim));
            }
        }
    }
    candidates
        .into_iter()
        .find_map(|l| match_layout(d, &l.template).map(|pairs| (l, pairs)))
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_parses_and_matches_itself() {
        for (f, block, ndim) in [
            ("csr", None, 2),
            ("csc", None, 2),
            ("coo", None, 2),
            ("coo", None, 3),
            ("dia", None, 2),
            ("bsr", Some((2, 3)), 2),
        ] {
            let l = scipy_layout(f, block, ndim).expect("a layout");
            assert!(match_layout(&l.template, &l.template).is_some(), "{f}");
        }
        assert!(scipy_layout("lil", None, 2).is_none());
        assert!(scipy_layout("csr", None, 3).is_none());
        assert_eq!(permutations(3).len(), 6);
    }
}
