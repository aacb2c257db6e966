// Qualifiers in a parameter's first brackets, as C99 allows them (static: at least that many
// elements; const and restrict: those of the pointer the parameter is).
// run: T=0 N=3
// run: T=1 N=3
// run: T=3 N=40
void fe_bracket_qualifiers(int T, int N, const float a[static N], float b[restrict N],
                           float c[const restrict]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++) {
      b[i] = 0.5f * (a[i - 1] + a[i + 1]) + c[i];
      c[i] = b[i];
    }
}
