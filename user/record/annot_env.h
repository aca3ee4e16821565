/*
 * record --annotations: the launched command loads scope-bpf's NVTX, Kokkos
 * Tools and ITT libraries through the variables those APIs read, so the
 * ranges it is already annotated with become regions (docs/ANNOTATIONS.md).
 */
#ifndef SB_ANNOT_ENV_H
#define SB_ANNOT_ENV_H

#include <stdbool.h>

#include "util/error.h"

enum {
	SB_ANNOT_NVTX = 1 << 0,
	SB_ANNOT_KOKKOS = 1 << 1,
	SB_ANNOT_ITT = 1 << 2,
	SB_ANNOT_ALL = SB_ANNOT_NVTX | SB_ANNOT_KOKKOS | SB_ANNOT_ITT,
};

/*
 * --annotations=LIST: comma-separated nvtx, kokkos, itt, or "all" or "none"
 * alone. 0 with the set in *mask, or -EINVAL naming the word.
 */
int sb_annot_parse(const char *list, unsigned *mask, struct sb_error *err);

/*
 * Point each chosen API's variable at scope-bpf's library, in this process's
 * environment, which the command inherits. given: the user chose them
 * (--annotations): a library not built is an error and a value already set
 * is replaced, and said. Otherwise (the default) a library not built is left
 * out and a value already set is kept, and said: it names another tool.
 */
int sb_annot_env_setup(unsigned mask, bool given, struct sb_error *err);

#endif
