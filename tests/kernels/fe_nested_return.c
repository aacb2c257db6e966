// `return;` in blocks nested in the function's body (on the sizes and on the data) and in a
// loop's body at depth 2, in an else branch, and a loop holding a return inside an if's
// block: the rest of each block around skipped through a flag (jit/parse.c, skip_set and
// skip_after), so that what follows runs only where C gets there.
// fill: A=-4..4 B=-4..4
// run: N=2
// run: N=3
// run: N=5
// run: N=6
// run: N=40
void fe_nested_return(int N, float A[N], float B[N], int C[2]) {
  C[0] = 0;
  if (N > 2) {
    for (int i = 0; i < N; i++) {
      if (i > 1) {
        if (A[i] > 3.5f) return;
        B[i] = A[i] * 0.5f;
      }
      C[0] += 1;
    }
    if (N > 4) {
      if (B[0] + B[1] > 6.0f) return;
      A[0] = B[N - 1];
    }
    A[1] = 2;
  }
  C[1] = N;
  if (N > 5) {
    if (A[2] < -3.0f) {
      B[2] = -1;
      return;
    }
    B[3] = A[3] + 1;
  } else {
    if (N > 3) {
      A[0] = 7;
    } else {
      B[0] = 3;
      return;
    }
    B[1] = 1;
  }
  A[N - 1] += 1;
}
