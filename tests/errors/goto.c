// error: 4:3: 'goto' is not supported
// status: unsupported
void k(int N, float A[N]) {
  goto end;
end:
  A[0] = 1;
}
