//! The C and Rust that synthesized conversions emit compile (C with
//! `-Wall -Wextra -pedantic -Werror`, Rust with `-D warnings`) and agree
//! with the interpreter, whose results the oracle checks (tests/synthesis.rs),
//! for every ordered pair of the built-in formats of each order (the
//! registry enumerated by order, so a new descriptor is covered by adding
//! it).
//!
//! Index widths: the pairs take turns over (source, destination) among
//! 32-bit and 64-bit index arrays and the two mixtures of 32-bit and 64-bit
//! positions and coordinates, so that each source and each destination
//! meets every width, which costs no compilation more than one width; with
//! `SPF_EXHAUSTIVE` set, every pair runs at all four (four times the
//! compilation).

#[path = "../../codegen/tests/harness/mod.rs"]
mod harness;

use std::path::Path;

use rayon::prelude::*;

use codegen::ast::LoopProgram;
use codegen::interp::{run, Memory};
use codegen::width::{IndexWidth, IndexWidths};
use synth::builtin::load_format;
use synth::instance::Instance;
use synth::representable::Representable;
use synth::synthesize::{synthesize, Synthesized};
use synth::tensor_io::{read_file, Coordinates};

/// The cases of `src -> dst` (its program and, per input, the memory and
/// the interpreter's outputs): the inputs are converted into `src` (in the
/// interpreter) by `to_src`, scanned into its program.
fn pair_cases(
    to_src: &(Synthesized, LoopProgram),
    conv: &Synthesized,
    program: &LoopProgram,
    inputs: &[Coordinates],
) -> Vec<(Memory, harness::Outputs)> {
    let (src, dst) = (&conv.conversion.src.name, &conv.conversion.dst_given.name);
    let keep_s = Representable::of(&conv.conversion.src);
    let keep_d = Representable::of(&conv.conversion.dst_given);
    let params = codegen::c::c_parameters(program).unwrap();
    inputs
        .iter()
        .map(|coords| {
            // The entries both formats can store (a skyline stores one triangle).
            let coords = keep_d.restrict(&keep_s.restrict(coords));
            let src_inst = to_src
                .0
                .run_program(&to_src.1, &Instance::from_coordinates(&coords))
                .unwrap();
            let mem: Memory = conv.memory(program, &src_inst).unwrap();
            let mut reference = mem.clone();
            run(program, &mut reference, None).unwrap_or_else(|e| panic!("{src} -> {dst}: {e}"));
            let outputs: harness::Outputs = harness::live_out(&params)
                .into_iter()
                .map(|p| (p.source.clone(), reference.arrays[&p.source].clone()))
                .collect();
            (mem, outputs)
        })
        .collect()
}

/// Checks every ordered pair of `formats` in C and Rust against the
/// interpreter on each input (converted into the source first): one C and
/// one Rust program hold all the pairs.
fn check_pairs(formats: &[&str], inputs: &[Coordinates]) {
    let order = inputs[0].order();
    let coo = synth::builtin::coordinate_format(order).expect("a coordinate format");
    let descriptors: Vec<_> = formats.iter().map(|f| load_format(f).unwrap()).collect();
    let both = std::env::var_os("SPF_EXHAUSTIVE").is_some();
    // Synthesized, scanned and run in the interpreter on every processor,
    // in the order of the pairs: first the conversion from COO into each
    // format, then every pair.
    let n = descriptors.len();
    let to_srcs: Vec<(Synthesized, LoopProgram)> = descriptors
        .par_iter()
        .map(|s| {
            let to_src = synthesize(&coo, s).unwrap();
            let program = to_src.program().unwrap();
            (to_src, program)
        })
        .collect();
    let pairs: Vec<_> = (0..n * n)
        .into_par_iter()
        .map(|k| {
            let (i, j) = (k / n, k % n);
            let (s, d) = (&descriptors[i], &descriptors[j]);
            let conv = synthesize(s, d).unwrap();
            let program = conv.program().unwrap();
            let cases = pair_cases(&to_srcs[i], &conv, &program, inputs);
            (conv, program, cases, i + j)
        })
        .collect();
    assert_eq!(pairs.len(), n * n);
    // Widths in turn over (source, destination): both kinds 32, both 64,
    // positions 64 and coordinates 32, and the reverse.
    let (w32, w64) = (IndexWidth::W32, IndexWidth::W64);
    let states = [
        IndexWidths::uniform(w32),
        IndexWidths::uniform(w64),
        IndexWidths {
            positions: w64,
            coordinates: w32,
        },
        IndexWidths {
            positions: w32,
            coordinates: w64,
        },
    ];
    let mut batch = Vec::new();
    for (conv, p, c, turn) in &pairs {
        let widths: &[IndexWidths] = if both {
            &states
        } else {
            std::slice::from_ref(&states[turn % states.len()])
        };
        for &w in widths {
            batch.push((p, &c[..], conv.widths(w)));
        }
    }
    let per_pair = if both { states.len() } else { 1 };
    assert_eq!(
        harness::check_batch(&batch).len(),
        formats.len() * formats.len() * per_pair
    );
}

fn matrices() -> Vec<Coordinates> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/matrices");
    let mut out: Vec<Coordinates> = ["jgl009.mtx", "pores_1.mtx"]
        .iter()
        .map(|m| read_file(&dir.join(m), None).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    out.push(Coordinates {
        dims: vec![3, 5],
        entries: Vec::new(),
    });
    out.push(Coordinates {
        dims: vec![6, 2],
        entries: vec![(vec![5, 0], 1.5), (vec![0, 1], -2.0), (vec![5, 1], 3.0)],
    });
    out
}

/// Tensors of `order` dimensions (3 or more) to convert: a few distinct
/// entries in no order, drawn from a small box so that they share
/// prefixes (a fiber of several entries, a row of several fibers), and an
/// empty tensor.
fn tensors(order: usize) -> Vec<Coordinates> {
    let dims: Vec<i64> = (0..order).map(|d| (5 - d as i64).max(2)).collect();
    let mut rng = harness::Rng(0x9E37_79B9_7F4A_7C15 ^ order as u64);
    let mut entries: Vec<(Vec<i64>, f64)> = Vec::new();
    while entries.len() < 8 {
        let at: Vec<i64> = dims.iter().map(|&n| rng.below(n as u64) as i64).collect();
        if entries.iter().all(|(a, _)| *a != at) {
            entries.push((at, rng.real()));
        }
    }
    // The last corner, so that every extent is reached.
    let last: Vec<i64> = dims.iter().map(|n| n - 1).collect();
    if entries.iter().all(|(a, _)| *a != last) {
        entries.push((last, 4.0));
    }
    vec![
        Coordinates { dims, entries },
        Coordinates {
            dims: vec![2; order],
            entries: Vec::new(),
        },
    ]
}

#[test]
fn every_2d_pair_compiles_and_agrees() {
    check_pairs(&synth::builtin::builtin_names_of_order(2), &matrices());
}

/// Every pair of every order but 2 (matrices, which
/// [`every_2d_pair_compiles_and_agrees`] takes with their own inputs), one
/// batch (one C and one Rust program) per order.
#[test]
fn every_pair_of_every_other_order_compiles_and_agrees() {
    let orders = synth::builtin::builtin_orders();
    assert!(orders.contains(&3), "3-D formats are built in: {orders:?}");
    for order in orders.into_iter().filter(|&o| o != 2) {
        let formats = synth::builtin::builtin_names_of_order(order);
        assert!(formats.len() > 1, "order {order}: {formats:?}");
        check_pairs(&formats, &tensors(order));
    }
}
