// Subscripts that wrap as C's conversions and unsigned arithmetic do: (unsigned char)i past
// 255, unsigned products modulo 256, and i + 4294967295u, which is i - 1 in unsigned int.
// run: N=1
// run: N=2
// run: N=255
// run: N=300
// run: N=1000
void fe_wrap_index(int N, const float A[256], float B[N]) {
  for (int i = 0; i < N; i++) B[i] = A[(unsigned char)i] + A[(unsigned char)(i * 7 + 3)];
  for (unsigned i = 0; i < (unsigned)N; i++) B[i] += A[(i * 3u) % 256u];
  for (unsigned i = 1; i < (unsigned)N; i++) B[i + 4294967295u] += 0.5f * B[i];
}
