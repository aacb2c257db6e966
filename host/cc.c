/* The system C compiler: the second tier of the CPU backend. It compiles the generated C
 * into a shared object in a private temporary directory, which is then loaded with dlopen
 * under a name no other object of this process had (glibc returns an object already loaded
 * under the same name, whatever the file now holds). */
#define _GNU_SOURCE /* environ */
#include "host/host.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/sha256.h"
#include "stenciljit.h"

extern char **environ;

/* -O3 and the host's vector units; nothing that changes a result: no contraction into fma,
 * no fast math, integer arithmetic wrapping as the kernel IR defines it, and fmin/fmax called
 * as written: gcc takes the builtins for commutative and swaps their operands, which changes
 * the C library's answer for two zeros of opposite sign (fmin(0, -0) is -0 in glibc, its
 * second argument). One string: it is also part of the cache key and of the explanation. */
#define SJ_CC_FLAGS                                                                                \
  "-O3 -march=native -ffp-contract=off -fno-fast-math -fwrapv -fno-builtin-fmin "                  \
  "-fno-builtin-fminf -fno-builtin-fmax -fno-builtin-fmaxf -fPIC -shared"

const char *sj_cc_flags(void) {
  return SJ_CC_FLAGS;
}

/* --- finding the compiler --- */

static int executable(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* name as given when it has a slash, else the first match on $PATH. */
static int find_program(const char *name, char *out, size_t cap) {
  if (strchr(name, '/')) return executable(name) ? snprintf(out, cap, "%s", name) < (int)cap : 0;
  const char *path = getenv("PATH");
  if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
  for (const char *p = path; *p;) {
    size_t n = strcspn(p, ":");
    if (n && snprintf(out, cap, "%.*s/%s", (int)n, p, name) < (int)cap && executable(out)) return 1;
    p += n + (p[n] == ':');
  }
  return 0;
}

typedef struct cc_info {
  char path[1024];
  char why[160];
} cc_info;

static cc_info found;

static void find_compiler(void) {
  const char *env = getenv("JIT_CC");
  if (env && *env) {
    if (find_program(env, found.path, sizeof found.path))
      snprintf(found.why, sizeof found.why, "JIT_CC");
    else
      snprintf(found.why, sizeof found.why, "JIT_CC=%.120s is not an executable", env);
    return;
  }
  static const char *const names[] = {"cc", "gcc", "clang"};
  for (int i = 0; i < 3; i++)
    if (find_program(names[i], found.path, sizeof found.path)) {
      snprintf(found.why, sizeof found.why, "'%s' on PATH", names[i]);
      return;
    }
  found.path[0] = 0;
  snprintf(found.why, sizeof found.why, "no cc, gcc or clang on PATH and JIT_CC unset");
}

const char *sj_cc_path(const char **why) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, find_compiler);
  if (why) *why = found.why;
  return found.path[0] ? found.path : NULL;
}

/* --- running it --- */

/* Runs argv with stdout and stderr to out_file (when not NULL; else /dev/null) and waits.
 * on_spawn(user, pid) learns the child while it runs, and (user, 0) once it is reaped, so that
 * its owner may kill it. The exit status, or -1 when it could not start or was killed. */
static int run(char *const *argv, const char *out_file, sj_cc_watch on_spawn, void *user) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  const char *out = out_file ? out_file : "/dev/null";
  posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc) return -1;
  if (on_spawn) on_spawn(user, pid);
  int status;
  pid_t w;
  while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (on_spawn) on_spawn(user, 0);
  if (w < 0 || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

/* A fresh directory of ours under $TMPDIR (else /tmp); 0 on success. */
static int temp_dir(char *dir, size_t cap) {
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp) tmp = "/tmp";
  if (snprintf(dir, cap, "%s/stenciljit-XXXXXX", tmp) >= (int)cap) return -1;
  return mkdtemp(dir) ? 0 : -1;
}

static void remove_dir(const char *dir, const char *const *names) {
  char path[1200];
  for (int i = 0; names[i]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
}

static int write_file(const char *path, const void *data, size_t len) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  const char *p = data;
  while (len) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    p += n, len -= (size_t)n;
  }
  return close(fd) || len ? -1 : 0;
}

/* The compiler's first line of --version and what -march=native stands for (the CPU's
 * model and flags): what its code depends on besides the text and the flags. */
static char identity[1400];

static void first_line(const char *file, char *out, size_t cap) {
  char *text = sj_read_file(file, NULL);
  snprintf(out, cap, "%s", text ? text : "");
  out[strcspn(out, "\n")] = 0;
  free(text);
}

static void cpu_identity(char *out, size_t cap) {
  char *info = sj_read_file("/proc/cpuinfo", NULL);
  const char *model = info ? strstr(info, "model name") : NULL;
  const char *fl = info ? strstr(info, "\nflags") : NULL;
  char hex[65] = "none";
  if (fl) sj_sha256_hex(fl, strcspn(fl + 1, "\n") + 1, hex);
  snprintf(out, cap, "%.*s, flags %.16s", model ? (int)strcspn(model, "\n") : 7,
           model ? model : "unknown", hex);
  free(info);
}

static void find_identity(void) {
  const char *path = sj_cc_path(NULL);
  char dir[1024], out[1100], version[256] = "", cpu[512];
  if (path && temp_dir(dir, sizeof dir) == 0) {
    snprintf(out, sizeof out, "%s/version", dir);
    char *argv[] = {(char *)path, "--version", NULL};
    if (run(argv, out, NULL, NULL) == 0) first_line(out, version, sizeof version);
    remove_dir(dir, (const char *const[]){"version", NULL});
  }
  cpu_identity(cpu, sizeof cpu);
  if (path && version[0]) snprintf(identity, sizeof identity, "%s (%s) for %s", path, version, cpu);
}

const char *sj_cc_identity(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, find_identity);
  return identity[0] ? identity : NULL;
}

void *sj_cc_compile(const char *source, size_t *len, sj_cc_watch on_spawn, void *user,
                    sj_error *err) {
  const char *cc = sj_cc_path(NULL);
  char dir[1024], src[1100], obj[1100], log[1100];
  if (!cc) {
    sj_error_set(err, JIT_ERR_DEVICE, "no system C compiler");
    return NULL;
  }
  if (temp_dir(dir, sizeof dir)) {
    sj_error_set(err, JIT_ERR_DEVICE, "cannot make a temporary directory: %s", strerror(errno));
    return NULL;
  }
  snprintf(src, sizeof src, "%s/kernel.c", dir);
  snprintf(obj, sizeof obj, "%s/kernel.so", dir);
  snprintf(log, sizeof log, "%s/log", dir);
  void *data = NULL;
  if (write_file(src, source, strlen(source))) {
    sj_error_set(err, JIT_ERR_DEVICE, "cannot write %s: %s", src, strerror(errno));
  } else {
    char flags[] = SJ_CC_FLAGS, *argv[32], *rest;
    int n = 0;
    argv[n++] = (char *)cc;
    for (char *f = strtok_r(flags, " ", &rest); f; f = strtok_r(NULL, " ", &rest)) argv[n++] = f;
    char *tail[] = {"-o", obj, src, "-lm", NULL};
    for (int i = 0; tail[i]; i++) argv[n++] = tail[i];
    argv[n] = NULL;
    int status = run(argv, log, on_spawn, user);
    data = status == 0 ? sj_read_file(obj, len) : NULL;
    if (!data) {
      char msg[400];
      first_line(log, msg, sizeof msg);
      sj_error_set(err, JIT_ERR_DEVICE, "%s %s: %s", cc,
                   status < 0 ? "did not run to its end" : "failed", msg[0] ? msg : "no message");
    }
  }
  remove_dir(dir, (const char *const[]){"kernel.c", "kernel.so", "log", NULL});
  return data;
}

/* --- loading --- */

struct sj_cc_obj {
  void *handle;
};

sj_cc_obj *sj_cc_load(const void *data, size_t len, sj_error *err) {
  static atomic_ulong serial;
  char dir[1024], path[1200], name[64];
  if (temp_dir(dir, sizeof dir)) {
    sj_error_set(err, JIT_ERR_DEVICE, "cannot make a temporary directory: %s", strerror(errno));
    return NULL;
  }
  /* the directory is unique now; the serial keeps the name unique for the whole process */
  snprintf(name, sizeof name, "k%lu.so", atomic_fetch_add(&serial, 1));
  snprintf(path, sizeof path, "%s/%s", dir, name);
  void *handle = NULL;
  if (write_file(path, data, len) == 0) {
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) sj_error_set(err, JIT_ERR_DEVICE, "dlopen: %s", dlerror());
  } else {
    sj_error_set(err, JIT_ERR_DEVICE, "cannot write %s: %s", path, strerror(errno));
  }
  remove_dir(dir, (const char *const[]){name, NULL}); /* the mapping stays */
  if (!handle) return NULL;
  sj_cc_obj *o = malloc(sizeof *o);
  if (!o) {
    dlclose(handle);
    sj_error_set(err, JIT_ERR_NOMEM, "out of memory");
    return NULL;
  }
  o->handle = handle;
  return o;
}

void *sj_cc_symbol(sj_cc_obj *o, const char *name) {
  return dlsym(o->handle, name);
}

void sj_cc_free(sj_cc_obj *o) {
  if (!o) return;
  dlclose(o->handle);
  free(o);
}
