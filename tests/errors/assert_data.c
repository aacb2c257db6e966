// error: 4:10: assert is supported on the sizes only (integer parameters, literals, enumeration constants): the arguments must meet it before anything runs
// status: unsupported
void k(int N, float A[N]) {
  assert(A[0] > 0);
  for (int i = 0; i < N; i++) A[i] = 0;
}
