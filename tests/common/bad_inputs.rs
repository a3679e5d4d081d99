//! The bad inputs every front end must refuse alike: each a file, the
//! pair it is converted through, the message `spf convert` and a built
//! program print, and the kind of error the library returns
//! (`tests/cli_bad_input.rs`, `tests/api.rs`).

use std::path::{Path, PathBuf};

/// The banner of a real, general Matrix Market file.
pub const BANNER: &str = "%%MatrixMarket matrix coordinate real general\n";

/// What kind of error a bad input is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Located in its file (`FILE:LINE:COL`).
    Located,
    /// About the file as a whole.
    Input,
    /// An entry the source format cannot store.
    Unstorable,
    /// Sizes beyond the machine.
    TooLarge,
}

/// One bad input.
pub struct BadInput {
    /// The source format.
    pub src: &'static str,
    /// The destination format.
    pub dst: &'static str,
    /// The file, written in the test's directory.
    pub input: PathBuf,
    /// What every front end's message contains.
    pub message: &'static str,
    /// The kind of error.
    pub kind: Kind,
}

/// The bad inputs, written in `dir`.
pub fn bad_inputs(dir: &Path) -> Vec<BadInput> {
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
    let case = |src, dst, input: &PathBuf, message, kind| BadInput {
        src,
        dst,
        input: input.clone(),
        message,
        kind,
    };
    vec![
        case("coo",
            "csr",
            &cube,
            "the input has 3 dimensions but COO has 2; the built-in formats of 3 dimensions: \
             coo3d, mcoo3, scoo3, csf3", Kind::Input),
        case("coo", "csr", &dup, "dup.mtx:4:1: the entries at (1, 1) on lines 3 and 4 sum to inf, beyond the range of a double", Kind::Located),
        case("coo3d", "csf3", &dup3, "dup.tns:5:1: the entries at (1, 1, 1) on lines 1 and 5 sum to inf, beyond the range of a double", Kind::Located),
        case("coo3d", "csf3", &empty, "empty.tns:1:1: the file is empty: it lists no entries", Kind::Located),
        case("coo", "csr", &negative, "needs 0: NNZ is -2, and a size cannot be negative", Kind::Input),
        case("skyu", "csr", &lower, "the entry at (3, 1) cannot be stored in SKYU: SKYU stores only entries with i <= j", Kind::Unstorable),
        case("skyl", "coo", &upper, "the entry at (1, 3) cannot be stored in SKYL: SKYL stores only entries with j <= i", Kind::Unstorable),
        case("nm24", "csr", &three, "the entry at (1, 3) cannot be stored in NM24: NM24 stores at most 2 entries", Kind::Unstorable),
    ]
}
