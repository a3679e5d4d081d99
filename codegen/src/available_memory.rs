//! How much memory the process can still fill, asked before a large
//! allocation: a conversion whose arrays do not fit is refused at once
//! ([`TooLarge`], naming what it needs and what is available) instead of
//! being killed by the kernel when it fills them.
//!
//! # Why allocation failure is not enough
//!
//! Linux overcommits: `malloc` of 24 GB succeeds on a machine with 24 GB,
//! and the process is killed (exit 137) when it writes the pages. So the
//! bytes an allocation asks for are compared first with the least of
//!
//! - the system's available memory (`MemAvailable` of `/proc/meminfo`,
//!   with free swap),
//! - the memory cgroup's limit less its usage (cgroup v2 `memory.max` and
//!   `memory.current`, or v1 `memory.limit_in_bytes` and
//!   `memory.usage_in_bytes`),
//! - the address-space limit (`RLIMIT_AS`, `ulimit -v`) less the
//!   process's size (`VmSize`),
//! - `SPF_MAX_MEMORY` (bytes, or with a suffix `K`, `M`, `G`, `T`: powers
//!   of 1024), a limit the user sets,
//!
//! less a margin (a sixteenth of it, at least 64 MiB: the rest of the
//! process and what other programs take meanwhile). Where none of these
//! can be read (not Linux), nothing is refused in advance.
//!
//! # Why a budget
//!
//! Memory asked for but not yet written does not lower `MemAvailable`:
//! two arrays of 15 GB each fit one at a time. A [`Budget`] reads the
//! available memory once, when a conversion's allocations first become
//! large, and takes every allocation of the conversion out of it, written
//! or not. Its
//! allocations are refused as soon as their sum exceeds it. Allocations
//! made outside a conversion's budget ([`admit`]) are each compared with
//! a fresh reading, which is right when each is written before the next
//! (as [`crate::allocation::try_zeroed`] does).
//!
//! The compiled programs `spf build` makes ask the same questions in C
//! (`drv_available_bytes` in their runtime).

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use crate::allocation::{Limit, Padding, TooLarge};

/// The smallest allocation [`admit`] looks at: smaller ones cannot take
/// the machine, and reading the limits costs tens of microseconds.
pub const CHECKED_BYTES: u128 = 32 << 20;

/// The bytes the process can still fill, less the margin (see the module
/// documentation); `None` when no limit can be read.
///
/// ```
/// if let Some(bytes) = codegen::available_memory::available() {
///     assert!(bytes > 0);
/// }
/// ```
pub fn available() -> Option<u64> {
    let raw = [
        system_available(),
        cgroup_available(),
        address_space_available(),
        user_limit(),
    ]
    .into_iter()
    .flatten()
    .min()?;
    Some(raw.saturating_sub((raw / 16).max(64 << 20)))
}

/// Whether an allocation of `bytes` for `space` (`elements` of it, or a
/// block of bytes) fits: the budget of the conversion this thread is in
/// ([`Budget::within`]) takes it, else it is compared with the memory
/// available now (allocations under [`CHECKED_BYTES`] always fit).
///
/// # Errors
///
/// [`TooLarge`] naming what it needs and what is available (or the
/// budget's padding limit).
pub fn admit(bytes: u128, elements: Option<u128>, space: &str) -> Result<(), TooLarge> {
    if let Some(result) = CURRENT.with(|c| {
        c.borrow()
            .as_ref()
            .map(|budget| budget.admit(bytes, elements, space))
    }) {
        return result;
    }
    if bytes < CHECKED_BYTES {
        return Ok(());
    }
    match available() {
        Some(left) if bytes > u128::from(left) => Err(TooLarge::needs(
            space,
            elements,
            bytes,
            Limit::Available(left),
        )),
        _ => Ok(()),
    }
}

thread_local! {
    /// The budget of the conversion the thread is in ([`Budget::within`]).
    static CURRENT: RefCell<Option<Arc<Budget>>> = const { RefCell::new(None) };
}

/// The memory one conversion may take: what was available when its
/// allocations first reached [`CHECKED_BYTES`], less every allocation it
/// admitted ([`Budget::admit`]), written or not; and, with a padding
/// limit ([`Budget::with_padding`]), no more in all than a factor of its
/// input's bytes. Shared by the threads of the conversion; a small
/// conversion never reads the limits.
#[derive(Debug)]
pub struct Budget {
    /// The bytes admitted and not given back.
    taken: AtomicU64,
    /// The bytes available, read once ([`available`]; `None`: no limit
    /// could be read, or [`Budget::of`]'s).
    limit: OnceLock<Option<u64>>,
    /// The padding limit: the factor and the input's bytes.
    padding: Option<(u32, u64)>,
}

/// The fewest bytes a padding limit allows: a conversion this small is
/// never refused for its padding.
pub const PADDING_FLOOR: u64 = 16 << 20;

impl Budget {
    /// A budget of the memory available when it is first needed
    /// ([`available`]).
    pub fn new() -> Budget {
        Budget {
            taken: AtomicU64::new(0),
            limit: OnceLock::new(),
            padding: None,
        }
    }

    /// A budget of `bytes` (`None`: unlimited), whatever is available.
    pub fn of(bytes: Option<u64>) -> Budget {
        Budget {
            limit: OnceLock::from(bytes),
            ..Budget::new()
        }
    }

    /// This budget, and besides no more in all than `factor` times
    /// `input` bytes (at least [`PADDING_FLOOR`]; a factor of 0 is no
    /// limit): what keeps a conversion into a padded format (DIA of a
    /// matrix with thousands of diagonals) from writing mostly zeros.
    ///
    /// ```
    /// use codegen::available_memory::Budget;
    ///
    /// let budget = Budget::of(None).with_padding(16, 4 << 20);
    /// assert!(budget.admit(60 << 20, None, "A").is_ok());
    /// let e = budget.admit(8 << 20, None, "A").unwrap_err();
    /// assert!(e.to_string().contains("would take 68.0 MiB, more than 16 times its input's 4.0 MiB"), "{e}");
    /// ```
    pub fn with_padding(self, factor: u32, input: u64) -> Budget {
        Budget {
            padding: (factor > 0).then_some((factor, input)),
            ..self
        }
    }

    /// Runs `work` with this budget taking the thread's allocations
    /// ([`admit`]: the interpreter's arrays and the outputs spf sizes).
    pub fn within<T>(self: &Arc<Budget>, work: impl FnOnce() -> T) -> T {
        let outer = CURRENT.with(|c| c.borrow_mut().replace(Arc::clone(self)));
        // Restored even when `work` unwinds.
        struct Restore(Option<Arc<Budget>>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let outer = self.0.take();
                CURRENT.with(|c| *c.borrow_mut() = outer);
            }
        }
        let _restore = Restore(outer);
        work()
    }

    /// Takes `bytes` for `space` (`elements` of it, or a block of bytes)
    /// out of the budget.
    ///
    /// ```
    /// use codegen::available_memory::Budget;
    ///
    /// let budget = Budget::of(Some(100 << 20));
    /// assert!(budget.admit(60 << 20, Some(60 << 20), "first").is_ok());
    /// let e = budget.admit(60 << 20, Some(60 << 20), "second").unwrap_err();
    /// assert!(e.to_string().ends_with("needs 60.0 MiB (62914560 elements), 40.0 MiB available"), "{e}");
    /// ```
    ///
    /// # Errors
    ///
    /// [`TooLarge`] when fewer bytes are left, or when the padding limit
    /// is reached: nothing is taken then.
    pub fn admit(&self, bytes: u128, elements: Option<u128>, space: &str) -> Result<(), TooLarge> {
        let wanted = u64::try_from(bytes).unwrap_or(u64::MAX);
        let before = self
            .taken
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |t| {
                Some(t.saturating_add(wanted))
            })
            .unwrap_or_else(|t| t);
        let total = before.saturating_add(wanted);
        let refuse = |limit: Limit| {
            self.give_back(wanted);
            Err(TooLarge::needs(space, elements, bytes, limit))
        };
        // The machine's limit first: no flag lifts it.
        if u128::from(total) >= CHECKED_BYTES {
            if let Some(limit) = *self.limit.get_or_init(available) {
                if total > limit {
                    return refuse(Limit::Available(limit.saturating_sub(before)));
                }
            }
        }
        if let Some((factor, input)) = self.padding {
            let cap = u128::from(input) * u128::from(factor);
            if u128::from(total) > cap.max(u128::from(PADDING_FLOOR)) {
                return refuse(Limit::Padding(Box::new(Padding {
                    total: u128::from(before) + bytes,
                    factor,
                    input,
                })));
            }
        }
        Ok(())
    }

    /// Gives back `bytes` admitted before (an array freed during the
    /// conversion).
    pub fn give_back(&self, bytes: u64) {
        let _ = self
            .taken
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |t| {
                Some(t.saturating_sub(bytes))
            });
    }
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::new()
    }
}

/// `MemAvailable` and `SwapFree` of `/proc/meminfo`, in bytes.
fn system_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let field = |name: &str| kib_field(&text, name);
    let available = field("MemAvailable:")?;
    Some(available.saturating_add(field("SwapFree:").unwrap_or(0)))
}

/// The bytes of the `name` line of a `/proc` file that counts in kB
/// (`MemAvailable:  24056156 kB`).
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let rest = text.lines().find_map(|l| l.strip_prefix(name))?;
    let kib = rest
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse::<u64>()
        .ok()?;
    Some(kib.saturating_mul(1024))
}

/// The memory cgroup's limit less its usage: cgroup v2 (the unified
/// hierarchy's `memory.max`), else v1, at the process's own group or at
/// the mount's root (a container's view).
fn cgroup_available() -> Option<u64> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let read = |path: String| {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|t| t.trim().parse::<u64>().ok())
    };
    let mut found = None::<u64>;
    let mut consider = |limit: Option<u64>, usage: Option<u64>| {
        if let (Some(limit), Some(usage)) = (limit, usage) {
            // v1 writes an unset limit as a huge number.
            if limit < (1 << 60) {
                let left = limit.saturating_sub(usage);
                found = Some(found.map_or(left, |f| f.min(left)));
            }
        }
    };
    for line in groups.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next(), parts.next(), parts.next());
        let (Some(controllers), Some(path)) = (controllers, path) else {
            continue;
        };
        for dir in [path, ""] {
            if controllers.is_empty() {
                let base = format!("/sys/fs/cgroup{dir}");
                consider(
                    read(format!("{base}/memory.max")),
                    read(format!("{base}/memory.current")),
                );
            } else if controllers.split(',').any(|c| c == "memory") {
                let base = format!("/sys/fs/cgroup/memory{dir}");
                consider(
                    read(format!("{base}/memory.limit_in_bytes")),
                    read(format!("{base}/memory.usage_in_bytes")),
                );
            }
        }
    }
    found
}

/// `RLIMIT_AS` less the process's size (`VmSize`), from `/proc/self`.
fn address_space_available() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let soft = limits
        .lines()
        .find_map(|l| l.strip_prefix("Max address space"))?
        .split_whitespace()
        .next()?
        .parse::<u64>()
        .ok()?;
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let size = kib_field(&status, "VmSize:").unwrap_or(0);
    Some(soft.saturating_sub(size))
}

/// `SPF_MAX_MEMORY`, when it is set and reads as a size.
fn user_limit() -> Option<u64> {
    parse_size(&std::env::var("SPF_MAX_MEMORY").ok()?)
}

/// A size in bytes, with an optional suffix `K`, `M`, `G` or `T` (powers
/// of 1024, a trailing `B` or `iB` allowed): `512M`, `4G`, `1000000`.
///
/// ```
/// use codegen::available_memory::parse_size;
///
/// assert_eq!(parse_size("4G"), Some(4 << 30));
/// assert_eq!(parse_size("512 MiB"), Some(512 << 20));
/// assert_eq!(parse_size("1000"), Some(1000));
/// assert_eq!(parse_size("lots"), None);
/// ```
pub fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (digits, shift) = match t.chars().last()? {
        'k' | 'K' => (&t[..t.len() - 1], 10),
        'm' | 'M' => (&t[..t.len() - 1], 20),
        'g' | 'G' => (&t[..t.len() - 1], 30),
        't' | 'T' => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(1 << shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limits_are_read_on_linux() {
        if cfg!(target_os = "linux") {
            let total = std::fs::read_to_string("/proc/meminfo").unwrap();
            assert!(total.contains("MemAvailable"));
            let left = available().expect("Linux tells its available memory");
            assert!(left > 0 && left < system_available().unwrap());
        }
    }

    #[test]
    fn a_large_allocation_beyond_the_machine_is_refused_at_once() {
        let Some(left) = available() else { return };
        let e = admit(u128::from(left) * 2, Some(u128::from(left)), "rowptr").unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("too large: `rowptr` needs "), "{text}");
        assert!(text.ends_with("B available"), "{text}");
        assert!(admit(CHECKED_BYTES - 1, Some(1), "small").is_ok());
    }

    #[test]
    fn a_budget_counts_what_it_admitted_and_what_came_back() {
        let mib = 1u64 << 20;
        let b = Budget::of(Some(100 * mib));
        assert!(b.admit(u128::from(60 * mib), None, "a").is_ok());
        assert!(b.admit(u128::from(60 * mib), None, "b").is_err());
        b.give_back(60 * mib);
        assert!(b.admit(u128::from(60 * mib), None, "b").is_ok());
        let unlimited = Budget::of(None);
        assert!(unlimited.admit(u128::MAX, None, "any").is_ok());
        // Small conversions do not read the limits.
        let b = Budget::of(Some(0));
        assert!(b.admit(CHECKED_BYTES - 1, Some(1), "small").is_ok());
        assert!(b.admit(1, None, "one more").is_err());
        // Within a budget, the thread's allocations are its own.
        let b = Arc::new(Budget::of(Some(u64::from(u32::MAX))).with_padding(2, 1 << 20));
        b.within(|| {
            assert!(admit(10 << 20, None, "a").is_ok());
            let e = admit(10 << 20, None, "b").unwrap_err();
            assert!(
                matches!(&e.limit, Limit::Padding(p) if p.factor == 2),
                "{e}"
            );
        });
        assert!(admit(10 << 20, None, "b").is_ok());
    }
}
