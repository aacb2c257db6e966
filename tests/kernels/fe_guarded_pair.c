// Front end: two statements under guards of their own in one loop, at sizes where a guard
// holds for no point, for one, or for all: each kernel of the GPU mapping has its own name.
// run: N=1
// run: N=2
// run: N=3
// run: N=4
// run: N=9
void fe_guarded_pair(int N, float A[N], float B[N]) {
  for (int i = 0; i < N; i++) {
    if (i >= 2) A[i] = A[i] + B[i - 2];
    if (i < N - 3) B[i] = 0.5f * A[i + 3];
  }
}
