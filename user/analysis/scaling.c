/* Scaling studies: each run's call tree per rank, matched by region path, then the ratios. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/calltree.h"
#include "analysis/calltree_mpi.h"
#include "analysis/scaling_impl.h"
#include "util/hashmap.h"

/* One region path in one run, summed over its ranks while they are read. */
struct acc {
	int64_t total;
	int64_t mpi;
	int64_t offcpu;
	bool offcpu_known;
};

struct collect {
	struct sb_scaling *s;
	struct sb_hashmap index;	/* (parent row + 1, hash of the name) -> row */
	struct acc *acc;		/* per row, per run */
	size_t cap;
};

static int oom(struct sb_error *err)
{
	return sb_fail(err, ENOMEM, "scaling: out of memory");
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static int grow(struct collect *c)
{
	struct sb_scaling *s = c->s;
	size_t cap = c->cap ? 2 * c->cap : 64;
	struct sb_scaling_row *rows;
	struct acc *acc;

	rows = realloc(s->rows, cap * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	s->rows = rows;
	acc = realloc(c->acc, cap * s->n_runs * sizeof(*acc));
	if (!acc)
		return -ENOMEM;
	c->acc = acc;
	c->cap = cap;
	return 0;
}

static int add_row(struct collect *c, uint32_t parent, const char *name)
{
	struct sb_scaling *s = c->s;
	struct sb_scaling_row *r;
	size_t plen;

	if (s->n_rows == c->cap && grow(c))
		return -ENOMEM;
	r = &s->rows[s->n_rows];
	*r = (struct sb_scaling_row){ .parent = parent, .growth = NAN };
	plen = parent == SB_SCALING_NONE ? 0 : strlen(s->rows[parent].path) + 1;
	r->path = malloc(plen + strlen(name) + 1);
	r->cells = calloc(s->n_runs, sizeof(*r->cells));
	if (!r->path || !r->cells) {
		free(r->path);
		free(r->cells);
		return -ENOMEM;
	}
	if (plen) {
		memcpy(r->path, s->rows[parent].path, plen - 1);
		r->path[plen - 1] = ';';
	}
	strcpy(r->path + plen, name);
	r->name = r->path + plen;
	r->depth = parent == SB_SCALING_NONE ? 1 : s->rows[parent].depth + 1;
	memset(&c->acc[s->n_rows * s->n_runs], 0, s->n_runs * sizeof(*c->acc));
	s->n_rows++;
	return 0;
}

/* The row of name below parent, added when new; SB_SCALING_NONE when out of memory. */
static uint32_t row_of(struct collect *c, uint32_t parent, const char *name)
{
	uint64_t a = (uint64_t)parent + 1, b = name_hash(name), *v;

	/* A hash two names share moves the later one on to the next key. */
	for (; (v = sb_hashmap_get(&c->index, a, b)); b++)
		if (!strcmp(c->s->rows[*v].name, name))
			return (uint32_t)*v;
	if (c->s->n_rows >= SB_SCALING_NONE - 1 || add_row(c, parent, name) ||
	    sb_hashmap_put(&c->index, a, b, c->s->n_rows - 1))
		return SB_SCALING_NONE;
	return (uint32_t)(c->s->n_rows - 1);
}

/*
 * Time in MPI calls inside each node (into mpi[], which starts zeroed): an
 * MPI function's row is all MPI; a region's is what its children hold.
 */
static void mpi_inside(const struct sb_calltree *t, const uint32_t *order, size_t n,
		       int64_t *mpi)
{
	const struct sb_ct_node *nd;
	size_t k;
	int64_t m;

	for (k = n; k-- > 0;) {
		nd = &t->nodes[order[k]];
		m = nd->fn != SB_CT_NONE ? nd->total : mpi[order[k]];
		mpi[order[k]] = m;
		if (nd->parent != 0)
			mpi[nd->parent] += m;
	}
}

static void add_node(struct collect *c, size_t run, uint32_t row, const struct sb_ct_node *nd,
		     int64_t mpi)
{
	struct sb_scaling_cell *cell = &c->s->rows[row].cells[run];
	struct acc *a = &c->acc[row * c->s->n_runs + run];

	cell->present = true;
	cell->calls += nd->calls;
	if (nd->total > cell->max)
		cell->max = nd->total;
	a->total += nd->total;
	a->mpi += mpi;
	if (nd->offcpu != SB_CT_UNKNOWN) {
		a->offcpu += nd->offcpu;
		a->offcpu_known = true;
	}
}

/* Fold one rank's tree into the rows. */
static int add_tree(struct collect *c, size_t run, const struct sb_calltree *t)
{
	uint32_t *order, *rows, i, parent;
	int64_t *mpi;
	size_t n = 0, k;
	int r = 0;

	order = malloc((size_t)t->n_nodes * sizeof(*order));
	rows = malloc((size_t)t->n_nodes * sizeof(*rows));
	mpi = calloc(t->n_nodes, sizeof(*mpi));
	if (!order || !rows || !mpi) {
		r = -ENOMEM;
		goto out;
	}
	for (i = sb_calltree_next(t, 0); i != SB_CT_NONE; i = sb_calltree_next(t, i))
		order[n++] = i;
	mpi_inside(t, order, n, mpi);
	for (k = 0; k < n; k++) {
		i = order[k];
		parent = t->nodes[i].parent ? rows[t->nodes[i].parent] : SB_SCALING_NONE;
		rows[i] = row_of(c, parent, sb_calltree_name(t, i));
		if (rows[i] == SB_SCALING_NONE) {
			r = -ENOMEM;
			goto out;
		}
		add_node(c, run, rows[i], &t->nodes[i], mpi[i]);
	}
out:
	free(order);
	free(rows);
	free(mpi);
	return r;
}

/* Every rank of run k, one call tree each, MPI calls by function. */
static int add_run(struct collect *c, size_t k, struct sb_error *err)
{
	struct sb_scaling_run *run = &c->s->runs[k];
	struct sb_ct_opts o = { .sort = SB_CT_SORT_TOTAL };
	struct sb_calltree t;
	char why[sizeof(err->msg)];
	uint32_t rank;
	int r;

	for (rank = 0; rank < run->ranks; rank++) {
		o.rank = rank;
		r = sb_calltree_build(&t, run->p, &o, err);
		if (r) {
			sb_calltree_free(&t);
			memcpy(why, err->msg, sizeof(why));
			return sb_fail_at(err, -r, run->path, "%s", why);
		}
		r = sb_calltree_group_mpi(&t, false, SB_CT_SORT_TOTAL);
		if (!r && t.calls && t.max_end - t.min_start > run->time)
			run->time = t.max_end - t.min_start;
		if (!r)
			r = add_tree(c, k, &t);
		sb_calltree_free(&t);
		if (r)
			return oom(err);
	}
	return 0;
}

static double ratio(int64_t a, int64_t b)
{
	return b > 0 ? (double)a / (double)b : NAN;
}

/* Speedup and efficiency of time t at n against t0 at n0, strong or weak. */
static void scale(bool weak, int64_t t0, uint32_t n0, int64_t t, uint32_t n,
		  double *speedup, double *efficiency)
{
	double r = t0 > 0 ? ratio(t0, t) : NAN;

	if (weak) {
		*efficiency = r;
		*speedup = r * n / n0;
	} else {
		*speedup = r;
		*efficiency = r * n0 / n;
	}
}

static void cell_ratios(const struct sb_scaling *s, struct sb_scaling_row *row, size_t k,
			const struct acc *a)
{
	struct sb_scaling_cell *c = &row->cells[k], *c0 = &row->cells[0];
	const struct sb_scaling_run *run = &s->runs[k];

	c->mean = a->total / (int64_t)run->ranks;
	c->imbalance = ratio(c->max, c->mean);
	c->share = ratio(c->max, run->time);
	c->mpi_share = ratio(a->mpi, a->total);
	c->offcpu_share = a->offcpu_known ? ratio(a->offcpu, a->total) : NAN;
	c->speedup = c->efficiency = NAN;
	if (c->present && c0->present)
		scale(s->weak, c0->max, s->runs[0].n, c->max, run->n, &c->speedup,
		      &c->efficiency);
}

static void ratios(struct sb_scaling *s, const struct acc *acc)
{
	struct sb_scaling_row *row;
	size_t i, k, last = s->n_runs - 1;

	for (k = 0; k < s->n_runs; k++)
		scale(s->weak, s->runs[0].time, s->runs[0].n, s->runs[k].time, s->runs[k].n,
		      &s->runs[k].speedup, &s->runs[k].efficiency);
	for (i = 0; i < s->n_rows; i++) {
		row = &s->rows[i];
		for (k = 0; k < s->n_runs; k++)
			cell_ratios(s, row, k, &acc[i * s->n_runs + k]);
		if (row->cells[0].present && row->cells[last].present)
			row->growth = row->cells[last].share - row->cells[0].share;
	}
}

int sb_scaling_build(struct sb_scaling *s, const struct sb_scaling_input *in, size_t n,
		     bool weak, struct sb_error *err)
{
	struct collect c = { .s = s };
	size_t k;
	int r;

	*s = (struct sb_scaling){ .weak = weak };
	sb_hashmap_init(&c.index);
	r = sb_scaling_runs(s, in, n, err);
	for (k = 0; !r && k < s->n_runs; k++)
		r = add_run(&c, k, err);
	if (!r) {
		ratios(s, c.acc);
		r = sb_scaling_order(s, err);
	}
	sb_hashmap_free(&c.index);
	free(c.acc);
	return r;
}

void sb_scaling_free(struct sb_scaling *s)
{
	size_t i;

	for (i = 0; i < s->n_rows; i++) {
		free(s->rows[i].path);
		free(s->rows[i].cells);
	}
	free(s->rows);
	free(s->runs);
	free(s->lost);
	*s = (struct sb_scaling){ 0 };
}
