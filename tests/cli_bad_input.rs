//! Bad input through the `spf` command and built programs: sizes no machine
//! can allocate, outputs spf must not replace or create directories for.
//! Each is exit status 2 with a message naming the problem, never a panic,
//! an abort or a partial file.

mod common;

use common::{s, spf, text};

fn temp(test: &str) -> std::path::PathBuf {
    common::temp("cli-bad", test)
}

const BANNER: &str = "%%MatrixMarket matrix coordinate real general\n";

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
                err.contains("too large: `") && err.contains("would need"),
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
    let file = |name: &str, body: &str| {
        let p = dir.join(name);
        std::fs::write(&p, body).expect("write");
        p
    };
    let dup = file(
        "dup.mtx",
        &format!("{BANNER}2 2 3\n1 1 1e308\n1 1 1e308\n2 2 1\n"),
    );
    let dup3 = file(
        "dup.tns",
        "1 1 1 1e308\n# a comment\n2 2 2 1\n\n1 1 1 1e308\n",
    );
    let empty = file("empty.tns", "");
    let negative = file(
        "negative.json",
        r#"{"format":"COO","symbols":{"NR":2,"NC":3,"NNZ":-2},"arrays":{"row":[0,1],"col":[2,0],"A":[1.5,1]}}"#,
    );
    let lower = file(
        "lower.mtx",
        &format!("{BANNER}4 4 3\n1 1 1.0\n3 1 2.0\n2 3 4.0\n"),
    );
    let upper = file(
        "upper.mtx",
        &format!("{BANNER}4 4 3\n1 1 1.0\n1 3 2.0\n2 3 4.0\n"),
    );
    let three = file(
        "three.mtx",
        &format!("{BANNER}2 4 3\n1 1 1.0\n1 2 2.0\n1 3 4.0\n"),
    );
    let cube = file("cube.tns", "1 1 1 1.0\n2 2 2 2.0\n");
    let cases: [(&str, &str, &std::path::Path, &str); 8] = [
        (
            "coo",
            "csr",
            &cube,
            "the input has 3 dimensions but COO has 2; the built-in formats of 3 dimensions: \
             coo3d, mcoo3, scoo3, csf3",
        ),
        ("coo", "csr", &dup, "dup.mtx:4:1: the entries at (1, 1) on lines 3 and 4 sum to inf, beyond the range of a double"),
        ("coo3d", "csf3", &dup3, "dup.tns:5:1: the entries at (1, 1, 1) on lines 1 and 5 sum to inf, beyond the range of a double"),
        ("coo3d", "csf3", &empty, "empty.tns:1:1: the file is empty: it lists no entries"),
        ("coo", "csr", &negative, "needs 0: NNZ is -2, and a size cannot be negative"),
        ("skyu", "csr", &lower, "the entry at (3, 1) cannot be stored in SKYU: SKYU stores only entries with i <= j"),
        ("skyl", "coo", &upper, "the entry at (1, 3) cannot be stored in SKYL: SKYL stores only entries with j <= i"),
        ("nm24", "csr", &three, "the entry at (1, 3) cannot be stored in NM24: NM24 stores at most 2 entries"),
    ];
    let out_json = dir.join("out.json");
    for (src, dst, input, message) in cases {
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
