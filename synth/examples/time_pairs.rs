//! Times the synthesis of every ordered pair of built-in formats of the
//! same dense arity: `cargo run --release -p synth --example time_pairs`.
fn main() {
    let names = synth::builtin::builtin_names();
    let formats: Vec<_> = names
        .iter()
        .map(|n| synth::builtin::load_format(n).expect("built-in"))
        .collect();
    let total = std::time::Instant::now();
    for s in &formats {
        for d in &formats {
            if s.dense_arity() != d.dense_arity() {
                continue;
            }
            let t = std::time::Instant::now();
            let ok = synth::synthesize::synthesize(s, d)
                .ok()
                .and_then(|x| x.program().ok())
                .and_then(|p| codegen::c::emit_c(&p).ok())
                .is_some();
            println!(
                "{:>6} -> {:<6} {:>10.3} ms {}",
                s.name,
                d.name,
                t.elapsed().as_secs_f64() * 1e3,
                if ok { "" } else { "FAILED" }
            );
        }
    }
    println!("total {:?}", total.elapsed());
}
