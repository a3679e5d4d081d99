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

