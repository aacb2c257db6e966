/* Switches read from the environment. */
#ifndef SJ_ENV_H
#define SJ_ENV_H

/* Whether the variable is set to something other than "" and "0" (JIT_DEBUG=1, =yes, =on). */
int sj_env_flag(const char *name);

#endif
