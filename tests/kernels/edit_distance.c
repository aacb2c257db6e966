// A two-dimensional recurrence with no parallel loop: each element needs its left, upper
// and upper-left neighbours (edit distance). Only the anti-diagonals are parallel: a
// wavefront on the GPU.
// fill: D=0..9 a=0..3 b=0..3
// run: N=1 M=1
// run: N=2 M=5
// run: N=33 M=17
// run: N=64 M=64
// run: N=100 M=129
// run: N=2 M=40000
void edit_distance(int N, int M, int D[N][M], const int a[N], const int b[M]) {
  for (int i = 1; i < N; i++)
    for (int j = 1; j < M; j++) {
      int up = D[i - 1][j] + 1, left = D[i][j - 1] + 1;
      int diag = D[i - 1][j - 1] + (a[i] == b[j] ? 0 : 1);
      int best = up < left ? up : left;
      D[i][j] = diag < best ? diag : best;
    }
}
