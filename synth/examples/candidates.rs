//! Prints the composed relation and the classified candidates of a pair of
//! built-in formats: `cargo run -p synth --example candidates -- coo csr`.
use synth::builtin::load_format;
use synth::candidate::{candidates, display_names};
use synth::conversion::Conversion;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (src, dst) = match args.as_slice() {
        [a, b] => (a.as_str(), b.as_str()),
        _ => ("coo", "csr"),
    };
    let src = load_format(src).expect("source format");
    let dst = load_format(dst).expect("destination format");
    let conv = Conversion::new(&src, &dst).expect("pair");
    println!("R = {}", conv.relation);
    println!("renames: {:?}", conv.renames);
    println!("positions: {:?}", conv.positions());
    let cands = candidates(&conv).expect("consistent");
    let names = display_names(&conv);
    for (unknown, list) in &cands.by_unknown {
        println!("{unknown}:");
        for c in list {
            let case = c
                .case
                .map_or("no case".to_string(), |k| format!("case {}", k.number()));
            println!("    {}  [{case}]", c.describe(&names));
        }
    }
    match synth::plan::choose(&conv, &cands) {
        Ok(plan) => {
            println!("plan (cost {}):", plan.cost);
            for step in &plan.steps {
                match step {
                    synth::plan::Step::Permutation { position } => {
                        println!(
                            "    permutation for {}",
                            names[src.sparse_arity() + position]
                        )
                    }
                    synth::plan::Step::Unknown { name, chosen } => {
                        for c in chosen {
                            println!("    {name}: {}", c.describe(&names));
                        }
                    }
                }
            }
        }
        Err(e) => println!("no plan: {e}"),
    }
}
