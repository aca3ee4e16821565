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
#include "record/span_claim.h"
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

/* Where a span's path goes for each sample it takes. */
struct take_ctx {
	uint64_t *path;
	uint64_t span_path;
};

static void take_sample(void *ctx, const struct sb_span_point *p)
{
	struct take_ctx *t = ctx;

	t->path[p->i] = t->span_path;
}

static void claim_all(struct sb_span_point *s, size_t n, uint64_t *path, const struct span *v,
		      size_t nv)
{
	struct take_ctx t = { .path = path };
	size_t i;

	for (i = 0; i < nv; i++) {
		t.span_path = v[i].path;
		sb_span_claim(s, n, v[i].thread, v[i].start, v[i].end, v[i].call_id, take_sample,
			      &t);
	}
}

/* Each span logged: those in the file a buffer at a time, or those in the buffer. */
static int read_spans(struct sb_span_log *l, struct sb_span_point *s, size_t n, uint64_t *path)
{
	size_t got;

	if (!l->file) {
		claim_all(s, n, path, l->buf, l->n);
		return 0;
	}
	/* A write that fails leaves the buffer empty: what the file took is read. */
	if (l->n)
		flush_spans(l);
	if (fflush(l->file) || fseek(l->file, 0, SEEK_SET))
		return -errno;
	while ((got = fread(l->buf, sizeof(*l->buf), l->cap, l->file)) > 0)
		claim_all(s, n, path, l->buf, got);
	return ferror(l->file) ? -EIO : 0;
}

int sb_collector_place_samples(struct sb_collector *c, struct sb_span_point *s, size_t n,
			       uint64_t *path)
{
	size_t k;

	for (k = 0; k < n; k++)
		path[s[k].i] = 0;
	sb_span_points_sort(s, n);
	if (!c->call_paths || !n)
		return 0;
	return read_spans(c->call_paths, s, n, path);
}
