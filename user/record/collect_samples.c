/*
 * Timed CPU samples to region calls by time (issue 25): a sample belongs to
 * the innermost call open on its thread at its timestamp, whichever transport
 * brought the call (the fast path's rings or the kernel's ring), as a GPU
 * launch does (collect_gpu.c). Each kept call's span and path hash wait in a
 * spill of their own; at the end one pass over them looks each span up in
 * the samples sorted by thread and time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/collect.h"

int sb_collector_keep_call_paths(struct sb_collector *c, const char *spill_dir, size_t mem_budget)
{
	c->call_paths_dir = strdup(spill_dir);
	if (!c->call_paths_dir)
		return -ENOMEM;
	c->call_paths_mem = mem_budget;
	c->call_paths = sb_spill_new(spill_dir, mem_budget);
	return c->call_paths ? 0 : -errno;
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
static void claim(struct sb_sample_place *s, size_t n, const struct sb_spill_rec *call)
{
	size_t k = first_at(s, n, call->thread, call->start);
	struct sb_sample_place *x;

	for (; k < n && s[k].thread == call->thread && s[k].time <= call->end; k++) {
		x = &s[k];
		/* Equal starts: the later call id is the one entered inside the other. */
		if (x->owner_id >= 0 && (call->start < x->owner_start ||
				(call->start == x->owner_start && call->call_id < x->owner_id)))
			continue;
		x->path = (uint64_t)call->parent_id;
		x->owner_start = call->start;
		x->owner_id = call->call_id;
	}
}

int sb_collector_place_samples(struct sb_collector *c, struct sb_sample_place *s, size_t n)
{
	struct sb_spill_rec recs[256];
	ssize_t got, i;
	size_t k;
	int ret;

	for (k = 0; k < n; k++) {
		s[k].path = 0;
		s[k].owner_id = -1;
	}
	if (!c->call_paths || !n)
		return 0;
	qsort(s, n, sizeof(*s), place_cmp);
	ret = sb_spill_sort(c->call_paths);
	if (ret)
		return ret;
	while ((got = sb_spill_read(c->call_paths, recs, 256)) > 0)
		for (i = 0; i < got; i++)
			claim(s, n, &recs[i]);
	return got < 0 ? (int)got : 0;
}
