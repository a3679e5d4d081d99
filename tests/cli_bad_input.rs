//! Bad input through the `spf` command and built programs: sizes no machine
//! can allocate, outputs spf must not replace or create directories for.
//! Each is exit status 2 with a message naming the problem, never a panic,
//! an abort or a partial file.

mod common;

use common::bad_inputs::BANNER;
use common::{s, spf, text};

fn temp(test: &str) -> std::path::PathBuf {
    common::temp("cli-bad", test)
}

/// A matrix that declares 2^40 × 2^40 (or 2^62) with three entries: every
/// destination whose arrays grow with the dimensions is refused with the
/// size it would need, by `spf convert` and by a built program alike.
#[test]
fn huge_declared_sizes_are_errors_not_aborts() {
    let dir = temp("huge");
    let n40 = 1u64 << 40;
    let huge = dir.join("huge.mtx");
    std::fs::write(
        &huge,
        format!("{BANNER}{n40} {n40} 3\n1 1 1.0\n5 7 2.0\n{n40} {n40} 3.0\n"),
    )
    .expect("write");
    let n62 = 1u64 << 62;
    let huger = dir.join("huger.mtx");
    std::fs::write(&huger, format!("{BANNER}{n62} {n62} 1\n1 1 1.0\n")).expect("write");
    let out_json = dir.join("out.json");
    for dst in ["csr", "csc", "dia", "ell", "bcsr"] {
        for input in [&huge, &huger] {
            let out = spf(&["convert", "coo", dst, s(input), "-o", s(&out_json)]);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{dst}: {err}");
            assert!(
                err.contains("too large: `")
                    && (err.contains("would need") || err.contains(" available")),
                "{dst}: {err}"
            );
            assert!(
                !err.contains("panicked") && !err.contains("internal error"),
                "{err}"
            );
            assert!(!out_json.exists());
        }
    }
    // A conversion whose arrays do not grow with the dimensions converts.
    let out = spf(&["convert", "coo", "mcoo", s(&huge), "-o", s(&out_json)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let _ = std::fs::remove_file(&out_json);
    // A built program reports the size and exits with status 2.
    let bin = dir.join("coo2csr");
    let out = spf(&["build", "coo", "csr", "-o", s(&bin)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for input in [&huge, &huger] {
        let out = std::process::Command::new(&bin)
            .args([s(input), "-o", s(&out_json)])
            .output()
            .expect("runs");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(": too large: an array of "), "{err}");
        assert!(!out_json.exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Sizes the kernel would let spf reserve but not fill (Linux overcommits:
/// the process would be killed writing the pages) are refused before the
/// allocation, naming what the conversion needs and what is available:
/// by `spf convert` (compiled, at 32 and 64 bits, and interpreted) and by
/// a built program, at once, with nothing written. `SPF_MAX_MEMORY`
/// stands for a small machine.
#[test]
fn sizes_beyond_the_available_memory_are_refused_before_they_are_filled() {
    let dir = temp("available");
    let rows = |n: u64, name: &str| {
        let path = dir.join(name);
        std::fs::write(&path, format!("{BANNER}{n} 3 2\n1 1 1.0\n{n} 3 2.0\n")).expect("write");
        path
    };
    let narrow = rows(100_000_000, "narrow.mtx");
    let wide = rows(3_000_000_000, "wide.mtx");
    let out_file = dir.join("out.npz");
    let limited = |args: &[&str]| {
        let started = std::time::Instant::now();
        let out = common::spf_command()
            .args(args)
            .env("SPF_MAX_MEMORY", "256M")
            .output()
            .expect("runs");
        (out, started.elapsed())
    };
    // What a message says is available, in MiB (`..., 191.9 MiB available`).
    let available = |err: &str| -> f64 {
        let head = err.trim_end().strip_suffix(" MiB available").expect(err);
        head.rsplit(' ').next().unwrap().parse().expect(err)
    };
    // 256 MiB less the margin of 64 MiB, less what the run took before.
    let plausible = |mib: f64| (150.0..=192.0).contains(&mib);
    for (input, extra) in [
        (&narrow, None),
        (&wide, None),
        (&wide, Some("--engine=interp")),
    ] {
        let mut args = vec!["convert", "coo", "csr", s(input), "-o", s(&out_file)];
        args.extend(extra);
        let (out, took) = limited(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("too large: `rowptr` needs "),
            "{args:?}: {err}"
        );
        assert!(plausible(available(&err)), "{args:?}: {err}");
        assert!(took.as_secs() < 5, "{args:?} took {took:?}");
        assert!(!out_file.exists(), "{args:?}");
    }
    let bin = dir.join("coo2csr");
    let out = spf(&["build", "coo", "csr", "-o", s(&bin)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out_json = dir.join("out.json");
    let out = std::process::Command::new(&bin)
        .args([s(&wide), "-o", s(&out_json)])
        .env("SPF_MAX_MEMORY", "256M")
        .output()
        .expect("runs");
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(": too large: an array of 3000000001 elements of 8 bytes needs 22.35 GiB, "),
        "{err}"
    );
    // The program's C reads the limits as spf's Rust does.
    assert!(plausible(available(&err)), "{err}");
    assert!(!out_json.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A conversion whose arrays would be mostly padding (DIA of a matrix with
/// thousands of diagonals) is refused before it allocates them, naming
/// both sizes and the flag, compiled and interpreted; `--max-padding 0`
/// lifts the limit, and a conversion within it is not refused.
#[test]
fn conversions_that_would_be_mostly_padding_are_refused() {
    let dir = temp("padding");
    // 2,000 rows, four entries each on scattered diagonals: about 2,000
    // diagonals of 2,000 slots (32 MB) for 8,000 entries.
    let n = 2000u64;
    let mut entries = std::collections::BTreeSet::new();
    for i in 0..n {
        for k in 0..4 {
            entries.insert((i, (i * 7919 + k * 1237) % n));
        }
    }
    let mut text_of = format!("{BANNER}{n} {n} {}\n", entries.len());
    for (i, j) in &entries {
        text_of.push_str(&format!("{} {} 1.5\n", i + 1, j + 1));
    }
    let matrix = dir.join("scattered.mtx");
    std::fs::write(&matrix, text_of).expect("write");
    let out_file = dir.join("out.npz");
    for extra in [None, Some("--engine=interp")] {
        let mut args = vec!["convert", "coo", "dia", s(&matrix), "-o", s(&out_file)];
        args.extend(extra);
        let out = spf(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("too large: `"), "{err}");
        assert!(
            err.contains("more than 16 times its input's ")
                && err.contains("--max-padding 16 is the limit"),
            "{err}"
        );
        assert!(!out_file.exists());
    }
    let out = spf(&[
        "convert",
        "coo",
        "dia",
        s(&matrix),
        "-o",
        s(&out_file),
        "--max-padding=0",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let _ = std::fs::remove_file(&out_file);
    // The same matrix into CSR is not padded.
    let out = spf(&["convert", "coo", "csr", s(&matrix), "-o", s(&out_file)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every command treats its output the same: a write-protected file is not
/// replaced, a missing directory is not created.
#[test]
fn outputs_are_not_forced() {
    let dir = temp("outputs");
    let matrix = common::test_data("matrices/jgl009.mtx");
    let protected = dir.join("protected.json");
    std::fs::write(&protected, "keep").expect("write");
    let mut perm = std::fs::metadata(&protected).expect("exists").permissions();
    perm.set_readonly(true);
    std::fs::set_permissions(&protected, perm).expect("chmod");
    let missing = dir.join("no/such/dir/out.json");
    for (target, why) in [
        (&protected, "write-protected"),
        (&missing, "does not exist"),
    ] {
        for args in [
            vec!["convert", "coo", "csr", s(&matrix), "-o", s(target)],
            vec!["synth", "coo", "csr", "--emit", "c", "-o", s(target)],
            vec!["build", "coo", "csr", "-o", s(target)],
        ] {
            let out = spf(&args);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains(why), "{args:?}: {err}");
        }
    }
    assert_eq!(std::fs::read_to_string(&protected).expect("kept"), "keep");
    assert!(!dir.join("no").exists(), "no directory was created");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A descriptor `spf check` rejects is the user's error before any
/// synthesis: every conversion command names the property that fails.
#[test]
fn descriptors_that_check_rejects_are_refused_first() {
    let dir = temp("illformed");
    let desc = common::test_data("descriptors/nonunique.desc");
    let matrix = common::test_data("matrices/jgl009.mtx");
    let out_file = dir.join("out.json");
    for args in [
        vec!["synth", "coo", s(&desc), "--emit", "c", "-o", s(&out_file)],
        vec!["synth", s(&desc), "coo", "--emit", "ir", "-o", s(&out_file)],
        vec!["build", "coo", s(&desc), "-o", s(&out_file)],
        vec!["convert", "coo", s(&desc), s(&matrix), "-o", s(&out_file)],
    ] {
        let out = spf(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("NONUNIQUE is not a well-formed format (`spf check` rejects it): map is injective: "),
            "{args:?}: {err}"
        );
        assert!(!err.contains("internal error"), "{err}");
        assert!(!out_file.exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The messages of inputs that are wrong in ways a reader could miss, the
/// same from `spf convert` and a built program, each naming what is wrong:
/// a tensor of another order than the source's (with the formats of its
/// order), duplicates that sum past the range of a double (the coordinate and both
/// lines), an empty FROSTT file, a negative count, and entries the source
/// of a built program cannot store (below an upper skyline's diagonal,
/// above a lower one's, a third in a 2:4 group), which the program refuses
/// before converting (it used to drop them, or write outside its arrays).
#[test]
fn messages_name_what_is_wrong_on_every_path() {
    let dir = temp("messages");
    let out_json = dir.join("out.json");
    for common::bad_inputs::BadInput {
        src,
        dst,
        input,
        message,
        ..
    } in common::bad_inputs::bad_inputs(&dir)
    {
        let input = input.as_path();
        let what = format!("{src} -> {dst} on {}", input.display());
        let out = spf(&["convert", src, dst, s(input), "-o", s(&out_json)]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "spf convert {what}: {err}");
        assert!(err.contains(message), "spf convert {what}: {err}");
        assert!(!out_json.exists(), "{what}");
        let bin = dir.join(format!("{src}_{dst}"));
        if !bin.exists() {
            let out = spf(&["build", src, dst, "--verify", "-o", s(&bin)]);
            assert!(out.status.success(), "{what}: {}", text(&out.stderr));
        }
        let out = std::process::Command::new(&bin)
            .args([s(input), "-o", s(&out_json)])
            .output()
            .expect("runs");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "the program {what}: {err}");
        assert!(err.contains(message), "the program {what}: {err}");
        assert!(!out_json.exists(), "{what}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
