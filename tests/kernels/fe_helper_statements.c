// Helpers written as C code is: locals assigned again (=, op=, ++), parameters assigned, a
// local without an initializer set in both branches, if / else if / else around assignments
// and returns at any depth, an integer division only where its guard lets C evaluate it, and a
// helper with statements calling another (jit/parse.c, helper_statement: each assignment
// replaces the variable's value; the returns nest as ?: in the order of the text).
// fill: A=-2..2 C=-40..40
// run: N=1
// run: N=7
// run: N=300
static float limiter(float a, float b) {
  float r;
  if (a * b <= 0) r = 0;
  else if (a > 0) {
    r = a < b ? a : b;
    r *= 0.5f;
  } else {
    r = a > b ? a : b;
    r = -r;
  }
  return r;
}
static int steps(int x, int d) {
  int n = 0;
  if (d == 0) return -1;
  x /= d;
  if (x < 0) {
    x = -x;
    n++;
    if (x > 10) {
      if (x > 30) return 99;
      n += 2;
    }
  }
  n += x % 7;
  ++n;
  return n;
}
static double smooth(double u, double v) {
  double w = u - v;
  {
    double h = 0.5 * w;
    w -= h * h;
  }
  if (w > 1) w = 1;
  else if (w < -1) return limiter((float)u, (float)v) - 2.0;
  return w + limiter((float)(w * u), (float)v);
}
void fe_helper_statements(int N, const float A[N], float B[N], int C[N], double D[N]) {
  for (int i = 1; i < N; i++) {
    B[i] = limiter(A[i] - A[i - 1], A[i - 1] - A[(i + 1) % N]);
    C[i] = steps(C[i] * 5, C[i - 1] % 4);
    D[i] = smooth(A[i], A[i - 1]);
  }
}
