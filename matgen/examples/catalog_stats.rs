//! Generates every catalog entry at a scale and prints targets against
//! measured statistics: `cargo run --release -p matgen --example catalog_stats -- [SCALE] [SEED]`.

fn main() {
    let mut args = std::env::args().skip(1);
    let scale: f64 = args.next().map_or(1.0, |s| s.parse().expect("a scale"));
    let seed: u64 = args.next().map_or(1, |s| s.parse().expect("a seed"));
    println!(
        "{:<17} {:>23} {:>10} {:>10} {:>9} {:>9} {:>6} {:>6} {:>7} {:>7}",
        "name", "dims", "nnz", "target", "diags", "target", "max", "target", "mean", "secs"
    );
    for spec in matgen::catalog() {
        let t = matgen::targets(spec, scale);
        let start = std::time::Instant::now();
        let coo = matgen::generate_coo(spec, scale, seed);
        let secs = start.elapsed().as_secs_f64();
        let s = coo.stats();
        let dims: Vec<String> = coo.dims.iter().map(|d| d.to_string()).collect();
        let opt = |o: Option<u64>| o.map_or("-".to_string(), |v| v.to_string());
        println!(
            "{:<17} {:>23} {:>10} {:>10} {:>9} {:>9} {:>6} {:>6} {:>7} {:>7.2}",
            spec.name,
            dims.join("x"),
            s.nnz,
            t.nnz,
            opt(s.diagonals),
            opt(t.diagonals),
            opt(s.max_row),
            opt(t.max_row),
            s.mean_row.map_or("-".to_string(), |m| format!("{m:.1}")),
            secs
        );
    }
}
