//! Verification catches every kind of wrong output (its cost is measured
//! by `cargo bench -p bench --bench verification`).

use bench::c;
use bench::input::{self, Compressed};
use bench::{verify, Conversion};
use synth::builtin::load_format;
use synth::instance::{Instance, Values};

fn ints<'a>(inst: &'a mut Instance, name: &str) -> &'a mut Vec<i64> {
    match inst.arrays.get_mut(name) {
        Some(Values::Int(v)) => v.to_mut(),
        _ => panic!("no index array {name}"),
    }
}

fn reals<'a>(inst: &'a mut Instance, name: &str) -> &'a mut Vec<f64> {
    match inst.arrays.get_mut(name) {
        Some(Values::Real(v)) => v.to_mut(),
        _ => panic!("no value array {name}"),
    }
}

/// The C baseline's output of `conv` on `t`.
fn c_output(conv: Conversion, t: &input::Tensor) -> Instance {
    let out = match conv {
        Conversion::CooCsrSorted => c::coo_to_compressed(t, true),
        Conversion::CooCsc => c::coo_to_compressed(t, false),
        Conversion::CooDia => c::coo_to_dia(t),
        Conversion::CsrEll => c::compressed_to_ell(&Compressed::from_coo(t, true)),
        Conversion::Coo3dMcoo3 => c::coo3_to_mcoo3(t),
        other => panic!("not used here: {other}"),
    };
    let (_, out) = out.expect("the C baseline runs");
    out.into_instance(conv.dst_format(), &t.dims)
}

/// Every mutation of a correct output is caught by the full check (with
/// the message of its kind), and comparing with a correct reference first
/// does not hide it. The outputs are a few thousand entries, so that the
/// fast paths of validation and of the oracle (box domains, dense tables,
/// sorted entries) are the ones exercised.
#[test]
fn every_kind_of_wrong_output_is_caught() {
    let t = input::generate(matgen::find("ecology1").unwrap(), 0.002, 7, true);
    assert!(t.len() > 5_000, "{} entries", t.len());
    let expected = input::entries(&t);
    type Mutation = (&'static str, fn(&mut Instance), &'static str);
    let cases: Vec<(Conversion, Vec<Mutation>)> = vec![
        (
            Conversion::CooCsrSorted,
            vec![
                (
                    "swap two values",
                    |i| reals(i, "A").swap(10, 11),
                    "the entries differ first at",
                ),
                (
                    "swap two columns of a row",
                    |i| ints(i, "col").swap(10, 11),
                    "does not hold",
                ),
                ("a zero value", |i| reals(i, "A")[100] = 0.0, "no entry"),
                (
                    "a column out of range",
                    |i| {
                        let nc = i.symbols["NC"];
                        ints(i, "col")[5] = nc;
                    },
                    "outside its range",
                ),
                (
                    "a decreasing row pointer",
                    |i| {
                        let p = ints(i, "rowptr");
                        p[50] = p[52] + 1;
                    },
                    "is not nondecreasing",
                ),
                (
                    "a short value array",
                    |i| {
                        reals(i, "A").pop();
                    },
                    "values but",
                ),
                (
                    "one more row",
                    |i| *i.symbols.get_mut("NR").unwrap() += 1,
                    "values but",
                ),
                (
                    "a last entry dropped",
                    |i| {
                        let nnz = i.symbols["NNZ"] - 1;
                        *i.symbols.get_mut("NNZ").unwrap() = nnz;
                        ints(i, "col").pop();
                        reals(i, "A").pop();
                        *ints(i, "rowptr").last_mut().unwrap() = nnz;
                    },
                    "expected",
                ),
            ],
        ),
        (
            Conversion::CooCsc,
            vec![
                (
                    "swap two rows of a column",
                    |i| ints(i, "row").swap(20, 21),
                    "does not hold",
                ),
                ("a moved entry", |i| ints(i, "row")[30] += 1, "error"),
            ],
        ),
        (
            Conversion::CooDia,
            vec![
                (
                    "a nonzero padding slot",
                    |i| {
                        // A zero slot whose column lies inside the matrix.
                        let (nd, nc) = (i.symbols["ND"], i.symbols["NC"]);
                        let off = ints(i, "off").clone();
                        let a = reals(i, "A");
                        let k = (0..a.len())
                            .find(|&k| {
                                let j = k as i64 / nd + off[k % nd as usize];
                                a[k] == 0.0 && (0..nc).contains(&j)
                            })
                            .expect("a padding slot");
                        a[k] = 1.5;
                    },
                    "found 1.5",
                ),
                (
                    "diagonals out of order",
                    |i| ints(i, "off").swap(0, 1),
                    "is not increasing",
                ),
                (
                    "a diagonal outside the matrix",
                    |i| {
                        let nc = i.symbols["NC"];
                        *ints(i, "off").last_mut().unwrap() = nc;
                    },
                    "outside its range",
                ),
            ],
        ),
        (
            Conversion::CsrEll,
            vec![
                (
                    "a padding slot repeating an entry, nonzero",
                    |i| {
                        // Row 0 of the 5-point stencil has fewer entries than W.
                        let w = i.symbols["W"] as usize;
                        let a = reals(i, "A");
                        let k = (0..w)
                            .find(|&k| a[k] == 0.0)
                            .expect("a padded slot in row 0");
                        a[k] = 2.0;
                        let col = ints(i, "col");
                        col[k] = col[0];
                    },
                    "two nonzero entries",
                ),
                (
                    "a column out of range",
                    |i| {
                        let nc = i.symbols["NC"];
                        ints(i, "col")[3] = nc + 4;
                    },
                    "outside its range",
                ),
            ],
        ),
    ];
    for (conv, mutations) in cases {
        let dst = load_format(conv.dst()).unwrap();
        let good = c_output(conv, &t);
        verify::check(&dst, &expected, &good).unwrap_or_else(|e| panic!("{conv}: {e}"));
        for (what, mutate, message) in mutations {
            let mut bad = good.clone();
            mutate(&mut bad);
            let e = verify::check(&dst, &expected, &bad)
                .expect_err(&format!("{conv}: {what} is not caught"));
            assert!(
                e.contains(message) || (message == "error" && !e.is_empty()),
                "{conv}: {what}: {e}"
            );
            assert_eq!(
                verify::check_against(Some(&good), &dst, &expected, &bad),
                Err(e),
                "{conv}: {what}"
            );
        }
    }

    // Morton order: two entries exchanged.
    let t3 = input::generate(matgen::find("darpa").unwrap(), 0.0002, 7, false);
    let expected3 = input::entries(&t3);
    let dst = load_format("mcoo3").unwrap();
    let good = c_output(Conversion::Coo3dMcoo3, &t3);
    verify::check(&dst, &expected3, &good).unwrap();
    let mut bad = good.clone();
    for name in ["row", "col", "z"] {
        ints(&mut bad, name).swap(3, 4);
    }
    reals(&mut bad, "A").swap(3, 4);
    let e = verify::check(&dst, &expected3, &bad).unwrap_err();
    assert!(e.contains("MORTON"), "{e}");
}
