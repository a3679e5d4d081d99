# Dense matrix-vector multiply, y = A x (dissertation Listing 3.1, Figure 3.2)
#
#   for (i = 0; i < N; i++)
#     for (j = 0; j < M; j++)
#       y[i] += A[i][j] * x[j];
computation dense_mv(N, M) {
    in    real A[N, M];
    in    real x[M];
    out   real y[N];

    S0: y(i) += A(i, j) * x(j)
        domain   {[i, j] : 0 <= i < N && 0 <= j < M}
        schedule {[i, j] -> [0, i, 0, j, 0]};
}
