/* COO -> DIA: a lookup table of the occupied diagonals (bl_coo_to_dia). */
#include "paired.h"

void baseline(int64_t NR, int64_t NC, int64_t NNZ, const bl_idx *row, const bl_idx *col,
              const double *A, int64_t *ND, bl_idx **off, double **A_out)
{
    bl_out o;
    if (bl_coo_to_dia(NR, NC, NNZ, row, col, A, &o) != 0)
        bl_fail("COO -> DIA");
    *ND = o.size;
    *off = o.idx[0];
    *A_out = o.val;
}
