/* COO -> CSC: counting sort by columns into the program's colptr, then each
 * column sorted by row (bl_coo_to_compressed). */
#include "paired.h"

void baseline(int64_t NR, int64_t NC, int64_t NNZ, const bl_idx *row, const bl_idx *col,
              const double *A, int64_t *NNZ_out, bl_idx *colptr, bl_idx **row_out,
              double **A_out)
{
    bl_out o;
    (void)NR;
    if (bl_coo_to_compressed(NC, NNZ, col, row, A, colptr, &o) != 0)
        bl_fail("COO -> CSC");
    *NNZ_out = o.size;
    *row_out = o.idx[1];
    *A_out = o.val;
}
