// error: 3:22: array parameter 'A': give every extent
// status: unsupported
void k(int N, float A[][N]) { }
