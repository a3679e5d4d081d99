/* CSR -> CSC: Gustavson's transpose into the program's colptr
 * (bl_transpose). */
#include "paired.h"

void baseline(int64_t NR, int64_t NC, int64_t NNZ, const bl_idx *rowptr, const bl_idx *col,
              const double *A, int64_t *NNZ_out, bl_idx *colptr, bl_idx **row,
              double **A_out)
{
    bl_out o;
    (void)NNZ;
    if (bl_transpose(NR, NC, rowptr, col, A, colptr, &o) != 0)
        bl_fail("CSR -> CSC");
    *NNZ_out = o.size;
    *row = o.idx[1];
    *A_out = o.val;
}
