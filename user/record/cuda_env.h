/* record --cuda: the CUDA driver of the launched command loads scope-bpf's CUPTI library. */
#ifndef SB_CUDA_ENV_H
#define SB_CUDA_ENV_H

#include <stddef.h>

#include "util/error.h"

#define SB_CUPTI_LIB "libscope_bpf_cupti.so"

/*
 * The library where scope-bpf was built or installed: beside the binary
 * running as exe (the build tree), else in ../lib/scope-bpf/ from it (make
 * install). 0 with its path in out, or -ENOENT naming where it was looked for.
 */
int sb_cuda_find_library(const char *exe, char *out, size_t len, struct sb_error *err);

/*
 * Point CUDA_INJECTION64_PATH at the library in this process's environment,
 * which the command inherits (and its children: mpiexec's ranks). Says so
 * when it replaces another value. 0 or -errno with the cause in err.
 */
int sb_cuda_env_setup(struct sb_error *err);

#endif
