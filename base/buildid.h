/* Which build of the library is running, for keys of things it produced that outlive the
 * process (the on-disk cache): two builds from different code never share an identity. */
#ifndef SJ_BUILDID_H
#define SJ_BUILDID_H

/* The GNU build-id of the object this code is linked into (libstenciljit.so, or the program
 * linking the static library), as hex; when the object has none, its path, size and
 * modification time; NULL when neither can be found (then nothing may be reused across
 * processes). Computed once. */
const char *sj_build_id(void);

#endif
