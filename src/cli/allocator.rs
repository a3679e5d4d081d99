//! The `spf` process's allocator: the system's, with two things done to
//! blocks of [`LARGE`] bytes or more, the arrays of `spf convert`.
//!
//! **Huge pages.** A large block is marked for transparent huge pages
//! (`madvise(MADV_HUGEPAGE)`) before it is first touched. `spf convert`
//! fills arrays of tens of megabytes that the kernel maps a 4 KiB page at
//! a time on first touch: about 2.3 µs a page on this project's machines,
//! 16 ms for the 28 MB of a 2.4-million-entry matrix, paid once for the
//! arrays read and once for the arrays converted. In 2 MiB pages the same
//! 28 MB cost 4–8 ms. Linux's default (`transparent_hugepage/enabled` =
//! `madvise`) gives huge pages only to memory marked so; the mark changes
//! nothing but the page size, and where the kernel has no huge pages (or
//! another system no `madvise`), blocks are what the system allocator
//! gives.
//!
//! A marked block's first touch makes the kernel find a free 2 MiB page,
//! compacting memory on the spot when none is free (the default `defrag`
//! setting, `madvise`, does so for marked memory): on a fragmented machine
//! that stall would cost more than the faults saved. So a block is marked
//! only when `/proc/buddyinfo` shows free blocks of 2 MiB or more for all
//! its huge pages (read with the C library into a buffer on the stack: an
//! allocator must not allocate).
//!
//! **Reuse.** A freed large block is kept ([`KEPT_SLOTS`] of them, at most
//! [`KEPT_BYTES`] in all) and handed out again for the next large request
//! it fits (not more than twice its size, the smallest that fits). A
//! conversion frees arrays of the sizes it then allocates (the parsed
//! columns, the duplicate check's keys, the 64-bit copies narrowed to 32
//! bits, ...), and a page the process has touched once costs nothing to
//! touch again, where a fresh one costs a fault and the kernel's zeroing
//! (a third of `spf convert`'s time on a 2.4-million-entry matrix when the
//! virtual machine's host has to back the page too). A block handed out
//! zeroed is cleared with `memset`. Blocks are kept only while the process
//! runs; the operating system takes them back at its end.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;

/// The fewest bytes of a block marked for huge pages: two of them, so
/// that at least one whole 2 MiB page lies inside.
pub const LARGE: usize = 4 << 20;

/// The size and alignment of a huge page on x86-64 and arm64 (with 4 KiB
/// base pages): marks cover whole ones.
const HUGE_PAGE: usize = 2 << 20;

/// The most freed large blocks kept for reuse.
pub const KEPT_SLOTS: usize = 16;

/// The most bytes the kept blocks hold together.
pub const KEPT_BYTES: usize = 1 << 30;

/// The largest alignment a kept block serves: the system allocator's
/// own (`malloc`'s), so that every block is one `free` and `realloc` take
/// whatever size they are told.
const KEPT_ALIGN: usize = 16;

/// Whether a block of `layout` may be kept or served from the kept ones.
fn reusable(layout: Layout) -> bool {
    layout.size() >= LARGE && layout.align() <= KEPT_ALIGN
}

/// Freed large blocks kept for reuse: (address, usable bytes), an empty
/// slot at address 0.
struct KeptBlocks {
    slots: Mutex<[(usize, usize); KEPT_SLOTS]>,
}

impl KeptBlocks {
    const fn new() -> Self {
        KeptBlocks {
            slots: Mutex::new([(0, 0); KEPT_SLOTS]),
        }
    }

    /// The smallest kept block of `layout.size()` bytes or more (and at
    /// most twice as many), taken out of the kept ones; null when none
    /// fits.
    fn take(&self, layout: Layout) -> *mut u8 {
        if !reusable(layout) {
            return std::ptr::null_mut();
        }
        let want = layout.size();
        let mut kept = self
            .slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let best = (0..KEPT_SLOTS)
            .filter(|&k| kept[k].0 != 0 && kept[k].1 >= want && kept[k].1 / 2 <= want)
            .min_by_key(|&k| kept[k].1);
        match best {
            Some(k) => std::mem::take(&mut kept[k]).0 as *mut u8,
            None => std::ptr::null_mut(),
        }
    }

    /// Keeps the freed block `p` of `layout` for reuse; false when it is
    /// not large, or there is no room (the caller frees it then).
    fn keep(&self, p: *mut u8, layout: Layout) -> bool {
        if !reusable(layout) || p.is_null() {
            return false;
        }
        let mut kept = self
            .slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let held: usize = kept.iter().map(|&(_, n)| n).sum();
        if held + layout.size() > KEPT_BYTES {
            return false;
        }
        match kept.iter_mut().find(|slot| slot.0 == 0) {
            Some(slot) => {
                *slot = (p as usize, layout.size());
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
impl LargeBlocks {
    /// Frees the kept blocks (a test's own allocator, not the process's).
    fn release(&self) {
        let mut kept = self.kept.slots.lock().expect("the kept blocks");
        for (p, n) in kept.iter_mut().map(std::mem::take) {
            if p != 0 {
                let layout = Layout::from_size_align(n, KEPT_ALIGN).expect("a layout");
                // SAFETY: a kept block came from `System`, which frees it
                // with `free` whatever the size it is told.
                unsafe { System.dealloc(p as *mut u8, layout) };
            }
        }
    }
}

/// The system allocator, with large blocks marked for huge pages and
/// reused once freed.
pub struct LargeBlocks {
    kept: KeptBlocks,
}

impl LargeBlocks {
    /// An allocator that keeps no block yet.
    pub const fn new() -> Self {
        LargeBlocks {
            kept: KeptBlocks::new(),
        }
    }
}

impl Default for LargeBlocks {
    fn default() -> Self {
        Self::new()
    }
}

/// Marks the whole huge pages inside `len` bytes at `p` (nothing for a
/// small or failed block, or when the kernel has fewer free huge pages; a
/// mark the kernel refuses is ignored: the block stays in base pages).
fn mark(p: *mut u8, len: usize) {
    if p.is_null() || len < LARGE {
        return;
    }
    let start = (p as usize).next_multiple_of(HUGE_PAGE);
    let end = (p as usize + len) / HUGE_PAGE * HUGE_PAGE;
    #[cfg(target_os = "linux")]
    if end > start
        && free_huge_pages().is_some_and(|free| free >= ((end - start) / HUGE_PAGE) as u64)
    {
        // SAFETY: [start, end) lies inside the block just allocated, which
        // this process owns; the advice changes page sizes, not contents.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, end);
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

// SAFETY: every block comes from `System`: either just allocated with the
// caller's layout, or kept when freed and handed out for a layout of no
// more bytes and an alignment `malloc` gives anyway (so `free` and
// `realloc`, which ignore the size they are told, take it as any other);
// a kept block is owned by nothing else until it is handed out again.
// `mark` only advises the kernel on memory `System` handed out.
unsafe impl GlobalAlloc for LargeBlocks {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = self.kept.take(layout);
        if !p.is_null() {
            return p;
        }
        // SAFETY: forwarded under the caller's contract.
        let p = unsafe { System.alloc(layout) };
        mark(p, layout.size());
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = self.kept.take(layout);
        if !p.is_null() {
            // SAFETY: the kept block has at least `layout.size()` bytes.
            unsafe { std::ptr::write_bytes(p, 0, layout.size()) };
            return p;
        }
        // SAFETY: forwarded under the caller's contract.
        let p = unsafe { System.alloc_zeroed(layout) };
        mark(p, layout.size());
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        if self.kept.keep(p, layout) {
            return;
        }
        // SAFETY: forwarded under the caller's contract.
        unsafe { System.dealloc(p, layout) }
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
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

    #[test]
    fn large_blocks_are_marked_and_small_ones_are_not() {
        let large = Layout::from_size_align(3 * LARGE, 8).expect("a layout");
        let small = Layout::from_size_align(4096, 8).expect("a layout");
        // SAFETY: the layouts' sizes are not zero; each block is freed
        // with its layout.
        let a = LargeBlocks::new();
        unsafe {
            let p = a.alloc_zeroed(large);
            assert!(!p.is_null());
            assert_eq!(*p.add(3 * LARGE - 1), 0, "zeroed");
            let q = a.realloc(p, large, 4 * LARGE);
            assert!(!q.is_null());
            let s = a.alloc(small);
            #[cfg(target_os = "linux")]
            {
                let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
                    .unwrap_or_default();
                // A kernel with huge pages to spare takes the mark: `hg` in
                // the flags of the mapping at the block's middle.
                let spare = free_huge_pages().is_some_and(|f| f >= 8);
                if thp.contains('[') && !thp.contains("[never]") && spare {
                    let middle = q as usize + 2 * LARGE;
                    let flags = flags_at(middle).expect("the block's mapping");
                    assert!(flags.split_whitespace().any(|f| f == "hg"), "{flags}");
                }
            }
            a.dealloc(s, small);
            a.dealloc(q, Layout::from_size_align(4 * LARGE, 8).expect("a layout"));
        }
        a.release();
    }

    #[test]
    fn freed_large_blocks_are_reused_for_requests_they_fit() {
        let a = LargeBlocks::new();
        let layout = |n: usize| Layout::from_size_align(n, 8).expect("a layout");
        // SAFETY: every block is freed once, with the layout it was
        // allocated with; reads stay inside the blocks.
        unsafe {
            let p = a.alloc(layout(3 * LARGE));
            assert!(!p.is_null());
            std::ptr::write_bytes(p, 7, 3 * LARGE);
            a.dealloc(p, layout(3 * LARGE));
            // More than the kept block holds, or less than half of it: a
            // block of its own.
            let big = a.alloc(layout(3 * LARGE + 1));
            let small = a.alloc(layout(LARGE));
            assert_ne!(big, p);
            assert_ne!(small, p);
            // The kept block, zeroed, for a request it fits.
            let again = a.alloc_zeroed(layout(2 * LARGE));
            assert_eq!(again, p);
            assert!((0..2 * LARGE).step_by(4093).all(|k| *again.add(k) == 0));
            assert_eq!(*again.add(2 * LARGE - 1), 0);
            // Handed out once only.
            let other = a.alloc(layout(2 * LARGE));
            assert_ne!(other, p);
            for (q, n) in [
                (big, 3 * LARGE + 1),
                (small, LARGE),
                (again, 2 * LARGE),
                (other, 2 * LARGE),
            ] {
                a.dealloc(q, layout(n));
            }
            a.release();
            // Small blocks and over-aligned ones are never kept.
            assert!(!a
                .kept
                .keep(std::ptr::NonNull::<u8>::dangling().as_ptr(), layout(4096)));
            let aligned = Layout::from_size_align(LARGE, 4096).expect("a layout");
            assert!(!reusable(aligned));
        }
    }

    #[test]
    fn kept_blocks_are_bounded_in_number_and_bytes() {
        let kept = KeptBlocks::new();
        let layout = |n: usize| Layout::from_size_align(n, 8).expect("a layout");
        // Addresses only: nothing is dereferenced or freed here.
        for k in 0..KEPT_SLOTS {
            assert!(kept.keep((4096 * (k + 1)) as *mut u8, layout(LARGE)));
        }
        assert!(!kept.keep(4096 as *mut u8, layout(LARGE)), "no slot left");
        assert_eq!(
            kept.take(layout(LARGE)),
            4096 as *mut u8,
            "the first best fit"
        );
        assert!(
            !kept.keep(8 as *mut u8, layout(KEPT_BYTES)),
            "over the byte bound"
        );
        // The smallest block that fits is the one taken.
        let fits = KeptBlocks::new();
        assert!(fits.keep(64 as *mut u8, layout(4 * LARGE)));
        assert!(fits.keep(128 as *mut u8, layout(3 * LARGE)));
        assert_eq!(fits.take(layout(2 * LARGE)), 128 as *mut u8);
        assert_eq!(fits.take(layout(2 * LARGE)), 64 as *mut u8);
        assert!(fits.take(layout(2 * LARGE)).is_null());
    }
}
