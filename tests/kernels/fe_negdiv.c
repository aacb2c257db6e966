// Front end: C's truncating / and % on values that can be negative (array data, shifted
// iterators, shape expressions), on int and long.
// fill: A=-20..20
// run: N=1
// run: N=3
// run: N=17
// run: N=100
// run: N=1000
void fe_negdiv(int N, const int A[N], int B[N], long L[N]) {
  for (int i = 0; i < N; i++) {
    B[i] = A[i] / 3 + A[i] % 3 * 10 + (i - N / 2) / 4 - (i - 7) % 5 + (-A[i]) / -7;
    L[i] = (long)A[i] * -1000000007L / 13L + (long)(i - N) % 11L + (A[i] - 3) / (N % 5 + 1);
  }
}
