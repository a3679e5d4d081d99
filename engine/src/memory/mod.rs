//! The memory a conversion uses: large blocks in transparent huge pages
//! ([`huge_pages`], the allocator the `spf` binary installs), freed
//! blocks kept for reuse ([`freed_blocks`]), blocks mapped from the files
//! read in place ([`file_blocks`]), and compiled conversions' blocks
//! faulted in on a second processor ([`prefault`]). docs/native.md tells
//! why each exists and what it measured.

pub mod file_blocks;
pub mod freed_blocks;
pub mod huge_pages;
pub mod prefault;

/// The fewest bytes of a block marked for huge pages: two of them, so
/// that at least one whole 2 MiB page lies inside.
pub const LARGE: usize = 4 << 20;

/// The size of a base page (4 KiB where `sysconf` cannot say): what
/// `madvise` and `mmap` take whole ranges of.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(p).ok().filter(|&p| p > 0).unwrap_or(4096)
}
