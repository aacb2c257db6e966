// Input of the cli_unsigned_wrap test: an unsigned iterator counting down past 0 wraps to
// UINT_MAX, where i >= 0 still holds: C's loop never ends, and the model says so.
void unsigned_wrap(int N, float A[N]) {
  for (unsigned i = N - 1; i >= 0; i--) A[i] = 0.0f;
}
