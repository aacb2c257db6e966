// A helper whose local is used three times in each of eight steps: inlined, the statement
// reads A[i - 1], A[i] and A[i + 1] 3^8 times each. The model builds each reference's access
// relation once per statement (sched/model.c): built per read, with a realloc per read, an
// input of this shape with 59049 reads compiled for 140 s under AddressSanitizer (a fuzzing
// timeout), this one in 0.7 s without it (now 0.2 s).
// run: N=1
// run: N=3
// run: N=70
float fe_helper_repeat_mix(float a, float b, float c) {
  float x = 0.25f * a + 0.5f * b + 0.25f * c;
  x = x * 0.5f - x * x * 0.25f;
  x = x * 0.5f - x * x * 0.25f;
  x = x * 0.5f - x * x * 0.25f;
  x = x * 0.5f - x * x * 0.25f;
  x = x * 0.5f - x * x * 0.25f;
  x = x * 0.5f - x * x * 0.25f;
  x = x * 0.5f - x * x * 0.25f;
  x = x * 0.5f - x * x * 0.25f;
  return x;
}
void fe_helper_repeat(int N, const float A[N], float B[N]) {
  for (int i = 1; i < N - 1; i++) B[i] = fe_helper_repeat_mix(A[i - 1], A[i], A[i + 1]);
}
