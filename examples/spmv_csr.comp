# Sparse matrix-vector multiply over CSR, y = A x (dissertation Listing 3.2, Figure 3.2)
#
#   for (i = 0; i < N; i++)
#     for (k = rowptr[i]; k < rowptr[i+1]; k++) {
#       j = col[k];
#       y[i] += A[k] * x[j];
#     }
computation spmv_csr(N, NC, NNZ) {
    in    int  rowptr[N + 1];
    in    int  col[NNZ];
    in    real A[NNZ];
    in    real x[NC];
    out   real y[N];

    S0: y(i) += A(k) * x(j)
        domain   {[i, k, j] : 0 <= i < N && rowptr(i) <= k < rowptr(i + 1) && j = col(k)}
        schedule {[i, k, j] -> [0, i, 0, k, 0, j, 0]};
}
