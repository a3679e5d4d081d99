//! Files are read by their content, whatever their names: a Matrix Market
//! file by its banner, an `.npz` archive by the zip signature, a JSON
//! instance by its first character, FROSTT otherwise; gzip-compressed files
//! are read; `-` is standard input and standard output. An output whose
//! kind spf cannot tell from its name is refused before anything runs,
//! naming the kinds and `--to`.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

mod common;

use common::{s, spf, test_data, text};

fn temp(test: &str) -> std::path::PathBuf {
    common::temp("cli-kinds", test)
}

/// `spf ARGS` with `input` on its standard input.
fn spf_with_stdin(args: &[&str], input: &[u8]) -> std::process::Output {
    with_stdin(common::spf_command(), args, input)
}

/// `command ARGS` with `input` on its standard input.
fn with_stdin(mut command: Command, args: &[&str], input: &[u8]) -> std::process::Output {
    let mut child = command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spf runs");
    child
        .stdin
        .take()
        .expect("a pipe")
        .write_all(input)
        .expect("written");
    child.wait_with_output().expect("spf ends")
}

fn json(path: &Path) -> String {
    std::fs::read_to_string(path).expect("written")
}

#[test]
fn inputs_are_read_by_their_content() {
    let dir = temp("inputs");
    let mtx = test_data("matrices/dwt_2680.mtx");
    let want = dir.join("want.json");
    let out = spf(&["convert", "coo", "csr", s(&mtx), "-o", s(&want)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let bytes = std::fs::read(&mtx).unwrap();
    // Without an extension, gzip-compressed under any name, on standard
    // input (`-` and /dev/stdin).
    let bare = dir.join("matrix");
    std::fs::write(&bare, &bytes).unwrap();
    let gz = dir.join("matrix.mtx.gz");
    std::fs::write(&gz, spf::synth::tensor_io::kind::gzip(&bytes).unwrap()).unwrap();
    let odd = dir.join("matrix.data");
    std::fs::copy(&gz, &odd).unwrap();
    for input in [&bare, &gz, &odd] {
        let got = dir.join("got.json");
        let out = spf(&["convert", "coo", "csr", s(input), "-o", s(&got)]);
        assert!(
            out.status.success(),
            "{}: {}",
            input.display(),
            text(&out.stderr)
        );
        assert_eq!(json(&got), json(&want), "{}", input.display());
    }
    for stdin in ["-", "/dev/stdin"] {
        let out = spf_with_stdin(&["convert", "coo", "csr", stdin], &bytes);
        assert!(out.status.success(), "{stdin}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), json(&want), "{stdin}");
    }
    // An instance under a name that says nothing: an .npz archive and a
    // JSON instance, from a file and from standard input.
    let npz = dir.join("csr.npz");
    let out = spf(&["convert", "coo", "csr", s(&mtx), "-o", s(&npz)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let archive = dir.join("archive.bin");
    std::fs::copy(&npz, &archive).unwrap();
    let instance = dir.join("instance.txt");
    std::fs::copy(&want, &instance).unwrap();
    let csc = dir.join("csc.json");
    let out = spf(&["convert", "csr", "csc", s(&want), "-o", s(&csc)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for input in [&archive, &instance] {
        let got = dir.join("got.json");
        let out = spf(&["convert", "csr", "csc", s(input), "-o", s(&got)]);
        assert!(
            out.status.success(),
            "{}: {}",
            input.display(),
            text(&out.stderr)
        );
        assert_eq!(json(&got), json(&csc), "{}", input.display());
        let out = spf_with_stdin(
            &["convert", "csr", "csc", "-"],
            &std::fs::read(input).unwrap(),
        );
        assert!(
            out.status.success(),
            "{}: {}",
            input.display(),
            text(&out.stderr)
        );
        assert_eq!(
            text(&out.stdout),
            json(&csc),
            "{} on stdin",
            input.display()
        );
    }
    // A coordinate file where an instance is read names what it is.
    let out = spf(&["dump", "csr", s(&mtx)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("this is a Matrix Market file, not an instance of CSR"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn outputs_are_written_as_their_names_or_to_say() {
    let dir = temp("outputs");
    let mtx = test_data("matrices/dwt_2680.mtx");
    let text_of = |args: &[&str]| {
        let out = spf(args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        text(&out.stdout)
    };
    // `-o -` is standard output; `spf dump` writes there without `-o`.
    let json_out = text_of(&["convert", "coo", "csr", s(&mtx), "-o", "-"]);
    assert!(
        json_out.starts_with("{\n  \"format\": \"CSR\""),
        "{json_out:.80}"
    );
    let inst = dir.join("csr.json");
    std::fs::write(&inst, &json_out).unwrap();
    let dumped = text_of(&["dump", "csr", s(&inst)]);
    assert!(dumped.starts_with("%%MatrixMarket matrix coordinate real general\n2680 2680 25026\n"));
    // Compressed coordinates read back as the same entries.
    let gz = dir.join("out.mtx.gz");
    text_of(&["convert", "coo", "csr", s(&mtx), "-o", s(&gz)]);
    let plain = dir.join("out.mtx");
    text_of(&["convert", "coo", "csr", s(&mtx), "-o", s(&plain)]);
    let back = spf::synth::tensor_io::read_file(&gz, None).unwrap();
    assert_eq!(
        back,
        spf::synth::tensor_io::read_file(&plain, None).unwrap()
    );
    assert_eq!(std::fs::read(&gz).unwrap()[..2], [0x1f, 0x8b]);
    // A name spf cannot tell is refused before anything runs, and --to
    // says what to write.
    let odd = dir.join("out.xyz");
    let out = spf(&["convert", "coo", "csr", s(&mtx), "-o", s(&odd)]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("cannot tell what to write from the name")
            && err.contains("--to npz|mtx|tns|json"),
        "{err}"
    );
    assert!(!odd.exists());
    text_of(&[
        "convert",
        "coo",
        "csr",
        s(&mtx),
        "-o",
        s(&odd),
        "--to",
        "mtx",
    ]);
    assert!(std::fs::read_to_string(&odd)
        .unwrap()
        .starts_with("%%MatrixMarket"));
    let npz_out = Command::new(env!("CARGO_BIN_EXE_spf"))
        .args(["convert", "coo", "csr", s(&mtx), "-o", "-", "--to", "npz"])
        .env(
            "SPF_CACHE_DIR",
            std::env::temp_dir().join("spf-tests-cache"),
        )
        .output()
        .unwrap();
    assert!(npz_out.status.success());
    assert_eq!(&npz_out.stdout[..4], b"PK\x03\x04");
    let out = spf(&[
        "convert",
        "coo",
        "csr",
        s(&mtx),
        "-o",
        s(&dir.join("x.npz.gz")),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("compressed already"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A program `spf build` makes tells its input's kind by content too, and
/// reads `-` as standard input, an `.npz` archive of its source and a
/// gzip-compressed file; an archive of another format and an output name
/// of a kind it does not write are refused, naming what does, before
/// anything runs.
#[test]
fn built_programs_tell_inputs_by_content_and_refuse_what_they_cannot_do() {
    let dir = temp("built");
    let bin = dir.join("coo2csr");
    let out = spf(&["build", "coo", "csr", "-o", s(&bin)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let matrix = test_data("matrices/jgl009.mtx");
    let bytes = std::fs::read(&matrix).expect("read");
    let plain = dir.join("jgl009");
    std::fs::write(&plain, &bytes).expect("write");
    // In the test's directory: an output named `-` would appear there.
    let run = |args: &[&str]| {
        Command::new(&bin)
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("runs")
    };
    let reference = dir.join("reference.json");
    let out = run(&[s(&matrix), "-o", s(&reference)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // No extension, and standard input: the same result.
    let got = dir.join("got.json");
    for (args, stdin) in [(vec![s(&plain)], None), (vec!["-"], Some(&bytes))] {
        let mut args = args.clone();
        args.extend(["-o", s(&got)]);
        let out = match stdin {
            Some(b) => with_stdin(Command::new(&bin), &args, b),
            None => run(&args),
        };
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        assert_eq!(json(&got), json(&reference), "{args:?}");
        std::fs::remove_file(&got).expect("written");
    }
    // An archive of the source, and the file gzip-compressed: the same
    // result (zlib permitting); an archive of another format: refused.
    let (coo_npz, csr_npz) = (dir.join("m.coo.npz"), dir.join("m.csr.npz"));
    for (dst, path) in [("coo", &coo_npz), ("csr", &csr_npz)] {
        let out = spf(&["convert", "coo", dst, s(&matrix), "-o", s(path)]);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let gz = dir.join("m.mtx.gz");
    std::fs::write(
        &gz,
        spf::synth::tensor_io::kind::gzip(&bytes).expect("compressed"),
    )
    .expect("write");
    // zlib is a prerequisite CI installs: missing, it fails there, and
    // elsewhere the gzip case is reported skipped.
    let zlib = common::report::require(
        "a gzip input to a built program",
        spf::engine::c_compiler::zlib_flags()
            .is_empty()
            .then(|| "zlib's headers for the C compiler (zlib1g-dev)".to_string()),
    );
    for input in [&coo_npz, &gz] {
        if input == &gz && !zlib {
            continue;
        }
        let out = run(&[s(input), "-o", s(&got)]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(json(&got), json(&reference), "{}", input.display());
        std::fs::remove_file(&got).expect("written");
    }
    let out = run(&[s(&csr_npz), "-o", s(&got)]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("scipy `csr`") && err.contains("spf convert"),
        "{err}"
    );
    assert!(!got.exists());
    // An .npz output: what spf convert writes (read back by spf convert,
    // as the archive spf convert wrote).
    let written = dir.join("d.npz");
    let out = run(&[s(&matrix), "-o", s(&written)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let back = dir.join("back.json");
    let out = spf(&["convert", "csr", "csr", s(&written), "-o", s(&back)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = spf(&["convert", "csr", "csr", s(&csr_npz), "-o", s(&got)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(json(&back), json(&got));
    std::fs::remove_file(&got).expect("written");
    // Output names of other kinds.
    for name in ["d.mtx", "d.tns", "d.json.gz", "-"] {
        let target = if name == "-" {
            "-".into()
        } else {
            dir.join(name)
        };
        let out = run(&[s(&matrix), "-o", s(&target)]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains("JSON") || err.contains("json"),
            "{name}: {err}"
        );
        assert!(!dir.join(name).exists(), "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
