/*
 * record --rotate: which file comes next and which one goes. The recorder
 * (record/recorder.c) closes a file at each interval; a file number that only
 * grows keeps every name distinct, so a deleted file is never one still wanted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/rotate.h"

char *sb_rotate_path(const char *tmpl, uint64_t index)
{
	size_t len = 0;
	const char *s;
	char *out = NULL;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	for (s = tmpl; *s; s++) {
		if (*s != '%' || !s[1]) {
			fputc(*s, f);
		} else if (s[1] == 'n') {
			fprintf(f, "%llu", (unsigned long long)index);
			s++;
		} else {
			fputc('%', f);
			fputc(*++s, f);
		}
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

bool sb_rotate_on(const struct sb_rotation *r)
{
	return r->interval_ns > 0 || r->max_calls;
}

bool sb_rotate_due(const struct sb_rotation *r, int64_t now, uint64_t calls)
{
	return (r->interval_ns > 0 && now - r->start_ns >= r->interval_ns) ||
	       (r->max_calls && calls >= r->max_calls);
}

int64_t sb_rotate_expired(const struct sb_rotation *r)
{
	if (!r->keep || r->index < r->keep)
		return -1;
	return (int64_t)(r->index - r->keep);
}
