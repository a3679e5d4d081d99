/* COO3D -> CSF3 (mode order i, j, k): an LSD counting sort of the entries
 * by (i, j, k) (three stable passes: by k, by j, by i, each a count, prefix
 * sums and a scatter of entry numbers), then one pass over the sorted
 * entries that opens a stored row when i changes and a fiber when (i, j)
 * does. */
#include "paired.h"

/* Entry numbers `in` stably sorted by key[in[.]] (in 0..extent) into `out`. */
static int bl_counting_pass(int64_t n, const bl_idx *key, int64_t extent, const bl_idx *in,
                            bl_idx *out)
{
    int64_t e, v, *count = (int64_t *)bl_calloc(extent + 1, sizeof *count);
    if (count == NULL)
        return -1;
    for (e = 0; e < n; e++)
        count[key[in[e]] + 1]++;
    for (v = 0; v < extent; v++)
        count[v + 1] += count[v];
    for (e = 0; e < n; e++)
        out[count[key[in[e]]]++] = in[e];
    free(count);
    return 0;
}

void baseline(int64_t NR, int64_t NC, int64_t NZ, int64_t NNZ, const bl_idx *row,
              const bl_idx *col, const bl_idx *z, const double *A, int64_t *N0,
              int64_t *NNZ_out, int64_t *N1, bl_idx **idx0, bl_idx **ptr1, bl_idx **idx1,
              bl_idx **ptr2, bl_idx **idx2, double **A_out)
{
    int64_t e, n0 = 0, n1 = 0;
    bl_idx *a, *b, *i0, *p1, *i1, *p2, *i2;
    double *val;
    a = (bl_idx *)bl_malloc(NNZ, sizeof *a);
    b = (bl_idx *)bl_malloc(NNZ, sizeof *b);
    i0 = (bl_idx *)bl_malloc(NNZ < NR ? NNZ : NR, sizeof *i0);
    p1 = (bl_idx *)bl_malloc((NNZ < NR ? NNZ : NR) + 1, sizeof *p1);
    i1 = (bl_idx *)bl_malloc(NNZ, sizeof *i1);
    p2 = (bl_idx *)bl_malloc(NNZ + 1, sizeof *p2);
    i2 = (bl_idx *)bl_malloc(NNZ, sizeof *i2);
    val = (double *)bl_malloc(NNZ, sizeof *val);
    if (a == NULL || b == NULL || i0 == NULL || p1 == NULL || i1 == NULL || p2 == NULL ||
        i2 == NULL || val == NULL)
        bl_fail("COO3D -> CSF3");
    for (e = 0; e < NNZ; e++)
        a[e] = e;
    if (bl_counting_pass(NNZ, z, NZ, a, b) != 0 || bl_counting_pass(NNZ, col, NC, b, a) != 0 ||
        bl_counting_pass(NNZ, row, NR, a, b) != 0)
        bl_fail("COO3D -> CSF3");
    for (e = 0; e < NNZ; e++) {
        const int64_t s = b[e];
        const int new_row = e == 0 || row[s] != row[b[e - 1]];
        if (new_row) {
            i0[n0] = row[s];
            p1[n0++] = n1;
        }
        if (new_row || col[s] != col[b[e - 1]]) {
            i1[n1] = col[s];
            p2[n1++] = e;
        }
        i2[e] = z[s];
        val[e] = A[s];
    }
    p1[n0] = n1;
    p2[n1] = NNZ;
    free(a);
    free(b);
    *N0 = n0;
    *NNZ_out = NNZ;
    *N1 = n1;
    *idx0 = i0;
    *ptr1 = p1;
    *idx1 = i1;
    *ptr2 = p2;
    *idx2 = i2;
    *A_out = val;
}
