// error: 5:5: call to 'smooth' is not supported: the source defines no function 'smooth' (the source's void functions are inlined where they are called)
// status: unsupported
void k(int T, int N, float A[N]) {
  for (int t = 0; t < T; t++)
    smooth(N, A);
}
