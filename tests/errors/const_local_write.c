// error: 5:3: assignment to const variable 'c'
// status: syntax
void k(int N, float A[N]) {
  const float c = 2;
  c += 1;
}
