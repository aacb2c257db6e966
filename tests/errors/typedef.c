// error: 3:15: typedef 'vec': only typedefs of scalar types are supported
// status: unsupported
typedef float vec[4];
void k(int N, float A[N]) { }
