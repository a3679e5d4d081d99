//! The ILP plan: which candidates compute each unknown, in which order.

use synth::builtin::load_format;
use synth::candidate::{candidates, display_names};
use synth::conversion::Conversion;
use synth::descriptor_file::parse_descriptor;
use synth::plan::{choose, PlanError, Step};

/// The plan as lines: `permutation for k` or `NAME: candidate`.
fn plan_lines(src: &str, dst: &str) -> Vec<String> {
    let s = load_format(src).expect("source");
    let d = load_format(dst).expect("destination");
    let conv = Conversion::new(&s, &d).expect("pair");
    let cands = candidates(&conv).expect("consistent");
    let names = display_names(&conv);
    let plan = choose(&conv, &cands).expect("a plan");
    plan.steps
        .iter()
        .flat_map(|step| match step {
            Step::Permutation { position } => {
                vec![format!(
                    "permutation for {}",
                    names[s.sparse_arity() + position]
                )]
            }
            Step::Unknown { name, chosen } => chosen
                .iter()
                .map(|c| format!("{name}: {}", c.describe(&names)))
                .collect(),
        })
        .collect()
}

fn position_of(lines: &[String], line: &str) -> usize {
    lines
        .iter()
        .position(|l| l == line)
        .unwrap_or_else(|| panic!("`{line}` is not in the plan {lines:#?}"))
}

#[test]
fn coo_to_csr_sorts_then_fills_the_arrays() {
    let plan = plan_lines("coo", "csr");
    let perm = position_of(&plan, "permutation for k");
    for line in [
        "col_out: col_out(k) = jj",
        "rowptr: rowptr(ii + 1) >= k + 1",
        "NNZ_out: NNZ_out >= k + 1",
    ] {
        assert!(
            position_of(&plan, line) > perm,
            "{line} runs after the permutation: {plan:#?}"
        );
    }
    assert_eq!(plan.len(), 4, "one statement per unknown: {plan:#?}");
}

#[test]
fn coo_to_dia_needs_no_permutation() {
    let plan = plan_lines("coo", "dia");
    assert!(
        !plan.iter().any(|l| l.starts_with("permutation")),
        "{plan:#?}"
    );
    let off = position_of(&plan, "off: off(d) = -ii + jj");
    let nd = position_of(&plan, "ND: ND >= d + 1");
    assert!(off < nd, "ND is read off the ordered offsets: {plan:#?}");
}

#[test]
fn csr_to_csc_uses_the_column_pointer_bound() {
    let plan = plan_lines("csr", "csc");
    assert!(
        plan.contains(&"colptr: colptr(jj + 1) >= k' + 1".to_string()),
        "{plan:#?}"
    );
    assert!(plan.contains(&"row: row(k') = ii".to_string()), "{plan:#?}");
}

#[test]
fn every_two_dimensional_pair_has_a_plan() {
    let formats = synth::builtin::builtin_names_of_order(2);
    for &src in &formats {
        for &dst in &formats {
            let s = load_format(src).expect("source");
            let d = load_format(dst).expect("destination");
            let conv = Conversion::new(&s, &d).expect("pair");
            let cands = candidates(&conv).expect("consistent");
            if let Err(e) = choose(&conv, &cands) {
                panic!("{src} -> {dst}: {e}");
            }
        }
    }
}

#[test]
fn an_array_the_map_never_uses_is_unsolvable_and_named() {
    let s = load_format("coo").expect("coo");
    let d = parse_descriptor(
        "format JUNK {
            dense [NR, NC];
            map {[n, ii, jj] -> [i, j] : i = ii && j = jj && ii = row(n) && jj = col(n) && 0 <= n < NNZ};
            data A : {[n, ii, jj] -> [n]} size NNZ;
            uf row : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < NR};
            uf col : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < NC};
            uf junk : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < NC};
        }",
    )
    .expect("parses");
    let conv = Conversion::new(&s, &d).expect("pair");
    let cands = candidates(&conv).expect("consistent");
    let err = choose(&conv, &cands).unwrap_err();
    assert!(
        matches!(&err, PlanError::Unsolvable { unknown, .. } if unknown == "junk"),
        "{err}"
    );
    assert!(err.to_string().contains("no constraint"), "{err}");
}

/// A refuted plan is not chosen again: the next cheapest differs from it in
/// at least one choice, costs at least as much, and refuting both gives a
/// third different from either.
#[test]
fn excluding_refuted_plans_gives_the_next_cheapest() {
    let s = load_format("coo").expect("source");
    let d = load_format("csr").expect("destination");
    let conv = Conversion::new(&s, &d).expect("pair");
    let cands = candidates(&conv).expect("consistent");
    let first = choose(&conv, &cands).expect("a plan");
    let second = synth::plan::choose_excluding(&conv, &cands, std::slice::from_ref(&first))
        .expect("another plan");
    assert_ne!(second.steps, first.steps);
    assert!(
        second.cost >= first.cost,
        "{} < {}",
        second.cost,
        first.cost
    );
    let refuted = [first.clone(), second.clone()];
    if let Ok(third) = synth::plan::choose_excluding(&conv, &cands, &refuted) {
        assert_ne!(third.steps, first.steps);
        assert_ne!(third.steps, second.steps);
    }
}
