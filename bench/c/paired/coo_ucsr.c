/* COO -> UCSR (CSR with columns in any order within a row): Gustavson's
 * counting sort by rows into the program's rowptr, entries in input order
 * within a row, and no column sort (bl_coo_scatter). */
#include "paired.h"

void baseline(int64_t NR, int64_t NC, int64_t NNZ, const bl_idx *row, const bl_idx *col,
              const double *A, int64_t *NNZ_out, bl_idx *rowptr, bl_idx **col_out,
              double **A_out)
{
    bl_out o;
    (void)NC;
    if (bl_coo_scatter(NR, NNZ, row, col, A, rowptr, 0, &o) != 0)
        bl_fail("COO -> UCSR");
    *NNZ_out = o.size;
    *col_out = o.idx[1];
    *A_out = o.val;
}
