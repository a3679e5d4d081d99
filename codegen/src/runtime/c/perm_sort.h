/* ------------------------------------------------------------------------
 * Permutation: sorting (spf_perm_sort and the sorts it chooses among) */

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
 * (COO -> TCOO8's bands of 8 rows, 40 entries each, whose MSD sorts take
 * half the conversion: 2 passes over all words instead; 0.89 of the
 * hand-written C on jnlbrng1 at 0.05 against 0.72, 0.80 on dixmaanl,
 * whose 24 code bits all vary, against 0.55). Stable: equal codes keep their entry order (the
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

