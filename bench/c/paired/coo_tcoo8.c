/* COO -> TCOO8 (COO in 8 x 8 tiles, tiles row-major, entries row-major
 * inside a tile): CSR first (bl_coo_to_compressed: rows counted, each row
 * sorted by column), then each band of 8 rows merged by tile column: the
 * band's rows are read in order, one tile column at a time, from eight
 * cursors. O(nnz + NR + 8 x tiles) after the CSR. */
#include "paired.h"

void baseline(int64_t NR, int64_t NC, int64_t NNZ, const bl_idx *row, const bl_idx *col,
              const double *A, int64_t *NNZ_out, bl_idx **row_out, bl_idx **col_out,
              double **A_out)
{
    bl_out o;
    int64_t band, q = 0;
    bl_idx *ptr, *cidx, *orow, *ocol;
    double *val, *oval;
    (void)NC;
    if (bl_coo_to_compressed(NR, NNZ, row, col, A, NULL, &o) != 0)
        bl_fail("COO -> TCOO8");
    ptr = o.idx[0];
    cidx = o.idx[1];
    val = o.val;
    orow = (bl_idx *)bl_malloc(NNZ, sizeof *orow);
    ocol = (bl_idx *)bl_malloc(NNZ, sizeof *ocol);
    oval = (double *)bl_malloc(NNZ, sizeof *oval);
    if (orow == NULL || ocol == NULL || oval == NULL)
        bl_fail("COO -> TCOO8");
    for (band = 0; band < NR; band += 8) {
        const int64_t rows = NR - band < 8 ? NR - band : 8;
        int64_t at[8], end[8], r;
        for (r = 0; r < rows; r++) {
            at[r] = ptr[band + r];
            end[r] = ptr[band + r + 1];
        }
        for (;;) {
            int64_t tile = INT64_MAX;
            for (r = 0; r < rows; r++)
                if (at[r] < end[r] && cidx[at[r]] / 8 < tile)
                    tile = cidx[at[r]] / 8;
            if (tile == INT64_MAX)
                break;
            for (r = 0; r < rows; r++)
                while (at[r] < end[r] && cidx[at[r]] / 8 == tile) {
                    orow[q] = band + r;
                    ocol[q] = cidx[at[r]];
                    oval[q++] = val[at[r]++];
                }
        }
    }
    bl_free(&o);
    *NNZ_out = NNZ;
    *row_out = orow;
    *col_out = ocol;
    *A_out = oval;
}
