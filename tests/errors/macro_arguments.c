// error: 5:38: macro 'AVG' takes 2 arguments, given 3
// status: syntax
#define AVG(a, b) (((a) + (b)) / 2)
void k(int N, float A[N]) {
  for (int i = 1; i < N; i++) A[i] = AVG(A[i], A[i - 1], 0);
}
