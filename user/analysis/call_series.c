/* Each region's per-call values over the run, per call or in time windows, and their quantiles. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/call_series.h"

static const double quantiles[SB_SERIES_QUANTILES] = { 0, 0.25, 0.5, 0.75, 0.9, 0.99, 1 };

struct call {
	int64_t start;
	int64_t v;
};

/* Scratch of one build: the index rows grouped by series key, and buffers for the busiest key. */
struct build {
	const struct sb_profile *p;
	const struct sb_series_opts *o;
	uint32_t *rows;		/* pair indices, key by key */
	size_t *first;		/* key k's are rows[first[k] .. first[k + 1]) */
	uint64_t most;		/* calls of the busiest key */
	struct call *calls;
	int64_t *v;
};

static bool rank_in(const struct sb_series_opts *o, uint32_t rank)
{
	return o->rank < 0 || (int64_t)rank == o->rank;
}

/* The call's value; false when it has none (an unknown count, or an end before its start). */
static bool value_of(const struct sb_profile *p, const struct sb_event *e, uint32_t metric,
		     int64_t *v)
{
	if (metric == SB_SERIES_DURATION)
		return !__builtin_sub_overflow(e->end, e->start, v) && *v >= 0;
	*v = sb_event_metric(p, e, metric);
	return *v >= 0;
}

/* A counting sort of the shown index rows by key; the run's first and last start. */
static int group_rows(struct build *b, struct sb_series_set *set)
{
	const struct sb_profile *p = b->p;
	size_t keys = p->n_regions + set->fns.n, i, e, k, *at;
	int64_t last = INT64_MIN, v;

	b->rows = malloc((p->n_pairs + 1) * sizeof(*b->rows));
	b->first = calloc(keys + 2, sizeof(*b->first));
	at = calloc(keys + 1, sizeof(*at));
	if (!b->rows || !b->first || !at) {
		free(at);
		return -ENOMEM;
	}
	set->t0 = INT64_MAX;
	for (i = 0; i < p->n_pairs; i++) {
		if (!rank_in(b->o, p->pairs[i].rank))
			continue;
		b->first[sb_mpi_fns_key(&set->fns, p->pairs[i].region) + 1] += p->pairs[i].count;
		for (e = p->pairs[i].offset; e < p->pairs[i].offset + p->pairs[i].count; e++) {
			if (!value_of(p, &p->events[e], b->o->metric, &v))
				continue;
			set->t0 = p->events[e].start < set->t0 ? p->events[e].start : set->t0;
			last = p->events[e].start > last ? p->events[e].start : last;
		}
	}
	if (last < set->t0)
		set->t0 = last = 0;
	set->span = (uint64_t)last - (uint64_t)set->t0;
	set->width = set->span / b->o->windows + 1;
	for (k = 0; k < keys; k++)
		b->most = b->first[k + 1] > b->most ? b->first[k + 1] : b->most;
	/* Calls per key so far; the row counts per key from here. */
	memset(b->first, 0, (keys + 2) * sizeof(*b->first));
	for (i = 0; i < p->n_pairs; i++)
		if (rank_in(b->o, p->pairs[i].rank))
			b->first[sb_mpi_fns_key(&set->fns, p->pairs[i].region) + 1]++;
	for (k = 0; k < keys; k++)
		b->first[k + 1] += b->first[k];
	memcpy(at, b->first, (keys + 1) * sizeof(*at));
	for (i = 0; i < p->n_pairs; i++)
		if (rank_in(b->o, p->pairs[i].rank))
			b->rows[at[sb_mpi_fns_key(&set->fns, p->pairs[i].region)]++] = (uint32_t)i;
	free(at);
	return 0;
}

static int cmp_call(const void *x, const void *y)
{
	const struct call *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->v > b->v) - (a->v < b->v);
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

/* Key k's calls with a value into b->calls, by start; how many. */
static size_t gather(struct build *b, struct sb_series_set *set, size_t k)
{
	const struct sb_profile *p = b->p;
	const struct sb_pair *pr;
	size_t i, e, n = 0;
	int64_t v;

	for (i = b->first[k]; i < b->first[k + 1]; i++) {
		pr = &p->pairs[b->rows[i]];
		for (e = pr->offset; e < pr->offset + pr->count; e++) {
			if (value_of(p, &p->events[e], b->o->metric, &v))
				b->calls[n++] = (struct call){ .start = p->events[e].start, .v = v };
			else
				set->dropped++;
		}
	}
	qsort(b->calls, n, sizeof(*b->calls), cmp_call);
	return n;
}

/* The quantiles and total of the n values in b->calls. */
static void summarize(struct build *b, struct sb_series *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		b->v[i] = b->calls[i].v;
		if (__builtin_add_overflow(s->total, b->v[i], &s->total))
			s->total = INT64_MAX;
	}
	qsort(b->v, n, sizeof(*b->v), cmp_i64);
	for (i = 0; i < SB_SERIES_QUANTILES; i++)
		s->q[i] = b->v[(size_t)(quantiles[i] * (double)(n - 1) + 0.5)];
	s->calls = n;
}

static uint64_t offset(const struct sb_series_set *set, int64_t start)
{
	return (uint64_t)start - (uint64_t)set->t0;
}

/* One window per call, or per set->width of the run holding a call: min, median, max. */
static void windows(struct build *b, const struct sb_series_set *set, struct sb_series *s,
		    size_t n)
{
	size_t i = 0, j, m;
	uint64_t k;

	s->per_call = n <= b->o->max_points;
	while (i < n) {
		k = offset(set, b->calls[i].start) / set->width;
		for (j = i; j < n && (s->per_call ? j == i :
				      offset(set, b->calls[j].start) / set->width == k); j++)
			b->v[j - i] = b->calls[j].v;
		m = j - i;
		qsort(b->v, m, sizeof(*b->v), cmp_i64);
		s->windows[s->n_windows++] = (struct sb_series_window){
			.start = s->per_call ? offset(set, b->calls[i].start) : k * set->width,
			.calls = m, .min = b->v[0], .median = b->v[m / 2], .max = b->v[m - 1],
		};
		i = j;
	}
}

static int add_series(struct build *b, struct sb_series_set *set, size_t k)
{
	size_t n = gather(b, set, k), n_regions = b->p->n_regions;
	struct sb_series *s = &set->s[set->n];

	if (!n)
		return 0;
	*s = (struct sb_series){
		.region = k < n_regions ? (uint32_t)k : set->fns.first[k - n_regions],
		.fn = k < n_regions ? -1 : (int32_t)(k - n_regions),
	};
	/* At most one window per call, and at most the windows asked for unless per call. */
	s->windows = malloc((n < b->o->windows || n <= b->o->max_points ? n : b->o->windows) *
			    sizeof(*s->windows));
	if (!s->windows)
		return -ENOMEM;
	set->n++;
	summarize(b, s, n);
	windows(b, set, s, n);
	return 0;
}

static int cmp_series(const void *x, const void *y)
{
	const struct sb_series *a = x, *b = y;

	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	if (a->fn != b->fn)
		return a->fn < b->fn ? -1 : 1;
	return (a->region > b->region) - (a->region < b->region);
}

static int fill(struct sb_series_set *set, struct build *b)
{
	size_t keys, k;
	int r;

	r = sb_mpi_fns_build(&set->fns, b->p);
	r = r ? r : group_rows(b, set);
	if (r)
		return r;
	keys = b->p->n_regions + set->fns.n;
	set->s = calloc(keys + 1, sizeof(*set->s));
	b->calls = malloc((b->most + 1) * sizeof(*b->calls));
	b->v = malloc((b->most + 1) * sizeof(*b->v));
	if (!set->s || !b->calls || !b->v)
		return -ENOMEM;
	for (k = 0; !r && k < keys; k++)
		r = add_series(b, set, k);
	sb_series_sort(set);
	return r;
}

void sb_series_sort(struct sb_series_set *set)
{
	qsort(set->s, set->n, sizeof(*set->s), cmp_series);
}

int sb_series_build(struct sb_series_set *set, const struct sb_profile *p,
		    const struct sb_series_opts *o, struct sb_error *err)
{
	struct sb_series_opts fixed = *o;
	struct build b = { .p = p, .o = &fixed };
	int r;

	*set = (struct sb_series_set){ 0 };
	fixed.windows = o->windows ? o->windows : 1;
	r = p->agg.on ? sb_series_build_aggregate(set, p, &fixed) : p->events ? fill(set, &b) : 0;
	free(b.rows);
	free(b.first);
	free(b.calls);
	free(b.v);
	if (r) {
		sb_series_free(set);
		return sb_fail(err, -r, "calls over the run: out of memory");
	}
	return 0;
}

void sb_series_free(struct sb_series_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		free(set->s[i].windows);
		free(set->s[i].hist);
	}
	free(set->s);
	sb_mpi_fns_free(&set->fns);
	*set = (struct sb_series_set){ 0 };
}

const char *sb_series_name(const struct sb_series_set *set, const struct sb_profile *p,
			   const struct sb_series *s)
{
	return s->fn >= 0 ? set->fns.name[s->fn] : p->regions[s->region].name;
}
