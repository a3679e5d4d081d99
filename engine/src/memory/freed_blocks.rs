//! Large blocks the `spf` process freed, kept to be handed out again
//! instead of fresh memory.
//!
//! A block fresh from the kernel costs a page fault and the zeroing of
//! every page on first touch, and on a virtual machine whose host takes
//! back free memory (virtio-balloon's free page reporting hands the host
//! every free 2 MiB block after a few seconds) a fault on the host too: on
//! this project's machines ecology1's COO → CSR conversion took 0.10 s
//! with its blocks' pages still in memory and 0.25 s after they had been
//! reported. `spf convert` frees large blocks and then allocates others of
//! about their size: the duplicate check's keys before the conversion's
//! words, the runtime's sort words before the result's values. Kept here,
//! the pages of the first serve the second.
//!
//! A block is kept when it is [`LARGE`] bytes or more, a slot is free and
//! the blocks kept stay under [`Held::limit`] bytes (an eighth of the
//! machine's memory): memory kept and never asked for again stays the
//! process's until it exits, which `spf`'s commands do after one
//! conversion, or until [`give_back`] (`spf convert` calls it before it
//! writes its output, whose page cache the kernel then fills from those
//! pages). It is handed out for a request of at least half its size
//! (the smallest that fits), so a small request does not take a block a
//! later large one could use.
//!
//! Blocks are the C library's (`malloc`): kept and handed out by address
//! and usable size (`malloc_usable_size`), freed with `free`. Only with
//! glibc on Linux; elsewhere nothing is kept.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, Ordering};

pub use super::LARGE;

/// How many blocks can be kept at once.
pub const SLOTS: usize = 16;

/// The blocks kept: address and usable size (0, 0 for a free slot), with
/// the bytes they hold and the most they may.
pub struct Held {
    blocks: [(usize, usize); SLOTS],
    bytes: usize,
    limit: usize,
}

impl Held {
    /// No block kept, at most `limit` bytes of them.
    pub const fn new(limit: usize) -> Held {
        Held {
            blocks: [(0, 0); SLOTS],
            bytes: 0,
            limit,
        }
    }

    /// The most bytes kept at once: an eighth of the machine's memory.
    pub fn limit() -> usize {
        // SAFETY: sysconf has no preconditions.
        let (pages, page) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        match (usize::try_from(pages), usize::try_from(page)) {
            (Ok(pages), Ok(page)) => pages.saturating_mul(page) / 8,
            _ => 0,
        }
    }

    /// Keeps the block at `p` of `usable` bytes; false (the caller frees
    /// it) when it is small, no slot is free or the limit would be passed.
    pub fn put(&mut self, p: usize, usable: usize) -> bool {
        if p == 0 || usable < LARGE || self.bytes.saturating_add(usable) > self.limit {
            return false;
        }
        let Some(slot) = self.blocks.iter_mut().find(|(q, _)| *q == 0) else {
            return false;
        };
        *slot = (p, usable);
        self.bytes += usable;
        true
    }

    /// The smallest block kept of `size` bytes or more and at most twice
    /// that (no longer kept): its address and usable size.
    pub fn take(&mut self, size: usize) -> Option<(usize, usize)> {
        if size < LARGE {
            return None;
        }
        let (slot, _) = self
            .blocks
            .iter()
            .enumerate()
            .filter(|(_, &(p, usable))| p != 0 && usable >= size && usable / 2 <= size)
            .min_by_key(|(_, &(_, usable))| usable)?;
        let block = std::mem::take(&mut self.blocks[slot]);
        self.bytes -= block.1;
        Some(block)
    }

    /// The addresses of every block kept (0 for a free slot), no longer
    /// kept.
    pub fn take_all(&mut self) -> [usize; SLOTS] {
        self.bytes = 0;
        std::mem::replace(&mut self.blocks, [(0, 0); SLOTS]).map(|(p, _)| p)
    }
}

/// The process's [`Held`] blocks behind a spin lock (an allocator cannot
/// take a lock that allocates; the lock is held for a scan of
/// [`SLOTS`]).
struct Shared {
    lock: AtomicBool,
    held: UnsafeCell<Option<Held>>,
}

// SAFETY: `held` is only reached with `lock` taken (`Shared::with`).
unsafe impl Sync for Shared {}

static SHARED: Shared = Shared::new();

impl Shared {
    /// No block kept (the limit is read on first use).
    const fn new() -> Shared {
        Shared {
            lock: AtomicBool::new(false),
            held: UnsafeCell::new(None),
        }
    }

    /// `f` of the kept blocks, the lock held (`f` does not panic: it only
    /// scans the slots).
    fn with<R>(&self, f: impl FnOnce(&mut Held) -> R) -> R {
        while self
            .lock
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            std::hint::spin_loop();
        }
        // SAFETY: the lock is held: no other reference to `held` exists.
        let held = unsafe { &mut *self.held.get() }.get_or_insert_with(|| Held::new(Held::limit()));
        let r = f(held);
        self.lock.store(false, Ordering::Release);
        r
    }

    /// [`obtain`] from these blocks.
    fn obtain(&self, size: usize, zeroed: bool) -> *mut u8 {
        if !cfg!(all(target_os = "linux", target_env = "gnu")) || size < LARGE {
            return std::ptr::null_mut();
        }
        match self.with(|held| held.take(size)) {
            Some((p, _)) => {
                let p = p as *mut u8;
                if zeroed {
                    // SAFETY: the block holds `size` bytes or more and is
                    // no longer kept: the caller's alone.
                    unsafe { std::ptr::write_bytes(p, 0, size) };
                }
                p
            }
            None => std::ptr::null_mut(),
        }
    }

    /// [`keep`] among these blocks.
    ///
    /// # Safety
    ///
    /// As [`keep`].
    unsafe fn keep(&self, p: *mut u8) -> bool {
        // SAFETY: the caller's contract.
        match unsafe { usable_size(p) } {
            Some(usable) if !p.is_null() && usable >= LARGE => {
                self.with(|held| held.put(p as usize, usable))
            }
            _ => false,
        }
    }

    /// [`give_back`] these blocks.
    fn give_back(&self) {
        let blocks = self.with(Held::take_all);
        for p in blocks.into_iter().filter(|&p| p != 0) {
            // SAFETY: a block of the C library's that was kept, and so no
            // one else's; it is no longer kept.
            unsafe { libc::free(p as *mut libc::c_void) };
        }
    }
}

/// A kept block of `size` bytes or more (the first `size` zeroed when
/// `zeroed`), or null when none fits: the caller allocates a fresh one.
/// Freed with the C library's `free` or [`release`].
pub fn obtain(size: usize, zeroed: bool) -> *mut u8 {
    SHARED.obtain(size, zeroed)
}

/// Keeps the C library's block at `p` (true), or leaves it to the caller
/// to free (false: a small block, no room, or not glibc on Linux).
///
/// # Safety
///
/// `p` is null or a live block of the C library's allocator that the
/// caller owns and no longer uses once this returns true.
pub unsafe fn keep(p: *mut u8) -> bool {
    // SAFETY: the caller's contract.
    unsafe { SHARED.keep(p) }
}

/// Frees the C library's block at `p`: kept when [`keep`] takes it, else
/// given back with `free`.
///
/// # Safety
///
/// As [`keep`]: `p` is null or a live block of the C library's that the
/// caller owns and does not use after.
pub unsafe fn release(p: *mut u8) {
    // SAFETY: forwarded under the caller's contract.
    if !unsafe { keep(p) } {
        // SAFETY: the caller's block, not kept.
        unsafe { libc::free(p.cast()) };
    }
}

/// Gives every block kept back to the C library (and so to the kernel):
/// for a step whose memory comes from the kernel rather than from spf's
/// allocator (a file's pages in the page cache when it is written), which
/// then reuses pages already in memory.
pub fn give_back() {
    SHARED.give_back();
}

/// The usable size of the C library's block at `p` (what [`obtain`]'s
/// blocks may hold beyond their request); `None` where it is not known.
///
/// # Safety
///
/// `p` is null (0 bytes) or a live block of the C library's.
pub unsafe fn usable_size(p: *mut u8) -> Option<usize> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: the caller's contract.
        Some(unsafe { libc::malloc_usable_size(p.cast()) })
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        let _ = p;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1 << 20;

    #[test]
    fn the_smallest_block_that_fits_is_handed_out() {
        let mut held = Held::new(usize::MAX);
        assert!(held.put(0x1000, 40 * MIB));
        assert!(held.put(0x2000, 20 * MIB));
        assert!(held.put(0x3000, 8 * MIB));
        assert_eq!(held.take(19 * MIB), Some((0x2000, 20 * MIB)));
        // The 40 MiB block is more than twice 8 MiB's request; the 8 MiB
        // block fits it.
        assert_eq!(held.take(8 * MIB), Some((0x3000, 8 * MIB)));
        assert_eq!(held.take(8 * MIB), None);
        assert_eq!(held.take(41 * MIB), None);
        assert_eq!(held.take(20 * MIB), Some((0x1000, 40 * MIB)));
        assert_eq!(held.take(20 * MIB), None);
        assert_eq!(held.bytes, 0);
    }

    #[test]
    fn small_blocks_extra_blocks_and_blocks_over_the_limit_are_not_kept() {
        let mut held = Held::new(100 * MIB);
        assert!(!held.put(0x1000, LARGE - 1));
        assert!(held.take(LARGE - 1).is_none());
        assert!(held.put(0x1000, 60 * MIB));
        assert!(!held.put(0x2000, 41 * MIB), "over the limit");
        assert!(held.put(0x2000, 40 * MIB));
        let mut all = Held::new(usize::MAX);
        for slot in 0..SLOTS {
            assert!(all.put(0x1000 * (slot + 1), LARGE));
        }
        assert!(!all.put(0x100_0000, LARGE), "every slot is taken");
        assert!(all.take(LARGE).is_some());
        assert!(all.put(0x100_0000, LARGE), "a slot was freed");
    }

    #[test]
    fn every_block_is_taken_at_once_to_be_given_back() {
        let mut held = Held::new(usize::MAX);
        assert!(held.put(0x1000, 8 * MIB));
        assert!(held.put(0x2000, 9 * MIB));
        let mut all: Vec<usize> = held.take_all().into_iter().filter(|&p| p != 0).collect();
        all.sort_unstable();
        assert_eq!(all, [0x1000, 0x2000]);
        assert_eq!(held.bytes, 0);
        assert_eq!(held.take(8 * MIB), None);
        assert!(held.take_all().iter().all(|&p| p == 0));
    }

    #[test]
    fn the_limit_is_a_part_of_the_machine() {
        let limit = Held::limit();
        assert!(limit >= 16 * MIB, "{limit}");
    }

    /// A real block kept and handed out again: the same address, zeroed
    /// on request; given back, it is no longer kept. (A table of the
    /// test's own: the process's is the allocator's, which the tests
    /// running beside this one use.)
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn a_kept_block_is_obtained_again_zeroed_until_given_back() {
        let shared = Shared::new();
        let size = 5 * MIB + 8;
        // SAFETY: blocks of the C library's, written within their size,
        // kept or freed once; the obtained block is read within `size`.
        unsafe {
            let p = libc::malloc(size).cast::<u8>();
            assert!(!p.is_null());
            std::ptr::write_bytes(p, 0xab, size);
            assert!(shared.keep(p));
            let q = shared.obtain(size, true);
            assert_eq!(q, p);
            assert!(std::slice::from_raw_parts(q, size).iter().all(|&b| b == 0));
            assert!(shared.obtain(size, false).is_null(), "handed out once");
            assert!(shared.keep(q));
            shared.give_back();
            assert!(shared.obtain(size, false).is_null(), "given back");
            let small = libc::malloc(LARGE / 2).cast::<u8>();
            assert!(!shared.keep(small));
            libc::free(small.cast());
            assert!(!shared.keep(std::ptr::null_mut()));
        }
        assert!(shared.obtain(LARGE - 1, false).is_null());
    }
}
