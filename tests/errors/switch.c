// error: 7:5: a case that falls through into the next is not supported: end it with 'break;'
// status: unsupported
void k(int N, float A[N]) {
  for (int i = 0; i < N; i++)
    switch (i % 2) {
    case 0: A[i] = 0;
    case 1: A[i] += 1; break;
    }
}
