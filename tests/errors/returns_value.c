// error: 3:30: function 'k' returns 'float' but may reach its end without a return
// status: unsupported
float k(int N, float A[N]) { }
