//! [`read`] and [`write`]: instances from and to `.mtx`, `.tns`, `.npz`
//! and JSON files.

use std::path::Path;

use synth::tensor_io::ReadOptions;

use super::converter::Options;
use super::format::Format;
use super::instance::Instance;
use crate::files::{write_instance_when, OutputKind, Target};
use crate::pipeline::read_source;
use crate::synthesis::synthesize_pair;
use crate::Error;

/// Reads the file at `path` as an instance of `format`: a JSON or `.npz`
/// instance of it (checked), or a Matrix Market (`.mtx`) or FROSTT
/// (`.tns`) file of coordinates, gzip-compressed or not, converted to
/// `format` (symmetric matrices expanded, duplicates summed). The kind is
/// told by the content, not the name; `-` is standard input.
///
/// ```
/// let path = std::env::temp_dir().join(format!("spf-read-{}.mtx", std::process::id()));
/// std::fs::write(
///     &path,
///     "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 4.0\n3 1 -1.0\n",
/// )?;
/// let csr = engine::Format::builtin("csr")?;
/// let a = engine::read(&path, &csr)?;
/// assert_eq!(a.shape(), [3, 3]);
/// // The symmetric file's other triangle is stored too.
/// assert_eq!(a.entries()?, [(vec![0, 0], 4.0), (vec![0, 2], -1.0), (vec![2, 0], -1.0)]);
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`Error::Read`] when the file cannot be read, [`Error::Located`] (file,
/// line, column) for a malformed file, [`Error::Input`] for an instance
/// that violates `format` or coordinates of another order, and the
/// errors of a conversion to `format`.
pub fn read(path: impl AsRef<Path>, format: &Format) -> Result<Instance, Error> {
    read_with(path, format, &Options::default())
}

/// [`read`], converting coordinates as `options` say (values that are not
/// finite read and pass the checks with [`Options::allow_nonfinite`]).
///
/// # Errors
///
/// As [`read`].
pub fn read_with(
    path: impl AsRef<Path>,
    format: &Format,
    options: &Options,
) -> Result<Instance, Error> {
    let runner = options.runner();
    let d = format.descriptor();
    let source = runner.exactly(&|| {
        read_source(
            d,
            path.as_ref(),
            &synthesize_pair,
            &runner,
            &ReadOptions {
                allow_nonfinite: options.allow_nonfinite,
                ..ReadOptions::default()
            },
        )
    })?;
    Ok(Instance::trusted(format, source.instance))
}

/// Writes `instance` to the file at `path`, as its name says: `.npz`
/// (scipy's `save_npz` layout where the format has one, spf's own
/// otherwise), `.mtx` or `.tns` (its entries as coordinates), `.json`;
/// the last three also compressed (`.gz`). The file is replaced whole or
/// not at all.
///
/// # Errors
///
/// [`Error::Usage`] for a name whose kind cannot be told, [`Error::Write`]
/// when the file cannot be written.
pub fn write(path: impl AsRef<Path>, instance: &Instance) -> Result<(), Error> {
    let path = path.as_ref();
    let target = Target::new(Some(path), None, OutputKind::Json)?;
    if target.path.is_none() {
        return Err(Error::Usage(
            "engine::write writes files; `-` (standard output) is the command's".into(),
        ));
    }
    write_instance_when(
        instance.format().descriptor(),
        instance.raw(),
        &target,
        &|| true,
    )
    .map(drop)
}
