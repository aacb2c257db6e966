// error: 7:21: 'break' is supported in a switch only as the last statement of a case
// status: unsupported
void k(int N, float A[N]) {
  for (int i = 0; i < N; i++)
    switch (i % 2) {
    case 0:
      if (A[i] > 0) break;
      A[i] = 0;
      break;
    }
}
