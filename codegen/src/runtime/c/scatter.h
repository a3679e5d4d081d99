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
