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

