/* COO3D -> MCOO3: LSD radix sort of compacted Morton codes
 * (bl_coo3_to_mcoo3). */
#include "paired.h"

void baseline(int64_t NR, int64_t NC, int64_t NZ, int64_t NNZ, const int64_t *row,
              const int64_t *col, const int64_t *z, const double *A, int64_t *NNZ_out,
              int64_t **row_out, int64_t **col_out, int64_t **z_out, double **A_out)
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
