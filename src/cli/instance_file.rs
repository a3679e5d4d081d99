//! Instance files: what `spf convert` and `spf dump` read (a JSON instance,
//! or an `.npz` archive in scipy's or spf's generic layout, told by its
//! content: [`spf::synth::tensor_io::kind`]) and what `spf convert` writes
//! (the same, or the entries as `.mtx`/`.tns` coordinates, chosen by the
//! output's name).

use std::path::Path;

use spf::iegen::syntax::SyntaxError;
use spf::synth::instance::{Instance, InstanceError};
use spf::synth::instance_validation::validate;
use spf::synth::npz::{read_npz, read_npz_file, write_npz, ReadFileError, Written};
use spf::synth::oracle::coordinates_from;
use spf::synth::tensor_io::kind::{gzip, open_input, FileKind, InputFile};
use spf::synth::tensor_io::{write_mtx, write_tns};
use spf::synth::Descriptor;

use super::error::CliError;
use super::output::{emit, write_atomically_when};

/// Reads an instance of `d` from a JSON file or an `.npz` archive and
/// validates it against `d`.
///
/// # Errors
///
/// [`CliError::Located`] for malformed JSON, [`CliError::Input`] for an
/// archive that cannot be read as `d` and for an instance that violates
/// `d`, [`CliError::Read`] when the file cannot be read.
pub fn read_instance(d: &Descriptor, input: &Path) -> Result<Instance, CliError> {
    let inst = load_instance(d, input, &open(input)?)?;
    validate(d, &inst).map_err(|e| invalid(input, e))?;
    Ok(inst)
}

/// Reads the input at `input` (`-`: standard input; gzip decompressed),
/// and tells its kind by its content.
///
/// # Errors
///
/// [`CliError::Read`] when it cannot be read.
pub fn open(input: &Path) -> Result<InputFile, CliError> {
    open_input(input).map_err(|source| CliError::Read {
        path: input.display().to_string(),
        source,
    })
}

/// [`read_instance`] of an input already read ([`open`]), validated by
/// `check`, with what `check` gives: the
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
    file: &InputFile,
    check: &dyn Fn(&Descriptor, &Instance) -> Result<T, InstanceError>,
) -> Result<(Instance, T), CliError> {
    let inst = load_instance(d, input, file)?;
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

/// An instance of `d` from a JSON file or an `.npz` archive (`file`, read
/// from `input`), not yet validated.
fn load_instance(d: &Descriptor, input: &Path, file: &InputFile) -> Result<Instance, CliError> {
    let shown = input.display().to_string();
    let problem = |message: String| CliError::Input {
        file: shown.clone(),
        message,
    };
    let inst = match file.kind {
        // A regular file is read in place where its members allow.
        FileKind::Npz if file.plain_file => {
            read_npz_file(input, d, Some(&super::file_blocks::FileBlocks)).map_err(|e| match e {
                ReadFileError::Io(source) => CliError::Read {
                    path: shown.clone(),
                    source,
                },
                ReadFileError::Npz(e) => problem(e.to_string()),
            })?
        }
        FileKind::Npz => {
            read_npz(std::io::Cursor::new(file.bytes()), d).map_err(|e| problem(e.to_string()))?
        }
        FileKind::Json => Instance::from_json_bytes(file.bytes()).map_err(|e| match e {
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
        })?,
        kind => {
            return Err(problem(format!(
                "this is {}, not an instance of {} (an .npz archive or a JSON instance); \
                 `spf convert` reads coordinates into any format",
                kind.name(),
                d.name
            )))
        }
    };
    Ok(inst)
}

/// The kinds of file a result is written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputKind {
    /// An `.npz` archive: scipy's `save_npz` layout where the format has
    /// one, spf's generic layout otherwise.
    Npz,
    /// The entries as Matrix Market coordinates.
    Mtx,
    /// The entries as FROSTT coordinates.
    Tns,
    /// A JSON instance.
    Json,
}

/// Where a result goes and as what.
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    /// The file; `None` for standard output.
    pub path: Option<&'a Path>,
    /// What is written.
    pub kind: OutputKind,
    /// Whether the bytes are gzip-compressed (`.mtx.gz`, `.tns.gz`,
    /// `.json.gz`).
    pub gzip: bool,
}

impl<'a> Target<'a> {
    /// `output` written as `to` says, else as its name says (`.npz`,
    /// `.mtx`, `.tns`, `.json`, each of the last three also `.gz`); standard
    /// output (no name, or `-`) takes `stdout_kind`.
    ///
    /// # Errors
    ///
    /// [`CliError::Usage`] for a name whose kind spf cannot tell, naming
    /// the kinds, and for a compressed archive.
    pub fn new(
        output: Option<&'a Path>,
        to: Option<OutputKind>,
        stdout_kind: OutputKind,
    ) -> Result<Target<'a>, CliError> {
        let path = output.filter(|p| p.as_os_str() != "-");
        let name = path
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let (stem, gzip) = match name.strip_suffix(".gz") {
            Some(stem) => (stem.to_string(), true),
            None => (name.clone(), false),
        };
        let by_name = [
            (".npz", OutputKind::Npz),
            (".mtx", OutputKind::Mtx),
            (".tns", OutputKind::Tns),
            (".json", OutputKind::Json),
        ]
        .into_iter()
        .find(|(ext, _)| stem.ends_with(ext))
        .map(|(_, kind)| kind);
        let kind = match (to, path, by_name) {
            (Some(kind), _, _) => kind,
            (None, None, _) => stdout_kind,
            (None, Some(_), Some(kind)) => kind,
            (None, Some(p), None) => {
                return Err(CliError::Usage(format!(
                    "{}: spf cannot tell what to write from the name; end it in .npz, .mtx, \
                     .tns or .json (.mtx.gz, .tns.gz or .json.gz compressed), or say which \
                     with --to npz|mtx|tns|json",
                    p.display()
                )))
            }
        };
        if gzip && kind == OutputKind::Npz {
            return Err(CliError::Usage(format!(
                "{}: an .npz archive is compressed already; name it .npz",
                output.map(|p| p.display().to_string()).unwrap_or_default()
            )));
        }
        Ok(Target { path, kind, gzip })
    }

    /// The target's name in messages.
    pub fn shown(&self) -> String {
        self.path
            .map_or("<stdout>".into(), |p| p.display().to_string())
    }

    /// Writes `bytes` (compressed when the target is): to the file whole
    /// or not at all, or to standard output.
    fn write(&self, bytes: &[u8]) -> Result<(), CliError> {
        let compressed;
        let bytes = if self.gzip {
            compressed = gzip(bytes).map_err(|source| CliError::Write {
                path: self.shown(),
                source,
            })?;
            &compressed[..]
        } else {
            bytes
        };
        emit(self.path, bytes)
    }
}

/// Writes the entries a valid instance of `d` stores as Matrix Market or
/// FROSTT coordinates, as `target` says.
///
/// # Errors
///
/// [`CliError::Input`] when the entries cannot be written in that form (a
/// matrix file of a 3-D tensor).
pub fn write_coordinates(
    d: &Descriptor,
    inst: &Instance,
    target: &Target<'_>,
) -> Result<(), CliError> {
    let problem = |message: String| CliError::Input {
        file: target.shown(),
        message,
    };
    // Coordinates carry doubles: integer values a double does not hold
    // are refused rather than rounded.
    if let Some(k) = inst
        .arrays
        .get(&d.data_name)
        .and_then(|v| v.as_ints())
        .filter(|_| inst.value_type.is_integer())
        .and_then(|v| v.iter().position(|&x| x.unsigned_abs() > 1 << 53))
    {
        return Err(problem(format!(
            "{}({k}) is an {} value beyond 2^53, which a coordinate file (read as doubles) \
             does not hold exactly; write .json or .npz",
            d.data_name, inst.value_type
        )));
    }
    let coords = coordinates_from(d, inst).map_err(|e| problem(e.to_string()))?;
    let mut bytes = Vec::new();
    let written = match target.kind {
        OutputKind::Tns => write_tns(&coords, &mut bytes),
        _ => write_mtx(&coords, &mut bytes),
    };
    written.map_err(|e| problem(e.to_string()))?;
    target.write(&bytes)
}

/// Writes a valid instance of `d` to `target`: `.npz` (scipy's layout when
/// `d` has one, the generic layout otherwise), its entries as coordinates,
/// or JSON. Returns a note when an `.npz` could not take scipy's layout.
///
/// The output is kept only when `commit` says yes: an `.npz` file is
/// written while `commit` decides and renamed into place after
/// ([`super::output::write_atomically_when`]); any other output is written
/// after `commit` said yes, and nothing is written when it says no.
///
/// # Errors
///
/// What the writers report; the output file is written whole or not at all.
pub fn write_instance_when(
    d: &Descriptor,
    inst: &Instance,
    target: &Target<'_>,
    commit: &dyn Fn() -> bool,
) -> Result<Option<String>, CliError> {
    let mut written = None;
    let npz = |file: &mut dyn WriteSeek, written: &mut Option<Written>| {
        let w = write_npz(d, inst, std::io::BufWriter::new(file)).map_err(std::io::Error::other)?;
        *written = Some(w);
        Ok::<(), std::io::Error>(())
    };
    match (target.kind, target.path) {
        (OutputKind::Npz, Some(path)) => {
            write_atomically_when(path, &mut |file| npz(file, &mut written), commit)?;
        }
        _ if !commit() => return Ok(None),
        (OutputKind::Npz, None) => {
            let mut bytes = std::io::Cursor::new(Vec::new());
            npz(&mut bytes, &mut written).map_err(|source| CliError::Write {
                path: target.shown(),
                source,
            })?;
            target.write(bytes.get_ref())?;
        }
        (OutputKind::Mtx | OutputKind::Tns, _) => write_coordinates(d, inst, target)?,
        (OutputKind::Json, _) => target.write(inst.to_json().as_bytes())?,
    }
    Ok(match written {
        Some(Written::Generic(Some(reason))) => Some(format!(
            "written in spf's generic .npz layout, which scipy.sparse.load_npz does not read: \
             {reason}"
        )),
        _ => None,
    })
}

/// A file an `.npz` archive is written to.
trait WriteSeek: std::io::Write + std::io::Seek {}

impl<T: std::io::Write + std::io::Seek> WriteSeek for T {}
