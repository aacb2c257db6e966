/* Where a kernel's shared arrays lie in its dynamic shared memory (ptx/ptx.h): the printer
 * addresses them there, and the host passes the total at launch. */
#include "ptx/ptx.h"

long sj_ptx_shared_offset(const sj_ir_func *f, int k) {
  long at = 0;
  for (int i = 0; i < k && i < f->nshared; i++)
    at += (f->shared[i].count * sj_ir_type_size(f->shared[i].elem) + 15) / 16 * 16;
  return at;
}
