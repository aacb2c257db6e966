// memset of whole arrays, rows at an address and a pointer plus an offset, to zero: a loop
// nest setting the elements (jit/parse.c, fill_statement), +0.0 for floating-point ones; counts
// written with sizeof(T), sizeof *p and as products; zero elements where N or M is 2.
// fill: a=-1..1 b=-1..1 c=-1..1 d=-9..9
// run: N=2 M=2
// run: N=3 M=5
// run: N=30 M=20
#include <string.h>
void fe_memset(int N, int M, double a[N][M], double b[N][M], float c[M], int d[N][M]) {
  memset(b, 0, sizeof(double) * N * M);
  memset(&d[1][0], 0, (N - 2) * M * sizeof(int));
  memset(c + 1, 0, (M - 2) * sizeof *c);
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < M - 1; j++) b[i][j] += a[i-1][j] + a[i+1][j] + c[j];
}
