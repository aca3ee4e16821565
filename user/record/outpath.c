/* record's -o: %h, %p, %r and %% expanded, so one recorder per node can name its own file. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/outpath.h"
#include "record/sources/mpi_ranks.h"

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

bool sb_outpath_wants(const char *tmpl, char field)
{
	const char *s;

	for (s = tmpl; *s; s++) {
		if (*s != '%' || !s[1])
			continue;
		if (s[1] == field)
			return true;
		s++;
	}
	return false;
}

int64_t sb_outpath_rank_of(pid_t pid)
{
	struct sb_mpi_claim c;

	return sb_mpi_claim_of(pid, &c) == 1 ? (int64_t)c.rank : -1;
}
