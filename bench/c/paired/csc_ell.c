/* CSC -> ELL: row lengths counted, then columns walked in order, each entry
 * appended to its row (bl_csc_to_ell). */
#include "paired.h"

void baseline(int64_t NR, int64_t NC, int64_t NNZ, const bl_idx *colptr, const bl_idx *row,
              const double *A, int64_t *W, bl_idx **col, double **A_out)
{
    bl_out o;
    (void)NNZ;
    if (bl_csc_to_ell(NR, NC, colptr, row, A, &o) != 0)
        bl_fail("CSC -> ELL");
    *W = o.size;
    *col = o.idx[0];
    *A_out = o.val;
}
