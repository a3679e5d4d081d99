//! Synthesized conversions, checked with the format-independent oracle:
//! every ordered pair of the 2-D formats (and of the 3-D ones) on every
//! test matrix and on generated ones; the loop structure of the generated
//! code for its complexity properties (no comparison sort in COO→CSR, no
//! offset search in COO→DIA, no intermediate CSR).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use codegen::ast::{LoopProgram, Node};
use iegen::computation::{Body, Role};
use proptest::prelude::*;
use rayon::prelude::*;
use synth::builtin::load_format;
use synth::instance::Instance;
use synth::instance_validation::{validate, validate_entries};
use synth::oracle::{compare_entries, sorted_entries, Entries};
use synth::representable::Representable;
use synth::synthesize::{synthesize, Synthesized};
use synth::tensor_io::{read_file, Coordinates};
use synth::Descriptor;

/// Every built-in format of each order: a new descriptor file is covered
/// by adding it.
fn formats(order: usize) -> Vec<&'static str> {
    synth::builtin::builtin_names_of_order(order)
}

/// Every synthesized pair with its scanned program, computed once for all
/// tests of this file.
fn pairs() -> &'static BTreeMap<(String, String), (Synthesized, LoopProgram)> {
    static PAIRS: OnceLock<BTreeMap<(String, String), (Synthesized, LoopProgram)>> =
        OnceLock::new();
    PAIRS.get_or_init(|| {
        let mut todo = Vec::new();
        for set in [formats(2), formats(3)] {
            for s in &set {
                for d in &set {
                    todo.push((*s, *d));
                }
            }
        }
        // The descriptors read before the rayon tasks that use them.
        let todo: Vec<_> = todo
            .into_iter()
            .map(|(s, d)| (s, d, descriptor(s), descriptor(d)))
            .collect();
        // Synthesized on every processor (synthesis and its battery were
        // most of this file's time); a failure reported is the first pair's.
        let done: Vec<_> = todo
            .par_iter()
            .map(|&(s, d, sd, dd)| {
                let syn = synthesize(sd, dd)
                    .map_err(|e| format!("{s} -> {d} does not synthesize: {e}"))?;
                let program = syn.program().expect("scans");
                Ok::<_, String>(((s.to_string(), d.to_string()), (syn, program)))
            })
            .collect();
        done.into_iter()
            .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
            .collect()
    })
}

/// The built-in descriptor `name`, read once.
fn descriptor(name: &str) -> &'static Descriptor {
    static FORMATS: OnceLock<BTreeMap<String, Descriptor>> = OnceLock::new();
    let all = FORMATS.get_or_init(|| {
        [formats(2), formats(3)]
            .concat()
            .into_iter()
            .map(|f| (f.to_string(), load_format(f).unwrap()))
            .collect()
    });
    &all[name]
}

fn pair(s: &str, d: &str) -> &'static Synthesized {
    &pairs()[&(s.to_string(), d.to_string())].0
}

/// Converts `coords` into every format of `formats` and, for every ordered
/// pair `(s, d)` that `chosen(s, d)` accepts, from `s` into `d`, checking
/// each result: valid for its descriptor, and the same entries as the
/// input (the format-independent oracle).
fn check_pairs(
    coords: &Coordinates,
    formats: &[&str],
    chosen: impl Fn(usize, usize) -> bool,
    what: &str,
) {
    let coo_name = if coords.order() == 3 { "coo3d" } else { "coo" };
    let coo = descriptor(coo_name);
    let coo_inst = Instance::from_coordinates(coords);
    let expected = sorted_entries(coo, &coo_inst).unwrap();
    let run = |s: &str, d: &str, input: &Instance, expected: &Entries| -> Instance {
        let (syn, program) = &pairs()[&(s.to_string(), d.to_string())];
        let out = syn
            .run_program(program, input)
            .unwrap_or_else(|e| panic!("{what}: {s} -> {d}: {e}"));
        // The descriptor's rules and the entries, from one enumeration.
        let got = validate_entries(descriptor(d), &out)
            .unwrap_or_else(|e| panic!("{what}: {s} -> {d} gives an invalid {d}: {e}"));
        compare_entries(expected, &got)
            .unwrap_or_else(|m| panic!("{what}: {s} -> {d} differs from the input: {m:?}"));
        out
    };
    let storable = |f: &str| Representable::of(descriptor(f));
    for (si, s) in formats.iter().enumerate() {
        let src_inst = storable(s)
            .is_everything()
            .then(|| run(coo_name, s, &coo_inst, &expected));
        for (di, d) in formats.iter().enumerate() {
            if !chosen(si, di) {
                continue;
            }
            // Each pair on the entries both formats can store (a skyline
            // stores one triangle).
            let kept = storable(d).restrict(&storable(s).restrict(coords));
            if kept == *coords {
                if let Some(src_inst) = &src_inst {
                    run(s, d, src_inst, &expected);
                    continue;
                }
            }
            let coo_kept = Instance::from_coordinates(&kept);
            let want = sorted_entries(coo, &coo_kept).unwrap();
            let src_kept = run(coo_name, s, &coo_kept, &want);
            run(s, d, &src_kept, &want);
        }
    }
}

/// [`check_pairs`] on every ordered pair.
fn check_all_pairs(coords: &Coordinates, formats: &[&str], what: &str) {
    check_pairs(coords, formats, |_, _| true, what);
}

fn test_matrices() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/matrices");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "mtx") && !p.ends_with("wrong.mtx"))
        .collect();
    out.sort();
    assert!(
        out.len() >= 10,
        "the test matrices in {} are missing",
        dir.display()
    );
    out
}

/// How many of the shared matrices each ordered pair runs on, besides the
/// conversions from COO into every format, which run on all of them. The
/// pairs rotate over the matrices, so that every matrix meets every format
/// as a source and as a destination; every pair also runs on the generated
/// matrices below, and in C and Rust (tests/backends.rs). All of them on
/// every matrix, `SPF_EXHAUSTIVE=1`, takes minutes.
const MATRICES_PER_PAIR: usize = 2;

#[test]
fn every_2d_pair_on_shared_matrices() {
    let matrices = test_matrices();
    let formats = formats(2);
    let n = formats.len();
    let exhaustive = std::env::var_os("SPF_EXHAUSTIVE").is_some();
    // Pair `(s, d)`, numbered `k = s * n + d`, runs on matrices `k`,
    // `k + step`, ... (mod the number of matrices).
    let step = matrices.len() / MATRICES_PER_PAIR;
    // The pairs synthesized first: their synthesis runs on rayon's pool,
    // and filling the static from inside a rayon task while other tasks
    // wait for it could deadlock.
    pairs();
    // The matrices on every processor.
    matrices.par_iter().enumerate().for_each(|(mi, m)| {
        let coords = read_file(m, None).unwrap();
        let chosen = |s: usize, d: usize| {
            exhaustive
                || (0..MATRICES_PER_PAIR).any(|r| (s * n + d + r * step) % matrices.len() == mi)
        };
        check_pairs(&coords, &formats, chosen, &m.display().to_string());
    });
}

#[test]
fn every_3d_pair_on_generated_tensors() {
    for (seed, dims, n) in [
        (1u64, [20i64, 15, 9], 300usize),
        (2, [1, 1, 1], 1),
        (3, [64, 3, 40], 700),
    ] {
        let mut state = seed;
        let mut next = |m: i64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % m as u64) as i64
        };
        let mut entries = BTreeMap::new();
        while entries.len() < n {
            entries.insert(
                vec![next(dims[0]), next(dims[1]), next(dims[2])],
                (next(1000) + 1) as f64,
            );
        }
        let coords = Coordinates {
            dims: dims.to_vec(),
            entries: entries.into_iter().collect(),
        };
        check_all_pairs(&coords, &formats(3), &format!("tensor {seed}"));
    }
    let empty = Coordinates {
        dims: vec![4, 5, 6],
        entries: Vec::new(),
    };
    check_all_pairs(&empty, &formats(3), "empty tensor");
}

/// Matrices with the shapes that break conversions: empty, one entry,
/// empty rows and columns, rectangular, dense rows.
fn matrices() -> impl Strategy<Value = Coordinates> {
    (1i64..12, 1i64..12, 0usize..4)
        .prop_flat_map(|(nr, nc, shape)| {
            let cells = (nr * nc) as usize;
            let picks = match shape {
                0 => proptest::collection::vec(0..cells, 0..=cells.min(30)).boxed(),
                1 => proptest::collection::vec(0..cells, 0..=1).boxed(),
                // Dense rows: whole rows of a few chosen ones.
                2 => proptest::collection::vec(0..nr as usize, 0..3)
                    .prop_map(move |rows| {
                        rows.into_iter()
                            .flat_map(|r| (0..nc as usize).map(move |c| r * nc as usize + c))
                            .collect()
                    })
                    .boxed(),
                _ => Just(Vec::new()).boxed(),
            };
            (
                Just((nr, nc)),
                picks,
                proptest::collection::vec(1u32..100, cells),
            )
        })
        .prop_map(|((nr, nc), picks, values)| {
            let mut entries = BTreeMap::new();
            for p in picks {
                let (r, c) = (p as i64 / nc, p as i64 % nc);
                entries.insert(vec![r, c], values[p] as f64 - 50.5);
            }
            // A file order that is not sorted.
            let mut list: Vec<(Vec<i64>, f64)> = entries.into_iter().collect();
            list.reverse();
            let third = list.len() / 3;
            list.rotate_left(third);
            Coordinates {
                dims: vec![nr, nc],
                entries: list,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]
    #[test]
    fn every_2d_pair_on_generated_matrices(m in matrices()) {
        check_all_pairs(&m, &formats(2), &format!("{m:?}"));
    }
}

// ---------------------------------------------------------------------------
// The loop AST of the generated code

/// Every runtime call (`object.method`) in the program, in order.
fn calls(p: &LoopProgram) -> Vec<String> {
    fn body(b: &Body, out: &mut Vec<String>) {
        b.for_each_call(&mut |object, method| out.push(format!("{object}.{method}")));
    }
    fn node(n: &Node, p: &LoopProgram, out: &mut Vec<String>) {
        match n {
            Node::For { body: b, .. } | Node::Let { body: b, .. } | Node::If { body: b, .. } => {
                b.iter().for_each(|n| node(n, p, out))
            }
            Node::Stmt { stmt, .. } => body(&p.computation.stmts[*stmt].body, out),
        }
    }
    let mut out = Vec::new();
    p.body.iter().for_each(|n| node(n, p, &mut out));
    out
}

/// The largest loop nesting depth.
fn depth(p: &LoopProgram) -> usize {
    fn node(n: &Node) -> usize {
        match n {
            Node::For { body, .. } => 1 + body.iter().map(node).max().unwrap_or(0),
            Node::Let { body, .. } | Node::If { body, .. } => {
                body.iter().map(node).max().unwrap_or(0)
            }
            Node::Stmt { .. } => 0,
        }
    }
    p.body.iter().map(node).max().unwrap_or(0)
}

/// The runtime objects' kinds and orders: `Permutation(K, counting(NR, NC))`.
fn objects(s: &Synthesized) -> Vec<String> {
    s.computation
        .objects
        .iter()
        .map(|o| format!("{}({})", o.kind, o.args.join(", ")))
        .collect()
}

/// Arrays the conversion allocates besides the destination's: an
/// intermediate format would show up here.
fn temporary_arrays(s: &Synthesized) -> Vec<String> {
    s.computation
        .spaces
        .iter()
        .filter(|d| d.role == Role::Temp && !d.extents.is_empty())
        .map(|d| d.name.clone())
        .collect()
}

#[test]
fn scoo_to_csr_sorts_nothing_and_is_linear() {
    let s = pair("scoo", "csr");
    let p = s.program().unwrap();
    assert!(objects(s).is_empty(), "no permutation: {:?}", objects(s));
    assert!(calls(&p).is_empty(), "no runtime call: {:?}", calls(&p));
    assert_eq!(
        depth(&p),
        1,
        "loops over entries and rows, not nested:\n{}",
        s.computation
    );
    assert!(temporary_arrays(s).is_empty());
    // The row ends: a max that rises with the loop, stored unread (and kept
    // scalar in C), then the running max over the rows.
    let text = s.computation.to_string();
    assert!(text.contains("rowptr(ii + 1) rise= n + 1"), "{text}");
    assert!(text.contains("rowptr(i + 1) max= rowptr(i)"), "{text}");
}

#[test]
fn counting_passes_over_compressed_sources_are_flat() {
    // Gustavson's first pass counts columns only: one loop over the entries,
    // not a short inner loop per row; the placing pass needs the rows.
    for (src, dst, flat) in [
        ("csr", "csc", "rowptr(0) <= k < rowptr(NR)"),
        ("csc", "csr", "colptr(0) <= k < colptr(NC)"),
    ] {
        let text = pair(src, dst).computation.to_string();
        assert_eq!(text.matches(flat).count(), 1, "{src} -> {dst}: {text}");
    }
}

#[test]
fn sorts_into_csr_and_csc_are_counting_sorts() {
    // Loop depth: COO's entries are one loop, CSR's rows and their entries
    // two. An unordered source needs both coordinates counted (LSD); one
    // whose order provides the second needs one counted key, placed in a
    // second pass (Gustavson's scatter); one whose order is the
    // destination's a running count (DIA's rows, then its offsets in
    // increasing order: columns rise within a row).
    for (src, dst, object, loops) in [
        ("coo", "csr", "Permutation(3, counting(NR, NC))", 1),
        ("coo", "csc", "Permutation(3, counting(NC, NR))", 1),
        ("csr", "csc", "Scatter(NC)", 2),
        ("csc", "csr", "Scatter(NR)", 2),
        ("dia", "csr", "Scatter(1)", 2),
        ("scoo", "csc", "Scatter(NC)", 1),
        ("ell", "csr", "Permutation(3, counting(NR, NC))", 2),
    ] {
        let s = pair(src, dst);
        assert_eq!(objects(s), vec![object.to_string()], "{src} -> {dst}");
        let p = s.program().unwrap();
        assert_eq!(
            depth(&p),
            loops,
            "{src} -> {dst}: one loop per source level:\n{}",
            s.computation
        );
        let c = calls(&p);
        assert_eq!(
            c.iter().filter(|x| x.ends_with(".sort")).count(),
            1,
            "{src} -> {dst}: {c:?}"
        );
        assert!(
            temporary_arrays(s).is_empty(),
            "{src} -> {dst}: {:?}",
            temporary_arrays(s)
        );
    }
}

#[test]
fn ell_slots_are_placed_within_rows() {
    // CSR's rows are ELL's rows in the same order: the slot is `k -
    // rowptr(ii)` and the width the longest `rowptr(ii + 1) - rowptr(ii)`,
    // with no object and one pass over the entries.
    let s = pair("csr", "ell");
    assert!(objects(s).is_empty(), "{:?}", objects(s));
    let p = s.program().unwrap();
    assert!(calls(&p).is_empty(), "{:?}", calls(&p));
    assert_eq!(depth(&p), 2);
    let text = s.computation.to_string();
    assert!(text.contains("k - rowptr(ii)"), "{text}");
    assert!(text.contains("W max= -rowptr(g) + rowptr(g + 1)"), "{text}");
    // CSC -> ELL's slot is the row's next `slot`, once per entry, with no
    // global position placed; the counting pass is one flat loop.
    let text = pair("csc", "ell").computation.to_string();
    assert_eq!(text.matches("P.slot_inserted(ii)").count(), 1, "{text}");
    assert!(
        text.contains("colptr(0) <= k < colptr(NC)"),
        "a flat counting pass: {text}"
    );
    for src in ["coo", "csc"] {
        let s = pair(src, "ell");
        assert_eq!(objects(s), vec!["Scatter(NR)".to_string()], "{src} -> ell");
        let c = calls(&s.program().unwrap());
        assert!(
            c.iter().any(|x| x.ends_with(".slot_inserted"))
                && !c.iter().any(|x| x.ends_with(".place")),
            "{src} -> ell: {c:?}"
        );
    }
}

#[test]
fn sources_in_order_are_not_sorted() {
    // No permutation: a padded source (DIA, BCSR) or CSR's two loops number
    // the entries with a one-key scatter, a running count; SCOO -> COO
    // numbers them by `n` itself.
    for (src, dst, expected) in [
        ("scoo", "coo", vec![]),
        ("csr", "scoo", vec!["Scatter(1)"]),
        ("csr", "coo", vec!["Scatter(1)"]),
        ("dia", "coo", vec!["Scatter(1)"]),
        ("bcsr", "coo", vec!["Scatter(1)"]),
    ] {
        assert_eq!(objects(pair(src, dst)), expected, "{src} -> {dst}");
    }
}

#[test]
fn dia_offsets_are_found_in_constant_time() {
    for src in ["coo", "csr", "csc"] {
        let s = pair(src, "dia");
        let objs = objects(s);
        // A bounded ordered set: `index` is a table lookup, not a search.
        assert_eq!(
            objs,
            vec!["OrderedSet(-NR + 1, NC - 1)".to_string()],
            "{src} -> dia"
        );
        let c = calls(&s.program().unwrap());
        assert!(
            c.iter().any(|x| x.ends_with(".index")),
            "{src} -> dia: {c:?}"
        );
        assert!(
            !c.iter().any(|x| x.starts_with('P')),
            "{src} -> dia sorts no entries: {c:?}"
        );
    }
}

#[test]
fn no_intermediate_csr() {
    for (src, dst) in [
        ("coo", "dia"),
        ("csc", "dia"),
        ("coo", "ell"),
        ("csc", "ell"),
    ] {
        let s = pair(src, dst);
        assert!(
            temporary_arrays(s).is_empty(),
            "{src} -> {dst}: {:?}",
            temporary_arrays(s)
        );
        let outs: Vec<&str> = s
            .computation
            .spaces
            .iter()
            .filter(|d| d.role == Role::Out)
            .map(|d| d.name.as_str())
            .collect();
        let dst_desc = load_format(dst).unwrap();
        // Only the destination's arrays and sizes are written.
        assert_eq!(
            outs.len(),
            dst_desc.ufs.len() + 1 + dst_desc.symbols.len() - 2,
            "{outs:?}"
        );
        assert!(objects(s).len() <= 1, "{src} -> {dst}: {:?}", objects(s));
    }
}

#[test]
fn morton_orders_are_morton_sorts() {
    assert!(objects(pair("coo", "mcoo"))[0].ends_with(", morton(2))"));
    assert!(objects(pair("coo3d", "mcoo3"))[0].ends_with(", morton(3))"));
    // Already in Morton order: nothing to sort.
    assert!(objects(pair("mcoo", "mcoo")).is_empty());
    assert!(objects(pair("mcoo3", "mcoo3")).is_empty());
}

#[test]
fn unsupported_pairs_fail_with_a_message() {
    let coo = load_format("coo").unwrap();
    let coo3d = load_format("coo3d").unwrap();
    let e = synthesize(&coo, &coo3d).unwrap_err().to_string();
    assert!(e.contains("dense dimensions"), "{e}");
}

#[test]
fn bcsr_numbers_blocks_with_a_counting_sort_and_distinct_ranks() {
    // Block row and block column are counted keys (floor divisions of the
    // coordinates, with extents from the descriptor); `kb` is the distinct
    // rank of the block key, and NNZB the number of distinct keys.
    for src in ["coo", "csr", "csc", "scoo"] {
        let s = pair(src, "bcsr");
        let objs = objects(s);
        assert_eq!(objs.len(), 1, "{src}: {objs:?}");
        assert!(
            objs[0].contains("counting(floor((NR - 1) / 2) + 1, floor((NC + 1) / 2))"),
            "{src}: {objs:?}"
        );
        let text = s.computation.to_string();
        assert!(
            text.contains(".rank(p)") && text.contains(".ranks()"),
            "{text}"
        );
        assert!(!text.contains("lex("), "no comparison sort: {text}");
    }
    // BCSR -> BCSR: the same blocks in the same order.
    assert!(pair("bcsr", "bcsr")
        .computation
        .to_string()
        .contains(".rank(p)"));
}

#[test]
fn scoo_instances_out_of_column_order_are_rejected() {
    let scoo = load_format("scoo").unwrap();
    let mut inst = Instance::from_coordinates(&Coordinates {
        dims: vec![2, 3],
        entries: vec![(vec![0, 2], 1.0), (vec![0, 1], 2.0), (vec![1, 0], 3.0)],
    });
    inst.format = "SCOO".into();
    let e = validate(&scoo, &inst).unwrap_err().to_string();
    assert!(e.contains("col(n1) < col(n2)"), "{e}");
    inst.arrays.insert(
        "col".into(),
        synth::instance::Values::Int(vec![1, 2, 0].into()),
    );
    inst.arrays.insert(
        "A".into(),
        synth::instance::Values::Real(vec![2.0, 1.0, 3.0].into()),
    );
    validate(&scoo, &inst).unwrap();
}

/// Gustavson's transpose: the pointer array is the scatter's prefix sums,
/// with no per-entry `max=` and no fix-up pass.
#[test]
fn pointer_arrays_come_from_the_scatter() {
    use iegen::computation::UpdateOp;
    fn updates<'a>(b: &'a Body, out: &mut Vec<(&'a str, UpdateOp)>) {
        match b {
            Body::Update { target, op, .. } => out.push((target.space.as_str(), *op)),
            Body::If { then, .. } => updates(then, out),
            Body::Seq(bs) => bs.iter().for_each(|b| updates(b, out)),
            Body::Call { .. } => {}
        }
    }
    for (src, dst, pointers) in [("csr", "csc", "colptr"), ("csc", "csr", "rowptr")] {
        let s = pair(src, dst);
        let mut all = Vec::new();
        for st in &s.computation.stmts {
            updates(&st.body, &mut all);
        }
        let ops: Vec<UpdateOp> = all
            .iter()
            .filter(|(t, _)| *t == pointers)
            .map(|(_, op)| *op)
            .collect();
        assert_eq!(
            ops,
            vec![UpdateOp::Assign],
            "{src} -> {dst}:\n{}",
            s.computation
        );
        assert!(calls(&s.program().unwrap())
            .iter()
            .any(|c| c.ends_with(".start")));
    }
}

/// Explicit zeros follow one rule in every ordered pair of 2-D formats: a
/// stored zero is an entry of a format without padding, kept by the
/// conversion when the destination has no padding either, and never an
/// entry of a padded format (its zeros are padding): the oracle's
/// "Explicit zeros". A 3 × 3 diagonal with a zero stored at (1, 1), which
/// every format can store.
#[test]
fn explicit_zeros_are_kept_unless_a_side_pads() {
    pairs();
    let coords = Coordinates {
        dims: vec![3, 3],
        entries: vec![(vec![0, 0], 1.0), (vec![1, 1], 0.0), (vec![2, 2], 2.0)],
    };
    let coo = Instance::from_coordinates(&coords);
    let told = |f: &str, inst: &Instance| -> BTreeMap<Vec<i64>, f64> {
        synth::oracle::coordinates_from(descriptor(f), inst)
            .unwrap_or_else(|e| panic!("{f}: {e}"))
            .entries
            .into_iter()
            .collect()
    };
    let nonzero: BTreeMap<Vec<i64>, f64> = [(vec![0, 0], 1.0), (vec![2, 2], 2.0)].into();
    let mut with_zero = nonzero.clone();
    with_zero.insert(vec![1, 1], 0.0);
    assert_eq!(told("coo", &coo), with_zero);
    let run = |s: &str, d: &str, input: &Instance| {
        let (syn, program) = &pairs()[&(s.to_string(), d.to_string())];
        let out = syn
            .run_program(program, input)
            .unwrap_or_else(|e| panic!("{s} -> {d}: {e}"));
        validate(descriptor(d), &out).unwrap_or_else(|e| panic!("{s} -> {d}: {e}"));
        out
    };
    let formats = formats(2);
    for s in &formats {
        let src = run("coo", s, &coo);
        for d in &formats {
            let out = run(s, d, &src);
            let kept = !descriptor(s).padding && !descriptor(d).padding;
            let want = if kept { &with_zero } else { &nonzero };
            assert_eq!(&told(d, &out), want, "{s} -> {d}");
        }
    }
}
