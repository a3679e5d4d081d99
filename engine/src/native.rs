//! A synthesized conversion compiled into a shared library and run in
//! process: `spf convert`'s native engine.
//!
//! # The library's C ABI
//!
//! [`library_source`] prints the synthesized function ([`emit_c`](codegen::c::emit_c), renamed
//! `spf_conversion`, internal to the library) and three exported entry
//! points:
//!
//! * `int spf_abi_version(void)`: [`ABI_VERSION`], checked on load;
//! * `int spf_abi_parameters(void)`: the function's number of parameters,
//!   checked against [`c_parameters`](codegen::c::c_parameters) before each call;
//! * `int spf_abi_convert(void *const *args, char *message, size_t cap,
//!   spf_abi_alloc_fn alloc, void *alloc_ctx, const spf_abi_blocks *blocks)`:
//!   calls the function with one pointer per parameter, in
//!   [`c_parameters`](codegen::c::c_parameters)' order: to the value of a symbol or an input scalar,
//!   to the first element of an array (inputs and outputs sized by their
//!   symbols, allocated by the caller), to an output scalar, and to a `T *`
//!   slot for an array the function sizes and allocates itself (returned).
//!   Those arrays come from `alloc(alloc_ctx, n, size)` (the generated
//!   code's `spf_alloc_out`), spf's allocator ([`host_alloc`]), so that they
//!   become spf's arrays without a copy; with a NULL `alloc`, from calloc,
//!   and the caller copies them and frees them with `spf_abi_free`. It returns 0,
//!   or 1 with a message in `message` when the runtime stops (a failed
//!   check, an allocation that cannot be made): `abort()` and the
//!   runtime's out-of-memory hook jump back to the entry point instead of
//!   ending the process (what the function allocated until then is lost:
//!   spf reports the error and exits). When `blocks` is not NULL, every
//!   block of [`crate::memory::LARGE`] bytes or more that the runtime
//!   allocates itself (a permutation's words, a sort's buffers: its
//!   `malloc`, `calloc` and `realloc`) comes from `blocks->obtain` and
//!   `blocks->resize`, and every block it frees goes to `blocks->release`:
//!   spf hands out a large block the process freed, whose pages are in
//!   memory already, or a new one marked for transparent huge pages
//!   ([`host_obtain`], [`crate::memory::freed_blocks`], [`crate::memory::huge_pages`]).
//! * `void spf_abi_free(void *p)`: frees a returned array.
//!
//! The input is validated before the call (`spf convert` checks every input
//! against its descriptor), so the library is compiled with
//! `SPF_INPUT_VALIDATED` as `spf build`'s programs are. Indices are 32-bit
//! (`int32_t`) or 64-bit (`int64_t`) as the library was printed
//! ([`codegen::width`]: a size the 32-bit function
//! computes that does not fit stops it with a message), values of the
//! input's value type (`double`, `float`, `int64_t`, `int32_t`:
//! [`ValueType`], printed into the code, so part of the cache key);
//! symbols are `int64_t` at both widths.

use std::ffi::{c_char, c_int, c_void};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use codegen::allocation::TooLarge;
use codegen::ast::LoopProgram;
use codegen::available_memory::Budget;
use codegen::c::{c_parameters_with, emit_c_with};
use codegen::emit::{ParamKind, Parameter};
use codegen::interp::{space_len, Array, Memory};
use codegen::width::{Elem, IndexWidth, IndexWidths, ValueType};
use iegen::computation::Role;
use synth::instance::{Buffer, Instance, Values};
use synth::synthesize::Synthesized;
use synth::synthesized::{BindingKind, Side};

use crate::memory::prefault::Prefaulter;
use crate::memory::{freed_blocks, huge_pages};
use crate::Error;

/// The version of the entry points above; part of the cache key, so a
/// library of another version is never loaded.
pub const ABI_VERSION: i32 = 5;

/// The name the synthesized function gets inside the library.
const FUNCTION: &str = "spf_conversion";

/// The C source of the shared library of conversion `s` (its scanned
/// `program`), its index arrays at `width` ([`Synthesized::widths`]), its
/// values of type `values`.
///
/// # Errors
///
/// [`Error::Compiler`] when the program cannot be printed as C or has a
/// parameter the ABI does not pass (an `inout` one).
pub fn library_source(
    s: &Synthesized,
    program: &LoopProgram,
    width: IndexWidths,
    values: ValueType,
) -> Result<String, Error> {
    let fail = |e: String| {
        Error::Compiler(format!(
            "printing the synthesized {} -> {} conversion as C: {e}",
            s.conversion.src.name, s.conversion.dst.name
        ))
    };
    let mut program = program.clone();
    program.computation.name = FUNCTION.to_string();
    let widths = s.widths(width).with_values(values);
    let params = c_parameters_with(&program, &widths).map_err(|e| fail(e.to_string()))?;
    let code = emit_c_with(&program, &widths).map_err(|e| fail(e.to_string()))?;
    let mut args = Vec::new();
    for (k, p) in params.iter().enumerate() {
        args.push(match &p.kind {
            ParamKind::Symbol => format!("*(const int64_t *)args[{k}]"),
            ParamKind::Scalar {
                elem,
                role: Role::In,
            } => format!(
                "*(const {} *)args[{k}]",
                Elem::of(*elem, widths.of(&p.source), values).c_type()
            ),
            ParamKind::Scalar {
                elem,
                role: Role::Out,
            } => format!(
                "({} *)args[{k}]",
                Elem::of(*elem, IndexWidth::W64, values).c_type()
            ),
            ParamKind::Array {
                elem,
                role: Role::In | Role::Out,
            } => format!("({} *)args[{k}]", elem.c_type()),
            ParamKind::DynArray { elem } => format!("({} **)args[{k}]", elem.c_type()),
            other => return Err(fail(format!("its parameter `{}` is {other:?}", p.source))),
        });
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "/* Generated by spf convert: the conversion {} -> {} as a shared library. */",
        s.conversion.src.name, s.conversion.dst.name
    );
    // The size from which the runtime's blocks come from spf.
    let _ = writeln!(
        out,
        "#define SPF_ABI_LARGE_BYTES ((size_t){})",
        crate::memory::LARGE
    );
    out.push_str(PRELUDE);
    out.push_str(&code);
    let _ = write!(
        out,
        "\nSPF_ABI_EXPORT int spf_abi_version(void) {{ return {ABI_VERSION}; }}\n\
         SPF_ABI_EXPORT int spf_abi_parameters(void) {{ return {}; }}\n\
         SPF_ABI_EXPORT void spf_abi_free(void *p) {{ free(p); }}\n\n\
         SPF_ABI_EXPORT int spf_abi_convert(void *const *args, char *message, size_t cap,\n\
         \x20                                 spf_abi_alloc_fn alloc, void *alloc_ctx,\n\
         \x20                                 const spf_abi_blocks *blocks)\n{{\n\
         \x20   spf_abi_alloc = alloc;\n\
         \x20   spf_abi_alloc_ctx = alloc_ctx;\n\
         \x20   spf_abi_host_blocks = blocks;\n\
         \x20   if (setjmp(spf_abi_jump)) {{\n\
         \x20       spf_abi_host_blocks = NULL;\n\
         \x20       if (cap > 0)\n\
         \x20           snprintf(message, cap, \"%s\", spf_abi_message);\n\
         \x20       return 1;\n\
         \x20   }}\n\
         \x20   {FUNCTION}({});\n\
         \x20   spf_abi_host_blocks = NULL;\n\
         \x20   (void)args;\n\
         \x20   return 0;\n}}\n",
        params.len(),
        args.join(",\n        ")
    );
    Ok(out)
}

/// What comes before the generated code: the headers it includes (so that
/// `abort` can be redefined after them), the jump back to the entry point,
/// and the runtime's hooks.
const PRELUDE: &str = r#"#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define SPF_ABI_EXPORT __attribute__((visibility("default")))
#define SPF_ABI_NORETURN __attribute__((noreturn))
#else
#define SPF_ABI_EXPORT
#define SPF_ABI_NORETURN
#endif

/* Where the runtime's stops jump: spf_abi_convert's frame. */
static jmp_buf spf_abi_jump;
static char spf_abi_message[256];

static SPF_ABI_NORETURN void spf_abi_stop(const char *what, long long value)
{
    snprintf(spf_abi_message, sizeof spf_abi_message, "spf runtime: %s (%lld)", what, value);
    longjmp(spf_abi_jump, 1);
}

static SPF_ABI_NORETURN void spf_abi_fail(const char *message)
{
    snprintf(spf_abi_message, sizeof spf_abi_message, "%s", message);
    longjmp(spf_abi_jump, 1);
}

static SPF_ABI_NORETURN void spf_abi_index_overflow(const char *what, long long n)
{
    snprintf(spf_abi_message, sizeof spf_abi_message,
             "%s is %lld: more than 32-bit indices hold (2147483647); use --index-width 64",
             what, n);
    longjmp(spf_abi_jump, 1);
}

static SPF_ABI_NORETURN void spf_abi_too_large(long long n, size_t size)
{
    snprintf(spf_abi_message, sizeof spf_abi_message,
             "too large: `an array of %lld elements` would need %lld x %zu bytes, more than "
             "this machine can allocate", n, n, size);
    longjmp(spf_abi_jump, 1);
}

/* The runtime's stops and the generated code's failed allocations (its
 * calls of abort(); the runtime's scatter prints its own message on
 * standard error before it calls abort()) return to the entry point. */
#define SPF_DIE(what, value) spf_abi_stop((what), (long long)(value))
#define SPF_OUT_OF_MEMORY(n, size) spf_abi_too_large((long long)(n), (size))
#define SPF_INDEX_OVERFLOW(what, n) spf_abi_index_overflow((what), (long long)(n))
#define abort() spf_abi_fail("too large: `an array the conversion allocates` would need more " \
                            "than this machine can allocate, or a check failed (see above)")
/* spf convert validates every input before the call. */
#define SPF_INPUT_VALIDATED 1

/* The function's results (the arrays it sizes itself) are allocated by
 * spf's allocator, zeroed, and become spf's arrays without a copy; with no
 * allocator, by calloc (spf copies them and frees them with spf_abi_free). */
typedef void *(*spf_abi_alloc_fn)(void *ctx, int64_t n, size_t size);
static spf_abi_alloc_fn spf_abi_alloc;
static void *spf_abi_alloc_ctx;
#define SPF_ALLOC_OUT
static inline void *spf_alloc_out(int64_t n, size_t size, int64_t written)
{
    (void)written;
    if (spf_abi_alloc != NULL)
        return spf_abi_alloc(spf_abi_alloc_ctx, n, size);
    if ((uint64_t)(n > 0 ? n : 1) > SIZE_MAX / size)
        return NULL;
    return calloc(n > 0 ? (size_t)n : 1, size);
}

/* The runtime's own large blocks (SPF_ABI_LARGE_BYTES or more: a
 * permutation's words, a sort's buffers) come from spf: a block the process
 * freed, whose pages are in memory already, or a new one marked for
 * transparent huge pages. Every block the runtime frees goes back to spf,
 * which keeps the large ones for the next request. Blocks are the C
 * library's either way; without spf's functions (between calls), its
 * malloc, calloc, realloc and free. */
typedef struct {
    void *ctx;
    void *(*obtain)(void *ctx, size_t bytes, int zeroed);
    void *(*resize)(void *ctx, void *p, size_t bytes);
    void (*release)(void *ctx, void *p);
} spf_abi_blocks;
static const spf_abi_blocks *spf_abi_host_blocks;
static void *spf_abi_malloc(size_t n)
{
    const spf_abi_blocks *b = spf_abi_host_blocks;
    return b != NULL && n >= SPF_ABI_LARGE_BYTES ? b->obtain(b->ctx, n, 0) : malloc(n);
}
static void *spf_abi_calloc(size_t n, size_t size)
{
    const spf_abi_blocks *b = spf_abi_host_blocks;
    /* calloc refuses a product that overflows */
    if (b != NULL && size != 0 && n <= SIZE_MAX / size && n * size >= SPF_ABI_LARGE_BYTES)
        return b->obtain(b->ctx, n * size, 1);
    return calloc(n, size);
}
static void *spf_abi_realloc(void *p, size_t n)
{
    const spf_abi_blocks *b = spf_abi_host_blocks;
    return b != NULL && n >= SPF_ABI_LARGE_BYTES ? b->resize(b->ctx, p, n) : realloc(p, n);
}
static void spf_abi_release(void *p)
{
    const spf_abi_blocks *b = spf_abi_host_blocks;
    if (b != NULL)
        b->release(b->ctx, p);
    else
        free(p);
}
#define malloc(n) spf_abi_malloc(n)
#define calloc(n, size) spf_abi_calloc((n), (size))
#define realloc(p, n) spf_abi_realloc((p), (n))
#define free(p) spf_abi_release(p)

"#;

/// The entry point's type.
type ConvertFn = unsafe extern "C" fn(
    *const *mut c_void,
    *mut c_char,
    usize,
    HostAllocFn,
    *mut c_void,
    *const HostBlocks,
) -> c_int;

/// Where the library's runtime takes its own large blocks from and gives
/// every block back to (the prelude's `spf_abi_blocks`): [`host_obtain`],
/// [`host_resize`] and [`host_release`], with a [`HostAllocations`] as
/// `ctx`.
#[repr(C)]
struct HostBlocks {
    ctx: *mut c_void,
    obtain: unsafe extern "C" fn(*mut c_void, usize, c_int) -> *mut c_void,
    resize: unsafe extern "C" fn(*mut c_void, *mut c_void, usize) -> *mut c_void,
    release: unsafe extern "C" fn(*mut c_void, *mut c_void),
}

/// The allocator the library's results come from ([`host_alloc`]).
type HostAllocFn = unsafe extern "C" fn(*mut c_void, i64, usize) -> *mut c_void;

/// The arrays [`host_alloc`] made during one call: each pointer with its
/// layout. Those the results do not adopt are freed when it is dropped.
/// With the helper that faults in the call's new large blocks.
struct HostAllocations {
    live: Vec<(*mut u8, std::alloc::Layout)>,
    /// Faults in the large blocks the call fills, on a thread of its own.
    prefault: Prefaulter,
    /// How many large blocks of its own the library obtained
    /// ([`host_obtain`]) and gave back ([`host_release`]).
    large: (usize, usize),
    /// The memory the call may take, its results and the runtime's
    /// blocks counted ([`codegen::available_memory`]).
    budget: Arc<Budget>,
    /// The first allocation the budget refused (the library then stops
    /// with its out-of-memory message, which this replaces).
    refused: Option<TooLarge>,
    /// The runtime's blocks the budget took, and their bytes (given back
    /// when they are released).
    taken: Vec<(*mut u8, usize)>,
}

impl HostAllocations {
    /// Nothing allocated yet (the helper starts with the first large
    /// block).
    fn new(budget: Arc<Budget>) -> HostAllocations {
        HostAllocations {
            live: Vec::new(),
            prefault: Prefaulter::new(),
            large: (0, 0),
            budget,
            refused: None,
            taken: Vec::new(),
        }
    }

    /// Whether the budget admits `bytes` (the first refusal is kept).
    fn admit(&mut self, bytes: usize, elements: Option<usize>, what: &str) -> bool {
        match self
            .budget
            .admit(bytes as u128, elements.map(|n| n as u128), what)
        {
            Ok(()) => true,
            Err(e) => {
                self.refused.get_or_insert(e);
                false
            }
        }
    }

    /// The allocation at `ptr` as a vector of `len` elements of `T`, when
    /// `host_alloc` made it for elements of `T`'s size and alignment and
    /// at least `len` of them (it is no longer this list's to free).
    fn adopt<T: Copy>(&mut self, ptr: *mut c_void, len: usize) -> Option<Vec<T>> {
        let at = self.live.iter().position(|&(p, _)| p == ptr.cast::<u8>())?;
        let (p, layout) = self.live[at];
        let size = std::mem::size_of::<T>();
        let fits = layout.align() == std::mem::align_of::<T>()
            && layout.size() % size == 0
            && len <= layout.size() / size;
        if !fits {
            return None;
        }
        self.live.swap_remove(at);
        // SAFETY: `p` was allocated by the global allocator with `layout`:
        // `T`'s alignment and a size of `layout.size() / size` elements of
        // `T` (the capacity), zeroed, so its first `len` are initialized.
        Some(unsafe { Vec::from_raw_parts(p.cast::<T>(), len, layout.size() / size) })
    }
}

impl Drop for HostAllocations {
    fn drop(&mut self) {
        self.prefault.finish();
        for &(p, layout) in &self.live {
            // SAFETY: allocated by `host_alloc` with this layout, not adopted.
            unsafe { std::alloc::dealloc(p, layout) };
        }
    }
}

/// The library's allocator of results: `n` zeroed elements (at least one)
/// of `size` bytes, aligned to `size` (4 or 8: the library's index and
/// value types), recorded in the [`HostAllocations`] at `ctx`; NULL when
/// that cannot be made (the library then stops with its out-of-memory
/// message).
///
/// # Safety
///
/// `ctx` points to a live `HostAllocations` that nothing else touches
/// during the call.
unsafe extern "C" fn host_alloc(ctx: *mut c_void, n: i64, size: usize) -> *mut c_void {
    if size != 4 && size != 8 {
        return std::ptr::null_mut();
    }
    let count = usize::try_from(n.max(1)).unwrap_or(usize::MAX);
    let Some(layout) = count
        .checked_mul(size)
        .and_then(|bytes| std::alloc::Layout::from_size_align(bytes, size).ok())
    else {
        return std::ptr::null_mut();
    };
    // SAFETY: the caller vouches for `ctx`.
    if !unsafe { &mut *ctx.cast::<HostAllocations>() }.admit(
        layout.size(),
        Some(count),
        "an array the conversion sizes itself",
    ) {
        return std::ptr::null_mut();
    }
    // SAFETY: the layout's size is not zero.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if !p.is_null() {
        // SAFETY: the caller vouches for `ctx`.
        let host = unsafe { &mut *ctx.cast::<HostAllocations>() };
        host.live.push((p, layout));
        if layout.size() >= crate::memory::LARGE {
            host.prefault.add(p, layout.size());
        }
    }
    p.cast()
}

/// A large block for the library's runtime (`bytes` at least, the first
/// `bytes` zeroed when `zeroed` is not 0), counted in the
/// [`HostAllocations`] at `ctx` and shown to its helper that faults blocks
/// in: the allocator's own large block ([`huge_pages::large_block`]: one
/// the process freed, else a new one marked for huge pages). Null when
/// none can be made (the runtime then stops with its out-of-memory
/// message).
///
/// # Safety
///
/// `ctx` points to a live `HostAllocations` that nothing else touches
/// during the call.
unsafe extern "C" fn host_obtain(ctx: *mut c_void, bytes: usize, zeroed: c_int) -> *mut c_void {
    // SAFETY: the caller vouches for `ctx`.
    let host = unsafe { &mut *ctx.cast::<HostAllocations>() };
    const WHAT: &str = "a block of the conversion's runtime";
    // A zeroed block beyond the budget (a counting sort's counts over an
    // extent of billions, for a few entries) is made all the same, and
    // not faulted in: its pages take memory only where they are written,
    // and the runtime writes such blocks only where entries fall (it reads
    // them whole, which maps no page; what it fills whole it asks
    // unzeroed, and the budget counts that).
    let within = if zeroed != 0 {
        host.budget.admit(bytes as u128, None, WHAT).is_ok()
    } else if host.admit(bytes, None, WHAT) {
        true
    } else {
        return std::ptr::null_mut();
    };
    host.large.0 += 1;
    let p = huge_pages::large_block(bytes, zeroed != 0);
    if within {
        host.taken.push((p, bytes));
    }
    if within && bytes >= crate::memory::LARGE {
        // SAFETY: the caller vouches for `ctx`.
        unsafe { &*ctx.cast::<HostAllocations>() }
            .prefault
            .add(p.cast(), bytes);
    }
    p.cast()
}

/// The runtime's `realloc` of a large size: `p` (null: none) holding
/// `bytes` or more, moved into a block of [`host_obtain`]'s when it holds
/// fewer (its bytes copied, `p` given back to [`host_release`]); null when
/// none can be made (`p` is then left as it was).
///
/// # Safety
///
/// As [`host_obtain`]; `p` is null or a live block of the C library's that
/// the library owns.
unsafe extern "C" fn host_resize(ctx: *mut c_void, p: *mut c_void, bytes: usize) -> *mut c_void {
    if p.is_null() {
        // SAFETY: the caller's contract.
        return unsafe { host_obtain(ctx, bytes, 0) };
    }
    // SAFETY: `p` is a live block of the C library's (the caller's
    // contract).
    let Some(usable) = (unsafe { freed_blocks::usable_size(p.cast()) }) else {
        // SAFETY: as above; the C library moves it.
        let q = unsafe { libc::realloc(p, bytes) };
        huge_pages::mark(q.cast(), bytes);
        return q;
    };
    if usable >= bytes {
        return p;
    }
    // SAFETY: the caller's contract.
    let q = unsafe { host_obtain(ctx, bytes, 0) };
    if !q.is_null() {
        // SAFETY: `p` holds `usable` bytes, `q` more; both the library's,
        // `p` not used after it is given back.
        unsafe {
            std::ptr::copy_nonoverlapping(p.cast::<u8>(), q.cast::<u8>(), usable);
            host_release(ctx, p);
        }
    }
    q
}

/// The runtime's `free`: the block at `p` taken back from the helper that
/// faults blocks in, then kept when it is large
/// ([`freed_blocks::release`]), else given back to the C library.
///
/// # Safety
///
/// `ctx` points to a live `HostAllocations`; `p` is null or a live block
/// of the C library's that the library owns and does not use after.
unsafe extern "C" fn host_release(ctx: *mut c_void, p: *mut c_void) {
    // SAFETY: `p` is null or a live block of the C library's (the
    // caller's contract).
    if !p.is_null()
        && unsafe { freed_blocks::usable_size(p.cast()) }.is_none_or(|u| u >= crate::memory::LARGE)
    {
        // SAFETY: the caller vouches for `ctx`.
        let host = unsafe { &mut *ctx.cast::<HostAllocations>() };
        host.prefault.forget(p.cast());
        host.large.1 += 1;
        if let Some(at) = host.taken.iter().position(|&(q, _)| q == p.cast::<u8>()) {
            let (_, bytes) = host.taken.swap_remove(at);
            host.budget.give_back(bytes as u64);
        }
    }
    // SAFETY: the caller's contract.
    unsafe { freed_blocks::release(p.cast()) }
}

/// A loaded conversion library.
pub struct Library {
    lib: libloading::Library,
    path: PathBuf,
    /// How many large blocks of its own the last run obtained
    /// ([`host_obtain`]) and gave back ([`host_release`]).
    large_blocks: std::sync::Mutex<(usize, usize)>,
    /// Held during each call into the library: its C keeps the call's
    /// state in statics (where a stop jumps, its message, the allocator
    /// it was given; a check's kept entries), so calls from several
    /// threads take turns. Shared by every `Library` of the same file:
    /// the dynamic loader maps a file once per process, statics and all.
    calls: Arc<std::sync::Mutex<()>>,
    /// The C parameters of the program the library was printed from, at
    /// the widths it was printed at: found on its first run (a library
    /// runs that one program at those widths; [`Library::run`] checks
    /// their number against the library's own).
    params: std::sync::OnceLock<Vec<Parameter>>,
}

/// The lock of each library file loaded in this process ([`Library::calls`]).
fn calls_of(path: &Path) -> Arc<std::sync::Mutex<()>> {
    static CALLS: std::sync::Mutex<Vec<(PathBuf, Arc<std::sync::Mutex<()>>)>> =
        std::sync::Mutex::new(Vec::new());
    let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut calls = CALLS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, lock)) = calls.iter().find(|(p, _)| *p == key) {
        return Arc::clone(lock);
    }
    let lock = Arc::new(std::sync::Mutex::new(()));
    calls.push((key, Arc::clone(&lock)));
    lock
}

impl Library {
    /// Loads the library at `path` and checks its ABI version.
    ///
    /// # Errors
    ///
    /// A message when the file is no loadable library of this ABI.
    pub fn load(path: &Path) -> Result<Library, String> {
        // SAFETY: the library is one spf compiled from a validated
        // conversion (the cache holds nothing else); loading it runs no
        // initializer of its own.
        let lib = unsafe { libloading::Library::new(path) }.map_err(|e| e.to_string())?;
        let library = Library {
            lib,
            path: path.to_path_buf(),
            large_blocks: std::sync::Mutex::new((0, 0)),
            calls: calls_of(path),
            params: std::sync::OnceLock::new(),
        };
        let version = library.int_function("spf_abi_version")?;
        if version != ABI_VERSION {
            return Err(format!(
                "{}: ABI version {version}, not {ABI_VERSION}",
                path.display()
            ));
        }
        Ok(library)
    }

    /// Calls the exported `int NAME(void)`.
    fn int_function(&self, name: &str) -> Result<i32, String> {
        // SAFETY: every spf library exports these with this type.
        unsafe {
            let f = self
                .lib
                .get::<unsafe extern "C" fn() -> c_int>(name.as_bytes())
                .map_err(|e| format!("{}: {e}", self.path.display()))?;
            Ok(f())
        }
    }

    /// Runs the conversion on `input` (an instance of the source format,
    /// already validated; its arrays are moved into the call, its symbols
    /// stay) with the library printed at `width`: the destination's
    /// instance, as [`Synthesized::run_program`] gives it. A 32-bit array
    /// the instance holds at 32 bits ([`Values::Int32`]) is passed as it
    /// is, and 32-bit results come back as [`Values::Int32`]; other
    /// 32-bit arrays are narrowed copies (a value that does not fit is an
    /// error). An array the outputs' extents read is also kept at 64 bits
    /// for them.
    ///
    /// # Errors
    ///
    /// [`Error::TooLarge`] when the outputs cannot be allocated (the
    /// runtime says so), [`Error::Internal`] when they cannot be sized,
    /// when the runtime stops otherwise, or when the library does not
    /// match the program.
    pub fn run(
        &self,
        s: &Synthesized,
        program: &LoopProgram,
        input: &mut Instance,
        width: IndexWidths,
        budget: &Arc<Budget>,
    ) -> Result<Instance, Error> {
        let pair = format!("{} -> {}", s.conversion.src.name, s.conversion.dst.name);
        let fail = |e: String| Error::stopped(format!("the compiled conversion {pair}: {e}"));
        let too_large =
            |e: TooLarge| Error::TooLarge(format!("the compiled conversion {pair}: {e}"));
        let widths = s.widths(width).with_values(input.value_type);
        let params = match self.params.get() {
            Some(params) => params,
            None => {
                let params =
                    c_parameters_with(program, &widths).map_err(|e| fail(e.to_string()))?;
                self.params.get_or_init(|| params)
            }
        };
        let expected = self.int_function("spf_abi_parameters").map_err(fail)?;
        if usize::try_from(expected).ok() != Some(params.len()) {
            return Err(fail(format!(
                "the library takes {expected} parameters, the conversion {}",
                params.len()
            )));
        }
        let comp = &program.computation;
        let read_by_extents = |name: &str| {
            comp.spaces.iter().any(|d| {
                d.extents.iter().any(|e| {
                    let mut read = false;
                    e.for_each_call(&mut |f, _| read |= f == name);
                    e.for_each_sym(&mut |x| read |= x == name);
                    read
                })
            })
        };
        let is_narrow = |p: &Parameter| {
            matches!(
                p.kind,
                ParamKind::Array {
                    elem: Elem::Int(IndexWidth::W32),
                    ..
                }
            )
        };
        // The 32-bit arrays, by parameter: inputs the instance holds at 32
        // bits are taken from it as they are (an empty stand-in is left for
        // the memory, unless an extent reads them).
        let mut narrow: Vec<Option<Buffer<i32>>> = vec![None; params.len()];
        for (k, p) in params.iter().enumerate() {
            let input_param = matches!(p.kind, ParamKind::Array { role: Role::In, .. });
            if !is_narrow(p) || !input_param || read_by_extents(&p.source) {
                continue;
            }
            let Some(b) = s
                .bindings
                .iter()
                .find(|b| b.side == Side::Source && b.ir_name == p.source)
            else {
                continue;
            };
            if let Some(Values::Int32(_)) = input.arrays.get(&b.name) {
                if let Some(Values::Int32(v)) = input
                    .arrays
                    .insert(b.name.clone(), Values::Int32(Vec::new().into()))
                {
                    narrow[k] = Some(v);
                }
            }
        }
        // The outputs spf sizes are taken out of the call's budget.
        let mut memory = budget
            .within(|| s.memory_taking(program, input))
            .map_err(|e| fail(e.to_string()))?;
        // Every array the function reads or writes must have the length
        // its extents give: the C trusts them.
        let mut lengths = vec![0usize; params.len()];
        for (k, p) in params.iter().enumerate() {
            if let ParamKind::Array { .. } = p.kind {
                let d = comp
                    .space(&p.source)
                    .ok_or_else(|| fail(format!("no data space `{}`", p.source)))?;
                let want = space_len(d, &memory).map_err(|e| fail(e.to_string()))?;
                let have = match &narrow[k] {
                    Some(v) => v.len(),
                    None => memory.arrays.get(&p.source).map_or(0, Array::len),
                };
                if have != want {
                    return Err(fail(format!(
                        "`{}` has {have} elements where {want} are expected",
                        p.source
                    )));
                }
                lengths[k] = want;
            }
        }
        // The other 32-bit arrays: outputs allocated at 32 bits, inputs
        // narrowed. An input no extent reads is freed now, not held
        // through the call.
        for (k, p) in params.iter().enumerate() {
            if !is_narrow(p) || narrow[k].is_some() {
                continue;
            }
            if let ParamKind::Array {
                role: Role::Out, ..
            } = p.kind
            {
                let bytes = lengths[k] * std::mem::size_of::<i32>();
                budget
                    .admit(bytes as u128, Some(lengths[k] as u128), &p.source)
                    .map_err(too_large)?;
                narrow[k] = Some(vec![0; lengths[k]].into());
                continue;
            }
            let Some(Array::Int(v)) = memory.arrays.get(&p.source) else {
                return Err(fail(format!("no index array `{}`", p.source)));
            };
            let copy = narrowed(v).ok_or_else(|| {
                fail(format!(
                    "`{}` holds a value that does not fit 32-bit indices",
                    p.source
                ))
            })?;
            narrow[k] = Some(copy.into());
            if !read_by_extents(&p.source) {
                memory
                    .arrays
                    .insert(p.source.clone(), Array::Int(Vec::new().into()));
            }
        }
        let mut values: Vec<Scalar> = Vec::with_capacity(params.len());
        let mut returned: Vec<*mut c_void> = vec![std::ptr::null_mut(); params.len()];
        let mut args: Vec<*mut c_void> = Vec::with_capacity(params.len());
        for p in params {
            match &p.kind {
                ParamKind::Symbol | ParamKind::Scalar { role: Role::In, .. } => {
                    values.push(scalar(p, &memory).map_err(fail)?);
                }
                _ => values.push(Scalar::Int(0)),
            }
        }
        for (k, p) in params.iter().enumerate() {
            let arg: *mut c_void = match &p.kind {
                ParamKind::Symbol | ParamKind::Scalar { role: Role::In, .. } => {
                    match &mut values[k] {
                        Scalar::Int(v) => (v as *mut i64).cast(),
                        Scalar::Real(v) => (v as *mut f64).cast(),
                    }
                }
                ParamKind::DynArray { .. } => (&mut returned[k] as *mut *mut c_void).cast(),
                // An input is read in place, wherever it is (the caller's
                // memory too): the C declares it `const` and never writes
                // it (codegen refuses a write to an `in` space). Every
                // other array is the run's own.
                ParamKind::Array { role: Role::In, .. } => match narrow[k].as_ref() {
                    Some(v) => v.as_ptr().cast_mut().cast(),
                    None => match memory.arrays.get(&p.source) {
                        Some(a) => array_ptr(a).cast_mut(),
                        None => return Err(fail(format!("no array `{}`", p.source))),
                    },
                },
                _ => match narrow[k].as_mut() {
                    Some(v) => v.to_mut().as_mut_ptr().cast(),
                    None => match memory.arrays.get_mut(&p.source) {
                        Some(a) => array_mut_ptr(a),
                        None => return Err(fail(format!("no array `{}`", p.source))),
                    },
                },
            };
            args.push(arg);
        }
        let mut message = vec![0u8; 512];
        // SAFETY: the arguments are what `library_source` documents for
        // this program's parameters (checked in number above, each array of
        // the length its extents give); the pointers stay valid during the
        // call (nothing touches `memory`, `narrow`, `values` or `returned`).
        let mut host = HostAllocations::new(Arc::clone(budget));
        let blocks = HostBlocks {
            ctx: (&mut host as *mut HostAllocations).cast(),
            obtain: host_obtain,
            resize: host_resize,
            release: host_release,
        };
        let turn = self.turn();
        let status = unsafe {
            let f = self
                .lib
                .get::<ConvertFn>(b"spf_abi_convert")
                .map_err(|e| fail(e.to_string()))?;
            f(
                args.as_ptr(),
                message.as_mut_ptr().cast(),
                message.len(),
                host_alloc,
                blocks.ctx,
                &blocks,
            )
        };
        drop(turn);
        *self.large_blocks.lock().unwrap_or_else(|e| e.into_inner()) = host.large;
        // The 32-bit results, by their computation names; those an extent
        // reads are in the memory at 64 bits too (before the returned
        // arrays are measured by them).
        let mut results: Vec<(String, Buffer<i32>)> = Vec::new();
        if status == 0 {
            for (k, p) in params.iter().enumerate() {
                if let ParamKind::Array {
                    role: Role::Out, ..
                } = p.kind
                {
                    if let Some(v) = narrow[k].take() {
                        if read_by_extents(&p.source) {
                            let wide = v.iter().map(|&x| i64::from(x)).collect();
                            memory.arrays.insert(p.source.clone(), Array::Int(wide));
                        }
                        results.push((p.source.clone(), v));
                    }
                }
            }
        }
        // The arrays the function allocated: taken as they are when `host`
        // made them, else copied and freed by the library (its allocator),
        // even when the call stopped.
        let free = self
            .lib_free()
            .map_err(|e| fail(format!("{}: {e}", self.path.display())))?;
        let mut copy_error = None;
        for (k, p) in params.iter().enumerate() {
            let ptr = returned[k];
            let ParamKind::DynArray { elem } = p.kind else {
                continue;
            };
            let from_host = host.live.iter().any(|&(q, _)| q == ptr.cast::<u8>());
            if status == 0 && copy_error.is_none() {
                match self.copy_returned(comp, p, elem, ptr, &memory, &mut host) {
                    Ok(Returned::Wide(array)) => {
                        memory.arrays.insert(p.source.clone(), array);
                    }
                    Ok(Returned::Narrow(v)) => {
                        if read_by_extents(&p.source) {
                            let wide = v.iter().map(|&x| i64::from(x)).collect();
                            memory.arrays.insert(p.source.clone(), Array::Int(wide));
                        }
                        results.push((p.source.clone(), v.into()));
                    }
                    Err(e) => copy_error = Some(e),
                }
            }
            // An array the results did not adopt from `host` is freed with
            // it; one the library allocated itself, by the library.
            if !ptr.is_null() && !from_host {
                // SAFETY: `ptr` was allocated by the library's calloc.
                unsafe { free(ptr) };
            }
        }
        if let (true, Some(e)) = (status != 0, host.refused.take()) {
            return Err(too_large(e));
        }
        if status != 0 {
            let end = message
                .iter()
                .position(|&b| b == 0)
                .unwrap_or(message.len());
            return Err(fail(String::from_utf8_lossy(&message[..end]).into_owned()));
        }
        if let Some(e) = copy_error {
            return Err(fail(e));
        }
        for (name, _) in &results {
            memory.arrays.remove(name);
        }
        let mut out = s.output(&mut memory, input);
        for (ir_name, v) in results {
            if let Some(b) = s
                .bindings
                .iter()
                .find(|b| b.side == Side::Destination && b.ir_name == ir_name)
            {
                if b.kind == BindingKind::Symbol {
                    out.symbols
                        .insert(b.name.clone(), v.first().map_or(0, |&x| i64::from(x)));
                } else {
                    out.arrays.insert(b.name.clone(), Values::Int32(v));
                }
            }
        }
        Ok(out)
    }

    /// How many blocks of 4 MiB or more the runtime allocated itself in
    /// the last [`Library::run`] (each from [`host_obtain`]), and how many
    /// it gave back ([`host_release`]).
    #[cfg(test)]
    fn large_blocks(&self) -> (usize, usize) {
        *self.large_blocks.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The exported symbol `name`, of type `T`.
    ///
    /// # Safety
    ///
    /// `T` must be the symbol's type.
    /// The library to oneself for a call ([`Library::calls`]).
    pub(crate) fn turn(&self) -> std::sync::MutexGuard<'_, ()> {
        // A call that panicked left no state the next call depends on.
        self.calls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) unsafe fn symbol<T>(&self, name: &str) -> Result<libloading::Symbol<'_, T>, String> {
        // SAFETY: the caller vouches for the type.
        unsafe { self.lib.get(name.as_bytes()) }
            .map_err(|e| format!("{}: {e}", self.path.display()))
    }

    /// The library's `spf_abi_free`.
    fn lib_free(
        &self,
    ) -> Result<libloading::Symbol<'_, unsafe extern "C" fn(*mut c_void)>, String> {
        // SAFETY: every spf library exports it with this type.
        unsafe { self.lib.get(b"spf_abi_free").map_err(|e| e.to_string()) }
    }

    /// An array the function allocated and returned in `ptr`, copied: its
    /// length is its extents' value now that the sizes are computed.
    fn copy_returned(
        &self,
        comp: &iegen::computation::Computation,
        p: &Parameter,
        elem: Elem,
        ptr: *mut c_void,
        memory: &Memory,
        host: &mut HostAllocations,
    ) -> Result<Returned, String> {
        let d = comp
            .space(&p.source)
            .ok_or_else(|| format!("no data space `{}`", p.source))?;
        let len = space_len(d, memory).map_err(|e| e.to_string())?;
        if ptr.is_null() {
            return if len == 0 {
                Ok(match elem {
                    Elem::Int(IndexWidth::W32) => Returned::Narrow(Vec::new()),
                    Elem::Int(IndexWidth::W64) => Returned::Wide(Array::Int(Vec::new().into())),
                    Elem::Real(t) => {
                        Returned::Wide(Values::Real(Vec::new().into()).into_value_array(t))
                    }
                })
            } else {
                Err(format!("`{}` was not returned", p.source))
            };
        }
        // Allocated by `host`: taken as it is.
        let taken = match elem {
            Elem::Int(IndexWidth::W64) => host
                .adopt::<i64>(ptr, len)
                .map(|v| Returned::Wide(Array::Int(v.into()))),
            Elem::Int(IndexWidth::W32) => host.adopt::<i32>(ptr, len).map(Returned::Narrow),
            Elem::Real(ValueType::F64) => host
                .adopt::<f64>(ptr, len)
                .map(|v| Returned::Wide(Array::Real(v.into()))),
            Elem::Real(ValueType::F32) => host
                .adopt::<f32>(ptr, len)
                .map(|v| Returned::Wide(Array::Real32(v.into()))),
            Elem::Real(ValueType::I64) => host
                .adopt::<i64>(ptr, len)
                .map(|v| Returned::Wide(Array::RealInt(v.into()))),
            Elem::Real(ValueType::I32) => host
                .adopt::<i32>(ptr, len)
                .map(|v| Returned::Wide(Array::RealInt32(v.into()))),
        };
        if let Some(taken) = taken {
            return Ok(taken);
        }
        // SAFETY: the function allocated `ptr` with at least `len`
        // elements of this type: its allocation is sized by the same
        // extents over the same values.
        Ok(unsafe {
            match elem {
                Elem::Int(IndexWidth::W64) => Returned::Wide(Array::Int(
                    std::slice::from_raw_parts(ptr.cast::<i64>(), len)
                        .to_vec()
                        .into(),
                )),
                Elem::Int(IndexWidth::W32) => {
                    Returned::Narrow(std::slice::from_raw_parts(ptr.cast::<i32>(), len).to_vec())
                }
                Elem::Real(ValueType::F64) => Returned::Wide(Array::Real(
                    std::slice::from_raw_parts(ptr.cast::<f64>(), len)
                        .to_vec()
                        .into(),
                )),
                Elem::Real(ValueType::F32) => Returned::Wide(Array::Real32(
                    std::slice::from_raw_parts(ptr.cast::<f32>(), len)
                        .to_vec()
                        .into(),
                )),
                Elem::Real(ValueType::I64) => Returned::Wide(Array::RealInt(
                    std::slice::from_raw_parts(ptr.cast::<i64>(), len)
                        .to_vec()
                        .into(),
                )),
                Elem::Real(ValueType::I32) => Returned::Wide(Array::RealInt32(
                    std::slice::from_raw_parts(ptr.cast::<i32>(), len)
                        .to_vec()
                        .into(),
                )),
            }
        })
    }
}

/// An array the function returned, copied: 32-bit indices stay 32-bit.
enum Returned {
    /// 64-bit indices or values, as the memory holds them.
    Wide(Array),
    /// 32-bit indices.
    Narrow(Vec<i32>),
}

/// A value passed by pointer to a by-value parameter.
enum Scalar {
    Int(i64),
    Real(f64),
}

/// `v` at 32 bits, or `None` when a value does not fit: one pass into a
/// block of the final size (collecting `Result`s would grow it by
/// doubling, copying and touching fresh pages at each step).
fn narrowed(v: &[i64]) -> Option<Vec<i32>> {
    let mut fits = true;
    let copy: Vec<i32> = v
        .iter()
        .map(|&x| {
            fits &= i64::from(x as i32) == x;
            x as i32
        })
        .collect();
    fits.then_some(copy)
}

/// The value of symbol or input scalar `p` in `memory`.
fn scalar(p: &Parameter, memory: &Memory) -> Result<Scalar, String> {
    if let Some(v) = memory.symbols.get(&p.source) {
        return Ok(Scalar::Int(*v));
    }
    match memory.arrays.get(&p.source) {
        Some(Array::Int(v)) if v.len() == 1 => Ok(Scalar::Int(v[0])),
        Some(Array::Real(v)) if v.len() == 1 => Ok(Scalar::Real(v[0])),
        _ => Err(format!("no value for `{}`", p.source)),
    }
}

/// Where `a`'s elements are, to be read.
fn array_ptr(a: &Array) -> *const c_void {
    match a {
        Array::Int(v) | Array::RealInt(v) => v.as_ptr().cast(),
        Array::Real(v) => v.as_ptr().cast(),
        Array::Real32(v) => v.as_ptr().cast(),
        Array::RealInt32(v) => v.as_ptr().cast(),
    }
}

/// Where `a`'s elements are, to be written: its own (a shared array is
/// copied first).
fn array_mut_ptr(a: &mut Array) -> *mut c_void {
    match a {
        Array::Int(v) | Array::RealInt(v) => v.to_mut().as_mut_ptr().cast(),
        Array::Real(v) => v.to_mut().as_mut_ptr().cast(),
        Array::Real32(v) => v.to_mut().as_mut_ptr().cast(),
        Array::RealInt32(v) => v.to_mut().as_mut_ptr().cast(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use codegen::ast::LoopProgram;
    use codegen::available_memory::Budget;
    use codegen::width::{IndexWidth, IndexWidths, ValueType};
    use synth::builtin::load_format;
    use synth::instance::{Instance, Values};
    use synth::synthesize::{synthesize, Synthesized};

    use super::{library_source, Library};
    use crate::native_cache::obtain;

    /// The library of `s` at `widths`, compiled into `cache`.
    fn compiled(
        s: &Synthesized,
        program: &LoopProgram,
        widths: IndexWidths,
        cache: &std::path::Path,
    ) -> Library {
        let source = library_source(s, program, widths, ValueType::F64).expect("prints");
        let (src, dst) = (&s.conversion.src, &s.conversion.dst_given);
        obtain(
            Some(cache),
            src,
            dst,
            widths,
            ValueType::F64,
            &source,
            &crate::observe::Quiet,
        )
        .expect("compiles")
        .0
    }

    /// A 32-bit instance goes through a compiled conversion at 32 bits
    /// without being widened: its arrays are passed as they are, the
    /// results come back as [`Values::Int32`] (CSC's `row`, which the
    /// function sizes itself, taken from spf's allocator), and they equal
    /// the interpreter's; at 64 bits everything stays 64-bit.
    #[test]
    fn thirty_two_bit_arrays_pass_through_the_library() {
        let (csr, csc) = (load_format("csr").unwrap(), load_format("csc").unwrap());
        let s = synthesize(&csr, &csc).expect("synthesizes");
        let program = s.program().expect("scans");
        let mut input = Instance {
            format: "CSR".into(),
            ..Instance::default()
        };
        for (name, v) in [("NR", 3), ("NC", 4), ("NNZ", 5)] {
            input.symbols.insert(name.into(), v);
        }
        let arrays = [
            ("rowptr", Values::Int32(vec![0, 2, 2, 5].into())),
            ("col", Values::Int32(vec![1, 3, 0, 1, 3].into())),
            ("A", Values::Real(vec![1.0, 2.0, 3.0, 4.0, 5.0].into())),
        ];
        for (name, v) in arrays {
            input.arrays.insert(name.into(), v);
        }
        let cache = std::env::temp_dir().join(format!("spf-native-w32-{}", std::process::id()));
        for width in [IndexWidth::W32, IndexWidth::W64] {
            let widths = IndexWidths::uniform(width);
            let lib = compiled(&s, &program, widths, &cache);
            let out = lib
                .run(
                    &s,
                    &program,
                    &mut input.clone(),
                    widths,
                    &Arc::new(Budget::new()),
                )
                .expect("runs");
            let want = s
                .run_program_at(&program, &input, widths)
                .expect("interprets");
            assert_eq!(out.arrays, want.arrays, "{width:?}");
            assert_eq!(out.arrays["row"], Values::Int(vec![2, 0, 2, 0, 2].into()));
            for name in ["colptr", "row"] {
                let narrow = matches!(out.arrays[name], Values::Int32(_));
                assert_eq!(narrow, width == IndexWidth::W32, "{name} at {width:?}");
            }
        }
        let _ = std::fs::remove_dir_all(&cache);
    }

    /// The runtime's own large blocks (COO → CSR's permutation of 600,000
    /// entries holds their words in 4.8 MB) come from spf, and the
    /// conversion's result is the CSR of the entries.
    #[test]
    fn large_runtime_blocks_come_from_spf() {
        let (coo, csr) = (load_format("coo").unwrap(), load_format("csr").unwrap());
        let s = synthesize(&coo, &csr).expect("synthesizes");
        let program = s.program().expect("scans");
        // Entry n at row n % 1000 and column (7 (n / 1000) + n) % 1000:
        // 600 distinct columns a row, rows interleaved.
        let n = 600_000i64;
        let (rows, cols): (Vec<i32>, Vec<i32>) = (0..n)
            .map(|e| ((e % 1000) as i32, ((7 * (e / 1000) + e) % 1000) as i32))
            .unzip();
        let values: Vec<f64> = (0..n).map(|e| e as f64 + 0.5).collect();
        let mut input = Instance {
            format: "COO".into(),
            ..Instance::default()
        };
        for (name, v) in [("NR", 1000), ("NC", 1000), ("NNZ", n)] {
            input.symbols.insert(name.into(), v);
        }
        input
            .arrays
            .insert("row".into(), Values::Int32(rows.clone().into()));
        input
            .arrays
            .insert("col".into(), Values::Int32(cols.clone().into()));
        input
            .arrays
            .insert("A".into(), Values::Real(values.clone().into()));
        let cache = std::env::temp_dir().join(format!("spf-native-large-{}", std::process::id()));
        let widths = IndexWidths::uniform(IndexWidth::W32);
        let lib = compiled(&s, &program, widths, &cache);
        let out = lib
            .run(&s, &program, &mut input, widths, &Arc::new(Budget::new()))
            .expect("runs");
        // Obtained from spf and given back to it: the runtime frees its
        // scratch before it returns.
        let (obtained, released) = lib.large_blocks();
        assert!(obtained >= 1 && released >= 1, "{obtained} {released}");
        // The CSR, computed here: entries sorted by (row, column).
        let mut sorted: Vec<(i32, i32, f64)> = (0..n as usize)
            .map(|e| (rows[e], cols[e], values[e]))
            .collect();
        sorted.sort_by_key(|&(i, j, _)| (i, j));
        let rowptr: Vec<i32> = (0..=1000).map(|i| i * 600).collect();
        assert_eq!(out.arrays["rowptr"], Values::Int32(rowptr.into()));
        assert_eq!(
            out.arrays["col"],
            Values::Int32(sorted.iter().map(|e| e.1).collect())
        );
        assert_eq!(
            out.arrays["A"],
            Values::Real(sorted.iter().map(|e| e.2).collect())
        );
        let _ = std::fs::remove_dir_all(&cache);
    }

    /// A block beyond the call's budget is refused (null, the refusal
    /// kept to name the sizes), but for a zeroed one, made untaken; what
    /// is given back can be taken again.
    #[test]
    fn the_runtimes_blocks_are_taken_out_of_the_budget() {
        use super::{host_obtain, host_release, HostAllocations};
        use std::ffi::c_void;
        let large = codegen::available_memory::CHECKED_BYTES as usize;
        let mut host = HostAllocations::new(Arc::new(Budget::of(Some(large as u64 * 3 / 2))));
        let ctx: *mut c_void = (&mut host as *mut HostAllocations).cast();
        // SAFETY: `ctx` is a live `HostAllocations`; the block is given
        // back once.
        unsafe {
            let p = host_obtain(ctx, large, 0);
            assert!(!p.is_null());
            assert!(host_obtain(ctx, large, 0).is_null());
            host_release(ctx, p);
            let q = host_obtain(ctx, large, 0);
            assert!(!q.is_null());
            // A zeroed block beyond the budget is made, untaken: giving
            // it back frees nothing it did not take.
            let z = host_obtain(ctx, large, 1);
            assert!(!z.is_null());
            host_release(ctx, z);
            let refused_again = host_obtain(ctx, large, 0);
            assert!(refused_again.is_null());
            host_release(ctx, q);
        }
        let refused = host.refused.take().expect("the refusal is kept");
        assert!(
            refused
                .to_string()
                .contains("needs 32.0 MiB, 16.0 MiB available"),
            "{refused}"
        );
    }

    /// The runtime's large blocks: obtained zeroed when asked; a `realloc`
    /// to a size the block holds keeps it, a larger one moves it with its
    /// bytes; a null block is obtained anew. Each is counted.
    #[test]
    fn the_runtimes_large_blocks_keep_their_bytes_when_they_grow() {
        use super::{host_obtain, host_release, host_resize, HostAllocations};
        use std::ffi::c_void;
        let mut host = HostAllocations::new(Arc::new(Budget::new()));
        let ctx: *mut c_void = (&mut host as *mut HostAllocations).cast();
        let size = crate::memory::LARGE + 8;
        // SAFETY: `ctx` is a live `HostAllocations`; every block is the
        // runtime's (these calls'), used within its size and given back
        // once.
        unsafe {
            let p = host_obtain(ctx, size, 1);
            assert!(!p.is_null());
            let bytes = std::slice::from_raw_parts_mut(p.cast::<u8>(), size);
            assert!(bytes.iter().all(|&b| b == 0));
            for (k, b) in bytes.iter_mut().enumerate() {
                *b = (k % 251) as u8;
            }
            assert_eq!(host_resize(ctx, p, size - 8), p);
            let q = host_resize(ctx, p, 3 * size);
            assert!(!q.is_null());
            let moved = std::slice::from_raw_parts(q.cast::<u8>(), size);
            assert!(moved.iter().enumerate().all(|(k, &b)| b == (k % 251) as u8));
            host_release(ctx, q);
            let r = host_resize(ctx, std::ptr::null_mut(), size);
            assert!(!r.is_null());
            host_release(ctx, r);
        }
        assert!(host.large.0 >= 3 && host.large.1 >= 2, "{:?}", host.large);
    }
}
