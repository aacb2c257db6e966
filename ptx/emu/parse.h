/* The parser's state and the helpers its files share: parse.c (modules, functions,
 * declarations), insn.c (instructions and their operands), pstate.c (tokens, errors, names,
 * slots). */
#ifndef EMU_PARSE_H
#define EMU_PARSE_H

#include "internal.h"

/* Operand slots before the function's layout is known: registers as they are, specials,
 * constants and the sink tagged, remapped when the function ends. */
#define TAG_SPECIAL 0x40000000u
#define TAG_CONST 0x80000000u
#define TAG_SINK 0xC0000000u
#define TAG_MASK 0xC0000000u

typedef struct {
  char *name;
  int type, depth;
  uint32_t base, count; /* count 0: a single register */
} regdecl;

typedef struct {
  char *name;
  int pc, line;
} label;

typedef struct {
  int insn, line;
  char *name;
} labelref;

typedef struct {
  int insn;   /* instruction index; -1: constant */
  uint32_t k; /* constant index for a constant fix-up */
  emu_var *var;
  int64_t add;
} fixup;

enum { O_NONE, O_REG, O_SPECIAL, O_INT, O_FLT, O_F32, O_F64, O_VAR, O_NAME, O_ADDR, O_VEC, O_SINK };
typedef struct {
  int kind, neg, pipe, type;
  uint32_t slot;
  uint64_t i;
  double f;
  emu_var *var;
  const emu_tok *tok;
  /* address */
  int has_base;
  int64_t off;
  int n;
  uint32_t vslot[4];
  int vtype[4], vsink[4];
} opnd;

typedef struct {
  const char *s[16];
  int len[16], used[16], n;
} mods;

typedef struct {
  emu_tok *t;
  int i;
  char *err;
  size_t errlen, errused;
  int nerr;
  emu_module *m;
  /* current function */
  emu_func *f;
  int depth;
  regdecl *regs;
  int nregs, capregs;
  uint32_t nslots;
  int *slot_types;
  emu_var **fvars;
  int nfvars, capfvars;
  label *labels;
  int nlabels, caplabels;
  labelref *lrefs;
  int nlrefs, caplrefs;
  fixup *fix;
  int nfix, capfix;
  uint64_t *consts;
  int nconsts, capconsts;
  emu_insn *code;
  int ncode, capcode;
  uint32_t fshared; /* function-level static shared bytes */
  uint32_t flocal;
  const char *opname; /* current instruction's opcode name */
  int line;
} P;

#define GROW(arr, n, cap)                                                                          \
  do {                                                                                             \
    if ((n) >= (cap)) {                                                                            \
      (cap) = (cap) ? 2 * (cap) : 16;                                                              \
      void *np_ = realloc((arr), (size_t)(cap) * sizeof *(arr));                                   \
      if (!np_) abort();                                                                           \
      (arr) = np_;                                                                                 \
    }                                                                                              \
  } while (0)

void emu_perr(P *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
emu_tok *emu_cur(P *p);
int emu_is(const emu_tok *t, const char *s);
int emu_accept(P *p, const char *s);
int emu_expect(P *p, const char *s);
char *emu_tokdup(const emu_tok *t);
/* Skips to the end of the current statement (after ';'), for error recovery. */
void emu_skip_stmt(P *p);
/* ".f32" -> EMU_T_F32; EMU_T_NONE when the token names no type. */
int emu_type_parse(const char *s, int len);
int emu_tok_type(const emu_tok *t);
/* n new register slots of one type; the first one's number. */
uint32_t emu_new_slots(P *p, uint32_t n, int type);
/* The innermost declaration of register s ("%r12" in "%r<20>"), with its slot. */
regdecl *emu_find_reg(P *p, const char *s, int len, uint32_t *slot);
emu_var *emu_find_var(P *p, const char *s, int len);
/* The slot of constant v (tagged). */
uint32_t emu_const_slot(P *p, uint64_t v);
/* A constant slot whose value is a variable's address (plus add), filled at function end. */
uint32_t emu_var_slot(P *p, emu_var *v, int64_t add);

/* One instruction, at the current token (insn.c). */
void emu_parse_instruction(P *p);

#endif
