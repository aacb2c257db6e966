// error: 3:13: file-scope array 'w' is not supported
// status: unsupported
const float w[3] = {0.25f, 0.5f, 0.25f};
void k(int N, float A[N]) { }
