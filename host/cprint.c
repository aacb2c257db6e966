/* The C target of the kernel IR: the CPU kernel (one SPMD function every worker runs) or
 * the GPU host function (loops and launches). Registers become C locals; a value used
 * once, in the same block, with nothing between its definition and its use that could
 * change what it reads, is folded into the expression that uses it, so TinyCC sees
 * expressions rather than a local per operation. Every conversion is explicit and every
 * operation parenthesized: TinyCC evaluates exactly what the IR says. */
#include "host/host.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

typedef struct use_site {
  const sj_ir_block *block;
  int index; /* position of the using node in block (block->n: the loop's condition) */
} use_site;

typedef struct cprint {
  const sj_ir_module *mod;
  const sj_ir_func *f;
  sj_buf out;
  int indent;
  int *uses;
  use_site *site;          /* by register: where its only use is */
  const sj_ir_ins **defer; /* by register: folded into its use, not yet printed */
} cprint;

static void line(cprint *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(cprint *p, const char *fmt, ...) {
  va_list ap;
  sj_buf_printf(&p->out, "%*s", 2 * p->indent, "");
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  sj_buf_reserve(&p->out, (size_t)n); /* the whole line: a cut one is wrong C */
  va_start(ap, fmt);
  vsnprintf(p->out.data + p->out.len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  p->out.len += (size_t)n;
  sj_buf_puts(&p->out, "\n");
}

static const char *ctype(sj_ir_type t) {
  static const char *const names[SJ_IR_NTYPES] = {
      "int",         "int",           "long",  "float",          "double",       "void *",
      "signed char", "unsigned char", "short", "unsigned short", "unsigned int", "unsigned long"};
  return names[t];
}

/* The C type of register r: pointers point to their element type (const if never written). */
static void reg_type(cprint *p, int r, char *out, size_t size) {
  const sj_ir_reg *g = &p->f->regs[r];
  if (g->type != SJ_IR_PTR) {
    snprintf(out, size, "%s", ctype(g->type));
    return;
  }
  int ro = 0;
  for (int i = 0; i < p->f->nparams; i++)
    if (p->f->params[i].kind == SJ_PARAM_ARRAY && p->f->params[i].index == g->array)
      ro = p->f->params[i].is_const;
  snprintf(out, size, "%s%s *", ro ? "const " : "", ctype(g->elem));
}

static void reg_name(cprint *p, int r) {
  const sj_ir_reg *g = &p->f->regs[r];
  if (g->name)
    sj_buf_printf(&p->out, "%s_%d", g->name, r);
  else
    sj_buf_printf(&p->out, "r%d", r);
}

static void immediate(cprint *p, sj_ir_val v) {
  sj_buf *b = &p->out;
  if (v.kind == SJ_V_INT && sj_ir_type_is_unsigned(v.type)) {
    sj_buf_printf(b, "%lu%s", (unsigned long)v.i, v.type == SJ_IR_U64 ? "UL" : "U");
    return;
  }
  if (v.kind == SJ_V_INT) {
    const char *suffix = v.type == SJ_IR_S64 ? "L" : "";
    sj_buf_printf(b, v.i < 0 ? "(%ld%s)" : "%ld%s", v.i, suffix);
    return;
  }
  const char *f = v.type == SJ_IR_F32 ? "f" : "";
  if (isnan(v.f))
    sj_buf_printf(b, "(0.0%s / 0.0%s)", f, f);
  else if (isinf(v.f))
    sj_buf_printf(b, "(%s1.0%s / 0.0%s)", v.f < 0 ? "-" : "", f, f);
  else
    sj_buf_printf(b, "(%a%s)", v.f, f); /* hex floats are exact */
}

static void expr(cprint *p, const sj_ir_ins *ins);

static void operand(cprint *p, sj_ir_val v) {
  if (v.kind != SJ_V_REG) {
    immediate(p, v);
    return;
  }
  const sj_ir_ins *def = p->defer[v.reg];
  if (def) {
    p->defer[v.reg] = NULL;
    expr(p, def);
    return;
  }
  reg_name(p, v.reg);
}

static const char *math_name(sj_ir_op op, sj_ir_type t) {
  int f = t == SJ_IR_F32;
  switch (op) {
  case SJ_IR_MIN:
    return f ? "fminf" : "fmin";
  case SJ_IR_MAX:
    return f ? "fmaxf" : "fmax";
  case SJ_IR_ABS:
    return f ? "fabsf" : "fabs";
  case SJ_IR_SQRT:
    return f ? "sqrtf" : "sqrt";
  default:
    return f ? "fmaf" : "fma";
  }
}

/* Infix operators by op; NULL where a call or a special form is printed. */
static const char *const infix[SJ_IR_NOPS] = {
    [SJ_IR_ADD] = " + ",  [SJ_IR_SUB] = " - ",  [SJ_IR_MUL] = " * ",  [SJ_IR_DIV] = " / ",
    [SJ_IR_REM] = " % ",  [SJ_IR_AND] = " && ", [SJ_IR_OR] = " || ",  [SJ_IR_PTRADD] = " + ",
    [SJ_IR_SHL] = " << ", [SJ_IR_SHR] = " >> ", [SJ_IR_BAND] = " & ", [SJ_IR_BOR] = " | ",
    [SJ_IR_XOR] = " ^ "};

static const char *const compare[] = {" == ", " != ", " < ", " <= ", " > ", " >= "};

static const char *const special_name[] = {
    "?", "?", "?", "?", "?", "?", "(long)__sj_tid", "(long)__sj_nth"};

/* The value ins computes, as a C expression. */
static void expr(cprint *p, const sj_ir_ins *ins) {
  sj_buf *b = &p->out;
  switch (ins->op) {
  case SJ_IR_MOV:
    operand(p, ins->a);
    return;
  case SJ_IR_NEG:
  case SJ_IR_NOT:
    sj_buf_puts(b, ins->op == SJ_IR_NEG ? "(-" : "(!");
    operand(p, ins->a);
    sj_buf_puts(b, ")");
    return;
  case SJ_IR_MIN:
  case SJ_IR_MAX:
  case SJ_IR_ABS:
  case SJ_IR_SQRT:
  case SJ_IR_FMA: {
    int fl = sj_ir_type_is_float(ins->type);
    sj_buf_printf(b, "%s(",
                  fl                     ? math_name(ins->op, ins->type)
                  : ins->op == SJ_IR_MIN ? "__sj_min"
                                         : "__sj_max");
    operand(p, ins->a);
    const sj_ir_val *rest[] = {&ins->b, &ins->c};
    for (int i = 0; i < 2; i++)
      if (rest[i]->kind != SJ_V_NONE) {
        sj_buf_puts(b, ", ");
        operand(p, *rest[i]);
      }
    sj_buf_puts(b, ")");
    return;
  }
  case SJ_IR_MATH: /* the C library's: what the user's compiled function calls */
    sj_buf_printf(b, "%s(", sj_ir_math_name(ins->imm, ins->type));
    operand(p, ins->a);
    if (ins->b.kind != SJ_V_NONE) {
      sj_buf_puts(b, ", ");
      operand(p, ins->b);
    }
    sj_buf_puts(b, ")");
    return;
  case SJ_IR_FDIV:
    sj_buf_puts(b, "__sj_floord(");
    operand(p, ins->a);
    sj_buf_puts(b, ", ");
    operand(p, ins->b);
    sj_buf_puts(b, ")");
    return;
  case SJ_IR_CVT:
    sj_buf_printf(b, "((%s)", ctype(ins->type));
    operand(p, ins->a);
    sj_buf_puts(b, ")");
    return;
  case SJ_IR_SETP: /* of the first operand's type, as PTX's setp: C would compare an int and
                     an unsigned int, or an expression promoted, by its own rules */
    sj_buf_printf(b, "((%s)", ctype(ins->a.type));
    operand(p, ins->a);
    sj_buf_printf(b, "%s(%s)", compare[ins->cmp], ctype(ins->a.type));
    operand(p, ins->b);
    sj_buf_puts(b, ")");
    return;
  case SJ_IR_SELP:
    sj_buf_puts(b, "(");
    operand(p, ins->c);
    sj_buf_puts(b, " ? ");
    operand(p, ins->a);
    sj_buf_puts(b, " : ");
    operand(p, ins->b);
    sj_buf_puts(b, ")");
    return;
  case SJ_IR_ARRAY:
    sj_buf_printf(b, "__sj_arrays[%d]", p->f->params[ins->imm].index);
    return;
  case SJ_IR_PARAM:
    sj_buf_printf(b, "((%s)__sj_scalars[%d])", ctype(ins->type), p->f->params[ins->imm].index);
    return;
  case SJ_IR_SPECIAL:
    sj_buf_puts(b, special_name[ins->imm]);
    return;
  case SJ_IR_LD:
    operand(p, ins->a);
    sj_buf_printf(b, "[%ld]", ins->imm);
    return;
  default:
    break;
  }
  if (!infix[ins->op]) {
    sj_buf_puts(b, "/* unprintable */0");
    return;
  }
  sj_buf_puts(b, "(");
  operand(p, ins->a);
  sj_buf_puts(b, infix[ins->op]);
  operand(p, ins->b);
  sj_buf_puts(b, ")");
}

/* --- folding single uses --- */

static void note_use(cprint *p, sj_ir_val v, const sj_ir_block *block, int index) {
  if (v.kind == SJ_V_REG) p->site[v.reg] = (use_site){block, index};
}

typedef struct site_scan {
  cprint *p;
  const sj_ir_block *block;
  int index;
} site_scan;

static void note_reg(int *reg, void *user) {
  site_scan *s = user;
  s->p->site[*reg] = (use_site){s->block, s->index};
}

static void find_sites(cprint *p, const sj_ir_block *b) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    site_scan s = {p, b, i};
    if (n->kind == SJ_IR_INS) {
      sj_ir_foreach_use(&n->ins, note_reg, &s);
      continue;
    }
    note_use(p, n->init, b, i);
    note_use(p, n->step, b, i);
    if (n->kind == SJ_IR_IF)
      note_use(p, n->cond, b, i);
    else
      note_use(p, n->cond, &n->head, n->head.n);
    const sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
    for (int k = 0; k < 5; k++) find_sites(p, blocks[k]);
  }
}

/* Whether node n changes memory or a variable, or holds code that might. */
static int has_effect(const cprint *p, const sj_ir_node *n) {
  if (n->kind != SJ_IR_INS) return 1;
  const sj_ir_ins *ins = &n->ins;
  if (ins->op == SJ_IR_MOV) return p->f->regs[ins->dst].is_var;
  return ins->op == SJ_IR_ST || ins->op == SJ_IR_BARRIER || ins->op == SJ_IR_TRAP ||
         ins->op == SJ_IR_LAUNCH || ins->op == SJ_IR_ATOM;
}

static int foldable(const cprint *p, const sj_ir_block *b, int i) {
  const sj_ir_ins *ins = &b->v[i]->ins;
  if (!ins->dst || p->f->regs[ins->dst].is_var || p->uses[ins->dst] != 1 || ins->guard) return 0;
  if (ins->op == SJ_IR_ARRAY || ins->op == SJ_IR_PARAM) return 0; /* named once, up front */
  if (!sj_ir_is_pure(ins) && ins->op != SJ_IR_LD) return 0;
  const use_site *s = &p->site[ins->dst];
  if (s->block != b || s->index <= i) return 0;
  for (int k = i + 1; k < s->index && k < b->n; k++)
    if (has_effect(p, b->v[k])) return 0;
  return 1;
}

/* --- statements --- */

static void block(cprint *p, const sj_ir_block *b);

static void print_ins(cprint *p, const sj_ir_block *b, int i) {
  const sj_ir_ins *ins = &b->v[i]->ins;
  sj_buf *o = &p->out;
  if (ins->dst && ins->op != SJ_IR_MOV && foldable(p, b, i)) {
    p->defer[ins->dst] = ins;
    return;
  }
  sj_buf_printf(o, "%*s", 2 * p->indent, "");
  if (ins->guard) {
    sj_buf_puts(o, "if (");
    operand(p, sj_ir_reg_val(p->f, ins->guard));
    sj_buf_puts(o, ") ");
  }
  switch (ins->op) {
  case SJ_IR_ST:
    operand(p, ins->a);
    sj_buf_printf(o, "[%ld] = ", ins->imm);
    operand(p, ins->b);
    break;
  case SJ_IR_BARRIER:
    /* the barrier's first member is its wait function (host.h): no symbol to resolve, so
     * TinyCC's code and a shared object of the system compiler call it alike */
    sj_buf_puts(o, "if (__sj_nth > 1) (*(void (**)(void *))__sj_bar)(__sj_bar)");
    break;
  case SJ_IR_TRAP:
    sj_buf_puts(o, "if (");
    operand(p, ins->a);
    sj_buf_printf(o, " && !*__sj_err) *__sj_err = %ld", ins->imm); /* the first check reports */
    break;
  case SJ_IR_SHFL: /* only GPU kernels have warps (astgen/lower_reduce.c) */
  case SJ_IR_ATOM:
    sj_buf_puts(o, "\n#error \"a warp operation in C code\"\n");
    break;
  case SJ_IR_LAUNCH:
    sj_buf_puts(o, "{ const long __sj_h[] = {0");
    for (int k = 0; k < ins->nargs; k++) {
      sj_buf_puts(o, ", ");
      operand(p, ins->args[k]);
    }
    sj_buf_printf(o, "}; if (__sj_launch(__sj_rt, %ld, __sj_h + 1)) return 1; }", ins->imm - 1);
    break;
  default:
    if (p->f->regs[ins->dst].is_var) {
      reg_name(p, ins->dst);
    } else {
      /* array bases are restrict: distinct arrays never overlap (the API refuses it) */
      char type[64];
      reg_type(p, ins->dst, type, sizeof type);
      if (p->f->regs[ins->dst].type == SJ_IR_PTR)
        sj_buf_printf(o, "%s%s", type, ins->op == SJ_IR_ARRAY ? "restrict " : "");
      else
        sj_buf_printf(o, "const %s ", type);
      reg_name(p, ins->dst);
    }
    sj_buf_puts(o, " = ");
    expr(p, ins);
  }
  sj_buf_puts(o, ";\n");
}

static void node(cprint *p, const sj_ir_block *b, int i) {
  const sj_ir_node *n = b->v[i];
  sj_buf *o = &p->out;
  if (n->kind == SJ_IR_INS) {
    print_ins(p, b, i);
    return;
  }
  if (n->kind == SJ_IR_IF) {
    sj_buf_printf(o, "%*sif (", 2 * p->indent, "");
    operand(p, n->cond);
    sj_buf_puts(o, ") {\n");
    p->indent++;
    block(p, &n->then);
    p->indent--;
    if (n->other.n) {
      line(p, "} else {");
      p->indent++;
      block(p, &n->other);
      p->indent--;
    }
    line(p, "}");
    return;
  }
  int inline_head = 1;
  for (int k = 0; k < n->head.n; k++)
    if (n->head.v[k]->kind != SJ_IR_INS || !foldable(p, &n->head, k)) inline_head = 0;
  sj_buf_printf(o, "%*sfor (r%d = ", 2 * p->indent, "", n->iter);
  operand(p, n->init);
  sj_buf_puts(o, "; ");
  if (inline_head) {
    for (int k = 0; k < n->head.n; k++) p->defer[n->head.v[k]->ins.dst] = &n->head.v[k]->ins;
    operand(p, n->cond);
  }
  sj_buf_printf(o, "; r%d += ", n->iter);
  operand(p, n->step);
  sj_buf_puts(o, ") {\n");
  p->indent++;
  if (!inline_head) {
    block(p, &n->head);
    sj_buf_printf(o, "%*sif (!", 2 * p->indent, "");
    operand(p, n->cond);
    sj_buf_puts(o, ") break;\n");
  }
  block(p, &n->body);
  block(p, &n->latch);
  p->indent--;
  line(p, "}");
}

static void block(cprint *p, const sj_ir_block *b) {
  for (int i = 0; i < b->n; i++) node(p, b, i);
}

/* Variables are declared up front: they are assigned in more than one place (and loop
 * iterators may be read after their loop: a remainder loop starts where another ended). */
static void declare_vars(cprint *p) {
  for (int r = 1; r < p->f->nregs; r++) {
    const sj_ir_reg *g = &p->f->regs[r];
    if (!g->is_var) continue;
    char type[64];
    reg_type(p, r, type, sizeof type);
    sj_buf_printf(&p->out, "%*s%s", 2 * p->indent, "", type);
    if (g->type != SJ_IR_PTR) sj_buf_puts(&p->out, " ");
    reg_name(p, r);
    sj_buf_puts(&p->out, ";\n");
  }
}

static void function(cprint *p, const sj_ir_func *f) {
  p->f = f;
  p->uses = sj_ir_count_uses(f);
  p->site = calloc((size_t)f->nregs + 1, sizeof *p->site);
  p->defer = calloc((size_t)f->nregs + 1, sizeof *p->defer);
  if (!p->site || !p->defer) abort();
  find_sites(p, &f->body);
  if (f->kind == SJ_FUNC_HOST) {
    line(p, "int __sj_host(void *__sj_rt) {");
  } else {
    line(p, "void __sj_kernel(void **__sj_arrays, const double *__sj_scalars, int __sj_tid, "
            "int __sj_nth, void *__sj_bar, int *__sj_err) {");
  }
  p->indent++;
  if (f->kind != SJ_FUNC_HOST)
    line(p, "(void)__sj_arrays; (void)__sj_scalars; (void)__sj_bar; (void)__sj_err;");
  declare_vars(p);
  block(p, &f->body);
  if (f->kind == SJ_FUNC_HOST) line(p, "return 0;");
  p->indent--;
  line(p, "}");
  free(p->uses);
  free(p->site);
  free(p->defer);
}

char *sj_print_c(const sj_ir_module *mod) {
  cprint p;
  memset(&p, 0, sizeof p);
  p.mod = mod;
  const sj_ir_func *f = mod->funcs[0];
  if (f->kind == SJ_FUNC_HOST) {
    line(&p, "/* generated by stenciljit: the host loop of '%s' */", mod->source_fn);
    line(&p, "int __sj_launch(void *, int, const long *);");
  } else {
    line(&p, "/* generated by stenciljit from '%s' */", mod->source_fn);
    line(&p, "double sqrt(double); float sqrtf(float); double fabs(double); float fabsf(float);");
    line(&p, "double fmin(double, double); float fminf(float, float);");
    line(&p, "double fmax(double, double); float fmaxf(float, float);");
    line(&p, "double fma(double, double, double); float fmaf(float, float, float);");
    for (int m = 0; m < SJ_MATH_N; m++) {
      const char *d = sj_ir_math_name(m, SJ_IR_F64), *f = sj_ir_math_name(m, SJ_IR_F32);
      if (sj_ir_math_nargs(m) == 2)
        line(&p, "double %s(double, double); float %s(float, float);", d, f);
      else
        line(&p, "double %s(double); float %s(float);", d, f);
    }
  }
  line(&p, "static long __sj_min(long a, long b) { return a < b ? a : b; }");
  line(&p, "static long __sj_max(long a, long b) { return a > b ? a : b; }");
  line(&p,
       "static long __sj_floord(long a, long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }");
  function(&p, f);
  return sj_buf_take(&p.out);
}
