// error: 3:27: excess elements in the initializer of 'w'
// status: syntax
const float w[2] = {1, 2, 3};
void k(int N, float A[N]) { }
