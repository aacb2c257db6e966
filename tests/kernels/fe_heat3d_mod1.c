// heat-3d with one read mutated from A[t % 2] to A[t % 1] (found by the emulator pipeline
// fuzzer): the time loop no longer alternates between the buffers, so the kernel is not in
// stencil form and goes through isl's scheduler, whose exact dependences here cost seconds
// (10 s of a compile under ASan). They, the scheduler's runs and the mapping of its trees
// stop at the scheduler's time and operation budgets, and the C order is kept.
// run: T=1 N=3 M=4 K=3
// run: T=5 N=6 M=5 K=6
void fe_heat3d_mod1(int T, int N, int M, int K, float A[2][N][M][K]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        for (int k = 1; k < K - 1; k++)
          A[(t + 1) % 2][i][j][k] =
              0.25f * A[t % 2][i][j][k] +
              0.0625f * (A[t % 2][i - 1][j][k] + A[t % 2][i + 1][j][k] + A[t % 2][i][j - 1][k] +
                         A[t % 2][i][j + 1][k] + A[t % 2][i][j][k - 1] + A[t % 2][i][j][k + 1]) +
              0.03125f * (A[t % 2][i - 1][j - 1][k] + A[t % 2][i - 1][j + 1][k] +
                          A[t % 2][i + 1][j - 1][k] + A[t % 2][i + 1][j + 1][k] +
                          A[t % 2][i - 1][j][k - 1] + A[t % 2][i - 1][j][k + 1] +
                          A[t % 2][i + 1][j][k - 1] + A[t % 2][i + 1][j][k + 1] +
                          A[t % 2][i][j - 1][k - 1] + A[t % 2][i][j - 1][k + 1] +
                          A[t % 2][i][j + 1][k - 1] + A[t % 2][i][j + 1][k + 1]) +
              0.015625f * (A[t % 2][i - 1][j - 1][k - 1] + A[t % 2][i - 1][j - 1][k + 1] +
                           A[t % 2][i - 1][j + 1][k - 1] + A[t % 2][i - 1][j + 1][k + 1] +
                           A[t % 2][i + 1][j - 1][k - 1] + A[t % 2][i + 1][j - 1][k + 1] +
                           A[t % 1][i + 1][j + 1][k - 1] + A[t % 2][i + 1][j + 1][k + 1]);
}
