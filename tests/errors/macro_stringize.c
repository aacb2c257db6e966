// error: 3:17: the # and ## operators of macros are not supported (in macro 'NAME')
// status: unsupported
#define NAME(x) #x
void k(int N, float A[N]) { }
