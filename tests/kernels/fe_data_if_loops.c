// Ifs on data around loop nests: a step that runs only while a probe value stays positive,
// a branch per sign of a scalar argument, each with loops of its own. The loops always run,
// their assignments choosing between the new value and the one they have.
// fill: A=-1..1 B=-1..1
// run: T=0 N=3 s=0.5
// run: T=1 N=4 s=-0.5
// run: T=3 N=17 s=0.25
// run: T=8 N=40 s=-2
void fe_data_if_loops(int T, int N, float s, float A[N], float B[N]) {
  for (int t = 0; t < T; t++) {
    if (A[N / 2] + 0.1f * t > -0.5f) {
      for (int i = 1; i < N - 1; i++) B[i] = 0.5f * (A[i - 1] + A[i + 1]);
      for (int i = 1; i < N - 1; i++) A[i] = B[i] * 0.99f;
    }
  }
  if (s > 0) {
    for (int i = 0; i < N; i++) B[i] = A[i] * s;
  } else {
    for (int i = 0; i < N; i++)
      if (A[i] < s) A[i] = s;
  }
}
