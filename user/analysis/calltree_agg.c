/*
 * The call tree of an aggregate recording: each row's region path is a node,
 * its sums are the node's. Exact where a trace's tree is (counts, totals,
 * min, max, own, off-CPU); a first start is that of the first window with calls.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/calltree_agg.h"
#include "analysis/calltree_impl.h"

/* The node of path id (made, with its parents, on first use); SB_CT_NONE when it cannot be. */
static uint32_t path_node(struct sb_ct_grow *g, const struct sb_profile *p, uint32_t *node,
			  int64_t path, int depth)
{
	const struct sb_region_path *rp = &p->agg.paths[path];
	uint32_t parent = 0;
	ssize_t region;

	if (node[path] != SB_CT_NONE)
		return node[path];
	/* Parents have smaller ids (checked on read): the chain ends within n_paths steps. */
	if (rp->parent >= 0 && depth < (int)p->agg.n_paths)
		parent = path_node(g, p, node, rp->parent, depth + 1);
	region = sb_profile_find_region(p, rp->name);
	if (parent == SB_CT_NONE || region < 0)
		return SB_CT_NONE;
	node[path] = sb_ct_child(g, parent, (uint32_t)region);
	return node[path];
}

static void add_row(struct sb_calltree *t, struct sb_ct_node *n, const struct sb_aggregate *a,
		    size_t i)
{
	const struct sb_agg_row *r = &a->rows[i];
	int64_t off = sb_agg_value(a, i, SB_METRIC_OFFCPU);
	/* A call's start is known to its window: the first one's start stands for it. */
	int64_t window_start = a->origin_ns + r->window * a->window_ns;

	n->calls += r->count;
	n->total += r->total;
	n->sum += r->total;
	n->own += r->own;
	if (r->min < n->min)
		n->min = r->min;
	if (r->max > n->max)
		n->max = r->max;
	if (window_start < n->first_start)
		n->first_start = window_start;
	if (n->offcpu != SB_CT_UNKNOWN && off > 0)
		n->offcpu += off;
	t->calls += r->count;
}

static int tree_of_rows(struct sb_ct_grow *g, const struct sb_profile *p,
			const struct sb_ct_opts *o, struct sb_error *err)
{
	const struct sb_aggregate *a = &p->agg;
	uint32_t *node, n;
	size_t i;
	int r = 0;

	node = malloc((a->n_paths + 1) * sizeof(*node));
	if (!node)
		return -ENOMEM;
	memset(node, 0xff, a->n_paths * sizeof(*node));
	for (i = 0; i < a->n_rows && !r; i++) {
		if (o->rank >= 0 && (int64_t)a->rows[i].rank != o->rank)
			continue;
		n = path_node(g, p, node, a->rows[i].path, 0);
		if (n == SB_CT_NONE)
			r = sb_fail(err, EINVAL, "aggregate row %zu: region path %lld names no "
				    "region of the index", i, (long long)a->rows[i].path);
		else
			add_row(g->t, &g->t->nodes[n], a, i);
	}
	free(node);
	return r;
}

/* Off-CPU time per index row, summed from the rows of its rank and region. */
static int64_t *pair_offcpu(const struct sb_profile *p)
{
	const struct sb_aggregate *a = &p->agg;
	int64_t *v = calloc(p->n_pairs + 1, sizeof(*v)), off;
	ssize_t region;
	size_t i, k;

	for (i = 0; v && i < a->n_rows; i++) {
		off = sb_agg_value(a, i, SB_METRIC_OFFCPU);
		region = sb_profile_find_region(p, a->paths[a->rows[i].path].name);
		for (k = 0; k < p->n_pairs && off > 0; k++)
			if ((ssize_t)p->pairs[k].region == region && p->pairs[k].rank == a->rows[i].rank)
				v[k] += off;
	}
	return v;
}

int sb_calltree_build_aggregate(struct sb_calltree *t, const struct sb_profile *p,
				const struct sb_ct_opts *o, struct sb_error *err)
{
	struct sb_ct_opts to = { .flat = false, .rank = o->rank, .sort = o->sort };
	struct sb_calltree tree;
	struct sb_ct_grow g;
	int64_t *offcpu;
	int r;

	/* The flat table's own times and recursion come from the tree, as for a trace. */
	r = sb_ct_grow_init(&g, o->flat ? &tree : t, p, false);
	if (!r)
		r = tree_of_rows(&g, p, &to, err);
	r = sb_ct_grow_end(&g, r, o->sort);
	if (r || !o->flat)
		return r == -ENOMEM ? sb_fail(err, ENOMEM, "call tree: out of memory") : r;
	offcpu = pair_offcpu(p);
	r = offcpu ? sb_ct_grow_init(&g, t, p, true) : -ENOMEM;
	if (!r)
		r = sb_ct_build_flat(&g, p, o, offcpu, &tree, err);
	r = offcpu ? sb_ct_grow_end(&g, r, o->sort) : r;
	free(offcpu);
	sb_calltree_free(&tree);
	return r == -ENOMEM ? sb_fail(err, ENOMEM, "call tree: out of memory") : r;
}
