//! `spf generate`: benchmark matrices and tensors from matgen's catalog.

use std::fmt::Write as _;
use std::path::Path;

use spf::synth::tensor_io::{write_mtx, write_tns};

use super::error::CliError;
use engine::output::{emit, write_atomically};

/// Checks the scale, with the command line's wording.
fn checked_scale(scale: f64) -> Result<f64, CliError> {
    matgen::check_scale(scale)
        .map(|()| scale)
        .map_err(|e| CliError::Usage(format!("--scale: {e}")))
}

/// The catalog entry called `name`, or an error listing the valid names.
fn lookup(name: &str) -> Result<&'static matgen::MatrixSpec, CliError> {
    matgen::find(name).ok_or_else(|| {
        let names: Vec<&str> = matgen::catalog().iter().map(|s| s.name).collect();
        CliError::Usage(format!(
            "unknown matrix `{name}`; valid names: {}",
            names.join(", ")
        ))
    })
}

/// `spf generate --list [--scale S]`: the catalog as a table of what
/// `spf generate` writes at that scale.
pub fn list(scale: f64) -> Result<(), CliError> {
    let scale = checked_scale(scale)?;
    let mut text = String::new();
    if scale != 1.0 {
        let _ = writeln!(text, "# at scale {scale}");
    }
    let _ = writeln!(
        text,
        "{:<17} {:>26} {:>10} {:>9} {:>7}  kind",
        "name", "dims", "nnz", "diagonals", "max/row"
    );
    let opt = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
    for spec in matgen::catalog() {
        let t = matgen::targets(spec, scale);
        let dims: Vec<String> = t.dims.iter().map(i64::to_string).collect();
        let _ = writeln!(
            text,
            "{:<17} {:>26} {:>10} {:>9} {:>7}  {}",
            spec.name,
            dims.join(" x "),
            t.nnz,
            opt(t.diagonals),
            opt(t.max_row),
            spec.kind.label()
        );
    }
    emit(None, &text)
}

/// `spf generate NAME [--scale S] [--seed N] [--shuffle] -o OUT.mtx|OUT.tns`.
pub fn generate(
    name: &str,
    scale: f64,
    seed: u64,
    shuffle: bool,
    output: &Path,
) -> Result<(), CliError> {
    let spec = lookup(name)?;
    let scale = checked_scale(scale)?;
    let mtx = match output.extension().and_then(|e| e.to_str()) {
        Some("mtx") => true,
        Some("tns") => false,
        _ => {
            return Err(CliError::Usage(format!(
                "{}: the output must end in .mtx or .tns",
                output.display()
            )))
        }
    };
    if mtx && spec.dims.len() != 2 {
        return Err(CliError::Usage(format!(
            "{} is a {}-D tensor: write it as .tns, not .mtx",
            spec.name,
            spec.dims.len()
        )));
    }
    let mut coo = matgen::generate_coo(spec, scale, seed);
    if shuffle {
        coo.shuffle(seed);
    }
    let coords = coo.into_coordinates();
    let mut bytes = Vec::new();
    let written = if mtx {
        write_mtx(&coords, &mut bytes)
    } else {
        write_tns(&coords, &mut bytes)
    };
    drop(coords);
    written.map_err(|e| CliError::Usage(format!("{}: {e}", output.display())))?;
    write_atomically(output, &bytes)
}
