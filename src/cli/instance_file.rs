//! Instance files, chosen by extension: what `spf convert` and `spf dump`
//! read (a JSON instance, or an `.npz` archive in scipy's or spf's generic
//! layout) and what `spf convert` writes (the same, or the entries as
//! `.mtx`/`.tns` coordinates).

use std::path::Path;

use spf::iegen::syntax::SyntaxError;
use spf::synth::instance::{Instance, InstanceError};
use spf::synth::instance_validation::validate;
use spf::synth::npz::{read_npz_file, write_npz, ReadFileError, Written};
use spf::synth::oracle::coordinates_from;
use spf::synth::tensor_io::{coordinate_kind, write_mtx, write_tns};
use spf::synth::Descriptor;

use super::error::CliError;
use super::output::{emit, write_atomically, write_atomically_when};

/// Whether a path names an `.npz` archive (by extension, any case).
pub fn is_npz(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("npz"))
}

/// Reads an instance of `d` from a JSON file or an `.npz` archive and
/// validates it against `d`.
///
/// # Errors
///
/// [`CliError::Located`] for malformed JSON, [`CliError::Input`] for an
/// archive that cannot be read as `d` and for an instance that violates
/// `d`, [`CliError::Read`] when the file cannot be read.
pub fn read_instance(d: &Descriptor, input: &Path) -> Result<Instance, CliError> {
    let inst = load_instance(d, input)?;
    validate(d, &inst).map_err(|e| invalid(input, e))?;
    Ok(inst)
}

/// [`read_instance`], validated by `check`, with what `check` gives: the
/// instance's entries, or their fingerprint, from the one enumeration of
/// its validation (as [`spf::synth::instance_validation::validate_entries`]
/// does; `spf convert` passes [`super::engine::Runner::expected`]): what a
/// conversion's check compares its result with.
///
/// # Errors
///
/// As [`read_instance`].
pub fn read_instance_entries<T>(
    d: &Descriptor,
    input: &Path,
    check: &dyn Fn(&Descriptor, &Instance) -> Result<T, InstanceError>,
) -> Result<(Instance, T), CliError> {
    let inst = load_instance(d, input)?;
    let entries = check(d, &inst).map_err(|e| invalid(input, e))?;
    Ok((inst, entries))
}

/// The error for an instance read from `input` that violates its
/// descriptor.
fn invalid(input: &Path, e: InstanceError) -> CliError {
    CliError::Input {
        file: input.display().to_string(),
        message: e.to_string(),
    }
}

/// An instance of `d` from a JSON file or an `.npz` archive, not yet
/// validated.
fn load_instance(d: &Descriptor, input: &Path) -> Result<Instance, CliError> {
    let shown = input.display().to_string();
    let problem = |message: String| CliError::Input {
        file: shown.clone(),
        message,
    };
    let read_failed = |source| CliError::Read {
        path: shown.clone(),
        source,
    };
    let inst = if is_npz(input) {
        read_npz_file(input, d, Some(&super::file_blocks::FileBlocks)).map_err(|e| match e {
            ReadFileError::Io(source) => read_failed(source),
            ReadFileError::Npz(e) => problem(e.to_string()),
        })?
    } else {
        let bytes = std::fs::read(input).map_err(read_failed)?;
        Instance::from_json_bytes(&bytes).map_err(|e| match e {
            InstanceError::Json {
                line,
                column,
                message,
            } => CliError::Located {
                file: shown.clone(),
                error: SyntaxError {
                    line,
                    column,
                    span: Default::default(),
                    message: format!("invalid JSON: {message}"),
                },
            },
            other => problem(other.to_string()),
        })?
    };
    Ok(inst)
}

/// Writes the entries a valid instance of `d` stores as Matrix Market
/// (`.mtx`) or FROSTT (`.tns`) coordinates.
///
/// # Errors
///
/// [`CliError::Usage`] for another extension, [`CliError::Input`] when the
/// entries cannot be written in that form (a matrix file of a 3-D tensor).
pub fn write_coordinates(d: &Descriptor, inst: &Instance, output: &Path) -> Result<(), CliError> {
    let problem = |message: String| CliError::Input {
        file: output.display().to_string(),
        message,
    };
    let coords = coordinates_from(d, inst).map_err(|e| problem(e.to_string()))?;
    let mut bytes = Vec::new();
    let written = match coordinate_kind(output) {
        Some(false) => write_mtx(&coords, &mut bytes),
        Some(true) => write_tns(&coords, &mut bytes),
        None => {
            return Err(CliError::Usage(format!(
                "{}: the output must end in .mtx or .tns",
                output.display()
            )))
        }
    };
    written.map_err(|e| problem(e.to_string()))?;
    write_atomically(output, &bytes)
}

/// Writes a valid instance of `d` where `output` says: `.npz` (scipy's
/// layout when `d` has one, the generic layout otherwise), `.mtx`/`.tns`
/// (its entries), JSON for any other name, standard output (JSON) without
/// one. Returns a note when an `.npz` could not take scipy's layout.
///
/// The output is kept only when `commit` says yes: an `.npz` is written
/// while `commit` decides and renamed into place after
/// ([`super::output::write_atomically_when`]); any other output is written
/// after `commit` said yes, and nothing is written when it says no.
///
/// # Errors
///
/// What the writers report; the output file is written whole or not at all.
pub fn write_instance_when(
    d: &Descriptor,
    inst: &Instance,
    output: Option<&Path>,
    commit: &dyn Fn() -> bool,
) -> Result<Option<String>, CliError> {
    match output {
        Some(path) if is_npz(path) => {
            let mut written = None;
            write_atomically_when(
                path,
                &mut |file| {
                    let w = write_npz(d, inst, std::io::BufWriter::new(file))
                        .map_err(std::io::Error::other)?;
                    written = Some(w);
                    Ok(())
                },
                commit,
            )?;
            Ok(match written {
                Some(Written::Generic(Some(reason))) => Some(format!(
                    "written in spf's generic .npz layout, which scipy.sparse.load_npz does not \
                     read: {reason}"
                )),
                _ => None,
            })
        }
        _ if !commit() => Ok(None),
        Some(path) if coordinate_kind(path).is_some() => {
            write_coordinates(d, inst, path)?;
            Ok(None)
        }
        _ => {
            emit(output, &inst.to_json())?;
            Ok(None)
        }
    }
}
