//! What kind of file an input is, told by its content, whatever its name:
//! a Matrix Market file by its banner, an `.npz` archive by the zip
//! signature, a JSON instance by its first character, a FROSTT file
//! otherwise. A gzip-compressed file (SuiteSparse ships `.mtx.gz`, FROSTT
//! `.tns.gz`) is decompressed first and told by what it holds. The path
//! `-` is standard input.
//!
//! An input is read once, into [`InputFile`]: standard input cannot be read
//! twice, so the kind and the bytes come together.

use std::io::Read;
use std::path::Path;

use super::FileBytes;

/// The kinds of file spf reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// Matrix Market coordinates or array (`%%MatrixMarket` first).
    MatrixMarket,
    /// FROSTT coordinates (anything not told otherwise).
    Frostt,
    /// A zip archive of `.npy` members (scipy's `save_npz`, or spf's
    /// generic layout).
    Npz,
    /// A JSON instance (`{` first, after white space).
    Json,
}

impl FileKind {
    /// Whether the kind lists coordinates (Matrix Market or FROSTT).
    pub fn is_coordinates(self) -> bool {
        matches!(self, FileKind::MatrixMarket | FileKind::Frostt)
    }

    /// The kind's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            FileKind::MatrixMarket => "a Matrix Market file",
            FileKind::Frostt => "a FROSTT file",
            FileKind::Npz => "an .npz archive",
            FileKind::Json => "a JSON instance",
        }
    }
}

/// The gzip signature.
const GZIP: [u8; 2] = [0x1f, 0x8b];

/// The kind of a file that starts with `head` (its first bytes,
/// decompressed): enough of them to hold the Matrix Market banner.
pub fn sniff(head: &[u8]) -> FileKind {
    if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        return FileKind::Npz;
    }
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    if text.len() >= 14 && text[..14].eq_ignore_ascii_case(b"%%MatrixMarket") {
        return FileKind::MatrixMarket;
    }
    match text.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => FileKind::Json,
        _ => FileKind::Frostt,
    }
}

/// An input's bytes (decompressed) and its kind.
pub struct InputFile {
    bytes: FileBytes,
    /// What the content is.
    pub kind: FileKind,
    /// Whether the file was gzip-compressed.
    pub compressed: bool,
    /// Whether the input is a regular file of this kind, as it lies (not
    /// standard input, not decompressed): one a reader may open again or
    /// map itself.
    pub plain_file: bool,
}

impl InputFile {
    /// The content.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// Reads the input at `path` (`-`: standard input), decompressing a gzip
/// file, and tells its kind. A regular file is mapped, not copied.
///
/// # Errors
///
/// The file cannot be opened or read, or its gzip stream is damaged (an
/// error of kind `InvalidData` that says so).
pub fn open_input(path: &Path) -> std::io::Result<InputFile> {
    let stdin = path.as_os_str() == "-";
    let raw = if stdin {
        let mut bytes = Vec::new();
        std::io::stdin().lock().read_to_end(&mut bytes)?;
        FileBytes::Read(bytes)
    } else {
        super::file_bytes(path)?
    };
    if raw.starts_with(&GZIP) {
        let mut bytes = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut bytes)
            .map_err(|e| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("the gzip-compressed content cannot be read: {e}"),
                )
            })?;
        return Ok(InputFile {
            kind: sniff(&bytes),
            bytes: FileBytes::Read(bytes),
            compressed: true,
            plain_file: false,
        });
    }
    Ok(InputFile {
        kind: sniff(&raw),
        bytes: raw,
        compressed: false,
        plain_file: !stdin,
    })
}

/// `bytes` gzip-compressed, as `gzip` writes them (what a `.mtx.gz` or
/// `.tns.gz` output holds).
///
/// # Errors
///
/// The compressor's (it writes to memory, so none in practice).
pub fn gzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    use std::io::Write as _;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes)?;
    gz.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_told_by_their_first_bytes() {
        assert_eq!(
            sniff(b"%%MatrixMarket matrix coordinate real general\n"),
            FileKind::MatrixMarket
        );
        assert_eq!(sniff(b"%%matrixmarket matrix"), FileKind::MatrixMarket);
        assert_eq!(
            sniff(b"\xEF\xBB\xBF%%MatrixMarket matrix"),
            FileKind::MatrixMarket
        );
        assert_eq!(sniff(b"PK\x03\x04rest"), FileKind::Npz);
        assert_eq!(sniff(b"PK\x05\x06"), FileKind::Npz);
        assert_eq!(sniff(b"  \n {\"format\": \"COO\"}"), FileKind::Json);
        assert_eq!(sniff(b"1 1 1 2.5\n"), FileKind::Frostt);
        assert_eq!(sniff(b"# a comment\n1 2 3.0\n"), FileKind::Frostt);
        assert_eq!(sniff(b"%%Matrix"), FileKind::Frostt);
        assert_eq!(sniff(b""), FileKind::Frostt);
    }

    #[test]
    fn a_gzip_file_is_told_by_what_it_holds() {
        let dir = std::env::temp_dir().join(format!("spf-kind-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 3.5\n";
        let path = dir.join("no-extension");
        std::fs::write(&path, gzip(text).unwrap()).unwrap();
        let input = open_input(&path).unwrap();
        assert_eq!(input.kind, FileKind::MatrixMarket);
        assert!(input.compressed && !input.plain_file);
        assert_eq!(input.bytes(), text);
        // A damaged stream is an error that says so.
        let mut bad = std::fs::read(&path).unwrap();
        bad.truncate(bad.len() - 12);
        std::fs::write(&path, bad).unwrap();
        let e = open_input(&path).err().expect("damaged").to_string();
        assert!(e.contains("gzip-compressed content cannot be read"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
