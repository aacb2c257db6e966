// Calls of calls: a time loop over a function that calls a boundary function and a stencil
// function, the arrays swapped through pointers after the call.
// fill: u=-1..1 v=-1..1
// run: T=0 N=4
// run: T=1 N=4
// run: T=2 N=9
// run: T=5 N=257
static void edges(int n, const double *from, double *to) {
  to[0] = from[0];
  to[n - 1] = from[n - 1];
}

static void smooth(int n, double w, const double *from, double *to) {
  for (int i = 1; i < n - 1; i++)
    to[i] = w * from[i] + (1.0 - w) * 0.5 * (from[i - 1] + from[i + 1]);
}

static void update(int n, double w, const double *from, double *to) {
  edges(n, from, to);
  smooth(n, w, from, to);
}

void fe_call_nested(int T, int N, double *u, double *v) {
  for (int t = 0; t < T; t++) {
    update(N, 0.25 + 0.0625 * t, u, v);
    double *tmp = u;
    u = v;
    v = tmp;
  }
}
