// Front end: % and / by constants in loop bounds and in steps (i += c).
// run: N=1 M=1
// run: N=3 M=3
// run: N=5 M=7
// run: N=33 M=100
// run: N=129 M=129
// run: N=256 M=256
void fe_divmod_bounds(int N, int M, const float A[N][M], float B[N][M]) {
  for (int i = 0; i < N / 2; i++)
    for (int j = 0; j < M - M % 4; j += 4) B[i][j] = A[2 * i][j] + A[2 * i + 1][j];
  for (int i = N / 2; i < N; i++)
    for (int j = i % 3; j < (M + 1) / 2; j++) B[i][j] = A[i][2 * j] * 0.5f;
  for (int i = 0; i < N; i += 3)
    for (int j = (M - 1) / 3 * 2; j < M; j += 2) B[i][j] = B[i][j] + A[i][j / 2];
}
