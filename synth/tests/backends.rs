//! The C and Rust that synthesized conversions emit compile (C with
//! `-Wall -Wextra -pedantic -Werror`, Rust with `-D warnings`) and agree
//! with the interpreter, whose results the oracle checks (tests/synthesis.rs),
//! for every ordered pair of the 2-D and of the 3-D formats.

#[path = "../../codegen/tests/harness/mod.rs"]
mod harness;

use std::path::Path;

use codegen::interp::{run, Memory};
use synth::builtin::load_format;
use synth::instance::Instance;
use synth::representable::Representable;
use synth::synthesize::synthesize;
use synth::tensor_io::{read_file, Coordinates};

/// Converts the inputs into `src` (in the interpreter), then checks `src ->
/// dst` in C and Rust against the interpreter on each.
fn check_pair(src: &str, dst: &str, inputs: &[Coordinates]) {
    let coo_name = if inputs[0].order() == 3 {
        "coo3d"
    } else {
        "coo"
    };
    let coo = load_format(coo_name).unwrap();
    let (s, d) = (load_format(src).unwrap(), load_format(dst).unwrap());
    let to_src = synthesize(&coo, &s).unwrap();
    let conv = synthesize(&s, &d).unwrap();
    let program = conv.program().unwrap();
    let mut cases = Vec::new();
    let (keep_s, keep_d) = (Representable::of(&s), Representable::of(&d));
    for coords in inputs {
        // The entries both formats can store (a skyline stores one triangle).
        let coords = keep_d.restrict(&keep_s.restrict(coords));
        let src_inst = to_src.run(&Instance::from_coordinates(&coords)).unwrap();
        let mem: Memory = conv.memory(&program, &src_inst).unwrap();
        let mut reference = mem.clone();
        run(&program, &mut reference, None).unwrap_or_else(|e| panic!("{src} -> {dst}: {e}"));
        let params = codegen::c::c_parameters(&program).unwrap();
        let outputs: harness::Outputs = harness::live_out(&params)
            .into_iter()
            .map(|p| (p.source.clone(), reference.arrays[&p.source].clone()))
            .collect();
        cases.push((mem, outputs));
    }
    harness::check_cases(&program, &cases);
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

#[test]
fn every_2d_pair_compiles_and_agrees() {
    let formats = synth::builtin::builtin_names_of_order(2);
    let inputs = matrices();
    for &s in &formats {
        for &d in &formats {
            check_pair(s, d, &inputs);
        }
    }
}

#[test]
fn every_3d_pair_compiles_and_agrees() {
    let inputs = vec![
        Coordinates {
            dims: vec![5, 4, 3],
            entries: vec![
                (vec![4, 0, 2], 1.0),
                (vec![0, 3, 1], 2.0),
                (vec![2, 2, 2], 3.0),
                (vec![0, 0, 0], 4.0),
            ],
        },
        Coordinates {
            dims: vec![2, 2, 2],
            entries: Vec::new(),
        },
    ];
    for s in ["coo3d", "mcoo3"] {
        for d in ["coo3d", "mcoo3"] {
            check_pair(s, d, &inputs);
        }
    }
}
