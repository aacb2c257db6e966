/* Internal declarations shared by the emulator's source files. */
#ifndef EMU_INTERNAL_H
#define EMU_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "base/cuda_abi.h"
#include "ops.h"

/* The library is built with hidden visibility: only what carries this is exported. */
#define EMU_EXPORT __attribute__((visibility("default")))

/* ---- the emulated device: an H100 SXM ---- */
#define EMU_DEVICE_MEMORY (80ull << 30)
#define EMU_SM_COUNT 132
#define EMU_SM_THREADS 2048                 /* resident threads per multiprocessor */
#define EMU_SM_BLOCKS 32                    /* resident blocks per multiprocessor */
#define EMU_SM_SHARED (228 * 1024)          /* shared memory per multiprocessor */
#define EMU_SHARED_RESERVED 1024            /* of it, what the system reserves per resident block */
#define EMU_BLOCK_SHARED (48 * 1024)        /* a block's shared memory without the opt-in */
#define EMU_BLOCK_SHARED_OPTIN (227 * 1024) /* with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_... */
/* Bytes of L2 cache: 50 MB, or JIT_EMU_L2_BYTES (stats.c). */
uint64_t emu_l2_bytes(void);

/* ---- types ---- */
enum {
  EMU_T_NONE,
  EMU_T_PRED,
  EMU_T_B8,
  EMU_T_B16,
  EMU_T_B32,
  EMU_T_B64,
  EMU_T_U8,
  EMU_T_U16,
  EMU_T_U32,
  EMU_T_U64,
  EMU_T_S8,
  EMU_T_S16,
  EMU_T_S32,
  EMU_T_S64,
  EMU_T_F16,
  EMU_T_F32,
  EMU_T_F64,
  EMU_T_COUNT
};
enum { EMU_K_NONE, EMU_K_PRED, EMU_K_BIT, EMU_K_U, EMU_K_S, EMU_K_F };
typedef struct emu_type_info {
  const char *name;
  int size, kind; /* size in bytes, 0 for pred */
} emu_type_info;
extern const emu_type_info emu_types[EMU_T_COUNT]; /* types.c */
static inline int emu_type_size(int t) {
  return emu_types[t].size;
}
static inline int emu_type_kind(int t) {
  return emu_types[t].kind;
}
static inline const char *emu_type_name(int t) {
  return emu_types[t].name;
}

/* Type class used to specialise opcodes: code = op * EMU_TK_N + tk. */
enum {
  EMU_TK_U16,
  EMU_TK_S16,
  EMU_TK_U32,
  EMU_TK_S32,
  EMU_TK_U64,
  EMU_TK_S64,
  EMU_TK_F32,
  EMU_TK_F64,
  EMU_TK_PRED,
  EMU_TK_OTHER,
  EMU_TK_N
};
int emu_type_tk(int t);

/* ---- state spaces and the generic address windows ---- */
enum { EMU_SP_GENERIC, EMU_SP_GLOBAL, EMU_SP_SHARED, EMU_SP_LOCAL, EMU_SP_PARAM, EMU_SP_CONST };
#define EMU_SHARED_WINDOW 0x00007e0000000000ull
#define EMU_LOCAL_WINDOW 0x00007d0000000000ull
#define EMU_WINDOW_SIZE 0x0000000100000000ull
#define EMU_GLOBAL_BASE 0x0000000700000000ull

/* ---- operations (ops.h) ---- */

/* rounding */
enum {
  EMU_RND_NONE,
  EMU_RND_RN,
  EMU_RND_RZ,
  EMU_RND_RM,
  EMU_RND_RP,
  EMU_RND_RNI,
  EMU_RND_RZI,
  EMU_RND_RMI,
  EMU_RND_RPI
};
enum { EMU_BOP_NONE, EMU_BOP_AND, EMU_BOP_OR, EMU_BOP_XOR };
enum {
  EMU_ATOM_ADD,
  EMU_ATOM_MIN,
  EMU_ATOM_MAX,
  EMU_ATOM_EXCH,
  EMU_ATOM_CAS,
  EMU_ATOM_AND,
  EMU_ATOM_OR,
  EMU_ATOM_XOR,
  EMU_ATOM_INC,
  EMU_ATOM_DEC
};
enum { EMU_SHFL_UP, EMU_SHFL_DOWN, EMU_SHFL_BFLY, EMU_SHFL_IDX };
enum { EMU_VOTE_ALL, EMU_VOTE_ANY, EMU_VOTE_UNI, EMU_VOTE_BALLOT };
enum {
  EMU_TESTP_FINITE,
  EMU_TESTP_INFINITE,
  EMU_TESTP_NUMBER,
  EMU_TESTP_NAN,
  EMU_TESTP_NORMAL,
  EMU_TESTP_SUBNORMAL
};

/* instruction flags */
#define EMU_F_FTZ 0x01
#define EMU_F_SAT 0x02
#define EMU_F_GNEG 0x04   /* guard is @!p */
#define EMU_F_APPROX 0x08 /* .approx/.full: computed exactly here */
#define EMU_F_HASP 0x10   /* optional predicate destination (shfl) */
#define EMU_F_NOSTAT 0x20

/* instruction classes for the counters */
enum {
  EMU_CLS_INT,
  EMU_CLS_FLOAT,
  EMU_CLS_CONV,
  EMU_CLS_MOVE,
  EMU_CLS_MEM_GLOBAL,
  EMU_CLS_MEM_SHARED,
  EMU_CLS_MEM_LOCAL,
  EMU_CLS_MEM_PARAM,
  EMU_CLS_MEM_CONST,
  EMU_CLS_ATOMIC,
  EMU_CLS_CONTROL,
  EMU_CLS_SYNC,
  EMU_CLS_WARP,
  EMU_CLS_OTHER,
  EMU_CLS_N
};
extern const char *const emu_cls_names[EMU_CLS_N];

#define EMU_MAX_SRC 8
typedef struct emu_insn {
  uint16_t code; /* op * EMU_TK_N + tk */
  uint8_t op, tk, type, type2, rnd, flags;
  uint8_t cmp, bop, mode, space, vec, cls, nsrc, ndst;
  uint8_t sneg; /* negated predicate sources: bit i for s[i] */
  uint8_t rsz;  /* ld/cvt: size in bytes of the destination register */
  int32_t guard;
  uint32_t d[4];
  uint32_t s[EMU_MAX_SRC];
  int64_t off;
  uint32_t target;
  int line;
} emu_insn;

typedef struct emu_param {
  char *name;
  uint32_t offset, size, align;
} emu_param;

struct emu_module;
typedef struct emu_func {
  char *name;
  int line;
  struct emu_module *mod;
  emu_param *params;
  int nparams;
  uint32_t param_size;
  emu_insn *code;
  int ncode;
  uint32_t nslots, nregs, special_base, const_base, nconsts;
  uint64_t *consts;
  uint32_t shared_static; /* bytes of static shared memory (module + function level) */
  uint32_t dyn_shared_off;
  uint32_t local_size;
  uint32_t reqntid[3], maxntid[3];
  int max_dyn_shared;         /* dynamic shared bytes a launch may ask for (cuFuncSetAttribute) */
  struct emu_regname *rnames; /* register declarations, for messages */
  int nrnames;
} emu_func;

typedef struct emu_regname {
  char *name;
  uint32_t base, count;
} emu_regname;
/* "%r12" for a slot, or a description of a special or constant slot */
void emu_slot_name(const emu_func *f, uint32_t slot, char *buf, size_t len);

/* Special registers: X(ID, name), slots special_base + EMU_SP_<ID>. */
#define EMU_SPECIALS(X)                                                                            \
  X(TID_X, "%tid.x")                                                                               \
  X(TID_Y, "%tid.y")                                                                               \
  X(TID_Z, "%tid.z")                                                                               \
  X(NTID_X, "%ntid.x")                                                                             \
  X(NTID_Y, "%ntid.y")                                                                             \
  X(NTID_Z, "%ntid.z")                                                                             \
  X(CTAID_X, "%ctaid.x")                                                                           \
  X(CTAID_Y, "%ctaid.y")                                                                           \
  X(CTAID_Z, "%ctaid.z")                                                                           \
  X(NCTAID_X, "%nctaid.x")                                                                         \
  X(NCTAID_Y, "%nctaid.y")                                                                         \
  X(NCTAID_Z, "%nctaid.z")                                                                         \
  X(LANEID, "%laneid")                                                                             \
  X(WARPID, "%warpid")                                                                             \
  X(NWARPID, "%nwarpid")                                                                           \
  X(LANEMASK_EQ, "%lanemask_eq")                                                                   \
  X(LANEMASK_LT, "%lanemask_lt")                                                                   \
  X(LANEMASK_LE, "%lanemask_le")                                                                   \
  X(LANEMASK_GT, "%lanemask_gt")                                                                   \
  X(LANEMASK_GE, "%lanemask_ge")                                                                   \
  X(SMID, "%smid")                                                                                 \
  X(NSMID, "%nsmid")                                                                               \
  X(GRIDID, "%gridid")                                                                             \
  X(DSMEM, "%dynamic_smem_size")                                                                   \
  X(TSMEM, "%total_smem_size")
#define EMU_SPECIAL_ENUM(id, name) EMU_SP_##id,
enum { EMU_SPECIALS(EMU_SPECIAL_ENUM) EMU_SP_COUNT };
#undef EMU_SPECIAL_ENUM
/* "%tid.x" for EMU_SP_TID_X (types.c). */
const char *emu_special_name(int k);

typedef struct emu_var {
  char *name;
  int space, is_extern, line;
  uint64_t size;
  uint32_t align;
  uint64_t addr; /* device address (global/const), shared offset, local offset, param offset */
  uint8_t *init;
} emu_var;

typedef struct emu_module {
  emu_func **funcs;
  int nfuncs;
  emu_var **vars; /* module-level variables */
  int nvars;
  uint32_t shared_module; /* module-level static shared bytes */
  uint32_t extern_shared_align;
  int ptx_major, ptx_minor, sm;
} emu_module;

/* ---- lexer / parser (lex.c, parse.c) ---- */
enum {
  EMU_TOK_EOF,
  EMU_TOK_ID,
  EMU_TOK_INT,
  EMU_TOK_FLOAT,
  EMU_TOK_F32,
  EMU_TOK_F64,
  EMU_TOK_STR,
  EMU_TOK_PUNCT
};
typedef struct emu_tok {
  int kind, line, len;
  const char *s;
  uint64_t i;
  double f;
} emu_tok;
/* Tokenises text; returns a malloc'ed array ending with EMU_TOK_EOF, or NULL with err set. */
emu_tok *emu_lex(const char *text, char *err, size_t errlen);

/* Parses and checks PTX; returns CUDA_SUCCESS or an error with the log in err. */
CUresult emu_parse(const char *text, emu_module **out, char *err, size_t errlen);
void emu_module_free(emu_module *m);

/* ---- device memory (mem.c) ---- */
uint64_t emu_mem_used(void); /* bytes allocated */
CUresult emu_mem_alloc(uint64_t size, uint64_t *dev);
CUresult emu_mem_free(uint64_t dev);
/* host pointer for [dev, dev+size) when it lies in one allocation, else NULL */
void *emu_mem_host(uint64_t dev, uint64_t size);
CUresult emu_mem_alloc_owned(uint64_t size, uint64_t *dev, const void *owner);
/* frees every allocation made with this owner (a context) */
void emu_mem_free_owner(const void *owner);
int emu_mem_owned_by(uint64_t dev, const void *owner);

/* ---- the L2 traffic model (l2.c) ---- */
typedef struct emu_l2 emu_l2;
enum { EMU_L2_READ = 1, EMU_L2_WRITE = 2 };
emu_l2 *emu_l2_new(uint64_t bytes);
void emu_l2_free(emu_l2 *l2);
/* One access to a 32-byte sector: EMU_L2_READ, EMU_L2_WRITE or both (an atomic). */
void emu_l2_access(emu_l2 *l2, uint64_t sector, int kind);
/* DRAM bytes so far: sectors read on misses, dirty sectors written back (evicted or not yet). */
uint64_t emu_l2_dram_bytes(const emu_l2 *l2);

/* ---- statistics (stats.c) ---- */
#define EMU_SECTOR_SET_MIN 1024
typedef struct emu_stats {
  uint64_t instructions, by_class[EMU_CLS_N];
  uint64_t gld_req, gst_req, gld_bytes, gst_bytes, gsectors;
  uint64_t sh_loads, sh_stores, bank_conflicts, barriers, atomics;
  /* the block that ran the most instructions (summed over its threads), and its barriers: a
   * launch takes at least that block's time, however many multiprocessors it has */
  uint64_t busiest_block_instructions, busiest_block_barriers;
  /* each block's instructions, when the counters are written: how evenly a launch's work is
   * spread (a tiled launch's partial tiles against its full ones) */
  uint64_t *block_instructions;
  size_t nblocks, blocks_cap;
  uint64_t *set; /* open-addressing set of sector numbers + 1 */
  size_t set_cap, set_n;
  emu_l2 *l2;                                  /* the L2 model, when the counters are written */
  uint32_t wave_blocks;                        /* blocks resident together */
  uint32_t shared_bytes, dynamic_shared_bytes; /* a block's shared memory; of it, the launch's */
  uint64_t *by_insn; /* JIT_EMU_PROFILE: threads that ran each instruction of the kernel */
} emu_stats;
/* model: also run the L2 model (it costs time: only when the counters are wanted) */
void emu_stats_init(emu_stats *st, int model);
void emu_stats_free(emu_stats *st);
/* A block has finished, after running instructions (summed over its threads) and barriers. */
void emu_stats_block(emu_stats *st, uint64_t instructions, uint64_t barriers);
/* One warp request's distinct sectors, in order: counted, and through the L2 model. */
void emu_stats_sectors(emu_stats *st, const uint64_t *sectors, int n, int kind);
void emu_stats_write(emu_stats *st, const char *path, const char *kernel, const unsigned grid[3],
                     const unsigned block[3]);
/* The launch's instructions by PTX line (st->by_insn), one JSON object appended to path. */
void emu_stats_write_profile(const emu_stats *st, const char *path, const emu_func *f);

/* ---- shared-memory race detector (race.c) ---- */
typedef struct emu_race_cell {
  int32_t wtid, rtid; /* rtid -2: several readers */
  uint32_t wep, rep;
  int32_t wline;
  int32_t rline;
} emu_race_cell;
typedef struct emu_race {
  emu_race_cell *cells;
  size_t n;
  uint32_t epoch;
} emu_race;
void emu_race_reset(emu_race *r, size_t bytes);
void emu_race_barrier(emu_race *r);
/* returns 0 or a kind (1 RAW, 2 WAR, 3 WAW) with the other thread and its line */
int emu_race_access(emu_race *r, uint32_t off, uint32_t size, int tid, int line, int is_write,
                    int *other, int *other_line);
void emu_race_free(emu_race *r);

/* ---- execution (exec.c) ---- */
typedef struct emu_launch {
  emu_func *fn;
  unsigned grid[3], block[3];
  uint32_t dyn_shared;
  uint8_t *params;
  emu_stats *st;
  char msg[1024];
} emu_launch;
CUresult emu_execute(emu_launch *L);

#endif
