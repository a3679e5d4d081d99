//! The `spf` process's allocator: the system's, with every block of
//! [`LARGE`] bytes or more marked for transparent huge pages
//! (`madvise(MADV_HUGEPAGE)`) before it is first touched, and kept for
//! reuse when it is freed ([`super::freed_blocks`]).
//!
//! `spf convert` fills arrays of tens of megabytes that the kernel maps a
//! 4 KiB page at a time on first touch: about 2.3 µs a page on this
//! project's machines, 16 ms for the 28 MB of a 2.4-million-entry matrix,
//! paid once for the arrays read and once for the arrays converted. In
//! 2 MiB pages the same 28 MB cost 4–8 ms. Linux's default
//! (`transparent_hugepage/enabled` = `madvise`) gives huge pages only to
//! memory marked so; the mark changes nothing but the page size, and where
//! the kernel has no huge pages (or another system no `madvise`), blocks
//! are what the system allocator gives.
//!
//! On a virtual machine that hands free memory back to its host
//! (virtio-balloon's free page reporting), a 2 MiB page freed seconds
//! before is faulted in on the host too: 0.5–0.7 GB/s on this project's
//! machines, against 1.5–2.3 GB/s for 4 KiB pages (taken from the smaller
//! free blocks, which the host leaves alone) and 12 GB/s for a 2 MiB page
//! freed just before. spf keeps huge pages, the fast case wherever memory
//! stays the guest's, and avoids the slow one where it can: freed blocks
//! are reused ([`super::freed_blocks`]) and a compiled conversion's are
//! faulted in on a second processor ([`super::prefault`]).
//!
//! A marked block's first touch makes the kernel find a free 2 MiB page,
//! compacting memory on the spot when none is free (the default `defrag`
//! setting, `madvise`, does so for marked memory): on a fragmented machine
//! that stall would cost more than the faults saved. So a block is marked
//! only when `/proc/buddyinfo` shows free blocks of 2 MiB or more for all
//! its huge pages (read with the C library into a buffer on the stack: an
//! allocator must not allocate).

use std::alloc::{GlobalAlloc, Layout, System};

use super::{file_blocks, freed_blocks, LARGE};

/// The size and alignment of a huge page on x86-64 and arm64 (with 4 KiB
/// base pages): marks cover whole ones.
const HUGE_PAGE: usize = 2 << 20;

/// The system allocator, with large blocks marked for huge pages.
pub struct HugePages;

/// Marks the whole huge pages inside `len` bytes at `p` (nothing for a
/// small or failed block, or when the kernel has fewer free huge pages; a
/// mark the kernel refuses is ignored: the block stays in base pages).
/// Also what compiled conversions' own large blocks get
/// ([`crate::native`]).
pub fn mark(p: *mut u8, len: usize) {
    #[cfg(target_os = "linux")]
    if let Some((start, end)) = marked_range(p, len, free_huge_pages) {
        // SAFETY: [start, end) lies inside the block just allocated, which
        // this process owns; the advice changes page sizes, not contents.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (p, len);
}

/// The addresses [start, end) [`mark`] marks in `len` bytes at `p`: the
/// whole huge pages inside a large block, when `free` (the kernel's free
/// huge pages, asked only then) counts at least as many; `None` for a
/// small or failed block, one without a whole huge page, or too few free.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn marked_range(
    p: *mut u8,
    len: usize,
    free: impl FnOnce() -> Option<u64>,
) -> Option<(usize, usize)> {
    if p.is_null() || len < LARGE {
        return None;
    }
    let start = (p as usize).next_multiple_of(HUGE_PAGE);
    let end = (p as usize + len) / HUGE_PAGE * HUGE_PAGE;
    let pages = ((end - start) / HUGE_PAGE) as u64;
    (end > start && free().is_some_and(|f| f >= pages)).then_some((start, end))
}

/// The free blocks of 2 MiB the kernel's buddy allocator holds, counting a
/// larger free block as the 2 MiB blocks in it (`/proc/buddyinfo`: per
/// zone, the free blocks of order 0, 1, ..., a block of order 9 being
/// 2 MiB of 4 KiB pages); `None` when the file cannot be read or parsed.
#[cfg(target_os = "linux")]
fn free_huge_pages() -> Option<u64> {
    let mut buf = [0u8; 4096];
    // SAFETY: the path is a NUL-terminated literal; `read` writes at most
    // `buf.len()` bytes into `buf`; the descriptor is closed once.
    let n = unsafe {
        let fd = libc::open(
            c"/proc/buddyinfo".as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return None;
        }
        let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
        libc::close(fd);
        n
    };
    let text = std::str::from_utf8(buf.get(..usize::try_from(n).ok()?)?).ok()?;
    huge_pages_in(text)
}

/// [`free_huge_pages`] of the text of `/proc/buddyinfo`.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn huge_pages_in(buddyinfo: &str) -> Option<u64> {
    let mut free = 0u64;
    for line in buddyinfo.lines().filter(|l| !l.trim().is_empty()) {
        // "Node 0, zone   Normal  29207 18108 ...": the counts follow the
        // zone's name.
        let (_, counts) = line.split_once("zone")?;
        for (order, count) in counts.split_whitespace().skip(1).enumerate() {
            let count: u64 = count.parse().ok()?;
            if order >= 9 {
                free = free.saturating_add(count.saturating_mul(1 << (order - 9).min(20)));
            }
        }
    }
    Some(free)
}

/// A block of `size` bytes or more of the C library's (`malloc`'s
/// alignment), its first `size` bytes zeroed when `zeroed`: one the
/// process freed and kept ([`freed_blocks::obtain`]), else a new one
/// marked for huge pages ([`mark`]); null when none can be made. What the
/// allocator gives a large request, and a compiled conversion's runtime
/// its own large blocks ([`crate::native`]).
pub fn large_block(size: usize, zeroed: bool) -> *mut u8 {
    let kept = freed_blocks::obtain(size, zeroed);
    if !kept.is_null() {
        return kept;
    }
    // SAFETY: plain allocations of the C library's.
    let p = unsafe {
        if zeroed {
            libc::calloc(1, size)
        } else {
            libc::malloc(size)
        }
    }
    .cast::<u8>();
    mark(p, size);
    p
}

/// Whether blocks of `layout` can be kept and handed out again
/// ([`freed_blocks`]): large ones of the C library's `malloc`, whose
/// alignment (16 on 64-bit targets) `System` asks no more of.
fn reusable(layout: Layout) -> bool {
    layout.size() >= LARGE && layout.align() <= 16
}

/// Whether the block of `layout` at `p` is a file's pages
/// ([`super::file_blocks`]), which is then forgotten: only large blocks
/// are looked up.
fn mapped(p: *mut u8, layout: Layout) -> bool {
    layout.size() >= file_blocks::SMALLEST && file_blocks::take(p)
}

// SAFETY: every call is forwarded to `System` with the same arguments,
// but those about a file's pages (`file_blocks`: freed by unmapping,
// reallocated by copying into a block of `System`'s) and large blocks of
// `malloc`'s alignment, which are the C library's as `System`'s are
// (`large_block`: a kept block handed out whole to one request that
// fits it, zeroed when asked, or a new one; freed ones kept by
// `freed_blocks`, no longer the caller's); `mark` only advises the
// kernel on memory just handed out.
/// The layout [`installed`] allocates to find out whether the allocator
/// serving it is [`HugePages`] (a size and alignment no other allocation
/// of spf's asks for together).
const PROBE: (usize, usize) = (3, 64);

/// Set when [`HugePages`] served a [`PROBE`] allocation.
static PROBED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether [`HugePages`] is the process's global allocator (the `spf`
/// binary installs it; a program using the library may or may not).
/// What only it makes sound (blocks of a file's pages freed by unmapping,
/// [`super::file_blocks`]) is used only when this holds.
pub fn installed() -> bool {
    static ANSWER: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ANSWER.get_or_init(|| {
        let (size, align) = PROBE;
        if let Ok(layout) = Layout::from_size_align(size, align) {
            // SAFETY: the layout's size is not zero; the block is freed at once.
            unsafe {
                let p = std::alloc::alloc(layout);
                if !p.is_null() {
                    std::alloc::dealloc(p, layout);
                }
            }
        }
        PROBED.load(std::sync::atomic::Ordering::Acquire)
    })
}

unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if (layout.size(), layout.align()) == PROBE {
            PROBED.store(true, std::sync::atomic::Ordering::Release);
        }
        if reusable(layout) {
            return large_block(layout.size(), false);
        }
        // SAFETY: forwarded under the caller's contract.
        let p = unsafe { System.alloc(layout) };
        mark(p, layout.size());
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if reusable(layout) {
            return large_block(layout.size(), true);
        }
        // SAFETY: forwarded under the caller's contract.
        let p = unsafe { System.alloc_zeroed(layout) };
        mark(p, layout.size());
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        if mapped(p, layout) {
            // SAFETY: a block `file_blocks` mapped, freed by the caller.
            unsafe { file_blocks::unmap(p, layout) };
            return;
        }
        // SAFETY: a block of `System`'s, which with this layout is the C
        // library's `malloc`'s, freed by the caller.
        if reusable(layout) && unsafe { freed_blocks::keep(p) } {
            return;
        }
        // SAFETY: forwarded under the caller's contract.
        unsafe { System.dealloc(p, layout) }
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.size() >= file_blocks::SMALLEST && file_blocks::holds(p) {
            // SAFETY: `new_size` is not zero and fits `layout`'s alignment
            // (the caller's contract).
            let q =
                unsafe { self.alloc(Layout::from_size_align_unchecked(new_size, layout.align())) };
            if !q.is_null() {
                // SAFETY: both blocks hold the bytes copied; the mapped one
                // is not used after (one owner: the table still has it).
                unsafe {
                    std::ptr::copy_nonoverlapping(p, q, layout.size().min(new_size));
                    if file_blocks::take(p) {
                        file_blocks::unmap(p, layout);
                    }
                }
            }
            // A failed allocation leaves the block as it was, mapped.
            return q;
        }
        // SAFETY: forwarded under the caller's contract.
        let q = unsafe { System.realloc(p, layout, new_size) };
        mark(q, new_size);
        q
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `VmFlags` of the mapping of `/proc/self/smaps` that holds `p`.
    #[cfg(target_os = "linux")]
    fn flags_at(p: usize) -> Option<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let head = line.split_whitespace().next().unwrap_or_default();
            if let Some((a, b)) = head.split_once('-') {
                if let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
                {
                    inside = a <= p && p < b;
                    continue;
                }
            }
            if inside {
                if let Some(flags) = line.strip_prefix("VmFlags:") {
                    return Some(flags.to_string());
                }
            }
        }
        None
    }

    #[test]
    fn free_huge_pages_are_counted_from_buddyinfo() {
        let text = "Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3 \n\
                    Node 0, zone    DMA32   1009   1256    845    608    380    155     66     28     14     18    709 \n\
                    Node 0, zone   Normal  29207  18108  11133   3098    747    386   4292   2476   1022    742   1846 \n";
        // Order 9 counts once, order 10 twice: (1 + 2·3) + (18 + 2·709) +
        // (742 + 2·1846).
        assert_eq!(huge_pages_in(text), Some(7 + 1436 + 4434));
        assert_eq!(huge_pages_in("Node 0, zone Normal 1 2 x\n"), None);
        assert_eq!(huge_pages_in("garbage\n"), None);
        assert_eq!(huge_pages_in(""), Some(0));
    }

    /// The range marked, with the kernel's free huge pages given: the
    /// whole huge pages inside a large block when as many are free, else
    /// none, and the kernel is not asked about a small block.
    #[test]
    fn large_blocks_are_marked_where_enough_huge_pages_are_free() {
        // A block starting 4 KiB past a huge page, of 3 * LARGE bytes: the
        // huge pages from the next boundary to the last inside it.
        let p = (64 * HUGE_PAGE + 4096) as *mut u8;
        let len = 3 * LARGE;
        let (start, end) = (65 * HUGE_PAGE, 70 * HUGE_PAGE);
        assert_eq!(marked_range(p, len, || Some(5)), Some((start, end)));
        assert_eq!(marked_range(p, len, || Some(1000)), Some((start, end)));
        assert_eq!(marked_range(p, len, || Some(4)), None, "too few free");
        assert_eq!(marked_range(p, len, || None), None, "no buddyinfo");
        let aligned = (64 * HUGE_PAGE) as *mut u8;
        assert_eq!(
            marked_range(aligned, LARGE, || Some(2)),
            Some((64 * HUGE_PAGE, 66 * HUGE_PAGE))
        );
        let asked = std::cell::Cell::new(false);
        let ask = || {
            asked.set(true);
            Some(1000)
        };
        assert_eq!(marked_range(p, LARGE - 1, ask), None, "small");
        assert_eq!(marked_range(std::ptr::null_mut(), len, ask), None, "null");
        assert!(!asked.get(), "the kernel is asked about large blocks only");
    }

    #[test]
    fn large_blocks_are_marked_and_small_ones_are_not() {
        let large = Layout::from_size_align(3 * LARGE, 8).expect("a layout");
        let small = Layout::from_size_align(4096, 8).expect("a layout");
        // SAFETY: the layouts' sizes are not zero; each block is freed
        // with its layout.
        unsafe {
            let p = HugePages.alloc_zeroed(large);
            assert!(!p.is_null());
            assert_eq!(*p.add(3 * LARGE - 1), 0, "zeroed");
            let q = HugePages.realloc(p, large, 4 * LARGE);
            assert!(!q.is_null());
            let s = HugePages.alloc(small);
            #[cfg(target_os = "linux")]
            {
                // A kernel with huge pages to spare takes the mark: `hg` in
                // the flags of the mapping at the block's middle. That part
                // is this machine's (the range marked is checked above on
                // any).
                let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
                    .unwrap_or_default();
                let free = free_huge_pages();
                let lacks = if !thp.contains('[') || thp.contains("[never]") {
                    Some(format!("transparent huge pages (enabled: {})", thp.trim()))
                } else if free.is_none_or(|f| f < 8) {
                    Some(format!("8 free huge pages (/proc/buddyinfo: {free:?})"))
                } else {
                    None
                };
                if crate::report::host_has("the kernel's mark on a large block", lacks) {
                    let middle = q as usize + 2 * LARGE;
                    let flags = flags_at(middle).expect("the block's mapping");
                    assert!(flags.split_whitespace().any(|f| f == "hg"), "{flags}");
                }
            }
            HugePages.dealloc(s, small);
            HugePages.dealloc(q, Layout::from_size_align(4 * LARGE, 8).expect("a layout"));
        }
    }
}
