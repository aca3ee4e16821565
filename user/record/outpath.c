/* record's -o: %h, %p, %r and %% expanded, so one recorder per node can name its own file. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/outpath.h"

static void put_field(FILE *f, char c, const char *host, pid_t pid, int64_t rank)
{
	switch (c) {
	case 'h':
		fprintf(f, "%.*s", (int)strcspn(host, "."), host);
		break;
	case 'p':
		fprintf(f, "%d", (int)pid);
		break;
	case 'r':
		if (rank >= 0)
			fprintf(f, "%" PRId64, rank);
		else
			fputc('x', f);
		break;
	default:
		fputc('%', f);
	}
}

int sb_outpath_expand(const char *tmpl, const char *host, pid_t pid, int64_t rank, char **out,
		      struct sb_error *err)
{
	size_t len = 0;
	const char *s;
	FILE *f;

	*out = NULL;
	for (s = tmpl; *s; s++) {
		if (*s != '%')
			continue;
		if (!*++s || !strchr("hpr%", *s))
			return sb_fail(err, EINVAL, "-o %s: unknown '%%%.1s' (only %%h, %%p, %%r "
				       "and %%%% are expanded)", tmpl, s);
	}
	f = open_memstream(out, &len);
	if (!f)
		return -ENOMEM;
	for (s = tmpl; *s; s++) {
		if (*s != '%')
			fputc(*s, f);
		else
			put_field(f, *++s, host, pid, rank);
	}
	if (fclose(f)) {
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The decimal value of name in the NUL-separated environment env[0..n), or -1. */
static int64_t env_number(const char *env, size_t n, const char *name)
{
	size_t k = strlen(name), i;
	char *end;
	long long v;

	for (i = 0; i < n; i += strnlen(env + i, n - i) + 1) {
		if (n - i <= k || strncmp(env + i, name, k) || env[i + k] != '=')
			continue;
		errno = 0;
		v = strtoll(env + i + k + 1, &end, 10);
		/* The whole value, up to its NUL (the block ends in one). */
		if (!errno && end != env + i + k + 1 && !*end && v >= 0)
			return v;
	}
	return -1;
}

int64_t sb_outpath_rank_of(pid_t pid)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
					    "SLURM_PROCID" };
	char path[64], buf[65536];
	int64_t rank = -1;
	size_t i, len = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* A large environment is read as far as the buffer goes: the rank comes early. */
	while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = 0;
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]) && rank < 0; i++)
		rank = env_number(buf, len, vars[i]);
	return rank;
}
