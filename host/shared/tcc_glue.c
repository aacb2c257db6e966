/* Linked into the shared library only. Debian's libtcc.a is PIE code that refers to
 * stdout, stderr and environ as if they were copied into the executable, which a shared
 * object cannot satisfy. These hidden definitions take those references inside
 * libstenciljit.so; a constructor points them at the process's own objects. stdio.h is not
 * included because it defines these names as macros. */
#include <dlfcn.h>

struct _IO_FILE;
__attribute__((visibility("hidden"))) struct _IO_FILE *stdout, *stderr;
__attribute__((visibility("hidden"))) char **environ;

__attribute__((constructor)) static void sj_bind_process_stdio(void) {
  struct _IO_FILE **out = dlsym(RTLD_DEFAULT, "stdout");
  struct _IO_FILE **err = dlsym(RTLD_DEFAULT, "stderr");
  char ***env = dlsym(RTLD_DEFAULT, "environ");
  stdout = out ? *out : 0;
  stderr = err ? *err : 0;
  environ = env ? *env : 0;
}
