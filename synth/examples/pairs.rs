//! Runs every ordered pair of the given formats on a matrix through the
//! interpreter and checks it with the oracle:
//! `cargo run -p synth --example pairs -- MATRIX.mtx coo csr csc ...`.
use synth::instance::Instance;
use synth::instance_validation::validate;
use synth::oracle::{compare, entries};
use synth::synthesize::synthesize;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let coords = synth::tensor_io::read_file(std::path::Path::new(&args[0]), None).expect("matrix");
    let coo_inst = Instance::from_coordinates(&coords);
    let coo_name = if coords.order() == 3 { "coo3d" } else { "coo" };
    let coo = synth::builtin::load_format(coo_name).unwrap();
    let expected = entries(&coo, &coo_inst).expect("coo entries");
    for s in &args[1..] {
        let src = synth::builtin::load_format(s).unwrap();
        let src_inst = match synthesize(&coo, &src)
            .map_err(|e| e.to_string())
            .and_then(|x| x.run(&coo_inst).map_err(|e| e.to_string()))
        {
            Ok(i) => i,
            Err(e) => {
                println!("{coo_name} -> {s}: {e}");
                continue;
            }
        };
        for d in &args[1..] {
            let dst = synth::builtin::load_format(d).unwrap();
            let t = std::time::Instant::now();
            let r = synthesize(&src, &dst)
                .map_err(|e| e.to_string())
                .and_then(|x| x.run(&src_inst).map_err(|e| e.to_string()));
            let verdict = match r {
                Err(e) => format!("ERROR {e}"),
                Ok(out) => match validate(&dst, &out) {
                    Err(e) => format!("INVALID {e}"),
                    Ok(()) => match entries(&dst, &out)
                        .map_err(|e| e.to_string())
                        .and_then(|got| compare(&expected, &got).map_err(|m| format!("{m:?}")))
                    {
                        Ok(()) => "ok".to_string(),
                        Err(m) => format!("MISMATCH {m}"),
                    },
                },
            };
            println!("{s} -> {d}: {verdict} ({:.2}s)", t.elapsed().as_secs_f64());
        }
    }
}
