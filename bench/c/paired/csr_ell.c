/* CSR -> ELL: rows copied into zeroed slots (bl_csr_to_ell). */
#include "paired.h"

void baseline(int64_t NR, int64_t NC, int64_t NNZ, const bl_idx *rowptr, const bl_idx *col,
              const double *A, int64_t *W, bl_idx **col_out, double **A_out)
{
    bl_out o;
    (void)NC;
    (void)NNZ;
    if (bl_csr_to_ell(NR, rowptr, col, A, &o) != 0)
        bl_fail("CSR -> ELL");
    *W = o.size;
    *col_out = o.idx[0];
    *A_out = o.val;
}
