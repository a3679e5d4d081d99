//! Fresh blocks faulted in on a helper thread while their owner fills
//! them.
//!
//! A compiled conversion runs on one thread, and much of its time on a
//! large input is the kernel's: the first touch of each page of the blocks
//! it fills (its sort's words, its results) faults and zeroes the page,
//! and on a virtual machine whose host has taken the free memory back
//! (virtio-balloon's free page reporting) faults on the host too. Meanwhile
//! the machine's other processors idle. A [`Prefaulter`] hands each large
//! block it is shown to a thread of its own, which asks the kernel to fault
//! its pages in (`madvise(MADV_POPULATE_WRITE)`, Linux 5.14 or later), 2
//! MiB at a time from the block's end, while the owner writes from its
//! start: each page is faulted once, by whichever thread comes first. On
//! this project's machines ecology1's COO → CSR conversion took 0.17–0.21 s
//! so, instead of 0.23–0.31 s, with memory the host had taken back.
//!
//! Populating changes no byte (a page present is left as it is, a missing
//! one is mapped zeroed, as a first write would), so the owner's writes
//! race with nothing. A block must not be populated once it is freed (its
//! addresses could then hold another mapping, a file's, whose private
//! pages populating would copy): [`Prefaulter::forget`] takes a block
//! back, waiting for a populate call in progress on it to end, and the
//! owner calls it before freeing the block.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;

use super::huge_pages::page_size;

/// The bytes populated by one call: a huge page.
const STEP: usize = 2 << 20;

/// What the helper thread and the owner share.
#[derive(Default)]
struct State {
    /// Blocks waiting, as (start, length).
    waiting: Vec<(usize, usize)>,
    /// The block the helper is populating.
    current: Option<(usize, usize)>,
    /// Whether the helper is inside a populate call on `current`.
    in_call: bool,
    /// Whether the owner has ended the helper's work.
    stop: bool,
}

/// A helper thread that faults in the blocks it is shown ([`Prefaulter::add`])
/// until it is dropped (which waits for the thread). The thread starts
/// with the first block shown: a conversion with no large block starts
/// none.
pub struct Prefaulter {
    shared: Arc<(Mutex<State>, Condvar)>,
    /// The helper, once a block was shown: none where the kernel cannot
    /// populate memory (not Linux), on a single processor (the helper
    /// would only take the owner's turns) or when no thread can be
    /// started.
    helper: OnceLock<Option<JoinHandle<()>>>,
}

impl Prefaulter {
    /// No block shown, no thread started yet.
    pub fn new() -> Prefaulter {
        Prefaulter {
            shared: Arc::new((Mutex::new(State::default()), Condvar::new())),
            helper: OnceLock::new(),
        }
    }

    /// Whether a helper runs, started now if it is the first time.
    fn helping(&self) -> bool {
        self.helper
            .get_or_init(|| {
                let processors = std::thread::available_parallelism().map_or(1, |n| n.get());
                if !cfg!(target_os = "linux") || processors < 2 {
                    return None;
                }
                let theirs = Arc::clone(&self.shared);
                std::thread::Builder::new()
                    .name("spf-prefault".into())
                    .spawn(move || populate_blocks(&theirs))
                    .ok()
            })
            .is_some()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.shared.0)
    }

    /// Shows the helper `len` bytes at `p`, a block its owner is about to
    /// fill (nothing for a null block or without a helper).
    pub fn add(&self, p: *mut u8, len: usize) {
        if p.is_null() || len == 0 || !self.helping() {
            return;
        }
        self.state().waiting.push((p as usize, len));
        self.shared.1.notify_all();
    }

    /// Takes back the block at `p` (shown or not): once this returns, the
    /// helper does not touch it again.
    pub fn forget(&self, p: *mut u8) {
        let p = p as usize;
        let mut state = self.state();
        state.waiting.retain(|&(q, _)| q != p);
        if state.current.is_some_and(|(q, _)| q == p) {
            state.current = None;
            while state.in_call {
                state = wait(&self.shared.1, state);
            }
        }
    }

    /// Stops the helper and waits for it (after the populate call in
    /// progress, if any): no block is touched after this returns.
    pub fn finish(&mut self) {
        {
            let mut state = self.state();
            state.stop = true;
            state.waiting.clear();
            state.current = None;
        }
        self.shared.1.notify_all();
        if let Some(Some(helper)) = self.helper.take() {
            let _ = helper.join();
        }
    }
}

impl Drop for Prefaulter {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The lock of `m`, whether or not a thread panicked with it (the state
/// stays consistent: every change is one assignment).
fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn wait<'a>(c: &Condvar, g: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
    c.wait(g).unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The helper's loop: each block shown, from its end, a [`STEP`] per call,
/// as long as it stays shown; ends when the owner stops it or the kernel
/// refuses (then nothing more is populated).
fn populate_blocks(shared: &(Mutex<State>, Condvar)) {
    let (m, c) = shared;
    let mut state = lock(m);
    loop {
        while state.waiting.is_empty() && !state.stop {
            state = wait(c, state);
        }
        if state.stop {
            return;
        }
        let block = state.waiting.remove(0);
        state.current = Some(block);
        let (start, len) = block;
        let page = page_size();
        let (lo, mut hi) = (start.next_multiple_of(page), (start + len) / page * page);
        while hi > lo && state.current == Some(block) && !state.stop {
            let from = hi.saturating_sub(STEP).max(lo);
            state.in_call = true;
            drop(state);
            // SAFETY: [from, hi) lies in a block its owner has not freed:
            // `forget` waits while `in_call` is set. Populating writes no
            // byte.
            let refused = unsafe {
                libc::madvise(
                    from as *mut libc::c_void,
                    hi - from,
                    libc::MADV_POPULATE_WRITE,
                )
            } != 0;
            state = lock(m);
            state.in_call = false;
            c.notify_all();
            if refused {
                state.current = None;
                // An old kernel or no memory: the owner faults alone.
                state.stop = true;
                return;
            }
            hi = from;
        }
        if state.current == Some(block) {
            state.current = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether this kernel populates memory (`MADV_POPULATE_WRITE`, Linux
    /// 5.14): the tests that watch the helper work need it.
    #[cfg(target_os = "linux")]
    fn kernel_populates() -> bool {
        let len = page_size();
        let p = reserved(len);
        // SAFETY: the page just mapped, populated and unmapped.
        let ok = unsafe {
            let ok = libc::madvise(p.cast(), len, libc::MADV_POPULATE_WRITE) == 0;
            libc::munmap(p.cast(), len);
            ok
        };
        if !ok {
            eprintln!("this kernel does not populate memory: the helper does nothing here");
        }
        ok
    }

    /// The pages of a block the helper was shown are all present once it
    /// is done (`mincore`), those the owner did not write too, and the
    /// bytes the owner wrote meanwhile stay.
    #[cfg(target_os = "linux")]
    #[test]
    fn shown_blocks_are_faulted_in_and_keep_their_bytes() {
        if !kernel_populates() {
            return;
        }
        let page = page_size();
        let len = 8 << 20;
        let p = reserved(len);
        let prefaulter = Prefaulter::new();
        prefaulter.add(p, len);
        // The owner writes the first half's pages only.
        for k in (0..len / 2).step_by(page) {
            // SAFETY: within the mapping.
            unsafe { *p.add(k) = (k / page % 251) as u8 + 1 };
        }
        while prefaulter.state().current.is_some() || !prefaulter.state().waiting.is_empty() {
            std::thread::yield_now();
        }
        drop(prefaulter);
        assert_eq!(present(p, len), len / page);
        for k in (0..len).step_by(page) {
            let want = if k < len / 2 {
                (k / page % 251) as u8 + 1
            } else {
                0
            };
            // SAFETY: within the mapping.
            assert_eq!(unsafe { *p.add(k) }, want, "page {}", k / page);
        }
        // SAFETY: the mapping made above, unmapped once.
        unsafe { libc::munmap(p.cast(), len) };
    }

    /// An anonymous mapping of `len` bytes, reserved only (its pages are
    /// mapped when touched).
    #[cfg(target_os = "linux")]
    fn reserved(len: usize) -> *mut u8 {
        // SAFETY: a fresh anonymous mapping; the caller unmaps it.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED);
        p.cast()
    }

    /// How many of the `len` bytes' pages at `p` are present.
    #[cfg(target_os = "linux")]
    fn present(p: *mut u8, len: usize) -> usize {
        let mut pages = vec![0u8; len.div_ceil(page_size())];
        // SAFETY: `p` is a mapping of `len` bytes; `pages` has a byte for
        // each of its pages.
        assert_eq!(
            unsafe { libc::mincore(p.cast(), len, pages.as_mut_ptr()) },
            0
        );
        pages.iter().filter(|&&b| b & 1 == 1).count()
    }

    /// A block taken back while the helper populates it is left alone
    /// from then on, though most of it is still missing.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_block_forgotten_while_it_is_populated_is_left_alone() {
        if !kernel_populates() {
            return;
        }
        // 1 GiB: the helper is far from its start when it is forgotten.
        let len = 1 << 30;
        let p = reserved(len);
        let prefaulter = Prefaulter::new();
        prefaulter.add(p, len);
        while present(p, len) == 0 {
            std::thread::yield_now();
        }
        prefaulter.forget(p);
        let after = present(p, len);
        assert!(after < len / page_size(), "{after}");
        std::thread::sleep(std::time::Duration::from_millis(30));
        assert_eq!(present(p, len), after);
        drop(prefaulter);
        // SAFETY: the mapping made above, unmapped once.
        unsafe { libc::munmap(p.cast(), len) };
    }

    /// A block forgotten while it waits behind another is never touched,
    /// though the helper finishes the other one and goes on waiting.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_forgotten_waiting_block_is_not_touched() {
        if !kernel_populates() {
            return;
        }
        let (ahead_len, len) = (8 << 20, 64 << 20);
        // The helper could reach the block before `forget` when this
        // thread is held up between the calls: such a try proves nothing
        // and is made again.
        let mut proved = false;
        for _ in 0..5 {
            let (ahead, p) = (reserved(ahead_len), reserved(len));
            let prefaulter = Prefaulter::new();
            prefaulter.add(ahead, ahead_len);
            prefaulter.add(p, len);
            prefaulter.forget(p);
            if present(p, len) == 0 {
                while present(ahead, ahead_len) < ahead_len / page_size() {
                    std::thread::yield_now();
                }
                std::thread::sleep(std::time::Duration::from_millis(30));
                assert_eq!(present(p, len), 0);
                proved = true;
            }
            drop(prefaulter);
            // SAFETY: the mappings made above, unmapped once.
            unsafe {
                libc::munmap(p.cast(), len);
                libc::munmap(ahead.cast(), ahead_len);
            }
            if proved {
                break;
            }
        }
        assert!(
            proved,
            "the helper reached the block before it was forgotten, 5 times"
        );
    }
}
