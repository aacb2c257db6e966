/* ptx/: the PTX target of the kernel IR (the emulator lives in ptx/emu). */
#ifndef SJ_PTX_H
#define SJ_PTX_H

#include "astgen/ir.h"

/* The module: one .entry per kernel function of mod (every function but the host one),
 * parameters in the function's order (arrays and the error word as u64 global addresses,
 * scalars at their type, host iterators s64), .reqntid the function's block size. version
 * and target are the operands of .version and .target. Short guarded code is predicated
 * (the kernels are rewritten). A jit_status; on success *out is the text (malloc'd,
 * deterministic). */
int sj_print_ptx(sj_ir_module *mod, const char *version, const char *target, char **out,
                 sj_error *err);

/* A kernel's shared arrays live in dynamic shared memory (`.extern .shared`), in order, each at a
 * multiple of 16 bytes: the offset of array k of f, and for k = f->nshared the bytes of dynamic
 * shared memory each block of its launches needs (0: none). Dynamic for every size, not only
 * above the 48 KB a static array may have: one layout and one launch path for every kernel that
 * stages, at no cost (the same memory, and the array's base is a constant for ptxas too). */
long sj_ptx_shared_offset(const sj_ir_func *f, int k);

#endif
