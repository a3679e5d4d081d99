//! Prints the conditions a format's map puts on single entries.
fn main() {
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).expect("read");
        let d = synth::descriptor_file::parse_descriptor(&text).expect("parse");
        let r = synth::representable::Representable::of(&d);
        println!("{}: {}", d.name, r);
    }
}
