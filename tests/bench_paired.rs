//! The paired C baselines (bench/c/paired/: conversions whose hand-written
//! C exists only inside their converter's program) agree with the oracle,
//! run in converters built by the `spf` binary of this package's tests.
//! (Here rather than in bench/tests/baselines.rs, which has no `spf`
//! binary of its own.)

use std::path::PathBuf;

use bench::c;
use bench::input::{self, Tensor};
use bench::spf::Spf;
use bench::{verify, Conversion};
use spf::codegen::width::IndexWidth;
use spf::synth::builtin::load_format;
use spf::synth::instance::Instance;

fn check(conv: Conversion, t: &Tensor, out: &Instance, who: &str) {
    let dst = load_format(conv.dst()).unwrap();
    let expected = input::entries(t);
    if let Err(e) = verify::check(&dst, &expected, out) {
        panic!("{who} {conv}: {e}");
    }
}

/// The paired baselines of the conversions that have no in-process C
/// (no in-process C: `bench::c::in_process`), run in their converters' programs (`spf build
/// --baseline`) on generated matrices and tensors, with empty rows and
/// columns: both outputs satisfy the destination and store the input.
#[test]
fn paired_baselines_agree_with_the_oracle() {
    let spf = Spf {
        exe: PathBuf::from(env!("CARGO_BIN_EXE_spf")),
    };
    let dir = std::env::temp_dir().join(format!("spf-bench-paired-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tensors = [
        input::generate(matgen::find("webbase-1M").unwrap(), 0.0005, 3, true),
        input::generate(matgen::find("ecology1").unwrap(), 0.0005, 3, true),
        input::generate(matgen::find("darpa").unwrap(), 0.0002, 3, true),
        input::generate(matgen::find("freebase-music").unwrap(), 0.0002, 3, true),
    ];
    let mut checked = 0;
    for conv in Conversion::ALL {
        if c::in_process(conv) || !tensors.iter().any(|t| t.dims.len() == conv.order()) {
            continue;
        }
        // Both widths, alternating: the C compiles with either index type.
        let width = if checked % 2 == 0 {
            IndexWidth::W32
        } else {
            IndexWidth::W64
        };
        let baseline = c::paired_baseline(&dir, conv, width).unwrap();
        let bin = dir.join(conv.slug());
        spf.build(conv.src(), conv.dst(), &bin, Some(&baseline), width)
            .unwrap_or_else(|e| panic!("{conv}: {e}"));
        for (k, t) in tensors
            .iter()
            .filter(|t| t.dims.len() == conv.order())
            .enumerate()
        {
            let input_file = dir.join(format!(
                "{}_{k}.{}",
                conv.slug(),
                if conv.order() == 2 { "mtx" } else { "tns" }
            ));
            input::write(t, &input_file).unwrap();
            let run = bench::spf::run(
                &bin,
                &input_file,
                1,
                &dir.join("out.json"),
                Some(&dir.join("baseline.json")),
            )
            .unwrap_or_else(|e| panic!("{conv}: {e}"));
            check(conv, t, &run.output, "spf");
            let b = run
                .baseline
                .and_then(|b| b.output)
                .expect("a baseline output");
            check(conv, t, &b, "paired C");
            checked += 1;
        }
    }
    assert!(checked >= 6, "{checked} paired runs");
    let _ = std::fs::remove_dir_all(&dir);
}
