//! Translation validation end to end: what `spf synth`, `spf build`,
//! `spf convert` and `spf check` do with a conversion that synthesis gets
//! wrong (refuse it, name the smallest failing test tensor, write nothing),
//! and with user descriptors that convert (`spf check` against every
//! built-in format, both ways). Input instances are checked for values no
//! stored entry addresses.

mod common;

use common::{s, spf, text};

fn temp(test: &str) -> std::path::PathBuf {
    common::temp("cli-val", test)
}

fn data(path: &str) -> std::path::PathBuf {
    common::test_data(path)
}

/// A descriptor whose conversions validation refutes: CSR whose columns are
/// ordered by pairs of columns (`floor(col / 2)`), an order the order
/// reading does not take, as the destination of a conversion from COO.
const WRONG: [(&str, &str); 1] = [("descriptors/csr_pairs.desc", "CSRP")];

#[test]
fn a_conversion_that_fails_validation_is_refused_by_every_command_but_a_routed_convert() {
    let dir = temp("refused");
    let matrix = dir.join("lower.mtx");
    std::fs::write(
        &matrix,
        "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n3 1 2.0\n",
    )
    .expect("write");
    for (file, name) in WRONG {
        let desc = data(file);
        let out_file = dir.join("out.json");
        let svg = dir.join("out.svg");
        let attempts: Vec<Vec<&str>> = vec![
            vec!["synth", "coo", s(&desc), "--emit", "c", "-o", s(&out_file)],
            vec![
                "synth",
                "coo",
                s(&desc),
                "--emit",
                "rust",
                "-o",
                s(&out_file),
            ],
            vec!["synth", "coo", s(&desc), "--emit", "ir", "-o", s(&out_file)],
            vec!["build", "coo", s(&desc), "-o", s(&out_file)],
            vec![
                "build",
                "coo",
                s(&desc),
                "-o",
                s(&out_file),
                "--emit-source",
                s(&out_file),
            ],
            vec!["pdfg", "coo", s(&desc), "-o", s(&svg)],
        ];
        for args in attempts {
            let _ = std::fs::remove_file(&out_file);
            let out = spf(&args);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(
                err.contains(&format!(
                    "the synthesized conversion COO -> {name} is wrong on the test tensor"
                )),
                "{args:?}: {err}"
            );
            // The counterexample, as Matrix Market lines, and what is wrong.
            assert!(
                err.contains("%%MatrixMarket matrix coordinate real general\n"),
                "{err}"
            );
            assert!(
                err.contains("the result stores other entries than the input")
                    || err.contains("the conversion stopped")
                    || err.contains("the result breaks a rule"),
                "{err}"
            );
            assert!(!err.contains("internal error"), "{err}");
            assert!(!out_file.exists(), "{args:?} wrote {}", out_file.display());
            assert!(!svg.exists(), "{args:?} wrote {}", svg.display());
            assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
        }
        // `spf convert` takes a route whose steps validate, and checks
        // its result against the format's rules and the input's entries.
        let out = spf(&[
            "convert",
            "coo",
            s(&desc),
            s(&matrix),
            "-o",
            s(&out_file),
            "--verbose",
        ]);
        let err = text(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(
            err.contains(&format!("COO -> {name} does not synthesize directly")),
            "{err}"
        );
        let dumped = spf(&["dump", s(&desc), s(&out_file)]);
        assert_eq!(
            text(&dumped.stdout),
            "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n3 1 2\n"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_reports_each_pair_with_its_counterexample() {
    // One pair, both ways.
    let out = spf(&["check", "coo", "csr"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].starts_with("pair COO -> CSR: ok: synthesized, and correct on "),
        "{stdout}"
    );
    assert!(lines[1].starts_with("pair CSR -> COO: ok: "), "{stdout}");

    // A wrong pair: the counterexample is indented under its line, and the
    // exit status says that a pair does not convert.
    let pairs = data("descriptors/csr_pairs.desc");
    let out = spf(&["check", s(&pairs), "coo"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains("pair COO -> CSRP: failed validation: "),
        "{stdout}"
    );
    assert!(
        stdout.contains("\n    %%MatrixMarket matrix coordinate real general\n"),
        "{stdout}"
    );
    assert!(
        text(&out.stderr).contains("not convert"),
        "{}",
        text(&out.stderr)
    );

    // A lower skyline without `padding` (every slot of a row's profile an
    // entry, zeros too) converts: its source loop runs over each row's
    // slots (`k` is free, `jj` defined by it), not once per row.
    let skyl = data("descriptors/skyl_nopad.desc");
    let out = spf(&["check", s(&skyl), "csr"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("pair SKYLNP -> CSR: ok: "), "{stdout}");
}

/// A pair synthesis cannot make directly converts through a built-in
/// format: `spf check` names the route and exits 0, `spf convert` takes it
/// (saying which with `--verbose`) and its result stores the input's
/// entries; a pair with no route is exit status 3, a wrong descriptor 2.
#[test]
fn pairs_without_a_direct_conversion_are_routed_through_a_builtin() {
    // A CSR whose rows are stored bottom-up: RCSR -> JAD does not
    // synthesize directly.
    let rcsr = data("descriptors/rcsr.desc");
    let out = spf(&["check", s(&rcsr), "jad"]);
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    assert!(stdout.contains("pair RCSR -> JAD: refused: "), "{stdout}");
    assert!(
        stdout.contains("\n    converts through COO: RCSR -> COO -> JAD, each step validated\n"),
        "{stdout}"
    );
    assert!(stdout.contains("pair JAD -> RCSR: ok: "), "{stdout}");

    let dir = common::temp("cli_validation", "routes");
    let m = data("matrices/lund_a.mtx");
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    let out = spf(&["convert", "coo", s(&rcsr), s(&m), "-o", s(&a)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = spf(&["convert", s(&rcsr), "jad", s(&a), "-o", s(&b), "--verbose"]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "RCSR -> JAD does not synthesize directly, so it converts as RCSR -> COO -> JAD"
        ),
        "{stderr}"
    );
    // The routed result holds the matrix's entries, as the direct CSR -> JAD's does.
    let direct = dir.join("direct.json");
    let out = spf(&["convert", "coo", "jad", s(&m), "-o", s(&direct)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let dump = |f: &std::path::Path| {
        let mut lines: Vec<String> = text(&spf(&["dump", "jad", s(f)]).stdout)
            .lines()
            .map(String::from)
            .collect();
        lines.sort();
        lines
    };
    assert_eq!(dump(&b), dump(&direct));
    assert!(dump(&b).len() > 1000, "{} lines", dump(&b).len());

    // Formats of other orders have no route: exit status 3.
    let out = spf(&["check", "csr", "coo3d"]);
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    assert!(
        stdout.contains("no route: no built-in format converts from CSR and to COO3D"),
        "{stdout}"
    );
    assert_eq!(
        text(&out.stderr),
        "csr: 2 of 2 conversions do not convert\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_user_descriptor_that_converts_is_checked_against_every_builtin_both_ways() {
    let mycsr = data("descriptors/mycsr.desc");
    let out = spf(&["check", s(&mycsr)]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    let pairs: Vec<&str> = stdout.lines().filter(|l| l.starts_with("pair ")).collect();
    // Every built-in 2-D format, both ways.
    let builtins = spf::synth::builtin::builtin_names_of_order(2);
    assert_eq!(pairs.len(), 2 * builtins.len(), "{stdout}");
    assert!(builtins.len() >= 9, "{builtins:?}");
    for builtin in builtins.iter().map(|b| b.to_uppercase()) {
        for line in [
            format!("pair MYCSR -> {builtin}: ok: synthesized, and correct on "),
            format!("pair {builtin} -> MYCSR: ok: synthesized, and correct on "),
        ] {
            assert!(stdout.contains(&line), "{line}\n{stdout}");
        }
    }
    assert!(
        !stdout.contains("COO3D"),
        "3-D formats are not paired with 2-D ones"
    );
}

/// A CSR whose `rowptr` ends before `NNZ` stores a value no entry
/// addresses; a DIA value in a slot whose column falls outside the matrix
/// likewise. Both are refused when read, never converted without them.
#[test]
fn values_that_no_entry_addresses_are_refused() {
    let dir = temp("unaddressed");
    let cases = [
        (
            "csr",
            r#"{"format": "CSR", "symbols": {"NR": 3, "NC": 3, "NNZ": 5},
                "arrays": {"rowptr": [0, 2, 3, 4], "col": [0, 1, 2, 0, 1], "A": [1, 2, 3, 4, 5]}}"#,
            "A(4) = 5 belongs to no stored entry",
        ),
        (
            "csr",
            r#"{"format": "CSR", "symbols": {"NR": 2, "NC": 3, "NNZ": 3},
                "arrays": {"rowptr": [1, 2, 3], "col": [0, 1, 2], "A": [7, 2, 3]}}"#,
            "A(0) = 7 belongs to no stored entry",
        ),
        (
            "dia",
            r#"{"format": "DIA", "symbols": {"NR": 2, "NC": 2, "ND": 2},
                "arrays": {"off": [0, 1], "A": [1, 2, 3, 4]}}"#,
            "A(1, 1) = 4 belongs to no stored entry",
        ),
    ];
    for (format, json, message) in cases {
        let input = dir.join(format!("{format}.json"));
        std::fs::write(&input, json).expect("write");
        let out_file = dir.join("out.json");
        let mtx = dir.join("out.mtx");
        for args in [
            vec!["convert", format, "coo", s(&input), "-o", s(&out_file)],
            vec!["dump", format, s(&input), "-o", s(&mtx)],
        ] {
            let out = spf(&args);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains(message), "{args:?}: {err}");
            assert!(!out_file.exists() && !mtx.exists());
        }
    }
    // Zeros there are padding, not entries: accepted.
    let input = dir.join("dia_zero.json");
    std::fs::write(
        &input,
        r#"{"format": "DIA", "symbols": {"NR": 2, "NC": 2, "ND": 2},
            "arrays": {"off": [0, 1], "A": [1, 2, 3, 0]}}"#,
    )
    .expect("write");
    let out = spf(&["convert", "dia", "coo", s(&input)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A user's own tiled order, with modulo terms (4 x 4 tiles, column-major
/// inside a tile): a lexicographic comparator, lowered to a counting sort
/// over its components, converts to and from every built-in format.
#[test]
fn a_tiled_comparator_with_modulo_terms_converts_with_every_builtin() {
    let desc = data("descriptors/tcoo4c.desc");
    let out = spf(&["check", s(&desc)]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    let builtins = spf::synth::builtin::builtin_names_of_order(2);
    let ok = stdout
        .lines()
        .filter(|l| l.starts_with("pair ") && l.contains(": ok: synthesized, and correct on "))
        .count();
    assert_eq!(ok, 2 * builtins.len(), "{stdout}");
    // The sort is a counting sort on the key's components, the modulo
    // terms bounded by the tile size.
    let out = spf(&["synth", "coo", s(&desc), "--emit", "ir"]);
    let ir = text(&out.stdout);
    assert!(
        ir.contains("counting(floor((NR + 3) / 4), floor((NC + 3) / 4), 4, 4)"),
        "{ir}"
    );
}

/// DCSR, two compressed levels (a built-in): the stored rows' ordered set
/// gives the row position `p`, and the entries are counting-sorted by
/// `(ii, j)` in the same pass (`p` rises with `ii`). BCSR -> DCSR,
/// once refused by validation (the plan chose a bound on `rp` that holds
/// only through a constant), converts too.
#[test]
fn dcsr_converts_with_every_builtin() {
    let out = spf(&["check", "dcsr"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    // Every 2-D built-in, both ways (and DCSR to itself).
    for builtin in spf::synth::builtin::builtin_names_of_order(2) {
        let b = builtin.to_uppercase();
        for line in [
            format!("pair DCSR -> {b}: ok"),
            format!("pair {b} -> DCSR: ok"),
        ] {
            assert!(stdout.contains(&line), "{line}\n{stdout}");
        }
    }
    assert!(!stdout.contains("failed"), "{stdout}");
    let out = spf(&["synth", "coo", "dcsr", "--emit", "ir"]);
    let ir = text(&out.stdout);
    assert!(ir.contains("Permutation(3, counting(NR, NC))"), "{ir}");
    // Sorted by the row itself, in the pass that fills the set of rows.
    assert!(ir.contains("P.insert(ii, jj, n)"), "{ir}");
    // A real matrix through both directions, with the oracle.
    let dir = temp("dcsr");
    let matrix = data("matrices/bp_200.mtx");
    let dcsr = dir.join("bp_200.dcsr.json");
    let back = dir.join("bp_200.coo.json");
    let out = spf(&["convert", "coo", "dcsr", s(&matrix), "-o", s(&dcsr)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = spf(&["convert", "dcsr", "csc", s(&dcsr), "-o", s(&back)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two formats as other libraries write them: CSR with 1-based indices
/// (its pointers start at their range's lower bound, 1, and are the
/// scatter's prefix sums plus 1) and DIA with its diagonals in any order
/// (distinct offsets by a rule, filled by an ordered set). Each converts
/// with every 2-D built-in, both ways.
#[test]
fn one_based_indices_and_unordered_offsets_convert_with_every_builtin() {
    for (file, name) in [("csr1", "CSR1"), ("diau", "DIAU")] {
        let desc = data(&format!("descriptors/{file}.desc"));
        let out = spf(&["check", s(&desc)]);
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
        for builtin in spf::synth::builtin::builtin_names_of_order(2)
            .iter()
            .map(|b| b.to_uppercase())
        {
            for line in [
                format!("pair {name} -> {builtin}: ok: synthesized, and correct on "),
                format!("pair {builtin} -> {name}: ok: synthesized, and correct on "),
            ] {
                assert!(stdout.contains(&line), "{line}\n{stdout}");
            }
        }
    }
    let ir = |desc: &str| {
        let out = spf(&["synth", "coo", s(&data(desc)), "--emit", "ir"]);
        text(&out.stdout)
    };
    let csr1 = ir("descriptors/csr1.desc");
    assert!(csr1.contains("rowptr(i) = 1"), "{csr1}");
    assert!(
        csr1.contains("rowptr(g + 1) = P.start(g + 1) + 1"),
        "{csr1}"
    );
    let diau = ir("descriptors/diau.desc");
    assert!(diau.contains(": OrderedSet("), "{diau}");
}

/// Every format of the zoo (`tests/data/descriptors/zoo/`: other block
/// shapes, orientations, orders, 1-based indices, fixed widths, bands,
/// sparse vectors, 4-D tensors) converts with COO and CSR (COO3D and CSF3
/// for a 3-D one; the zoo's others of its order for any other order), both
/// ways. A sparse vector converts from a FROSTT file of one mode.
#[test]
fn every_format_of_the_zoo_converts_with_coo_and_csr() {
    let readme = data("descriptors/zoo/README.md");
    let zoo = readme.parent().expect("a directory");
    let mut files: Vec<_> = std::fs::read_dir(zoo)
        .expect("the zoo")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "desc"))
        .collect();
    files.sort();
    assert!(files.len() >= 18, "{files:?}");
    let formats: Vec<_> = files
        .iter()
        .map(|f| spf::synth::builtin::load_format(s(f)).expect("parses"))
        .collect();
    for (file, d) in files.iter().zip(&formats) {
        let others: Vec<(String, String)> = match d.dense.len() {
            2 => vec![("coo".into(), "COO".into()), ("csr".into(), "CSR".into())],
            3 => vec![
                ("coo3d".into(), "COO3D".into()),
                ("csf3".into(), "CSF3".into()),
            ],
            order => files
                .iter()
                .zip(&formats)
                .filter(|(f, o)| o.dense.len() == order && *f > file)
                .map(|(f, o)| (s(f).to_string(), o.name.clone()))
                .collect(),
        };
        for (other, theirs) in &others {
            let out = spf(&["check", s(file), other]);
            let stdout = text(&out.stdout);
            assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
            for line in [
                format!(
                    "pair {} -> {theirs}: ok: synthesized, and correct on ",
                    d.name
                ),
                format!(
                    "pair {theirs} -> {}: ok: synthesized, and correct on ",
                    d.name
                ),
            ] {
                assert!(stdout.contains(&line), "{line}\n{stdout}");
            }
        }
    }
    // A sparse vector from a FROSTT file of one mode, in both engines.
    let dir = temp("zoo");
    let input = dir.join("v.tns");
    std::fs::write(&input, "3 2.5\n1 1.5\n7 7.5\n").expect("write");
    for engine in ["native", "interp"] {
        let out_file = dir.join(format!("v-{engine}.json"));
        let out = spf(&[
            "convert",
            s(&zoo.join("vec.desc")),
            s(&zoo.join("svec.desc")),
            s(&input),
            "-o",
            s(&out_file),
            "--engine",
            engine,
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let json = std::fs::read_to_string(&out_file).expect("written");
        let inst = spf::synth::instance::Instance::from_json(&json).expect("an instance");
        assert_eq!(
            inst.arrays.get("idx"),
            Some(&spf::synth::instance::Values::Int(vec![0, 2, 6].into())),
            "{json}"
        );
        assert_eq!(
            inst.arrays.get("A"),
            Some(&spf::synth::instance::Values::Real(
                vec![1.5, 2.5, 7.5].into()
            )),
            "{json}"
        );
    }
    // A built program of a 4-D conversion, verified in C.
    let bin = dir.join("coo4_scoo4");
    let out = spf(&[
        "build",
        s(&zoo.join("coo4.desc")),
        s(&zoo.join("scoo4.desc")),
        "-o",
        s(&bin),
        "--verify",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let input = dir.join("t4.tns");
    std::fs::write(&input, "1 2 3 4 1.5\n2 1 1 1 2.5\n1 1 1 1 3.5\n").expect("write");
    let json = dir.join("t4.json");
    let out = std::process::Command::new(&bin)
        .args([s(&input), "-o", s(&json)])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("\"verified\": true"));
    let inst = spf::synth::instance::Instance::from_json(
        &std::fs::read_to_string(&json).expect("written"),
    )
    .expect("an instance");
    assert_eq!(
        inst.arrays.get("x3"),
        Some(&spf::synth::instance::Values::Int(vec![0, 3, 0].into())),
        "sorted by (i, j, k, l)"
    );
}

/// Jagged diagonals (the built-in JAD; `cli_formats` checks it against
/// every other built-in): the rows ranked by their number of entries, most
/// first, by a counting pass over the counts (`R`, keyed by `NC - count`),
/// each entry's diagonal its rank within its row, the diagonals' pointers
/// the prefix sums of the rows each holds, and each entry's position
/// `jd(d) + r` from them. JADC, the same of the transpose with the tuple in
/// another order, converts through the same mechanism: it depends on
/// neither JAD's names nor its layout.
#[test]
fn jagged_diagonals_rank_rows_by_their_counts() {
    let out = spf(&["synth", "coo", "jad", "--emit", "ir"]);
    let ir = text(&out.stdout);
    for part in [
        "C.insert(ii)",
        "Permutation(2, counting(NC + 1))",
        "R.insert(NC - C.count(g), g)",
        "perm(r) = R.key(1, r)",
        "r_out = R.map(ii_out)",
        "jd(d + 1) max= r_out + 1",
        "jd(i + 1) += jd(i)",
        "col_out(r_out + jd(d)) = jj_out",
    ] {
        assert!(ir.contains(part), "{part}\n{ir}");
    }
    let desc = data("descriptors/jadc.desc");
    for other in ["coo", "csr"] {
        let out = spf(&["check", s(&desc), other]);
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
        let other = other.to_uppercase();
        for line in [
            format!("pair JADC -> {other}: ok: synthesized, and correct on "),
            format!("pair {other} -> JADC: ok: synthesized, and correct on "),
        ] {
            assert!(stdout.contains(&line), "{line}\n{stdout}");
        }
    }
    let out = spf(&["synth", "coo", s(&desc), "--emit", "ir"]);
    let ir = text(&out.stdout);
    assert!(ir.contains("R.insert(NR - C.count(g), g)"), "{ir}");
}

/// Nested compressed levels a user writes in another mode order: CSF of a
/// 3-D tensor in mode order j, k, i, and DCSC (DCSR's column-major twin).
/// Each converts with every built-in of its order, both ways, through one
/// counting sort whose key prefixes number the shallower levels.
#[test]
fn nested_levels_in_any_mode_order_convert_with_every_builtin() {
    for (file, order, name) in [("csfjki", 3, "CSFJKI"), ("dcsc", 2, "DCSC")] {
        let desc = data(&format!("descriptors/{file}.desc"));
        let out = spf(&["check", s(&desc)]);
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
        let builtins = spf::synth::builtin::builtin_names_of_order(order);
        for builtin in builtins.iter().map(|b| b.to_uppercase()) {
            for line in [
                format!("pair {name} -> {builtin}: ok: synthesized, and correct on "),
                format!("pair {builtin} -> {name}: ok: synthesized, and correct on "),
            ] {
                assert!(stdout.contains(&line), "{line}\n{stdout}");
            }
        }
    }
    let desc = data("descriptors/csfjki.desc");
    let out = spf(&["synth", "coo3d", s(&desc), "--emit", "ir"]);
    let ir = text(&out.stdout);
    assert!(ir.contains("counting(NC, NZ, NR)"), "{ir}");
    assert!(ir.contains("P.prefix_rank(2, p)"), "{ir}");
}

/// Skylines (profiles, the built-ins SKYL and SKYU): the row pointers are
/// the prefix sums of each row's length from its first nonzero to the
/// diagonal, and an entry's slot is computed from them, with no sort.
/// (`cli_formats` checks every built-in against every other, both ways.)
#[test]
fn a_skyline_is_filled_by_prefix_sums_of_row_lengths() {
    let out = spf(&["synth", "coo", "skyl", "--emit", "ir"]);
    let ir = text(&out.stdout);
    // The row lengths, their prefix sums, and each entry's slot from them.
    assert!(ir.contains("sky(ii + 1) max= ii - jj + 1"), "{ir}");
    assert!(ir.contains("sky(i + 1) += sky(i)"), "{ir}");
    assert!(
        ir.contains("A_out(-ii + jj + sky(ii + 1) - 1) = A(n)"),
        "{ir}"
    );
    assert!(!ir.contains("Permutation"), "{ir}");
}

/// An entry a skyline cannot store (above a lower skyline's diagonal) is
/// refused by `spf convert` and by a built program, checked or not, with
/// the entry named and no output; a lower-triangular matrix converts, and
/// back to CSR with its entries.
#[test]
fn an_entry_a_skyline_cannot_store_is_refused() {
    let dir = temp("skyline");
    let (skyl, skyu) = ("skyl", "skyu");
    let full = data("matrices/jgl009.mtx");
    let lower = dir.join("lower.mtx");
    std::fs::write(
        &lower,
        "%%MatrixMarket matrix coordinate real general\n4 3 4\n1 1 1.0\n3 1 2.0\n3 3 3.5\n4 2 4.0\n",
    )
    .expect("write");
    let out_file = dir.join("out.json");
    let out = spf(&["convert", "coo", skyl, s(&full), "-o", s(&out_file)]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot be stored in SKYL: SKYL stores only entries with j <= i"),
        "{err}"
    );
    assert!(!out_file.exists());
    let program = dir.join("coo2skyl");
    let out = spf(&["build", "coo", skyl, "-o", s(&program)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for extra in [&[][..], &["--unchecked"][..]] {
        let mut cmd = std::process::Command::new(&program);
        cmd.args(extra).arg(&full).arg("-o").arg(&out_file);
        let out = cmd.output().expect("run");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains("cannot be stored in SKYL"), "{err}");
        assert!(!out_file.exists());
    }
    // The lower-triangular matrix: converts, and back.
    let out = spf(&["convert", "coo", skyl, s(&lower), "-o", s(&out_file)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json = std::fs::read_to_string(&out_file).expect("read");
    assert!(json.contains("\"sky\": [0,1,1,4,7]"), "{json}");
    let back = dir.join("back.json");
    let out = spf(&["convert", skyl, "csr", s(&out_file), "-o", s(&back)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json = std::fs::read_to_string(&back).expect("read");
    assert!(json.contains("\"col\": [0,0,2,1]"), "{json}");
    // The upper skyline refuses the same matrix's entries below the diagonal.
    let out = spf(&["convert", "coo", skyu, s(&lower), "-o", s(&out_file)]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the entry at (3, 1) cannot be stored in SKYU"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A construct the lowering cannot handle (a comparator key that multiplies
/// two coordinates) is refused before any code exists, naming the
/// construct and its line in the descriptor file.
#[test]
fn a_lowering_refusal_names_the_construct_and_its_line() {
    let desc = data("descriptors/pcoo.desc");
    let out = spf(&["synth", "coo", s(&desc), "--emit", "c"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("comparator `PROD` is not an interleaving of its parameters"),
        "{err}"
    );
    assert!(err.contains("(PCOO's comparator `PROD`, line 8)"), "{err}");
    assert!(out.stdout.is_empty());
}

/// Structured sparsity written by a user, 4:8 down the columns (the
/// built-in NM24 is 2:4 along the rows): the slot is a rank within a group
/// of two positions (column and block of eight rows), counted by one
/// scatter; a matrix that fits converts there and back in both engines,
/// and a fifth entry in a block is refused, naming it and the four that
/// fill its block, with nothing written, by `spf convert` and by a built
/// program alike.
#[test]
fn a_user_structured_sparsity_converts_and_refuses_a_full_block() {
    let dir = temp("nm48c");
    let desc = data("descriptors/nm48c.desc");
    // 10 x 3: column 1 (1-based) has four entries in rows 1..8 and one in
    // row 9; column 3 has two; column 2 none.
    let fits = dir.join("fits.mtx");
    std::fs::write(
        &fits,
        "%%MatrixMarket matrix coordinate real general\n10 3 7\n\
         8 1 1.5\n1 1 2.5\n3 1 3.5\n9 1 4.5\n5 1 5.5\n2 3 6.5\n10 3 7.5\n",
    )
    .expect("write");
    for engine in ["native", "interp"] {
        let stored = dir.join(format!("stored-{engine}.json"));
        let back = dir.join(format!("back-{engine}.mtx"));
        let out = spf(&[
            "convert",
            "coo",
            s(&desc),
            s(&fits),
            "-o",
            s(&stored),
            "--engine",
            engine,
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let json = std::fs::read_to_string(&stored).expect("written");
        assert!(json.contains("\"G\": 2"), "{json}");
        let out = spf(&[
            "convert",
            s(&desc),
            "coo",
            s(&stored),
            "-o",
            s(&back),
            "--engine",
            engine,
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let mut lines: Vec<String> = std::fs::read_to_string(&back)
            .expect("written")
            .lines()
            .skip(2)
            .map(str::to_string)
            .collect();
        lines.sort();
        assert_eq!(
            lines,
            ["1 1 2.5", "10 3 7.5", "2 3 6.5", "3 1 3.5", "5 1 5.5", "8 1 1.5", "9 1 4.5"],
            "{engine}"
        );
    }
    let full = dir.join("full.mtx");
    std::fs::write(
        &full,
        "%%MatrixMarket matrix coordinate real general\n10 3 5\n\
         8 1 1.5\n1 1 2.5\n3 1 3.5\n5 1 5.5\n6 1 0.5\n",
    )
    .expect("write");
    for engine in ["native", "interp"] {
        let out_file = dir.join(format!("full-{engine}.json"));
        let out = spf(&[
            "convert",
            "coo",
            s(&desc),
            s(&full),
            "-o",
            s(&out_file),
            "--engine",
            engine,
        ]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(
                "the entry at (6, 1) cannot be stored in NM48C: NM48C stores at most 4 entries \
                 with the same j and floor(i / 8)"
            ),
            "{err}"
        );
        assert!(
            err.contains("the entries at (8, 1), (1, 1), (3, 1), (5, 1) already fill its group"),
            "{err}"
        );
        assert!(!out_file.exists());
    }
    // A built program counts the groups in C: the same refusal, and the
    // matrix that fits converts.
    let bin = dir.join("coo_nm48c");
    let out = spf(&["build", "coo", s(&desc), "-o", s(&bin)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let run = |input: &std::path::Path, json: &std::path::Path| {
        std::process::Command::new(&bin)
            .args([s(input), "-o", s(json)])
            .output()
            .expect("runs")
    };
    let json = dir.join("built.json");
    let out = run(&fits, &json);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(std::fs::read_to_string(&json)
        .expect("written")
        .contains("\"G\": 2"));
    let json = dir.join("built-full.json");
    let out = run(&full, &json);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "the entry at (6, 1) cannot be stored in NM48C: NM48C stores at most 4 entries with \
             the same j and floor(i / 8) (slot `t` is a rank within the group of `jc` and `g`), \
             and the entries at (8, 1), (1, 1), (3, 1), (5, 1) already fill its group"
        ),
        "{err}"
    );
    assert!(!json.exists());
}

/// A format of which no test tensor keeps two storable entries cannot be
/// validated: refused with that reason, not handed out on the strength of
/// tensors of one entry.
#[test]
fn a_conversion_no_test_tensor_exercises_is_refused() {
    let desc = data("descriptors/corner.desc");
    let out = spf(&["synth", "coo", s(&desc), "--emit", "c"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("COO and CORNER can both store only"), "{err}");
    assert!(
        err.contains("too few to validate the conversion on"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}
