//! Writing results: to standard output, or to a file that appears whole or
//! not at all.

use std::io::Write;
use std::path::Path;

use synth::npz::arrays::WRITE_PIECE;

use crate::Error;

/// Checks that `path` may be written as an output, the same for every
/// command: its directory exists (no command creates directories), and an
/// existing regular file there is not write-protected (a rename would
/// replace it anyway; spf refuses, as `cp` without `-f` does).
pub fn check_target(path: &Path) -> Result<(), Error> {
    let shown = path.display().to_string();
    let refuse = |message: String| Error::Write {
        path: shown.clone(),
        source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, message),
    };
    if let Ok(m) = std::fs::metadata(path) {
        if m.is_dir() {
            return Err(refuse("is a directory".into()));
        }
        if m.is_file() && m.permissions().readonly() {
            return Err(refuse(
                "the file is write-protected; spf does not replace it (remove it, or make it \
                 writable, first)"
                    .into(),
            ));
        }
        return Ok(());
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(Error::Write {
            path: shown.clone(),
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!(
                    "the directory {} does not exist (spf does not create directories)",
                    dir.display()
                ),
            ),
        });
    }
    Ok(())
}

/// Writes `contents` to `path` through a temporary file in the same
/// directory and a rename, so that a failure never leaves a partial file.
/// The guarantee is against spf's own failures (an error, a signal, a full
/// disk): the file is not `fsync`ed, and it takes an existing file's place
/// by an exchange ([`replace`]), so what a power loss within seconds of the
/// write leaves is the file system's to say, as for numpy's and scipy's
/// writers, which write in place; run `sync` after spf when that matters.
/// Syncing, or ext4's flush of a file renamed over another, cost a
/// conversion of a few million entries a fifth of its time.
/// An existing special file (`/dev/null`, a pipe) is written in place: a
/// rename would replace the device by a regular file. The contents go in
/// pieces of [`WRITE_PIECE`] bytes, as `.npz` members do (the page cache
/// then takes small folios).
pub fn write_atomically(path: &Path, contents: &[u8]) -> Result<(), Error> {
    write_atomically_with(path, &mut |f| {
        contents
            .chunks(WRITE_PIECE)
            .try_for_each(|piece| f.write_all(piece))
    })
}

/// [`write_atomically`] for a writer that needs the file itself (to seek,
/// as a zip archive's does): `write` fills the temporary file.
pub fn write_atomically_with(
    path: &Path,
    write: &mut dyn FnMut(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<(), Error> {
    write_atomically_when(path, write, &|| true).map(drop)
}

/// [`write_atomically_with`], the file renamed into place only when
/// `commit` says yes once it is written (`spf convert` writes while it
/// checks the result, and commits when the check passes); a special file,
/// written in place, is written only after `commit` said yes. Whether the
/// file was written. The file's pages come from the kernel's page cache,
/// so the large blocks the process keeps for reuse are given back first
/// ([`crate::memory::freed_blocks::give_back`]): the kernel then fills the file
/// with pages already in memory.
///
/// # Errors
///
/// As [`write_atomically`].
pub fn write_atomically_when(
    path: &Path,
    write: &mut dyn FnMut(&mut std::fs::File) -> std::io::Result<()>,
    commit: &dyn Fn() -> bool,
) -> Result<bool, Error> {
    check_target(path)?;
    crate::memory::freed_blocks::give_back();
    let shown = path.display().to_string();
    let fail = |source| Error::Write {
        path: shown.clone(),
        source,
    };
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        if !commit() {
            return Ok(false);
        }
        return std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|mut f| write(&mut f))
            .map(|()| true)
            .map_err(fail);
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.spf-tmp-{}", std::process::id()));
    let result = std::fs::File::create(&tmp)
        .and_then(|mut f| write(&mut f))
        .and_then(|()| {
            if commit() {
                replace(&tmp, path).map(|()| true)
            } else {
                std::fs::remove_file(&tmp).map(|()| false)
            }
        });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(fail)
}

/// Moves the file `tmp` to `path` (in the same directory) atomically: at
/// every moment `path` is the old file or the new one. Over an existing
/// file on Linux, the two are exchanged (`renameat2` with
/// `RENAME_EXCHANGE`) and the old one, now at `tmp`, is removed: a plain
/// rename over a file makes ext4 write the new file's data out before it
/// returns (its `auto_da_alloc`), 25 ms for 28 MB on this project's
/// machines, where an exchange takes 0.1 ms. Elsewhere, or when the file
/// system cannot exchange, a plain rename.
fn replace(tmp: &Path, path: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes());
        if let (Ok(from), Ok(to)) = (c(tmp), c(path)) {
            // SAFETY: both are NUL-terminated paths that live across the
            // call; renameat2 reads them and keeps neither.
            let done = unsafe {
                libc::renameat2(
                    libc::AT_FDCWD,
                    from.as_ptr(),
                    libc::AT_FDCWD,
                    to.as_ptr(),
                    libc::RENAME_EXCHANGE,
                )
            } == 0;
            if done {
                // The new file is in place; the old one's removal failing
                // (it never does in a directory just written) leaves it at
                // `tmp`, not the result in doubt.
                let _ = std::fs::remove_file(tmp);
                return Ok(());
            }
        }
    }
    std::fs::rename(tmp, path)
}

/// Writes `contents` (text or bytes) to `path`, or to standard output
/// without one.
pub fn emit(path: Option<&Path>, contents: impl AsRef<[u8]>) -> Result<(), Error> {
    let contents = contents.as_ref();
    match path {
        Some(p) => write_atomically(p, contents),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(contents)
                .and_then(|()| out.flush())
                .map_err(|source| Error::Write {
                    path: "<stdout>".into(),
                    source,
                })
        }
    }
}

/// Reads a file, or standard input for `None`; returns (shown name, text).
pub fn read_input(path: Option<&Path>) -> Result<(String, String), Error> {
    match path {
        Some(p) => {
            let shown = p.display().to_string();
            let text = std::fs::read_to_string(p).map_err(|source| Error::Read {
                path: shown.clone(),
                source,
            })?;
            Ok((shown, text))
        }
        None => {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map_err(|source| {
                Error::Read {
                    path: "<stdin>".into(),
                    source,
                }
            })?;
            Ok(("<stdin>".into(), text))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A special file, `/dev/null` (every Unix has it: a prerequisite,
    /// required under CI), is written in place (the C driver's FIFO case:
    /// program/tests.rs).
    #[test]
    fn special_files_are_written_in_place() {
        let null = Path::new("/dev/null");
        let missing = (!null.exists()).then(|| "/dev/null".to_string());
        if !crate::report::require("the write to /dev/null", missing) {
            return;
        }
        write_atomically(null, b"discarded").unwrap();
        let m = std::fs::metadata(null).unwrap();
        assert!(!m.is_file(), "/dev/null was replaced by a regular file");
    }

    #[test]
    fn write_protected_files_and_missing_directories_are_refused() {
        let dir = std::env::temp_dir().join(format!("spf-output-protected-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("keep.txt");
        std::fs::write(&p, b"precious").unwrap();
        let mut perm = std::fs::metadata(&p).unwrap().permissions();
        perm.set_readonly(true);
        std::fs::set_permissions(&p, perm).unwrap();
        let e = write_atomically(&p, b"new").unwrap_err().to_string();
        assert!(e.contains("write-protected"), "{e}");
        assert_eq!(std::fs::read(&p).unwrap(), b"precious");
        let missing = dir.join("no/such/dir/out.txt");
        let e = write_atomically(&missing, b"x").unwrap_err().to_string();
        assert!(e.contains("does not exist"), "{e}");
        assert!(!dir.join("no").exists(), "no directory is created");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn regular_files_appear_whole() {
        let dir = tempfile_dir();
        let p = dir.join("out.txt");
        write_atomically(&p, b"one").unwrap();
        write_atomically(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n != "out.txt")
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_refused_commit_writes_nothing() {
        let dir = std::env::temp_dir().join(format!("spf-output-commit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("out.txt");
        let mut write = |f: &mut std::fs::File| f.write_all(b"new");
        assert!(!write_atomically_when(&p, &mut write, &|| false).unwrap());
        assert!(
            std::fs::read_dir(&dir).unwrap().next().is_none(),
            "nothing left"
        );
        std::fs::write(&p, b"old").unwrap();
        assert!(!write_atomically_when(&p, &mut write, &|| false).unwrap());
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        assert!(write_atomically_when(&p, &mut write, &|| true).unwrap());
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("spf-output-test-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}
