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
 * more often than v was inserted) prints a message to stderr and aborts, as
 * does running out of memory. Reads with an entry, position or component out
 * of range, and a scatter's start(v)/place(v) with v out of range, are not
 * checked, like the generated code's array accesses. */
#ifndef SPF_RUNTIME_H
#define SPF_RUNTIME_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints `spf runtime: WHAT (VALUE)` and aborts. */
static inline void spf_die(const char *what, int64_t value)
{
    fprintf(stderr, "spf runtime: %s (%lld)\n", what, (long long)value);
    abort();
}

/* n elements of `size` bytes (never a 0-byte block); aborts on failure. */
static inline void *spf_alloc(int64_t n, size_t size)
{
    void *p;
    if (n < 0 || (uint64_t)n > SIZE_MAX / size)
        spf_die("allocation too large", n);
    p = malloc(n > 0 ? (size_t)n * size : 1);
    if (p == NULL)
        spf_die("out of memory", n);
    return p;
}

/* `p` resized to n elements of `size` bytes; aborts on failure. */
static inline void *spf_grow(void *p, int64_t n, size_t size)
{
    if (n < 0 || (uint64_t)n > SIZE_MAX / size)
        spf_die("allocation too large", n);
    p = realloc(p, n > 0 ? (size_t)n * size : 1);
    if (p == NULL)
        spf_die("out of memory", n);
    return p;
}

/* ------------------------------------------------------------------------
 * Permutation(K, ORDER) */


enum { SPF_LEX, SPF_COUNTING, SPF_MORTON };

typedef struct {
    int64_t k;          /* key components */
    int64_t j;          /* compared leading components (1..k); the rest is a payload */
    int order;          /* SPF_LEX, SPF_COUNTING or SPF_MORTON */
    int sorted;
    int64_t n, cap;     /* entries, capacity */
    int64_t *keys;      /* k per entry: insertion order; sorted order after sort */
    int64_t *entries;   /* after sort: the entry at each position */
    int64_t *positions; /* after sort: the position of each entry, computed
                           by the first map() (NULL until then) */
    int64_t *extents;   /* counting: the j extents */
    int64_t **counts;   /* counting: per component, how many keys have each value */
    int64_t *count_base;
    int64_t *starts;    /* counting, after sort: extents[0] + 1 prefix sums */
    int indirect;       /* keys in insertion order, read through entries */
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
    p.n = 0;
    p.cap = 0;
    p.keys = NULL;
    p.entries = NULL;
    p.positions = NULL;
    p.extents = NULL;
    p.counts = NULL;
    p.count_base = NULL;
    p.starts = NULL;
    p.indirect = 0;
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
            total += extents[d];
        }
        p.count_base = (int64_t *)spf_alloc(total, sizeof *p.count_base);
        memset(p.count_base, 0, (size_t)total * sizeof *p.count_base);
        for (d = 0, total = 0; d < j; d++) {
            p.counts[d] = p.count_base + total;
            total += p.extents[d];
        }
    }
    return p;
}

/* An empty permutation of keys of k components, all compared. */
static inline spf_perm spf_perm_new(int64_t k, int order, const int64_t *extents)
{
    return spf_perm_new_compared(k, k, order, extents);
}

/* Appends an entry with key key[0..k) (its number: the entries before it). */
static inline void spf_perm_insert(spf_perm *p, const int64_t *key)
{
    const int64_t k = p->k, j = p->j, e = p->n;
    int64_t d;
    if (p->sorted)
        spf_die("insert after sort()", e);
    if (p->order == SPF_COUNTING) {
        for (d = 0; d < j; d++) {
            if (key[d] < 0 || key[d] >= p->extents[d])
                spf_die("key component outside its counting range", key[d]);
            p->counts[d][key[d]]++;
        }
    } else if (p->order == SPF_MORTON) {
        for (d = 0; d < j; d++)
            if (key[d] < 0)
                spf_die("negative key component in a morton order", key[d]);
    }
    if (e == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        if (p->cap > INT64_MAX / k)
            spf_die("too many entries", p->cap);
        p->keys = (int64_t *)spf_grow(p->keys, p->cap * k, sizeof *p->keys);
    }
    for (d = 0; d < k; d++)
        p->keys[e * k + d] = key[d];
    p->n = e + 1;
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

/* Copies a record of r words (no memcpy call for the usual small r). */
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
    default:
        for (c = 0; c < r; c++)
            to[c] = from[c];
    }
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

/* A hint to fetch the cache line at `addr` ahead of a random access. */
#if defined(__GNUC__)
#define SPF_PREFETCH(addr) __builtin_prefetch(addr)
#else
#define SPF_PREFETCH(addr) ((void)0)
#endif

/* Counting sort: LSD, one stable pass per compared component from the last
 * to the first (none over the payload), O(n + sum of extents); then the keys
 * are put in sorted order. Returns the entries in sorted order. */
static inline int64_t *spf_perm_counting_sort(spf_perm *p)
{
    const int64_t n = p->n, k = p->k, j = p->j;
    int64_t *order = (int64_t *)spf_alloc(n, sizeof *order), *tmp = NULL, *t, *off;
    int64_t i, d, v, max = 0, sum;
    int identity = 1; /* order is 0, 1, ..., n - 1, not stored yet */
    for (d = 0; d < j; d++)
        if (p->extents[d] > max)
            max = p->extents[d];
    off = (int64_t *)spf_alloc(max, sizeof *off);
    for (d = j - 1; d >= 0; d--) {
        if (p->extents[d] <= 1)
            continue; /* one value at most: the pass keeps the order */
        for (v = 0, sum = 0; v < p->extents[d]; v++) {
            off[v] = sum;
            sum += p->counts[d][v];
        }
        if (identity) {
            for (i = 0; i < n; i++)
                order[off[p->keys[i * k + d]]++] = i;
            identity = 0;
            continue;
        }
        if (tmp == NULL)
            tmp = (int64_t *)spf_alloc(n, sizeof *tmp);
        for (i = 0; i < n; i++) {
            const int64_t e = order[i];
            if (i + 16 < n)
                SPF_PREFETCH(p->keys + order[i + 16] * k + d);
            tmp[off[p->keys[e * k + d]]++] = e;
        }
        t = order;
        order = tmp;
        tmp = t;
    }
    free(off);
    free(tmp);
    if (identity)
        for (i = 0; i < n; i++)
            order[i] = i;
    /* The keys stay in insertion order: key() reads them through the
     * order (one scattered read where they are used, instead of a gather
     * pass into a second copy of every key). */
    p->indirect = 1;
    p->starts = (int64_t *)spf_alloc(p->extents[0] + 1, sizeof *p->starts);
    p->starts[0] = 0;
    for (v = 0; v < p->extents[0]; v++)
        p->starts[v + 1] = p->starts[v] + p->counts[0][v];
    return order;
}

/* Comparison sort (lex, morton): the records (key, entry) are merge sorted,
 * then split into the sorted keys and the entries, which it returns. */
static inline int64_t *spf_perm_comparison_sort(spf_perm *p)
{
    const int64_t n = p->n, k = p->k, r = k + 1;
    int64_t *rec = (int64_t *)spf_alloc(n * r, sizeof *rec);
    int64_t *scratch = (int64_t *)spf_alloc((n + 1) * r, sizeof *scratch);
    int64_t *order, i;
    for (i = 0; i < n; i++) {
        spf_copy(rec + i * r, p->keys + i * k, k);
        rec[i * r + k] = i;
    }
    spf_perm_msort(p->order, k, p->j, rec, scratch, n);
    free(scratch);
    order = (int64_t *)spf_alloc(n, sizeof *order);
    for (i = 0; i < n; i++) {
        spf_copy(p->keys + i * k, rec + i * r, k);
        order[i] = rec[i * r + k];
    }
    free(rec);
    return order;
}

/* Orders the entries stably by key and freezes the permutation (a second
 * call does nothing): counting sort for SPF_COUNTING, merge sort otherwise.
 * The keys are then in sorted order; the positions wait for map(). */
static inline void spf_perm_sort(spf_perm *p)
{
    if (p->sorted)
        return;
    p->sorted = 1;
    p->entries = p->order == SPF_COUNTING ? spf_perm_counting_sort(p) : spf_perm_comparison_sort(p);
}

/* The position of entry e (e itself before sort). The first call after
 * sort inverts the permutation, O(n); the others are O(1). */
static inline int64_t spf_perm_map(spf_perm *p, int64_t e)
{
    if (!p->sorted)
        return e;
    if (p->positions == NULL) {
        int64_t i;
        p->positions = (int64_t *)spf_alloc(p->n, sizeof *p->positions);
        for (i = 0; i < p->n; i++)
            p->positions[p->entries[i]] = i;
    }
    return p->positions[e];
}

/* The entry at position i (the inverse of map; i itself before sort). */
static inline int64_t spf_perm_entry(const spf_perm *p, int64_t i)
{
    return p->sorted ? p->entries[i] : i;
}

/* Component d of the key at position i. */
static inline int64_t spf_perm_key(const spf_perm *p, int64_t d, int64_t i)
{
    return p->keys[(p->indirect ? p->entries[i] : i) * p->k + d];
}

/* The number of entries. */
static inline int64_t spf_perm_size(const spf_perm *p)
{
    return p->n;
}

/* Counting only: how many entries have component d (< j) equal to v. */
static inline int64_t spf_perm_count(const spf_perm *p, int64_t d, int64_t v)
{
    if (p->order != SPF_COUNTING)
        spf_die("count() needs a counting order", d);
    return v < 0 || v >= p->extents[d] ? 0 : p->counts[d][v];
}

/* After sort, counting and lex only: how many entries have a first component
 * below v (the position of the first entry whose first component is >= v). */
static inline int64_t spf_perm_start(const spf_perm *p, int64_t v)
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
        if (p->keys[mid * p->k] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static inline void spf_perm_free(spf_perm *p)
{
    free(p->keys);
    free(p->entries);
    free(p->positions);
    free(p->extents);
    free(p->counts);
    free(p->count_base);
    free(p->starts);
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
        if (v < s->lo || v > s->hi)
            spf_die("value outside the ordered set's bounds", v);
        s->table[(uint64_t)v - (uint64_t)s->lo] = 0;
        return;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->values = (int64_t *)spf_grow(s->values, s->cap, sizeof *s->values);
    }
    s->values[s->n++] = v;
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

static inline void spf_oset_free(spf_oset *s)
{
    free(s->values);
    free(s->table);
}

/* ------------------------------------------------------------------------
 * Scatter(E): the streaming counting-sort scatter (Gustavson's algorithm).
 * insert() counts keys in 0..E; sort() turns the counts into prefix sums;
 * place(v) then hands out the positions of key v in order. O(E) memory, no
 * per-entry storage. */

typedef struct {
    int64_t e;      /* keys 0..e */
    int64_t open;   /* e before sort, 0 after: insert's one range check */
    int64_t n;      /* entries inserted */
    int sorted;
    int64_t *next;  /* e: per key, its count before sort, its next free
                       position after */
    int64_t *start; /* e + 1: all 0 before sort (so that place() fails its
                       one check), then start[v] = entries with a key below v */
} spf_scatter;

/* An empty scatter over the keys 0..e. */
static inline spf_scatter spf_scatter_new(int64_t e)
{
    spf_scatter s;
    if (e < 0)
        spf_die("negative scatter extent", e);
    if (e == INT64_MAX)
        spf_die("scatter extent too large", e);
    s.e = e;
    s.open = e;
    s.n = 0;
    s.sorted = 0;
    s.next = (int64_t *)spf_alloc(e, sizeof *s.next);
    s.start = (int64_t *)spf_alloc(e + 1, sizeof *s.start);
    memset(s.next, 0, (size_t)e * sizeof *s.next);
    memset(s.start, 0, (size_t)(e + 1) * sizeof *s.start);
    return s;
}

/* Counts one entry with key v, 0 <= v < e (before sort). */
static inline void spf_scatter_insert(spf_scatter *s, int64_t v)
{
    if ((uint64_t)v >= (uint64_t)s->open)
        spf_die(s->sorted ? "insert after sort()" : "key outside the scatter's range", v);
    s->next[v]++;
    s->n++;
}

/* Freezes the scatter: the prefix sums of the counts, O(e) (a second call
 * does nothing). */
static inline void spf_scatter_sort(spf_scatter *s)
{
    int64_t v, sum = 0;
    if (s->sorted)
        return;
    s->sorted = 1;
    s->open = 0;
    for (v = 0; v < s->e; v++) {
        const int64_t c = s->next[v];
        s->start[v] = sum;
        s->next[v] = sum;
        sum += c;
    }
    s->start[s->e] = sum;
}

/* The number of entries inserted. */
static inline int64_t spf_scatter_size(const spf_scatter *s)
{
    return s->n;
}

/* After sort, 0 <= v <= e: the number of entries with a key below v. */
static inline int64_t spf_scatter_start(const spf_scatter *s, int64_t v)
{
    if (!s->sorted)
        spf_die("start() before sort()", v);
    return s->start[v];
}

/* After sort, 0 <= v < e: the next free position of key v (start(v) the
 * first time, then start(v) + 1, ...). Before sort start[] is all 0 and
 * next[] holds counts, so the one check fails there too. */
static inline int64_t spf_scatter_place(spf_scatter *s, int64_t v)
{
    if (s->next[v] >= s->start[v + 1])
        spf_die(s->sorted ? "place() more often than insert() of the key" : "place() before sort()",
                v);
    return s->next[v]++;
}

static inline void spf_scatter_free(spf_scatter *s)
{
    free(s->next);
    free(s->start);
}
#endif /* SPF_RUNTIME_H */
