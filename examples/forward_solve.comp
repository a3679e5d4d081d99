# Forward solve of a dense lower triangular system A u = f (dissertation Figure 3.4)
#
#   for (i = 0; i < N; i++) {
#     S0: tmp(i) = f(i);
#     for (j = 0; j < i; j++)
#       S1: tmp(i) -= A(i, j) * u(j);
#     S2: u(i) = tmp(i) / A(i, i);
#   }
#
# S0 and S2 sit in the i loop, S1 in the j loop inside it (an imperfect
# nest); S1 reads u(j) written by S2 at an earlier i (a loop-carried
# dependence).
computation forward_solve(N) {
    in   real A[N, N];
    in   real f[N];
    out  real u[N];
    temp real tmp[N];

    S0: tmp(i) = f(i)
        domain   {[i] : 0 <= i < N}
        schedule {[i] -> [0, i, 0]};

    S1: tmp(i) -= A(i, j) * u(j)
        domain   {[i, j] : 0 <= i < N && 0 <= j < i}
        schedule {[i, j] -> [0, i, 1, j, 0]};

    S2: u(i) = tmp(i) / A(i, i)
        domain   {[i] : 0 <= i < N}
        schedule {[i] -> [0, i, 2]};
}
