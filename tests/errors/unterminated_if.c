// error: 3:1: unterminated conditional group
// status: syntax
#ifdef FAST
void k(int N, float A[N]) { }
