//! The cache of compiled conversions: shared libraries ([`crate::native`])
//! in the user's cache directory, one per conversion, so that the second
//! conversion of a pair pays no compile.
//!
//! * **Where**: `$SPF_CACHE_DIR` when set (tests use a temporary
//!   directory), else `$XDG_CACHE_HOME/spf`, else `~/.cache/spf`.
//! * **Key**: a SHA-256 of the spf version, the library ABI's version, the
//!   index widths (32 or 64 bits, of positions and coordinates; the file
//!   name carries them, `-i32`, `-i64` or `-p64c32`, so that the builds sit
//!   side by side), the compiler command
//!   and flags, both descriptors, and the library's C source itself (so
//!   that any change of the synthesized code is another key). The file is
//!   `SRC-DST-WIDTHS-HASH.so`, the hash's first 20 hex digits.
//! * **Concurrency**: the compiler writes into a work directory of its own
//!   inside the cache directory and the library is renamed into place, an
//!   atomic step: two processes building one key at once both succeed, and
//!   a reader never sees half a library.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use codegen::width::{IndexWidths, ValueType};
use sha2::{Digest, Sha256};
use synth::Descriptor;

use crate::c_compiler::{compile_with, compiler_candidates, find_compiler, C_FLAGS};
use crate::native::{Library, ABI_VERSION};
use crate::observe::Observer;
use crate::Error;

/// The flags a library is compiled with besides [`C_FLAGS`].
const SHARED_FLAGS: &[&str] = &["-shared", "-fPIC", "-fvisibility=hidden", "-pthread"];

/// The cache directory: `$SPF_CACHE_DIR`, `$XDG_CACHE_HOME/spf` or
/// `~/.cache/spf` (relative XDG paths are ignored, as the XDG
/// specification says); `None` without a home directory.
pub fn cache_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("SPF_CACHE_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = var("XDG_CACHE_HOME").map(PathBuf::from) {
        if dir.is_absolute() {
            return Some(dir.join("spf"));
        }
    }
    var("HOME").map(|home| PathBuf::from(home).join(".cache").join("spf"))
}

/// How a library was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Found in the cache.
    Cached,
    /// Compiled now, taking this long.
    Compiled(Duration),
}

/// The file name of the library for `source` (its C text) converting `src`
/// to `dst` with compiler `compiler`.
pub fn library_name(
    src: &Descriptor,
    dst: &Descriptor,
    width: IndexWidths,
    values: ValueType,
    compiler: &[String],
    source: &str,
) -> String {
    // Values other than float64 are named too.
    let value_tag = match values {
        ValueType::F64 => String::new(),
        t => format!("-{t}"),
    };
    let stem = format!(
        "{}-{}-{}{value_tag}",
        file_safe(&src.name),
        file_safe(&dst.name),
        width.tag()
    );
    keyed_name(
        &stem,
        &[
            format!("index {}", width.tag()),
            format!("values {values}"),
            format!("src {src:?}"),
            format!("dst {dst:?}"),
        ],
        compiler,
        source,
    )
}

/// The file name of the library of `d`'s compiled check
/// ([`crate::native_check`]): `check-NAME-HASH.so`.
pub fn checker_name(d: &Descriptor, compiler: &[String], source: &str) -> String {
    let stem = format!("check-{}", file_safe(&d.name));
    keyed_name(&stem, &[format!("check {d:?}")], compiler, source)
}

/// `STEM-HASH.so`, the hash over the spf version, the ABI's, the compiler
/// and flags, `parts` and the C source.
fn keyed_name(stem: &str, parts: &[String], compiler: &[String], source: &str) -> String {
    let head = [
        format!("spf {}", env!("CARGO_PKG_VERSION")),
        format!("abi {ABI_VERSION}"),
        format!("compiler {}", compiler.join(" ")),
        format!("flags {} {}", C_FLAGS.join(" "), SHARED_FLAGS.join(" ")),
    ];
    let hash = hash_hex(head.iter().chain(parts).map(String::as_str).chain([source]));
    format!("{stem}-{hash}.so")
}

/// The first 20 hex digits of a SHA-256 of `parts`, each prefixed with
/// its length (so that no two lists of parts hash the same text).
fn hash_hex<'a>(parts: impl Iterator<Item = &'a str>) -> String {
    let mut h = Sha256::new();
    for part in parts {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.finalize()
        .iter()
        .take(10)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The compiler command ([`find_compiler`]), looked for once per process
/// and only when a library is not in the cache: a conversion obtains up to
/// three libraries (the input's check, the conversion, the result's
/// check), and looking runs `cc --version`.
fn compiler() -> Result<Vec<String>, Error> {
    static FOUND: std::sync::OnceLock<Result<Vec<String>, String>> = std::sync::OnceLock::new();
    FOUND
        .get_or_init(|| find_compiler().map_err(|e| e.to_string()))
        .clone()
        .map_err(Error::Compiler)
}

/// What earlier runs synthesized ([`synth::record::Record`]), as
/// files in the cache directory: `lowered-HASH`, a plan's lowering as
/// text, and `validated-HASH`, the number of test tensors a computation
/// passed. The hash (a SHA-256's first 20 hex digits) is over the spf
/// version, the running executable's size and modification time (so that
/// a rebuilt spf, whose synthesis may differ under the same version,
/// records anew), the kind and the key. A file that cannot be read or
/// written is no record: synthesis lowers and validates.
pub struct SynthesisRecord {
    dir: PathBuf,
    /// The running executable's size and modification time.
    build: String,
}

impl SynthesisRecord {
    /// The record in `cache` (else [`cache_dir`]), when there is a
    /// directory for it.
    pub fn open(cache: Option<&Path>) -> Option<SynthesisRecord> {
        let dir = cache.map(Path::to_path_buf).or_else(cache_dir)?;
        let build = std::env::current_exe()
            .and_then(std::fs::metadata)
            .map(|m| format!("{} {:?}", m.len(), m.modified().ok()))
            .unwrap_or_default();
        Some(SynthesisRecord { dir, build })
    }

    /// The file of `key` of kind `kind` (`validated`, `lowered`).
    fn file(&self, kind: &str, key: &str) -> PathBuf {
        let version = format!("spf {}", env!("CARGO_PKG_VERSION"));
        let hash = hash_hex([version.as_str(), self.build.as_str(), kind, key].into_iter());
        self.dir.join(format!("{kind}-{hash}"))
    }

    /// Writes `text` as the file of `key`, whole under another name and
    /// renamed: a reader sees all of it or no file.
    fn write(&self, kind: &str, key: &str, text: &str) {
        let path = self.file(kind, key);
        let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
        let written = std::fs::create_dir_all(&self.dir)
            .and_then(|()| std::fs::write(&tmp, text))
            .and_then(|()| std::fs::rename(&tmp, &path));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

impl synth::record::Record for SynthesisRecord {
    fn passed(&self, key: &str) -> Option<usize> {
        std::fs::read_to_string(self.file("validated", key))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    fn note(&self, key: &str, tensors: usize) {
        self.write("validated", key, &tensors.to_string());
    }

    fn lowered(&self, key: &str) -> Option<String> {
        std::fs::read_to_string(self.file("lowered", key)).ok()
    }

    fn note_lowered(&self, key: &str, text: &str) {
        self.write("lowered", key, text);
    }
}

/// A format name as a file name part: letters, digits, `_` kept.
fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The library of `source` from the cache (`cache`, else [`cache_dir`]),
/// compiled into it first when it is not there (or does not load; the
/// compile is a step of `observer`).
///
/// # Errors
///
/// [`Error::Compiler`] without a cache directory or a C compiler, or when
/// compiling or loading fails (the first line of the compiler's messages).
pub fn obtain(
    cache: Option<&Path>,
    src: &Descriptor,
    dst: &Descriptor,
    width: IndexWidths,
    values: ValueType,
    source: &str,
    observer: &dyn Observer,
) -> Result<(Library, PathBuf, Origin), Error> {
    obtain_named(
        cache,
        &|compiler| library_name(src, dst, width, values, compiler, source),
        &format!("compiling {} -> {}", src.name, dst.name),
        source,
        observer,
    )
}

/// [`obtain`] for the library of `d`'s compiled check
/// ([`crate::native_check`]).
///
/// # Errors
///
/// As [`obtain`].
pub fn obtain_checker(
    cache: Option<&Path>,
    d: &Descriptor,
    source: &str,
    observer: &dyn Observer,
) -> Result<(Library, PathBuf, Origin), Error> {
    obtain_named(
        cache,
        &|compiler| checker_name(d, compiler, source),
        &format!("compiling the check of {}", d.name),
        source,
        observer,
    )
}

/// The library of `source` under the file name `name` gives for the
/// compiler, from the cache or compiled into it (a step of `observer`
/// called `step`).
fn obtain_named(
    cache: Option<&Path>,
    name: &dyn Fn(&[String]) -> String,
    step: &str,
    source: &str,
    observer: &dyn Observer,
) -> Result<(Library, PathBuf, Origin), Error> {
    let dir = cache
        .map(Path::to_path_buf)
        .or_else(cache_dir)
        .ok_or_else(|| {
            Error::Compiler(
                "no cache directory to compile in (set SPF_CACHE_DIR, XDG_CACHE_HOME or HOME)"
                    .into(),
            )
        })?;
    // A library in the cache is found without starting a compiler.
    for candidate in compiler_candidates() {
        let path = dir.join(name(&candidate));
        if path.is_file() {
            if let Ok(lib) = Library::load(&path) {
                return Ok((lib, path, Origin::Cached));
            }
        }
    }
    let compiler = compiler()?;
    let path = dir.join(name(&compiler));
    std::fs::create_dir_all(&dir).map_err(|source| Error::Write {
        path: dir.display().to_string(),
        source,
    })?;
    let started = Instant::now();
    crate::observe::step(observer, step, || {
        compile_with(&compiler, source, &path, SHARED_FLAGS)
    })?;
    let took = started.elapsed();
    let lib = Library::load(&path).map_err(Error::Compiler)?;
    Ok((lib, path, Origin::Compiled(took)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use codegen::width::IndexWidth;

    fn format(name: &str) -> Descriptor {
        synth::builtin::load_format(name).expect("built-in format")
    }

    /// A pass and a lowering noted are read back for their key and kind
    /// only; a file that does not hold a count is no record.
    #[test]
    fn the_synthesis_record_keeps_what_it_is_given_by_key() {
        use synth::record::Record;
        let dir = std::env::temp_dir().join(format!("spf-record-{}", std::process::id()));
        let record = SynthesisRecord::open(Some(&dir)).expect("a directory");
        assert_eq!(record.passed("a"), None);
        record.note("a", 5);
        assert_eq!(record.passed("a"), Some(5));
        assert_eq!(record.passed("b"), None);
        assert_eq!(record.lowered("a"), None);
        record.note_lowered("a", "{}");
        assert_eq!(record.lowered("a").as_deref(), Some("{}"));
        std::fs::write(record.file("validated", "b"), "five").expect("written");
        assert_eq!(record.passed("b"), None);
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .expect("listed")
            .map(|e| {
                e.expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        assert_eq!(names.len(), 3, "{names:?}");
        assert!(names[0].starts_with("lowered-"), "{names:?}");
        assert!(
            names[1..].iter().all(|n| n.starts_with("validated-")),
            "{names:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_key_covers_formats_compiler_and_source() {
        let (coo, csr, csc) = (format("coo"), format("csr"), format("csc"));
        let cc = vec!["cc".to_string()];
        let w = IndexWidths::uniform(IndexWidth::W64);
        let name = library_name(&coo, &csr, w, ValueType::F64, &cc, "int x;");
        assert!(name.starts_with("COO-CSR-i64-"), "{name}");
        assert!(name.ends_with(".so"), "{name}");
        assert_eq!(name.len(), "COO-CSR-i64-".len() + 20 + ".so".len());
        assert_eq!(
            name,
            library_name(&coo, &csr, w, ValueType::F64, &cc, "int x;")
        );
        // The value type is part of the key.
        let float = library_name(&coo, &csr, w, ValueType::F32, &cc, "int x;");
        assert!(float.starts_with("COO-CSR-i64-float32-"), "{float}");
        assert_ne!(name[12..], float[20..]);
        let narrow = IndexWidths::uniform(IndexWidth::W32);
        let narrow = library_name(&coo, &csr, narrow, ValueType::F64, &cc, "int x;");
        assert!(narrow.starts_with("COO-CSR-i32-"), "{narrow}");
        let mixed = IndexWidths {
            positions: IndexWidth::W64,
            coordinates: IndexWidth::W32,
        };
        let mixed = library_name(&coo, &csr, mixed, ValueType::F64, &cc, "int x;");
        assert!(mixed.starts_with("COO-CSR-p64c32-"), "{mixed}");
        for other in [
            narrow,
            mixed,
            library_name(&coo, &csc, w, ValueType::F64, &cc, "int x;"),
            library_name(
                &coo,
                &csr,
                w,
                ValueType::F64,
                &["clang".to_string()],
                "int x;",
            ),
            library_name(&coo, &csr, w, ValueType::F64, &cc, "int y;"),
        ] {
            assert_ne!(name, other);
        }
        // A descriptor's name is kept to file-name characters.
        let mut odd = coo.clone();
        odd.name = "my/fmt x".into();
        assert!(library_name(&odd, &csr, w, ValueType::F64, &cc, "").starts_with("my_fmt_x-CSR-"));
    }
}
