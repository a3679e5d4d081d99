/* Hand-written baselines: the best known algorithm for each conversion the
 * benchmark measures, written as a person tuning it by hand would (no
 * runtime objects, no generality). Compiled with the flags `spf build` uses
 * (-O3 -march=native -std=c99) by bench/build.rs and called from Rust
 * through bench/src/c.rs.
 *
 * Conventions: indices are bl_idx (int64_t, or int32_t with BL_INDEX) and
 * values double, as in spf's generated code; every function allocates its outputs (and temporaries)
 * itself, so a caller timing the call times the allocation too; outputs are
 * released with bl_free. A function returns 0, or -1 when it cannot handle
 * the input (out of memory, a Morton code wider than 64 bits). Layouts are
 * those of spf's descriptors (the .desc files of descriptors/): CSR rowptr/col/A with
 * columns increasing within a row, CSC colptr/row/A likewise, DIA off (ND,
 * increasing) and A (NR x ND, row-major, explicit zeros), ELL col and A
 * (NR x W, row-major, padding: column 0 and value 0), MCOO3 row/col/z/A in
 * Morton order (bit 0 of i lowest). */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The index type: int64_t, or what BL_INDEX names when it is defined
 * first (int32_t: the 32-bit baselines, beside `spf build --index-width
 * 32`; bench/src/c.rs, paired_baseline). Counters and sizes stay int64_t. */
#ifndef BL_INDEX
#define BL_INDEX int64_t
#endif
typedef BL_INDEX bl_idx;

/* Outputs: up to three index arrays and the values. */
typedef struct {
    bl_idx *idx[3];
    int64_t idx_len[3];
    double *val;
    int64_t val_len;
    int64_t size; /* NNZ, ND or W: the destination's computed size */
} bl_out;

void bl_free(bl_out *o)
{
    int d;
    for (d = 0; d < 3; d++) {
        free(o->idx[d]);
        o->idx[d] = NULL;
        o->idx_len[d] = 0;
    }
    free(o->val);
    o->val = NULL;
    o->val_len = 0;
}

static void bl_clear(bl_out *o)
{
    memset(o, 0, sizeof *o);
}

static void *bl_malloc(int64_t n, size_t size)
{
    return malloc(n > 0 ? (size_t)n * size : 1);
}

static void *bl_calloc(int64_t n, size_t size)
{
    return calloc(n > 0 ? (size_t)n : 1, size);
}

/* A zeroed pointer array of n elements: `given` (the caller's, as a
 * converter's driver passes it) cleared, or a new one when NULL. */
static bl_idx *bl_pointers(bl_idx *given, int64_t n)
{
    if (given == NULL)
        return (bl_idx *)bl_calloc(n, sizeof *given);
    memset(given, 0, (size_t)n * sizeof *given);
    return given;
}

/* ----- sorting a segment of (index, value) pairs by index ---------------- */

/* Insertion sort: O(len) on a sorted segment, fast on short ones. */
static void bl_insertion(bl_idx *idx, double *val, int64_t len)
{
    int64_t a, b;
    for (a = 1; a < len; a++) {
        const int64_t x = idx[a];
        const double v = val[a];
        if (idx[a - 1] <= x)
            continue;
        b = a;
        do {
            idx[b] = idx[b - 1];
            val[b] = val[b - 1];
            b--;
        } while (b > 0 && idx[b - 1] > x);
        idx[b] = x;
        val[b] = v;
    }
}

/* Bottom-up merge sort of a long segment, runs of 32 by insertion sort;
 * tmp_i/tmp_v hold len elements. */
static void bl_merge_sort(bl_idx *idx, double *val, int64_t len, bl_idx *tmp_i,
                          double *tmp_v)
{
    int64_t w, lo;
    bl_idx *si = idx, *di = tmp_i;
    double *sv = val, *dv = tmp_v;
    for (lo = 0; lo < len; lo += 32)
        bl_insertion(idx + lo, val + lo, len - lo < 32 ? len - lo : 32);
    for (w = 32; w < len; w *= 2) {
        for (lo = 0; lo < len; lo += 2 * w) {
            int64_t a = lo, mid = lo + w < len ? lo + w : len, b = mid;
            const int64_t hi = lo + 2 * w < len ? lo + 2 * w : len;
            int64_t o = lo;
            while (a < mid && b < hi) {
                if (si[b] < si[a]) {
                    di[o] = si[b];
                    dv[o++] = sv[b++];
                } else {
                    di[o] = si[a];
                    dv[o++] = sv[a++];
                }
            }
            while (a < mid) {
                di[o] = si[a];
                dv[o++] = sv[a++];
            }
            while (b < hi) {
                di[o] = si[b];
                dv[o++] = sv[b++];
            }
        }
        {
            bl_idx *ti = si;
            double *tv = sv;
            si = di;
            sv = dv;
            di = ti;
            dv = tv;
        }
    }
    if (si != idx) {
        memcpy(idx, si, (size_t)len * sizeof *idx);
        memcpy(val, sv, (size_t)len * sizeof *val);
    }
}

/* Sorts every segment ptr[i] .. ptr[i+1] of (idx, val) by idx. Returns -1
 * when the scratch for a long segment cannot be allocated. */
static int bl_sort_segments(int64_t n, const bl_idx *ptr, bl_idx *idx, double *val)
{
    int64_t i, longest = 0;
    bl_idx *tmp_i = NULL;
    double *tmp_v = NULL;
    for (i = 0; i < n; i++) {
        const int64_t lo = ptr[i], len = ptr[i + 1] - lo;
        int64_t k;
        if (len < 2)
            continue;
        for (k = lo + 1; k < lo + len && idx[k - 1] <= idx[k]; k++)
            ;
        if (k == lo + len)
            continue; /* already sorted */
        if (len <= 64) {
            bl_insertion(idx + lo, val + lo, len);
            continue;
        }
        if (len > longest) {
            free(tmp_i);
            free(tmp_v);
            longest = len;
            tmp_i = (bl_idx *)bl_malloc(len, sizeof *tmp_i);
            tmp_v = (double *)bl_malloc(len, sizeof *tmp_v);
            if (tmp_i == NULL || tmp_v == NULL) {
                free(tmp_i);
                free(tmp_v);
                return -1;
            }
        }
        bl_merge_sort(idx + lo, val + lo, len, tmp_i, tmp_v);
    }
    free(tmp_i);
    free(tmp_v);
    return 0;
}

/* ----- COO -> CSR / CSC: Gustavson's counting sort ------------------------ */

/* Entries (major[e], minor[e], A[e]) to a compressed format along `major`
 * (rows for CSR, columns for CSC): count, prefix sum, scatter in input
 * order (the pointer array itself is the cursor, shifted back after), then,
 * with `sorted`, sort each segment by `minor` (insertion sort; no work on a
 * sorted segment); without, the segments keep the input's order (UCSR).
 * idx[0] = ptr (nmajor + 1), idx[1] = minor indices, val. */
int bl_coo_scatter(int64_t nmajor, int64_t nnz, const bl_idx *major, const bl_idx *minor,
                   const double *A, bl_idx *given, int sorted, bl_out *o)
{
    int64_t e, i;
    bl_idx *ptr, *out_minor;
    double *out_val;
    bl_clear(o);
    ptr = bl_pointers(given, nmajor + 1);
    out_minor = (bl_idx *)bl_malloc(nnz, sizeof *out_minor);
    out_val = (double *)bl_malloc(nnz, sizeof *out_val);
    if (ptr == NULL || out_minor == NULL || out_val == NULL)
        goto fail;
    for (e = 0; e < nnz; e++)
        ptr[major[e] + 1]++;
    for (i = 0; i < nmajor; i++)
        ptr[i + 1] += ptr[i];
    for (e = 0; e < nnz; e++) {
        const int64_t q = ptr[major[e]]++;
        out_minor[q] = minor[e];
        out_val[q] = A[e];
    }
    for (i = nmajor; i > 0; i--)
        ptr[i] = ptr[i - 1];
    ptr[0] = 0;
    if (sorted && bl_sort_segments(nmajor, ptr, out_minor, out_val) != 0)
        goto fail;
    o->idx[0] = ptr;
    o->idx_len[0] = nmajor + 1;
    o->idx[1] = out_minor;
    o->idx_len[1] = nnz;
    o->val = out_val;
    o->val_len = nnz;
    o->size = nnz;
    return 0;
fail:
    if (ptr != given)
        free(ptr);
    free(out_minor);
    free(out_val);
    bl_clear(o);
    return -1;
}

/* COO -> CSR / CSC: bl_coo_scatter with each segment sorted. */
int bl_coo_to_compressed(int64_t nmajor, int64_t nnz, const bl_idx *major,
                         const bl_idx *minor, const double *A, bl_idx *given, bl_out *o)
{
    return bl_coo_scatter(nmajor, nnz, major, minor, A, given, 1, o);
}

/* SCOO -> CSR: the entries are already in row-major order (the source
 * format guarantees it), so the columns and values are copied as they are
 * and only the row pointers are computed (count, prefix sum). */
int bl_sorted_coo_to_csr(int64_t NR, int64_t nnz, const bl_idx *row, const bl_idx *col,
                         const double *A, bl_idx *given, bl_out *o)
{
    int64_t e, i;
    bl_idx *ptr, *out_col;
    double *out_val;
    bl_clear(o);
    ptr = bl_pointers(given, NR + 1);
    out_col = (bl_idx *)bl_malloc(nnz, sizeof *out_col);
    out_val = (double *)bl_malloc(nnz, sizeof *out_val);
    if (ptr == NULL || out_col == NULL || out_val == NULL) {
        if (ptr != given)
            free(ptr);
        free(out_col);
        free(out_val);
        return -1;
    }
    for (e = 0; e < nnz; e++)
        ptr[row[e] + 1]++;
    for (i = 0; i < NR; i++)
        ptr[i + 1] += ptr[i];
    memcpy(out_col, col, (size_t)nnz * sizeof *col);
    memcpy(out_val, A, (size_t)nnz * sizeof *A);
    o->idx[0] = ptr;
    o->idx_len[0] = NR + 1;
    o->idx[1] = out_col;
    o->idx_len[1] = nnz;
    o->val = out_val;
    o->val_len = nnz;
    o->size = nnz;
    return 0;
}

/* ----- CSR -> CSC (and CSC -> CSR): Gustavson's transpose ---------------- */

/* Counting sort by minor index, scattering segment by segment: the output
 * segments come out sorted without a sort. idx[0] = ptr (nminor + 1),
 * idx[1] = the major indices, val. */
int bl_transpose(int64_t nmajor, int64_t nminor, const bl_idx *ptr, const bl_idx *idx,
                 const double *A, bl_idx *given, bl_out *o)
{
    const int64_t nnz = ptr[nmajor];
    int64_t i, k;
    bl_idx *tptr, *tidx;
    double *tval;
    bl_clear(o);
    tptr = bl_pointers(given, nminor + 1);
    tidx = (bl_idx *)bl_malloc(nnz, sizeof *tidx);
    tval = (double *)bl_malloc(nnz, sizeof *tval);
    if (tptr == NULL || tidx == NULL || tval == NULL) {
        if (tptr != given)
            free(tptr);
        free(tidx);
        free(tval);
        return -1;
    }
    for (k = 0; k < nnz; k++)
        tptr[idx[k] + 1]++;
    for (i = 0; i < nminor; i++)
        tptr[i + 1] += tptr[i];
    for (i = 0; i < nmajor; i++) {
        for (k = ptr[i]; k < ptr[i + 1]; k++) {
            const int64_t q = tptr[idx[k]]++;
            tidx[q] = i;
            tval[q] = A[k];
        }
    }
    for (i = nminor; i > 0; i--)
        tptr[i] = tptr[i - 1];
    tptr[0] = 0;
    o->idx[0] = tptr;
    o->idx_len[0] = nminor + 1;
    o->idx[1] = tidx;
    o->idx_len[1] = nnz;
    o->val = tval;
    o->val_len = nnz;
    o->size = nnz;
    return 0;
}

/* ----- to DIA: a lookup table of the offsets ----------------------------- */

/* The diagonal table: marks[j - i + NR - 1] = 1 for every occupied
 * diagonal; numbered in increasing offset (the position of each offset in
 * off), written into `off`. Returns ND, or -1 when out of memory. */
static int64_t bl_number_diagonals(int64_t NR, int64_t NC, bl_idx *table, bl_idx **off)
{
    const int64_t span = NR + NC - 1;
    int64_t t, nd = 0;
    for (t = 0; t < span; t++)
        if (table[t])
            table[t] = ++nd; /* 1-based while counting */
    *off = (bl_idx *)bl_malloc(nd, sizeof **off);
    if (*off == NULL)
        return -1;
    for (t = 0; t < span; t++)
        if (table[t]) {
            table[t]--;
            (*off)[table[t]] = t - (NR - 1);
        }
    return nd;
}

static int bl_dia_finish(int64_t NR, int64_t nd, bl_idx *off, double *A, bl_out *o)
{
    o->idx[0] = off;
    o->idx_len[0] = nd;
    o->val = A;
    o->val_len = NR * nd;
    o->size = nd;
    return 0;
}

/* COO -> DIA: mark the offsets in a table over -NR+1 .. NC-1, number them,
 * then scatter every entry to A[i * ND + table[j - i]]. */
int bl_coo_to_dia(int64_t NR, int64_t NC, int64_t nnz, const bl_idx *row, const bl_idx *col,
                  const double *A, bl_out *o)
{
    int64_t e, nd;
    bl_idx *table, *off = NULL;
    double *out;
    bl_clear(o);
    table = (bl_idx *)bl_calloc(NR + NC - 1, sizeof *table);
    if (table == NULL)
        return -1;
    for (e = 0; e < nnz; e++)
        table[col[e] - row[e] + NR - 1] = 1;
    nd = bl_number_diagonals(NR, NC, table, &off);
    if (nd < 0) {
        free(table);
        return -1;
    }
    out = (double *)bl_calloc(NR * nd, sizeof *out);
    if (out == NULL) {
        free(table);
        free(off);
        return -1;
    }
    for (e = 0; e < nnz; e++)
        out[row[e] * nd + table[col[e] - row[e] + NR - 1]] = A[e];
    free(table);
    return bl_dia_finish(NR, nd, off, out, o);
}

/* A compressed format (CSR when `by_rows`, else CSC) -> DIA, the same way. */
int bl_compressed_to_dia(int by_rows, int64_t NR, int64_t NC, const bl_idx *ptr,
                         const bl_idx *idx, const double *A, bl_out *o)
{
    const int64_t nmajor = by_rows ? NR : NC;
    int64_t a, k, nd;
    bl_idx *table, *off = NULL;
    double *out;
    bl_clear(o);
    table = (bl_idx *)bl_calloc(NR + NC - 1, sizeof *table);
    if (table == NULL)
        return -1;
    for (a = 0; a < nmajor; a++)
        for (k = ptr[a]; k < ptr[a + 1]; k++) {
            const int64_t i = by_rows ? a : idx[k], j = by_rows ? idx[k] : a;
            table[j - i + NR - 1] = 1;
        }
    nd = bl_number_diagonals(NR, NC, table, &off);
    if (nd < 0) {
        free(table);
        return -1;
    }
    out = (double *)bl_calloc(NR * nd, sizeof *out);
    if (out == NULL) {
        free(table);
        free(off);
        return -1;
    }
    for (a = 0; a < nmajor; a++)
        for (k = ptr[a]; k < ptr[a + 1]; k++) {
            const int64_t i = by_rows ? a : idx[k], j = by_rows ? idx[k] : a;
            out[i * nd + table[j - i + NR - 1]] = A[k];
        }
    free(table);
    return bl_dia_finish(NR, nd, off, out, o);
}

/* ----- to ELL ------------------------------------------------------------ */

static int bl_ell_alloc(int64_t NR, int64_t w, bl_out *o)
{
    o->idx[0] = (bl_idx *)bl_calloc(NR * w, sizeof *o->idx[0]);
    o->val = (double *)bl_calloc(NR * w, sizeof *o->val);
    if (o->idx[0] == NULL || o->val == NULL) {
        bl_free(o);
        return -1;
    }
    o->idx_len[0] = NR * w;
    o->val_len = NR * w;
    o->size = w;
    return 0;
}

/* CSR -> ELL: W is the longest row; rows are copied into zeroed slots. */
int bl_csr_to_ell(int64_t NR, const bl_idx *rowptr, const bl_idx *col, const double *A,
                  bl_out *o)
{
    int64_t i, k, w = 0;
    bl_clear(o);
    for (i = 0; i < NR; i++)
        if (rowptr[i + 1] - rowptr[i] > w)
            w = rowptr[i + 1] - rowptr[i];
    if (bl_ell_alloc(NR, w, o) != 0)
        return -1;
    for (i = 0; i < NR; i++) {
        bl_idx *c = o->idx[0] + i * w;
        double *v = o->val + i * w;
        for (k = rowptr[i]; k < rowptr[i + 1]; k++) {
            c[k - rowptr[i]] = col[k];
            v[k - rowptr[i]] = A[k];
        }
    }
    return 0;
}

/* CSC -> ELL: count the row lengths (W, the longest), then walk the columns
 * in order, appending each entry to its row (columns come out increasing). */
int bl_csc_to_ell(int64_t NR, int64_t NC, const bl_idx *colptr, const bl_idx *row,
                  const double *A, bl_out *o)
{
    const int64_t nnz = colptr[NC];
    int64_t j, k, w = 0, *fill;
    bl_clear(o);
    fill = (int64_t *)bl_calloc(NR, sizeof *fill);
    if (fill == NULL)
        return -1;
    for (k = 0; k < nnz; k++)
        fill[row[k]]++;
    for (k = 0; k < NR; k++) {
        if (fill[k] > w)
            w = fill[k];
        fill[k] = 0;
    }
    if (bl_ell_alloc(NR, w, o) != 0) {
        free(fill);
        return -1;
    }
    for (j = 0; j < NC; j++)
        for (k = colptr[j]; k < colptr[j + 1]; k++) {
            const int64_t i = row[k], s = i * w + fill[i]++;
            o->idx[0][s] = j;
            o->val[s] = A[k];
        }
    free(fill);
    return 0;
}

/* ----- COO3D -> MCOO3: LSD radix sort of compacted Morton codes ----------- */

enum { BL_DIGIT = 11, BL_BUCKETS = 1 << BL_DIGIT };

typedef struct {
    uint64_t key;
    int64_t entry;
} bl_pair;

static int bl_bits(int64_t extent)
{
    int b = 0;
    while (b < 63 && ((int64_t)1 << b) < extent)
        b++;
    return b;
}

/* The Morton code of (i, j, k): bit b of mode d at level b, modes in
 * increasing significance within a level (bit 0 of i lowest), bits that no
 * coordinate below the extents can set left out, so the code of tensors up
 * to 64 significant bits fits a uint64_t and compares as the full
 * interleaving does. spread[d][byte][v]: where the bits of byte `byte` of a
 * coordinate of mode d go. Sorted by LSD radix sort (11-bit digits, one
 * histogram pass for all digits, constant digits skipped); entries with
 * equal codes keep their input order. Returns -1 when the code needs more
 * than 64 bits or memory runs out. */
int bl_coo3_to_mcoo3(int64_t NR, int64_t NC, int64_t NZ, int64_t nnz, const bl_idx *row,
                     const bl_idx *col, const bl_idx *z, const double *A, bl_out *o)
{
    const int64_t extent[3] = {NR, NC, NZ};
    const bl_idx *coord[3] = {row, col, z};
    int width[3], total = 0, level, d, nbytes[3], digits, pass;
    uint64_t(*spread)[8][256];
    int64_t e, (*hist)[BL_BUCKETS] = NULL;
    bl_pair *a = NULL, *b = NULL;
    bl_clear(o);
    for (d = 0; d < 3; d++) {
        width[d] = bl_bits(extent[d]);
        total += width[d];
        nbytes[d] = (width[d] + 7) / 8;
    }
    if (total > 64)
        return -1;
    spread = (uint64_t(*)[8][256])calloc(3, sizeof *spread);
    if (spread == NULL)
        return -1;
    {
        int pos = 0;
        for (level = 0; level < 63; level++)
            for (d = 0; d < 3; d++)
                if (level < width[d]) {
                    int v;
                    for (v = 0; v < 256; v++)
                        if (v >> (level % 8) & 1)
                            spread[d][level / 8][v] |= (uint64_t)1 << pos;
                    pos++;
                }
    }
    digits = (total + BL_DIGIT - 1) / BL_DIGIT;
    a = (bl_pair *)bl_malloc(nnz, sizeof *a);
    b = (bl_pair *)bl_malloc(nnz, sizeof *b);
    hist = (int64_t(*)[BL_BUCKETS])bl_calloc(digits > 0 ? digits : 1, sizeof *hist);
    if (a == NULL || b == NULL || hist == NULL)
        goto fail;
    for (e = 0; e < nnz; e++) {
        uint64_t key = 0;
        int byte;
        for (d = 0; d < 3; d++)
            for (byte = 0; byte < nbytes[d]; byte++)
                key |= spread[d][byte][(coord[d][e] >> (8 * byte)) & 0xFF];
        a[e].key = key;
        a[e].entry = e;
        for (pass = 0; pass < digits; pass++)
            hist[pass][(key >> (BL_DIGIT * pass)) & (BL_BUCKETS - 1)]++;
    }
    free(spread);
    spread = NULL;
    for (pass = 0; pass < digits; pass++) {
        int64_t *h = hist[pass], sum = 0, v;
        const int shift = BL_DIGIT * pass;
        if (nnz > 0 && h[(a[0].key >> shift) & (BL_BUCKETS - 1)] == nnz)
            continue; /* every key has this digit */
        for (v = 0; v < BL_BUCKETS; v++) {
            const int64_t c = h[v];
            h[v] = sum;
            sum += c;
        }
        for (e = 0; e < nnz; e++)
            b[h[(a[e].key >> shift) & (BL_BUCKETS - 1)]++] = a[e];
        {
            bl_pair *t = a;
            a = b;
            b = t;
        }
    }
    free(b);
    b = NULL;
    free(hist);
    hist = NULL;
    for (d = 0; d < 3; d++) {
        o->idx[d] = (bl_idx *)bl_malloc(nnz, sizeof *o->idx[d]);
        o->idx_len[d] = nnz;
    }
    o->val = (double *)bl_malloc(nnz, sizeof *o->val);
    o->val_len = nnz;
    if (o->idx[0] == NULL || o->idx[1] == NULL || o->idx[2] == NULL || o->val == NULL)
        goto fail;
    for (e = 0; e < nnz; e++) {
        const int64_t s = a[e].entry;
        o->idx[0][e] = row[s];
        o->idx[1][e] = col[s];
        o->idx[2][e] = z[s];
        o->val[e] = A[s];
    }
    o->size = nnz;
    free(a);
    return 0;
fail:
    free(spread);
    free(a);
    free(b);
    free(hist);
    bl_free(o);
    return -1;
}

/* ----- the limit: moving the bytes a conversion must move ---------------- */

/* Reads in_bytes of `src` and writes out_bytes into a freshly allocated
 * buffer, the least traffic any conversion from an input of in_bytes to an
 * output of out_bytes can have: memcpy of the common part, memset of the
 * rest of the output, or a read of the rest of the input (its words summed
 * into *sink so the compiler keeps the read). Returns the buffer (to be
 * freed), NULL when out of memory. */
void *bl_traffic(const unsigned char *src, int64_t in_bytes, int64_t out_bytes, uint64_t *sink)
{
    const int64_t common = in_bytes < out_bytes ? in_bytes : out_bytes;
    unsigned char *dst = (unsigned char *)bl_malloc(out_bytes, 1);
    if (dst == NULL)
        return NULL;
    memcpy(dst, src, (size_t)common);
    if (out_bytes > common)
        memset(dst + common, 0, (size_t)(out_bytes - common));
    if (in_bytes > common) {
        const uint64_t *w = (const uint64_t *)(src + common);
        const int64_t n = (in_bytes - common) / 8;
        uint64_t s = 0;
        int64_t k;
        for (k = 0; k < n; k++)
            s += w[k];
        *sink += s;
    }
    return dst;
}
