/* COO -> UCSR (CSR with columns in any order within a row): Gustavson's
 * counting sort by rows into the program's rowptr, entries in input order
 * within a row, and no column sort. */
#include "paired.h"

void baseline(int64_t NR, int64_t NC, int64_t NNZ, const int64_t *row, const int64_t *col,
              const double *A, int64_t *NNZ_out, int64_t *rowptr, int64_t **col_out,
              double **A_out)
{
    int64_t e, i, *out_col;
    double *out_val;
    (void)NC;
    out_col = (int64_t *)bl_malloc(NNZ, sizeof *out_col);
    out_val = (double *)bl_malloc(NNZ, sizeof *out_val);
    if (out_col == NULL || out_val == NULL)
        bl_fail("COO -> UCSR");
    memset(rowptr, 0, (size_t)(NR + 1) * sizeof *rowptr);
    for (e = 0; e < NNZ; e++)
        rowptr[row[e] + 1]++;
    for (i = 0; i < NR; i++)
        rowptr[i + 1] += rowptr[i];
    for (e = 0; e < NNZ; e++) {
        const int64_t q = rowptr[row[e]]++;
        out_col[q] = col[e];
        out_val[q] = A[e];
    }
    for (i = NR; i > 0; i--)
        rowptr[i] = rowptr[i - 1];
    rowptr[0] = 0;
    *NNZ_out = NNZ;
    *col_out = out_col;
    *A_out = out_val;
}
