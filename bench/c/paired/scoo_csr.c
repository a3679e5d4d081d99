/* SCOO -> CSR: row pointers counted into the program's rowptr, columns and
 * values copied (bl_sorted_coo_to_csr). */
#include "paired.h"

void baseline(int64_t NR, int64_t NC, int64_t NNZ, const bl_idx *row, const bl_idx *col,
              const double *A, int64_t *NNZ_out, bl_idx *rowptr, bl_idx **col_out,
              double **A_out)
{
    bl_out o;
    (void)NC;
    if (bl_sorted_coo_to_csr(NR, NNZ, row, col, A, rowptr, &o) != 0)
        bl_fail("SCOO -> CSR");
    *NNZ_out = o.size;
    *col_out = o.idx[1];
    *A_out = o.val;
}
