//! Instance files: what `spf convert` and `spf dump` read (a JSON instance,
//! or an `.npz` archive in scipy's or spf's generic layout, told by its
//! content: [`synth::tensor_io::kind`]) and what `spf convert` writes
//! (the same, or the entries as `.mtx`/`.tns` coordinates, chosen by the
//! output's name).

use std::path::Path;

use iegen::syntax::SyntaxError;
use synth::instance::{Instance, InstanceError, Values};
use synth::instance_validation::validate_allowing;
use synth::npz::{read_npz, read_npz_file, write_npz, ReadFileError, Written};
use synth::oracle::{coordinates_from, integer_coordinates_from};
use synth::tensor_io::kind::{gzip, open_input, FileKind, InputFile};
use synth::tensor_io::{write_mtx, write_mtx_integers, write_tns};
use synth::Descriptor;

use crate::output::{emit, write_atomically_when};
use crate::Error;

/// Reads an instance of `d` from a JSON file or an `.npz` archive and
/// validates it against `d` (values that are not finite pass when
/// `allow_nonfinite` says so).
///
/// # Errors
///
/// [`Error::Located`] for malformed JSON, [`Error::Input`] for an
/// archive that cannot be read as `d` and for an instance that violates
/// `d`, [`Error::Read`] when the file cannot be read.
pub fn read_instance(
    d: &Descriptor,
    input: &Path,
    allow_nonfinite: bool,
) -> Result<Instance, Error> {
    let inst = load_instance(d, input, &open(input)?)?;
    validate_allowing(d, &inst, allow_nonfinite).map_err(|e| invalid(input, e))?;
    Ok(inst)
}

/// The format an input named as `d` is read as: BCSR of the block shape
/// of a scipy `bsr` archive when `d` is BCSR of another
/// ([`synth::npz::block_source`]), else `d`.
pub fn source_format(d: Descriptor, input: &Path) -> Descriptor {
    synth::npz::block_source_file(&d, input).unwrap_or(d)
}

/// Reads the input at `input` (`-`: standard input; gzip decompressed),
/// and tells its kind by its content.
///
/// # Errors
///
/// [`Error::Read`] when it cannot be read.
pub fn open(input: &Path) -> Result<InputFile, Error> {
    open_input(input).map_err(|source| Error::Read {
        path: input.display().to_string(),
        source,
    })
}

/// [`read_instance`] of an input already read ([`open`]), validated by
/// `check`, with what `check` gives: the
/// instance's entries, or their fingerprint, from the one enumeration of
/// its validation (as [`synth::instance_validation::validate_entries`]
/// does; `spf convert` passes [`crate::runner::Runner::expected`]): what a
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
) -> Result<(Instance, T), Error> {
    let inst = load_instance(d, input, file)?;
    let entries = check(d, &inst).map_err(|e| invalid(input, e))?;
    Ok((inst, entries))
}

/// The error for an instance read from `input` that violates its
/// descriptor.
fn invalid(input: &Path, e: InstanceError) -> Error {
    Error::Input {
        file: input.display().to_string(),
        message: e.to_string(),
    }
}

/// An instance of `d` from a JSON file or an `.npz` archive (`file`, read
/// from `input`), not yet validated.
fn load_instance(d: &Descriptor, input: &Path, file: &InputFile) -> Result<Instance, Error> {
    let shown = input.display().to_string();
    let problem = |message: String| Error::Input {
        file: shown.clone(),
        message,
    };
    let inst = match file.kind {
        // A regular file is read in place where its members allow (where
        // the global allocator can free a file's pages).
        FileKind::Npz if file.plain_file => {
            let in_place: Option<&dyn synth::npz::in_place::FilePages> =
                crate::memory::huge_pages::installed()
                    .then_some(&crate::memory::file_blocks::FileBlocks);
            read_npz_file(input, d, in_place).map_err(|e| match e {
                ReadFileError::Io(source) => Error::Read {
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
            } => Error::Located {
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// [`Error::Usage`] for a name whose kind spf cannot tell, naming
    /// the kinds, and for a compressed archive.
    pub fn new(
        output: Option<&'a Path>,
        to: Option<OutputKind>,
        stdout_kind: OutputKind,
    ) -> Result<Target<'a>, Error> {
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
                return Err(Error::Usage(format!(
                    "{}: spf cannot tell what to write from the name; end it in .npz, .mtx, \
                     .tns or .json (.mtx.gz, .tns.gz or .json.gz compressed), or say which \
                     with --to npz|mtx|tns|json",
                    p.display()
                )))
            }
        };
        if gzip && kind == OutputKind::Npz {
            return Err(Error::Usage(format!(
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
    fn write(&self, bytes: &[u8]) -> Result<(), Error> {
        let compressed;
        let bytes = if self.gzip {
            compressed = gzip(bytes).map_err(|source| Error::Write {
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
/// FROSTT coordinates, as `target` says: integer values as a Matrix
/// Market `integer` file, exactly.
///
/// # Errors
///
/// [`Error::Input`] when the entries cannot be written in that form (a
/// matrix file of a 3-D tensor).
pub fn write_coordinates(
    d: &Descriptor,
    inst: &Instance,
    target: &Target<'_>,
) -> Result<(), Error> {
    let problem = |message: String| Error::Input {
        file: target.shown(),
        message,
    };
    if target.kind == OutputKind::Mtx {
        let exact = integer_coordinates_from(d, inst).map_err(|e| problem(e.to_string()))?;
        if let Some((dims, entries)) = exact {
            let mut bytes = Vec::new();
            write_mtx_integers(&dims, &entries, &mut bytes).map_err(|e| problem(e.to_string()))?;
            return target.write(&bytes);
        }
    }
    // FROSTT coordinates carry doubles: integer values a double does not
    // hold are refused rather than rounded.
    if let Some(k) = inst
        .arrays
        .get(&d.data_name)
        .and_then(|v| v.as_ints())
        .filter(|_| inst.value_type.is_integer())
        .and_then(|v| v.iter().position(|&x| x.unsigned_abs() > 1 << 53))
    {
        return Err(problem(format!(
            "{}({k}) is an {} value beyond 2^53, which a FROSTT file (read as doubles) does \
             not hold exactly; write .mtx, .json or .npz",
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
/// ([`crate::output::write_atomically_when`]); any other output is written
/// after `commit` said yes, and nothing is written when it says no.
///
/// # Errors
///
/// What the writers report; the output file is written whole or not at all.
/// A JSON target of an instance holding a value that is not finite is
/// [`Error::Input`] ([`json_carries`]), before `commit` is asked.
pub fn write_instance_when(
    d: &Descriptor,
    inst: &Instance,
    target: &Target<'_>,
    commit: &dyn Fn() -> bool,
) -> Result<Option<String>, Error> {
    if target.kind == OutputKind::Json {
        json_carries(inst, target)?;
    }
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
            npz(&mut bytes, &mut written).map_err(|source| Error::Write {
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

/// Refuses an instance holding a value that is not finite (NaN, an
/// infinity) as JSON, which has no number for it, naming the kinds of file
/// that keep it.
///
/// # Errors
///
/// [`Error::Input`] naming the first such value.
pub fn json_carries(inst: &Instance, target: &Target<'_>) -> Result<(), Error> {
    let first = inst.arrays.iter().find_map(|(name, values)| {
        let at = match values {
            Values::Real(v) => v.iter().position(|x| !x.is_finite()),
            Values::Real32(v) => v.iter().position(|x| !x.is_finite()),
            Values::Int(_) | Values::Int32(_) => None,
        }?;
        Some(format!("{name}({at}) = {}", values.to_reals()[at]))
    });
    match first {
        None => Ok(()),
        Some(value) => Err(Error::Input {
            file: target.shown(),
            message: format!(
                "{value} is not a finite number, which JSON cannot carry; write .npz, .mtx or \
                 .tns, which keep NaN and infinities"
            ),
        }),
    }
}

/// A file an `.npz` archive is written to.
trait WriteSeek: std::io::Write + std::io::Seek {}

impl<T: std::io::Write + std::io::Seek> WriteSeek for T {}
