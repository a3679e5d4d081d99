//! Work over a range cut in two, the second part on a thread of its own:
//! how the readers' passes over millions of entries (fingerprints,
//! duplicate checks, checksums) use both cores of a small machine.

use std::ops::Range;

/// `part(start..mid)` on this thread and `part(mid..end)` on another, at
/// once. A part whose thread failed (panicked) is run again here, so the
/// answer is always `part`'s own.
pub(crate) fn both<T: Send>(
    start: usize,
    mid: usize,
    end: usize,
    part: impl Fn(Range<usize>) -> T + Sync,
) -> (T, T) {
    let (earlier, later) = std::thread::scope(|scope| {
        let later = scope.spawn(|| part(mid..end));
        (part(start..mid), later.join())
    });
    (earlier, later.unwrap_or_else(|_| part(mid..end)))
}

#[cfg(test)]
mod tests {
    use super::both;

    #[test]
    fn each_part_is_its_range() {
        let sum = |r: std::ops::Range<usize>| r.sum::<usize>();
        assert_eq!(both(0, 4, 10, sum), (6, 39));
        assert_eq!(both(3, 3, 3, sum), (0, 0));
        // The second part runs on a thread of its own.
        let me = std::thread::current().id();
        let (a, b) = both(0, 1, 2, |_| std::thread::current().id() == me);
        assert!(a && !b);
    }

    #[test]
    fn a_part_whose_thread_failed_runs_again_here() {
        let me = std::thread::current().id();
        let (a, b) = both(0, 5, 9, |r| {
            if std::thread::current().id() != me {
                panic!("the other thread fails");
            }
            r.len()
        });
        assert_eq!((a, b), (5, 4));
    }
}
