/* MPI call regions of a call tree grouped by function: the tree is grown anew, row by row. */
#include <errno.h>
#include <stdlib.h>

#include "analysis/calltree_impl.h"
#include "analysis/calltree_mpi.h"
#include "analysis/mpi_fns.h"

/* A regrouping: the old tree read in pre-order, the new one grown. */
struct regroup {
	const struct sb_calltree *old;
	struct sb_ct_grow g;
	const struct sb_mpi_fns *f;
	uint32_t *to;		/* per old node: the new node its calls went to */
};

static int64_t known_sum(int64_t a, int64_t b)
{
	return a == SB_CT_UNKNOWN || b == SB_CT_UNKNOWN ? SB_CT_UNKNOWN : a + b;
}

/* Add s's calls to d: exact, since every call sits in one node of each tree. */
static void add_node_calls(struct sb_ct_node *d, const struct sb_ct_node *s)
{
	d->calls += s->calls;
	d->total += s->total;
	d->sum += s->sum;
	if (s->min < d->min)
		d->min = s->min;
	if (s->max > d->max)
		d->max = s->max;
	d->own = known_sum(d->own, s->own);
	d->offcpu = known_sum(d->offcpu, s->offcpu);
	d->gpu = known_sum(d->gpu, s->gpu);
	if (s->first_start < d->first_start)
		d->first_start = s->first_start;
}

/* The row of MPI function fn below parent, made on first use; SB_CT_NONE: out of memory. */
static uint32_t fn_row(struct regroup *r, uint32_t parent, uint32_t fn)
{
	/* Regions are 32-bit: a function's key cannot meet a region's. */
	uint64_t key = 1ull << 32 | fn, *v = sb_hashmap_get(&r->g.children, parent, key);
	uint32_t c;

	if (v)
		return (uint32_t)*v;
	c = sb_ct_add_node(&r->g, parent, r->f->first[fn]);
	if (c == SB_CT_NONE || sb_hashmap_put(&r->g.children, parent, key, c))
		return SB_CT_NONE;
	r->g.t->nodes[c].fn = fn;
	return c;
}

/* Old node i's calls into the new tree, below the node its parent's went to. */
static uint32_t place(struct regroup *r, uint32_t i, bool detail)
{
	const struct sb_ct_node *n = &r->old->nodes[i];
	uint32_t at = r->to[n->parent];
	int32_t fn = r->f->of[n->region];

	if (fn >= 0) {
		at = fn_row(r, at, (uint32_t)fn);
		if (at == SB_CT_NONE)
			return at;
		add_node_calls(&r->g.t->nodes[at], n);
		if (!detail)
			return at;
		/*
		 * Its own time goes to the region's row below: a parent's own is
		 * what its children do not hold, so the own column adds up.
		 */
		if (r->g.t->nodes[at].own != SB_CT_UNKNOWN)
			r->g.t->nodes[at].own = 0;
	}
	at = sb_ct_child(&r->g, at, n->region);
	if (at != SB_CT_NONE)
		add_node_calls(&r->g.t->nodes[at], n);
	return at;
}

/* Pre-order: a node's parent is placed before it. */
static int regroup(struct regroup *r, bool detail)
{
	const struct sb_calltree *old = r->old;
	struct sb_calltree *t = r->g.t;
	uint32_t i;

	t->nodes[0] = old->nodes[0];
	t->calls = old->calls;
	t->min_start = old->min_start;
	t->max_end = old->max_end;
	r->to[0] = 0;
	for (i = sb_calltree_next(old, 0); i != SB_CT_NONE; i = sb_calltree_next(old, i)) {
		r->to[i] = place(r, i, detail);
		if (r->to[i] == SB_CT_NONE)
			return -ENOMEM;
	}
	return 0;
}

int sb_calltree_group_mpi(struct sb_calltree *t, bool detail, enum sb_ct_sort key)
{
	struct regroup r = { .old = t };
	struct sb_mpi_fns *f;
	struct sb_calltree nt;
	int ret;

	if (t->mpi)
		return 0;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	ret = sb_mpi_fns_build(f, t->p);
	if (ret || !f->n) {
		sb_mpi_fns_free(f);
		free(f);
		return ret;
	}
	r.f = f;
	r.to = malloc((size_t)t->n_nodes * sizeof(*r.to));
	if (!r.to) {
		sb_mpi_fns_free(f);
		free(f);
		return -ENOMEM;
	}
	ret = sb_ct_grow_init(&r.g, &nt, t->p, t->flat);
	/* nt owns f from here: its names sort the rows, and its free frees them. */
	nt.mpi = f;
	ret = ret ? ret : regroup(&r, detail);
	ret = sb_ct_grow_end(&r.g, ret, key);
	free(r.to);
	if (ret)
		return ret;
	sb_calltree_free(t);
	*t = nt;
	return 0;
}

const char *sb_calltree_label(const struct sb_calltree *t, uint32_t i)
{
	const struct sb_ct_node *n = &t->nodes[i];

	if (t->mpi && n->fn == SB_CT_NONE && n->region != SB_CT_NONE &&
	    t->nodes[n->parent].fn != SB_CT_NONE && t->mpi->of[n->region] >= 0)
		return t->mpi->detail[n->region];
	return sb_calltree_name(t, i);
}
