/*
 * Where scope-bpf's helper libraries are (the CUPTI library, the annotation
 * libraries): what record puts in a variable for the launched command to load.
 */
#ifndef SB_HELPER_LIB_H
#define SB_HELPER_LIB_H

#include <stddef.h>

#include "util/error.h"

/*
 * The library name where scope-bpf was built or installed: beside the binary
 * running as exe (the build tree), else in ../lib/scope-bpf/ from it (make
 * install). 0 with its path in out, or -ENOENT: err says "OPT: NAME is neither
 * in ... nor in ...: WHY".
 */
int sb_helper_lib_find(const char *exe, const char *name, const char *opt, const char *why,
		       char *out, size_t len, struct sb_error *err);

/* The same from this running program (/proc/self/exe). */
int sb_helper_lib_locate(const char *name, const char *opt, const char *why, char *out,
			 size_t len, struct sb_error *err);

#endif
