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

static inline void *spf_alloc(int64_t n, size_t size)
{
    void *p;
    if (n < 0 || (uint64_t)n > SIZE_MAX / size)
        SPF_OUT_OF_MEMORY(n, size);
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
    p = calloc(n > 0 ? (size_t)n : 1, size);
    if (p == NULL)
        SPF_OUT_OF_MEMORY(n, size);
    return p;
}

/* ------------------------------------------------------------------------
 * Permutation(K, ORDER) */

enum { SPF_LEX, SPF_COUNTING, SPF_MORTON };

/* The permutation's sizes, counters and hot copies are `long long`, a type
 * other than int64_t where int64_t is `long` (LP64 Linux and BSD), the
 * range of int64_t in practice: by the aliasing rules a store into the keys
 * or counts (int64_t) cannot change them, so the compiler keeps them in
 * registers through a loop of inserts, and through the loops over the
 * positions, instead of reading them again after every store. */
typedef long long spf_long;

/* insert()'s copies for the first SPF_PERM_HOT compared components. */
#define SPF_PERM_HOT 4

typedef struct {
    spf_long k;         /* key components */
    spf_long j;         /* compared leading components (1..k); the rest is a payload */
    int order;          /* SPF_LEX, SPF_COUNTING or SPF_MORTON */
    int sorted;
    int in_order;       /* no key so far comes before the one inserted just
                           before it: sort() has nothing to move */
    spf_long n, cap;    /* entries, capacity of the key store */
    spf_long width;     /* the components kept (stored or viewed): k, or
                           k - 1 while the last component is a payload equal
                           to every entry's number (key() then answers it
                           with entry()) */
    spf_long stride;    /* words stored per entry: width, or 0 when the
                           components are viewed */
    int64_t *keys;      /* stride per entry, in insertion order (sort moves
                           no key) */
    int32_t *keys32;    /* or, with narrow, the same of int32_t (at most one
                           of keys, keys32 is set) */
    spf_long narrow;    /* the key store is keys32: counting, every stored
                           component compared (width <= j) and every extent
                           at most 2^31, so that each fits 32 bits; until a
                           payload must be stored (widen) */
    const int64_t **views; /* after spf_perm_view: component d < width of
                           entry e is views[d][e] (the caller's arrays, not
                           stored, not freed); NULL otherwise */
    const int32_t **views32; /* after spf_perm_view32: the same, of int32_t
                           arrays (at most one of views, views32 is set) */
    spf_long reserved;  /* with views: the capacity reserve() asked for (the
                           key store, if widening needs one) */
    uint64_t *entries;  /* after sort: the entry at position i is
                           entries[i] & mask; NULL: the identity */
    uint64_t mask;
    int ebits;          /* after an MSD counting sort: entries[i] >> ebits
                           is the compared components after the first, as
                           one mixed-radix number (key() decodes them from
                           it); 0 otherwise */
    int64_t *field_at;  /* after a counting sort whose words hold every
                           compared component in a bit field of its own
                           (the first one too): j + 1 bit positions,
                           component d in bits field_at[d + 1] ..
                           field_at[d] - 1 of the sorted word (field_at[j]
                           is ebits), so that key() extracts it and the
                           ranks compare words; NULL otherwise */
    int64_t *positions; /* after sort: the position of each entry, computed
                           by the first map() (NULL until then) */
    int64_t *extents;   /* counting: the j extents */
    int64_t **counts;   /* counting: per component, how many keys have each value */
    spf_long counted;   /* counting: the components whose counts are kept
                           (the first; the others from their first count()) */
    int64_t *count_base;
    int64_t *starts;    /* counting, after sort: extents[0] + 1 prefix sums */
    uint64_t *bits;     /* morton: per compared component, the or of its values */
    uint64_t *lanes;    /* after a morton radix sort: per compared component,
                           the bits of the compacted code it fills (key()
                           extracts it from the sorted code) */
    uint64_t *codes;    /* with lanes, when the codes did not fit one word
                           with the entry numbers: the sorted codes */
    int64_t *ranks;     /* after sort: the distinct rank of each position,
                           computed by the first rank() or ranks() (NULL until then) */
    int64_t nranks;     /* the number of distinct compared keys, with ranks */
    int64_t **prefix;   /* after sort: per prefix length c (1..k), the distinct
                           rank of each position by the first c components,
                           computed by the first prefix_rank(c, .) (NULL until then) */
    int64_t *nprefix;   /* per c, the number of distinct prefixes */
    /* insert()'s state, outside the keys (no store-to-load round trip
       through the key just written) */
    int64_t *count0;    /* counting: counts[0] */
    spf_long lim[SPF_PERM_HOT]; /* counting: extents[d] for d < SPF_PERM_HOT */
    int coded;          /* counting: the product of the extents fits an
                           int64_t, so that in_order compares the keys' codes */
    spf_long code;      /* with coded: the last key's mixed-radix code
                           k0 * E1 * ... + ... + k(j-1); 0 before the first */
    spf_long last[SPF_PERM_HOT]; /* lex, counting without coded, for
                           j <= SPF_PERM_HOT: the last key's compared components */
    /* after sort: component d < SPF_PERM_HOT of the key at position i is
       the bits word_bits[d] of entries[i], packed, where word_bits[d] != 0
       (the entry number; an MSD or lsd2 sort's second component; a Morton
       radix sort's components): key()'s few instructions for a loop over
       the positions; word_shift[d] >= 0 where those bits are contiguous
       (without BMI2's pext, a shift and a mask). Not unsigned: the
       generated code's int64_t stores do not alias them. */
    spf_long word_bits[SPF_PERM_HOT], word_shift[SPF_PERM_HOT];
    /* The word store (spf_perm_reserve): instead of the key store, each
       entry's word of the whole-word sort, built by insert() (component d
       at bits wshift[d] and up, the entry number in the wbits below), in
       entry order; NULL otherwise */
    uint64_t *wstore;
    spf_long wshift[SPF_PERM_HOT];
    spf_long wbits;
} spf_perm;

/* An empty permutation of keys of k components of which the order compares
 * the first j (the last k - j are a payload the sort carries along);
 * `extents` (j values) for SPF_COUNTING, ignored (may be NULL) otherwise. */
static inline spf_perm spf_perm_new_compared(int64_t k, int64_t j, int order,
                                             const int64_t *extents)
{
    spf_perm p;
    int64_t d, total = 0;
    p.k = k;
    p.j = j;
    p.order = order;
    p.sorted = 0;
    p.in_order = 1;
    p.n = 0;
    p.cap = 0;
    p.width = p.stride = j < k ? k - 1 : k;
    p.keys = NULL;
    p.keys32 = NULL;
    p.narrow = 0;
    p.views = NULL;
    p.views32 = NULL;
    p.reserved = 0;
    p.entries = NULL;
    p.mask = ~(uint64_t)0;
    p.ebits = 0;
    p.field_at = NULL;
    p.positions = NULL;
    p.extents = NULL;
    p.counts = NULL;
    p.count_base = NULL;
    p.counted = 1;
    p.starts = NULL;
    p.bits = NULL;
    p.lanes = NULL;
    p.codes = NULL;
    p.ranks = NULL;
    p.nranks = 0;
    p.prefix = NULL;
    p.nprefix = NULL;
    p.count0 = NULL;
    p.coded = 0;
    p.code = 0;
    for (d = 0; d < SPF_PERM_HOT; d++) {
        p.lim[d] = p.last[d] = 0;
        p.word_bits[d] = 0;
        p.word_shift[d] = -1;
        p.wshift[d] = 0;
    }
    p.wstore = NULL;
    p.wbits = 0;
    if (k < 1)
        spf_die("a Permutation needs at least one key component", k);
    if (j < 1 || j > k)
        spf_die("a Permutation compares 1 to k key components", j);
    if (order == SPF_COUNTING) {
        p.extents = (int64_t *)spf_alloc(j, sizeof *p.extents);
        p.counts = (int64_t **)spf_alloc(j, sizeof *p.counts);
        for (d = 0; d < j; d++) {
            if (extents[d] < 0)
                spf_die("negative counting extent", extents[d]);
            if (extents[d] > INT64_MAX - total)
                spf_die("counting extents too large", extents[d]);
            p.extents[d] = extents[d];
            if (d < SPF_PERM_HOT)
                p.lim[d] = extents[d];
            total += extents[d];
        }
        p.count_base = (int64_t *)spf_alloc_zero(total, sizeof *p.count_base);
        for (d = 0, total = 0; d < j; d++) {
            p.counts[d] = p.count_base + total;
            total += p.extents[d];
        }
        p.count0 = p.counts[0];
        /* a 32-bit key store where every stored component is compared and
           bounded by 2^31 (half the bytes an insert writes and a sort
           reads: TCOO8's four computed tile components) */
        p.narrow = p.width <= j;
        for (d = 0; d < j; d++)
            if (p.extents[d] > (int64_t)1 << 31)
                p.narrow = 0;
        /* codes up to the product of the extents (an extent 0 takes no key) */
        for (d = 0, total = 1, p.coded = 1; d < j; d++)
            if (p.extents[d] > 1 && total > INT64_MAX / p.extents[d])
                p.coded = 0;
            else if (p.extents[d] > 1)
                total *= p.extents[d];
    } else if (order == SPF_MORTON) {
        p.bits = (uint64_t *)spf_alloc_zero(j, sizeof *p.bits);
    }
    return p;
}

/* An empty permutation of keys of k components, all compared. */
static inline spf_perm spf_perm_new(int64_t k, int order, const int64_t *extents)
{
    return spf_perm_new_compared(k, k, order, extents);
}

/* <0, 0, >0 as key x[0..k) comes before, ties with, comes after y[0..k)
 * (k: the compared components)
 * (SPF_LEX or SPF_MORTON). Morton: the component whose bits differ at the
 * highest level decides ("most significant differing bit" by xor; at equal
 * levels the later component, whose bit is more significant in the code). */
static inline int spf_key_cmp(int order, int64_t k, const int64_t *x, const int64_t *y)
{
    int64_t d;
    if (order == SPF_MORTON) {
        int64_t dim = 0;
        uint64_t best = 0;
        for (d = 0; d < k; d++) {
            const uint64_t diff = (uint64_t)(x[d] ^ y[d]);
            if (diff != 0 && !(diff < best && diff < (diff ^ best))) {
                dim = d;
                best = diff;
            }
        }
        return (x[dim] > y[dim]) - (x[dim] < y[dim]);
    }
    for (d = 0; d < k; d++)
        if (x[d] != y[d])
            return x[d] < y[d] ? -1 : 1;
    return 0;
}

/* Copies a record of r words (no memcpy call for the usual small r).
 * Inlined where a key of two words is copied, GCC warns about the cases of
 * more words that the record's length rules out at run time; the warning
 * is silenced for this function alone. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif
static inline void spf_copy(int64_t *to, const int64_t *from, int64_t r)
{
    int64_t c;
    switch (r) {
    case 2:
        to[0] = from[0];
        to[1] = from[1];
        return;
    case 3:
        to[0] = from[0];
        to[1] = from[1];
        to[2] = from[2];
        return;
    case 4:
        to[0] = from[0];
        to[1] = from[1];
        to[2] = from[2];
        to[3] = from[3];
        return;
    default:
        for (c = 0; c < r; c++)
            to[c] = from[c];
    }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* Where a kept component (d < width) is: component d of entry e is
 * spf_col_at(spf_perm_col(p, d), e), in the caller's array (viewed: int64_t
 * or int32_t, step 1) or in the key store (64-bit or 32-bit, step stride).
 * Readers take the column once, before their loops (whose branch on the
 * element width the compiler takes out of the loop). */
typedef struct {
    const int64_t *w;  /* 64-bit elements (the key store or an int64_t view) */
    const int32_t *h;  /* or 32-bit elements (the 32-bit key store or an
                          int32_t view): w is NULL */
    int64_t st;        /* the step between entries, in elements */
    const uint64_t *f; /* or a bit field of the word store: the bits sh and
                          up of f[e], under m (w and h NULL) */
    int sh;
    uint64_t m;
} spf_col;

static inline SPF_INLINE int spf_perm_viewed(const spf_perm *p)
{
    return p->views != NULL || p->views32 != NULL;
}

static inline SPF_INLINE spf_col spf_perm_col(const spf_perm *p, int64_t d)
{
    spf_col c;
    c.w = NULL;
    c.h = NULL;
    c.st = 1;
    c.f = NULL;
    c.sh = 0;
    c.m = 0;
    if (p->wstore != NULL && d < SPF_PERM_HOT) {
        /* (d < width <= j <= SPF_PERM_HOT with a word store) */
        const int64_t top = d > 0 ? p->wshift[d - 1] : 64;
        c.f = p->wstore;
        c.sh = (int)p->wshift[d];
        c.m = top - c.sh >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << (top - c.sh)) - 1;
    } else if (p->views32 != NULL)
        c.h = p->views32[d];
    else if (p->views != NULL)
        c.w = p->views[d];
    else if (p->keys != NULL) {
        c.w = p->keys + d;
        c.st = p->stride;
    } else if (p->keys32 != NULL) {
        c.h = p->keys32 + d;
        c.st = p->stride;
    }
    return c;
}

static inline int64_t spf_col_at(spf_col c, int64_t e)
{
    if (SPF_UNLIKELY(c.f != NULL))
        return (int64_t)(c.f[e] >> c.sh & c.m);
    return c.h != NULL ? (int64_t)c.h[e * c.st] : c.w[e * c.st];
}

static inline void spf_col_prefetch(spf_col c, uint64_t e)
{
    if (c.f != NULL)
        SPF_PREFETCH(c.f + e);
    else if (c.h != NULL)
        SPF_PREFETCH(c.h + e * (uint64_t)c.st);
    else
        SPF_PREFETCH(c.w + e * (uint64_t)c.st);
}

/* Counting: the counts of the components below `upto` from then on (those
 * of the components not counted yet from the keys inserted so far). */
static inline SPF_INLINE void spf_perm_count_all(spf_perm *p, int64_t upto)
{
    int64_t d, i;
    for (d = p->counted; d < upto && p->n > 0; d++) {
        const spf_col col = spf_perm_col(p, d);
        int64_t *count = p->counts[d];
        if (col.w == NULL && col.h == NULL && col.f == NULL && p->field_at != NULL &&
            p->entries != NULL) {
            /* sorted from a word store: the keys are the sorted words'
               fields only (counts need no entry order) */
            const int sh = (int)p->field_at[d + 1], w = (int)(p->field_at[d] - p->field_at[d + 1]);
            const uint64_t m = w == 0 ? 0 : (((uint64_t)1 << w) - 1) << sh;
            for (i = 0; i < p->n; i++)
                count[(p->entries[i] & m) >> sh]++;
        } else if (col.f != NULL)
            for (i = 0; i < p->n; i++)
                count[col.f[i] >> col.sh & col.m]++;
        else if (col.h != NULL)
            for (i = 0; i < p->n; i++)
                count[col.h[i * col.st]]++;
        else
            for (i = 0; i < p->n; i++)
                count[col.w[i * col.st]]++;
    }
    if (upto > p->counted)
        p->counted = upto;
}

/* Leaves the word store (spf_perm_reserve): the kept components of the n
 * entries decoded from their words into a key store of the word store's
 * capacity (32-bit where narrow), as insert() would have stored them. For
 * every reader of the keys other than the whole-word sort: a sort that
 * takes another path, an insert past the reservation, widen().
 * spf_words_decode does the work out of line, on copies of the fields
 * (the generated function's permutation does not escape into it): w
 * components, component d at bits shift[d] .. shift[d - 1] - 1 (the top
 * one up to bit 63). */
SPF_OUT_OF_LINE static void *spf_words_decode(const uint64_t *words, int64_t n, int64_t cap,
                                              int64_t w, const int64_t *shift, int narrow)
{
    int32_t *keys32 = narrow ? (int32_t *)spf_alloc(cap * w, sizeof *keys32) : NULL;
    int64_t *keys = narrow ? NULL : (int64_t *)spf_alloc(cap * w, sizeof *keys);
    int64_t i, d;
    for (d = 0; d < w; d++) {
        const int64_t top = d > 0 ? shift[d - 1] : 64;
        const uint64_t m = top - shift[d] >= 64 ? ~(uint64_t)0
                                                : ((uint64_t)1 << (top - shift[d])) - 1;
        for (i = 0; i < n; i++) {
            const int64_t v = (int64_t)(words[i] >> shift[d] & m);
            if (narrow)
                keys32[i * w + d] = (int32_t)v;
            else
                keys[i * w + d] = v;
        }
    }
    return narrow ? (void *)keys32 : (void *)keys;
}

static inline SPF_INLINE void spf_perm_unword(spf_perm *p)
{
    int64_t shift[SPF_PERM_HOT], d;
    void *keys;
    if (p->wstore == NULL)
        return;
    for (d = 0; d < SPF_PERM_HOT; d++)
        shift[d] = p->wshift[d];
    if (p->cap < p->n)
        p->cap = p->n;
    keys = spf_words_decode(p->wstore, p->n, p->cap, p->width, shift, (int)p->narrow);
    if (p->narrow)
        p->keys32 = (int32_t *)keys;
    else
        p->keys = (int64_t *)keys;
    free(p->wstore);
    p->wstore = NULL;
    p->stride = p->width;
}

/* The last component stops being the entry numbers (a payload that differs
 * from its entry's number was inserted): the n records move from stride
 * k - 1 to k (backwards: each record's new place is at or after its old
 * one), the last component filled with the entry numbers. Viewed
 * components are materialized: copied from the caller's arrays into a key
 * store of stride k (the capacity reserve() asked for, if it can be had),
 * and the views dropped. */
static inline SPF_INLINE void spf_perm_widen(spf_perm *p)
{
    const int64_t k = p->k, s = k - 1;
    int64_t i, c;
    spf_perm_unword(p);
    if (spf_perm_viewed(p)) {
        int64_t *keys = NULL;
        p->cap = p->n;
        if (p->reserved > p->n && (uint64_t)p->reserved <= SIZE_MAX / sizeof *keys / (uint64_t)k)
            keys = (int64_t *)malloc((size_t)p->reserved * (size_t)k * sizeof *keys);
        if (keys != NULL)
            p->cap = p->reserved;
        else
            keys = (int64_t *)spf_alloc(p->cap * k, sizeof *keys);
        for (c = 0; c < s; c++) {
            const spf_col col = spf_perm_col(p, c);
            for (i = 0; i < p->n; i++)
                keys[i * k + c] = spf_col_at(col, i);
        }
        for (i = 0; i < p->n; i++)
            keys[i * k + s] = i;
        free(p->views);
        free(p->views32);
        p->views = NULL;
        p->views32 = NULL;
        p->keys = keys;
        p->width = p->stride = k;
        return;
    }
    p->narrow = 0;
    if (p->keys32 != NULL) {
        /* the 32-bit store, widened into a 64-bit one of stride k */
        int64_t *keys = (int64_t *)spf_alloc(p->cap * k, sizeof *keys);
        for (i = 0; i < p->n; i++) {
            for (c = 0; c < s; c++)
                keys[i * k + c] = p->keys32[i * s + c];
            keys[i * k + s] = i;
        }
        free(p->keys32);
        p->keys32 = NULL;
        p->keys = keys;
        p->width = p->stride = k;
        return;
    }
    if (p->cap > 0)
        p->keys = (int64_t *)spf_grow(p->keys, p->cap * k, sizeof *p->keys);
    for (i = p->n - 1; i >= 0; i--) {
        for (c = s - 1; c >= 0; c--)
            p->keys[i * k + c] = p->keys[i * s + c];
        p->keys[i * k + s] = i;
    }
    p->width = p->stride = k;
}

/* The number of bits of v (0 for 0). */
static inline int spf_bit_length(uint64_t v)
{
    int b = 0;
    while (v != 0) {
        b++;
        v >>= 1;
    }
    return b;
}

/* Entries arrays have SPF_AHEAD more elements, 0 (a valid entry), that
 * key() reads ahead. */
enum { SPF_AHEAD = 12 };

/* The whole-word LSD sort (spf_perm_counting_words) for at most
 * SPF_WORDS_MAX entries (two arrays of 8 MiB: in the last-level cache;
 * beyond, MSD's partitioned scatter), where MSD's buckets would hold more
 * than SPF_WORDS_BUCKET entries on average (each radix-sorted on its
 * own, with its histograms: a fixed cost a short bucket does not repay)
 * and at most SPF_WORDS_LONG (longer buckets sort in L1 at little cost
 * per entry, where the whole words' passes go out of it: COO -> TCOO8 on
 * cant at 0.25, bands of 512 entries, 7% slower with whole words), in
 * digits of at most SPF_WORDS_DIGIT bits. */
#ifndef SPF_WORDS_MAX
#define SPF_WORDS_MAX (1 << 20)
#endif
#ifndef SPF_WORDS_DIGIT
#define SPF_WORDS_DIGIT 13
#endif
#ifndef SPF_WORDS_BUCKET
#define SPF_WORDS_BUCKET 32
#endif
#ifndef SPF_WORDS_LONG
#define SPF_WORDS_LONG 256
#endif
/* Whether the entries go to a word store (spf_perm.wstore) when n are
 * reserved before the first insert: a counting order of more than two and
 * at most SPF_PERM_HOT compared components, every kept one compared (the
 * payload, if any, the entry numbers), not viewed, each compared component
 * in a bit field of its own above the bits of the entry numbers below n,
 * and the whole-word sort the one the sort will choose for n entries
 * (spf_perm_counting_sort). insert() then builds each entry's word of that
 * sort, where it would store its components in the key store and the sort
 * would read them back to build the words (COO -> TCOO8: a quarter of the
 * sort's time on dixmaanl at 0.05); the fields' shifts are set in
 * wshift[] and wbits. */
static inline SPF_INLINE int spf_perm_word_layout(spf_perm *p, int64_t n)
{
    const int64_t j = p->j, e0 = p->order == SPF_COUNTING ? p->extents[0] : 0;
    int64_t d, at;
    int ebits;
    if (p->order != SPF_COUNTING || j <= 2 || j > SPF_PERM_HOT || p->width > j ||
        spf_perm_viewed(p) || n < 2 || n > SPF_WORDS_MAX || n <= SPF_WORDS_BUCKET * e0 ||
        n > SPF_WORDS_LONG * e0)
        return 0;
    ebits = spf_bit_length((uint64_t)(n - 1));
    at = ebits;
    for (d = j - 1; d >= 0; d--) {
        p->wshift[d] = at;
        at += p->extents[d] > 1 ? spf_bit_length((uint64_t)(p->extents[d] - 1)) : 0;
        if (at > 64)
            return 0;
    }
    p->wbits = ebits;
    return 1;
}

/* Room for n entries in all: a capacity hint, with no effect on any result,
 * that saves regrowing (and copying) the key store while the entries are
 * inserted. Reserved memory that is never written costs no page, so an
 * upper bound is a good hint. A reservation that cannot be made (n too
 * large for memory) is not made; after sort() nothing is done. With views
 * nothing is allocated: the hint is kept for widening. */
static inline SPF_INLINE void spf_perm_reserve(spf_perm *p, int64_t n)
{
    int64_t *keys;
    if (p->sorted)
        return;
    if (p->n == 0 && p->wstore == NULL && spf_perm_word_layout(p, n)) {
        /* the word store instead of the key store */
        free(p->keys);
        free(p->keys32);
        p->keys = NULL;
        p->keys32 = NULL;
        p->wstore = (uint64_t *)malloc(((size_t)n + SPF_AHEAD) * sizeof *p->wstore);
        if (p->wstore != NULL) {
            p->cap = n;
            return;
        }
        p->cap = 0;
    }
    if (p->wstore != NULL)
        return;
    if (spf_perm_viewed(p)) {
        if (n > p->reserved)
            p->reserved = n;
        return;
    }
    if (n <= p->cap || (uint64_t)n > SIZE_MAX / sizeof *keys / (uint64_t)p->k)
        return;
    if (p->narrow) {
        int32_t *keys32 =
            (int32_t *)realloc(p->keys32, (size_t)n * (size_t)p->stride * sizeof *keys32);
        if (keys32 == NULL)
            return;
        p->keys32 = keys32;
        p->cap = n;
        return;
    }
    keys = (int64_t *)realloc(p->keys, (size_t)n * (size_t)p->stride * sizeof *keys);
    if (keys == NULL)
        return;
    p->keys = keys;
    p->cap = n;
}

/* Key views: the caller states that component d (d < m) of the entry
 * inserted as number e will be arrays[d][e], for every entry it inserts,
 * and that the m arrays stay unchanged (and alive) until the permutation is
 * freed. m covers every stored component: k, or k - 1 when the last
 * component is a payload compared by no one (it is then the entry number,
 * stored only from the first insert where it is not: the views are then
 * materialized). The runtime stores nothing for those components: insert()
 * only counts and tracks the order, reserve() allocates nothing, the sorts
 * and key() read the arrays. Before the first insert (after one: aborts);
 * the arrays are not freed by spf_perm_free. Generated code calls it when
 * the permutation's only insert is reached once in every iteration of a
 * loop over n from 0 (step 1, no guard), each viewed component a read a[n]
 * of an input array (docs/runtime.md). Unchecked: a key component that
 * differs from its array's element gives wrong results. spf_perm_view32:
 * the same of int32_t arrays (generated code with 32-bit index arrays),
 * read widened. */
static inline SPF_INLINE void spf_perm_view_any(spf_perm *p, int64_t m, const void *const *arrays,
                                     int narrow)
{
    int64_t d;
    if (p->n > 0 || p->sorted)
        spf_die("view() after insert()", p->n);
    if (m < p->width || m > p->k)
        spf_die("views must cover every stored key component", m);
    free(p->views);
    free(p->views32);
    p->views = NULL;
    p->views32 = NULL;
    if (narrow) {
        p->views32 = (const int32_t **)spf_alloc(m, sizeof *p->views32);
        for (d = 0; d < m; d++)
            p->views32[d] = (const int32_t *)arrays[d];
    } else {
        p->views = (const int64_t **)spf_alloc(m, sizeof *p->views);
        for (d = 0; d < m; d++)
            p->views[d] = (const int64_t *)arrays[d];
    }
    if (p->wstore != NULL) {
        free(p->wstore);
        p->wstore = NULL;
    }
    if (p->keys != NULL || p->keys32 != NULL || p->cap > 0) {
        /* reserved before: kept as the hint */
        if (p->cap > p->reserved)
            p->reserved = p->cap;
        free(p->keys);
        free(p->keys32);
        p->keys = NULL;
        p->keys32 = NULL;
    }
    p->narrow = 0;
    p->width = m;
    p->stride = 0;
    p->cap = INT64_MAX; /* no store to grow */
}

static inline SPF_INLINE void spf_perm_view(spf_perm *p, int64_t m, const int64_t *const *arrays)
{
    spf_perm_view_any(p, m, (const void *const *)arrays, 0);
}

static inline SPF_INLINE void spf_perm_view32(spf_perm *p, int64_t m, const int32_t *const *arrays)
{
    spf_perm_view_any(p, m, (const void *const *)arrays, 1);
}

/* <0, 0, >0 as entry e's compared components (stored or viewed) come
 * before, tie with, come after key[0..j), as spf_key_cmp. */
static inline SPF_INLINE int spf_perm_cmp_entry(const spf_perm *p, int64_t e, const int64_t *key)
{
    int64_t d;
    if (p->order == SPF_MORTON) {
        int64_t dim = 0, x = 0;
        uint64_t best = 0;
        for (d = 0; d < p->j; d++) {
            const int64_t v = spf_col_at(spf_perm_col(p, d), e);
            const uint64_t diff = (uint64_t)(v ^ key[d]);
            if (diff != 0 && !(diff < best && diff < (diff ^ best))) {
                dim = d;
                best = diff;
                x = v;
            }
        }
        return best == 0 ? 0 : (x > key[dim]) - (x < key[dim]);
    }
    for (d = 0; d < p->j; d++) {
        const int64_t v = spf_col_at(spf_perm_col(p, d), e);
        if (v != key[d])
            return v < key[d] ? -1 : 1;
    }
    return 0;
}

/* Appends an entry with key key[0..k) (its number: the entries before it).
 * Generated code calls it in a loop with k, j and the order known (the
 * object is a local variable): inlined, its loops over the components
 * unroll and the branches on the order fold; the state it reads and writes
 * besides the keys and counts is in the struct, in types the key stores do
 * not alias (spf_long, pointers, int). Whether the keys come in order is
 * decided from copies of the last key's compared components (counting:
 * its code, one comparison), not from the keys just stored. With views,
 * nothing is stored (stride 0). */
static inline SPF_INLINE void spf_perm_insert(spf_perm *p, const int64_t *key)
{
    const spf_long k = p->k, j = p->j, e = p->n;
    spf_long d, stride;
    if (SPF_UNLIKELY(p->sorted))
        spf_die("insert after sort()", e);
    if (p->order == SPF_COUNTING) {
#ifndef SPF_INPUT_VALIDATED
        for (d = 0; d < j; d++)
            if (SPF_UNLIKELY((uint64_t)key[d] >=
                             (uint64_t)(d < SPF_PERM_HOT ? p->lim[d] : p->extents[d])))
                spf_die("key component outside its counting range", key[d]);
#endif
        p->count0[key[0]]++;
        for (d = 1; d < p->counted; d++)
            p->counts[d][key[d]]++;
    } else if (p->order == SPF_MORTON) {
        for (d = 0; d < j; d++) {
            if (SPF_UNLIKELY(key[d] < 0))
                spf_die("negative key component in a morton order", key[d]);
            p->bits[d] |= (uint64_t)key[d];
        }
    }
    if (SPF_UNLIKELY(p->width < k && key[k - 1] != e))
        spf_perm_widen(p);
    if (SPF_UNLIKELY(e == p->cap)) {
        spf_perm_unword(p); /* past the reservation: the key store */
        p->cap = p->cap ? 2 * p->cap : 64;
        if (p->cap > INT64_MAX / k)
            spf_die("too many entries", p->cap);
        if (p->narrow)
            p->keys32 = (int32_t *)spf_grow(p->keys32, p->cap * p->stride, sizeof *p->keys32);
        else
            p->keys = (int64_t *)spf_grow(p->keys, p->cap * p->stride, sizeof *p->keys);
    }
    stride = p->stride;
    if (!p->in_order) {
        /* out of order once: nothing more to track */
    } else if (p->order == SPF_COUNTING && SPF_LIKELY(p->coded)) {
        /* in range: the code is at least 0 (the initial one) and at most
           the product of the extents minus 1 */
        spf_long code = key[0];
        for (d = 1; d < j; d++)
            code = code * (d < SPF_PERM_HOT ? p->lim[d] : p->extents[d]) + key[d];
        if (code < p->code)
            p->in_order = 0;
        p->code = code;
    } else if (p->order != SPF_MORTON && j <= SPF_PERM_HOT) {
        if (e > 0)
            for (d = 0; d < j; d++)
                if (p->last[d] != key[d]) {
                    if (p->last[d] > key[d])
                        p->in_order = 0;
                    break;
                }
        for (d = 0; d < j; d++)
            p->last[d] = key[d];
    } else if (e > 0 && spf_perm_cmp_entry(p, e - 1, key) > 0) {
        p->in_order = 0;
    }
    if (p->wstore != NULL) {
        /* the word of the whole-word sort (in range: each component fits
           its field); the shifts are independent, not a chain */
        uint64_t w = (uint64_t)e;
        for (d = 0; d < j && d < SPF_PERM_HOT; d++)
            w |= (uint64_t)key[d] << p->wshift[d];
        p->wstore[e] = w;
    } else if (p->narrow) {
        /* in range (checked above, or by the caller's validation): fits;
           stride k or k - 1, so that the copy unrolls */
        if (stride == k)
            for (d = 0; d < k; d++)
                p->keys32[e * k + d] = (int32_t)key[d];
        else
            for (d = 0; d < k - 1; d++)
                p->keys32[e * (k - 1) + d] = (int32_t)key[d];
    } else if (stride == k)
        spf_copy(p->keys + e * k, key, k);
    else if (stride != 0)
        spf_copy(p->keys + e * stride, key, k - 1);
    p->n = e + 1;
}

/* Stable bottom-up merge sort of n records of r = k + 1 words (the key, then
 * the entry number) in a, by the first cmp key components; tmp: room for
 * n + 1 records. */
static inline void spf_perm_msort(int order, int64_t k, int64_t cmp, int64_t *a, int64_t *tmp,
                                  int64_t n)
{
    const int64_t r = k + 1;
    int64_t *src = a, *dst = tmp, *t, *hold = tmp + n * r;
    int64_t i, j, width;
    for (i = 0; i < n; i += 16) {
        const int64_t end = i + 16 < n ? i + 16 : n;
        for (j = i + 1; j < end; j++) {
            int64_t m = j;
            spf_copy(hold, a + j * r, r);
            while (m > i && spf_key_cmp(order, cmp, a + (m - 1) * r, hold) > 0) {
                spf_copy(a + m * r, a + (m - 1) * r, r);
                m--;
            }
            spf_copy(a + m * r, hold, r);
        }
    }
    for (width = 16; width < n; width *= 2) {
        for (i = 0; i < n; i += 2 * width) {
            const int64_t mid = i + width < n ? i + width : n;
            const int64_t end = mid + width < n ? mid + width : n;
            int64_t l = i, h = mid, o = i;
            while (l < mid && h < end) {
                if (spf_key_cmp(order, cmp, src + h * r, src + l * r) < 0)
                    spf_copy(dst + o++ * r, src + h++ * r, r);
                else
                    spf_copy(dst + o++ * r, src + l++ * r, r);
            }
            for (; l < mid; l++)
                spf_copy(dst + o++ * r, src + l * r, r);
            for (; h < end; h++)
                spf_copy(dst + o++ * r, src + h * r, r);
        }
        t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        for (i = 0; i < n * r; i++)
            a[i] = src[i];
}

/* MSD counting sorts (spf_perm_counting_sort) are chosen when the keys take
 * SPF_MSD_BYTES or more (out of cache, a second scatter pass costs more than
 * MSD's bucket sorts), for three compared components or more when the
 * first component's buckets hold SPF_MSD_BUCKET entries on average, and for
 * fewer than SPF_MSD_SMALL entries in short buckets (below SPF_MSD_BUCKET
 * on average): there LSD's fixed costs (a counting pass for the second
 * component, its prefix sums, a buffer of pairs) outweigh MSD's insertion
 * sorts of a few entries (shuffled COO -> CSR at 10-25K entries, rows of
 * 5: 0.83-0.86 of the hand-written C with LSD, 0.96-1.0 with MSD; from 48K
 * entries on, LSD is the faster, by up to 1.7x). With two compared
 * components, MSD also where the first component's buckets hold fewer than
 * SPF_MSD_SHORT entries on average: their sorts cost next to nothing, and
 * LSD's second scatter pass is a second random pass over every entry
 * (shuffled COO -> CSC on webbase-1M at 0.25, 776K entries in 250K
 * columns: 0.78-0.83 of the C with LSD, 1.02-1.09 with MSD).
 * Measured on a 2-core EPYC (2 MiB L2, 32 MiB L3) with matgen's matrices. */
#ifndef SPF_MSD_BUCKET
#define SPF_MSD_BUCKET 16
#endif
#ifndef SPF_MSD_SMALL
#define SPF_MSD_SMALL 32768
#endif
#ifndef SPF_MSD_SHORT
#define SPF_MSD_SHORT 4
#endif
#ifndef SPF_MSD_BYTES
#define SPF_MSD_BYTES (12 << 20)
#endif

/* n entries and the SPF_AHEAD zeros after them. */
static inline uint64_t *spf_entries_alloc(int64_t n)
{
    return (uint64_t *)spf_alloc(n + SPF_AHEAD, sizeof(uint64_t));
}

/* Sets the entries e (n of them, the SPF_AHEAD slots after them zeroed). */
static inline SPF_INLINE void spf_perm_set_entries(spf_perm *p, uint64_t *e, uint64_t mask)
{
    memset(e + p->n, 0, SPF_AHEAD * sizeof *e);
    p->entries = e;
    p->mask = mask;
}

/* The radix sorts' histograms: room for every pass of a 64-bit key. */
enum { SPF_DIGIT = 11, SPF_HIST = 6 << SPF_DIGIT };

/* Stable LSD radix sort of the n values a[0..n) by their bits lo..hi-1
 * (0 <= lo < hi <= 64; the bits above hi are 0, those below lo ride along),
 * in digits of at most max_digit bits; passes over a digit every value
 * shares are skipped. tmp: room for n values, hist: room for the passes'
 * histograms (SPF_HIST when max_digit <= SPF_DIGIT).
 * Returns a or tmp, whichever holds the sorted values. */
static inline uint64_t *spf_radix_u64(uint64_t *a, uint64_t *tmp, int64_t n, int lo, int hi,
                                      int max_digit, int64_t *hist)
{
    const int passes = (hi - lo + max_digit - 1) / max_digit;
    const int digit = (hi - lo + passes - 1) / passes;
    const int64_t buckets = (int64_t)1 << digit;
    const uint64_t m = (uint64_t)buckets - 1;
    uint64_t *src = a, *dst = tmp, *t;
    int64_t i, v;
    int pass;
    memset(hist, 0, (size_t)(passes * buckets) * sizeof *hist);
    if (passes <= 2) {
        /* one or two passes (short buckets, few bits): the digits' loop
           written out (4% of COO -> TCOO8 on small matrices) */
        const int64_t second = passes == 2 ? buckets : 0;
        for (i = 0; i < n; i++) {
            const uint64_t x = a[i] >> lo;
            hist[x & m]++;
            hist[second + (int64_t)((x >> digit) & m)] += passes - 1;
        }
    } else {
        for (i = 0; i < n; i++) {
            const uint64_t x = a[i] >> lo;
            for (pass = 0; pass < passes; pass++)
                hist[pass * buckets + (int64_t)((x >> (pass * digit)) & m)]++;
        }
    }
    for (pass = 0; pass < passes; pass++) {
        int64_t *h = hist + pass * buckets, sum = 0;
        const int shift = lo + pass * digit;
        if (h[(src[0] >> shift) & m] == n)
            continue; /* one digit for all: the pass keeps the order */
        for (v = 0; v < buckets; v++) {
            const int64_t c = h[v];
            h[v] = sum;
            sum += c;
        }
        for (i = 0; i < n; i++) {
            const uint64_t x = src[i];
            dst[h[(x >> shift) & m]++] = x;
        }
        t = src;
        src = dst;
        dst = t;
    }
    return src;
}

/* A Morton code and its entry. */
typedef struct {
    uint64_t code, entry;
} spf_pair;

/* spf_radix_u64 for (code, entry) pairs by the code's bits 0..hi-1. */
static inline spf_pair *spf_radix_pairs(spf_pair *a, spf_pair *tmp, int64_t n, int hi,
                                        int64_t *hist)
{
    const int passes = (hi + SPF_DIGIT - 1) / SPF_DIGIT;
    const int digit = (hi + passes - 1) / passes;
    const int64_t buckets = (int64_t)1 << digit;
    const uint64_t m = (uint64_t)buckets - 1;
    spf_pair *src = a, *dst = tmp, *t;
    int64_t i, v;
    int pass;
    memset(hist, 0, (size_t)(passes * buckets) * sizeof *hist);
    for (i = 0; i < n; i++)
        for (pass = 0; pass < passes; pass++)
            hist[pass * buckets + (int64_t)((a[i].code >> (pass * digit)) & m)]++;
    for (pass = 0; pass < passes; pass++) {
        int64_t *h = hist + pass * buckets, sum = 0;
        const int shift = pass * digit;
        if (h[(src[0].code >> shift) & m] == n)
            continue;
        for (v = 0; v < buckets; v++) {
            const int64_t c = h[v];
            h[v] = sum;
            sum += c;
        }
        for (i = 0; i < n; i++)
            dst[h[(src[i].code >> shift) & m]++] = src[i];
        t = src;
        src = dst;
        dst = t;
    }
    return src;
}

/* Insertion sort of a[0..n) of which a[0..t) is sorted. */
static inline void spf_insertion_u64(uint64_t *a, int64_t t, int64_t n)
{
    for (; t < n; t++) {
        const uint64_t x = a[t];
        int64_t m = t;
        while (m > 0 && a[m - 1] > x) {
            a[m] = a[m - 1];
            m--;
        }
        a[m] = x;
    }
}

/* Buckets of up to SPF_RANK_MAX (8) entries are sorted by rank where the
 * compiler targets AVX-512: each word's place is the number of words below
 * it (the bucket's words are distinct: the entry numbers differ), one
 * vector compare and a popcount per word, stored there at once. No branch
 * depends on the data, where an insertion sort of a few random words
 * mispredicts about once a word (COO -> DCSR's rows of 5 entries:
 * 0.75-0.81 -> 0.87-0.94 of the hand-written C on the scale-0.05 matrices
 * of 10-16 thousand entries). Two vectors for up to 16 entries were slower
 * on those (0.84-0.87): the second one's compares cost every word.
 * Elsewhere, and for longer buckets, insertion sort. */
#if defined(__AVX512F__) && defined(__GNUC__)
#include <immintrin.h>
#ifndef SPF_RANK_MAX
#define SPF_RANK_MAX 8 /* at most 8; 0: insertion sort only */
#endif
/* Sorts the distinct words a[0..len), 2 <= len <= 8, by rank. */
static inline void spf_rank_sort(uint64_t *a, int64_t len)
{
    /* lanes past len hold the largest word, below no word */
    const __m512i v = _mm512_mask_loadu_epi64(_mm512_set1_epi64(-1),
                                              (__mmask8)((1u << len) - 1), a);
    uint64_t w[8];
    int64_t i;
    _mm512_storeu_si512((void *)w, v);
    for (i = 0; i < len; i++)
        a[__builtin_popcount(_mm512_cmplt_epu64_mask(v, _mm512_set1_epi64((long long)w[i])))] = w[i];
}
#endif

/* Sorts each bucket v in lo..hi of out (the entries of the first
 * component's value v, out[starts[v] .. starts[v + 1])) as integers (c,
 * then e: stable), unless it already is (O(length): a sorted input costs
 * one pass): by insertion sort when short, by LSD radix sort otherwise
 * (tmp: room for the longest bucket, allocated with hist at the first
 * long one) of the code bits (ebits .. ebits + cbits) that differ in the
 * bucket, in digits of up to bit_length(length) + 1 bits (- 1 past 256
 * entries): the passes the bucket's actual range needs (COO -> TCOO8's
 * bands of 8 rows, 40 entries whose 14 code bits vary in 10: 2 passes of 5
 * bits instead of 3, 12% of the conversion on jnlbrng1 at 0.05). */
static inline void spf_msd_sort_buckets(uint64_t *out, const int64_t *starts, int64_t lo,
                                        int64_t hi, int ebits, int cbits, int64_t longest,
                                        uint64_t **tmp, int64_t **hist)
{
    /* the code's bits, ebits .. ebits + cbits (the bits above, if any,
       are the first component's: equal in a bucket) */
    const uint64_t code = (ebits + cbits < 64 ? ((uint64_t)1 << (ebits + cbits)) - 1 : ~(uint64_t)0) >>
                          ebits << ebits;
    int64_t v, d;
    for (v = lo; v < hi; v++) {
        const int64_t len = starts[v + 1] - starts[v];
        uint64_t *a = out + starts[v], *s, any, all, diff;
        int64_t t = 1;
        int lo_bit, hi_bit;
#ifdef SPF_RANK_MAX
        if (len <= SPF_RANK_MAX) {
            if (len > 1)
                spf_rank_sort(a, len);
            continue;
        }
#endif
        while (t < len && a[t - 1] < a[t])
            t++;
        if (t >= len)
            continue;
        if (len <= 32) {
            spf_insertion_u64(a, t, len);
            continue;
        }
        if (*tmp == NULL) {
            *tmp = (uint64_t *)spf_alloc(longest, sizeof **tmp);
            *hist = (int64_t *)spf_alloc(SPF_HIST, sizeof **hist);
        }
        /* only the code bits that differ in the bucket: lo_bit .. hi_bit */
        any = 0;
        all = ~(uint64_t)0;
        for (t = 0; t < len; t++) {
            any |= a[t];
            all &= a[t];
        }
        diff = (any ^ all) & code;
        if (diff == 0) {
            /* equal codes (an input whose entries the scatter did not
               keep in order): by the entries */
            spf_insertion_u64(a, 1, len);
            continue;
        }
        lo_bit = spf_bit_length(diff & (~diff + 1)) - 1;
        hi_bit = spf_bit_length(diff);
        /* short buckets: digits of up to 2-4 times their length (fewer
           passes); long ones: half their length (the histograms stay in
           L1: CSF3's buckets of 1,200 entries on darpa, 4%) */
        d = spf_bit_length((uint64_t)len) + (len <= 256 ? 1 : -1);
        s = spf_radix_u64(a, *tmp, len, lo_bit, hi_bit, d < 4 ? 4 : d > SPF_DIGIT ? SPF_DIGIT : (int)d,
                          *hist);
        if (s != a)
            memcpy(a, s, (size_t)len * sizeof *a);
    }
}

/* The MSD passes' word for entry i: its compared components as one
 * mixed-radix number c, component d in radix rad[d]; the first component
 * only where keep0 is all ones (the word's bit fields, rad[d] a power of
 * two), none of it where keep0 is 0 (then c is the components after the
 * first). Component D of entry i: KEY(D); j, rad and keep0 in scope. */
#define SPF_MSD_CODE(KEY)                                                                          \
    uint64_t c = (uint64_t)KEY(0) & keep0;                                                         \
    for (d = 1; d < j; d++)                                                                        \
    c = c * (uint64_t)rad[d] + (uint64_t)KEY(d)

/* The views and the key store of a sort's loops: component D of entry i
 * is views[D][i] (int64_t), views32[D][i] (int32_t), keys32[i * stride +
 * D] (the 32-bit store) or keys[i * stride + D]. SPF_KEY_LOOPS(PASS)
 * prints PASS(KEY) once for each (the hot passes'
 * loops, each as tight as a single layout's: per-component pointers, or a
 * branch on the width in the loop, cost them 10% in GCC's register
 * allocation of the generated function). */
#define SPF_KEY_LOOPS(PASS)                                                                        \
    if (views32 != NULL) {                                                                         \
        PASS(SPF_VIEWED32)                                                                         \
    } else if (views != NULL) {                                                                    \
        PASS(SPF_VIEWED)                                                                           \
    } else if (keys32 != NULL) {                                                                   \
        PASS(SPF_STORED32)                                                                         \
    } else {                                                                                       \
        PASS(SPF_STORED)                                                                           \
    }
#define SPF_VIEWED32(D) views32[D][i]
#define SPF_VIEWED(D) views[D][i]
#define SPF_STORED(D) keys[i * stride + (D)]
#define SPF_STORED32(D) keys32[i * stride + (D)]

/* The partitioned scatter of spf_perm_counting_msd (which see), with the
 * buckets sorted: the n entries' words into out, partitioned by the first
 * component's bits above `shift`. Out of line, on the permutation's
 * fields, not the permutation: it runs on large inputs only, where a call
 * costs nothing, and the generated function, into which the sorts are
 * inlined, stays small enough for GCC to inline them all (and to keep
 * vectorizing its copy loop's gather, which an escaping permutation
 * stops). Component D of entry i: as SPF_KEY_LOOPS. With keep0 all ones
 * the words hold the first component (bits low and up), and keep it. */
SPF_OUT_OF_LINE static void spf_msd_partitioned(uint64_t *out, int64_t n, int64_t j,
                                                const int64_t *rad, const int64_t *starts,
                                                const int64_t *const *views,
                                                const int32_t *const *views32,
                                                const int64_t *keys, const int32_t *keys32,
                                                int64_t stride, int ebits,
                                                int cbits, uint64_t keep0, int shift,
                                                int64_t longest)
{
    const int64_t e0 = rad[0], parts = ((e0 - 1) >> shift) + 1, span = (int64_t)1 << shift;
    const int low = ebits + cbits;
    const uint64_t vmask = (uint64_t)span - 1, lmask = (((uint64_t)1 << low) - 1) | keep0;
    uint64_t *words = (uint64_t *)spf_alloc(n, sizeof *words), *tmp = NULL;
    int64_t *cur = (int64_t *)spf_alloc(parts > span ? parts : span, sizeof *cur), *hist = NULL;
    int64_t i, d, q, t;
    for (q = 0; q < parts; q++)
        cur[q] = starts[q << shift];
    /* each range's entries where its buckets will be, the first
       component's low bits above the word (with keep0: in it already) */
#define SPF_PARTITION_PASS(KEY)                                                                    \
    for (i = 0; i < n; i++) {                                                                      \
        const uint64_t v = (uint64_t)KEY(0);                                                       \
        SPF_MSD_CODE(KEY);                                                                         \
        words[cur[v >> shift]++] = (v & vmask) << low | c << ebits | (uint64_t)i;                  \
    }
    SPF_KEY_LOOPS(SPF_PARTITION_PASS)
#undef SPF_PARTITION_PASS
    /* each range into its buckets, in cache, and its buckets sorted */
    for (q = 0; q < parts; q++) {
        const int64_t first = q << shift, last = first + span < e0 ? first + span : e0;
        memcpy(cur, starts + first, (size_t)(last - first) * sizeof *cur);
        for (t = starts[first]; t < starts[last]; t++) {
            const uint64_t w = words[t];
            out[cur[(w >> low) & vmask]++] = w & lmask;
        }
        spf_msd_sort_buckets(out, starts, first, last, ebits, cbits, longest, &tmp, &hist);
    }
    free(cur);
    free(words);
    free(tmp);
    free(hist);
}

/* Counting order, MSD, when the compared components after the first fit,
 * as one mixed-radix number c < 2^cbits (radix rad[d] for component d),
 * above the ebits bits of an entry number: one counting pass scatters c <<
 * ebits | e into the buckets of the first component (stable: entries in
 * increasing order in each bucket), then each bucket is sorted
 * (spf_msd_sort_buckets). O(n + E1), the radix sorts O(n). With keep0 all
 * ones, c holds the first component too, above the others (constant in a
 * bucket: the bucket sorts are unchanged), and the sorted words every
 * compared component.
 *
 * Partitioned (spf_msd_partitioned) when the scatter's destination is out
 * of cache (SPF_PARTITION_BYTES of entries) and the first component has
 * more than 2^SPF_PARTITION_BITS values: a direct scatter then misses the
 * cache and the TLB at nearly every entry (with its counters, also out of
 * cache), so the entries are first partitioned by the first component's
 * high bits into 2^SPF_PARTITION_BITS ranges of consecutive values (each
 * range's entries where its buckets will be: a sequential write per
 * range), the value's low bits carried in the word above the code; then
 * each range is scattered into its buckets, in cache, and its buckets
 * sorted while they are there. Both passes keep the entries' order, so the
 * result is the direct scatter's. Only where the low bits fit above the
 * code and entry number. */
#ifndef SPF_PARTITION_BYTES
#define SPF_PARTITION_BYTES (4 << 20)
#endif
#ifndef SPF_PARTITION_BITS
#define SPF_PARTITION_BITS 10
#endif
static inline SPF_INLINE void spf_perm_counting_msd(spf_perm *p, const int64_t *rad, int ebits, int cbits,
                                         uint64_t keep0, int64_t longest)
{
    const int64_t n = p->n, j = p->j, e0 = p->extents[0];
    const int64_t *starts = p->starts;
    const int shift = spf_bit_length((uint64_t)(e0 - 1)) - SPF_PARTITION_BITS;
    const int64_t *const *views = (const int64_t *const *)p->views;
    const int32_t *const *views32 = (const int32_t *const *)p->views32;
    const int64_t stride = p->stride, *keys = p->keys;
    const int32_t *keys32 = p->keys32;
    uint64_t *out = spf_entries_alloc(n), *tmp = NULL;
    int64_t *hist = NULL, *cur, i, d;
    if (n >= (int64_t)(SPF_PARTITION_BYTES / sizeof(uint64_t)) && shift > 0 &&
        ebits + cbits + shift <= 64) {
        spf_msd_partitioned(out, n, j, rad, starts, views, views32, keys, keys32, stride, ebits, cbits,
                            keep0, shift, longest);
    } else {
        cur = (int64_t *)spf_alloc(e0, sizeof *cur);
        memcpy(cur, starts, (size_t)e0 * sizeof *cur);
#define SPF_MSD_PASS(KEY)                                                                          \
    for (i = 0; i < n; i++) {                                                                      \
        SPF_MSD_CODE(KEY);                                                                         \
        out[cur[KEY(0)]++] = c << ebits | (uint64_t)i;                                             \
    }
        SPF_KEY_LOOPS(SPF_MSD_PASS)
#undef SPF_MSD_PASS
        free(cur);
        spf_msd_sort_buckets(out, starts, 0, e0, ebits, cbits, longest, &tmp, &hist);
        free(tmp);
        free(hist);
    }
    spf_perm_set_entries(p, out, ((uint64_t)1 << ebits) - 1);
    p->ebits = ebits;
}

/* Counting order, LSD: one stable pass per compared component from the last
 * to the first, O(n + sum of extents) (when the compared components do not
 * fit one 64-bit word with the entry numbers, or only one is compared):
 * the n entries in order (with the SPF_AHEAD slots after them), or NULL
 * when no pass moved any (the identity). Component d of entry e:
 * spf_col_at(cols[d], e); its values' counts: counts[d]. On the
 * permutation's fields, not the permutation, and out of line (its loops
 * are a copy for each width of the keys): the generated function's
 * permutation does not escape into it (see spf_sorted_entries). */
SPF_OUT_OF_LINE static uint64_t *spf_lsd_entries(int64_t n, int64_t j, const int64_t *extents,
                                                 int64_t *const *counts, const spf_col *cols)
{
    uint64_t *order = spf_entries_alloc(n), *tmp = NULL, *t;
    int64_t *off, i, d, v, max = 0, sum;
    int identity = 1; /* order is 0, 1, ..., n - 1, not stored yet */
    for (d = 0; d < j; d++)
        if (extents[d] > max)
            max = extents[d];
    off = (int64_t *)spf_alloc(max, sizeof *off);
    for (d = j - 1; d >= 0; d--) {
        const spf_col col = cols[d];
        if (extents[d] <= 1)
            continue; /* one value at most: the pass keeps the order */
        for (v = 0, sum = 0; v < extents[d]; v++) {
            off[v] = sum;
            sum += counts[d][v];
        }
        if (identity) {
            for (i = 0; i < n; i++)
                order[off[spf_col_at(col, i)]++] = (uint64_t)i;
            identity = 0;
            continue;
        }
        if (tmp == NULL)
            tmp = spf_entries_alloc(n);
        for (i = 0; i < n; i++) {
            const uint64_t e = order[i];
            if (i + 16 < n)
                spf_col_prefetch(col, order[i + 16]);
            tmp[off[spf_col_at(col, (int64_t)e)]++] = e;
        }
        t = order;
        order = tmp;
        tmp = t;
    }
    free(off);
    free(tmp);
    if (identity) {
        free(order);
        return NULL;
    }
    return order;
}

static inline SPF_INLINE void spf_perm_counting_lsd(spf_perm *p)
{
    spf_col *cols = (spf_col *)spf_alloc(p->j, sizeof *cols);
    uint64_t *order;
    int64_t d;
    spf_perm_count_all(p, p->j);
    for (d = 0; d < p->j; d++)
        cols[d] = spf_perm_col(p, d);
    order = spf_lsd_entries(p->n, p->j, p->extents, p->counts, cols);
    free(cols);
    if (order != NULL)
        spf_perm_set_entries(p, order, ~(uint64_t)0);
}

/* Counting order of two compared components, LSD with the records moved:
 * the first pass scatters one word per entry, (first component << cbits |
 * second) << ebits | entry, by the second component; the second pass
 * scatters the words by the first. Every read is sequential (no key is
 * read through the order) and key() decodes both components from the
 * sorted word, as after MSD. Two scatter passes and no branch per entry:
 * in cache, with short buckets, cheaper than MSD's bucket sorts. One word,
 * not a (code, entry) pair: the first pass's buffer is half the size, and
 * out of L2 the scatters miss half as often (shuffled COO -> CSC on
 * atmosmodd at 0.05, 434K entries: 0.89 of the C with pairs, 1.01-1.07
 * with words). The caller checks that the three fit below bit 64 (ebits +
 * cbits + the first component's bits). */
static inline SPF_INLINE void spf_perm_counting_lsd2(spf_perm *p, int ebits, int cbits)
{
    const int64_t n = p->n, e0 = p->extents[0], e1 = p->extents[1];
    const int low = ebits + cbits; /* < 64 */
    const int64_t *const *views = (const int64_t *const *)p->views;
    const int32_t *const *views32 = (const int32_t *const *)p->views32;
    const int64_t stride = p->stride, *keys = p->keys;
    const int32_t *keys32 = p->keys32;
    uint64_t *out = spf_entries_alloc(n);
    uint64_t *tmp = (uint64_t *)spf_alloc(n, sizeof *tmp);
    int64_t *cur = (int64_t *)spf_alloc(e1 > e0 ? e1 : e0, sizeof *cur);
    int64_t i, v, sum = 0;
    spf_perm_count_all(p, 2);
    for (v = 0; v < e1; v++) {
        cur[v] = sum;
        sum += p->counts[1][v];
    }
#define SPF_LSD2_PASS(KEY)                                                                         \
    for (i = 0; i < n; i++) {                                                                      \
        const uint64_t c1 = (uint64_t)KEY(1);                                                      \
        tmp[cur[c1]++] = (uint64_t)KEY(0) << low | c1 << ebits | (uint64_t)i;                      \
    }
    SPF_KEY_LOOPS(SPF_LSD2_PASS)
#undef SPF_LSD2_PASS
    memcpy(cur, p->starts, (size_t)e0 * sizeof *cur);
    for (i = 0; i < n; i++) {
        const uint64_t w = tmp[i];
        out[cur[w >> low]++] = w;
    }
    free(cur);
    free(tmp);
    spf_perm_set_entries(p, out, ((uint64_t)1 << ebits) - 1);
    p->ebits = ebits;
}

/* Counting order, whole words (every compared component in a bit field of
 * its own beside the entry number: the words of spf_perm_counting_msd with
 * keep0 all ones): the n words c0 | c1 | ... | e built in entry order,
 * then an LSD radix sort of the code bits that differ among them (the OR
 * and the AND of all words, so bits every key shares cost no pass), in
 * digits of up to bit_length(n) - 1 bits (SPF_WORDS_DIGIT at most).
 * O(n + 2^digit) per pass, no branch on the data and no per-bucket cost:
 * where MSD's buckets are long (more than 32 entries, each then
 * radix-sorted on its own, with its histograms) and the words in cache
 * (COO -> TCOO8's bands of 8 rows, 40 entries each, whose sorts took half
 * the conversion: 2 passes over all words instead; 0.72 -> 0.89 of the
 * hand-written C on jnlbrng1 at 0.05, 0.55 -> 0.80 on dixmaanl, whose 24
 * code bits all vary). Stable: equal codes keep their entry order (the
 * low bits). spf_words_radix sorts n words (room for n + SPF_AHEAD) and
 * returns them sorted, in words or in a
 * buffer of its own (the other one freed); spf_perm_counting_words builds
 * the words from the keys (component d of entry i: as SPF_KEY_LOOPS;
 * rad[d] = 2^bits) and sorts them; a word store (spf_perm_word_layout)
 * holds them already. */
static inline SPF_INLINE uint64_t *spf_words_radix(uint64_t *words, int64_t n, int ebits)
{
    const uint64_t code = ~(((uint64_t)1 << ebits) - 1);
    uint64_t *sorted = words, *other, any = 0, all = ~(uint64_t)0, diff;
    int64_t *hist, i;
    /* a pass of its own, which vectorizes (kept by the loop that builds
       the words, the OR and the AND were a dependency through memory) */
    for (i = 0; i < n; i++) {
        any |= words[i];
        all &= words[i];
    }
    diff = (any ^ all) & code;
    if (diff == 0)
        return words;
    {
        /* digits of up to bit_length(n) - 1 bits (SPF_WORDS_DIGIT at
           most): a pass's histogram is then at most half as long as the
           pass, and 24 bits over 15K entries take 2 passes, not 3 */
        const int lo = spf_bit_length(diff & (~diff + 1)) - 1, hi = spf_bit_length(diff);
        const int top = spf_bit_length((uint64_t)n) - 1;
        const int max_digit = top < 4 ? 4 : top > SPF_WORDS_DIGIT ? SPF_WORDS_DIGIT : top;
        const int passes = (hi - lo + max_digit - 1) / max_digit;
        const int digit = (hi - lo + passes - 1) / passes;
        other = spf_entries_alloc(n);
        hist = (int64_t *)spf_alloc((int64_t)passes << digit, sizeof *hist);
        sorted = spf_radix_u64(words, other, n, lo, hi, max_digit, hist);
        free(hist);
    }
    free(sorted == words ? other : words);
    return sorted;
}

static inline SPF_INLINE void spf_perm_counting_words(spf_perm *p, const int64_t *rad, int ebits)
{
    const int64_t n = p->n, j = p->j;
    const uint64_t keep0 = ~(uint64_t)0;
    const int64_t *const *views = (const int64_t *const *)p->views;
    const int32_t *const *views32 = (const int32_t *const *)p->views32;
    const int64_t stride = p->stride, *keys = p->keys;
    const int32_t *keys32 = p->keys32;
    uint64_t *words = spf_entries_alloc(n);
    int64_t i, d;
#define SPF_WORDS_PASS(KEY)                                                                        \
    for (i = 0; i < n; i++) {                                                                      \
        SPF_MSD_CODE(KEY);                                                                         \
        words[i] = c << ebits | (uint64_t)i;                                                       \
    }
    SPF_KEY_LOOPS(SPF_WORDS_PASS)
#undef SPF_WORDS_PASS
    spf_perm_set_entries(p, spf_words_radix(words, n, ebits), ((uint64_t)1 << ebits) - 1);
    p->ebits = ebits;
}

/* Where the sorted words hold each compared component d: bits
 * field_at[d + 1] .. field_at[d] - 1, bits[d] of them, above the ebits of
 * the entry number (spf_perm.field_at). */
static inline SPF_INLINE void spf_perm_set_fields(spf_perm *p, const int *bits, int ebits)
{
    int64_t d;
    p->field_at = (int64_t *)spf_alloc(p->j + 1, sizeof *p->field_at);
    p->field_at[p->j] = ebits;
    for (d = p->j - 1; d >= 0; d--)
        p->field_at[d] = p->field_at[d + 1] + bits[d];
}

/* The sort of a permutation with a word store (spf_perm_word_layout): the
 * words insert() built are the sorted entries (in order) or radix-sorted
 * (spf_words_radix), where n still selects the whole-word sort; returns 0
 * otherwise, the store then decoded into the key store for the other
 * sorts (spf_perm_unword). */
static inline SPF_INLINE int spf_perm_words_stored(spf_perm *p)
{
    const int64_t n = p->n, j = p->j, e0 = p->extents[0];
    const int ebits = (int)p->wbits;
    uint64_t *words = p->wstore;
    int bits[SPF_PERM_HOT];
    int64_t d;
    if (!p->in_order && n >= 2 &&
        !(n <= SPF_WORDS_MAX && n > SPF_WORDS_BUCKET * e0 && n <= SPF_WORDS_LONG * e0)) {
        spf_perm_unword(p);
        return 0;
    }
    for (d = 0; d < j; d++)
        bits[d] = p->extents[d] > 1 ? spf_bit_length((uint64_t)(p->extents[d] - 1)) : 0;
    p->wstore = NULL;
    if (!p->in_order && n >= 2)
        words = spf_words_radix(words, n, ebits);
    spf_perm_set_entries(p, words, ((uint64_t)1 << ebits) - 1);
    p->ebits = ebits;
    spf_perm_set_fields(p, bits, ebits);
    return 1;
}

/* Counting sort: the prefix sums of the first component's counts, then
 * nothing more for keys inserted in order. Otherwise, when the compared
 * components after the first fit one 64-bit word with the entry numbers
 * (key() then decodes them from the sorted words):
 *   - every component in a bit field of its own, more than two compared,
 *     at most SPF_WORDS_MAX entries and MSD's buckets longer than
 *     SPF_WORDS_BUCKET on average: LSD radix of the whole words
 *     (spf_perm_counting_words);
 *   - out of cache (SPF_MSD_BYTES of stored keys), or few entries in
 *     short buckets (SPF_MSD_SMALL), MSD: one scatter pass, then each
 *     bucket sorted;
 *   - two compared components: LSD with the records moved (lsd2), unless
 *     the first component's buckets are very short (SPF_MSD_SHORT) or the
 *     three parts of lsd2's word do not fit 64 bits (then MSD);
 *   - more, MSD when the first component's buckets are long
 *     (SPF_MSD_BUCKET), LSD otherwise.
 * When every compared component fits a bit field of its own beside the
 * entry number (bit_length(extent - 1) bits each), the words are those
 * fields: key() extracts any compared component from the sorted word, and
 * rank() and prefix_rank() compare words. Else the components after the
 * first are one mixed-radix number. LSD through the order when they do not
 * fit either. */
static inline SPF_INLINE void spf_perm_counting_sort(spf_perm *p)
{
    const int64_t n = p->n, j = p->j, e0 = p->extents[0];
    int64_t v, d, sum = 0, longest = 0;
    p->starts = (int64_t *)spf_alloc(e0 + 1, sizeof *p->starts);
    for (v = 0; v < e0; v++) {
        const int64_t c = p->counts[0][v];
        p->starts[v] = sum;
        sum += c;
        if (c > longest)
            longest = c;
    }
    p->starts[e0] = sum;
    if (p->wstore != NULL && spf_perm_words_stored(p))
        return;
    if (p->in_order || n < 2)
        return;
    if (j >= 2) {
        const int ebits = spf_bit_length((uint64_t)(n - 1));
        const uint64_t room = (uint64_t)1 << (64 - ebits);
        int64_t *rad = (int64_t *)spf_alloc(j, sizeof *rad);
        int *bits = (int *)spf_alloc(j, sizeof *bits);
        int fbits = 0;
        uint64_t prod = 1;
        for (d = 0; d < j; d++) {
            bits[d] = p->extents[d] > 1 ? spf_bit_length((uint64_t)(p->extents[d] - 1)) : 0;
            fbits += bits[d];
        }
        for (d = 1; d < j && prod != 0; d++) {
            if ((uint64_t)p->extents[d] > room / prod)
                prod = 0; /* does not fit */
            else if (p->extents[d] > 0)
                prod *= (uint64_t)p->extents[d];
        }
        if (prod != 0 || ebits + fbits <= 64) {
            /* bit fields, the first component's too, where they fit */
            const int fields = ebits + fbits <= 64;
            const int cbits = fields ? fbits - bits[0] : spf_bit_length(prod - 1);
            const uint64_t keep0 = fields ? ~(uint64_t)0 : 0;
            /* MSD pays for its bucket sorts with mispredicted branches
             * where the buckets are short (a few entries per row): in
             * cache, LSD's passes are cheaper there. */
            const int64_t word = p->narrow ? (int64_t)sizeof *p->keys32 : (int64_t)sizeof *p->keys;
            const int msd = n >= SPF_MSD_BYTES / word / p->width ||
                            (n < SPF_MSD_SMALL && n < SPF_MSD_BUCKET * e0) ||
                            (j > 2 && n >= SPF_MSD_BUCKET * e0) ||
                            (j == 2 && (n < SPF_MSD_SHORT * e0 ||
                                        ebits + cbits + spf_bit_length((uint64_t)(e0 - 1)) >= 64));
            /* whole words: bit fields, more than two compared
             * components, the words in cache, and MSD's buckets long
             * (each would be radix-sorted on its own) */
            const int words = fields && j > 2 && n <= SPF_WORDS_MAX && n > SPF_WORDS_BUCKET * e0 &&
                              n <= SPF_WORDS_LONG * e0;
            rad[0] = e0;
            for (d = 1; d < j; d++)
                rad[d] = fields ? (int64_t)1 << bits[d] : p->extents[d];
            /* One call of each: inlined into the generated function, where
             * k and j are constants (the MSD pass's loops over the
             * components fold; out of line it was 15% slower). */
            if (words) {
                spf_perm_counting_words(p, rad, ebits);
                spf_perm_set_fields(p, bits, ebits);
            } else if (msd || j == 2) {
                if (msd)
                    spf_perm_counting_msd(p, rad, ebits, cbits, keep0, longest);
                else
                    spf_perm_counting_lsd2(p, ebits, cbits);
                if (fields)
                    spf_perm_set_fields(p, bits, ebits);
            } else {
                spf_perm_counting_lsd(p);
            }
            free(rad);
            free(bits);
            return;
        }
        free(rad);
        free(bits);
    }
    spf_perm_counting_lsd(p);
}

/* Morton order by LSD radix sort of the codes, compacted: the bits no key
 * sets are left out (they never differ), so that the code fits 64 bits
 * whenever the components' bit lengths sum to 64 at most (returns 0,
 * nothing done, otherwise). The codes are built by table: for component d,
 * spread[d][byte][v] puts the bits of value v of that byte of the component
 * where the code has them. Entries with equal codes keep their order. */
static inline SPF_INLINE int spf_perm_morton_radix(spf_perm *p)
{
    const int64_t n = p->n, j = p->j;
    const int64_t *const *views = (const int64_t *const *)p->views;
    const int32_t *const *views32 = (const int32_t *const *)p->views32;
    const int64_t stride = p->stride, *keys = p->keys;
    const int32_t *const keys32 = NULL; /* counting orders only */
    int64_t *width = (int64_t *)spf_alloc(j, sizeof *width), i, d;
    int total = 0, level, pos = 0, ebits;
    uint64_t *spread;
    int64_t *hist;
    for (d = 0; d < j; d++) {
        width[d] = spf_bit_length(p->bits[d]);
        total += (int)width[d];
        if (total > 64) {
            free(width);
            return 0;
        }
    }
    spread = (uint64_t *)spf_alloc_zero(j * 8 * 256, sizeof *spread);
    p->lanes = (uint64_t *)spf_alloc_zero(j, sizeof *p->lanes);
    for (level = 0; level < 64; level++)
        for (d = 0; d < j; d++)
            if (level < width[d]) {
                uint64_t *row = spread + (d * 8 + level / 8) * 256;
                int x;
                for (x = 0; x < 256; x++)
                    if (x >> (level % 8) & 1)
                        row[x] |= (uint64_t)1 << pos;
                p->lanes[d] |= (uint64_t)1 << pos;
                pos++;
            }
    for (d = 0; d < j; d++)
        width[d] = (width[d] + 7) / 8; /* now: bytes */
    hist = (int64_t *)spf_alloc(SPF_HIST, sizeof *hist);
    ebits = spf_bit_length((uint64_t)(n - 1));
#define SPF_MORTON_CODE(KEY, code)                                                                 \
    do {                                                                                           \
        int64_t d_, b_;                                                                            \
        (code) = 0;                                                                                \
        for (d_ = 0; d_ < j; d_++)                                                                 \
            for (b_ = 0; b_ < width[d_]; b_++)                                                     \
                (code) |= spread[(d_ * 8 + b_) * 256 + (((uint64_t)KEY(d_) >> (8 * b_)) & 255)];   \
    } while (0)
    if (total == 0) {
        /* every key is 0: nothing to move (and nothing to extract) */
        free(p->lanes);
        p->lanes = NULL;
    } else if (total + ebits <= 64) {
        uint64_t *a = spf_entries_alloc(n), *tmp = spf_entries_alloc(n), *s;
#define SPF_MORTON_WORDS(KEY)                                                                      \
    for (i = 0; i < n; i++) {                                                                      \
        uint64_t code;                                                                             \
        SPF_MORTON_CODE(KEY, code);                                                                \
        a[i] = code << ebits | (uint64_t)i;                                                        \
    }
        SPF_KEY_LOOPS(SPF_MORTON_WORDS)
#undef SPF_MORTON_WORDS
        s = spf_radix_u64(a, tmp, n, ebits, ebits + total, SPF_DIGIT, hist);
        free(s == a ? tmp : a);
        spf_perm_set_entries(p, s, ((uint64_t)1 << ebits) - 1);
        p->ebits = ebits;
    } else {
        /* n + SPF_AHEAD pairs: room for the entries and their zeros */
        spf_pair *a = (spf_pair *)spf_alloc(n + SPF_AHEAD, sizeof *a);
        spf_pair *tmp = (spf_pair *)spf_alloc(n + SPF_AHEAD, sizeof *tmp), *s;
        uint64_t *entries;
#define SPF_MORTON_PAIRS(KEY)                                                                      \
    for (i = 0; i < n; i++) {                                                                      \
        SPF_MORTON_CODE(KEY, a[i].code);                                                           \
        a[i].entry = (uint64_t)i;                                                                  \
    }
        SPF_KEY_LOOPS(SPF_MORTON_PAIRS)
#undef SPF_MORTON_PAIRS
        s = spf_radix_pairs(a, tmp, n, total, hist);
        free(s == a ? tmp : a);
        /* The codes, and the entries compacted in place: word i is written
         * after pair i (words 2i, 2i + 1) was read. */
        p->codes = (uint64_t *)spf_alloc(n, sizeof *p->codes);
        entries = (uint64_t *)(void *)s;
        for (i = 0; i < n; i++) {
            p->codes[i] = s[i].code;
            entries[i] = s[i].entry;
        }
        spf_perm_set_entries(p, entries, ~(uint64_t)0);
    }
#undef SPF_MORTON_CODE
    free(hist);
    free(spread);
    free(width);
    return 1;
}

/* Comparison sort (lex; morton when the codes would not fit 64 bits) of n
 * entries whose compared components d < j are views[d][e] (views not NULL),
 * views32[d][e] (views32 not NULL) or keys[e * stride + d]: the records (compared components, entry) are
 * merge sorted, then the entries taken out (returned, with the SPF_AHEAD
 * slots after them). It takes the permutation's fields, not the
 * permutation: where the compiler keeps it out of line (it is large, and
 * rare), the generated function's permutation does not escape, and its
 * fields stay in registers through the generated loops (COO3D -> MCOO3
 * was 25% slower when it took the permutation). */
static inline uint64_t *spf_sorted_entries(int order, int64_t j, int64_t n, const int64_t *keys,
                                           const int64_t *const *views,
                                           const int32_t *const *views32, int64_t stride)
{
    const int64_t r = j + 1;
    int64_t *rec = (int64_t *)spf_alloc(n * r, sizeof *rec);
    int64_t *scratch = (int64_t *)spf_alloc((n + 1) * r, sizeof *scratch);
    uint64_t *entries;
    int64_t i, d;
    for (d = 0; d < j; d++) {
        const int64_t *col = views != NULL ? views[d] : keys + d;
        const int64_t st = views != NULL ? 1 : stride;
        if (views32 != NULL)
            for (i = 0; i < n; i++)
                rec[i * r + d] = views32[d][i];
        else
            for (i = 0; i < n; i++)
                rec[i * r + d] = col[i * st];
    }
    for (i = 0; i < n; i++)
        rec[i * r + j] = i;
    spf_perm_msort(order, j, j, rec, scratch, n);
    free(scratch);
    entries = spf_entries_alloc(n);
    for (i = 0; i < n; i++)
        entries[i] = (uint64_t)rec[i * r + j];
    free(rec);
    return entries;
}

/* The bits of the sorted words that hold compared component d (field_at
 * set): 0 for a component of one value. */
static inline uint64_t spf_field_mask(const spf_perm *p, int64_t d)
{
    const int64_t w = p->field_at[d] - p->field_at[d + 1]; /* < 64 */
    return w == 0 ? 0 : (((uint64_t)1 << w) - 1) << p->field_at[d + 1];
}

/* Where key() finds each component below SPF_PERM_HOT in the sorted words
 * (word_bits): the entry number (not kept: d == width), the compared
 * components of a counting sort that put each in a bit field of the word
 * (field_at), the second compared component of one that coded it above
 * the entry number (j == 2), and the compared components of a Morton radix
 * sort whose codes share the word. */
static inline SPF_INLINE void spf_perm_decoders(spf_perm *p)
{
    int64_t d;
    if (p->entries == NULL)
        return;
    for (d = 0; d < SPF_PERM_HOT && d < p->k; d++) {
        uint64_t bits = 0;
        if (d >= p->width)
            bits = p->mask;
        else if (p->field_at != NULL && d < p->j)
            bits = spf_field_mask(p, d);
        else if (p->order == SPF_COUNTING && p->ebits != 0 && p->j == 2 && d == 1)
            bits = ~(uint64_t)0 << p->ebits;
        else if (p->order == SPF_MORTON && p->lanes != NULL && p->codes == NULL && d < p->j)
            bits = p->lanes[d] << p->ebits;
        p->word_bits[d] = (spf_long)bits;
        if (bits != 0) {
            int shift = 0;
            while ((bits >> shift & 1) == 0)
                shift++;
            if (((bits >> shift) & ((bits >> shift) + 1)) == 0)
                p->word_shift[d] = shift; /* contiguous */
        }
    }
}

/* Whether sort() has work: not sorted yet (then it is from now on), and
 * of the order its caller states (else aborts). */
static inline SPF_INLINE int spf_perm_sorting(spf_perm *p, int order)
{
    if (p->sorted)
        return 0;
    if (SPF_UNLIKELY(p->order != order))
        spf_die("sort of a permutation of another order", p->order);
    p->sorted = 1;
    return 1;
}

/* The comparison sort (lex, and Morton codes wider than a word). */
static inline SPF_INLINE void spf_perm_comparison_sort(spf_perm *p)
{
    if (p->in_order || p->n < 2)
        return;
    spf_perm_set_entries(p,
                         spf_sorted_entries(p->order, p->j, p->n, p->keys,
                                            (const int64_t *const *)p->views,
                                            (const int32_t *const *)p->views32, p->stride),
                         ~(uint64_t)0);
}

/* sort() of a permutation whose order the caller knows: generated code
 * calls the one of its object's order, so that only that order's sort is
 * inlined into it. (With every order's sort inlined, GCC left some out of
 * line, the permutation's address escaped into the call, and the copy loop
 * after a Morton sort took twice as long: COO3D -> MCOO3 on
 * freebase-music at scale 0.05, 0.79 of the C.) */
static inline SPF_INLINE void spf_perm_sort_counting(spf_perm *p)
{
    if (!spf_perm_sorting(p, SPF_COUNTING))
        return;
    spf_perm_counting_sort(p);
    spf_perm_decoders(p);
}

static inline SPF_INLINE void spf_perm_sort_morton(spf_perm *p)
{
    if (!spf_perm_sorting(p, SPF_MORTON))
        return;
    if (!p->in_order && p->n >= 2 && !spf_perm_morton_radix(p))
        spf_perm_comparison_sort(p);
    spf_perm_decoders(p);
}

static inline SPF_INLINE void spf_perm_sort_lex(spf_perm *p)
{
    if (!spf_perm_sorting(p, SPF_LEX))
        return;
    spf_perm_comparison_sort(p);
    spf_perm_decoders(p);
}

/* Orders the entries stably by key and freezes the permutation (a second
 * call does nothing): nothing to move when the keys came in order; else
 * counting sort for SPF_COUNTING, radix sort of the Morton codes for
 * SPF_MORTON (merge sort when they do not fit 64 bits), merge sort for
 * SPF_LEX. The keys stay where insert() put them: key() reads them
 * through the entries; the positions wait for map(). */
static inline SPF_INLINE void spf_perm_sort(spf_perm *p)
{
    if (p->order == SPF_COUNTING)
        spf_perm_sort_counting(p);
    else if (p->order == SPF_MORTON)
        spf_perm_sort_morton(p);
    else
        spf_perm_sort_lex(p);
}

/* The entry at position i (the inverse of map; i itself before sort). */
static inline SPF_INLINE int64_t spf_perm_entry(const spf_perm *p, int64_t i)
{
    return p->entries != NULL ? (int64_t)(p->entries[i] & p->mask) : i;
}

/* The position of entry e (e itself before sort). The first call after
 * sort inverts the permutation, O(n); the others are O(1). */
static inline SPF_INLINE int64_t spf_perm_map(spf_perm *p, int64_t e)
{
    if (p->entries == NULL)
        return e;
    if (p->positions == NULL) {
        int64_t i;
        p->positions = (int64_t *)spf_alloc(p->n, sizeof *p->positions);
        for (i = 0; i < p->n; i++)
            p->positions[spf_perm_entry(p, i)] = i;
    }
    return p->positions[e];
}

/* The bits of x under mask, packed to the low end (BMI2's pext). */
static inline uint64_t spf_extract_bits(uint64_t x, uint64_t mask)
{
#if defined(__BMI2__) && defined(__x86_64__)
    return __builtin_ia32_pext_di(x, mask);
#else
    uint64_t out = 0;
    int b, k = 0;
    for (b = 0; b < 64 && mask >> b != 0; b++)
        if (mask >> b & 1)
            out |= (x >> b & 1) << k++;
    return out;
#endif
}

/* Component d of the key at position i. Sorted keys are read through the
 * entries: the key of position i + SPF_AHEAD is prefetched, for the usual
 * walk over the positions in order. The last component, when it is not
 * kept (d == width: a payload equal to the entry numbers), is the entry
 * number. Kept components are read where they are: the key store or the
 * caller's arrays (views). */
static inline SPF_INLINE int64_t spf_perm_key(const spf_perm *p, int64_t d, int64_t i)
{
    spf_col col;
    if (d < SPF_PERM_HOT && SPF_LIKELY(p->word_bits[d] != 0)) {
#if defined(__BMI2__) && defined(__x86_64__)
        return (int64_t)__builtin_ia32_pext_di(p->entries[i], (uint64_t)p->word_bits[d]);
#else
        const uint64_t bits = (uint64_t)p->word_bits[d];
        if (p->word_shift[d] >= 0)
            return (int64_t)(p->entries[i] >> p->word_shift[d] & bits >> p->word_shift[d]);
        return (int64_t)spf_extract_bits(p->entries[i], bits);
#endif
    }
    if (d >= p->width)
        return p->entries != NULL ? (int64_t)(p->entries[i] & p->mask) : i;
    if (p->entries == NULL) {
        /* in insertion order (sorted input, or before sort): in place,
           checked first (a copy loop after an empty sort reads the
           caller's 32-bit array with one test: row-sorted COO -> CSR on
           jnlbrng1 at 0.05, 32.3 -> 26.3 us) */
        if (p->views32 != NULL)
            return p->views32[d][i];
        return spf_col_at(spf_perm_col(p, d), i);
    }
    if (p->order == SPF_MORTON && p->lanes != NULL && d < p->j) {
        /* after the radix sort: the component's bits of the sorted code */
        const uint64_t code = p->codes != NULL ? p->codes[i] : p->entries[i] >> p->ebits;
        return (int64_t)spf_extract_bits(code, p->lanes[d]);
    }
    if (p->field_at != NULL && d < p->j)
        return (int64_t)((p->entries[i] & spf_field_mask(p, d)) >> p->field_at[d + 1]);
    if (p->order == SPF_COUNTING && p->ebits != 0 && d >= 1 && d < p->j) {
        /* MSD: the component is in the sorted word itself (no read of the
         * keys, which are in insertion order) */
        uint64_t c = p->entries[i] >> p->ebits;
        int64_t b;
        if (p->j == 2)
            return (int64_t)c;
        /* the mixed-radix digits from the last compared component down */
        for (b = p->j - 1;; b--) {
            const uint64_t e = (uint64_t)p->extents[b];
            if (b == d)
                return (int64_t)(c % e);
            c /= e;
        }
    }
    col = spf_perm_col(p, d);
    {
        const uint64_t *e = p->entries + i;
        spf_col_prefetch(col, e[SPF_AHEAD] & p->mask);
        return spf_col_at(col, (int64_t)(e[0] & p->mask));
    }
}

/* Gathers through the sorted order: a loop over the positions i that
 * reads an array `a` (elements of `size` bytes) at component d of each
 * position's key, or at its entry, reads it in random order once the sort
 * moved the entries (out of cache, a miss per entry that the loop waits
 * for). Generated code calls these in such a loop, before the read: they
 * prefetch the element of the position SPF_GATHER_AHEAD on (the last
 * position's near the end; none in insertion order, where the reads are
 * sequential, nor where the array read is below SPF_GATHER_BYTES: in
 * cache, the prefetch's few instructions cost COO -> CSR 5-10% at scale
 * 0.05). COO -> TCOO8's copy of the values on ecology1 at 0.5, 2.5M
 * entries: 0.62 of the hand-written C without, 0.89 with. */
#ifndef SPF_GATHER_AHEAD
#define SPF_GATHER_AHEAD 32
#endif
#ifndef SPF_GATHER_BYTES
#define SPF_GATHER_BYTES (1 << 20)
#endif
static inline SPF_INLINE void spf_perm_key_prefetch(const spf_perm *p, int64_t d, int64_t i,
                                                    const void *a, size_t size)
{
    /* only tests that hold for the whole loop return (the compiler takes
       them out of it: COO -> DCSR's copy loop in cache, 3%); the last
       positions prefetch the last one's element again */
    if ((uint64_t)p->n * size < (uint64_t)SPF_GATHER_BYTES || p->entries == NULL)
        return;
    i += SPF_GATHER_AHEAD;
    SPF_PREFETCH((const char *)a + (size_t)spf_perm_key(p, d, i < p->n ? i : p->n - 1) * size);
}

static inline SPF_INLINE void spf_perm_entry_prefetch(const spf_perm *p, int64_t i, const void *a,
                                                      size_t size)
{
    if ((uint64_t)p->n * size < (uint64_t)SPF_GATHER_BYTES || p->entries == NULL)
        return;
    i += SPF_GATHER_AHEAD;
    SPF_PREFETCH((const char *)a + (size_t)spf_perm_entry(p, i < p->n ? i : p->n - 1) * size);
}

/* The number of entries. */
static inline SPF_INLINE int64_t spf_perm_size(const spf_perm *p)
{
    return p->n;
}

/* Counting only: how many entries have component d (< j) equal to v. */
static inline SPF_INLINE int64_t spf_perm_count(const spf_perm *p, int64_t d, int64_t v)
{
    if (p->order != SPF_COUNTING)
        spf_die("count() needs a counting order", d);
    if (d >= p->counted)
        spf_perm_count_all((spf_perm *)p, d + 1); /* p is never const: created by value */
    return v < 0 || v >= p->extents[d] ? 0 : p->counts[d][v];
}

/* After sort, counting and lex only: how many entries have a first component
 * below v (the position of the first entry whose first component is >= v). */
static inline SPF_INLINE int64_t spf_perm_start(const spf_perm *p, int64_t v)
{
    int64_t lo = 0, hi = p->n;
    if (!p->sorted)
        spf_die("start() before sort()", v);
    if (p->order == SPF_COUNTING) {
        if (v <= 0)
            return 0;
        return v >= p->extents[0] ? p->n : p->starts[v];
    }
    if (p->order != SPF_LEX)
        spf_die("start() needs a counting or lex order", v);
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (spf_perm_key(p, 0, mid) < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Numbers the positions by the distinct values of their first c key
 * components into rank[0..n) (equal values are adjacent after sort, for c
 * up to j), O(n); returns the number of distinct values. Where the sorted
 * words hold the compared components (field_at) and c <= j, by the words'
 * bits from component c - 1's field up. */
static inline SPF_INLINE int64_t spf_perm_numbering(const spf_perm *p, int64_t c, int64_t *rank)
{
    int64_t i, d, r = -1;
    if (p->field_at != NULL && c <= p->j) {
        const int at = (int)p->field_at[c];
        uint64_t last = 0;
        for (i = 0; i < p->n; i++) {
            const uint64_t w = p->entries[i] >> at;
            r += i == 0 || w != last;
            last = w;
            rank[i] = r;
        }
        return r + 1;
    }
    for (i = 0; i < p->n; i++) {
        int differs = i == 0;
        for (d = 0; d < c && !differs; d++)
            differs = spf_perm_key(p, d, i) != spf_perm_key(p, d, i - 1);
        r += differs;
        rank[i] = r;
    }
    return r + 1;
}

/* Numbers the distinct compared keys in sorted order (equal keys are
 * adjacent after sort), O(n). */
static inline SPF_INLINE void spf_perm_number(spf_perm *p)
{
    if (!p->sorted)
        spf_die("rank() or ranks() before sort()", 0);
    p->ranks = (int64_t *)spf_alloc(p->n, sizeof *p->ranks);
    p->nranks = spf_perm_numbering(p, p->j, p->ranks);
}

/* After sort: the distinct rank of position i, how many distinct compared
 * keys come before its key (equal keys share it). The first rank() or
 * ranks() numbers the keys, O(n); the others are O(1). */
static inline SPF_INLINE int64_t spf_perm_rank(spf_perm *p, int64_t i)
{
    if (p->ranks == NULL)
        spf_perm_number(p);
    return p->ranks[i];
}

/* After sort: the number of distinct compared keys (0 when empty). */
static inline SPF_INLINE int64_t spf_perm_ranks(spf_perm *p)
{
    if (p->ranks == NULL)
        spf_perm_number(p);
    return p->nranks;
}

/* Numbers the distinct values of the first c key components in sorted
 * order, O(n): the positions of a nested level (CSF's fibers). */
static inline SPF_INLINE void spf_perm_number_prefix(spf_perm *p, int64_t c)
{
    if (!p->sorted)
        spf_die("prefix_rank() or prefix_ranks() before sort()", 0);
    if (c < 1 || c > p->k)
        spf_die("prefix_rank(): a prefix length outside 1..k", c);
    if (p->prefix == NULL) {
        p->prefix = (int64_t **)spf_alloc_zero(p->k + 1, sizeof *p->prefix);
        p->nprefix = (int64_t *)spf_alloc_zero(p->k + 1, sizeof *p->nprefix);
    }
    p->prefix[c] = (int64_t *)spf_alloc(p->n > 0 ? p->n : 1, sizeof **p->prefix);
    p->nprefix[c] = spf_perm_numbering(p, c, p->prefix[c]);
}

/* After sort: how many distinct values of the first c key components come
 * before position i's. The first call for a c numbers them, O(n). */
static inline SPF_INLINE int64_t spf_perm_prefix_rank(spf_perm *p, int64_t c, int64_t i)
{
    if (p->prefix == NULL || c < 1 || c > p->k || p->prefix[c] == NULL)
        spf_perm_number_prefix(p, c);
    return p->prefix[c][i];
}

/* After sort: the number of distinct values of the first c key components. */
static inline SPF_INLINE int64_t spf_perm_prefix_ranks(spf_perm *p, int64_t c)
{
    if (p->prefix == NULL || c < 1 || c > p->k || p->prefix[c] == NULL)
        spf_perm_number_prefix(p, c);
    return p->nprefix[c];
}

static inline SPF_INLINE void spf_perm_free(spf_perm *p)
{
    if (p->prefix != NULL) {
        int64_t c;
        for (c = 0; c <= p->k; c++)
            free(p->prefix[c]);
        free(p->prefix);
        free(p->nprefix);
    }
    free(p->ranks);
    free(p->keys);
    free(p->keys32);
    free(p->wstore);
    free(p->views); /* the pointers; the arrays are the caller's */
    free(p->views32);
    free(p->field_at);
    free(p->entries);
    free(p->positions);
    free(p->extents);
    free(p->counts);
    free(p->count_base);
    free(p->starts);
    free(p->bits);
    free(p->lanes);
    free(p->codes);
}

/* ------------------------------------------------------------------------
 * OrderedSet(LO, HI) and OrderedSet() */

typedef struct {
    int bounded, sorted;
    int64_t lo, hi, len; /* bounded: LO, HI, HI - LO + 1 (0 when HI < LO) */
    int64_t n, cap;      /* values, capacity */
    int64_t *values;     /* increasing after sort */
    int64_t *table;      /* bounded: per value of LO..HI, -1 absent, 0 present
                            before sort, its position after */
} spf_oset;

/* An empty set without bounds (index by binary search). */
static inline spf_oset spf_oset_new(void)
{
    spf_oset s;
    s.bounded = 0;
    s.sorted = 0;
    s.lo = 0;
    s.hi = -1;
    s.len = 0;
    s.n = 0;
    s.cap = 0;
    s.values = NULL;
    s.table = NULL;
    return s;
}

/* An empty set of values in lo..hi (index through a table over the range). */
static inline spf_oset spf_oset_new_bounded(int64_t lo, int64_t hi)
{
    spf_oset s = spf_oset_new();
    int64_t i;
    s.bounded = 1;
    s.lo = lo;
    s.hi = hi;
    if (hi >= lo) {
        const uint64_t span = (uint64_t)hi - (uint64_t)lo;
        if (span >= (uint64_t)INT64_MAX)
            spf_die("ordered set range too large", hi);
        s.len = (int64_t)span + 1;
    }
    s.table = (int64_t *)spf_alloc(s.len, sizeof *s.table);
    for (i = 0; i < s.len; i++)
        s.table[i] = -1;
    return s;
}

/* Adds v (ignored when already present). */
static inline void spf_oset_insert(spf_oset *s, int64_t v)
{
    if (s->sorted)
        spf_die("insert after sort()", v);
    if (s->bounded) {
#ifndef SPF_INPUT_VALIDATED
        if (v < s->lo || v > s->hi)
            spf_die("value outside the ordered set's bounds", v);
#endif
        s->table[(uint64_t)v - (uint64_t)s->lo] = 0;
        return;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->values = (int64_t *)spf_grow(s->values, s->cap, sizeof *s->values);
    }
    s->values[s->n++] = v;
}

/* Sorts a set of values in 0..E0 - 1 (bounded, lo 0) that are the first
 * components counted by the counting permutation p (extent E0): the values
 * whose count is not 0, no insert needed (the generated code leaves the
 * set's inserts out where each one is a counted first component, and each
 * counted one an insert: codegen's c/counted.rs). Any time after
 * the inserts (a second call does nothing). */
static inline void spf_oset_sort_counted(spf_oset *s, const spf_perm *p)
{
    const int64_t *count = p->count0;
    int64_t i, n = 0;
    if (s->sorted)
        return;
    if (!s->bounded || s->lo != 0 || p->order != SPF_COUNTING || s->len != p->extents[0])
        spf_die("a counted set's range is not the permutation's", s->len);
    s->sorted = 1;
    for (i = 0; i < s->len; i++)
        n += count[i] != 0;
    s->values = (int64_t *)spf_alloc(n, sizeof *s->values);
    for (i = 0, n = 0; i < s->len; i++) {
        s->table[i] = count[i] != 0 ? n : -1;
        if (count[i] != 0)
            s->values[n++] = i;
    }
    s->n = n;
}

static inline int spf_oset_cmp(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Freezes the set in increasing order (a second call does nothing). */
static inline void spf_oset_sort(spf_oset *s)
{
    int64_t i, n = 0;
    if (s->sorted)
        return;
    s->sorted = 1;
    if (s->bounded) {
        for (i = 0; i < s->len; i++)
            n += s->table[i] >= 0;
        s->values = (int64_t *)spf_alloc(n, sizeof *s->values);
        for (i = 0, n = 0; i < s->len; i++)
            if (s->table[i] >= 0) {
                s->table[i] = n;
                s->values[n++] = s->lo + i;
            }
        s->n = n;
        return;
    }
    if (s->n > 0) {
        qsort(s->values, (size_t)s->n, sizeof *s->values, spf_oset_cmp);
        for (i = 1, n = 1; i < s->n; i++)
            if (s->values[i] != s->values[n - 1])
                s->values[n++] = s->values[i];
        s->n = n;
    }
}

/* After sort: the number of values. */
static inline int64_t spf_oset_size(const spf_oset *s)
{
    if (!s->sorted)
        spf_die("size() before sort()", 0);
    return s->n;
}

/* After sort: the i-th smallest value. */
static inline int64_t spf_oset_value(const spf_oset *s, int64_t i)
{
    if (!s->sorted)
        spf_die("value() before sort()", i);
    return s->values[i];
}

/* After sort: the position of v, or -1 when absent. */
static inline int64_t spf_oset_index(const spf_oset *s, int64_t v)
{
    int64_t lo = 0, hi;
    if (!s->sorted)
        spf_die("index() before sort()", v);
    if (s->bounded)
        return v < s->lo || v > s->hi ? -1 : s->table[(uint64_t)v - (uint64_t)s->lo];
    hi = s->n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (s->values[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && s->values[lo] == v ? lo : -1;
}

/* After sort, for a bounded set and lo <= v <= hi (the caller knows it:
 * the generated code, for a counting permutation's key component within
 * the bounds, codegen/src/c/lookups.rs): the position of v, or -1 when
 * absent, without index()'s bounds test. */
static inline int64_t spf_oset_index_in(const spf_oset *s, int64_t v)
{
    if (!s->sorted)
        spf_die("index() before sort()", v);
    if (!s->bounded)
        return spf_oset_index(s, v);
    return s->table[(uint64_t)v - (uint64_t)s->lo];
}

static inline void spf_oset_free(spf_oset *s)
{
    free(s->values);
    free(s->table);
}

/* ------------------------------------------------------------------------
 * Scatter(E): the streaming counting-sort scatter (Gustavson's algorithm).
 * insert() counts keys in 0..E; sort() turns the counts into prefix sums;
 * place(v) then hands out the positions of key v in order; slot(v), sorted
 * or not, an entry's rank among its key's entries. O(E) memory, no
 * per-entry storage; at most 2^32 - 1 entries, so that the per-key counters
 * are 32 bits: half the cache footprint of 64-bit counts, on the random
 * accesses that bound the algorithm.
 *
 * insert(), place() and slot() are the hot loops' calls, so they do what
 * the hand-written algorithm does: one counter read, incremented and
 * written. insert() does not abort: a key outside 0..E, or any key once
 * sort() or slot() has closed the inserts, is counted in a sink (the
 * counter after the last key), which sort(), the first slot() and
 * spf_scatter_free test (with 32-bit counters, a check that aborts in the
 * counting loop cost a transposition 10-15%, the sink 1-3%; compilers
 * turn its select into a predicted branch, and a select through
 * arithmetic on the index, which makes the address wait for the compare,
 * costs 10-20%). Whether a key was handed out more often than it was
 * inserted is checked once, when the scatter is freed (before the
 * generated function returns): positions handed out past a key's share
 * are, until then, unchecked like the generated code's array accesses.
 * place_inserted(v) is place(v) for a caller that guarantees it (each call
 * places an entry inserted with key v: synthesized code places the entries
 * it inserted), and its positions are never checked; slot_inserted(v) is
 * slot(v) likewise. */

/* What closed the inserts (spf_scatter.closed): the sink's message. */
enum { SPF_SCATTER_OPEN, SPF_SCATTER_SORTED, SPF_SCATTER_SLOTTED };

typedef struct {
    spf_long e;       /* keys 0..e (spf_long: see spf_perm) */
    spf_long open;    /* e while inserts are allowed, 0 after: insert()
                         counts keys below open, the others in the sink */
    spf_long n;       /* entries inserted (the sink's included) */
    spf_long placed;  /* positions place() handed out: checked at free */
    spf_long trusted; /* positions place_inserted() handed out */
    spf_long slotted; /* slots slot() handed out: checked at free */
    spf_long sorted;
    spf_long closed;  /* SPF_SCATTER_OPEN, or what closed the inserts */
    spf_long own_start; /* start is the scatter's (not the caller's array) */
    uint32_t *next;   /* e + 1: per key, its count before sort, its next free
                         position after; next[e] is the sink */
    int64_t *start;   /* e + 1, from sort() on: start[v] = entries with a key
                         below v (NULL before); int64_t, as it may be the
                         caller's array (spf_scatter_sort_into) */
    int32_t *start32; /* or, after spf_scatter_sort_into_i32, the caller's
                         32-bit array of the same sums (start NULL): no
                         64-bit copy written beside it (COO -> UCSR on small
                         matrices: 5%) */
    uint32_t *slots;  /* e, from the first slot() on: per key, the slots
                         handed out (NULL before) */
    spf_long in_array; /* spf_scatter_new_in_i32: next is the caller's
                          pointer array (1; 2 once placed() shifted it
                          into the starts) */
    spf_long sink;    /* what the sink next[e] holds with no key outside:
                         0, or with in_array after sort n (the array's
                         last element) */
} spf_scatter;

/* An empty scatter over the keys 0..e with no counters yet (the two
 * constructors below give them). */
static inline spf_scatter spf_scatter_blank(int64_t e)
{
    spf_scatter s;
    if (e < 0)
        spf_die("negative scatter extent", e);
    if (e == INT64_MAX)
        spf_die("scatter extent too large", e);
    s.e = e;
    s.open = e;
    s.n = 0;
    s.placed = 0;
    s.trusted = 0;
    s.slotted = 0;
    s.sorted = 0;
    s.closed = SPF_SCATTER_OPEN;
    s.own_start = 1;
    s.next = NULL;
    s.start = NULL;
    s.start32 = NULL;
    s.slots = NULL;
    s.in_array = 0;
    s.sink = 0;
    return s;
}

/* An empty scatter over the keys 0..e. */
static inline spf_scatter spf_scatter_new(int64_t e)
{
    spf_scatter s = spf_scatter_blank(e);
    s.next = (uint32_t *)spf_alloc_zero(e + 1, sizeof *s.next);
    return s;
}

/* The counters in the pointer array (generated code calls these where it
 * places every inserted entry in one loop and reads the starts only after
 * it; docs/runtime.md, "Counting in the pointer array"): an empty scatter
 * over the keys 0..e whose counters are the caller's 32-bit array start32
 * (e + 1 elements, zeroed here; int32_t and uint32_t may alias), no array
 * of its own. Its sort (spf_scatter_sort_into_i32, into that same array)
 * turns the counts into each key's first position in place, and
 * place_inserted() hands the positions out forward, advancing each key's
 * counter to the next key's start, as the hand-written Gustavson scatter
 * does. spf_scatter_placed(), after the loop, checks that every entry was
 * placed and shifts the counters back into the starts (start(v) at v).
 * start() and count() before placed() abort (the sums are cursors until
 * then), and so does freeing the scatter sorted but not placed. */
static inline spf_scatter spf_scatter_new_in_i32(int64_t e, int32_t *start32)
{
    spf_scatter s = spf_scatter_blank(e);
    s.own_start = 0;
    memset(start32, 0, (size_t)(e + 1) * sizeof *start32);
    s.next = (uint32_t *)start32;
    s.in_array = 1;
    return s;
}

/* After the loop that placed every entry of a scatter of
 * spf_scatter_new_in_i32: the counters (each key's end by now) shifted
 * back, so that the array holds the starts from here on. Aborts when an
 * entry was not placed. */
static inline void spf_scatter_placed(spf_scatter *s)
{
    if (SPF_UNLIKELY(s->in_array != 1 || !s->sorted))
        spf_die("placed() of a scatter not sorted in its pointer array, or twice", s->e);
    if (SPF_UNLIKELY(s->trusted != s->n))
        spf_die("a scatter counting in its pointer array with entries unplaced", s->n - s->trusted);
    if (s->e > 0) {
        memmove(s->next + 1, s->next, (size_t)(s->e - 1) * sizeof *s->next);
        s->next[0] = 0;
    }
    s->in_array = 2;
}

/* Counts one entry with key v, 0 <= v < e, before sort and slot: no abort
 * here (anything else counts in the sink, reported by sort, slot and
 * free). */
static inline void spf_scatter_insert(spf_scatter *s, int64_t v)
{
#ifdef SPF_INPUT_VALIDATED
    s->next[v]++;
#else
    s->next[(uint64_t)v < (uint64_t)s->open ? v : s->e]++;
#endif
    s->n++;
}

/* Prints what the sink counted and aborts: keys outside 0..e while the
 * inserts were open, any insert after sort() or slot() closed them. */
SPF_COLD static void spf_scatter_sink_failed(const spf_scatter *s)
{
    const long long k = (long long)s->next[s->e] - (long long)s->sink;
    const char *ins = k == 1 ? "insert" : "inserts";
    if (s->closed == SPF_SCATTER_SORTED)
        fprintf(stderr, "spf runtime: insert after sort() (%lld %s)\n", k, ins);
    else if (s->closed == SPF_SCATTER_SLOTTED)
        fprintf(stderr, "spf runtime: insert after slot() (%lld %s)\n", k, ins);
    else
        fprintf(stderr, "spf runtime: key outside the scatter's range 0..%lld (%lld %s)\n",
                (long long)s->e, k, ins);
    abort();
}

/* The counts fit their 32 bits (fewer than 2^32 entries in all), and the
 * sink is empty. */
static inline void spf_scatter_check(const spf_scatter *s)
{
    if (SPF_UNLIKELY((uint64_t)s->n > UINT32_MAX))
        spf_die("a scatter holds at most 2^32 - 1 entries", s->n);
    if (SPF_UNLIKELY(s->next[s->e] != (uint32_t)s->sink))
        spf_scatter_sink_failed(s);
}

/* Checks the inserts so far and closes them: from now on every insert
 * counts in the sink. */
static inline void spf_scatter_close(spf_scatter *s, spf_long by)
{
    spf_scatter_check(s);
    s->open = 0;
    if (s->closed == SPF_SCATTER_OPEN)
        s->closed = by;
}

/* After sort, 0 <= v <= e: the prefix sum start(v), from whichever array
 * holds the sums. */
static inline int64_t spf_scatter_at(const spf_scatter *s, int64_t v)
{
    return s->start32 != NULL ? (int64_t)s->start32[v] : s->start[v];
}

/* 0 <= v < e: how many entries have key v (before or after sort; 0 for v
 * outside). Before sort, v's counter, unchecked: a key of 2^32 entries or
 * more overflows it, which the scatter's size check (in sort(), slot() and
 * spf_scatter_free) reports. Branch-free, so that a loop over the keys
 * vectorizes. */
static inline int64_t spf_scatter_count(const spf_scatter *s, int64_t v)
{
    if (SPF_UNLIKELY(s->sorted)) {
        if (SPF_UNLIKELY(s->in_array == 1))
            spf_die("count() of a scatter counting in its pointer array before placed()", v);
        return (uint64_t)v < (uint64_t)s->e ? spf_scatter_at(s, v + 1) - spf_scatter_at(s, v) : 0;
    }
    return (uint64_t)v < (uint64_t)s->e ? (int64_t)s->next[v] : 0;
}

/* Freezes the scatter: the prefix sums of the counts into start (e + 1
 * elements) or, when start32 is not NULL, into start32 (a caller's 32-bit
 * array, whose sums then fit: spf_scatter_sort_into_i32), each key's next
 * free position into next, O(e). */
static inline void spf_scatter_sort_to(spf_scatter *s, int64_t *start, int32_t *start32)
{
    int64_t v, sum = 0;
    if (SPF_UNLIKELY(s->in_array))
        spf_die("a scatter counting in its pointer array sorts into that array only", s->e);
    spf_scatter_close(s, SPF_SCATTER_SORTED);
    s->sorted = 1;
    s->start = start;
    s->start32 = start32;
    if (start32 != NULL) {
        for (v = 0; v < s->e; v++) {
            const uint32_t c = s->next[v];
            start32[v] = (int32_t)sum;
            s->next[v] = (uint32_t)sum;
            sum += c;
        }
        start32[s->e] = (int32_t)sum;
        return;
    }
    for (v = 0; v < s->e; v++) {
        const uint32_t c = s->next[v];
        start[v] = sum;
        s->next[v] = (uint32_t)sum;
        sum += c;
    }
    start[s->e] = sum;
}

/* Freezes the scatter: the prefix sums of the counts, O(e) (a second call
 * does nothing). */
static inline void spf_scatter_sort(spf_scatter *s)
{
    if (!s->sorted)
        spf_scatter_sort_to(s, (int64_t *)spf_alloc(s->e + 1, sizeof *s->start), NULL);
}

/* sort(), with the prefix sums written to the caller's array start (e + 1
 * elements; it then holds start(0), ..., start(e), and freeing the scatter
 * leaves it): the destination's pointer array of a transposition, without
 * a copy (a second sort does nothing). */
static inline void spf_scatter_sort_into(spf_scatter *s, int64_t *start)
{
    if (s->sorted)
        return;
    s->own_start = 0;
    spf_scatter_sort_to(s, start, NULL);
}

/* sort(), with the prefix sums written to the caller's 32-bit array
 * start32 (e + 1 elements), which the scatter then reads them from: a
 * 32-bit pointer array of a transposition without a copy loop or a 64-bit
 * copy. At most 2^31 - 1 entries (checked: a sum never wraps). */
static inline void spf_scatter_sort_into_i32(spf_scatter *s, int32_t *start32)
{
    if (s->sorted)
        return;
    if (SPF_UNLIKELY(s->n > INT32_MAX))
        spf_die("a 32-bit pointer array holds at most 2^31 - 1 entries", s->n);
    s->own_start = 0;
    if (s->in_array) {
        /* each key's first position, in place: place_inserted() advances
           it to the next key's start */
        int64_t v, sum = 0;
        if (SPF_UNLIKELY(start32 != (int32_t *)s->next))
            spf_die("a scatter counting in its pointer array sorts into that array only", s->e);
        spf_scatter_close(s, SPF_SCATTER_SORTED);
        s->sorted = 1;
        s->start32 = start32;
        for (v = 0; v < s->e; v++) {
            const int64_t c = start32[v];
            start32[v] = (int32_t)sum;
            sum += c;
        }
        start32[s->e] = (int32_t)sum;
        s->sink = sum;
        return;
    }
    spf_scatter_sort_to(s, NULL, start32);
}

/* The number of entries inserted. */
static inline int64_t spf_scatter_size(const spf_scatter *s)
{
    return s->n;
}

/* After sort, 0 <= v <= e: the number of entries with a key below v. */
static inline int64_t spf_scatter_start(const spf_scatter *s, int64_t v)
{
    if (SPF_UNLIKELY(!s->sorted))
        spf_die("start() before sort()", v);
    if (SPF_UNLIKELY(s->in_array == 1))
        spf_die("start() of a scatter counting in its pointer array before placed()", v);
    return spf_scatter_at(s, v);
}

/* After sort, 0 <= v < e: the next free position of key v (start(v) the
 * first time, then start(v) + 1, ...; at most as many times as v was
 * inserted, checked by spf_scatter_free). */
static inline int64_t spf_scatter_place(spf_scatter *s, int64_t v)
{
    if (SPF_UNLIKELY(s->sorted != 1 || s->in_array))
        spf_die(s->in_array ? "place() of a scatter counting in its pointer array" : "place() before sort()", v);
    s->placed++;
    return (int64_t)s->next[v]++;
}

/* place(v) for an entry inserted with key v: the caller guarantees that no
 * key is placed more often than it was inserted, and spf_scatter_free does
 * not check it (no O(e) pass). */
static inline int64_t spf_scatter_place_inserted(spf_scatter *s, int64_t v)
{
    if (SPF_UNLIKELY(s->sorted != 1))
        spf_die("place_inserted() before sort()", v);
    s->trusted++;
    return (int64_t)s->next[v]++;
}

/* Looking ahead in a placing loop (the C backend's choice, docs/runtime.md).
 * Where the placed entries do not fit in cache, each place() reads a
 * counter that is not in cache and the entry's writes miss too: the
 * hand-written transposition waits on both for every entry (webbase-1M at
 * full size: 15 ns an entry). A loop whose keys are an array's elements at
 * its variable (`jj = col[k]`) then prefetches, SPF_LOOKAHEAD entries on,
 * the counter of the key 2 * SPF_LOOKAHEAD entries on, and the target
 * positions of the key SPF_LOOKAHEAD entries on (its counter then in
 * cache): the misses overlap. A hint only: the positions read ahead may
 * differ from those place() will hand out (a key recurring in between);
 * nothing is written and every read is in bounds. In cache, and where the
 * writes go to a few streams the hardware prefetchers follow (a banded
 * matrix), the prefetches cost more than they save (3-10%), so the
 * generated code chooses between the two loops with spf_scatter_far. */
#ifndef SPF_LOOKAHEAD
#define SPF_LOOKAHEAD 32
#endif

/* (the bytes a placing loop writes below which it never looks ahead:
 * spf_scatter_far) */
#ifndef SPF_LOOKAHEAD_BYTES
#define SPF_LOOKAHEAD_BYTES (8 << 20)
#endif

#ifndef SPF_LOOKAHEAD_LINES
#define SPF_LOOKAHEAD_LINES 48
#endif

/* The readers of a placing loop's keys, defined once per key width by
 * SPF_KEY_READERS(T, S): spf_scatter_lines, spf_scatter_far and
 * spf_ahead_key for int64_t keys, the same with the suffix _i32 for the
 * int32_t keys of a 32-bit index array.
 *
 * spf_scatter_lines: the cache lines a window of 64 consecutive entries
 * of the loop writes, on average over 32 windows spread across
 * keys[0..len): the loop's concurrent write streams. An entry with key v
 * writes at element next[v] (spread 0: a place() after sort()) or about
 * v * spread / e (a slot() into a target of spread elements, e keys), of
 * elem bytes. 0 for fewer than 64 keys.
 *
 * spf_scatter_far: whether the loop placing the entries (entry_bytes
 * written per entry, the keys keys[0..len), spread and elem as for
 * spf_scatter_lines) should look ahead: the entries' writes reach
 * SPF_LOOKAHEAD_BYTES and go to SPF_LOOKAHEAD_LINES lines at a time or
 * more. The hardware prefetchers follow a few dozen sequential streams: a
 * banded matrix's transposition writes to 26-42 lines in 64 entries
 * (ecology1, atmosmodd: looking ahead costs 3-6%), a power-law or block
 * matrix's to 54-64 (webbase-1M, pwtk: looking ahead gains 20-45%). 0
 * disables either test.
 *
 * spf_ahead_key: keys[i], i clamped into 0..len-1 (0 when len is 0): the
 * key of an entry placed further on, read in bounds near the end of the
 * keys. */
#define SPF_KEY_READERS(T, S)                                                                   \
    static inline int64_t spf_scatter_lines##S(const spf_scatter *s, const T *keys, int64_t len, \
                                               int64_t spread, size_t elem)                     \
    {                                                                                           \
        enum { WINDOW = 64, WINDOWS = 32 };                                                     \
        const int64_t per_key = s->e > 0 ? spread / s->e : 0;                                   \
        uint64_t line[WINDOW];                                                                  \
        int64_t total = 0, w, i, j;                                                             \
        if (len < WINDOW)                                                                       \
            return 0;                                                                           \
        for (w = 0; w < WINDOWS; w++) {                                                         \
            const int64_t at = (len - WINDOW) / WINDOWS * w;                                    \
            for (i = 0; i < WINDOW; i++) {                                                      \
                const int64_t v = keys[at + i];                                                 \
                uint64_t x;                                                                     \
                if ((uint64_t)v >= (uint64_t)s->e)                                              \
                    x = 0;                                                                      \
                else if (spread > 0)                                                            \
                    x = (uint64_t)v * (uint64_t)per_key;                                        \
                else                                                                            \
                    x = (uint64_t)s->next[v];                                                   \
                x = x * elem / 64;                                                              \
                for (j = i; j > 0 && line[j - 1] > x; j--)                                      \
                    line[j] = line[j - 1];                                                      \
                line[j] = x;                                                                    \
            }                                                                                   \
            for (i = 0; i < WINDOW; i++)                                                        \
                total += i == 0 || line[i] != line[i - 1];                                      \
        }                                                                                       \
        return total / WINDOWS;                                                                 \
    }                                                                                           \
                                                                                                \
    static inline int spf_scatter_far##S(const spf_scatter *s, size_t entry_bytes, const T *keys, \
                                         int64_t len, int64_t spread, size_t elem)              \
    {                                                                                           \
        const uint64_t bytes = (uint64_t)s->n * (uint64_t)entry_bytes;                          \
        if (bytes + 1 <= (uint64_t)SPF_LOOKAHEAD_BYTES) /* <, quiet when 0 */                   \
            return 0;                                                                           \
        if (SPF_LOOKAHEAD_LINES <= 0)                                                           \
            return 1;                                                                           \
        return spf_scatter_lines##S(s, keys, len, spread, elem) >= SPF_LOOKAHEAD_LINES;         \
    }                                                                                           \
                                                                                                \
    static inline int64_t spf_ahead_key##S(const T *keys, int64_t len, int64_t i)               \
    {                                                                                           \
        if (SPF_UNLIKELY(len <= 0))                                                             \
            return 0;                                                                           \
        return keys[i < len ? (i > 0 ? i : 0) : len - 1];                                       \
    }

SPF_KEY_READERS(int64_t, )
SPF_KEY_READERS(int32_t, _i32)

/* Prefetches key v's counter. With SPF_INPUT_VALIDATED, the keys are in
 * 0..e and unchecked; otherwise a key outside prefetches nothing. */
static inline void spf_scatter_ahead(const spf_scatter *s, int64_t v)
{
#ifndef SPF_INPUT_VALIDATED
    if ((uint64_t)v > (uint64_t)s->e)
        return;
#endif
    SPF_PREFETCH_W(&s->next[v]);
}

/* After sort: key v's next position (as spf_scatter_ahead: unchecked with
 * SPF_INPUT_VALIDATED, otherwise 0 for v outside 0..e). */
static inline int64_t spf_scatter_peek(const spf_scatter *s, int64_t v)
{
#ifndef SPF_INPUT_VALIDATED
    if ((uint64_t)v > (uint64_t)s->e)
        return 0;
#endif
    return (int64_t)s->next[v];
}

/* Prefetches key v's slot counter (as spf_scatter_ahead; nothing before the
 * first slot()). */
static inline void spf_scatter_slot_ahead(const spf_scatter *s, int64_t v)
{
    if (s->slots == NULL)
        return;
#ifndef SPF_INPUT_VALIDATED
    if ((uint64_t)v >= (uint64_t)s->e)
        return;
#endif
    SPF_PREFETCH_W(&s->slots[v]);
}

/* The slot key v gets next (as spf_scatter_peek; 0 before the first
 * slot()). */
static inline int64_t spf_scatter_slot_peek(const spf_scatter *s, int64_t v)
{
    if (s->slots == NULL)
        return 0;
#ifndef SPF_INPUT_VALIDATED
    if ((uint64_t)v >= (uint64_t)s->e)
        return 0;
#endif
    return (int64_t)s->slots[v];
}

/* Prefetches a[i] for writing, a an array of len elements of `size` bytes,
 * 0 <= i <= len: a position place() hands out, or the end of its key's
 * (with valid keys, a correct program writes every position it is handed,
 * so its targets hold them all, and one past the last is a valid pointer).
 * Without SPF_INPUT_VALIDATED, nothing for i outside. */
static inline void spf_prefetch_at(void *a, size_t size, int64_t len, int64_t i)
{
#ifndef SPF_INPUT_VALIDATED
    if ((uint64_t)i > (uint64_t)len)
        return;
#else
    (void)len;
#endif
    SPF_PREFETCH_W((char *)a + (size_t)i * size);
}

/* Prefetches a[i] for writing if 0 <= i < len (a target's index at a slot
 * read ahead: past the key's last slot, it may be anything). */
static inline void spf_prefetch_in(void *a, size_t size, int64_t len, int64_t i)
{
    if ((uint64_t)i < (uint64_t)len)
        SPF_PREFETCH_W((char *)a + (size_t)i * size);
}

/* The first slot(): ends the inserts, zeroed rank counters. */
SPF_OUT_OF_LINE static void spf_scatter_slot_open(spf_scatter *s)
{
    spf_scatter_close(s, SPF_SCATTER_SLOTTED);
    s->slots = (uint32_t *)spf_alloc_zero(s->e, sizeof *s->slots);
}

/* 0 <= v < e, sorted or not: how many slots key v was given before (0 the
 * first time, then 1, 2, ...): an entry's rank among its key's entries, one
 * counter read and written (place() minus start() reads two arrays, after
 * the prefix sums). The first call ends the inserts and allocates the
 * counters, O(e). slot_inserted(v) is for an entry inserted with key v: the
 * caller guarantees that no key is given more slots than it was inserted,
 * and spf_scatter_free does not check it (no O(e) pass). */
static inline int64_t spf_scatter_slot_inserted(spf_scatter *s, int64_t v)
{
    if (SPF_UNLIKELY(s->slots == NULL))
        spf_scatter_slot_open(s);
    return (int64_t)s->slots[v]++;
}

/* slot(v), which spf_scatter_free checks: at most as many slots per key as
 * it was inserted. */
static inline int64_t spf_scatter_slot(spf_scatter *s, int64_t v)
{
    s->slotted++;
    return spf_scatter_slot_inserted(s, v);
}

/* Zeroes the elements of a[0..n) (elements of `size` bytes) at the
 * positions place() has not handed out, and those from size() on: after a
 * loop that writes every placed position, the rest of an array allocated
 * without the zero fill. O(e + zeroed). */
static inline void spf_scatter_zero_unplaced(const spf_scatter *s, void *a, size_t size,
                                             int64_t n)
{
    char *b = (char *)a;
    int64_t v, lo, hi;
    if (!s->sorted) {
        if (n > 0)
            memset(b, 0, (size_t)n * size);
        return;
    }
    /* every entry placed: no hole before size() */
    for (v = 0; s->placed + s->trusted < s->n && v < s->e; v++) {
        lo = (int64_t)s->next[v];
        hi = spf_scatter_at(s, v + 1) < n ? spf_scatter_at(s, v + 1) : n;
        if (lo < hi)
            memset(b + (size_t)lo * size, 0, (size_t)(hi - lo) * size);
    }
    lo = spf_scatter_at(s, s->e) > 0 ? spf_scatter_at(s, s->e) : 0;
    if (lo < n)
        memset(b + (size_t)lo * size, 0, (size_t)(n - lo) * size);
}

/* The first key v < e whose got[v] exceeds share[v], or -1 (place()'s next
 * positions against the next keys' starts). A reduction that vectorizes,
 * out of line to keep the caller's loops as they are; the key is looked for
 * only when one failed. */
SPF_OUT_OF_LINE static int64_t spf_first_above(const uint32_t *got, const int64_t *share,
                                               int64_t e)
{
    int64_t v, above = 0;
    for (v = 0; v < e; v++)
        above |= (int64_t)got[v] > share[v];
    for (v = 0; above && v < e; v++)
        if ((int64_t)got[v] > share[v])
            return v;
    return -1;
}

/* The first key v < e given more slots than its count (counts[v], or,
 * when counts is NULL, start[v + 1] - start[v]), or -1; as
 * spf_first_above. */
SPF_OUT_OF_LINE static int64_t spf_first_slot_above(const uint32_t *slots, const uint32_t *counts,
                                                    const int64_t *start, int64_t e)
{
    int64_t v, above = 0;
    if (counts != NULL) {
        for (v = 0; v < e; v++)
            above |= slots[v] > counts[v];
        for (v = 0; above && v < e; v++)
            if (slots[v] > counts[v])
                return v;
        return -1;
    }
    for (v = 0; v < e; v++)
        above |= (int64_t)slots[v] > start[v + 1] - start[v];
    for (v = 0; above && v < e; v++)
        if ((int64_t)slots[v] > start[v + 1] - start[v])
            return v;
    return -1;
}

/* Aborts when an insert went to the sink, or a key was handed out more
 * often than it was inserted (by place() or slot(); place_inserted() and
 * slot_inserted() are not checked), then frees the scatter. O(e) when
 * place() or slot() was called. */
static inline void spf_scatter_free(spf_scatter *s)
{
    int64_t v = -1;
    spf_scatter_check(s);
    if (s->in_array) {
        /* the counters are the caller's array: its starts once every
           entry is placed */
        if (s->sorted && s->in_array == 1)
            spf_die("a scatter counting in its pointer array freed before placed()", s->n - s->trusted);
        free(s->slots);
        return;
    }
    if (s->sorted && s->start32 != NULL && (s->placed > 0 || (s->slots != NULL && s->slotted > 0))) {
        /* the checks below read 64-bit sums: a copy of the caller's */
        s->start = (int64_t *)spf_alloc(s->e + 1, sizeof *s->start);
        s->own_start = 1;
        for (v = 0; v <= s->e; v++)
            s->start[v] = s->start32[v];
        s->start32 = NULL;
        v = -1;
    }
    if (s->sorted && s->placed > 0)
        v = spf_first_above(s->next, s->start + 1, s->e);
    if (v >= 0)
        spf_die("place() more often than insert() of the key", v);
    if (s->slots != NULL && s->slotted > 0)
        v = spf_first_slot_above(s->slots, s->sorted ? NULL : s->next, s->start, s->e);
    if (v >= 0)
        spf_die("slot() more often than insert() of the key", v);
    free(s->next);
    if (s->own_start)
        free(s->start);
    free(s->slots);
}
#endif /* SPF_RUNTIME_H */
