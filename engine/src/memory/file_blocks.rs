//! Blocks of the `spf` process's allocator whose pages are a file's: the
//! large arrays of an `.npz` input held in place
//! ([`synth::npz::in_place`]) instead of copied into fresh memory.
//!
//! A block is a private, writable mapping of the file (a write copies the
//! page it touches; the file never changes), made readable at once from
//! the page cache (`MAP_POPULATE` on a read-only mapping, made writable
//! after, so that populating copies nothing). The allocator
//! ([`super::huge_pages::HugePages`]) frees such a block by unmapping it:
//! it looks a freed block of [`SMALLEST`] bytes or more up in a table of
//! the blocks mapped ([`SLOTS`] of them at once; with the table full, a
//! member is copied), and moves a reallocated one into ordinary memory.

use std::alloc::Layout;
use std::fs::File;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};

use synth::npz::in_place::FilePages;
pub use synth::npz::in_place::SMALLEST;

/// How many mapped blocks can be alive at once.
pub const SLOTS: usize = 32;

/// A slot being filled (no block starts at address 1).
const FILLING: usize = 1;

/// The start of each live mapped block (0: a free slot).
static BLOCKS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];

/// The whole pages around `len` bytes at `p`: their start and length.
fn pages_around(p: usize, len: usize) -> (usize, usize) {
    let page = super::page_size();
    let start = p / page * page;
    let end = (p + len).div_ceil(page) * page;
    (start, end - start)
}

/// Whether `p` starts a mapped block, which is then forgotten: the caller
/// unmaps it. Only blocks of [`SMALLEST`] bytes or more can be.
pub fn take(p: *mut u8) -> bool {
    let p = p as usize;
    BLOCKS.iter().any(|slot| {
        slot.compare_exchange(p, 0, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    })
}

/// Whether `p` starts a mapped block.
pub fn holds(p: *mut u8) -> bool {
    BLOCKS
        .iter()
        .any(|slot| slot.load(Ordering::Acquire) == p as usize)
}

/// Unmaps the block of `layout` at `p`, which [`take`] said was mapped.
///
/// # Safety
///
/// `p` was returned by [`FileBlocks::map`] for `layout.size()` bytes and
/// is not used after.
pub unsafe fn unmap(p: *mut u8, layout: Layout) {
    let (start, len) = pages_around(p as usize, layout.size());
    // SAFETY: the pages around the block are the mapping made for it,
    // which nothing uses any more (the caller's contract).
    unsafe {
        libc::munmap(start as *mut libc::c_void, len);
    }
}

/// The mapping of files into blocks that the `spf` process's allocator
/// frees ([`FilePages`]). Sound only where
/// [`super::huge_pages::HugePages`] is the global allocator
/// ([`super::huge_pages::installed`] tells; the engine maps files only
/// then).
pub struct FileBlocks;

// SAFETY: `map` returns a block at the file's bytes, readable and
// writable and private, that `HugePages` frees (it finds the block in
// `BLOCKS`, where `map` records it before returning) and reallocates
// (copying it into a block of its own).
unsafe impl FilePages for FileBlocks {
    fn map(&self, file: &File, offset: u64, len: usize, align: usize) -> Option<NonNull<u8>> {
        map(file, offset, len, align)
    }
}

#[cfg(unix)]
fn map(file: &File, offset: u64, len: usize, align: usize) -> Option<NonNull<u8>> {
    use std::os::fd::AsRawFd;
    let offset = usize::try_from(offset).ok()?;
    if len < SMALLEST || align == 0 || offset % align != 0 {
        return None;
    }
    let (start, maplen) = pages_around(offset, len);
    let within = offset - start;
    let file_offset = libc::off_t::try_from(start).ok()?;
    let slot = BLOCKS.iter().find(|slot| {
        slot.compare_exchange(0, FILLING, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    })?;
    // SAFETY: a new mapping at an address the kernel chooses; the
    // descriptor is open for reading; a private read-only mapping changes
    // nothing of the file or of other memory.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            maplen,
            libc::PROT_READ,
            libc::MAP_PRIVATE | libc::MAP_POPULATE,
            file.as_raw_fd(),
            file_offset,
        )
    };
    let made = base != libc::MAP_FAILED
        // SAFETY: the mapping just made, made writable (its pages stay the
        // file's until written, then the process's own).
        && unsafe { libc::mprotect(base, maplen, libc::PROT_READ | libc::PROT_WRITE) } == 0;
    if !made {
        if base != libc::MAP_FAILED {
            // SAFETY: the mapping just made, not handed out.
            unsafe { libc::munmap(base, maplen) };
        }
        slot.store(0, Ordering::Release);
        return None;
    }
    let p = base.cast::<u8>().wrapping_add(within);
    slot.store(p as usize, Ordering::Release);
    NonNull::new(p)
}

#[cfg(not(unix))]
fn map(_file: &File, _offset: u64, _len: usize, _align: usize) -> Option<NonNull<u8>> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_mapped_block_holds_the_file_and_is_freed_by_the_allocator() {
        let len = SMALLEST + 3 * 8;
        let bytes: Vec<u8> = (0..len + 200).map(|i| (i % 251) as u8).collect();
        let mut f = tempfile::NamedTempFile::new().expect("a temporary file");
        f.write_all(&bytes).expect("written");
        // Offset 104: within a page, a multiple of 8.
        let p = FileBlocks.map(f.as_file(), 104, len, 8).expect("mapped");
        assert_eq!(p.as_ptr() as usize % 8, 0);
        // SAFETY: `map`'s contract: `len` bytes, 8-aligned, freed by the
        // global allocator (this binary's tests run under `HugePages`).
        let mut v: Vec<u64> = unsafe { Vec::from_raw_parts(p.as_ptr().cast(), len / 8, len / 8) };
        let seen: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!(seen, &bytes[104..104 + len]);
        // A write stays in the process.
        v[0] = u64::MAX;
        let on_disk = std::fs::read(f.path()).expect("the file");
        assert_eq!(on_disk, bytes, "the file is unchanged");
        // Growing moves it into ordinary memory, contents kept.
        v.push(7);
        assert_eq!(v[0], u64::MAX);
        assert_eq!(v.last(), Some(&7));
        assert!(BLOCKS
            .iter()
            .all(|s| s.load(Ordering::Acquire) != p.as_ptr() as usize));
        drop(v);
        // Refused: too small, misaligned.
        assert!(FileBlocks.map(f.as_file(), 0, SMALLEST - 8, 8).is_none());
        assert!(FileBlocks.map(f.as_file(), 4, len, 8).is_none());
    }

    #[test]
    fn a_freed_block_leaves_the_table() {
        let len = SMALLEST;
        let mut f = tempfile::tempfile().expect("a temporary file");
        f.write_all(&vec![5u8; len]).expect("written");
        let p = FileBlocks.map(&f, 0, len, 4).expect("mapped");
        assert!(BLOCKS
            .iter()
            .any(|s| s.load(Ordering::Acquire) == p.as_ptr() as usize));
        // SAFETY: as above, `len / 4` values of 4 bytes.
        let v: Vec<i32> = unsafe { Vec::from_raw_parts(p.as_ptr().cast(), len / 4, len / 4) };
        assert!(v.iter().all(|&x| x == 0x0505_0505));
        drop(v);
        assert!(BLOCKS
            .iter()
            .all(|s| s.load(Ordering::Acquire) != p.as_ptr() as usize));
    }

    #[test]
    fn an_archive_spf_wrote_is_read_in_the_files_pages() {
        use synth::instance::{Instance, Values};
        use synth::npz::{read_npz_file, write_npz};
        let d = synth::builtin::load_format("csr").expect("built-in");
        let n = 400_000i64;
        let inst = Instance {
            format: "CSR".into(),
            symbols: [("NR", n), ("NC", n), ("NNZ", n)]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            arrays: [
                ("rowptr".to_string(), Values::Int((0..=n).collect())),
                ("col".to_string(), Values::Int((0..n).rev().collect())),
                (
                    "A".to_string(),
                    Values::Real((0..n).map(|i| i as f64 * 0.25 + 1.0).collect()),
                ),
            ]
            .into_iter()
            .collect(),
            index_width: None,
            value_type: Default::default(),
        };
        let f = tempfile::NamedTempFile::new().expect("a temporary file");
        write_npz(&d, &inst, std::io::BufWriter::new(f.as_file())).expect("written");
        let placed = read_npz_file(f.path(), &d, Some(&FileBlocks)).expect("read in place");
        let copied = read_npz_file(f.path(), &d, None).expect("read");
        assert_eq!(placed, copied);
        assert_eq!(placed.arrays["A"], inst.arrays["A"]);
        let start = |v: &Values| match v {
            Values::Int32(v) => v.as_ptr() as *mut u8,
            Values::Int(v) => v.as_ptr() as *mut u8,
            Values::Real(v) => v.as_ptr() as *mut u8,
            Values::Real32(v) => v.as_ptr() as *mut u8,
        };
        let held: Vec<*mut u8> = ["rowptr", "col", "A"]
            .map(|k| start(&placed.arrays[k]))
            .into();
        assert!(held.iter().all(|&p| holds(p)), "held in the file's pages");
        assert!(["rowptr", "col", "A"]
            .iter()
            .all(|k| !holds(start(&copied.arrays[*k]))));
        drop(placed);
        assert!(held.iter().all(|&p| !holds(p)), "unmapped when dropped");
    }
}
