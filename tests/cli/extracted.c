// Input of the cli_extracted tests: a kernel in the form a PolyBench-style harness leaves it
// after `gcc -E -P -DPOLYBENCH_USE_C99_PROTO` (static, `+ 0` in the extents, C89 declarations,
// scop pragmas, an element typedef, a math call, and a scalar reduction carried across loops).
typedef double DATA_TYPE;
static
void kernel_norms(int m, int n,
   DATA_TYPE alpha,
   DATA_TYPE A[ m + 0][n + 0],
   DATA_TYPE nrm[ m + 0],
   DATA_TYPE B[ m + 0][n + 0])
{
  int i, j;
  DATA_TYPE s;
#pragma scop
  for (i = 0; i < m; i++) {
    s = 0.0;
    for (j = 0; j < n; j++)
      s += A[i][j] * A[i][j];
    nrm[i] = sqrt(s) + alpha;
    for (j = i; j < n; j++)
      B[i][j] = A[i][j] / nrm[i];
  }
#pragma endscop
}
