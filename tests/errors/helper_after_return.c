// error: 3:35: function 'sq': nothing may follow a return in its block
// status: unsupported
float sq(float x) { return x * x; return x; }
void k(int N, float A[N]) { }
