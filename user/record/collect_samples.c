/*
 * Timed CPU samples to region calls by time (issue 25): a sample belongs to
 * the innermost call open on its thread at its timestamp, whichever transport
 * brought the call (the fast path's rings or the kernel's ring), as a GPU
 * launch does (collect_gpu.c). While sampling, each kept call's thread, span
 * and path hash are appended to a log: a buffer, then a private temporary
 * file, never sorted (the collector's loop reads the kernel's ring between
 * calls, so a call costs it a copy). At the end one pass over the log looks
 * each span up in the samples sorted by thread and time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>

#include "io/tmpfile.h"
#include "record/collect.h"
#include "region.h"

struct span {
	uint64_t thread;
	int64_t start;
	int64_t end;
	int64_t call_id;
	uint64_t path;
};

struct sb_span_log {
	const char *dir;
	struct span *buf;
	size_t n, cap;
	FILE *file;		/* NULL until the buffer first fills */
	int error;		/* the first write error; spans since are refused */
};

int sb_collector_keep_call_paths(struct sb_collector *c, const char *dir, size_t mem)
{
	struct sb_span_log *l = calloc(1, sizeof(*l));

	c->call_paths_dir = strdup(dir);
	c->call_paths_mem = mem;
	if (l) {
		l->dir = c->call_paths_dir;
		l->cap = mem / sizeof(struct span) ? mem / sizeof(struct span) : 1;
		l->buf = malloc(l->cap * sizeof(*l->buf));
	}
	if (!l || !l->buf || !c->call_paths_dir) {
		free(l ? l->buf : NULL);
		free(l);
		return -ENOMEM;
	}
	c->call_paths = l;
	return 0;
}

/* The buffer to the file; -errno, and the log refuses spans from then on. */
static int flush_spans(struct sb_span_log *l)
{
	int fd;

	if (!l->file) {
		fd = sb_tmpfile_anon(l->dir);
		l->file = fd >= 0 ? fdopen(fd, "w+") : NULL;
		if (!l->file) {
			l->error = fd < 0 ? fd : -errno;
			if (fd >= 0)
				close(fd);
			return l->error;
		}
	}
	if (fwrite(l->buf, sizeof(*l->buf), l->n, l->file) != l->n)
		l->error = -EIO;
	l->n = 0;
	return l->error;
}

int sb_collector_log_span(struct sb_collector *c, uint32_t thread, const struct sb_call_event *e)
{
	struct sb_span_log *l = c->call_paths;

	if (!l)
		return 0;
	if (l->error || (l->n == l->cap && flush_spans(l)))
		return -EIO;
	l->buf[l->n++] = (struct span){ .thread = thread, .start = (int64_t)e->start,
					.end = (int64_t)e->end, .call_id = e->call_id,
					.path = e->path_hash };
	return 0;
}

void sb_collector_free_call_paths(struct sb_collector *c)
{
	struct sb_span_log *l = c->call_paths;

	if (l) {
		if (l->file)
			fclose(l->file);
		free(l->buf);
		free(l);
	}
	free(c->call_paths_dir);
	c->call_paths = NULL;
	c->call_paths_dir = NULL;
}

static int place_cmp(const void *a, const void *b)
{
	const struct sb_sample_place *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->time > y->time) - (x->time < y->time);
}

/* The first sample at or after (thread, time). */
static size_t first_at(const struct sb_sample_place *s, size_t n, uint64_t thread, int64_t time)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s[mid].thread < thread || (s[mid].thread == thread && s[mid].time < time))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A call holds the samples of its thread within its span: each keeps the innermost. */
static void claim(struct sb_sample_place *s, size_t n, const struct span *call)
{
	size_t k = first_at(s, n, call->thread, call->start);
	struct sb_sample_place *x;

	for (; k < n && s[k].thread == call->thread && s[k].time <= call->end; k++) {
		x = &s[k];
		/* Equal starts: the later call id is the one entered inside the other. */
		if (x->owner_id >= 0 && (call->start < x->owner_start ||
					 (call->start == x->owner_start && call->call_id < x->owner_id)))
			continue;
		x->path = call->path;
		x->owner_start = call->start;
		x->owner_id = call->call_id;
	}
}

static void claim_all(struct sb_sample_place *s, size_t n, const struct span *v, size_t nv)
{
	size_t i;

	for (i = 0; i < nv; i++)
		claim(s, n, &v[i]);
}

/* Each span logged: those in the file a buffer at a time, or those in the buffer. */
static int read_spans(struct sb_span_log *l, struct sb_sample_place *s, size_t n)
{
	size_t got;

	if (!l->file) {
		claim_all(s, n, l->buf, l->n);
		return 0;
	}
	/* A write that fails leaves the buffer empty: what the file took is read. */
	if (l->n)
		flush_spans(l);
	if (fflush(l->file) || fseek(l->file, 0, SEEK_SET))
		return -errno;
	while ((got = fread(l->buf, sizeof(*l->buf), l->cap, l->file)) > 0)
		claim_all(s, n, l->buf, got);
	return ferror(l->file) ? -EIO : 0;
}

int sb_collector_place_samples(struct sb_collector *c, struct sb_sample_place *s, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		s[k].path = 0;
		s[k].owner_id = -1;
	}
	if (!c->call_paths || !n)
		return 0;
	qsort(s, n, sizeof(*s), place_cmp);
	return read_spans(c->call_paths, s, n);
}
