// error: 5:3: a while loop must count: set its counter before it (int t = 0; while (t < T) { ... t++; }) and step it at the end of its body (t++;), or write a for loop
// status: unsupported
void k(int N, float A[N]) {
  int i;
  while (i < N) A[i] = 0;
}
