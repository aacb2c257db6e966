// An image filter that keeps its edge in its body: each pixel averages the neighbours of a
// 3x3 window that lie inside the image, counted as it goes, then the result is copied back.
// Per step, a thread inside the image runs a copy of the kernel in which the window's tests
// are decided (astgen/unswitch.c); the threads at an edge run the tests. Sizes of one pixel,
// of one row, and with the image narrower than a warp try the edges alone.
// run: T=0 N=3 M=3
// run: T=1 N=1 M=1
// run: T=2 N=1 M=40
// run: T=2 N=40 M=2
// run: T=3 N=9 M=17
// run: T=3 N=37 M=70
// run: T=2 N=130 M=300
void filter_edges2d(int T, int N, int M, float img[N][M], float out[N][M]) {
  for (int t = 0; t < T; t++) {
    for (int y = 0; y < N; y++)
      for (int x = 0; x < M; x++) {
        float sum = 0.0f;
        int n = 0;
        for (int dy = -1; dy <= 1; dy++)
          for (int dx = -1; dx <= 1; dx++) {
            int yy = y + dy, xx = x + dx;
            if (yy >= 0 && yy < N && xx >= 0 && xx < M) {
              sum += img[yy][xx];
              n++;
            }
          }
        out[y][x] = sum / n;
      }
    for (int y = 0; y < N; y++)
      for (int x = 0; x < M; x++) img[y][x] = out[y][x];
  }
}
