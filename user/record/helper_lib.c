/* Where scope-bpf's helper libraries are: beside the binary, or where make install put them. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record/helper_lib.h"

int sb_helper_lib_find(const char *exe, const char *name, const char *opt, const char *why,
		       char *out, size_t len, struct sb_error *err)
{
	char copy[PATH_MAX], *dir;

	snprintf(copy, sizeof(copy), "%s", exe);
	dir = dirname(copy);
	snprintf(out, len, "%s/%s", dir, name);
	if (!access(out, R_OK))
		return 0;
	snprintf(out, len, "%s/../lib/scope-bpf/%s", dir, name);
	if (!access(out, R_OK))
		return 0;
	return sb_fail(err, ENOENT, "%s: %s is neither in %s nor in %s/../lib/scope-bpf: %s", opt,
		       name, dir, dir, why);
}

int sb_helper_lib_locate(const char *name, const char *opt, const char *why, char *out,
			 size_t len, struct sb_error *err)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		return sb_fail(err, errno, "%s: cannot find this program: %s", opt, strerror(errno));
	exe[n] = 0;
	return sb_helper_lib_find(exe, name, opt, why, out, len, err);
}
