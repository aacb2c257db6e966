// Coefficients as file-scope constants (static and not, several in one declaration, of
// another type than their initializer), used in the body and in an extent.
// run: T=0 N=3
// run: T=1 N=4
// run: T=6 N=50
// run: T=20 N=300
#define RADIUS 1
static const float C0 = 0.5f, C1 = 0.25;
const int HALO = 2 * RADIUS;
static const double EPS = 1e-3 / 4;
void fe_file_constants(int T, int N, float A[2][N + HALO]) {
  for (int t = 0; t < T; t++)
    for (int i = RADIUS; i < N + HALO - RADIUS; i++)
      A[(t + 1) % 2][i] = C0 * A[t % 2][i] + C1 * (A[t % 2][i - 1] + A[t % 2][i + 1]) + (float)EPS;
}
