/* COO3D -> MCOO3: LSD radix sort of compacted Morton codes
 * (bl_coo3_to_mcoo3). */
#include "paired.h"

void baseline(int64_t NR, int64_t NC, int64_t NZ, int64_t NNZ, const bl_idx *row,
              const bl_idx *col, const bl_idx *z, const double *A, int64_t *NNZ_out,
              bl_idx **row_out, bl_idx **col_out, bl_idx **z_out, double **A_out)
{
    bl_out o;
    if (bl_coo3_to_mcoo3(NR, NC, NZ, NNZ, row, col, z, A, &o) != 0)
        bl_fail("COO3D -> MCOO3");
    *NNZ_out = o.size;
    *row_out = o.idx[0];
    *col_out = o.idx[1];
    *z_out = o.idx[2];
    *A_out = o.val;
}
