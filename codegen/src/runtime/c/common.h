/* The spf runtime for C: the runtime objects that synthesized conversions
 * call (semantics in spf's docs/runtime.md). spf's C backend prints this
 * text once before every generated function that uses an object; the guard
 * lets several generated functions share one file. Every function is
 * `static inline` (no unused-function warnings), C99, and compiles with
 * -Wall -Wextra -pedantic -Werror.
 *
 * Misuse that could corrupt memory or silently give wrong results (an insert
 * after sort(), a key outside its counting range or negative in a morton
 * order, a value outside an ordered set's bounds or a scatter's range,
 * start()/size()/value()/index()/place() before sort(), a scatter's place(v)
 * or slot(v) more often than v was inserted; a scatter checks its inserts
 * when it is sorted, slotted or freed, and its places when it is freed)
 * prints a message to stderr and aborts, as does running out of memory.
 * Reads with an entry, position or component out of range, a scatter's
 * start(v)/place(v)/slot(v) with v out of range, and a scatter's
 * place_inserted(v), which its caller states is not called more often than
 * v was inserted, are not checked, like the generated code's array
 * accesses; nor is spf_perm_view's statement that the inserted key
 * components are the viewed arrays' elements at the entry numbers.
 *
 * SPF_INPUT_VALIDATED, defined before this text, states that the caller
 * has checked the input against its descriptor (index arrays within their
 * ranges), as `spf build`'s driver does before it calls the conversion:
 * the keys a correct conversion inserts are then within range, and the
 * inserts' range checks (a counting permutation's, a bounded ordered
 * set's, a scatter's sink) are left out. Misuse by the calling code (an
 * insert after sort()) is then unchecked too. */
#ifndef SPF_RUNTIME_H
#define SPF_RUNTIME_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints `spf runtime: WHAT (VALUE)` and aborts. Out of line and cold, so
 * that a check in a hot loop costs a compare and a branch, not a call's
 * worth of code in the loop's layout. */
/* SPF_INLINE: every function of a permutation (spf_perm_*, taking the
 * permutation) is inlined into the generated function, whatever its size:
 * a permutation whose address escapes into a call cannot keep its fields
 * in registers through the generated loops (a copy loop after the sort
 * took 1.5 times as long when GCC's size limits left one sort out of
 * line); the large paths that run out of line take the fields instead
 * (spf_msd_partitioned, spf_lsd_entries, spf_sorted_entries). */
#if defined(__GNUC__)
#define SPF_OUT_OF_LINE __attribute__((noinline, unused))
#define SPF_COLD __attribute__((noinline, cold, noreturn, unused))
#define SPF_INLINE __attribute__((always_inline))
#else
#define SPF_OUT_OF_LINE
#define SPF_COLD
#define SPF_INLINE
#endif
/* A program that must not end here (spf convert's shared libraries)
 * defines SPF_DIE(what, value), which must not return, first. */
#ifdef SPF_DIE
SPF_COLD static void spf_die(const char *what, int64_t value)
{
    SPF_DIE(what, value);
}
#else
SPF_COLD static void spf_die(const char *what, int64_t value)
{
    fprintf(stderr, "spf runtime: %s (%lld)\n", what, (long long)value);
    abort();
}
#endif

/* Branch hints: the checks that abort are never taken by a correct program;
 * a prefetch of the cache line at `addr` ahead of a random access (_W: of
 * one about to be written). */
#if defined(__GNUC__)
#define SPF_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SPF_LIKELY(x) __builtin_expect(!!(x), 1)
#define SPF_PREFETCH(addr) __builtin_prefetch(addr)
#define SPF_PREFETCH_W(addr) __builtin_prefetch(addr, 1)
#else
#define SPF_UNLIKELY(x) (x)
#define SPF_LIKELY(x) (x)
#define SPF_PREFETCH(addr) ((void)0)
#define SPF_PREFETCH_W(addr) ((void)0)
#endif

/* n elements of `size` bytes (never a 0-byte block); aborts on failure. */
/* What an allocation that cannot be made does: abort, unless the program
 * defines SPF_OUT_OF_MEMORY(n, size) first (spf build's driver reports the
 * size and exits with status 2: a size that comes from the input is the
 * input's problem, not a crash). */
#ifndef SPF_OUT_OF_MEMORY
#define SPF_OUT_OF_MEMORY(n, size) spf_die("allocation too large", (n))
#endif

/* Asked before every allocation of n elements of `size` bytes (zeroed ones
 * by SPF_ADMIT_ZEROED) and before a block at p grows to n of them: whether
 * they fit the memory the process may fill. Nothing, unless the program defines them first (spf build's
 * driver compares them with the available memory and exits with status 2
 * when they do not fit: Linux would let the allocation succeed and kill the
 * process when it writes the pages). */
#ifndef SPF_ADMIT
#define SPF_ADMIT(n, size) ((void)0)
#endif
#ifndef SPF_ADMIT_GROWTH
#define SPF_ADMIT_GROWTH(p, n, size) ((void)0)
#endif
#ifndef SPF_ADMIT_ZEROED
#define SPF_ADMIT_ZEROED(n, size) ((void)0)
#endif

static inline void *spf_alloc(int64_t n, size_t size)
{
    void *p;
    if (n < 0 || (uint64_t)n > SIZE_MAX / size)
        SPF_OUT_OF_MEMORY(n, size);
    SPF_ADMIT(n, size);
    p = malloc(n > 0 ? (size_t)n * size : 1);
    if (p == NULL)
        SPF_OUT_OF_MEMORY(n, size);
    return p;
}

/* `p` resized to n elements of `size` bytes; aborts on failure. */
static inline void *spf_grow(void *p, int64_t n, size_t size)
{
    if (n < 0 || (uint64_t)n > SIZE_MAX / size)
        SPF_OUT_OF_MEMORY(n, size);
    SPF_ADMIT_GROWTH(p, n, size);
    p = realloc(p, n > 0 ? (size_t)n * size : 1);
    if (p == NULL)
        SPF_OUT_OF_MEMORY(n, size);
    return p;
}

/* n zeroed elements of `size` bytes (never a 0-byte block); aborts on
 * failure. */
static inline void *spf_alloc_zero(int64_t n, size_t size)
{
    void *p;
    if (n < 0 || (uint64_t)n > SIZE_MAX / size)
        SPF_OUT_OF_MEMORY(n, size);
    SPF_ADMIT_ZEROED(n, size);
    p = calloc(n > 0 ? (size_t)n : 1, size);
    if (p == NULL)
        SPF_OUT_OF_MEMORY(n, size);
    return p;
}

