// error: 3:15: scalar parameter 'flag' has type '_Bool': scalar parameters must be int, long, their unsigned forms (size_t), float or double (arrays may have any of the types)
// status: unsupported
void k(int N, _Bool flag, float A[N]) {
  A[0] = flag;
}
