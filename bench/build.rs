//! Compiles the hand-written C baselines with the flags `spf build` gives
//! the generated converters (`-O3 -march=native -std=c99`), whatever the
//! Cargo profile, so the two are compiled alike.

fn main() {
    println!("cargo:rerun-if-changed=c/baselines.c");
    cc::Build::new()
        .file("c/baselines.c")
        .opt_level(3)
        .debug(false)
        .flag("-march=native")
        .flag("-std=c99")
        .warnings(true)
        .compile("spf_baselines");
}
