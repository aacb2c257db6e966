// Two arrays, each step B from A then A from B (a folded pair of nests). At small forced tiles
// (see tests/CMakeLists.txt) both are staged and each step runs as a loop: the pointers into the
// two boxes must stay apart.
// run: T=0 N=5
// run: T=1 N=9
// run: T=2 N=100
// run: T=9 N=333
void pingpong1d(int T, int N, float A[N], float B[N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      B[i] = 0.5f * (A[i - 1] + A[i]);
    for (int i = 1; i < N - 1; i++)
      A[i] = 0.5f * (B[i - 1] + B[i]);
  }
}
