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

use super::page_size;

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

/// The call that faults in the `len` bytes at address `from` (whole
/// pages), returning whether it did: the kernel's ([`kernel_populate`]),
/// or in tests a stand-in that records the calls.
type Populate = Arc<dyn Fn(usize, usize) -> bool + Send + Sync>;

/// A helper thread that faults in the blocks it is shown ([`Prefaulter::add`])
/// until it is dropped (which waits for the thread). The thread starts
/// with the first block shown: a conversion with no large block starts
/// none.
pub struct Prefaulter {
    shared: Arc<(Mutex<State>, Condvar)>,
    /// The helper, once a block was shown: none where `worth_it` says no
    /// or when no thread can be started.
    helper: OnceLock<Option<JoinHandle<()>>>,
    /// What the helper calls on each step of a block.
    populate: Populate,
    /// Whether a helper is worth starting here, asked at the first block.
    worth_it: fn() -> bool,
}

impl Default for Prefaulter {
    fn default() -> Prefaulter {
        Prefaulter::new()
    }
}

impl Prefaulter {
    /// No block shown, no thread started yet: the kernel populates, where
    /// a helper is worth it ([`worth_helping`]).
    pub fn new() -> Prefaulter {
        Prefaulter::with(Arc::new(kernel_populate), worth_helping)
    }

    fn with(populate: Populate, worth_it: fn() -> bool) -> Prefaulter {
        Prefaulter {
            shared: Arc::new((Mutex::new(State::default()), Condvar::new())),
            helper: OnceLock::new(),
            populate,
            worth_it,
        }
    }

    /// Whether a helper runs, started now if it is the first time.
    fn helping(&self) -> bool {
        self.helper
            .get_or_init(|| {
                if !(self.worth_it)() {
                    return None;
                }
                let theirs = Arc::clone(&self.shared);
                let populate = Arc::clone(&self.populate);
                std::thread::Builder::new()
                    .name("spf-prefault".into())
                    .spawn(move || populate_blocks(&theirs, &*populate))
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

/// Whether a helper is worth starting: not where the kernel cannot
/// populate memory (not Linux), nor on a single processor (the helper
/// would only take the owner's turns).
fn worth_helping() -> bool {
    let processors = std::thread::available_parallelism().map_or(1, |n| n.get());
    cfg!(target_os = "linux") && processors >= 2
}

/// Faults in the `len` bytes at `from` (`madvise(MADV_POPULATE_WRITE)`),
/// which must lie in a block its owner has not freed; whether the kernel
/// did (an old kernel, or one out of memory, refuses).
fn kernel_populate(from: usize, len: usize) -> bool {
    // SAFETY: the caller's range lies in a live block (`populate_blocks`:
    // `forget` waits while `in_call` is set). Populating writes no byte.
    unsafe { libc::madvise(from as *mut libc::c_void, len, libc::MADV_POPULATE_WRITE) == 0 }
}

/// The helper's loop: each block shown, from its end, a [`STEP`] per
/// `populate` call, as long as it stays shown; ends when the owner stops
/// it or a call is refused (then nothing more is populated).
fn populate_blocks(shared: &(Mutex<State>, Condvar), populate: &dyn Fn(usize, usize) -> bool) {
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
            // [from, hi) lies in a block its owner has not freed: `forget`
            // waits while `in_call` is set.
            let refused = !populate(from, hi - from);
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

    use std::time::Duration;

    use crate::report;

    /// What the calls of a stand-in for the kernel share: the calls made,
    /// as (start, length), in order, and a gate each call waits at until
    /// it is open.
    #[derive(Default)]
    struct Calls {
        made: Mutex<Vec<(usize, usize)>>,
        open: Mutex<bool>,
        changed: Condvar,
    }

    impl Calls {
        fn made(&self) -> Vec<(usize, usize)> {
            self.made.lock().unwrap().clone()
        }

        fn open(&self) {
            *self.open.lock().unwrap() = true;
            self.changed.notify_all();
        }

        /// Waits until `n` calls have been made, or [`PATIENCE`] has
        /// passed (the test's checks then fail, instead of waiting on).
        fn wait_for(&self, n: usize) {
            let made = self.made.lock().unwrap();
            let _ = self
                .changed
                .wait_timeout_while(made, PATIENCE, |made| made.len() < n)
                .unwrap();
        }
    }

    /// A prefaulter whose helper populates nothing: each call is recorded
    /// in `calls`, waits at its gate, and answers `answer` (whether the
    /// kernel populated). The blocks shown are only addresses: no memory
    /// is touched, so the logic runs on any machine.
    fn recording(calls: &Arc<Calls>, answer: bool) -> Prefaulter {
        let c = Arc::clone(calls);
        let populate = move |from: usize, len: usize| {
            c.made.lock().unwrap().push((from, len));
            c.changed.notify_all();
            let mut open = c.open.lock().unwrap();
            while !*open {
                open = c.changed.wait(open).unwrap();
            }
            answer
        };
        Prefaulter::with(Arc::new(populate), || true)
    }

    /// How long a test waits for the helper before its checks fail.
    const PATIENCE: Duration = Duration::from_secs(10);

    /// Waits until `done` holds of the helper's state, or [`PATIENCE`] has
    /// passed.
    fn wait_until(p: &Prefaulter, done: impl Fn(&State) -> bool) {
        let start = std::time::Instant::now();
        while !done(&p.state()) && start.elapsed() < PATIENCE {
            std::thread::yield_now();
        }
    }

    /// Waits until the helper has no block and is in no call.
    fn idle(p: &Prefaulter) {
        wait_until(p, |s| {
            s.current.is_none() && s.waiting.is_empty() && !s.in_call
        });
    }

    /// Each block is populated from its end, a [`STEP`] per call over its
    /// whole pages, the blocks in the order shown.
    #[test]
    fn blocks_are_populated_from_their_end_a_step_per_call() {
        let page = page_size();
        let calls = Arc::new(Calls::default());
        calls.open();
        let prefaulter = recording(&calls, true);
        assert!(
            prefaulter.helper.get().is_none(),
            "no thread before a block"
        );
        // A block starting inside a page: its whole pages are [lo, hi),
        // three steps and a page.
        let base = 64 * STEP;
        let (p, len) = (base + 100, 3 * STEP + 2 * page);
        let (lo, hi) = (base + page, base + 3 * STEP + 2 * page);
        prefaulter.add(p as *mut u8, len);
        prefaulter.add((128 * STEP) as *mut u8, STEP);
        calls.wait_for(5);
        idle(&prefaulter);
        drop(prefaulter);
        assert_eq!(
            calls.made(),
            [
                (hi - STEP, STEP),
                (hi - 2 * STEP, STEP),
                (hi - 3 * STEP, STEP),
                (lo, page),
                (128 * STEP, STEP),
            ]
        );
    }

    /// `forget` of the block in a call waits for the call to end; the
    /// helper calls on it no more, and goes on with the next block shown.
    #[test]
    fn forgetting_a_block_in_a_call_waits_for_it_and_ends_its_calls() {
        let calls = Arc::new(Calls::default());
        let prefaulter = recording(&calls, true);
        let block = 64 * STEP;
        prefaulter.add(block as *mut u8, 4 * STEP);
        calls.wait_for(1);
        let forgotten = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                prefaulter.forget(block as *mut u8);
                forgotten.store(true, std::sync::atomic::Ordering::SeqCst);
            });
            std::thread::sleep(Duration::from_millis(30));
            // The call is still held at its gate (opened before the check,
            // so that a failure does not leave the helper waiting).
            let early = forgotten.load(std::sync::atomic::Ordering::SeqCst);
            calls.open();
            assert!(!early, "forget returned during the call");
        });
        assert!(forgotten.into_inner());
        prefaulter.add((128 * STEP) as *mut u8, STEP);
        calls.wait_for(2);
        idle(&prefaulter);
        drop(prefaulter);
        assert_eq!(calls.made(), [(67 * STEP, STEP), (128 * STEP, STEP)]);
    }

    /// A block forgotten while it waits behind another is never called on.
    #[test]
    fn a_block_forgotten_while_it_waits_is_never_populated() {
        let calls = Arc::new(Calls::default());
        let prefaulter = recording(&calls, true);
        prefaulter.add((64 * STEP) as *mut u8, STEP);
        calls.wait_for(1);
        let waiting = (128 * STEP) as *mut u8;
        prefaulter.add(waiting, 4 * STEP);
        prefaulter.forget(waiting);
        calls.open();
        idle(&prefaulter);
        drop(prefaulter);
        assert_eq!(calls.made(), [(64 * STEP, STEP)]);
    }

    /// A refused call (an old kernel, no memory) ends the helper: no block
    /// is called on after it.
    #[test]
    fn a_refused_call_ends_the_helper() {
        let calls = Arc::new(Calls::default());
        calls.open();
        let prefaulter = recording(&calls, false);
        prefaulter.add((64 * STEP) as *mut u8, 2 * STEP);
        prefaulter.add((128 * STEP) as *mut u8, STEP);
        wait_until(&prefaulter, |s| s.stop);
        drop(prefaulter);
        assert_eq!(calls.made(), [(65 * STEP, STEP)]);
    }

    /// Where a helper is not worth it, none starts and nothing is called.
    #[test]
    fn no_helper_where_it_is_not_worth_it() {
        let calls = Arc::new(Calls::default());
        calls.open();
        let mut prefaulter = recording(&calls, true);
        prefaulter.worth_it = || false;
        prefaulter.add((64 * STEP) as *mut u8, STEP);
        assert!(matches!(prefaulter.helper.get(), Some(None)));
        drop(prefaulter);
        assert!(calls.made().is_empty());
    }

    /// What this machine lacks for the tests that watch the kernel fault
    /// real pages in, if anything: `MADV_POPULATE_WRITE` (Linux 5.14).
    #[cfg(target_os = "linux")]
    fn kernel_cannot_populate() -> Option<String> {
        let len = page_size();
        let p = reserved(len);
        // SAFETY: the page just mapped, populated and unmapped.
        let ok = unsafe {
            let ok = libc::madvise(p.cast(), len, libc::MADV_POPULATE_WRITE) == 0;
            libc::munmap(p.cast(), len);
            ok
        };
        (!ok).then(|| "madvise(MADV_POPULATE_WRITE) (Linux 5.14 or later)".to_string())
    }

    /// Whether the kernel's own populating can be watched here (else the
    /// test is reported skipped: the logic is tested with a stand-in
    /// above on any machine).
    #[cfg(target_os = "linux")]
    fn kernel_populates() -> bool {
        report::host_has("real pages faulted in", kernel_cannot_populate())
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
        // A populate call the kernel refuses (out of memory while another
        // test holds much of it) stops the helper, as designed: the owner
        // then faults alone. Such a run shows nothing and is tried again.
        for _ in 0..5 {
            if faulted_in_keeping_bytes() {
                return;
            }
        }
        panic!("the kernel refused madvise(MADV_POPULATE_WRITE) in five runs");
    }

    /// One run of [`shown_blocks_are_faulted_in_and_keep_their_bytes`]:
    /// `false` when the kernel refused a populate call.
    #[cfg(target_os = "linux")]
    fn faulted_in_keeping_bytes() -> bool {
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
        // Only the helper stops itself, and only on a refusal.
        let refused = prefaulter.state().stop;
        drop(prefaulter);
        if !refused {
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
        }
        // SAFETY: the mapping made above, unmapped once.
        unsafe { libc::munmap(p.cast(), len) };
        !refused
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
