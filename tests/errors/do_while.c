// error: 4:3: a do loop must count: set its counter before it (int t = 0; just before do { ... t++; } while (t < T);) and step it at the end of its body (t++;), or write a for loop
// status: unsupported
void k(int N, float A[N]) {
  do { A[0] = 1; } while (A[0] < 0);
}
