//! `rise=` (docs/computations.md, "Stores that collide"): a store of a
//! value never below its target, which several iterations make to one
//! element. Every backend stores it unread; the interpreter checks that the
//! values rise; C keeps the loops around it scalar.

mod harness;
#[path = "../../tests/common/report.rs"]
mod report;

use std::process::Command;

use codegen::ast::LoopProgram;
use codegen::c::emit_c;
use codegen::interp::{run, Array, Memory, Number, RunError, Site};
use codegen::rust::emit_rust;
use iegen::computation::parse_computation;
use iegen::UfEnvironment;

use harness::{check_cases, tool, Outputs, Rng, CFLAGS};

/// Row ends of entries sorted by row, as SCOO -> CSR computes them (`rise=`
/// then the running max); each row's latest time (`rise=` of a real); the
/// width of every row of an `NR x M` block (`rise=` in an inner loop).
const ENDS: &str = "computation rising(NR, NNZ, M) {
    in  int  row[NNZ];
    in  real t[NNZ];
    out int  ends[NR + 1];
    out real latest[NR];
    out int  width[NR];
    out real total;

    S0: ends(row(n) + 1) rise= n + 1
        domain {[n] : 0 <= n < NNZ} schedule {[n] -> [0, n, 0]};
    S1: latest(row(n)) rise= t(n)
        domain {[n] : 0 <= n < NNZ} schedule {[n] -> [0, n, 1]};
    S2: ends(i + 1) max= ends(i)
        domain {[i] : 0 <= i < NR} schedule {[i] -> [1, i, 0]};
    S3: width(i) rise= k + 1
        domain {[i, k] : 0 <= i < NR && 0 <= k < M} schedule {[i, k] -> [2, i, 0, k, 0]};
    S4: total += t(n)
        domain {[n] : 0 <= n < NNZ} schedule {[n] -> [3, n, 0]};
}";

fn program(text: &str) -> LoopProgram {
    let comp = parse_computation(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    codegen::scan(&comp, &UfEnvironment::new()).unwrap_or_else(|e| panic!("{e}"))
}

fn memory(nr: usize, m: usize, row: &[i64], t: &[f64]) -> Memory {
    Memory::new()
        .with_symbol("NR", nr as i64)
        .with_symbol("NNZ", row.len() as i64)
        .with_symbol("M", m as i64)
        .with_array("row", Array::Int(row.to_vec().into()))
        .with_array("t", Array::Real(t.to_vec().into()))
        .with_array("ends", Array::Int(vec![0; nr + 1].into()))
        .with_array("latest", Array::Real(vec![0.0; nr].into()))
        .with_array("width", Array::Int(vec![0; nr].into()))
        .with_array("total", Array::Real(vec![0.0].into()))
}

#[test]
fn rising_stores_agree_in_every_backend() {
    let mut r = Rng(0x415e);
    let mut cases: Vec<(Memory, Outputs)> = Vec::new();
    // No rows; rows and no entries; one entry; empty rows between full
    // ones; one row holding everything.
    for (nr, nnz, m, rows) in [
        (0usize, 0usize, 3usize, 1u64),
        (3, 0, 0, 3),
        (1, 1, 1, 1),
        (7, 20, 2, 3),
        (5, 40, 4, 5),
        (3, 9, 5, 1),
    ] {
        let mut row: Vec<i64> = (0..nnz).map(|_| r.below(rows) as i64).collect();
        row.sort_unstable();
        // Times rise along the entries (from above the zero fill).
        let t: Vec<f64> = (0..nnz)
            .scan(0.0, |s, _| {
                *s += 0.25 + r.real().abs();
                Some(*s)
            })
            .collect();
        let mut ends = vec![0i64; nr + 1];
        let mut latest = vec![0.0; nr];
        for (n, &i) in row.iter().enumerate() {
            ends[i as usize + 1] = n as i64 + 1;
            latest[i as usize] = t[n];
        }
        for i in 0..nr {
            ends[i + 1] = ends[i + 1].max(ends[i]);
        }
        let want: Outputs = [
            ("ends".to_string(), Array::Int(ends.into())),
            ("latest".to_string(), Array::Real(latest.into())),
            ("width".to_string(), Array::Int(vec![m as i64; nr].into())),
            (
                "total".to_string(),
                Array::Real(vec![t.iter().sum()].into()),
            ),
        ]
        .into_iter()
        .collect();
        cases.push((memory(nr, m, &row, &t), want));
    }
    check_cases(&program(ENDS), &cases);
}

#[test]
fn the_interpreter_checks_that_the_values_rise() {
    let p = program(ENDS);
    // Row 1's second entry has an earlier time than its first.
    let mut mem = memory(2, 1, &[0, 1, 1], &[1.0, 3.0, 2.0]);
    let err = run(&p, &mut mem, None).unwrap_err();
    let RunError::NotRising {
        element,
        old,
        new,
        site,
    } = &err
    else {
        panic!("not a NotRising: {err}")
    };
    assert_eq!(
        (element.as_str(), *old, *new),
        ("latest[1]", Number::Real(3.0), Number::Real(2.0))
    );
    assert!(
        matches!(site, Site::Statement { name, point } if name == "S1" && point.first() == Some(&2)),
        "{site:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("`rise=` writes 2.0 to `latest[1]`, which holds 3.0"),
        "{text}"
    );

    // An int that falls: `M - k` over a row.
    let falling = program(&ENDS.replace("width(i) rise= k + 1", "width(i) rise= M - k"));
    let mut mem = memory(1, 3, &[], &[]);
    let err = run(&falling, &mut mem, None).unwrap_err();
    assert!(
        matches!(&err, RunError::NotRising { element, old: Number::Int(3), new: Number::Int(2), site: Site::Statement { name, point } }
            if element == "width[0]" && name == "S3" && point == &[0, 1]),
        "{err:?}"
    );

    // A scalar is named without an index.
    let scalar = program(
        "computation peak(N) {
            in real t[N];
            out real top;
            S0: top rise= t(n)
                domain {[n] : 0 <= n < N} schedule {[n] -> [0, n]};
        }",
    );
    let mut mem = Memory::new()
        .with_symbol("N", 2)
        .with_array("t", Array::Real(vec![0.5, -1.0].into()))
        .with_array("top", Array::Real(vec![0.0].into()));
    let err = run(&scalar, &mut mem, None).unwrap_err();
    assert!(
        err.to_string()
            .contains("`rise=` writes -1.0 to `top`, which holds 0.5"),
        "{err}"
    );

    // Equal values are not a fall: `max=` would store the same.
    let mut mem = memory(2, 1, &[1, 1], &[2.0, 2.0]);
    run(&p, &mut mem, None).unwrap();
    assert_eq!(mem.arrays["latest"], Array::Real(vec![0.0, 2.0].into()));
}

#[test]
fn c_keeps_the_loops_around_rising_stores_scalar() {
    let c = emit_c(&program(ENDS)).unwrap();
    let lines: Vec<&str> = c.lines().map(str::trim).collect();
    // Before the loop over the entries (S0, S1) and the inner loop of S3:
    // not before the fix-up, the outer loop of S3, or S4's loop.
    let marked: Vec<&str> = lines
        .windows(2)
        .filter(|w| w[0] == "SPF_SCALAR_LOOP")
        .map(|w| w[1])
        .collect();
    assert_eq!(
        marked,
        [
            "for (int64_t n = 0; n < NNZ; n++) {",
            "for (int64_t k = 0; k < M; k++) {"
        ],
        "{c}"
    );
    let loops = lines.iter().filter(|l| l.starts_with("for (int64_t"));
    assert_eq!(loops.filter(|l| !l.contains("spf_z")).count(), 5, "{c}");
    // GCC before 14: the whole function, between a pragma pair.
    assert!(c.contains("\nSPF_SCALAR_STORES_BEGIN\nvoid rising("), "{c}");
    assert!(c.ends_with("\n}\nSPF_SCALAR_STORES_END\n"), "{c}");
    // Stored unread, as `=`.
    assert!(lines.contains(&"ends[row[n] + 1] = n + 1;"), "{c}");
    assert!(lines.contains(&"latest[row[n]] = t[n];"), "{c}");
    // The helper defines both macros for every compiler.
    let guard = "#define SPF_SCALAR_LOOPS\n";
    let helper = &c[c.find(guard).expect("the helper") + guard.len()..];
    let helper = &helper[..helper.find("\n#endif\n\n").expect("its end")];
    for branch in ["#if defined(__clang__)", "__GNUC__ >= 14", "__GNUC__ < 14"] {
        assert!(helper.contains(branch), "{helper}");
    }
    assert_eq!(
        helper.matches("#define SPF_SCALAR_LOOP").count(),
        3,
        "{helper}"
    );
    for end in ["BEGIN", "END"] {
        let define = format!("#define SPF_SCALAR_STORES_{end}");
        assert_eq!(helper.matches(&define).count(), 2, "{helper}");
    }

    // Rust stores it as `=`.
    let rust = emit_rust(&program(ENDS)).unwrap();
    assert!(
        rust.contains("latest[row[n as usize] as usize] = t[n as usize];"),
        "{rust}"
    );

    // `max=` in its place: no marks.
    let plain = emit_c(&program(&ENDS.replace("rise=", "max="))).unwrap();
    assert!(!plain.contains("SPF_SCALAR"), "{plain}");
}

/// The mnemonics of the AVX-512 scatters in function `name` of `c`, compiled
/// with `cc -O3` for an x86-64 with AVX-512 (`-march=skylake-avx512`, a
/// target, not this machine: compiling to assembly needs no AVX-512 here)
/// to assembly (GNU syntax).
fn scatters(c: &str, name: &str) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("f.c");
    std::fs::write(&src, c).unwrap();
    let asm = dir.path().join("f.s");
    tool(
        Command::new("cc")
            .args(CFLAGS)
            .args(["-march=skylake-avx512", "-S", "-o"])
            .arg(&asm)
            .arg(&src),
        "cc -S",
    );
    let text = std::fs::read_to_string(&asm).unwrap();
    let start = text
        .find(&format!("\n{name}:\n"))
        .unwrap_or_else(|| panic!("no `{name}` in\n{text}"));
    let end = text[start..]
        .find(&format!(".size\t{name}, "))
        .map_or(text.len(), |e| start + e);
    text[start..end].matches("scatter").count()
}

/// What `cc` is, when it is not GCC 12 (by the macros it predefines).
fn not_gcc_12() -> Option<String> {
    let out = Command::new("cc")
        .args(["-dM", "-E", "-x", "c", "/dev/null"])
        .output();
    let macros = out.map_or_else(
        |e| e.to_string(),
        |o| String::from_utf8_lossy(&o.stdout).into_owned(),
    );
    let gnu = macros
        .lines()
        .find_map(|l| l.strip_prefix("#define __GNUC__ "))
        .unwrap_or("none");
    let clang = macros.contains("#define __clang__ ");
    (gnu != "12" || clang).then(|| {
        format!(
            "GCC 12 as `cc` (its __GNUC__ is {gnu}{})",
            if clang { ", clang" } else { "" }
        )
    })
}

#[test]
fn gcc_stores_that_collide_without_scatters() {
    // For an AVX-512 target (whatever this machine's processor), the
    // marked loop has no scatter. GCC 12 makes the unmarked loop (`=` in
    // place of `rise=`) a scatter, which the mark prevents; other
    // compilers need not, so that half is GCC 12's only.
    if !report::host_has(
        "compiling for an x86-64 with AVX-512",
        (!cfg!(target_arch = "x86_64")).then(|| "an x86-64 C compiler".to_string()),
    ) {
        return;
    }
    let marked = emit_c(&program(ENDS)).unwrap();
    assert_eq!(scatters(&marked, "rising"), 0, "{marked}");
    if report::host_has("the scatter of the unmarked loop", not_gcc_12()) {
        let plain = emit_c(&program(&ENDS.replace("rise=", "="))).unwrap();
        assert!(!plain.contains("SPF_SCALAR"), "{plain}");
        assert!(scatters(&plain, "rising") > 0, "{plain}");
    }
}
