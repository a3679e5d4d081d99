//! Structure-aware fuzzing of instance validation: valid instances of every
//! built-in 2-D format, with one number, symbol or length changed. An
//! instance that validation accepts must convert without losing or changing
//! an entry (to COO and to CSR, checked by the oracle); one it refuses is
//! refused with an error, never a panic; a size no machine can hold is
//! refused when the conversion allocates it. This is the guarantee behind every
//! command that reads an instance: nothing that passes the check can make a
//! conversion exit 0 with fewer or different entries than the input holds.

#[path = "../../tests/common/report.rs"]
mod report;

use proptest::prelude::*;
use synth::builtin::load_format;
use synth::instance::{Instance, Values};
use synth::instance_validation::validate;
use synth::synthesize::synthesize;
use synth::tensor_io::Coordinates;
use synth::validate::{run_checked, Problem};

/// Cases per run: 256, or `SPF_FUZZ_CASES` (thousands find more; the
/// suite keeps the default to stay fast).
fn cases() -> u32 {
    std::env::var("SPF_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

fn coordinates() -> impl Strategy<Value = Coordinates> {
    (0i64..6, 0i64..6).prop_flat_map(|(r, c)| {
        let cells = (r * c) as usize;
        prop::collection::vec(prop::bool::weighted(0.35), cells).prop_map(move |keep| {
            let mut entries = Vec::new();
            for (k, on) in keep.into_iter().enumerate() {
                if on {
                    let k = k as i64;
                    entries.push((vec![k / c, k % c], (entries.len() + 1) as f64));
                }
            }
            Coordinates {
                dims: vec![r, c],
                entries,
            }
        })
    })
}

/// One change to an instance: which name (by its sorted position), where,
/// and how.
#[derive(Clone, Debug)]
enum Mutation {
    /// A symbol set to a new value.
    Symbol(usize, Value),
    /// One element of an array set to a new value.
    Element(usize, usize, Value),
    /// An array one element shorter.
    Shorten(usize),
    /// An array one element longer (a copy of its last, or 0).
    Lengthen(usize),
}

/// A new value relative to the old one.
#[derive(Clone, Copy, Debug)]
enum Value {
    Plus(i64),
    Set(i64),
}

impl Value {
    fn apply(self, old: i64) -> i64 {
        match self {
            Value::Plus(d) => old.saturating_add(d),
            Value::Set(v) => v,
        }
    }
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-2i64..=2).prop_map(Value::Plus),
        prop::sample::select(vec![0, -1, 1, 7, 1 << 40, i64::MAX, i64::MIN]).prop_map(Value::Set),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (0usize..8, value()).prop_map(|(n, v)| Mutation::Symbol(n, v)),
        (0usize..8, 0usize..64, value()).prop_map(|(a, k, v)| Mutation::Element(a, k, v)),
        (0usize..8).prop_map(Mutation::Shorten),
        (0usize..8).prop_map(Mutation::Lengthen),
    ]
}

fn mutate(inst: &Instance, m: &Mutation) -> Instance {
    let mut out = inst.clone();
    let arrays: Vec<String> = out.arrays.keys().cloned().collect();
    let symbols: Vec<String> = out.symbols.keys().cloned().collect();
    match *m {
        Mutation::Symbol(n, v) => {
            let name = &symbols[n % symbols.len()];
            let old = out.symbols[name];
            out.symbols.insert(name.clone(), v.apply(old));
        }
        Mutation::Element(a, k, v) => {
            let name = &arrays[a % arrays.len()];
            match out.arrays.get_mut(name).expect("listed") {
                Values::Int(xs) if !xs.is_empty() => {
                    let k = k % xs.len();
                    xs.to_mut()[k] = v.apply(xs[k]);
                }
                Values::Int32(xs) if !xs.is_empty() => {
                    let k = k % xs.len();
                    xs.to_mut()[k] = v.apply(i64::from(xs[k])) as i32;
                }
                Values::Real(xs) if !xs.is_empty() => {
                    let k = k % xs.len();
                    xs.to_mut()[k] = v.apply(xs[k] as i64) as f64;
                }
                _ => {}
            }
        }
        Mutation::Shorten(a) => match out.arrays.get_mut(&arrays[a % arrays.len()]) {
            Some(Values::Int(xs)) => drop(xs.to_mut().pop()),
            Some(Values::Int32(xs)) => drop(xs.to_mut().pop()),
            Some(Values::Real(xs)) => drop(xs.to_mut().pop()),
            Some(Values::Real32(xs)) => drop(xs.to_mut().pop()),
            None => {}
        },
        Mutation::Lengthen(a) => match out.arrays.get_mut(&arrays[a % arrays.len()]) {
            Some(Values::Int(xs)) => repeat_last(xs),
            Some(Values::Int32(xs)) => repeat_last(xs),
            Some(Values::Real(xs)) => repeat_last(xs),
            Some(Values::Real32(xs)) => repeat_last(xs),
            None => {}
        },
    }
    out
}

/// Appends a copy of the last element (a zero to an empty array).
fn repeat_last<T: Copy + Default>(xs: &mut synth::instance::Buffer<T>) {
    let xs = xs.to_mut();
    xs.push(xs.last().copied().unwrap_or_default());
}

/// Converts a mutant that validates from `format` (`f`) to COO and to CSR,
/// each checked by the oracle: whether it converted (`false` when a size no
/// machine can hold was refused instead).
fn converts(
    format: &str,
    f: &synth::Descriptor,
    mutant: &Instance,
    mutations: &[Mutation],
) -> Result<bool, TestCaseError> {
    let mut converted = true;
    for to in ["coo", "csr"] {
        let d = load_format(to).expect("built-in");
        let s = synthesize(f, &d).expect("validated");
        let p = s.program().expect("scans");
        match run_checked(&s, &p, mutant) {
            Ok(_) => {}
            // A size no machine can hold is refused, not lost.
            Err(Problem::Run(e)) if e.contains("too large: ") => converted = false,
            Err(problem) => {
                return Err(TestCaseError::fail(format!(
                    "{format} -> {to}: an instance that validates converts wrongly: \
                     {problem}\nmutations {mutations:?}\n{}",
                    mutant.to_json()
                )))
            }
        }
    }
    Ok(converted)
}

/// Every case: a valid instance of a format, mutated once or twice; a
/// mutant that validates converts without losing an entry. At least a
/// tenth of the cases validate and convert (the count is printed): a
/// mutation or validation that stopped producing accepted mutants would
/// leave the property checking nothing.
#[test]
fn accepted_mutants_convert_without_losing_entries() {
    let strategy = (
        coordinates(),
        prop::sample::select(synth::builtin::builtin_names_of_order(2)),
        prop::collection::vec(mutation(), 1..=2),
    );
    let (tried, converted) = report::checked_cases(
        file!(),
        cases(),
        &strategy,
        |(coords, format, mutations)| {
            let coo = load_format("coo").expect("built-in");
            let f = load_format(format).expect("built-in");
            let make = synthesize(&coo, &f).expect("validated");
            let program = make.program().expect("scans");
            // What the format can store (a skyline: one triangle).
            let coords = synth::representable::Representable::of(&f).restrict(&coords);
            let original = run_checked(&make, &program, &Instance::from_coordinates(&coords))
                .map_err(|p| TestCaseError::fail(format!("{format}: {p}")))?;
            let mut mutant = original.clone();
            for m in &mutations {
                mutant = mutate(&mutant, m);
            }
            Ok(validate(&f, &mutant).is_ok() && converts(format, &f, &mutant, &mutations)?)
        },
    );
    report::counted(
        converted,
        &format!("of {tried} cases validated and converted"),
        tried / 10,
    );
}
