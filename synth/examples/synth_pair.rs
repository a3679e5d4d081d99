//! Prints the computation synthesized for a pair, *before* validation (a
//! debugging aid for the lowering: what `synthesize` would refuse is shown
//! too): `cargo run -p synth --example synth_pair -- coo csr`.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let src = synth::builtin::load_format(&args[0]).expect("source format");
    let dst = synth::builtin::load_format(&args[1]).expect("destination format");
    match synth::synthesize::synthesize_unvalidated(&src, &dst) {
        Ok(s) => {
            println!("{}", s.computation);
            match s.program() {
                Ok(p) => println!(
                    "{}",
                    codegen::c::emit_c(&p)
                        .map(|c| c.split("#endif").last().unwrap_or("").to_string())
                        .unwrap_or_else(|e| e.to_string())
                ),
                Err(e) => println!("scan: {e}"),
            }
        }
        Err(e) => println!("error: {e}"),
    }
}
