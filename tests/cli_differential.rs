//! Random matrices and 3-D tensors through the built-in pairs, by every
//! path a user takes: `spf convert` from a Matrix Market (or FROSTT) file,
//! from a JSON instance and from
//! an `.npz` instance of the source, and the program `spf build` makes,
//! compiled with AddressSanitizer and UndefinedBehaviorSanitizer, from the
//! Matrix Market file, from the JSON instance and from the `.npz` instance
//! (writing `.npz`). Every result is compared
//! with the file's entries by the format-independent oracle, and the
//! results of the paths with each other; a program may refuse an input
//! (exit status 2 with a message) only where `spf convert` refuses it too,
//! and no sanitizer may report anything.
//!
//! The matrices hold values a careless reader gets wrong (subnormals, the
//! least subnormal, ±0.0, values near the top of the double range) and
//! shapes at the edges (empty, 1 × N, N × 1, no entries at all); each
//! pair also gets a matrix with entries its source cannot store (a skyline
//! stores one triangle), which every path must refuse alike.
//!
//! Each built-in format of each order is a source once and a destination
//! once (the pairs rotate through the registry); `SPF_EXHAUSTIVE=1` runs
//! every ordered pair.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use spf::synth::instance::Instance;
use spf::synth::instance_validation::validate;
use spf::synth::oracle::{compare, coordinate_entries, entries};
use spf::synth::representable::Representable;
use spf::synth::tensor_io::Coordinates;
use spf::synth::validate::coordinate_text;

mod common;

use common::outcome::{computed, outcome, reason, result, run_program, Outcome, SANITIZE};
use common::{s, spf, text};

#[path = "../synth/tests/support/json_texts.rs"]
mod json_texts;
use json_texts::Rng;

/// A random tensor of extents `dims` with about `fill` of its positions
/// stored, each at most once, in no particular order.
fn random_tensor(rng: &mut Rng, dims: &[i64], fill: f64) -> Coordinates {
    let total: i64 = dims.iter().product();
    let mut entries = Vec::new();
    for mut at in 0..total {
        let mut index = vec![0; dims.len()];
        for (d, &extent) in dims.iter().enumerate().rev() {
            index[d] = at % extent;
            at /= extent;
        }
        if (rng.below(1000) as f64) < fill * 1000.0 {
            entries.push((index, rng.value()));
        }
    }
    // File order is not sorted order.
    for k in (1..entries.len()).rev() {
        let other = rng.below(k as u64 + 1) as usize;
        entries.swap(k, other);
    }
    Coordinates {
        dims: dims.to_vec(),
        entries,
    }
}

/// The tensors of one pair: random ones of several shapes restricted to
/// what both formats store, and one with every position of a small cube
/// stored (unrestricted: when a format cannot store all of it, every path
/// must refuse it). A FROSTT file tells its extents by its entries, so
/// the 3-D tensors have an entry at their far corner, and none is empty.
fn tensors(rng: &mut Rng, src: &str, dst: &str, order: usize) -> Vec<(String, Coordinates, bool)> {
    let storable: Vec<Representable> = [src, dst]
        .iter()
        .map(|f| Representable::of(&spf::synth::builtin::load_format(f).expect("built-in")))
        .collect();
    let restrict = |c: Coordinates| storable.iter().fold(c, |c, r| r.restrict(&c));
    let shapes: Vec<(Vec<i64>, f64)> = if order == 2 {
        vec![
            (vec![0, 0], 0.0),
            (vec![3, 4], 0.0),
            (vec![1, 9], 0.5),
            (vec![9, 1], 0.5),
            (vec![12, 12], 0.25),
        ]
    } else {
        // One long mode; the first and last long; every mode long.
        let line: Vec<i64> = (0..order)
            .map(|d| if d + 1 == order { 6 } else { 1 })
            .collect();
        let ends: Vec<i64> = (0..order)
            .map(|d| match d {
                0 => 5,
                _ if d + 1 == order => 3,
                _ => 1,
            })
            .collect();
        let all: Vec<i64> = (0..order).map(|d| 6 - d.min(3) as i64).collect();
        vec![(line, 0.5), (ends, 0.5), (all, 0.2)]
    };
    let mut out = Vec::new();
    for (k, (dims, fill)) in shapes.iter().enumerate() {
        let mut t = random_tensor(rng, dims, *fill);
        if order != 2 {
            let corner: Vec<i64> = dims.iter().map(|e| e - 1).collect();
            t.entries.retain(|e| e.0 != corner);
            t.entries.push((corner, 1.0));
        }
        out.push((format!("t{k}"), restrict(t), true));
    }
    let full = random_tensor(rng, &vec![4; order], 1.0);
    let storable_everywhere = restrict(full.clone()) == full;
    out.push(("full".to_string(), full, storable_everywhere));
    out
}

/// An `.npz` instance of `format`, read by spf's own reader.
fn npz_instance(npz: &Path, format: &str) -> Instance {
    let d = spf::synth::builtin::load_format(format).expect("built-in");
    spf::synth::npz::read_npz_file(npz, &d, None)
        .unwrap_or_else(|e| panic!("{}: {e}", npz.display()))
}

fn check_pair(src: &str, dst: &str, seed: u64, dir: &Path) {
    let d_dst = spf::synth::builtin::load_format(dst).expect("built-in");
    let tag = format!("{src}-{dst}");
    let bin = dir.join(&tag);
    let built = spf(&[
        "build",
        src,
        dst,
        "--verify",
        "--cflags",
        SANITIZE,
        "-o",
        s(&bin),
    ]);
    assert!(built.status.success(), "{tag}: {}", text(&built.stderr));
    let mut rng = Rng(seed);
    let order = d_dst.dense.len();
    let extension = if order == 2 { "mtx" } else { "tns" };
    let coo = spf::synth::builtin::coordinate_format(order)
        .expect("a coordinate format of every order")
        .name;
    let coo = coo.as_str();
    let tensors = tensors(&mut rng, src, dst, order);
    let largest = tensors
        .iter()
        .filter(|t| t.2 && t.0 != "full")
        .max_by_key(|t| t.1.len())
        .map(|t| t.0.clone())
        .unwrap_or_default();
    for (name, m, storable) in tensors {
        let shape: Vec<String> = m.dims.iter().map(i64::to_string).collect();
        let what = format!(
            "{tag} on {name} ({}, {} entries)",
            shape.join(" x "),
            m.len()
        );
        let mtx = dir.join(format!("{tag}-{name}.{extension}"));
        std::fs::write(&mtx, coordinate_text(&m)).expect("write");
        let want: BTreeMap<Vec<i64>, f64> = coordinate_entries(&m);
        let out_path = |path: &str| dir.join(format!("{tag}-{name}-{path}"));

        // spf convert from the file, and the program from the file.
        let p = out_path("convert-mtx.json");
        let from_mtx = outcome(
            &format!("spf convert {what}"),
            &spf(&["convert", src, dst, s(&mtx), "-o", s(&p)]),
            &p,
        );
        let p = out_path("program-mtx.json");
        let program = outcome(
            &format!("the program {what}"),
            &run_program(&bin, &[s(&mtx), "-o", s(&p)]),
            &p,
        );
        let converted = match (from_mtx, program) {
            (Outcome::Refused(a), Outcome::Refused(b)) => {
                assert!(!storable, "{what}: refused though storable: {a}");
                assert_eq!(reason(&a, &mtx), reason(&b, &mtx), "{what}: two refusals");
                continue;
            }
            (Outcome::Converted(a), Outcome::Converted(b)) => {
                assert!(
                    storable,
                    "{what}: converted though {src} or {dst} cannot store it"
                );
                assert_eq!(
                    computed(&a),
                    computed(&b),
                    "{what}: spf convert and the program differ"
                );
                a
            }
            (a, b) => panic!("{what}: spf convert gives {a:?}, the program {b:?}"),
        };
        validate(&d_dst, &converted).unwrap_or_else(|e| panic!("{what}: {e}"));
        let got = entries(&d_dst, &converted).expect("readable");
        compare(&want, &got).unwrap_or_else(|e| panic!("{what}: {e}"));

        // The source instance, as JSON and as .npz, through both paths:
        // for the largest tensor, whose values take every kind.
        if name != largest {
            continue;
        }
        let src_json = out_path("src.json");
        let src_npz = out_path("src.npz");
        for (path, kind) in [(&src_json, "JSON"), (&src_npz, ".npz")] {
            let out = spf(&["convert", coo, src, s(&mtx), "-o", s(path)]);
            assert!(
                out.status.success(),
                "{what}: the {kind} source: {}",
                text(&out.stderr)
            );
        }
        // The same instance, but for the order of a scipy layout's rows,
        // which its reader sorts (as scipy's `sort_indices` does) where
        // the source format leaves the order free.
        let d_src = spf::synth::builtin::load_format(src).expect("built-in");
        let (from_npz, from_json) = (npz_instance(&src_npz, src), result(&src_json));
        validate(&d_src, &from_npz).unwrap_or_else(|e| panic!("{what}: the .npz source: {e}"));
        assert_eq!(
            entries(&d_src, &from_npz).expect("readable"),
            entries(&d_src, &from_json).expect("readable"),
            "{what}: the .npz and JSON sources store other entries"
        );
        for (input, kind) in [(&src_json, "json"), (&src_npz, "npz")] {
            let p = out_path(&format!("convert-{kind}.json"));
            let out = spf(&["convert", src, dst, s(input), "-o", s(&p)]);
            match outcome(&format!("spf convert {what} from {kind}"), &out, &p) {
                Outcome::Converted(r) => {
                    assert_eq!(computed(&r), computed(&converted), "{what}: from {kind}")
                }
                Outcome::Refused(e) => panic!("{what}: from {kind}: {e}"),
            }
        }
        let p = out_path("program-json.json");
        match outcome(
            &format!("the program {what} from JSON"),
            &run_program(&bin, &[s(&src_json), "-o", s(&p)]),
            &p,
        ) {
            Outcome::Converted(r) => assert_eq!(
                computed(&r),
                computed(&converted),
                "{what}: the program from JSON"
            ),
            Outcome::Refused(e) => panic!("{what}: the program from JSON: {e}"),
        }
        // The program from the .npz source, writing .npz: the entries spf
        // convert writes (a source whose order is free may be read in
        // another order: a scipy layout's unsorted rows take the
        // program's coordinate path).
        let (p, q) = (out_path("program-npz.npz"), out_path("convert-npz.npz"));
        let run = run_program(&bin, &[s(&src_npz), "-o", s(&p)]);
        assert!(
            run.status.success(),
            "{what}: the program from .npz: {}",
            text(&run.stderr)
        );
        let out = spf(&["convert", src, dst, s(&src_npz), "-o", s(&q)]);
        assert!(out.status.success(), "{what}: {}", text(&out.stderr));
        let (by_program, by_convert) = (npz_instance(&p, dst), npz_instance(&q, dst));
        validate(&d_dst, &by_program).unwrap_or_else(|e| panic!("{what}: the program's .npz: {e}"));
        assert_eq!(
            entries(&d_dst, &by_program).expect("readable"),
            entries(&d_dst, &by_convert).expect("readable"),
            "{what}: the program's .npz and spf convert's store other entries"
        );
        compare(&want, &entries(&d_dst, &by_program).expect("readable"))
            .unwrap_or_else(|e| panic!("{what}: the program's .npz: {e}"));
    }
}

/// The pairs this run checks: each 2-D built-in a source once and a
/// destination once (every ordered pair with `SPF_EXHAUSTIVE`).
fn pairs() -> Vec<(&'static str, &'static str)> {
    let exhaustive = std::env::var_os("SPF_EXHAUSTIVE").is_some();
    let mut out = Vec::new();
    for order in spf::synth::builtin::builtin_orders() {
        let formats = spf::synth::builtin::builtin_names_of_order(order);
        let n = formats.len();
        if exhaustive {
            out.extend(
                formats
                    .iter()
                    .flat_map(|&a| formats.iter().map(move |&b| (a, b))),
            );
        } else {
            out.extend((0..n).map(|k| (formats[k], formats[(k + 1) % n])));
        }
    }
    out
}

#[test]
fn random_matrices_agree_on_every_path_under_the_sanitizers() {
    let dir: PathBuf = common::temp("cli-differential", "pairs");
    let pairs = pairs();
    assert!(pairs.len() >= 16, "{pairs:?}");
    common::on_every_processor(pairs.len(), |k| {
        let (src, dst) = pairs[k];
        check_pair(src, dst, 0x5EED + k as u64, &dir);
    });
    let _ = std::fs::remove_dir_all(&dir);
}
