//! Matrix Market: the real matrices with the README's counts, and malformed
//! variants failing at the exact line and column.

use std::collections::BTreeMap;
use std::path::Path;

use synth::oracle::coordinate_entries;
use synth::tensor_io::{read_file, read_mtx, Coordinates, FileError, TensorIoError};

use crate::{data, matrices, read_matrix, small};

/// (file, rows, columns, entries announced, entries after symmetric
/// expansion, pattern). The expansion is 2 · stored − diagonal.
pub(crate) const MATRICES: &[(&str, i64, i64, usize, usize, bool)] = &[
    ("pores_1.mtx", 30, 30, 180, 180, false),
    ("lund_a.mtx", 147, 147, 1298, 2449, false),
    ("jgl009.mtx", 9, 9, 50, 50, true),
    ("1138_bus.mtx", 1138, 1138, 2596, 2 * 2596 - 1138, false),
    ("bp_200.mtx", 822, 822, 3802, 3802, false),
    ("can_1072.mtx", 1072, 1072, 6758, 2 * 6758 - 1072, true),
    ("dwt_2680.mtx", 2680, 2680, 13853, 2 * 13853 - 2680, true),
    ("balanced_tree_2_10.mtx", 2047, 2047, 4092, 4092, false),
    ("circulant_1000_1_2_3.mtx", 1000, 1000, 6000, 6000, false),
    ("bcsstm24.mtx", 3562, 3562, 3562, 3562, false),
];

#[test]
fn every_real_matrix_reads_with_the_readme_counts() {
    let mut files: Vec<String> = std::fs::read_dir(matrices())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".mtx") && n != "wrong.mtx")
        .collect();
    files.sort();
    let mut listed: Vec<String> = MATRICES.iter().map(|m| m.0.to_string()).collect();
    listed.sort();
    assert_eq!(files, listed, "every matrix of the directory is checked");
    for &(name, rows, cols, announced, expanded, pattern) in MATRICES {
        let m = read_matrix(name);
        assert_eq!(m.dims, vec![rows, cols], "{name}");
        assert_eq!(m.len(), expanded, "{name}");
        let text = std::fs::read_to_string(matrices().join(name)).unwrap();
        let size_line = text
            .lines()
            .skip(1)
            .find(|l| !l.starts_with('%') && !l.trim().is_empty())
            .unwrap();
        assert_eq!(
            size_line.split_whitespace().nth(2).unwrap(),
            announced.to_string(),
            "{name}"
        );
        if pattern {
            assert!(m.entries.iter().all(|e| e.1 == 1.0), "{name}");
        }
        // Distinct coordinates, all in range.
        let map: BTreeMap<&[i64], f64> = m.entries.iter().map(|(i, v)| (&i[..], *v)).collect();
        assert_eq!(map.len(), m.len(), "{name}");
        assert!(m
            .entries
            .iter()
            .all(|(i, _)| (0..rows).contains(&i[0]) && (0..cols).contains(&i[1])));
        // A symmetric file gives a symmetric matrix.
        if expanded != announced {
            for (i, v) in &m.entries {
                assert_eq!(map.get(&[i[1], i[0]][..]), Some(v), "{name} at {i:?}");
            }
        }
    }
    // File order: the first entries of lund_a (symmetric) are (1,1), then
    // (2,1) followed by its mirror (1,2).
    let lund = read_matrix("lund_a.mtx");
    assert_eq!(lund.entries[0], (vec![0, 0], 7.5e7));
    assert_eq!(lund.entries[1].0, vec![1, 0]);
    assert_eq!(lund.entries[2].0, vec![0, 1]);
    assert_eq!(lund.entries[1].1, lund.entries[2].1);
}

#[test]
fn wrong_mtx_fails_at_its_zero_based_index() {
    let path = matrices().join("wrong.mtx");
    let err = read_mtx(&std::fs::read(&path).unwrap()).unwrap_err();
    assert_eq!(
        err,
        TensorIoError {
            line: 3,
            column: 1,
            message: "row index 0 is out of range 1..=2: Matrix Market indices are 1-based, \
                      and this one looks 0-based"
                .into()
        }
    );
    let err = read_file(&path, None).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:3:1: row index 0 is out of range 1..=2: Matrix Market indices are 1-based, \
             and this one looks 0-based",
            path.display()
        )
    );
    assert!(matches!(err, FileError::Parse { .. }));
}

// ---------------------------------------------------------------------------
// Matrix Market: malformed variants

const HEADER: &str = "%%MatrixMarket matrix coordinate real general\n";

fn mtx_err(text: &str) -> (usize, usize, String) {
    let e = read_mtx(text.as_bytes()).expect_err(text);
    (e.line, e.column, e.message)
}

pub(crate) fn err(line: usize, column: usize, message: &str) -> (usize, usize, String) {
    (line, column, message.to_string())
}

/// pores_1.mtx with its lines changed by `edit`, written to a temporary
/// directory and read back through `read_file`.
fn pores_variant(
    dir: &Path,
    name: &str,
    edit: impl FnOnce(&mut Vec<String>),
) -> Result<Coordinates, FileError> {
    let text = std::fs::read_to_string(matrices().join("pores_1.mtx")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    edit(&mut lines);
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    read_file(&path, None)
}

fn parse_error(r: Result<Coordinates, FileError>) -> (usize, usize, String) {
    match r {
        Err(FileError::Parse { error, .. }) => (error.line, error.column, error.message),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn truncated_extra_and_garbage_files_fail_at_the_exact_position() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(matrices().join("pores_1.mtx")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let size_line = 1
        + lines
            .iter()
            .skip(1)
            .position(|l| !l.starts_with('%'))
            .unwrap()
        + 1;
    assert_eq!(lines[size_line - 1].split_whitespace().count(), 3);
    let n = lines.len();

    // Truncated: the last two entries removed; reported at the end of file.
    let e = parse_error(pores_variant(dir.path(), "truncated.mtx", |l| {
        l.truncate(n - 2)
    }));
    assert_eq!(
        e,
        err(
            n - 1,
            1,
            &format!("the file ends after 178 of the 180 entries announced on line {size_line}")
        )
    );
    // Truncated in the middle of the last line: its value is missing.
    let e = parse_error(pores_variant(dir.path(), "cut.mtx", |l| {
        let last = l.last_mut().unwrap();
        let fields: Vec<&str> = last.split_whitespace().collect();
        *last = format!("{} {}", fields[0], fields[1]);
    }));
    let cut_len = lines[n - 1]
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
        .len();
    assert_eq!(
        e,
        err(
            n,
            cut_len + 1,
            "missing value: an entry is `row column value`"
        )
    );
    // One entry more than announced.
    let e = parse_error(pores_variant(dir.path(), "extra.mtx", |l| {
        l.push("30 30 1.0".into())
    }));
    assert_eq!(
        e,
        err(
            n + 1,
            1,
            &format!("more entries than the 180 announced on line {size_line}")
        )
    );
    // Garbage in a value field.
    let e = parse_error(pores_variant(dir.path(), "garbage.mtx", |l| {
        l[size_line] = "1 1 abc".into()
    }));
    assert_eq!(e, err(size_line + 1, 5, "value `abc` is not a number"));
    // Garbage in an index field.
    let e = parse_error(pores_variant(dir.path(), "garbage2.mtx", |l| {
        l[size_line + 3] = "  x 2 1.0".into()
    }));
    assert_eq!(e, err(size_line + 4, 3, "row index `x` is not an integer"));
    // Out of range, both ends.
    let e = parse_error(pores_variant(dir.path(), "range.mtx", |l| {
        l[size_line + 1] = "2 31 1.0".into()
    }));
    assert_eq!(
        e,
        err(size_line + 2, 3, "column index 31 is out of range 1..=30")
    );
    let e = parse_error(pores_variant(dir.path(), "range2.mtx", |l| {
        l[size_line + 1] = "-1 3 1.0".into()
    }));
    assert_eq!(
        e,
        err(size_line + 2, 1, "row index -1 is out of range 1..=30")
    );
    // An extra field.
    let e = parse_error(pores_variant(dir.path(), "field.mtx", |l| {
        l[size_line] = "1 1 2.0 3.0".into()
    }));
    assert_eq!(
        e,
        err(
            size_line + 1,
            9,
            "unexpected field `3.0`: an entry is `row column value`"
        )
    );
    // A size line that does not parse.
    let e = parse_error(pores_variant(dir.path(), "size.mtx", |l| {
        l[size_line - 1] = "30 30".into()
    }));
    assert_eq!(
        e,
        err(
            size_line,
            6,
            "the size line needs 3 fields (rows, columns, entries) but has 2"
        )
    );
    let e = parse_error(pores_variant(dir.path(), "size2.mtx", |l| {
        l[size_line - 1] = "30 3O 180".into()
    }));
    assert_eq!(
        e,
        err(size_line, 4, "number of columns `3O` is not an integer")
    );
}

#[test]
fn malformed_matrix_market_texts() {
    let cases: Vec<(String, (usize, usize, String))> =
        vec![
        (
            "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 1\n3 3 2\n1 2 3\n".into(),
            err(
                5,
                1,
                "entry (1, 2) mirrors the entry (2, 1) of line 3: a symmetric file lists one \
                 triangle, and expanding both would add them into both positions; keep one of \
                 them, or declare the matrix general",
            ),
        ),
        (
            String::new(),
            err(
                1,
                1,
                "the file does not start with the Matrix Market banner \
                 `%%MatrixMarket matrix coordinate|array real|integer|pattern \
                 general|symmetric|skew-symmetric`",
            ),
        ),
        (
            "3 3 1\n1 1 1\n".into(),
            err(
                1,
                1,
                "the file does not start with the Matrix Market banner \
                 `%%MatrixMarket matrix coordinate|array real|integer|pattern \
                 general|symmetric|skew-symmetric`",
            ),
        ),
        (
            "%%MatrixMarket matrix array pattern general\n2 2\n".into(),
            err(
                1,
                29,
                "a dense `array` file has a value for every position; `pattern` is for \
                 `coordinate` files",
            ),
        ),
        (
            "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n".into(),
            err(6, 1, "the file ends after 3 of the 4 values announced on line 2"),
        ),
        (
            "%%MatrixMarket matrix array real general\n1 1\n1 2\n".into(),
            err(3, 3, "unexpected field `2`: a line of an array file holds one value"),
        ),
        (
            "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n4\n".into(),
            err(6, 1, "more values than the 3 announced on line 2"),
        ),
        (
            "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n".into(),
            err(
                1,
                34,
                "complex matrices are not supported; the field must be real, integer or pattern",
            ),
        ),
        (
            "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n 2 2 1\n".into(),
            err(
                3,
                2,
                "entry (2, 2) is on the diagonal, which a skew-symmetric matrix has zero and its \
                 file does not list",
            ),
        ),
        (
            "%%MatrixMarket matrix coordinate pattern skew-symmetric\n".into(),
            err(
                1,
                42,
                "a `pattern` matrix cannot be skew-symmetric: it has no values to negate",
            ),
        ),
        (
            "%%MatrixMarket matrix coordinate real Hermitian\n2 2 1\n2 1 1\n".into(),
            err(
                1,
                39,
                "hermitian matrices are not supported (they are complex); the symmetry must be \
                 general, symmetric or skew-symmetric",
            ),
        ),
        (
            "%%MatrixMarket matrix coordinate real\n".into(),
            err(
                1,
                38,
                "the banner ends before the symmetry (general, symmetric or skew-symmetric); \
                 expected `%%MatrixMarket matrix coordinate|array real|integer|pattern \
                 general|symmetric|skew-symmetric`",
            ),
        ),
        (
            format!("{HEADER}% only comments\n\n"),
            err(4, 1, "the file ends before the size line (`rows columns entries`)"),
        ),
        (
            format!("{HEADER}2 2 1\n1 1 nan\n"),
            err(
                3,
                5,
                "value `nan` is not a finite number (NaN and infinities are accepted with --allow-nonfinite, allow_nonfinite in the library and Python)",
            ),
        ),
        (
            format!("{HEADER}2 2 1\n1 1 1e999\n"),
            err(
                3,
                5,
                "value `1e999` is not a finite number (NaN and infinities are accepted with --allow-nonfinite, allow_nonfinite in the library and Python)",
            ),
        ),
        (
            format!("{HEADER}2 2 1\n1\n"),
            err(3, 2, "missing column index: an entry is `row column value`"),
        ),
        (
            format!("{HEADER}2 2 -1\n"),
            err(2, 5, "number of entries -1 is negative"),
        ),
        (
            format!("{HEADER}2 2 1 7\n"),
            err(
                2,
                7,
                "unexpected `7` after the number of entries; the size line of a coordinate \
                 matrix has 3 fields",
            ),
        ),
        (
            format!("{HEADER}2 2 1\n99999999999999999999 1 1\n"),
            err(3, 1, "row index `99999999999999999999` does not fit in a 64-bit integer"),
        ),
        (
            "%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n".into(),
            err(2, 1, "a symmetric matrix must be square, but this one is 2 × 3"),
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1.0\n".into(),
            err(3, 5, "unexpected field `1.0`: an entry is `row column`"),
        ),
        (
            "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n".into(),
            err(3, 5, "integer value `1.5` is not an integer"),
        ),
        (
            "%%MatrixMarket matrix coordinate real general extra\n".into(),
            err(1, 47, "unexpected `extra` after the banner's symmetry"),
        ),
        (
            "%%MatrixMarket vector coordinate real general\n".into(),
            err(
                1,
                16,
                "unsupported Matrix Market object `vector`; only `matrix` is supported",
            ),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(mtx_err(&text), expected, "{text:?}");
    }
    // Invalid UTF-8 is located at its first byte.
    let mut bytes = format!("{HEADER}2 2 1\n1 ").into_bytes();
    bytes.extend([0xff, b'\n']);
    let e = read_mtx(&bytes).unwrap_err();
    assert_eq!(
        (e.line, e.column, e.message.as_str()),
        (3, 3, "the file is not valid UTF-8 text")
    );
}

#[test]
fn matrix_market_details() {
    // Duplicates are summed at their first position; comments, blank lines,
    // CRLF, tabs and upper-case keywords are accepted.
    let text = "%%matrixmarket MATRIX Coordinate REAL General\r\n% c\r\n\r\n3 3 4\r\n\
                2\t1 1.0\r\n1 1 5\r\n% middle comment\r\n2 1 0.5\r\n3 3 -0\r\n\r\n";
    let m = read_mtx(text.as_bytes()).unwrap();
    assert_eq!(m.dims, vec![3, 3]);
    assert_eq!(
        m.entries,
        vec![(vec![1, 0], 1.5), (vec![0, 0], 5.0), (vec![2, 2], -0.0)]
    );
    // Symmetric mirrors: (2,1) and (1,2) are the same pair of entries, so a
    // file that gives both is refused (it was summed into both positions);
    // the same entry twice is a duplicate, summed as in a general file.
    let text = "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n2 1 3\n1 2 4\n";
    let e = read_mtx(text.as_bytes()).unwrap_err();
    assert_eq!((e.line, e.column), (4, 1), "{}", e.message);
    assert!(e
        .message
        .starts_with("entry (1, 2) mirrors the entry (2, 1) of line 3"));
    let text = "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n2 1 3\n2 1 4\n";
    let m = read_mtx(text.as_bytes()).unwrap();
    assert_eq!(m.entries, vec![(vec![1, 0], 7.0), (vec![0, 1], 7.0)]);
    // An empty matrix, and a last line without a newline.
    let m = read_mtx(format!("{HEADER}0 0 0").as_bytes()).unwrap();
    assert_eq!(
        m,
        Coordinates {
            dims: vec![0, 0],
            entries: vec![]
        }
    );
    let m = read_mtx(format!("{HEADER}1 2 1\n1 2 -7.25e-3").as_bytes()).unwrap();
    assert_eq!(m.entries, vec![(vec![0, 1], -7.25e-3)]);
    // A truncated file without a final newline: reported just past its end.
    let e = read_mtx(format!("{HEADER}1 2 2\n1 2 3").as_bytes()).unwrap_err();
    assert_eq!(
        (e.line, e.column, e.message.as_str()),
        (
            3,
            6,
            "the file ends after 1 of the 2 entries announced on line 2"
        )
    );
    // The small file of tests/data.
    let m = read_file(&data("small.mtx"), None).unwrap();
    assert_eq!(coordinate_entries(&m), coordinate_entries(&small()));
    // A file is read by its content, whatever its name; a JSON instance is
    // not coordinates; a missing file is an I/O error.
    let dir = std::env::temp_dir().join(format!("spf-mm-kinds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let named = dir.join("matrix.txt");
    std::fs::copy(data("small.mtx"), &named).unwrap();
    let m = read_file(&named, None).unwrap();
    assert_eq!(coordinate_entries(&m), coordinate_entries(&small()));
    std::fs::write(&named, "{\"format\": \"COO\"}").unwrap();
    assert!(matches!(
        read_file(&named, None),
        Err(FileError::NotCoordinates { .. })
    ));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(matches!(
        read_file(Path::new("/no/such/file.mtx"), None),
        Err(FileError::Io { .. })
    ));
}

/// Values that are not finite: refused by default, naming the flag that
/// accepts them; with `allow_nonfinite`, read as the doubles they spell
/// (any case, signed, `infinity` too, on a symmetric file's mirror and
/// in an array file), in the careful path whatever the file's size.
#[test]
fn nonfinite_values_read_only_when_allowed() {
    use synth::tensor_io::{parse_mtx, ReadOptions, NONFINITE_HINT};
    let text = "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 NaN\n2 1 -inf\n\
                3 3 Infinity\n3 2 2.5\n";
    let refused = parse_mtx(text.as_bytes(), &ReadOptions::default()).unwrap_err();
    assert_eq!(
        refused.to_string(),
        format!("3:5: value `NaN` is not a finite number ({NONFINITE_HINT})")
    );
    assert!(refused.message.contains("--allow-nonfinite"), "{refused}");
    let allowed = ReadOptions {
        allow_nonfinite: true,
        ..ReadOptions::default()
    };
    let m = parse_mtx(text.as_bytes(), &allowed)
        .expect("read")
        .to_coordinates();
    let shown: Vec<(Vec<i64>, String)> = m
        .entries
        .iter()
        .map(|(i, v)| (i.clone(), v.to_string()))
        .collect();
    let want = [
        (vec![0, 0], "NaN"),
        (vec![1, 0], "-inf"),
        (vec![0, 1], "-inf"),
        (vec![2, 2], "inf"),
        (vec![2, 1], "2.5"),
        (vec![1, 2], "2.5"),
    ];
    let want: Vec<(Vec<i64>, String)> = want
        .iter()
        .map(|(i, v)| (i.clone(), v.to_string()))
        .collect();
    assert_eq!(shown, want);
    // An array file, and a literal beyond the range of a double.
    let array = "%%MatrixMarket matrix array real general\n2 1\nnan\n1e999\n";
    assert!(parse_mtx(array.as_bytes(), &ReadOptions::default()).is_err());
    let a = parse_mtx(array.as_bytes(), &allowed).expect("read");
    assert!(a.values[0].is_nan());
    assert_eq!(a.values[1], f64::INFINITY);
    // Words that are not numbers stay refused.
    let bad = "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 nanx\n";
    let e = parse_mtx(bad.as_bytes(), &allowed).unwrap_err();
    assert_eq!(e.to_string(), "3:5: value `nanx` is not a number");
}
