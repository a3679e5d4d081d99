//! Times synthesis of one pair, step by step, five times in one process:
//! `cargo run --release -p synth --example time_pair -- csr csc`.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let src = synth::builtin::load_format(&args[0]).expect("source format");
    let dst = synth::builtin::load_format(&args[1]).expect("destination format");
    for _ in 0..5 {
        let t = std::time::Instant::now();
        let s = synth::synthesize::synthesize(&src, &dst).expect("synthesizes");
        let t1 = t.elapsed();
        let p = s.program().expect("scans");
        let t2 = t.elapsed();
        let _ = codegen::c::emit_c(&p).expect("C");
        let t3 = t.elapsed();
        println!("synthesize {t1:?}, scan {:?}, emit {:?}", t2 - t1, t3 - t2);
    }
}
