/* Completed calls summed per (thread, region path, window): record --aggregate. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/aggregate.h"

int sb_aggregator_init(struct sb_aggregator *a, unsigned n_values, int64_t window_ns,
		       int64_t origin_ns)
{
	memset(a, 0, sizeof(*a));
	if (n_values > SB_AGG_MAX_VALUES || window_ns < 0)
		return -EINVAL;
	sb_hashmap_init(&a->at);
	a->n_values = n_values;
	a->window_ns = window_ns;
	a->origin_ns = origin_ns;
	return 0;
}

void sb_aggregator_free(struct sb_aggregator *a)
{
	sb_hashmap_free(&a->at);
	free(a->entries);
	free(a->values);
	memset(a, 0, sizeof(*a));
}

_Static_assert(SB_AGG_MEMO == 1 << 6, "the memo is indexed by a hash's top 6 bits");

/* A call belongs to the window its start falls in; one begun before the origin to the first. */
static int64_t window_of(const struct sb_aggregator *a, int64_t start)
{
	if (!a->window_ns || start <= a->origin_ns)
		return 0;
	return (start - a->origin_ns) / a->window_ns;
}

static int grow(struct sb_aggregator *a)
{
	size_t cap = a->cap ? 2 * a->cap : 64;
	struct sb_agg_entry *e;
	int64_t *v;

	e = realloc(a->entries, cap * sizeof(*e));
	if (!e)
		return -ENOMEM;
	a->entries = e;
	v = realloc(a->values, (cap * a->n_values + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	a->values = v;
	a->cap = cap;
	return 0;
}

static struct sb_agg_entry *entry_of(struct sb_aggregator *a, const struct sb_agg_call *c,
				     int64_t window)
{
	uint32_t thread = c->thread;
	uint64_t path = c->path;
	uint64_t key = (uint64_t)thread << 32 | (uint64_t)window;
	struct sb_agg_memo *m = &a->memo[((key ^ path) * 0x9e3779b97f4a7c15ULL) >> 58];
	uint64_t *i;
	struct sb_agg_entry *e;

	if (m->entry && m->key == key && m->path == path)
		return &a->entries[m->entry - 1];
	i = sb_hashmap_get(&a->at, key, path);
	if (i) {
		*m = (struct sb_agg_memo){ .key = key, .path = path, .entry = *i + 1 };
		return &a->entries[*i];
	}
	if (a->n_entries == a->cap && grow(a))
		return NULL;
	if (sb_hashmap_put(&a->at, key, path, a->n_entries))
		return NULL;
	*m = (struct sb_agg_memo){ .key = key, .path = path, .entry = a->n_entries + 1 };
	e = &a->entries[a->n_entries];
	*e = (struct sb_agg_entry){ .thread = thread, .pair = c->pair, .path = path,
				    .row = { .window = window, .min = INT64_MAX } };
	memset(a->values + a->n_entries * a->n_values, 0, a->n_values * sizeof(*a->values));
	a->n_entries++;
	return e;
}

int sb_aggregator_add(struct sb_aggregator *a, const struct sb_agg_call *c)
{
	int64_t d = c->end - c->start, window = window_of(a, c->start);
	struct sb_agg_entry *e;
	int64_t *v;
	unsigned k;

	/* The key holds 32 bits of window: past that (136 years of 1 s) the last one takes it. */
	if (window > UINT32_MAX)
		window = UINT32_MAX;
	e = entry_of(a, c, window);
	if (!e)
		return -ENOMEM;
	e->row.count++;
	e->row.total += d;
	e->row.own += c->own;
	if (d < e->row.min)
		e->row.min = d;
	if (d > e->row.max)
		e->row.max = d;
	e->row.hist[sb_agg_bucket(d)]++;
	v = a->values + (size_t)(e - a->entries) * a->n_values;
	/* A row keeps a sum only while every call had the value: -1 once one had none. */
	for (k = 0; k < a->n_values; k++)
		if (v[k] >= 0)
			v[k] = c->values[k] >= 0 ? v[k] + c->values[k] : -1;
	return 0;
}
