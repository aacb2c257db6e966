// error: 3:35: an array extent may only use int or long parameters
// status: unsupported
void k(int N, float w, float A[N][(int)w]) { }
