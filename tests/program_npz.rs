//! `.npz` archives and gzip files through the programs `spf build` makes,
//! against `spf convert` on the same files: scipy's own files (stored and
//! deflated), scipy's unsorted rows and duplicate entries, spf's generic
//! layout, gzip-compressed Matrix Market files; archives a program must
//! refuse as `spf convert` does (exit status 2, a message, nothing
//! written); and scipy reading what a program writes. The programs are
//! compiled with the sanitizers, so a read outside an array stops them.
//! (`cli_differential.rs` takes every built-in pair's `.npz` source
//! through a program too.)

mod common;

use std::path::{Path, PathBuf};

use spf::codegen::value::ValueType;
use spf::synth::builtin::load_format;
use spf::synth::instance::{Instance, Values};
use spf::synth::npz::read_npz_file;
use spf::synth::oracle::entries;

use common::outcome::{run_program, SANITIZE};
use common::report;
use common::scipy_files::{scipy_file, unsorted_bsr, unsorted_csr};
use common::{s, spf, text};

fn temp(test: &str) -> PathBuf {
    common::temp("program-npz", test)
}

/// A fixture scipy wrote (synth/tests/data/npz/make_fixtures.py).
fn fixture(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/synth/tests/data/npz")).join(name)
}

/// The program of `src` → `dst`, checked (`--verify`) and sanitized.
fn program(src: &str, dst: &str, dir: &Path) -> PathBuf {
    let bin = dir.join(format!("{src}-{dst}"));
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
    assert!(built.status.success(), "{}", text(&built.stderr));
    bin
}

/// The instance of `format` in an archive.
fn read(path: &Path, format: &str) -> Instance {
    read_npz_file(path, &load_format(format).expect("built-in"), None)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The entries of the instance of `format` in an archive.
fn stored(path: &Path, format: &str) -> std::collections::BTreeMap<Vec<i64>, f64> {
    let d = load_format(format).expect("built-in");
    entries(&d, &read(path, format)).expect("readable")
}

/// Runs `bin` and `spf convert src dst` on `input`, each writing `.npz`,
/// and requires both to convert to the same entries; returns the
/// program's archive.
fn both_convert(bin: &Path, src: &str, dst: &str, input: &Path, dir: &Path) -> PathBuf {
    let name = input.file_name().expect("a name").to_string_lossy();
    let (by_program, by_convert) = (
        dir.join(format!("{name}.program.npz")),
        dir.join(format!("{name}.convert.npz")),
    );
    let run = run_program(bin, &[s(input), "-o", s(&by_program)]);
    assert!(
        run.status.success(),
        "the program on {name}: {}",
        text(&run.stderr)
    );
    let run = spf(&["convert", src, dst, s(input), "-o", s(&by_convert)]);
    assert!(
        run.status.success(),
        "spf convert on {name}: {}",
        text(&run.stderr)
    );
    assert_eq!(
        stored(&by_program, dst),
        stored(&by_convert, dst),
        "{name}: the program and spf convert store other entries"
    );
    by_program
}

/// Whether the programs read deflated members: spf build links zlib when
/// the compiler finds it (a prerequisite CI installs).
fn have_zlib() -> bool {
    let missing = spf::engine::c_compiler::zlib_flags().is_empty();
    report::require(
        "deflated archives and gzip files",
        missing.then(|| "zlib's headers for the C compiler (zlib1g-dev)".to_string()),
    )
}

#[test]
fn scipy_files_convert_in_programs_as_in_spf_convert() {
    let dir = temp("scipy");
    let zlib = have_zlib();
    // A csr whose rows are out of order and repeat a column (summed), with
    // an explicit zero (kept); a bsr whose block columns are out of order.
    let (unsorted, blocks) = (unsorted_csr(&dir), unsorted_bsr(&dir));
    let csr_csc = program("csr", "csc", &dir);
    let out = both_convert(&csr_csc, "csr", "csc", &unsorted, &dir);
    let want = [(vec![0, 0], 2.0), (vec![0, 2], 4.0)];
    assert_eq!(stored(&out, "csc"), want.into_iter().collect());
    // The explicit zero is kept (the oracle's entries are the nonzero ones).
    let csc = read(&out, "csc");
    assert_eq!(csc.symbols["NNZ"], 3);
    assert_eq!(csc.arrays["A"].to_reals(), [2.0, 0.0, 4.0]);
    both_convert(&csr_csc, "csr", "csc", &fixture("csr32.npz"), &dir);
    if zlib {
        // scipy's save_npz compresses by default.
        both_convert(&csr_csc, "csr", "csc", &fixture("csr64.npz"), &dir);
    }
    let bcsr_coo = program("bcsr", "coo", &dir);
    let out = both_convert(&bcsr_coo, "bcsr", "coo", &blocks, &dir);
    assert_eq!(stored(&out, "coo").len(), 8);
    both_convert(&bcsr_coo, "bcsr", "coo", &fixture("bsr.npz"), &dir);
    for (src, dst, file) in [
        ("coo", "csr", "coo.npz"),
        ("dia", "csr", "dia.npz"),
        ("coo3d", "csf3", "coo3.npz"),
        ("csc", "dcsr", "csc.npz"),
    ] {
        if file == "csc.npz" && !zlib {
            continue;
        }
        let bin = program(src, dst, &dir);
        both_convert(&bin, src, dst, &fixture(file), &dir);
    }
    // The generic layout, in and out.
    let dcsr = dir.join("a.dcsr.npz");
    let run = spf(&[
        "convert",
        "csr",
        "dcsr",
        s(&fixture("csr32.npz")),
        "-o",
        s(&dcsr),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let dcsr_ell = program("dcsr", "ell", &dir);
    let out = both_convert(&dcsr_ell, "dcsr", "ell", &dcsr, &dir);
    assert_eq!(read(&out, "ell").format, "ELL");
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a program refuses, and the words its message must hold.
#[test]
fn archives_spf_convert_refuses_are_refused_by_programs() {
    let dir = temp("refused");
    let real32 = Values::Real32(vec![1.0f32, 2.0].into());
    let f32_file = dir.join("f32.npz");
    scipy_file(
        &f32_file,
        "csr",
        &[("NR", 2), ("NC", 2), ("NNZ", 2)],
        &[
            ("rowptr", Values::Int32(vec![0, 1, 2].into())),
            ("col", Values::Int32(vec![0, 1].into())),
            ("A", real32),
        ],
        ValueType::F32,
    );
    let original = std::fs::read(fixture("csr32.npz")).expect("readable");
    let truncated = dir.join("truncated.npz");
    std::fs::write(&truncated, &original[..original.len() / 2]).expect("write");
    // The first byte of the first stored member's data changed (after its
    // npy header): its CRC fails.
    let damaged = dir.join("damaged.npz");
    let mut bytes = original.clone();
    let header = bytes
        .windows(6)
        .position(|w| w == b"\x93NUMPY")
        .expect("a member");
    let header_len = usize::from(u16::from_le_bytes([bytes[header + 8], bytes[header + 9]]));
    bytes[header + 10 + header_len] ^= 0x55;
    std::fs::write(&damaged, &bytes).expect("write");
    let plain = dir.join("plain.npz");
    std::fs::write(&plain, b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0").expect("write");
    let bin = program("csr", "csc", &dir);
    let bcsr = program("bcsr", "csr", &dir);
    // The program, the input, words of its message, and whether spf
    // convert refuses it too (a bsr of other blocks is another format,
    // which spf convert reads as that format).
    for (bin, input, words, by_spf) in [
        (&bin, &f32_file, "float64 values only", false),
        (&bin, &fixture("csc.npz"), "another scipy layout", true),
        (&bin, &fixture("coo.npz"), "another scipy layout", true),
        (&bin, &truncated, "not a readable .npz archive", true),
        (&bin, &damaged, "checksum", true),
        (&bin, &plain, "neither a scipy.sparse matrix", true),
        (&bin, &fixture("float_indices.npz"), "holds integers", true),
        (&bcsr, &fixture("bsr3.npz"), "bcsr3x3", false),
    ] {
        if input.ends_with("csc.npz") && !have_zlib() {
            continue;
        }
        let out = dir.join("out.npz");
        let run = run_program(bin, &[s(input), "-o", s(&out)]);
        let err = text(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{}: {err}", input.display());
        assert!(err.contains(words), "{}: {err}", input.display());
        assert!(!out.exists(), "{}: refused, but wrote", input.display());
        if by_spf {
            let run = spf(&["convert", "csr", "csc", s(input), "-o", s(&out)]);
            assert_eq!(run.status.code(), Some(2), "{}", input.display());
            assert!(!out.exists(), "{}: refused, but wrote", input.display());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A gzip-compressed Matrix Market file reads as the file does.
#[test]
fn gzip_files_read_in_programs() {
    if !have_zlib() {
        return;
    }
    let dir = temp("gzip");
    let mtx = dir.join("m.mtx");
    std::fs::write(
        &mtx,
        "%%MatrixMarket matrix coordinate real general\n3 4 4\n1 2 1.5\n3 1 -2\n2 4 0\n1 2 1\n",
    )
    .expect("write");
    let gz = dir.join("m.mtx.gz");
    let zipped = std::process::Command::new("gzip")
        .arg("-c")
        .arg(&mtx)
        .output()
        .expect("gzip runs");
    assert!(zipped.status.success());
    std::fs::write(&gz, &zipped.stdout).expect("write");
    let bin = program("coo", "csr", &dir);
    let (a, b) = (dir.join("a.npz"), dir.join("b.npz"));
    for (input, out) in [(&mtx, &a), (&gz, &b)] {
        let run = run_program(&bin, &[s(input), "-o", s(out)]);
        assert!(run.status.success(), "{}", text(&run.stderr));
    }
    assert_eq!(read(&a, "csr"), read(&b, "csr"));
    assert_eq!(read(&b, "csr").symbols["NNZ"], 3);
    assert_eq!(stored(&b, "csr").len(), 2);
    // Cut short: refused.
    let cut = dir.join("cut.mtx.gz");
    std::fs::write(&cut, &zipped.stdout[..zipped.stdout.len() - 6]).expect("write");
    let run = run_program(&bin, &[s(&cut), "-o", s(&a)]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run.stderr));
    assert!(text(&run.stderr).contains("gzip"), "{}", text(&run.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// scipy (and numpy) read what programs write: scipy's layouts as the
/// matrix they hold, the generic layout as plain arrays.
#[test]
fn scipy_reads_what_programs_write() {
    let ready = std::process::Command::new("python3")
        .args(["-c", "import numpy, scipy.sparse"])
        .output();
    let missing = match ready {
        Ok(o) if o.status.success() => None,
        Ok(o) => Some(format!(
            "python3 with numpy and scipy (pip install numpy scipy): {}",
            text(&o.stderr).trim()
        )),
        Err(e) => Some(format!("python3 ({e})")),
    };
    if !report::require("scipy reads programs' archives", missing) {
        return;
    }
    let dir = temp("scipy-reads");
    let input = fixture("csr32.npz");
    let mut written = Vec::new();
    for dst in ["csc", "dia", "bcsr", "coo", "dcsr"] {
        let bin = program("csr", dst, &dir);
        let out = dir.join(format!("{dst}.npz"));
        let run = run_program(&bin, &[s(&input), "-o", s(&out)]);
        assert!(run.status.success(), "{dst}: {}", text(&run.stderr));
        written.push(out);
    }
    let script = format!(
        "import numpy as np, scipy.sparse as sp\n\
         want = sp.load_npz({input:?}).toarray()\n\
         for f, kind in [({csc:?}, 'csc'), ({dia:?}, 'dia'), ({bsr:?}, 'bsr'), ({coo:?}, 'coo')]:\n    \
             a = sp.load_npz(f)\n    \
             assert a.format == kind, (f, a.format)\n    \
             assert (a.toarray() == want).all(), f\n\
         g = np.load({dcsr:?})\n\
         assert g['spf_format'] == b'DCSR', g['spf_format']\n\
         assert int(g['NNZ']) == 7\n\
         print('ok')\n",
        input = s(&input),
        csc = s(&written[0]),
        dia = s(&written[1]),
        bsr = s(&written[2]),
        coo = s(&written[3]),
        dcsr = s(&written[4]),
    );
    let out = std::process::Command::new("python3")
        .args(["-c", &script])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success() && text(&out.stdout).contains("ok"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
