/*
 * merge of aggregate recordings (record --aggregate): every input's rows kept,
 * their region paths appended, their windows put on one origin on the first
 * input's clock. Inputs must all be aggregates with one window length and the
 * same summed columns: sums of unlike things would be no sum.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/merge.h"

/* Whether b sums the same columns over the same windows as a; else why not in err. */
static int alike(const struct sb_merge_input *a, const struct sb_merge_input *b,
		 struct sb_error *err)
{
	const struct sb_aggregate *x = &a->p.agg, *y = &b->p.agg;

	if (!y->on)
		return sb_fail(err, EINVAL, "%s is an aggregate (record --aggregate) and %s is not: "
			       "sums and calls cannot be merged", a->path, b->path);
	if (x->window_ns != y->window_ns)
		return sb_fail(err, EINVAL, "%s: windows of %lld ns, %s: of %lld ns; merge "
			       "aggregates of one window length", a->path,
			       (long long)x->window_ns, b->path, (long long)y->window_ns);
	if (x->n_values != y->n_values ||
	    memcmp(x->value_ids, y->value_ids, x->n_values * sizeof(*x->value_ids)))
		return sb_fail(err, EINVAL, "%s and %s sum different columns (record them with "
			       "the same -e, -g, --memory)", a->path, b->path);
	return 0;
}

/* Input i's window w on the merged origin, in windows (the first holds what is earlier). */
static int64_t window_on(const struct sb_aggregate *o, const struct sb_merge_input *i, int64_t w)
{
	int64_t start;

	if (!o->window_ns)
		return 0;
	start = i->p.agg.origin_ns + i->shift + w * o->window_ns;
	return start <= o->origin_ns ? 0 : (start - o->origin_ns) / o->window_ns;
}

static int append(struct sb_aggregate *o, const struct sb_merge_input *in)
{
	const struct sb_aggregate *a = &in->p.agg;
	size_t base = o->n_paths, i;

	for (i = 0; i < a->n_paths; i++) {
		o->paths[o->n_paths].parent = a->paths[i].parent < 0 ? -1 :
			a->paths[i].parent + (int64_t)base;
		o->paths[o->n_paths].name = strdup(a->paths[i].name);
		if (!o->paths[o->n_paths++].name)
			return -ENOMEM;
	}
	memcpy(o->values + o->n_rows * o->n_values, a->values,
	       a->n_rows * a->n_values * sizeof(*a->values));
	for (i = 0; i < a->n_rows; i++) {
		o->rows[o->n_rows] = a->rows[i];
		o->rows[o->n_rows].path += (int64_t)base;
		o->rows[o->n_rows++].window = window_on(o, in, a->rows[i].window);
	}
	return 0;
}

int sb_merge_aggregate(struct sb_profile *out, const struct sb_merge_input *in, size_t n,
		       struct sb_error *err)
{
	struct sb_aggregate *o = &out->agg;
	size_t i, rows = 0, paths = 0;
	int ret = 0;

	if (!n || !in[0].p.agg.on) {
		for (i = 1; i < n; i++)
			if (in[i].p.agg.on)
				return alike(&in[i], &in[0], err);
		return 0;
	}
	for (i = 1; i < n && !ret; i++)
		ret = alike(&in[0], &in[i], err);
	if (ret)
		return ret;
	*o = (struct sb_aggregate){ .on = true, .window_ns = in[0].p.agg.window_ns,
				    .origin_ns = INT64_MAX, .n_values = in[0].p.agg.n_values };
	for (i = 0; i < n; i++) {
		rows += in[i].p.agg.n_rows;
		paths += in[i].p.agg.n_paths;
		if (in[i].p.agg.origin_ns + in[i].shift < o->origin_ns)
			o->origin_ns = in[i].p.agg.origin_ns + in[i].shift;
	}
	o->rows = calloc(rows + 1, sizeof(*o->rows));
	o->paths = calloc(paths + 1, sizeof(*o->paths));
	o->values = calloc(rows * o->n_values + 1, sizeof(*o->values));
	o->value_ids = calloc(o->n_values + 1, sizeof(*o->value_ids));
	if (!o->rows || !o->paths || !o->values || !o->value_ids)
		return -ENOMEM;
	memcpy(o->value_ids, in[0].p.agg.value_ids, o->n_values * sizeof(*o->value_ids));
	for (i = 0; i < n && !ret; i++)
		ret = append(o, &in[i]);
	return ret;
}
