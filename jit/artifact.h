/* A kernel's compiled artifacts in the on-disk cache: the image a driver links from its PTX,
 * and (issue 14) CPU objects. The key is the call's key (library version, device, options,
 * entry, shape, normalized source) with the library's build identity, the device's name,
 * architecture, PTX ISA and driver version, the artifact's kind and what else the kind
 * depends on: the text it was compiled from (its SHA-256), a compiler's identity. */
#ifndef SJ_ARTIFACT_H
#define SJ_ARTIFACT_H

#include <stddef.h>

#include "base/error.h"
#include "stenciljit.h"

/* The on-disk cache's key of k's artifact of this kind (malloc'd); NULL when nothing may be
 * shared across processes: the on-disk cache is off, or the build has no identity. */
char *sj_artifact_key(const jit_kernel *k, const char *kind, const char *extra);
/* The artifact of this kind for k (malloc'd, NUL after *len bytes), or NULL: not stored, or
 * the on-disk cache is off. extra: what else the artifact depends on; NULL for nothing. */
void *sj_artifact_load(const jit_kernel *k, const char *kind, const char *extra, size_t *len);
/* Stores it; failures to store only cost a rebuild later. */
void sj_artifact_store(const jit_kernel *k, const char *kind, const char *extra, const void *data,
                       size_t len);

/* Loads k's module: from the cubin in the on-disk cache, else linked from k->ptx by a driver
 * that links (and stored), else from k->ptx. A jit_status. */
int sj_gpu_load_module(jit_kernel *k, sj_error *err);

#endif
