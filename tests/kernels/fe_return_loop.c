// `return;` inside loops (jit/parse.c, return_statement): a solver that returns once its
// residual is small, so the scaling after its time loop runs only when it did not converge; a
// return from a space loop two loops deep (its break flag ends the time loop too, and the
// statements after both); a while loop's return. Each return taken at once (tol=1e9, lim=-10),
// never (tol=-1, lim=1e9), and after some steps.
// fill: A=-1..1 B=-1..1 C=-1..1 D=0..1
// run: T=0 N=5 tol=0.3 lim=0.5
// run: T=1 N=6 tol=0.3 lim=2
// run: T=40 N=7 tol=1e9 lim=0.9
// run: T=40 N=33 tol=-1 lim=-10
// run: T=40 N=33 tol=-1 lim=1e9
// run: T=40 N=33 tol=-1 lim=1.3
// run: T=60 N=300 tol=0.0001 lim=5
void fe_return_loop(int T, int N, double tol, double lim, double A[N], double B[N], double C[N],
                    double D[N], int steps[1]) {
  if (N < 3) return;
  int t;
  for (t = 0; t < T; t++) {
    double err = 0;
    for (int i = 1; i < N - 1; i++) {
      B[i] = 0.5 * (A[i - 1] + A[i + 1]);
      double d = B[i] - A[i];
      err = err > d ? err : d;
    }
    for (int i = 1; i < N - 1; i++) A[i] = B[i];
    if (err < tol) return;
  }
  steps[0] = t;
  for (int i = 0; i < N; i++) A[i] *= 2;
  for (int s = 0; s < T; s++)
    for (int i = 1; i < N; i++) {
      C[i] = C[i] * 0.5 + C[i - 1] * 0.75;
      if (C[i] > lim) return;
    }
  int k = 0;
  while (k < N) {
    D[k] = D[k] * 1.5;
    if (D[k] > lim) return;
    k++;
  }
  A[0] = -1;
}
