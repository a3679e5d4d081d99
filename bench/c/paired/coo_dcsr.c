/* COO -> DCSR: CSR first (Gustavson's counting sort by rows, each row
 * sorted by column: bl_coo_to_compressed), then the nonempty rows listed
 * and their pointers kept, in one pass over the rows. */
#include "paired.h"

void baseline(int64_t NR, int64_t NC, int64_t NNZ, const bl_idx *row, const bl_idx *col,
              const double *A, int64_t *NP, int64_t *NNZ_out, bl_idx **rowidx, bl_idx **rp,
              bl_idx **col_out, double **A_out)
{
    bl_out o;
    int64_t i, n = 0;
    bl_idx *ptr, *idx, *p;
    (void)NC;
    if (bl_coo_to_compressed(NR, NNZ, row, col, A, NULL, &o) != 0)
        bl_fail("COO -> DCSR");
    ptr = o.idx[0];
    for (i = 0; i < NR; i++)
        n += ptr[i + 1] > ptr[i];
    idx = (bl_idx *)bl_malloc(n, sizeof *idx);
    p = (bl_idx *)bl_malloc(n + 1, sizeof *p);
    if (idx == NULL || p == NULL)
        bl_fail("COO -> DCSR");
    n = 0;
    for (i = 0; i < NR; i++)
        if (ptr[i + 1] > ptr[i]) {
            idx[n] = i;
            p[n++] = ptr[i];
        }
    p[n] = NNZ;
    free(ptr);
    *NP = n;
    *NNZ_out = NNZ;
    *rowidx = idx;
    *rp = p;
    *col_out = o.idx[1];
    *A_out = o.val;
}
