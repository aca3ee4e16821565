/*
 * record --aggregate in the collector: calls summed per (thread, region path,
 * window) as they complete, and the sums laid out as the profile's rows once
 * ranks, thread rows and path ids are known.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/collect.h"

void sb_collector_set_aggregate(struct sb_collector *c, int64_t window_ns, int64_t origin_ns)
{
	c->aggregate = true;
	c->agg_window_ns = window_ns;
	c->agg_origin_ns = origin_ns;
}

int sb_collector_aggregate_start(struct sb_collector *c, const unsigned *ids, unsigned n)
{
	int ret;

	ret = sb_aggregator_init(&c->agg, n, c->agg_window_ns, c->agg_origin_ns);
	if (ret)
		return ret;
	memcpy(c->agg_ids, ids, n * sizeof(*ids));
	c->agg_ready = true;
	return 0;
}

/* The profile's region paths, copied: the rows' own table, whatever samples do with theirs. */
static int copy_paths(struct sb_aggregate *a, const struct sb_samples *s)
{
	size_t i;

	a->paths = calloc(s->n_paths + 1, sizeof(*a->paths));
	if (!a->paths)
		return -ENOMEM;
	for (i = 0; i < s->n_paths; i++) {
		a->paths[i].parent = s->paths[i].parent;
		a->paths[i].name = strdup(s->paths[i].name);
		if (!a->paths[i].name)
			return -ENOMEM;
		a->n_paths++;
	}
	return 0;
}

/* A top-level path named after the region, for a row whose path hash the kernel never resolved. */
static int64_t fallback_path(struct sb_collector *c, uint32_t pair)
{
	struct sb_aggregate *a = &c->prof.agg;
	const char *name = c->prof.regions[c->prof.pairs[pair].region].name;
	struct sb_region_path *p;
	size_t i;

	for (i = 0; i < a->n_paths; i++)
		if (a->paths[i].parent < 0 && !strcmp(a->paths[i].name, name))
			return (int64_t)i;
	p = realloc(a->paths, (a->n_paths + 1) * sizeof(*p));
	if (!p)
		return -1;
	a->paths = p;
	p[a->n_paths].parent = -1;
	p[a->n_paths].name = strdup(name);
	if (!p[a->n_paths].name)
		return -1;
	return (int64_t)a->n_paths++;
}

/* Entry i as a row of the profile; its path id from the collector's, which adds paths. */
static void lay_out(struct sb_collector *c, size_t i, int64_t *path)
{
	const struct sb_agg_entry *e = &c->agg.entries[i];
	const struct sb_thread_info *t = &c->threads[e->thread];
	struct sb_agg_row *r = &c->prof.agg.rows[i];

	*r = e->row;
	r->rank = (uint32_t)sb_collector_rank(c, t->tgid);
	r->thread = t->row;
	*path = sb_collector_path_id(c, e->path);
}

int sb_collector_aggregate_finish(struct sb_collector *c)
{
	struct sb_aggregate *a = &c->prof.agg;
	size_t n = c->agg.n_entries, nv = c->agg.n_values, i;
	int64_t *path;
	int ret = 0;

	a->on = true;
	a->window_ns = c->agg_window_ns;
	a->origin_ns = c->agg_origin_ns;
	a->rows = calloc(n + 1, sizeof(*a->rows));
	a->value_ids = calloc(nv + 1, sizeof(*a->value_ids));
	a->values = calloc(n * nv + 1, sizeof(*a->values));
	path = calloc(n + 1, sizeof(*path));
	if (!a->rows || !a->value_ids || !a->values || !path) {
		free(path);
		return -ENOMEM;
	}
	a->n_rows = n;
	a->n_values = (unsigned)nv;
	memcpy(a->value_ids, c->agg_ids, nv * sizeof(*a->value_ids));
	memcpy(a->values, c->agg.values, n * nv * sizeof(*a->values));
	for (i = 0; i < n; i++)
		lay_out(c, i, &path[i]);
	ret = copy_paths(a, &c->prof.samples);
	for (i = 0; i < n && !ret; i++) {
		a->rows[i].path = path[i] >= 0 ? path[i] : fallback_path(c, c->agg.entries[i].pair);
		if (a->rows[i].path < 0)
			ret = -ENOMEM;
	}
	free(path);
	return ret;
}
