// error: 5:41: array 'A' has 2 dimensions, 1 index given
// status: unsupported
#define CENTER(t, i) A[i]
void k(int T, int N, float A[2][N]) {
  for (int i = 0; i < N; i++) A[0][i] = CENTER(0, i);
}
