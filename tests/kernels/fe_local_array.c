// Front end: a local array of affine size (durbin's z), written and read back in each
// iteration of a sequential outer loop, and a local array per outer iteration used as a
// small private buffer (privatized where the loop is parallel).
// run: N=1 M=1
// run: N=4 M=3
// run: N=32 M=16
// run: N=37 M=11
void fe_local_array(int N, int M, double r[N], double y[N], float A[N][M]) {
  double z[N];
  double alpha = -r[0], beta = 1.0;
  y[0] = -r[0];
  for (int k = 1; k < N; k++) {
    beta = (1 - alpha * alpha) * beta;
    double sum = 0.0;
    for (int i = 0; i < k; i++) sum += r[k - i - 1] * y[i];
    alpha = -(r[k] + sum) / (beta + 4.0);
    for (int i = 0; i < k; i++) z[i] = y[i] + alpha * y[k - i - 1];
    for (int i = 0; i < k; i++) y[i] = z[i];
    y[k] = alpha;
  }
  for (int i = 0; i < N; i++) {
    float t[M];
    for (int j = 0; j < M; j++) t[j] = A[i][j] * 2.0f;
    for (int j = 0; j < M; j++) A[i][j] = t[M - 1 - j] + t[j];
  }
}
