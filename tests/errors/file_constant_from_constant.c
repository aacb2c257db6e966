// error: 4:16: 'W' is not a constant expression in C
// status: unsupported
const int W = 3;
const int W2 = W * W;
void k(int N, float A[N]) { }
