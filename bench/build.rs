//! Compiles the hand-written C baselines with the flags `spf build` gives
//! the generated converters (`-O3 -march=native -std=c99`, and on x86-64
//! `-mprefer-vector-width=256 -falign-loops=32`; `engine/src/program/mod.rs`,
//! `compile`), whatever
//! the Cargo profile, so the two are compiled alike.

fn main() {
    println!("cargo:rerun-if-changed=c/baselines.c");
    let mut build = cc::Build::new();
    build
        .file("c/baselines.c")
        .opt_level(3)
        .debug(false)
        .flag("-march=native")
        .flag("-std=c99")
        .warnings(true);
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("x86_64") {
        build.flag("-mprefer-vector-width=256");
        build.flag("-falign-loops=32");
    }
    build.compile("spf_baselines");
}
