// error: 3:1: 'struct' is not supported
// status: unsupported
struct point {
  int x, y;
};
void k(int N, float A[N]) { }
