// error: 3:24: give every extent but the first
// status: unsupported
void k(int N, float A[][]) {
}
