// In place (Gauss-Seidel order) through a local: each element's new value, held in s, is read
// back by the next two updates. The CPU code unrolls the loop by four: the stores' values must
// be the ones s held then, not the one it holds later.
// run: T=0 N=5
// run: T=1 N=9
// run: T=2 N=16
// run: T=7 N=101
void seidel1d_local(int T, int N, float A[N]) {
  for (int t = 0; t < T; t++)
    for (int i = 2; i < N - 2; i++) {
      float s = 0.0625f * A[i - 2] + 0.5f * A[i - 1] + 0.25f * A[i] + 0.125f * A[i + 1];
      A[i] = s;
    }
}
