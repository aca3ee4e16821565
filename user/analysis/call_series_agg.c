/*
 * report --durations of an aggregate (record --aggregate=WINDOW): the windows
 * it recorded, grouped into at most o->windows, per region or MPI function.
 * An aggregate keeps sums, so a window's mean stands for its median, and the
 * quantiles are the upper bounds of the log2 buckets they fall in (kept
 * within the calls' min and max).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/call_series.h"

/* The calls of one series key in one shown window, or in all of them. */
struct sums {
	uint64_t calls;
	int64_t total, min, max;
};

struct agg_build {
	const struct sb_profile *p;
	const struct sb_series_opts *o;
	int64_t lo, hi;		/* first and last recorded window shown */
	int64_t group;		/* recorded windows per shown one */
	size_t n_bins, keys;
	struct sums *all;	/* per key */
	struct sums *bins;	/* per key, n_bins each */
	uint64_t *hist;		/* per key, SB_AGG_BUCKETS each */
};

static bool shown(const struct sb_series_opts *o, const struct sb_agg_row *r)
{
	return o->rank < 0 || (int64_t)r->rank == o->rank;
}

static void add(struct sums *s, const struct sb_agg_row *r)
{
	if (!s->calls || r->min < s->min)
		s->min = r->min;
	if (!s->calls || r->max > s->max)
		s->max = r->max;
	s->calls += r->count;
	if (__builtin_add_overflow(s->total, r->total, &s->total))
		s->total = INT64_MAX;
}

static int sum_rows(struct agg_build *b, const struct sb_mpi_fns *fns)
{
	const struct sb_aggregate *a = &b->p->agg;
	const struct sb_agg_row *r;
	size_t i, key, bin;
	ssize_t region;
	unsigned k;

	for (i = 0; i < a->n_rows; i++) {
		r = &a->rows[i];
		region = sb_profile_find_region(b->p, a->paths[r->path].name);
		if (!shown(b->o, r) || region < 0)
			continue;
		key = sb_mpi_fns_key(fns, (uint32_t)region);
		bin = (size_t)((r->window - b->lo) / b->group);
		add(&b->all[key], r);
		add(&b->bins[key * b->n_bins + bin], r);
		for (k = 0; k < SB_AGG_BUCKETS; k++)
			b->hist[key * SB_AGG_BUCKETS + k] += r->hist[k];
	}
	return 0;
}

/* The upper bound of the bucket holding the call at fraction f of the calls, within [min, max]. */
static int64_t quantile(const uint64_t *hist, const struct sums *s, double f)
{
	uint64_t want = (uint64_t)(f * (double)s->calls), seen = 0;
	int64_t bound;
	unsigned k;

	want = want ? want : 1;
	for (k = 0; k < SB_AGG_BUCKETS; k++) {
		seen += hist[k];
		if (seen >= want)
			break;
	}
	bound = k >= 62 ? INT64_MAX : (k ? (int64_t)((2ull << k) - 1) : 1);
	return bound < s->min ? s->min : bound > s->max ? s->max : bound;
}

static int add_series(struct agg_build *b, struct sb_series_set *set, size_t key)
{
	static const double f[SB_SERIES_QUANTILES] = { 0, 0.25, 0.5, 0.75, 0.9, 0.99, 1 };
	const struct sums *all = &b->all[key], *bin;
	struct sb_series *s = &set->s[set->n];
	size_t n_regions = b->p->n_regions, i;
	int k;

	if (!all->calls)
		return 0;
	*s = (struct sb_series){
		.region = key < n_regions ? (uint32_t)key : set->fns.first[key - n_regions],
		.fn = key < n_regions ? -1 : (int32_t)(key - n_regions),
		.calls = all->calls, .total = all->total,
	};
	for (k = 0; k < SB_SERIES_QUANTILES; k++)
		s->q[k] = quantile(b->hist + key * SB_AGG_BUCKETS, all, f[k]);
	s->q[0] = all->min;
	s->q[SB_SERIES_QUANTILES - 1] = all->max;
	s->windows = malloc(b->n_bins * sizeof(*s->windows));
	s->hist = malloc(SB_AGG_BUCKETS * sizeof(*s->hist));
	set->n++;
	if (!s->windows || !s->hist)
		return -ENOMEM;
	memcpy(s->hist, b->hist + key * SB_AGG_BUCKETS, SB_AGG_BUCKETS * sizeof(*s->hist));
	for (i = 0; i < b->n_bins; i++) {
		bin = &b->bins[key * b->n_bins + i];
		if (bin->calls)
			s->windows[s->n_windows++] = (struct sb_series_window){
				.start = i * set->width, .calls = bin->calls, .min = bin->min,
				.median = bin->total / (int64_t)bin->calls, .max = bin->max };
	}
	return 0;
}

/* The recorded windows of the rows shown: their range, and how many make one shown window. */
static bool window_range(struct agg_build *b, struct sb_series_set *set)
{
	const struct sb_aggregate *a = &b->p->agg;
	int64_t n;
	size_t i;

	b->lo = INT64_MAX;
	b->hi = -1;
	for (i = 0; i < a->n_rows; i++) {
		if (!shown(b->o, &a->rows[i]))
			continue;
		b->lo = a->rows[i].window < b->lo ? a->rows[i].window : b->lo;
		b->hi = a->rows[i].window > b->hi ? a->rows[i].window : b->hi;
	}
	if (b->hi < 0)
		return false;
	n = b->hi - b->lo + 1;
	b->group = (n + (int64_t)b->o->windows - 1) / (int64_t)b->o->windows;
	b->n_bins = (size_t)((n + b->group - 1) / b->group);
	set->t0 = a->origin_ns + b->lo * a->window_ns;
	set->span = (uint64_t)((n - 1) * a->window_ns);
	set->width = a->window_ns ? (uint64_t)(a->window_ns * b->group) : 1;
	return true;
}

int sb_series_build_aggregate(struct sb_series_set *set, const struct sb_profile *p,
			      const struct sb_series_opts *o)
{
	struct agg_build b = { .p = p, .o = o };
	size_t k;
	int r;

	r = sb_mpi_fns_build(&set->fns, p);
	if (r || !window_range(&b, set))
		return r;
	b.keys = p->n_regions + set->fns.n;
	b.all = calloc(b.keys + 1, sizeof(*b.all));
	b.bins = calloc(b.keys * b.n_bins + 1, sizeof(*b.bins));
	b.hist = calloc(b.keys * SB_AGG_BUCKETS + 1, sizeof(*b.hist));
	set->s = calloc(b.keys + 1, sizeof(*set->s));
	r = b.all && b.bins && b.hist && set->s ? sum_rows(&b, &set->fns) : -ENOMEM;
	for (k = 0; !r && k < b.keys; k++)
		r = add_series(&b, set, k);
	if (!r)
		sb_series_sort(set);
	free(b.all);
	free(b.bins);
	free(b.hist);
	return r;
}
