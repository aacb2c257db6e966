// Locals read by several assignments right after them (jit/scalar.c writes a local's value in
// each where none of the assignments before writes an element the value reads): `l` reads
// B[i + 1] and the first assignment writes B[i], so its value is written in both; `m` reads
// B[i], which the first assignment after it writes, so it stays a local (evaluated again, its
// value would be the new B[i]).
// run: T=0 N=2
// run: T=1 N=3
// run: T=3 N=17
// run: T=8 N=1000
void local_reread(int T, int N, float A[N], float B[N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < N - 1; i++) {
      float l = 0.5f * B[i + 1];
      B[i] = l + A[i];
      A[i] = l * A[i];
    }
    for (int i = 0; i < N; i++) {
      float m = B[i] * 0.25f;
      B[i] = m + 1.0f;
      A[i] = A[i] - m;
    }
  }
}
