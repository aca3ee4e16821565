/* Where the CUPTI injection library is, and the variable that has the CUDA driver load it. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/cuda_env.h"

int sb_cuda_find_library(const char *exe, char *out, size_t len, struct sb_error *err)
{
	char copy[PATH_MAX], *dir;

	snprintf(copy, sizeof(copy), "%s", exe);
	dir = dirname(copy);
	snprintf(out, len, "%s/%s", dir, SB_CUPTI_LIB);
	if (!access(out, R_OK))
		return 0;
	snprintf(out, len, "%s/../lib/scope-bpf/%s", dir, SB_CUPTI_LIB);
	if (!access(out, R_OK))
		return 0;
	return sb_fail(err, ENOENT, "--cuda: %s is neither in %s nor in %s/../lib/scope-bpf: it is "
		       "built only where the CUDA toolkit's CUPTI is (docs/CUDA.md)", SB_CUPTI_LIB,
		       dir, dir);
}

int sb_cuda_env_setup(struct sb_error *err)
{
	char exe[PATH_MAX], lib[PATH_MAX + 64];
	const char *old = getenv("CUDA_INJECTION64_PATH");
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int ret;

	if (n < 0)
		return sb_fail(err, errno, "--cuda: cannot find this program: %s", strerror(errno));
	exe[n] = 0;
	ret = sb_cuda_find_library(exe, lib, sizeof(lib), err);
	if (ret)
		return ret;
	if (old && strcmp(old, lib))
		fprintf(stderr, "scope-bpf: --cuda: CUDA_INJECTION64_PATH was %s, now %s\n", old, lib);
	if (setenv("CUDA_INJECTION64_PATH", lib, 1))
		return sb_fail(err, errno, "--cuda: cannot set CUDA_INJECTION64_PATH: %s",
			       strerror(errno));
	return 0;
}
