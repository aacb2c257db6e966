/* Memory instructions: address resolution in the state spaces (generic addresses through
 * the shared and local windows), bounds and alignment checks, the shared-memory race check,
 * and the counters: 32-byte sectors per warp request, distinct sectors, bank conflicts. */
#include <stdio.h>
#include "exec.h"

static const char *space_name(int sp) {
  static const char *const n[] = {"generic", "global", "shared", "local", "param", "const"};
  return n[sp];
}

typedef struct {
  uint64_t sect[128];
  int n;
} sectors;

static int count_distinct(uint64_t *v, int n) {
  /* insertion sort: n <= 128 and usually already ordered */
  for (int i = 1; i < n; i++) {
    uint64_t x = v[i];
    int j = i - 1;
    while (j >= 0 && v[j] > x) v[j + 1] = v[j], j--;
    v[j + 1] = x;
  }
  int d = 0;
  for (int i = 0; i < n; i++)
    if (i == 0 || v[i] != v[i - 1]) v[d++] = v[i];
  return d;
}

/* [a, a + bytes) inside a space of size bytes, or the out-of-bounds error. */
static CUresult bounded(ctx *c, warp *w, int l, const emu_insn *in, uint64_t a, uint32_t bytes,
                        uint32_t size, const char *space) {
  if (a < size && size - a >= bytes) return CUDA_SUCCESS;
  return emu_fail(c, w, l, in, CUDA_ERROR_ILLEGAL_ADDRESS,
                  "out-of-bounds %s access of %u bytes at offset 0x%llx (%s size %u)", space, bytes,
                  (unsigned long long)a, space, size);
}

/* Resolves the address of lane l: the space actually addressed and a host pointer.
 * Addresses of .shared and .local are 32 bits wide: register + offset wraps modulo 2^32, as it
 * does on the GPU (nvcc folds a negative offset into a 32-bit base so). */
static CUresult resolve(ctx *c, warp *w, int l, const emu_insn *in, uint64_t a, uint32_t bytes,
                        int *space, uint8_t **host) {
  int sp = in->space;
  if (sp == EMU_SP_SHARED || sp == EMU_SP_LOCAL) a = (uint32_t)a;
  if (a % bytes) {
    return emu_fail(c, w, l, in, CUDA_ERROR_MISALIGNED_ADDRESS,
                    "misaligned %u-byte %s access at address 0x%llx", bytes, space_name(sp),
                    (unsigned long long)a);
  }
  if (sp == EMU_SP_GENERIC) {
    if (a >= EMU_SHARED_WINDOW && a < EMU_SHARED_WINDOW + EMU_WINDOW_SIZE) {
      sp = EMU_SP_SHARED;
      a -= EMU_SHARED_WINDOW;
    } else if (a >= EMU_LOCAL_WINDOW && a < EMU_LOCAL_WINDOW + EMU_WINDOW_SIZE) {
      sp = EMU_SP_LOCAL;
      a -= EMU_LOCAL_WINDOW;
    } else
      sp = EMU_SP_GLOBAL;
  }
  *space = sp;
  switch (sp) {
  case EMU_SP_GLOBAL:
  case EMU_SP_CONST:
    *host = emu_mem_host(a, bytes);
    if (!*host)
      return emu_fail(c, w, l, in, CUDA_ERROR_ILLEGAL_ADDRESS,
                      "out-of-bounds %s access of %u bytes at address 0x%llx (no allocation "
                      "contains it)",
                      space_name(in->space == EMU_SP_GENERIC ? EMU_SP_GLOBAL : in->space), bytes,
                      (unsigned long long)a);
    return CUDA_SUCCESS;
  case EMU_SP_SHARED:
    *host = c->b->shared + a;
    return bounded(c, w, l, in, a, bytes, c->shared_size, "shared");
  case EMU_SP_LOCAL:
    *host = c->b->local + (size_t)(w->tid0 + (uint32_t)l) * c->local_size + a;
    return bounded(c, w, l, in, a, bytes, c->local_size, "local");
  case EMU_SP_PARAM:
    *host = (uint8_t *)c->params + a;
    return bounded(c, w, l, in, a, bytes, c->param_size, "kernel parameter");
  }
  return CUDA_ERROR_UNKNOWN;
}

static CUresult race_check(ctx *c, warp *w, int l, const emu_insn *in, uint64_t off, uint32_t bytes,
                           int is_write) {
  int other, oline;
  int tid = (int)(w->tid0 + (uint32_t)l);
  int k = emu_race_access(&c->race, (uint32_t)off, bytes, tid, in->line, is_write, &other, &oline);
  if (!k) return CUDA_SUCCESS;
  static const char *const kinds[] = {"", "read-after-write", "write-after-read",
                                      "write-after-write"};
  if (other < 0)
    return emu_fail(c, w, l, in, CUDA_ERROR_LAUNCH_FAILED,
                    "shared-memory race (%s) on offset 0x%llx: %s by this thread, read by other "
                    "threads (last at line %d) with no barrier in between",
                    kinds[k], (unsigned long long)off, is_write ? "written" : "read", oline);
  unsigned t[3];
  emu_thread_coords(c, (uint32_t)other, t);
  return emu_fail(c, w, l, in, CUDA_ERROR_LAUNCH_FAILED,
                  "shared-memory race (%s) on offset 0x%llx: %s by this thread, %s by thread "
                  "(%u,%u,%u) at line %d with no barrier in between",
                  kinds[k], (unsigned long long)off, is_write ? "written" : "read",
                  k == 2 ? "read" : "written", t[0], t[1], t[2], oline);
}

static inline uint64_t load_val(const uint8_t *h, int bytes) {
  switch (bytes) {
  case 1:
    return *h;
  case 2: {
    uint16_t v;
    memcpy(&v, h, 2);
    return v;
  }
  case 4: {
    uint32_t v;
    memcpy(&v, h, 4);
    return v;
  }
  default: {
    uint64_t v;
    memcpy(&v, h, 8);
    return v;
  }
  }
}
static inline void store_val(uint8_t *h, uint64_t v, int bytes) {
  switch (bytes) {
  case 1:
    *h = (uint8_t)v;
    break;
  case 2: {
    uint16_t x = (uint16_t)v;
    memcpy(h, &x, 2);
    break;
  }
  case 4: {
    uint32_t x = (uint32_t)v;
    memcpy(h, &x, 4);
    break;
  }
  default:
    memcpy(h, &v, 8);
    break;
  }
}

static void count_bank_conflicts(ctx *c, const uint64_t *offs, int n, uint32_t bytes) {
  uint64_t words[128];
  int nw = 0;
  for (int k = 0; k < n && nw < 128; k++)
    for (uint64_t wd = offs[k] >> 2; wd <= (offs[k] + bytes - 1) >> 2 && nw < 128; wd++)
      words[nw++] = wd;
  nw = count_distinct(words, nw);
  int per[32] = {0}, mx = 0;
  for (int k = 0; k < nw; k++) {
    int b = (int)(words[k] & 31);
    if (++per[b] > mx) mx = per[b];
  }
  int ideal = (nw + 31) / 32;
  if (ideal < 1) ideal = 1;
  if (mx > ideal) c->st->bank_conflicts += (uint64_t)(mx - ideal);
}

CUresult emu_mem_op(ctx *c, warp *w, const emu_insn *in, uint32_t gm) {
  uint64_t *R = w->R;
  const uint64_t *A = R + (size_t)in->s[0] * 32;
  int es = emu_type_size(in->type), vec = in->vec, isld = in->op == EMU_OP_LD;
  uint32_t bytes = (uint32_t)(es * vec);
  int sg = emu_type_kind(in->type) == EMU_K_S;
  uint64_t gsec[64], shoff[32];
  int ng = 0, nsh = 0, nglob = 0;
  for (uint32_t mm = gm; mm; mm &= mm - 1) {
    int l = __builtin_ctz(mm);
    uint64_t a = A[l] + (uint64_t)in->off;
    int sp;
    uint8_t *h;
    CUresult rc = resolve(c, w, l, in, a, bytes, &sp, &h);
    if (rc) return rc;
    if (sp == EMU_SP_GLOBAL) {
      nglob++;
      gsec[ng++] = a >> 5;
      if (((a + bytes - 1) >> 5) != a >> 5) gsec[ng++] = (a + bytes - 1) >> 5;
    } else if (sp == EMU_SP_SHARED) {
      uint64_t off = (uint64_t)(h - c->b->shared);
      shoff[nsh++] = off;
      if (c->racecheck) {
        rc = race_check(c, w, l, in, off, bytes, !isld);
        if (rc) return rc;
      }
    }
    if (isld) {
      for (int k = 0; k < vec; k++) {
        uint64_t v = load_val(h + k * es, es);
        if (sg) v = (uint64_t)emu_sext(v, es);
        if (in->rsz < 8) v = emu_zext(v, in->rsz);
        R[(size_t)in->d[k] * 32 + l] = v;
      }
    } else {
      for (int k = 0; k < vec; k++) store_val(h + k * es, R[(size_t)in->s[1 + k] * 32 + l], es);
    }
  }
  emu_stats *st = c->st;
  if (nglob) {
    int d = count_distinct(gsec, ng);
    st->gsectors += (uint64_t)d;
    emu_stats_sectors(st, gsec, d, isld ? EMU_L2_READ : EMU_L2_WRITE);
    if (isld)
      st->gld_req++, st->gld_bytes += (uint64_t)nglob * bytes;
    else
      st->gst_req++, st->gst_bytes += (uint64_t)nglob * bytes;
  }
  if (nsh) {
    if (isld)
      st->sh_loads++;
    else
      st->sh_stores++;
    count_bank_conflicts(c, shoff, nsh, bytes);
  }
  return CUDA_SUCCESS;
}

CUresult emu_atom_op(ctx *c, warp *w, const emu_insn *in, uint32_t gm) {
  uint64_t *R = w->R;
  const uint64_t *A = R + (size_t)in->s[0] * 32;
  const uint64_t *B = R + (size_t)in->s[1] * 32;
  const uint64_t *Cc = in->mode == EMU_ATOM_CAS ? R + (size_t)in->s[2] * 32 : NULL;
  uint64_t *D = R + (size_t)in->d[0] * 32;
  int t = in->type, es = emu_type_size(t), sg = emu_type_kind(t) == EMU_K_S;
  /* lanes in lane order: one valid serialisation of the warp's atomics */
  for (uint32_t mm = gm; mm; mm &= mm - 1) {
    int l = __builtin_ctz(mm);
    uint64_t a = A[l] + (uint64_t)in->off;
    int sp;
    uint8_t *h;
    CUresult rc = resolve(c, w, l, in, a, (uint32_t)es, &sp, &h);
    if (rc) return rc;
    if (sp == EMU_SP_GLOBAL) {
      uint64_t sector = a >> 5;
      emu_stats_sectors(c->st, &sector, 1, EMU_L2_READ | EMU_L2_WRITE);
    }
    uint64_t old = load_val(h, es), b = B[l], r;
    switch (in->mode) {
    case EMU_ATOM_ADD:
      if (t == EMU_T_F32) /* atom.add.f32: round to nearest, subnormals flushed */
        r = emu_bits32(emu_ftz32(emu_ftz32(emu_f32(old)) + emu_ftz32(emu_f32(b))));
      else if (t == EMU_T_F64)
        r = emu_bits64(emu_f64(old) + emu_f64(b));
      else
        r = old + b;
      break;
    case EMU_ATOM_MIN:
      r = sg ? (emu_sext(old, es) < emu_sext(b, es) ? old : b)
             : (emu_zext(old, es) < emu_zext(b, es) ? old : b);
      break;
    case EMU_ATOM_MAX:
      r = sg ? (emu_sext(old, es) > emu_sext(b, es) ? old : b)
             : (emu_zext(old, es) > emu_zext(b, es) ? old : b);
      break;
    case EMU_ATOM_EXCH:
      r = b;
      break;
    case EMU_ATOM_CAS:
      r = emu_zext(old, es) == emu_zext(b, es) ? Cc[l] : old;
      break;
    case EMU_ATOM_AND:
      r = old & b;
      break;
    case EMU_ATOM_OR:
      r = old | b;
      break;
    case EMU_ATOM_XOR:
      r = old ^ b;
      break;
    case EMU_ATOM_INC:
      r = (uint32_t)old >= (uint32_t)b ? 0 : old + 1;
      break;
    case EMU_ATOM_DEC:
      r = ((uint32_t)old == 0 || (uint32_t)old > (uint32_t)b) ? b : old - 1;
      break;
    default:
      r = old;
      break;
    }
    store_val(h, r, es);
    D[l] = sg ? emu_zext((uint64_t)emu_sext(old, es), es) : old;
  }
  c->st->atomics++;
  return CUDA_SUCCESS;
}
