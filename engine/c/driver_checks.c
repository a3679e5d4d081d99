/* ---------------------------------------------------------------------------
 * The driver's checks (src/cli/driver.rs concatenates this after
 * driver_readers.c): the verification of spf build --verify, and what the
 * generated drv_check_rules calls: checked 128-bit arithmetic, rule
 * enumerations and joins, the storage check with its fingerprint, and the
 * parts that run on several threads (drv_parts_run).
 * ------------------------------------------------------------------------- */

/* ----- verification (spf build --verify) ------------------------------------
 * The input and the output, each converted to coordinates by a synthesized
 * (and validated) conversion to COO, must store the same nonzero entries:
 * the oracle of spf convert, run on the user's own data. */

/* The most modes an entry of the verification holds (spf build refuses
 * --verify for more). */
#define DRV_MAX_ORDER 8

typedef struct {
    int64_t c[DRV_MAX_ORDER];
    double v;
    int64_t at; /* its position in the value array (the storage check's messages) */
} drv_entry;

static int drv_entry_order = 2;

static DRV_UNUSED int drv_cmp_entry(const void *a, const void *b)
{
    const drv_entry *x = a, *y = b;
    int d;
    for (d = 0; d < drv_entry_order; d++)
        if (x->c[d] != y->c[d])
            return x->c[d] < y->c[d] ? -1 : 1;
    return 0;
}

/* The nonzero entries of a coordinate instance (names of the COO layout),
 * sorted by coordinates. */
static DRV_UNUSED drv_entry *drv_sorted_entries(const drv_inst *coo, const char *ctx, int order,
                                                const char *const *index, const char *count,
                                                const char *values, int64_t *n)
{
    int64_t len = drv_symbol(coo, ctx, count), k, m = 0;
    const int64_t *idx[DRV_MAX_ORDER] = {NULL};
    const double *val = drv_reals(coo, ctx, values, len);
    drv_entry *out;
    int d;
    if (order > DRV_MAX_ORDER)
        drv_die("%s: %d modes; the verification compares entries of at most %d", ctx, order, DRV_MAX_ORDER);
    for (d = 0; d < order; d++)
        idx[d] = drv_ints(coo, ctx, index[d], len);
    out = drv_alloc(len > 0 ? len : 1, sizeof *out);
    for (k = 0; k < len; k++) {
        if (val[k] == 0.0)
            continue; /* a stored zero is no entry */
        memset(&out[m], 0, sizeof out[m]);
        for (d = 0; d < order; d++)
            out[m].c[d] = idx[d][k];
        out[m].v = val[k];
        m++;
    }
    drv_entry_order = order;
    qsort(out, (size_t)m, sizeof *out, drv_cmp_entry);
    *n = m;
    return out;
}

static DRV_UNUSED void drv_entry_text(char *buf, size_t size, const drv_entry *e, int order)
{
    int d, used = 0;
    used += snprintf(buf + used, size - (size_t)used, "(");
    for (d = 0; d < order && used < (int)size; d++)
        used += snprintf(buf + used, size - (size_t)used, d ? ", %lld" : "%lld", (long long)e->c[d]);
    if (used < (int)size)
        snprintf(buf + used, size - (size_t)used, ")");
}

/* Exits with status 3 at the first difference between the two sorted entry
 * lists: a lost, an added, a repeated or a changed entry. */
static DRV_UNUSED void drv_compare_entries(const drv_entry *a, int64_t na, const drv_entry *b, int64_t nb,
                                           int order, const char *input)
{
    int64_t i = 0, j = 0;
    char at[128];
    for (j = 1; j < nb; j++)
        if (drv_cmp_entry(&b[j - 1], &b[j]) == 0) {
            drv_entry_text(at, sizeof at, &b[j], order);
            fprintf(stderr, "%s: %s: verification failed: the output stores %s twice\n", drv_prog,
                    input, at);
            exit(3);
        }
    j = 0;
    while (i < na || j < nb) {
        int c = i == na ? 1 : j == nb ? -1 : drv_cmp_entry(&a[i], &b[j]);
        if (c < 0) {
            drv_entry_text(at, sizeof at, &a[i], order);
            fprintf(stderr,
                    "%s: %s: verification failed: the input's entry %s = %.17g is missing from "
                    "the output (%lld entries in, %lld out)\n",
                    drv_prog, input, at, a[i].v, (long long)na, (long long)nb);
            exit(3);
        }
        if (c > 0) {
            drv_entry_text(at, sizeof at, &b[j], order);
            fprintf(stderr,
                    "%s: %s: verification failed: the output stores %s = %.17g, which the input "
                    "does not (%lld entries in, %lld out)\n",
                    drv_prog, input, at, b[j].v, (long long)na, (long long)nb);
            exit(3);
        }
        if (!(a[i].v == b[j].v || (isnan(a[i].v) && isnan(b[j].v)))) {
            drv_entry_text(at, sizeof at, &a[i], order);
            fprintf(stderr,
                    "%s: %s: verification failed: the entry %s is %.17g in the input but %.17g "
                    "in the output\n",
                    drv_prog, input, at, a[i].v, b[j].v);
            exit(3);
        }
        i++;
        j++;
    }
}

/* ----- rule and storage checks (drv_check_rules, generated per source format) -----
 * Arithmetic is in 128 bits and checked: an overflow is the input's error,
 * reported, never a wrap-around. */

__extension__ typedef __int128 drv_wide;
__extension__ typedef unsigned __int128 drv_uwide;

/* An extent of an array the conversion allocates, computed in 128 bits:
 * one beyond 64 bits is too large, one below 0 an error of drv_size's. */
static DRV_UNUSED int64_t drv_extent(const char *ctx, const char *space, drv_wide e)
{
    if (e > INT64_MAX)
        drv_die("%s: `%s` would be too large", ctx, space);
    return e < INT64_MIN ? INT64_MIN : (int64_t)e;
}

static DRV_UNUSED void drv_overflow(const char *ctx, const char *what)
{
    drv_die("%s: cannot evaluate %s: arithmetic overflow", ctx, what);
}

/* `name(ctx, a, b)`: `a op b` in `type`, an overflow the input's error. */
#define DRV_CHECKED(name, type, overflows)                                                                   \
    static DRV_UNUSED type name(const char *ctx, type a, type b)                                             \
    {                                                                                                        \
        type r;                                                                                              \
        if (overflows(a, b, &r))                                                                             \
            drv_overflow(ctx, "a check");                                                                    \
        return r;                                                                                            \
    }

DRV_CHECKED(drv_wadd, drv_wide, __builtin_add_overflow)
DRV_CHECKED(drv_wsub, drv_wide, __builtin_sub_overflow)
DRV_CHECKED(drv_wmul, drv_wide, __builtin_mul_overflow)

static DRV_UNUSED drv_wide drv_wneg(const char *ctx, drv_wide a)
{
    return drv_wsub(ctx, 0, a);
}

/* Floor division and the remainder with the sign of the divisor (a = b *
 * (a / b) + a % b), as comparator keys define them. */
static DRV_UNUSED drv_wide drv_wdiv(const char *ctx, const char *what, drv_wide a, drv_wide b)
{
    drv_wide q;
    if (b == 0)
        drv_die("%s: %s: division by zero in the key", ctx, what);
    if (b == -1)
        return drv_wneg(ctx, a);
    q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0)))
        q -= 1;
    return q;
}

static DRV_UNUSED drv_wide drv_wrem(const char *ctx, const char *what, drv_wide a, drv_wide b)
{
    return drv_wsub(ctx, a, drv_wmul(ctx, b, drv_wdiv(ctx, what, a, b)));
}

/* Index arithmetic: the loop bounds, index-array arguments and rule
 * constraints of a check, in 64 bits and checked, as spf's own evaluator
 * computes them (an index array holds 64-bit values at most, and every
 * operation that leaves that range is the input's error). Comparator keys,
 * whose interleavings need up to 127 bits, stay drv_wide. */
typedef int64_t drv_ix;

DRV_CHECKED(drv_iadd, drv_ix, __builtin_add_overflow)
DRV_CHECKED(drv_isub, drv_ix, __builtin_sub_overflow)
DRV_CHECKED(drv_imul, drv_ix, __builtin_mul_overflow)

static DRV_UNUSED drv_ix drv_ineg(const char *ctx, drv_ix a)
{
    return drv_isub(ctx, 0, a);
}

/* Floor and ceiling division by a positive constant. */
static DRV_UNUSED drv_ix drv_ifloor(drv_ix a, int64_t m)
{
    drv_ix q = a / m;
    return (a % m != 0 && a < 0) ? q - 1 : q;
}

static DRV_UNUSED drv_ix drv_iceil(drv_ix a, int64_t m)
{
    drv_ix q = a / m;
    return (a % m != 0 && a > 0) ? q + 1 : q;
}

static DRV_UNUSED drv_ix drv_imin(drv_ix a, drv_ix b)
{
    return a < b ? a : b;
}

static DRV_UNUSED drv_ix drv_imax(drv_ix a, drv_ix b)
{
    return a > b ? a : b;
}

/* interleave(p[0], ..., p[n-1]): bit b of p[i] at bit b * n + i of the code,
 * which must fit in 127 bits; the arguments must be non-negative. */
static DRV_UNUSED drv_wide drv_interleave(const char *ctx, const char *what, int n, const drv_wide *p)
{
    drv_uwide out = 0;
    int i, b;
    for (i = 0; i < n; i++) {
        drv_uwide x;
        if (p[i] < 0)
            drv_die("%s: %s: interleave needs non-negative values, but argument %d is %lld", ctx,
                    what, i + 1, (long long)p[i]);
        x = (drv_uwide)p[i];
        for (b = 0; b < 128 && (x >> b) != 0; b++)
            if ((x >> b) & 1) {
                if ((int64_t)b * n + i >= 127)
                    drv_die("%s: %s: interleave of %d values does not fit in 127 bits "
                            "(argument %d is %lld)",
                            ctx, what, n, i + 1, (long long)p[i]);
                out |= (drv_uwide)1 << (b * n + i);
            }
    }
    return (drv_wide)out;
}

/* Lexicographic comparison of two keys of k components. */
static DRV_UNUSED int drv_key_cmp(int k, const drv_wide *x, const drv_wide *y)
{
    int d;
    for (d = 0; d < k; d++)
        if (x[d] != y[d])
            return x[d] < y[d] ? -1 : 1;
    return 0;
}

/* A read of an index array by a check, outside the array. */
static DRV_UNUSED void drv_rule_read(const char *ctx, const char *rule, const char *name, int64_t at,
                                      int64_t len)
{
    drv_die("%s: rule `%s` reads %s at %lld, outside its %lld values", ctx, rule, name,
            (long long)at, (long long)len);
}

/* "NAME(v) = x" of a point, for messages. */
static DRV_UNUSED void drv_point_text(char *buf, size_t size, const char *const *names, int n,
                                      const int64_t *v)
{
    int i, used = 0;
    buf[0] = '\0';
    for (i = 0; i < n && used >= 0 && (size_t)used < size; i++)
        used += snprintf(buf + used, size - (size_t)used, i ? ", %s = %lld" : "%s = %lld", names[i],
                         (long long)v[i]);
}

static DRV_UNUSED void drv_rule_violated(const char *ctx, const char *rule, const char *const *names,
                                         int n, const int64_t *v)
{
    char at[512];
    drv_point_text(at, sizeof at, names, n, v);
    drv_die("%s: rule `%s` does not hold at %s", ctx, rule, at);
}

static DRV_UNUSED void drv_rule_expensive(const char *ctx, const char *rule, int64_t budget)
{
    drv_die("%s: cannot check rule `%s`: it needs more than %lld evaluations (neither the "
            "adjacent-pair check of an ordering nor a join on equal keys applies)",
            ctx, rule, (long long)budget);
}

/* The points of one side of a join: records of k keys and the point's o
 * own variables (the side's variable, then those tied to it). */
typedef struct {
    int64_t *w;
    int64_t n, cap, k, o;
} drv_records;

static DRV_UNUSED void drv_records_push(drv_records *r, const int64_t *keys, const int64_t *own)
{
    int64_t i, w = r->k + r->o;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->w = drv_grow(r->w, r->cap * w, sizeof *r->w);
    }
    for (i = 0; i < r->k; i++)
        r->w[r->n * w + i] = keys[i];
    for (i = 0; i < r->o; i++)
        r->w[r->n * w + r->k + i] = own[i];
    r->n++;
}

static int64_t drv_record_words;

static DRV_UNUSED int drv_cmp_record(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    int64_t i;
    for (i = 0; i < drv_record_words; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* The most words per row drv_sorting_perm sorts by counting. */
#define DRV_COUNTING_WORDS 16

/* A stable permutation that sorts the n rows at `c` (each `words` int64
 * words, `stride` words apart; the first word most significant): a
 * counting sort per word, the last first, each pass skipped when the rows
 * are in its order already (sorted rows cost one scan a word). NULL when
 * a word's span is far beyond n, n does not fit 32 bits or a row has more
 * than DRV_COUNTING_WORDS words: a comparison sort serves those. */
static DRV_UNUSED uint32_t *drv_sorting_perm(const int64_t *c, int64_t stride, int64_t n, int words)
{
    int64_t k, span = 0, lo[DRV_COUNTING_WORDS], hi[DRV_COUNTING_WORDS], *count;
    uint32_t *perm, *next, *t;
    int d;
    if (n < 1 || (uint64_t)n > UINT32_MAX || words < 1 || words > DRV_COUNTING_WORDS)
        return NULL;
    for (d = 0; d < words; d++) {
        lo[d] = hi[d] = c[d];
        for (k = 1; k < n; k++) {
            const int64_t v = c[k * stride + d];
            if (v < lo[d])
                lo[d] = v;
            if (v > hi[d])
                hi[d] = v;
        }
        if ((uint64_t)hi[d] - (uint64_t)lo[d] >= (uint64_t)4 * (uint64_t)n + 65536)
            return NULL;
        if (hi[d] - lo[d] + 1 > span)
            span = hi[d] - lo[d] + 1;
    }
    perm = drv_alloc(n, sizeof *perm);
    next = drv_alloc(n, sizeof *next);
    count = drv_alloc(span + 1, sizeof *count);
    for (k = 0; k < n; k++)
        perm[k] = (uint32_t)k;
    for (d = words - 1; d >= 0; d--) {
        int64_t sum = 0, width = hi[d] - lo[d] + 1;
        for (k = 1; k < n && c[(int64_t)perm[k - 1] * stride + d] <= c[(int64_t)perm[k] * stride + d]; k++)
            ;
        if (k >= n)
            continue;
        memset(count, 0, (size_t)(width + 1) * sizeof *count);
        for (k = 0; k < n; k++)
            count[c[(int64_t)perm[k] * stride + d] - lo[d] + 1]++;
        for (k = 0; k <= width; k++) {
            sum += count[k];
            count[k] = sum;
        }
        for (k = 0; k < n; k++)
            next[count[c[(int64_t)perm[k] * stride + d] - lo[d]]++] = perm[k];
        t = perm;
        perm = next;
        next = t;
    }
    free(next);
    free(count);
    return perm;
}

/* Sorts the n rows at `c` (`words` int64 words each, contiguous; the
 * first word most significant) when their words pack into one 64-bit key
 * (each word less its least value, in as many bits as its span needs):
 * the rows are packed in one pass, the keys sorted by the generated code's
 * own LSD radix sort (spf_radix_u64, codegen's runtime, which skips a pass
 * over a digit every key shares), and unpacked back into the rows.
 * Returns 0, having done nothing, when the words need more than 64 bits. */
static DRV_UNUSED int drv_sort_packed(int64_t *c, int64_t n, int words)
{
    int64_t k, lo[DRV_COUNTING_WORDS], hi[DRV_COUNTING_WORDS];
    int bits[DRV_COUNTING_WORDS], d, used = 0;
    uint64_t *keys, *next, *sorted;
    int64_t *hist;
    if (n < 2 || words < 1 || words > DRV_COUNTING_WORDS)
        return 0;
    for (d = 0; d < words; d++)
        lo[d] = hi[d] = c[d];
    for (k = 1; k < n; k++)
        for (d = 0; d < words; d++) {
            const int64_t v = c[k * words + d];
            if (v < lo[d])
                lo[d] = v;
            if (v > hi[d])
                hi[d] = v;
        }
    for (d = 0; d < words; d++) {
        const uint64_t span = (uint64_t)hi[d] - (uint64_t)lo[d];
        bits[d] = span == 0 ? 0 : 64 - __builtin_clzll(span);
        used += bits[d];
        if (used > 64)
            return 0;
    }
    if (used == 0)
        return 1; /* every row the same: sorted as they are */
    keys = drv_alloc(n, sizeof *keys);
    next = drv_alloc(n, sizeof *next);
    hist = drv_alloc(SPF_HIST, sizeof *hist);
    for (k = 0; k < n; k++) {
        uint64_t key = 0;
        for (d = 0; d < words; d++)
            key = bits[d] == 0 ? key : (key << bits[d]) | ((uint64_t)c[k * words + d] - (uint64_t)lo[d]);
        keys[k] = key;
    }
    sorted = spf_radix_u64(keys, next, n, 0, used, SPF_DIGIT, hist);
    for (k = 0; k < n; k++) {
        uint64_t key = sorted[k];
        for (d = words - 1; d >= 0; d--) {
            const uint64_t mask = bits[d] == 0 ? 0 : bits[d] == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits[d]) - 1;
            c[k * words + d] = (int64_t)((uint64_t)lo[d] + (key & mask));
            key = bits[d] == 64 ? 0 : key >> bits[d];
        }
    }
    free(keys);
    free(next);
    free(hist);
    return 1;
}

/* Sorts records by keys, then point, and drops repeated ones: packed into
 * 64-bit keys (drv_sort_packed) or by counting (drv_sorting_perm) when the
 * words' spans allow, else by comparison. */
static DRV_UNUSED void drv_records_sort(drv_records *r)
{
    int64_t i, m = 0, w = r->k + r->o;
    drv_record_words = w;
    if (r->n > 1 && !drv_sort_packed(r->w, r->n, (int)w)) {
        uint32_t *perm = drv_sorting_perm(r->w, w, r->n, (int)w);
        if (perm != NULL) {
            int64_t *sorted = drv_alloc(r->n * w, sizeof *sorted);
            for (i = 0; i < r->n; i++)
                memcpy(&sorted[i * w], &r->w[(int64_t)perm[i] * w], (size_t)w * sizeof *sorted);
            free(perm);
            free(r->w);
            r->w = sorted;
            r->cap = r->n;
        } else
            qsort(r->w, (size_t)r->n, (size_t)w * sizeof *r->w, drv_cmp_record);
    }
    for (i = 0; i < r->n; i++)
        if (m == 0 || drv_cmp_record(&r->w[(m - 1) * w], &r->w[i * w]) != 0) {
            if (m != i)
                memmove(&r->w[m * w], &r->w[i * w], (size_t)w * sizeof *r->w);
            m++;
        }
    r->n = m;
}

/* Checks the rule at a pair of records (the side points' keys, the shared
 * variables first, then each side's own variables) and reports a violation. */
typedef void (*drv_pair_fn)(const char *ctx, const int64_t *a, const int64_t *b);

/* The pairs (a, b) of a join with equal keys, a from side 0 and b from side
 * 1 (a's own variable below b's when ordered), checked by `pair`. With
 * `consecutive` (both sides one set of points and the conclusion a
 * transitive order), consecutive members of a group suffice. */
static DRV_UNUSED void drv_join(const char *ctx, const char *rule, drv_records *s0, drv_records *s1,
                                int ordered, int consecutive, int64_t budget, drv_pair_fn pair)
{
    /* Pairs as many as the records (a point met by itself, groups of a
     * few) are linear work: only pairs beyond them count against the
     * budget, which stops a join that grows with the square of its input. */
    const int64_t allowed = budget + 4 * (s0->n + s1->n);
    int64_t w = s0->k + s0->o, i, lo = 0, pairs = 0;
    drv_records_sort(s0);
    drv_record_words = s0->k;
    if (consecutive) {
        /* Side 1 is side 0's set of points: only side 0 is read. */
        for (i = 1; i < s0->n; i++)
            if (drv_cmp_record(&s0->w[(i - 1) * w], &s0->w[i * w]) == 0)
                pair(ctx, &s0->w[(i - 1) * w], &s0->w[i * w]);
        return;
    }
    drv_records_sort(s1);
    drv_record_words = s0->k;
    for (i = 0; i < s0->n; i++) {
        const int64_t *a = &s0->w[i * w];
        int64_t j;
        drv_record_words = s0->k;
        while (lo < s1->n && drv_cmp_record(&s1->w[lo * w], a) < 0)
            lo++;
        for (j = lo; j < s1->n && drv_cmp_record(&s1->w[j * w], a) == 0; j++) {
            const int64_t *b = &s1->w[j * w];
            if (ordered && a[s0->k] >= b[s0->k])
                continue;
            if (++pairs > allowed)
                drv_rule_expensive(ctx, rule, allowed);
            pair(ctx, a, b);
        }
    }
}

static DRV_UNUSED void drv_records_free(drv_records *r)
{
    free(r->w);
    r->w = NULL;
    r->n = r->cap = 0;
}

/* A value of the value array, integer or real. */
static DRV_UNUSED double drv_value_at(const drv_array *a, int64_t k)
{
    return a->real ? a->r[k] : (double)drv_int(a, k);
}

/* The nonzero entries the storage check finds. */
typedef struct {
    drv_entry *e;
    int64_t n, cap;
} drv_entries;

/* Entries as a library's check hands them back (src/cli/native_check.rs):
 * `order` coordinates per entry in `coords`, the values in `values`, room
 * for `cap` (the caller's buffers). */
typedef struct {
    int64_t *coords;
    double *values;
    int64_t n, cap;
} drv_kept;

/* Where the storage check writes its entries when a library hands them
 * back, or NULL: they go to drv_entries and are freed after the check. */
static drv_kept *drv_keep = NULL;

/* Whether the kept entries need only be shown distinct (any order), not
 * sorted by coordinate. */
static int drv_keep_unordered = 0;

/* The fingerprint of the storage check's nonzero entries (their number
 * and the sum of their keyed hashes, synth/src/fingerprint.rs), or NULL.
 * When set, the entries are neither kept nor sorted: two at one coordinate
 * are the caller's to find, by comparing with an input that has none. */
typedef struct {
    uint64_t key, count, sum;
    /* When `watch` is set, `live` has bit p set while the entries so far
     * increase strictly in the order drv_orders[p] of the coordinates
     * (`prev` is the last entry): then no two share a coordinate. */
    int watch, live;
    int64_t prev[3], first[3];
} drv_fp;

static drv_fp *drv_print = NULL;

/* The orders of up to 3 coordinates (the first most significant): the
 * first of each size is the natural one; drv_norders[n] are those of n. */
static const int drv_orders[6][3] = {{0, 1, 2}, {1, 0, 2}, {0, 2, 1}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
static const int drv_norders[4] = {0, 1, 2, 6};

/* Whether entry `b` comes strictly after entry `a` in order `p`. */
static inline int drv_after(const int64_t *a, const int64_t *b, int order, int p)
{
    int i;
    for (i = 0; i < order; i++)
        if (a[drv_orders[p][i]] != b[drv_orders[p][i]])
            return a[drv_orders[p][i]] < b[drv_orders[p][i]];
    return 0;
}

/* Follows the orders in which the entries still increase (drv_fp). */
static inline void drv_fp_watch(drv_fp *f, int order, const int64_t *c)
{
    int p, d;
    if (order > 3) {
        f->live = 0;
        return;
    }
    if (f->count == 1) {
        f->live &= (1 << drv_norders[order]) - 1; /* the orders there are */
        for (d = 0; d < order; d++)
            f->first[d] = c[d];
    } else
        for (p = 0; p < drv_norders[order]; p++)
            if ((f->live >> p & 1) && !drv_after(f->prev, c, order, p))
                f->live &= ~(1 << p);
    for (d = 0; d < order; d++)
        f->prev[d] = c[d];
}

/* The constants an entry's words are xored with (fingerprint.rs's P). */
static const uint64_t drv_fp_consts[8] = {
    UINT64_C(0xa0761d6478bd642f), UINT64_C(0xe7037ed1a0b428db), UINT64_C(0x8ebc6af09c88c6e3),
    UINT64_C(0x589965cc75374cc3), UINT64_C(0x1d8e4e27c47d124f), UINT64_C(0x9e3779b97f4a7c15),
    UINT64_C(0xc2b2ae3d27d4eb4f), UINT64_C(0x165667b19e3779f9)};

/* wyhash's multiply-fold: the 128-bit product's halves xored. */
static inline uint64_t drv_fp_fold(uint64_t x, uint64_t y)
{
    __extension__ typedef unsigned __int128 drv_u128;
    const drv_u128 p = (drv_u128)x * y;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
}

/* The word j of an entry: its coordinates, its value's bits, then 0. */
static inline uint64_t drv_fp_word(int order, const int64_t *c, uint64_t bits, int j)
{
    return j < order ? (uint64_t)c[j] : j == order ? bits : 0;
}

/* The hash of one entry under `key` (fingerprint.rs's entry_hash): its
 * words folded in two at a time. */
static inline uint64_t drv_fp_entry(uint64_t key, int order, const int64_t *c, double v)
{
    uint64_t h = key, bits;
    int j;
    memcpy(&bits, &v, sizeof bits);
    for (j = 0; j <= order; j += 2)
        h = drv_fp_fold(drv_fp_word(order, c, bits, j) ^ h ^ drv_fp_consts[j % 8],
                        drv_fp_word(order, c, bits, j + 1) ^ drv_fp_consts[(j + 1) % 8]);
    return h;
}

/* Adds a nonzero entry to fingerprint f. */
static inline void drv_fp_add(drv_fp *f, int order, const int64_t *c, double v)
{
    f->count++;
    f->sum += drv_fp_entry(f->key, order, c, v);
    if (f->watch && f->live)
        drv_fp_watch(f, order, c);
}

/* Adds to `into` the fingerprint `next` of the entries that come after
 * its own: counts and sums add up, and an order in which both increased
 * still holds if `next`'s first entry comes after `into`'s last. */
static DRV_UNUSED void drv_fp_merge(drv_fp *into, const drv_fp *next, int order)
{
    int p, d;
    if (next->count == 0)
        return;
    if (into->count == 0) {
        const uint64_t key = into->key;
        *into = *next;
        into->key = key;
        return;
    }
    into->count += next->count;
    into->sum += next->sum;
    if (!into->watch)
        return;
    into->live &= next->live;
    if (order > 3)
        into->live = 0;
    for (p = 0; into->live && p < drv_norders[order]; p++)
        if ((into->live >> p & 1) && !drv_after(into->prev, next->first, order, p))
            into->live &= ~(1 << p);
    for (d = 0; d < order && d < 3; d++)
        into->prev[d] = next->prev[d];
}

/* Whether e[0..n) is in order by coordinate d alone. */
static DRV_UNUSED int drv_sorted_by(const drv_entry *e, int64_t n, int d)
{
    int64_t k;
    for (k = 1; k < n; k++)
        if (e[k - 1].c[d] > e[k].c[d])
            return 0;
    return 1;
}

/* Sorts entries by their coordinates (the first most significant), in
 * linear time when every coordinate spans a range not far beyond the number
 * of entries: a stable counting sort per coordinate, the last first, each
 * pass skipped when the entries are in its order already (sorted input
 * costs one scan); qsort otherwise. */
static DRV_UNUSED void drv_sort_entries(drv_entry *e, int64_t n, int order)
{
    int64_t lo[DRV_MAX_ORDER] = {0}, hi[DRV_MAX_ORDER] = {0}, k, span = 0;
    drv_entry *from = e, *to, *tmp;
    int64_t *count;
    int d;
    if (order > DRV_MAX_ORDER)
        drv_die("%d modes; entries are sorted for at most %d", order, DRV_MAX_ORDER);
    drv_entry_order = order;
    if (n < 2)
        return;
    for (k = 1; k < n && drv_cmp_entry(&e[k - 1], &e[k]) <= 0; k++)
        ;
    if (k == n)
        return;
    for (d = 0; d < order; d++) {
        lo[d] = hi[d] = e[0].c[d];
        for (k = 1; k < n; k++) {
            if (e[k].c[d] < lo[d])
                lo[d] = e[k].c[d];
            if (e[k].c[d] > hi[d])
                hi[d] = e[k].c[d];
        }
        if ((uint64_t)hi[d] - (uint64_t)lo[d] >= (uint64_t)4 * (uint64_t)n + 65536) {
            qsort(e, (size_t)n, sizeof *e, drv_cmp_entry);
            return;
        }
        if (hi[d] - lo[d] + 1 > span)
            span = hi[d] - lo[d] + 1;
    }
    tmp = drv_alloc(n, sizeof *e);
    count = drv_alloc(span + 1, sizeof *count);
    to = tmp;
    for (d = order - 1; d >= 0; d--) {
        int64_t sum = 0, width = hi[d] - lo[d] + 1;
        if (drv_sorted_by(from, n, d))
            continue;
        memset(count, 0, (size_t)(width + 1) * sizeof *count);
        for (k = 0; k < n; k++)
            count[from[k].c[d] - lo[d] + 1]++;
        for (k = 0; k <= width; k++) {
            sum += count[k];
            count[k] = sum;
        }
        for (k = 0; k < n; k++)
            to[count[from[k].c[d] - lo[d]]++] = from[k];
        {
            drv_entry *t = from;
            from = to;
            to = t;
        }
    }
    if (from != e)
        memcpy(e, from, (size_t)n * sizeof *e);
    free(tmp);
    free(count);
}

static DRV_UNUSED void drv_storage_entry(drv_entries *s, int order, const int64_t *c, double v, int64_t at)
{
    int d;
    if (drv_keep != NULL) {
        if (drv_keep->n == drv_keep->cap)
            drv_die("more nonzero entries than nonzero values");
        for (d = 0; d < order; d++)
            drv_keep->coords[drv_keep->n * order + d] = c[d];
        drv_keep->values[drv_keep->n++] = v;
        return;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->e = drv_grow(s->e, s->cap, sizeof *s->e);
    }
    memset(&s->e[s->n], 0, sizeof s->e[s->n]);
    for (d = 0; d < order; d++)
        s->e[s->n].c[d] = c[d];
    s->e[s->n].v = v;
    s->e[s->n].at = at;
    s->n++;
}

/* Room for one entry per nonzero value of `values` (its first `total`),
 * the most a map that addresses each value once gives. */
static DRV_UNUSED void drv_entries_reserve(drv_entries *s, const drv_array *values, int64_t total)
{
    int64_t k, nonzero = 0;
    if (drv_keep != NULL || drv_print != NULL)
        return; /* the entries go to the caller's buffers, or into a sum */
    for (k = 0; k < total && k < values->len; k++)
        nonzero += drv_value_at(values, k) != 0.0;
    s->cap = nonzero > 0 ? nonzero : 1;
    s->e = drv_alloc(s->cap, sizeof *s->e);
}

/* What the loops of a storage check read besides the instance's arrays
 * (drv_check_rules prints them into a part, drv_parts_run). Parts that run
 * at once mark `addressed` with plain byte stores: a slot two of them
 * address gets the same byte from both, and no other byte is written (an
 * atomic store there kept GCC from holding the loop's pointers in
 * registers, and made the parts three times slower). */
typedef struct {
    const char *ctx;
    const drv_array *values;
    const int64_t *ext;
    unsigned char *addressed;
    drv_entries *entries;
} drv_storage;

/* A check's loop nest with its outermost loop over [lo, hi) (a "part"):
 * `arg` is what it reads besides the instance (a drv_storage for a storage
 * check, the context for a rule's), `fp` the fingerprint its entries go
 * to, or NULL. */
typedef void (*drv_part)(const void *arg, drv_fp *fp, int64_t lo, int64_t hi);

#ifdef DRV_THREADS
#include <pthread.h>

/* The least work (value slots) whose check runs on several threads, the
 * most threads, and the ranges per thread. */
#define DRV_PARALLEL_WORK 65536
#define DRV_MAX_THREADS 8
#define DRV_CHUNKS_PER_THREAD 8

/* One range of a part run on several threads: its fingerprint and its
 * stop's message. */
typedef struct {
    int64_t lo, hi;
    drv_fp fp;
    int failed;
    char message[sizeof drv_message];
} drv_chunk;

/* The ranges of one part, taken in turn by its threads. */
typedef struct {
    drv_part part;
    const void *arg;
    int fingerprinted;
    drv_chunk *chunks;
    int n;
    int next;   /* the next range to take (atomic) */
    int failed; /* the first range that stopped, or n (atomic) */
} drv_plan;

/* Takes ranges until none is left, each with a fingerprint of the
 * thread's own (and, for a storage check, a copy of its pointers). A range
 * after one that stopped is skipped: its result would not be looked at. */
static void *drv_parts_work(void *arg)
{
    drv_plan *plan = arg;
    drv_storage own;
    const void *part_arg = plan->arg;
    jmp_buf here, *volatile outer = drv_jump_at;
    int c;
    if (plan->fingerprinted) {
        own = *(const drv_storage *)plan->arg;
        part_arg = &own;
    }
    while ((c = __atomic_fetch_add(&plan->next, 1, __ATOMIC_RELAXED)) < plan->n) {
        drv_chunk *chunk = &plan->chunks[c];
        drv_fp fp = chunk->fp;
        if (c > __atomic_load_n(&plan->failed, __ATOMIC_RELAXED))
            continue;
        drv_jump_at = &here;
        if (setjmp(here)) {
            int first = __atomic_load_n(&plan->failed, __ATOMIC_RELAXED);
            chunk->failed = 1;
            memcpy(chunk->message, drv_message, sizeof chunk->message);
            while (c < first &&
                   !__atomic_compare_exchange_n(&plan->failed, &first, c, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                ;
            continue;
        }
        plan->part(part_arg, plan->fingerprinted ? &fp : NULL, chunk->lo, chunk->hi);
        chunk->fp = fp;
    }
    drv_jump_at = outer;
    return NULL;
}
#endif

/* Runs `part` over the outermost values [lo, hi), about `work` value slots
 * of it. With `split` (a rule's check, or a storage check whose entries
 * are only fingerprinted: into `fp`, of `order` coordinates) and much work,
 * the values are cut into contiguous ranges that up to one thread per
 * processor take in turn; the ranges' fingerprints add up into `fp` in
 * order (drv_fp_merge), and the first range's stop is the part's: the
 * stop a run on one thread meets first. */
static DRV_UNUSED void drv_parts_run(drv_part part, const void *arg, drv_ix lo, drv_ix hi, int64_t work,
                                     int split, drv_fp *fp, int order)
{
    if (hi <= lo)
        return;
#ifdef DRV_THREADS
    /* The processors are asked only for work worth threads: asking reads
     * a file of the kernel's, which a small check would feel. */
    if (split && work >= DRV_PARALLEL_WORK && hi - lo >= 2) {
        const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        const int threads = cpus < 1 ? 1 : cpus > DRV_MAX_THREADS ? DRV_MAX_THREADS : (int)cpus;
        if (threads > 1) {
            pthread_t ids[DRV_MAX_THREADS];
            int started[DRV_MAX_THREADS], t, c;
            drv_plan plan;
            plan.part = part;
            plan.arg = arg;
            plan.fingerprinted = fp != NULL;
            plan.n = (drv_wide)threads * DRV_CHUNKS_PER_THREAD < (drv_wide)hi - lo ? threads * DRV_CHUNKS_PER_THREAD
                                                                                    : (int)(hi - lo);
            plan.next = 0;
            plan.failed = plan.n;
            plan.chunks = drv_alloc(plan.n, sizeof *plan.chunks);
            for (c = 0; c < plan.n; c++) {
                drv_chunk *chunk = &plan.chunks[c];
                memset(chunk, 0, sizeof *chunk);
                chunk->lo = lo + (int64_t)(((drv_wide)hi - lo) * c / plan.n);
                chunk->hi = lo + (int64_t)(((drv_wide)hi - lo) * (c + 1) / plan.n);
                if (fp != NULL) {
                    chunk->fp.key = fp->key;
                    chunk->fp.watch = fp->watch;
                    chunk->fp.live = 0x3f;
                }
            }
            for (t = 1; t < threads; t++)
                started[t] = pthread_create(&ids[t], NULL, drv_parts_work, &plan) == 0;
            drv_parts_work(&plan);
            for (t = 1; t < threads; t++)
                if (started[t])
                    pthread_join(ids[t], NULL);
            if (plan.failed < plan.n) {
                char message[sizeof drv_message];
                memcpy(message, plan.chunks[plan.failed].message, sizeof message);
                free(plan.chunks);
                drv_die("%s", message);
            }
            for (c = 0; fp != NULL && c < plan.n; c++)
                drv_fp_merge(fp, &plan.chunks[c].fp, order);
            free(plan.chunks);
            return;
        }
    }
#endif
    (void)work;
    (void)split;
    (void)order;
    part(arg, fp, lo, hi);
}

/* "3, 1" of a position given row-major over `ext`. */
static DRV_UNUSED void drv_position_text(char *buf, size_t size, int64_t k, const int64_t *ext, int n)
{
    int64_t pos[8];
    int d, used = 0;
    for (d = n - 1; d >= 0; d--) {
        pos[d] = ext[d] > 0 ? k % ext[d] : 0;
        k = ext[d] > 0 ? k / ext[d] : 0;
    }
    buf[0] = '\0';
    for (d = 0; d < n && used >= 0 && (size_t)used < size; d++)
        used += snprintf(buf + used, size - (size_t)used, d ? ", %lld" : "%lld", (long long)pos[d]);
}

/* The number of values the extents give, which must be the array's length. */
static DRV_UNUSED int64_t drv_storage_total(const char *ctx, const drv_array *a, const int64_t *ext, int n)
{
    int64_t total = 1;
    int d;
    for (d = 0; d < n; d++) {
        if (ext[d] < 0)
            drv_die("%s: %s has a negative extent (%lld)", ctx, a->name, (long long)ext[d]);
        if (ext[d] != 0 && total > INT64_MAX / ext[d])
            drv_die("%s: %s's extents overflow", ctx, a->name);
        total *= ext[d];
    }
    if (a->len != total)
        drv_die("%s: %s has %lld values but its extents give %lld", ctx, a->name, (long long)a->len,
                (long long)total);
    return total;
}

/* Stops at an entry the destination cannot store: the message spf
 * convert gives (coordinates 1-based, as in the files). */
/* The 1-based coordinates `at` of n modes as text: `4, 12`. */
static DRV_UNUSED void drv_coords_text(char *out, size_t size, const int64_t *at, int n)
{
    int d, used = 0;
    out[0] = '\0';
    for (d = 0; d < n && used >= 0 && (size_t)used < size; d++)
        used += snprintf(out + used, size - (size_t)used, d ? ", %lld" : "%lld", (long long)at[d] + 1);
}

static DRV_UNUSED void drv_unrepresentable(const char *ctx, int n, const int64_t *at, const char *format,
                                           const char *conditions)
{
    char point[256];
    drv_coords_text(point, sizeof point, at, n);
    drv_die("%s: the entry at (%s) cannot be stored in %s: %s stores only entries with %s", ctx, point,
            format, format, conditions);
}

/* The entries of an input by group, for a destination whose groups hold at
 * most so many entries (a 2:4 format's blocks): each record is the group's
 * `g` keys, the entry's sequence number and its `d` coordinates. */
typedef struct {
    int64_t *rec;
    int64_t n, cap;
    int g, d;
} drv_groups;

static int drv_groups_width; /* the compared prefix of a record, for qsort */

static DRV_UNUSED void drv_groups_add(drv_groups *G, const int64_t *key, const int64_t *at)
{
    int64_t w = G->g + 1 + G->d, *r;
    if (G->n == G->cap) {
        int64_t cap = G->cap ? 2 * G->cap : 1024;
        int64_t *grown = (int64_t *)realloc(G->rec, (size_t)(cap * w) * sizeof *grown);
        if (grown == NULL)
            drv_die("out of memory counting the entries per group");
        G->rec = grown;
        G->cap = cap;
    }
    r = G->rec + G->n * w;
    memcpy(r, key, (size_t)G->g * sizeof *r);
    r[G->g] = G->n;
    memcpy(r + G->g + 1, at, (size_t)G->d * sizeof *r);
    G->n++;
}

static int drv_groups_cmp(const void *a, const void *b)
{
    const int64_t *x = (const int64_t *)a, *y = (const int64_t *)b;
    int i;
    for (i = 0; i < drv_groups_width; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* Stops at the first entry, in input order, whose group already holds
 * `at_most` entries, naming them; frees the records. */
static DRV_UNUSED void drv_groups_check(drv_groups *G, int64_t at_most, const char *ctx, const char *format,
                                        const char *capacity)
{
    int64_t w = G->g + 1 + G->d, i, start, first = -1, first_start = 0;
    drv_groups_width = G->g + 1;
    if (G->n > 1)
        qsort(G->rec, (size_t)G->n, (size_t)w * sizeof *G->rec, drv_groups_cmp);
    for (start = 0; start < G->n; start = i) {
        for (i = start + 1; i < G->n && memcmp(G->rec + i * w, G->rec + start * w, (size_t)G->g * sizeof *G->rec) == 0;
             i++)
            ;
        if (i - start > at_most && (first < 0 || G->rec[(start + at_most) * w + G->g] < G->rec[first * w + G->g])) {
            first = start + at_most;
            first_start = start;
        }
    }
    if (first >= 0) {
        char point[256], fill[1024];
        size_t used = 0;
        drv_coords_text(point, sizeof point, G->rec + first * w + G->g + 1, G->d);
        fill[0] = '\0';
        for (i = first_start; i < first && used < sizeof fill; i++) {
            char one[256];
            drv_coords_text(one, sizeof one, G->rec + i * w + G->g + 1, G->d);
            used += (size_t)snprintf(fill + used, sizeof fill - used, i > first_start ? ", (%s)" : "(%s)", one);
        }
        drv_die("%s: the entry at (%s) cannot be stored in %s: %s stores %s, and the entries at %s already fill "
                "its group",
                ctx, point, format, format, capacity, fill);
    }
    free(G->rec);
    G->rec = NULL;
    G->n = G->cap = 0;
}

static DRV_UNUSED void drv_storage_outside(const char *ctx, const int64_t *v, int n_sparse, const char *name,
                                           const int64_t *pos, const int64_t *ext, int n)
{
    char point[256], at[256], extents[256];
    int d, used = 0;
    point[0] = at[0] = extents[0] = '\0';
    for (d = 0; d < n_sparse && used >= 0 && (size_t)used < sizeof point; d++)
        used += snprintf(point + used, sizeof point - (size_t)used, d ? ", %lld" : "%lld", (long long)v[d]);
    used = 0;
    for (d = 0; d < n && used >= 0 && (size_t)used < sizeof at; d++)
        used += snprintf(at + used, sizeof at - (size_t)used, d ? ", %lld" : "%lld", (long long)pos[d]);
    used = 0;
    for (d = 0; d < n && used >= 0 && (size_t)used < sizeof extents; d++)
        used += snprintf(extents + used, sizeof extents - (size_t)used, d ? " x %lld" : "%lld",
                         (long long)ext[d]);
    drv_die("%s: sparse point (%s) reads %s(%s), outside its extents %s", ctx, point, name, at, extents);
}

/* Whether the kept entries increase strictly in the lexicographic order
 * of some permutation of the coordinates (a CSC's entries do, columns
 * first): then no two share a coordinate, seen in one scan per order
 * tried. */
static DRV_UNUSED int drv_kept_distinct_by_some_order(const drv_kept *kept, int order)
{
    const int64_t *c = kept->coords;
    int64_t k;
    int p;
    if (order > 3)
        return 0;
    for (p = 0; p < drv_norders[order]; p++) {
        for (k = 1; k < kept->n && drv_after(&c[(k - 1) * order], &c[k * order], order, p); k++)
            ;
        if (k >= kept->n)
            return 1;
    }
    return 0;
}

/* Sorts the kept entries by coordinate (the first most significant) and
 * stops at two at one coordinate (the caller's own check then names them):
 * a permutation by counting (drv_sorting_perm), then each array permuted
 * through one buffer; a comparison sort when counting does not serve. */
static DRV_UNUSED void drv_kept_sort(const char *ctx, drv_kept *kept, int order)
{
    int64_t n = kept->n, k;
    int64_t *c = kept->coords;
    uint32_t *perm;
    double *buf;
    int d, sorted = 1;
    for (k = 1; k < n && sorted; k++)
        for (d = 0; d < order; d++) {
            if (c[(k - 1) * order + d] != c[k * order + d]) {
                sorted = c[(k - 1) * order + d] < c[k * order + d];
                break;
            }
            if (d == order - 1)
                drv_die("%s: two nonzero entries at one coordinate", ctx);
        }
    if (sorted)
        return;
    if (drv_keep_unordered && drv_kept_distinct_by_some_order(kept, order))
        return;
    perm = drv_sorting_perm(c, order, n, order);
    if (perm == NULL) {
        drv_entry *e = drv_alloc(n, sizeof *e);
        for (k = 0; k < n; k++) {
            for (d = 0; d < order; d++)
                e[k].c[d] = c[k * order + d];
            e[k].v = kept->values[k];
        }
        drv_entry_order = order;
        qsort(e, (size_t)n, sizeof *e, drv_cmp_entry);
        for (k = 0; k < n; k++) {
            for (d = 0; d < order; d++)
                c[k * order + d] = e[k].c[d];
            kept->values[k] = e[k].v;
        }
        free(e);
    } else {
        /* Each array through one buffer: the coordinates column by column. */
        buf = drv_alloc(n, sizeof *buf);
        for (k = 0; k < n; k++)
            buf[k] = kept->values[perm[k]];
        memcpy(kept->values, buf, (size_t)n * sizeof *buf);
        for (d = 0; d < order; d++) {
            int64_t *col = (int64_t *)buf;
            for (k = 0; k < n; k++)
                col[k] = c[(int64_t)perm[k] * order + d];
            for (k = 0; k < n; k++)
                c[k * order + d] = col[k];
        }
        free(buf);
        free(perm);
    }
    for (k = 1; k < n; k++) {
        for (d = 0; d < order && c[(k - 1) * order + d] == c[k * order + d]; d++)
            ;
        if (d == order)
            drv_die("%s: two nonzero entries at one coordinate", ctx);
    }
}

/* The first slot in [0, n) that no entry addresses but that holds a
 * nonzero value, or n. Each block of slots is tested without a branch
 * first, which the compiler vectorizes; only a block that has one is
 * searched. */
static DRV_UNUSED int64_t drv_first_lost(const drv_array *values, const unsigned char *addressed, int64_t n)
{
    int64_t b, k;
    for (b = 0; b < n; b += DRV_BLOCK) {
        const int64_t e = n - b < DRV_BLOCK ? n : b + DRV_BLOCK;
        int lost = 0;
        if (values->real)
            for (k = b; k < e; k++)
                lost |= !addressed[k] & (values->r[k] != 0.0);
        else
            for (k = b; k < e; k++)
                lost |= !addressed[k] & (drv_int(values, k) != 0);
        if (lost)
            for (k = b; k < e; k++)
                if (!addressed[k] && drv_value_at(values, k) != 0.0)
                    return k;
    }
    return n;
}

/* After the map's points: no two nonzero entries at one coordinate, and no
 * nonzero value that no point addressed (the messages of spf convert). */
static DRV_UNUSED void drv_storage_finish(const char *ctx, const drv_array *values, unsigned char *addressed,
                                          int64_t total, drv_entries *s, int order, const int64_t *ext,
                                          int n, int padding)
{
    int64_t k;
    char a[256], b[256], c[256];
    if (drv_keep != NULL)
        drv_kept_sort(ctx, drv_keep, order);
    drv_sort_entries(s->e, s->n, order);
    for (k = 1; k < s->n; k++)
        if (drv_cmp_entry(&s->e[k - 1], &s->e[k]) == 0) {
            const drv_entry *x = &s->e[k - 1], *y = &s->e[k];
            if (x->at > y->at) {
                const drv_entry *t = x;
                x = y;
                y = t;
            }
            drv_entry_text(c, sizeof c, x, order);
            drv_position_text(a, sizeof a, x->at, ext, n);
            drv_position_text(b, sizeof b, y->at, ext, n);
            drv_die("%s: two nonzero entries at %s: %s(%s) = %.17g and %s(%s) = %.17g%s", ctx, c,
                    values->name, a, x->v, values->name, b, y->v,
                    padding ? " (padding slots must hold zeros)" : "");
        }
    k = drv_first_lost(values, addressed, total);
    if (k < total) {
        drv_position_text(a, sizeof a, k, ext, n);
        drv_die("%s: %s(%s) = %.17g belongs to no stored entry (no point of the map addresses "
                "it), so it would be lost; %s",
                ctx, values->name, a, drv_value_at(values, k),
                padding ? "slots outside the stored entries must hold zero"
                        : "do the pointer arrays start at 0 and end at the number of stored values?");
    }
    free(addressed);
    free(s->e);
}
