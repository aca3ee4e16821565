/*
 * record's -o: %h, %p, %r, %n and %% expanded in one pass, so one recorder per
 * node, rank or --rotate interval names its own file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/outpath.h"
#include "record/sources/mpi_ranks.h"

static void put_field(FILE *f, char c, const struct sb_outpath_fields *v)
{
	switch (c) {
	case 'h':
		fprintf(f, "%.*s", (int)strcspn(v->host, "."), v->host);
		break;
	case 'p':
		fprintf(f, "%d", (int)v->pid);
		break;
	case 'r':
		if (v->ranks)
			fputs(v->ranks, f);
		else if (v->rank >= 0)
			fprintf(f, "%" PRId64, v->rank);
		else
			fputc('x', f);
		break;
	case 'n':
		fprintf(f, "%" PRId64, v->index);
		break;
	default:
		fputc('%', f);
	}
}

int sb_outpath_expand(const char *tmpl, const struct sb_outpath_fields *v, char **out,
		      struct sb_error *err)
{
	const char *known = v->index >= 0 ? "hprn%" : "hpr%";
	size_t len = 0;
	const char *s;
	FILE *f;

	*out = NULL;
	for (s = tmpl; *s; s++) {
		if (*s != '%')
			continue;
		if (!*++s || !strchr(known, *s))
			return sb_fail(err, EINVAL, "-o %s: unknown '%%%.1s' (only %%h, %%p, %%r "
				       "and %%%% are expanded, and %%n with --rotate)", tmpl, s);
	}
	f = open_memstream(out, &len);
	if (!f)
		return -ENOMEM;
	for (s = tmpl; *s; s++) {
		if (*s != '%')
			fputc(*s, f);
		else
			put_field(f, *++s, v);
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
