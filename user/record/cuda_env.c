/* Where the CUPTI injection library is, and the variable that has the CUDA driver load it. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/cuda_env.h"
#include "record/helper_lib.h"

#define WHY "it is built only where the CUDA toolkit's CUPTI is (docs/CUDA.md)"

int sb_cuda_find_library(const char *exe, char *out, size_t len, struct sb_error *err)
{
	return sb_helper_lib_find(exe, SB_CUPTI_LIB, "--cuda", WHY, out, len, err);
}

int sb_cuda_env_setup(struct sb_error *err)
{
	char lib[PATH_MAX + 64];
	const char *old = getenv("CUDA_INJECTION64_PATH");
	int ret = sb_helper_lib_locate(SB_CUPTI_LIB, "--cuda", WHY, lib, sizeof(lib), err);

	if (ret)
		return ret;
	if (old && strcmp(old, lib))
		fprintf(stderr, "scope-bpf: --cuda: CUDA_INJECTION64_PATH was %s, now %s\n", old, lib);
	if (setenv("CUDA_INJECTION64_PATH", lib, 1))
		return sb_fail(err, errno, "--cuda: cannot set CUDA_INJECTION64_PATH: %s",
			       strerror(errno));
	return 0;
}
