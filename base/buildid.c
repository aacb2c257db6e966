/* The running object's build identity (see buildid.h). The linker's build-id note hashes the
 * whole output, so any change of code gives a new one; Debian's toolchain writes it by
 * default. */
#define _GNU_SOURCE /* dladdr, dl_iterate_phdr */
#include "base/buildid.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static char identity[160];
static pthread_once_t once = PTHREAD_ONCE_INIT;

typedef struct search {
  uintptr_t self; /* an address inside our object */
  int found;
} search;

/* The NT_GNU_BUILD_ID note among the notes of one PT_NOTE segment, as hex. */
static int read_note(const unsigned char *p, size_t size) {
  while (size >= sizeof(ElfW(Nhdr))) {
    const ElfW(Nhdr) *n = (const void *)p;
    size_t name = (n->n_namesz + 3) & ~(size_t)3, desc = (n->n_descsz + 3) & ~(size_t)3;
    size_t total = sizeof *n + name + desc;
    if (total > size) return 0;
    if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(p + sizeof *n, "GNU", 4) &&
        n->n_descsz > 0 && n->n_descsz * 2 < sizeof identity - 8) {
      const unsigned char *d = p + sizeof *n + name;
      int len = snprintf(identity, sizeof identity, "gnu:");
      for (size_t i = 0; i < n->n_descsz; i++, len += 2) snprintf(identity + len, 3, "%02x", d[i]);
      return 1;
    }
    p += total;
    size -= total;
  }
  return 0;
}

static int visit(struct dl_phdr_info *info, size_t size, void *data) {
  search *s = data;
  (void)size;
  int mine = 0;
  for (int i = 0; i < info->dlpi_phnum && !mine; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    mine = ph->p_type == PT_LOAD && s->self >= start && s->self < start + ph->p_memsz;
  }
  if (!mine) return 0;
  for (int i = 0; i < info->dlpi_phnum && !s->found; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_NOTE)
      s->found = read_note((const unsigned char *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz);
  }
  return 1;
}

static void compute(void) {
  search s = {(uintptr_t)&compute, 0};
  dl_iterate_phdr(visit, &s);
  if (s.found) return;
  Dl_info info;
  struct stat st;
  if (dladdr((void *)&compute, &info) && info.dli_fname && !stat(info.dli_fname, &st))
    snprintf(identity, sizeof identity, "file:%.100s:%lld:%lld.%09ld", info.dli_fname,
             (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

const char *sj_build_id(void) {
  pthread_once(&once, compute);
  return identity[0] ? identity : NULL;
}
