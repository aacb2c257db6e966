// Functions that return a value, called for what else they do with the value dropped: a norm
// that also stores itself, a clamp that stores through a pointer and returns what it stored
// (a function without loops that writes memory takes the statement path, jit/parse.c
// needs_statements), and a search called as a statement. The value goes to a local that
// nothing reads.
// run: N=1
// run: N=2
// run: N=37
// run: N=300
static double norm_into(int n, const double *x, double *out) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  out[0] = s;
  return s;
}

static inline double clamp_store(double *p, double v) {
  *p = v < 0 ? 0 : v;
  return *p;
}

static int mark_first(int n, const double *x, double *flag) {
  for (int i = 0; i < n; i++)
    if (x[i] > 0.5) {
      flag[i] = 1;
      return i;
    }
  return -1;
}

void fe_value_dropped(int N, double A[N], double B[N], double R[2]) {
  for (int i = 0; i < N; i++) clamp_store(&B[i], A[i] - 0.25);
  norm_into(N, B, R);
  mark_first(N, A, B);
  norm_into(N, A, &R[1]);
}
