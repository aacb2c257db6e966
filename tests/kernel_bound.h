/* The kernel driver's check of reassociated results (kernel_driver --reassociate): a kernel
 * file's `// reassociate: terms=EXPR [expect=parallel]` line says that each floating output
 * element is a sum (or min, max) of at most EXPR terms, the element's value before the call
 * included (EXPR: sums of products of integers and int parameters, N*M+1), all of them sums and
 * products of the inputs (no subtraction, so that the same function on the inputs' absolute values
 * gives sum |x_i|); expect=parallel: on a GPU the schedule must run a reduction in parallel.
 *
 * The bound: the C order and any other order of a sum of n terms each differ from the exact
 * sum by at most (n-1) * eps * sum |x_i| (every partial sum is at most sum |x_i| and is
 * rounded once, with a relative error of at most eps = 2^-24 for float, 2^-53 for double), so
 * the two differ by at most 2 (n-1) eps sum |x_i|; a float atomic add also flushes subnormal
 * partials to zero, at most FLT_MIN per term. min and max are exact in any order. */
#ifndef SJ_KERNEL_BOUND_H
#define SJ_KERNEL_BOUND_H

#include <stddef.h>

#include <stenciljit.h>

typedef struct kb_spec {
  char terms[128]; /* "" when the file has no line */
  int expect_parallel;
} kb_spec;

/* Reads the line (the text after `// reassociate:`); 0, or -1 when it is malformed. */
int kb_parse(const char *line, kb_spec *out);
/* The value of spec->terms with value(name) for the parameters; -1 when a name is unknown. */
long kb_terms(const kb_spec *spec, long (*value)(const char *name, void *user), void *user);
/* Compares n elements of kind k (float or double): |got - want| <= bound per element with
 * abs_want the function's result on the absolute values. Prints the first violation with
 * what; returns the number of elements over the bound. */
size_t kb_compare(const char *what, jit_arg_kind k, const void *want, const void *got,
                  const void *abs_want, size_t n, long terms);

#endif
