//! Archive members read in place: the values of a stored (uncompressed)
//! `.npy` member held in pages of the file itself instead of a copy.
//!
//! Reading a member copies its bytes from the kernel's page cache into
//! fresh memory, which the kernel first zeroes: for a 3-million-entry
//! matrix that is 41 MB written twice, a quarter of what `spf convert`
//! spends on a CSR → CSC conversion. A private mapping of the file hands
//! the page cache's pages over as they are (a write to one copies that
//! page only). The values must lie at an offset of the file that their
//! type's alignment divides: spf's writer aligns every member so
//! ([`super::arrays`]); `scipy.sparse.save_npz` does not, and its members
//! are copied.
//!
//! A block of memory that is a mapping can only be freed by an allocator
//! that knows it is one, so the process's allocator provides the mapping
//! ([`FilePages`]); a process without such an allocator reads by copying.
//!
//! The file must not change while the instance is in use: the pages are
//! the file's until written (as with any memory-mapped input).

use std::fs::File;
use std::ptr::NonNull;

use super::NpzError;

/// The fewest bytes of values read in place: smaller members are copied
/// (their pages are few, and the allocator looks a freed block up among
/// mapped ones only from this size on).
pub const SMALLEST: usize = 1 << 20;

/// A process allocator that can hold a file's bytes in a block of its own
/// by mapping the file privately.
///
/// # Safety
///
/// [`FilePages::map`] returns `None` or a block that the process's global
/// allocator frees (and reallocates) when given `Layout::from_size_align(len,
/// align)`, whose `len` bytes are the file's bytes at `offset` as the file
/// is when it is called, readable and writable (writes stay private to the
/// process).
pub unsafe trait FilePages: Sync {
    /// A block holding `len` bytes of `file` from `offset` (`offset` a
    /// multiple of `align`, `len` at least [`SMALLEST`] and within the
    /// file), or `None` when the mapping cannot be made (the caller
    /// copies).
    fn map(&self, file: &File, offset: u64, len: usize, align: usize) -> Option<NonNull<u8>>;
}

/// What reading in place needs: the archive's file, and an allocator that
/// maps it.
#[derive(Clone, Copy)]
pub struct InPlace<'a> {
    /// The file the archive is read from.
    pub file: &'a File,
    /// The allocator's mapping.
    pub pages: &'a dyn FilePages,
}

/// What the reader knows of a member from the archive.
pub(super) struct MemberInfo {
    /// Stored without compression or encryption.
    pub stored: bool,
    /// Where its bytes start in the file.
    pub data_start: Option<u64>,
    /// Its size in bytes.
    pub size: u64,
    /// The archive's checksum of its bytes.
    pub crc32: u32,
}

impl InPlace<'_> {
    /// The member's `n` values of type `T` (stored little-endian at `T`'s
    /// width, the caller checked the dtype) held in place, or `None` when
    /// they cannot be (compressed, too small, misaligned, a header the
    /// member's size does not fit, no mapping): the caller copies them.
    ///
    /// # Errors
    ///
    /// A member whose bytes do not match the archive's checksum (what the
    /// copying reader reports too).
    #[cfg(all(unix, target_endian = "little"))]
    pub(super) fn values<T: bytemuck::Pod>(
        &self,
        key: &str,
        member: &MemberInfo,
        n: usize,
    ) -> Result<Option<Vec<T>>, NpzError> {
        let (Some(start), true) = (member.data_start, member.stored) else {
            return Ok(None);
        };
        let align = std::mem::align_of::<T>();
        let Some(bytes) = n.checked_mul(std::mem::size_of::<T>()) else {
            return Ok(None);
        };
        if bytes < SMALLEST || std::mem::size_of::<T>() == 0 {
            return Ok(None);
        }
        let Some(header) = npy_header(self.file, start) else {
            return Ok(None);
        };
        let offset = start + header.len() as u64;
        let file_len = self.file.metadata().map_or(0, |m| m.len());
        if header.len() as u64 + bytes as u64 != member.size
            || offset % align as u64 != 0
            || offset + bytes as u64 > file_len
        {
            return Ok(None);
        }
        let Some(block) = self.pages.map(self.file, offset, bytes, align) else {
            return Ok(None);
        };
        // SAFETY: `map`'s contract: a block of the global allocator for
        // `bytes` bytes at `T`'s alignment, holding `n` values of `T`
        // (any bytes are a `T`: `Pod`).
        let values = unsafe { Vec::from_raw_parts(block.as_ptr().cast::<T>(), n, n) };
        if checksum(&header, bytemuck::cast_slice(&values)) != member.crc32 {
            return Err(NpzError::member(
                key,
                "cannot read its values: Invalid checksum",
            ));
        }
        Ok(Some(values))
    }

    /// Without a private file mapping, nothing is read in place.
    #[cfg(not(all(unix, target_endian = "little")))]
    pub(super) fn values<T: bytemuck::Pod>(
        &self,
        _key: &str,
        _member: &MemberInfo,
        _n: usize,
    ) -> Result<Option<Vec<T>>, NpzError> {
        Ok(None)
    }
}

/// The fewest bytes of values whose checksum two threads compute.
const PARALLEL_CHECKSUM: usize = 8 << 20;

/// The CRC-32 of `header` followed by `values`, the values' halves on two
/// threads when they are many (CRC-32s of consecutive blocks combine).
fn checksum(header: &[u8], values: &[u8]) -> u32 {
    let mut crc = crc32fast::Hasher::new();
    crc.update(header);
    if values.len() < PARALLEL_CHECKSUM {
        crc.update(values);
        return crc.finalize();
    }
    let (first, second) = crate::halves::both(0, values.len() / 2, values.len(), |r| {
        let mut h = crc32fast::Hasher::new();
        h.update(&values[r]);
        h
    });
    crc.combine(&first);
    crc.combine(&second);
    crc.finalize()
}

/// The `.npy` header of the member whose bytes start at `start`: the magic
/// string, the version, the header's length and its text (the values
/// follow it); `None` when it cannot be read or is not a header.
#[cfg(unix)]
fn npy_header(file: &File, start: u64) -> Option<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let mut head = [0u8; 12];
    file.read_exact_at(&mut head, start).ok()?;
    if &head[..6] != b"\x93NUMPY" {
        return None;
    }
    let len = match head[6] {
        1 => 10 + usize::from(u16::from_le_bytes([head[8], head[9]])),
        2 | 3 => 12 + u32::from_le_bytes([head[8], head[9], head[10], head[11]]) as usize,
        _ => return None,
    };
    // A header is text of at most a few kilobytes; a larger length is not
    // one numpy writes.
    if len > 1 << 16 {
        return None;
    }
    let mut header = vec![0u8; len];
    file.read_exact_at(&mut header, start).ok()?;
    Some(header)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A member of `header` and `bytes` written at `start` of a file.
    fn file_with(start: usize, header: &[u8], bytes: &[u8]) -> File {
        let mut f = tempfile::tempfile().expect("a temporary file");
        f.write_all(&vec![0u8; start]).expect("written");
        f.write_all(header).expect("written");
        f.write_all(bytes).expect("written");
        f
    }

    fn header_v1(text_len: usize) -> Vec<u8> {
        let mut h = b"\x93NUMPY\x01\x00".to_vec();
        h.extend_from_slice(&(text_len as u16).to_le_bytes());
        h.extend(std::iter::repeat_n(b' ', text_len));
        h
    }

    #[test]
    fn a_checksum_on_two_threads_is_the_checksum() {
        let header = b"\x93NUMPY header";
        for len in [0, 100, PARALLEL_CHECKSUM - 1, PARALLEL_CHECKSUM + 7] {
            let values: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            let mut whole = header.to_vec();
            whole.extend_from_slice(&values);
            assert_eq!(checksum(header, &values), crc32fast::hash(&whole), "{len}");
        }
    }

    #[test]
    fn headers_of_each_version_are_read_whole() {
        let h = header_v1(118);
        let f = file_with(7, &h, &[1, 2, 3]);
        assert_eq!(npy_header(&f, 7), Some(h));
        let mut v2 = b"\x93NUMPY\x02\x00".to_vec();
        v2.extend_from_slice(&52u32.to_le_bytes());
        v2.extend(std::iter::repeat_n(b' ', 52));
        let f = file_with(0, &v2, &[]);
        assert_eq!(npy_header(&f, 0).map(|h| h.len()), Some(64));
        let f = file_with(0, b"\x93NUMPZ\x01\x00\x00\x00", &[]);
        assert_eq!(npy_header(&f, 0), None, "not the magic string");
        let f = file_with(0, b"\x93NUMPY\x09\x00\x00\x00\x00\x00", &[]);
        assert_eq!(npy_header(&f, 0), None, "an unknown version");
        let f = file_with(0, &header_v1(118)[..40], &[]);
        assert_eq!(npy_header(&f, 0), None, "cut short");
    }
}
