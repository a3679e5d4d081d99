//! Builds a matrix in CSR from Rust vectors, converts it to CSC and to
//! DCSR in memory, and prints the three.
//!
//! ```console
//! $ cargo run --release --example convert_in_memory
//! ```

use spf::{Converter, Format, Instance, Options};

fn main() -> Result<(), spf::Error> {
    // The 4 x 5 matrix
    //   [ 1 0 0 2 0 ]
    //   [ 0 0 0 0 0 ]
    //   [ 0 3 0 0 4 ]
    //   [ 0 0 0 0 5 ]
    let csr = Format::builtin("csr")?;
    let a = Instance::builder(&csr)
        .symbol("NR", 4)
        .symbol("NC", 5)
        .symbol("NNZ", 5)
        .array("rowptr", vec![0i32, 2, 2, 4, 5])
        .array("col", vec![0i32, 3, 1, 4, 4])
        .array("A", vec![1.0, 2.0, 3.0, 4.0, 5.0])
        .build()?;
    println!("{a}");
    let options = Options::default();
    for name in ["csc", "dcsr"] {
        let to = Format::builtin(name)?;
        let converter = Converter::new(&csr, &to, &options)?;
        let b = converter.convert(&a)?;
        // Checked before it is returned: the same entries, whatever the format.
        assert_eq!(b.entries()?, a.entries()?);
        println!("{b}");
    }
    Ok(())
}
