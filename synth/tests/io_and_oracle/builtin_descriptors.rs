//! The built-in descriptors: their instances validate and agree on the real
//! matrices; a uniqueness rule with a shared variable is a join.

use std::collections::BTreeMap;
use std::time::Instant;

use synth::descriptor::Descriptor;
use synth::instance::{Instance, Values};
use synth::instance_validation::validate;
use synth::oracle::{compare, coordinate_entries, entries};
use synth::tensor_io::Coordinates;

use crate::{coo_instance, csr_instance, dia_instance, instance, read_matrix};

/// An instance of the built-in format `name` holding the matrix `m`.
fn builtin_instance(d: &Descriptor, name: &str, m: &Coordinates) -> Instance {
    let (nr, nc) = (m.dims[0], m.dims[1]);
    let mut sorted = m.entries.clone();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut inst = match name {
        "coo" => coo_instance(m),
        "scoo" => coo_instance(&Coordinates {
            dims: m.dims.clone(),
            entries: sorted.clone(),
        }),
        "mcoo" => {
            let morton = d.comparator("MORTON").unwrap();
            let mut by_key = m.entries.clone();
            by_key.sort_by_key(|e| synth::concrete::comparator_key(morton, &e.0).unwrap());
            coo_instance(&Coordinates {
                dims: m.dims.clone(),
                entries: by_key,
            })
        }
        "csr" => csr_instance(m),
        "tcoo8" => {
            // COO with its entries sorted 8 x 8 tile by tile, row-major inside.
            let mut tiled = m.clone();
            tiled
                .entries
                .sort_by_key(|(x, _)| (x[0] / 8, x[1] / 8, x[0], x[1]));
            let mut inst = Instance::from_coordinates(&tiled);
            inst.format = d.name.clone();
            inst
        }
        "ucsr" => {
            // CSR with every row's columns reversed: unsorted, still distinct.
            let mut u = csr_instance(m);
            let rowptr = u.arrays["rowptr"].as_ints().expect("ints").to_vec();
            for name in ["col", "A"] {
                for w in rowptr.windows(2) {
                    let (a, b) = (w[0] as usize, w[1] as usize);
                    match u.arrays.get_mut(name).expect("array") {
                        Values::Int(v) => v.to_mut()[a..b].reverse(),
                        Values::Int32(v) => v.to_mut()[a..b].reverse(),
                        Values::Real(v) => v.to_mut()[a..b].reverse(),
                        Values::Real32(v) => v.to_mut()[a..b].reverse(),
                    }
                }
            }
            u
        }
        "lcsr" => {
            // CSR with one slot of slack after every row (column 0, value
            // 0): row i at rowptr(i) + i .. rowptr(i + 1) + i.
            let c = csr_instance(m);
            let rowptr = c.arrays["rowptr"].as_ints().expect("ints").to_vec();
            let (col, a) = (
                c.arrays["col"].as_ints().expect("ints"),
                c.arrays["A"].to_reals(),
            );
            let (mut lo, mut hi, mut cols, mut vals) = (vec![], vec![], vec![], vec![]);
            for w in rowptr.windows(2) {
                lo.push(cols.len() as i64);
                cols.extend_from_slice(&col[w[0] as usize..w[1] as usize]);
                vals.extend_from_slice(&a[w[0] as usize..w[1] as usize]);
                hi.push(cols.len() as i64);
                cols.push(0);
                vals.push(0.0);
            }
            instance(
                "lcsr",
                &[("NR", nr), ("NC", nc), ("NNZ", cols.len() as i64)],
                vec![
                    ("lo", Values::Int(lo.into())),
                    ("hi", Values::Int(hi.into())),
                    ("col", Values::Int(cols.into())),
                    ("A", Values::Real(vals.into())),
                ],
            )
        }
        "dcsr" => {
            // CSR with its empty rows left out: the stored rows and their
            // pointers.
            let c = csr_instance(m);
            let rowptr = c.arrays["rowptr"].as_ints().expect("ints").to_vec();
            let (mut rowidx, mut rp) = (Vec::new(), Vec::new());
            for (i, w) in rowptr.windows(2).enumerate() {
                if w[1] > w[0] {
                    rowidx.push(i as i64);
                    rp.push(w[0]);
                }
            }
            rp.push(*rowptr.last().expect("NR + 1 pointers"));
            let nnz = c.symbols["NNZ"];
            instance(
                "dcsr",
                &[
                    ("NR", nr),
                    ("NC", nc),
                    ("NP", rowidx.len() as i64),
                    ("NNZ", nnz),
                ],
                vec![
                    ("rowidx", Values::Int(rowidx.into())),
                    ("rp", Values::Int(rp.into())),
                    ("col", c.arrays["col"].clone()),
                    ("A", c.arrays["A"].clone()),
                ],
            )
        }
        "csc" => {
            let transposed = Coordinates {
                dims: vec![nc, nr],
                entries: m
                    .entries
                    .iter()
                    .map(|(i, v)| (vec![i[1], i[0]], *v))
                    .collect(),
            };
            let t = csr_instance(&transposed);
            instance(
                "csc",
                &[("NR", nr), ("NC", nc), ("NNZ", m.len() as i64)],
                vec![
                    ("colptr", t.arrays["rowptr"].clone()),
                    ("row", t.arrays["col"].clone()),
                    ("A", t.arrays["A"].clone()),
                ],
            )
        }
        "dia" => dia_instance(m),
        "ell" => {
            let mut rows: Vec<Vec<(i64, f64)>> = vec![Vec::new(); nr as usize];
            for (i, v) in &sorted {
                rows[i[0] as usize].push((i[1], *v));
            }
            let w = rows.iter().map(Vec::len).max().unwrap_or(0);
            let (mut col, mut a) = (Vec::new(), Vec::new());
            for row in &rows {
                for k in 0..w {
                    // Padded slots repeat the row's last column with a zero.
                    let (j, v) = row
                        .get(k)
                        .copied()
                        .unwrap_or((row.last().map_or(0, |e| e.0), 0.0));
                    col.push(j);
                    a.push(v);
                }
            }
            instance(
                "ell",
                &[("NR", nr), ("NC", nc), ("W", w as i64)],
                vec![
                    ("col", Values::Int(col.into())),
                    ("A", Values::Real(a.into())),
                ],
            )
        }
        "nm24" => {
            // Row ii's block b of four columns: two slots, filled in
            // column order (the matrix is restricted to two per block).
            let nb = (nc + 3) / 4;
            let mut crd = vec![0i64; (nr * nb * 2) as usize];
            let mut a = vec![0.0; (nr * nb * 2) as usize];
            let mut used = vec![0usize; (nr * nb) as usize];
            for (i, v) in &sorted {
                let group = (i[0] * nb + i[1] / 4) as usize;
                let at = 2 * group + used[group];
                crd[at] = i[1] % 4;
                a[at] = *v;
                used[group] += 1;
            }
            instance(
                "nm24",
                &[("NR", nr), ("NC", nc), ("NB", nb)],
                vec![
                    ("crd", Values::Int(crd.into())),
                    ("A", Values::Real(a.into())),
                ],
            )
        }
        "jad" => {
            // Jagged diagonals: the rows ranked by their number of entries,
            // most first (ties by row), entry d of a row (by column) in
            // diagonal d at jd(d) + its row's rank.
            let mut rows: Vec<Vec<(i64, f64)>> = vec![Vec::new(); nr as usize];
            for (i, v) in &sorted {
                rows[i[0] as usize].push((i[1], *v));
            }
            let mut perm: Vec<i64> = (0..nr).collect();
            perm.sort_by_key(|&r| std::cmp::Reverse(rows[r as usize].len()));
            let nd = rows.iter().map(Vec::len).max().unwrap_or(0);
            let mut jd = vec![0i64; nd + 1];
            for d in 0..nd {
                let len = rows.iter().filter(|r| r.len() > d).count() as i64;
                jd[d + 1] = jd[d] + len;
            }
            let nnz = jd[nd] as usize;
            let (mut col, mut a) = (vec![0i64; nnz], vec![0.0; nnz]);
            for (rank, &row) in perm.iter().enumerate() {
                for (d, &(j, v)) in rows[row as usize].iter().enumerate() {
                    let k = jd[d] as usize + rank;
                    col[k] = j;
                    a[k] = v;
                }
            }
            instance(
                "jad",
                &[
                    ("NR", nr),
                    ("NC", nc),
                    ("ND", nd as i64),
                    ("NNZ", nnz as i64),
                ],
                vec![
                    ("jd", Values::Int(jd.into())),
                    ("perm", Values::Int(perm.into())),
                    ("col", Values::Int(col.into())),
                    ("A", Values::Real(a.into())),
                ],
            )
        }
        "bcsr" => {
            let nbr = (nr + 1) / 2;
            let mut blocks: BTreeMap<(i64, i64), [f64; 4]> = BTreeMap::new();
            for (i, v) in &m.entries {
                let b = blocks.entry((i[0] / 2, i[1] / 2)).or_insert([0.0; 4]);
                b[(2 * (i[0] % 2) + i[1] % 2) as usize] = *v;
            }
            let mut browptr = vec![0i64; nbr as usize + 1];
            let (mut bcol, mut a) = (Vec::new(), Vec::new());
            for (&(bi, bj), vals) in &blocks {
                browptr[bi as usize + 1] += 1;
                bcol.push(bj);
                a.extend(vals);
            }
            for i in 0..nbr as usize {
                browptr[i + 1] += browptr[i];
            }
            instance(
                "bcsr",
                &[("NR", nr), ("NC", nc), ("NNZB", bcol.len() as i64)],
                vec![
                    ("browptr", Values::Int(browptr.into())),
                    ("bcol", Values::Int(bcol.into())),
                    ("A", Values::Real(a.into())),
                ],
            )
        }
        // Skylines: each row (column) from its first nonzero to the
        // diagonal, densely; `m` holds only the triangle they store.
        "skyl" | "skyu" => {
            let lower = name == "skyl";
            let (lines, line_of, other_of) = if lower { (nr, 0, 1) } else { (nc, 1, 0) };
            let mut first = vec![i64::MAX; lines as usize];
            for (x, _) in &m.entries {
                let f = &mut first[x[line_of] as usize];
                *f = (*f).min(x[other_of]);
            }
            let mut sky = vec![0i64; lines as usize + 1];
            for l in 0..lines as usize {
                let len = if first[l] == i64::MAX {
                    0
                } else {
                    l as i64 - first[l] + 1
                };
                sky[l + 1] = sky[l] + len;
            }
            let mut a = vec![0.0; sky[lines as usize] as usize];
            for (x, v) in &m.entries {
                let (l, o) = (x[line_of], x[other_of]);
                a[(sky[l as usize + 1] - 1 - (l - o)) as usize] = *v;
            }
            instance(
                name,
                &[("NR", nr), ("NC", nc), ("NNZ", a.len() as i64)],
                vec![
                    ("sky", Values::Int(sky.into())),
                    ("A", Values::Real(a.into())),
                ],
            )
        }
        other => panic!("no instance builder for {other}"),
    };
    inst.format = d.name.clone();
    inst
}

#[test]
fn builtin_descriptors_validate_and_agree_on_real_matrices() {
    let formats = synth::builtin::builtin_names_of_order(2);
    for file in ["pores_1.mtx", "lund_a.mtx", "jgl009.mtx", "bp_200.mtx"] {
        let m = read_matrix(file);
        for &name in &formats {
            let d = synth::builtin::load_format(name).unwrap_or_else(|e| panic!("{e}"));
            // What the format can store (a skyline: one triangle).
            let m = synth::representable::Representable::of(&d).restrict(&m);
            let expected = coordinate_entries(&m);
            let inst = builtin_instance(&d, name, &m);
            let start = Instant::now();
            validate(&d, &inst).unwrap_or_else(|e| panic!("{file} as {name}: {e}"));
            let got = entries(&d, &inst).unwrap_or_else(|e| panic!("{file} as {name}: {e}"));
            compare(&expected, &got).unwrap_or_else(|e| panic!("{file} as {name}: {e}"));
            let back = Instance::from_json(&inst.to_json()).unwrap();
            assert_eq!(back, inst, "{file} as {name}");
            eprintln!(
                "{file} as {name}: validate + oracle {:.3} s",
                start.elapsed().as_secs_f64()
            );
        }
    }
}

/// UCSR's uniqueness rule relates `k1` and `k2` by `col(k1) = col(k2)`
/// within a row `i` both share: a join on `(i, col)`, linear in the row's
/// length, not the full enumeration of pairs that a row of 5,000 entries
/// (25 million pairs) would exceed the budget with.
#[test]
fn a_uniqueness_rule_with_a_shared_variable_is_a_join() {
    let n = 5000i64;
    let d = synth::builtin::load_format("ucsr").unwrap();
    let cols: Vec<i64> = (0..n).map(|k| (k * 7919) % n).collect();
    let make = |cols: Vec<i64>| {
        instance(
            "UCSR",
            &[("NR", 2), ("NC", n), ("NNZ", n)],
            vec![
                ("rowptr", Values::Int(vec![0, n, n].into())),
                ("col", Values::Int(cols.into())),
                ("A", Values::Real(vec![1.0; n as usize].into())),
            ],
        )
    };
    let start = Instant::now();
    validate(&d, &make(cols.clone())).expect("distinct columns");
    assert!(start.elapsed().as_secs_f64() < 5.0, "{:?}", start.elapsed());
    let mut repeated = cols;
    repeated[4000] = repeated[17];
    let e = validate(&d, &make(repeated)).unwrap_err().to_string();
    assert!(
        e.contains("does not hold at i = 0, k1 = 17, k2 = 4000"),
        "{e}"
    );
}
