/* ------------------------------------------------------------------------
 * Permutation: reading the sorted order (entries, positions, keys, counts
 * and ranks) */

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

