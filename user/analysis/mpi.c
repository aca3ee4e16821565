/* MPI call regions: per-operation, per-function, per-rank and rank-to-rank sums. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mpi.h"
#include "util/hashmap.h"

bool sb_mpi_profile_has_calls(const struct sb_profile *p)
{
	struct sb_mpi_call c;
	size_t i;

	for (i = 0; i < p->n_regions; i++)
		if (!sb_mpi_parse(p->regions[i].name, &c))
			return true;
	return false;
}

/* Scratch of one build. */
struct build {
	const struct sb_profile *p;
	struct sb_mpi_call *calls;	/* per region */
	bool *is_mpi;			/* per region */
	uint32_t *ev_pair;		/* per event: its index row */
	struct sb_hashmap by_id;	/* (rank, call id) -> event index */
	int64_t *region_total;		/* per region: inclusive ns over every rank */
};

/* The nearest non-MPI region around event e, or SB_MPI_TOP. */
static uint32_t enclosing(const struct build *b, size_t e)
{
	const struct sb_profile *p = b->p;
	unsigned hops;

	/* A cycle of parent ids in a corrupt file ends after as many hops as events. */
	for (hops = 0; hops < p->n_events; hops++) {
		uint32_t rank = p->pairs[b->ev_pair[e]].rank;
		uint64_t *up;

		if (p->events[e].parent_id < 0)
			return SB_MPI_TOP;
		up = sb_hashmap_get(&b->by_id, rank, (uint64_t)p->events[e].parent_id);
		if (!up)
			return SB_MPI_TOP;
		e = (size_t)*up;
		if (!b->is_mpi[p->pairs[b->ev_pair[e]].region])
			return p->pairs[b->ev_pair[e]].region;
	}
	return SB_MPI_TOP;
}

/* The row of (op, region), added when new; NULL on -ENOMEM. */
static struct sb_mpi_op_row *op_row(struct sb_mpi_report *r, const char *op, uint32_t region,
				    const struct build *b)
{
	struct sb_mpi_op_row *g;
	size_t i;

	for (i = 0; i < r->n_ops; i++)
		if (r->ops[i].region == region && !strcmp(r->ops[i].op, op))
			return &r->ops[i];
	g = realloc(r->ops, (r->n_ops + 1) * sizeof(*g));
	if (!g)
		return NULL;
	r->ops = g;
	g = &r->ops[r->n_ops++];
	*g = (struct sb_mpi_op_row){ .region = region,
				     .region_total = region == SB_MPI_TOP ? 0 :
						     b->region_total[region] };
	strcpy(g->op, op);
	return g;
}

static int add_call(struct sb_mpi_report *r, const struct build *b, size_t e)
{
	const struct sb_pair *pr = &b->p->pairs[b->ev_pair[e]];
	const struct sb_mpi_call *c = &b->calls[pr->region];
	const struct sb_event *ev = &b->p->events[e];
	uint32_t region = r->parents ? enclosing(b, e) : SB_MPI_TOP;
	struct sb_mpi_op_row *row = op_row(r, c->op, region, b);
	int64_t d = ev->end - ev->start;

	if (!row)
		return -ENOMEM;
	row->calls++;
	row->time += d;
	if (c->bytes >= 0)
		row->bytes += c->bytes;
	r->mpi_calls++;
	if (pr->rank < r->n_ranks)
		r->rank_time[pr->rank] += d;
	if (sb_mpi_is_send(c) && pr->rank < r->n_ranks && c->peer >= 0 &&
	    c->peer < (int64_t)r->n_ranks) {
		size_t cell = (size_t)pr->rank * r->n_ranks + (size_t)c->peer;

		r->matrix_msgs[cell]++;
		if (c->bytes > 0)
			r->matrix_bytes[cell] += c->bytes;
	}
	return 0;
}

static int cmp_imb(const void *x, const void *y)
{
	const struct sb_mpi_imbalance *a = x, *b = y;

	if (a->ratio != b->ratio)
		return a->ratio < b->ratio ? 1 : -1;
	return (a->region > b->region) - (a->region < b->region);
}

/* One row's per-rank totals t: max / mean over all ranks; false when it took no time. */
static bool imb_row(struct sb_mpi_imbalance *m, const int64_t *t, uint32_t n_ranks)
{
	int64_t sum = 0;
	uint32_t k;

	for (k = 0; k < n_ranks; k++) {
		sum += t[k];
		if (t[k] > m->max) {
			m->max = t[k];
			m->slowest = k;
		}
	}
	if (!sum)
		return false;
	m->mean = (double)sum / n_ranks;
	m->ratio = (double)m->max / m->mean;
	return true;
}

/* Every region's, and every MPI function's, per-rank totals: max / mean over all ranks. */
static int imbalance(struct sb_mpi_report *r, const struct sb_profile *p)
{
	size_t keys = p->n_regions + r->fns.n, i, n = p->n_regions;
	int64_t *per = calloc(keys * r->n_ranks + 1, sizeof(*per));

	r->imb = calloc(keys + 1, sizeof(*r->imb));
	if (!per || !r->imb) {
		free(per);
		return -ENOMEM;
	}
	for (i = 0; i < p->n_pairs; i++)
		if (p->pairs[i].rank < r->n_ranks)
			/* An MPI call region per peer exists on one rank: its function is compared. */
			per[sb_mpi_fns_key(&r->fns, p->pairs[i].region) * r->n_ranks +
			    p->pairs[i].rank] +=
				p->pairs[i].stats.total;
	for (i = 0; i < keys; i++) {
		struct sb_mpi_imbalance m = {
			.region = i < n ? (uint32_t)i : r->fns.first[i - n],
			.fn = i < n ? -1 : (int32_t)(i - n),
		};

		if (imb_row(&m, &per[i * r->n_ranks], r->n_ranks))
			r->imb[r->n_imb++] = m;
	}
	free(per);
	qsort(r->imb, r->n_imb, sizeof(*r->imb), cmp_imb);
	return 0;
}

static int cmp_variant(const void *x, const void *y, void *ctx)
{
	const struct sb_mpi_variant *a = x, *b = y;
	const struct sb_mpi_fns *f = ctx;
	int c = strcmp(f->name[a->fn], f->name[b->fn]);

	if (c)
		return c;
	if (a->time != b->time)
		return a->time < b->time ? 1 : -1;
	return (a->region > b->region) - (a->region < b->region);
}

static void variant_add(struct sb_mpi_variant *v, const struct sb_pair *pr)
{
	v->calls += pr->count;
	v->time += pr->stats.total;
	if (!v->n_ranks || pr->rank < v->lowest)
		v->lowest = pr->rank;
	if (!v->n_ranks || pr->rank > v->highest)
		v->highest = pr->rank;
	v->n_ranks++;
}

/* Each MPI call region with calls, over every rank: its function's details. */
static int variants(struct sb_mpi_report *r, const struct sb_profile *p)
{
	const struct sb_mpi_fns *f = &r->fns;
	size_t *at = malloc((p->n_regions + 1) * sizeof(*at)), i, n = 0;

	r->variants = calloc(f->n_calls + 1, sizeof(*r->variants));
	if (!at || !r->variants) {
		free(at);
		return -ENOMEM;
	}
	for (i = 0; i < p->n_regions; i++) {
		at[i] = SIZE_MAX;
		if (f->of[i] >= 0) {
			at[i] = n;
			r->variants[n++] = (struct sb_mpi_variant){ .region = (uint32_t)i,
								    .fn = (uint32_t)f->of[i] };
		}
	}
	for (i = 0; i < p->n_pairs; i++)
		if (at[p->pairs[i].region] != SIZE_MAX && p->pairs[i].count)
			variant_add(&r->variants[at[p->pairs[i].region]], &p->pairs[i]);
	free(at);
	/* Regions whose calls a filter dropped are no detail of anything. */
	for (i = 0; i < n; i++)
		if (r->variants[i].calls)
			r->variants[r->n_variants++] = r->variants[i];
	qsort_r(r->variants, r->n_variants, sizeof(*r->variants), cmp_variant, (void *)f);
	return 0;
}

static int cmp_op(const void *x, const void *y, void *ctx)
{
	const struct sb_mpi_op_row *a = x, *b = y;
	const struct sb_profile *p = ctx;
	int c = strcmp(a->op, b->op);

	if (c)
		return c;
	if (a->region == b->region)
		return 0;
	if (a->region == SB_MPI_TOP || b->region == SB_MPI_TOP)
		return a->region == SB_MPI_TOP ? 1 : -1;
	return strcmp(p->regions[a->region].name, p->regions[b->region].name);
}

static int fill(struct sb_mpi_report *r, struct build *b)
{
	const struct sb_profile *p = b->p;
	size_t i, e;
	int ret;

	for (i = 0; i < p->n_regions; i++)
		b->is_mpi[i] = !sb_mpi_parse(p->regions[i].name, &b->calls[i]);
	for (i = 0; i < p->n_pairs; i++) {
		b->region_total[p->pairs[i].region] += p->pairs[i].stats.total;
		for (e = p->pairs[i].offset; e < p->pairs[i].offset + p->pairs[i].count; e++) {
			b->ev_pair[e] = (uint32_t)i;
			if (r->parents && p->events[e].call_id >= 0 &&
			    sb_hashmap_put(&b->by_id, p->pairs[i].rank,
					   (uint64_t)p->events[e].call_id, e))
				return -ENOMEM;
		}
	}
	for (i = 0; i < p->n_pairs; i++) {
		if (!b->is_mpi[p->pairs[i].region])
			continue;
		for (e = p->pairs[i].offset; e < p->pairs[i].offset + p->pairs[i].count; e++) {
			ret = add_call(r, b, e);
			if (ret)
				return ret;
		}
	}
	/* With no MPI call left (a filter took them all) ops is NULL, which qsort_r may not get. */
	if (r->n_ops)
		qsort_r(r->ops, r->n_ops, sizeof(*r->ops), cmp_op, (void *)p);
	ret = sb_mpi_fns_build(&r->fns, p);
	ret = ret ? ret : imbalance(r, p);
	return ret ? ret : variants(r, p);
}

int sb_mpi_report_build(struct sb_mpi_report *r, const struct sb_profile *p, struct sb_error *err)
{
	struct build b = { .p = p };
	size_t cells;
	int ret = -ENOMEM;

	*r = (struct sb_mpi_report){ .n_ranks = sb_profile_rank_count(p) };
	r->parents = (p->columns & SB_COL_PARENT_ID) && (p->columns & SB_COL_CALL_ID);
	cells = (size_t)r->n_ranks * r->n_ranks + 1;
	sb_hashmap_init(&b.by_id);
	b.calls = calloc(p->n_regions + 1, sizeof(*b.calls));
	b.is_mpi = calloc(p->n_regions + 1, sizeof(*b.is_mpi));
	b.region_total = calloc(p->n_regions + 1, sizeof(*b.region_total));
	b.ev_pair = calloc(p->n_events + 1, sizeof(*b.ev_pair));
	r->rank_time = calloc(r->n_ranks + 1, sizeof(*r->rank_time));
	r->matrix_bytes = calloc(cells, sizeof(*r->matrix_bytes));
	r->matrix_msgs = calloc(cells, sizeof(*r->matrix_msgs));
	if (b.calls && b.is_mpi && b.region_total && b.ev_pair && r->rank_time &&
	    r->matrix_bytes && r->matrix_msgs)
		ret = fill(r, &b);
	sb_hashmap_free(&b.by_id);
	free(b.calls);
	free(b.is_mpi);
	free(b.region_total);
	free(b.ev_pair);
	if (ret)
		return sb_fail(err, -ret, "MPI summary: out of memory");
	return 0;
}

void sb_mpi_report_free(struct sb_mpi_report *r)
{
	free(r->ops);
	free(r->rank_time);
	free(r->imb);
	free(r->variants);
	sb_mpi_fns_free(&r->fns);
	free(r->matrix_bytes);
	free(r->matrix_msgs);
	*r = (struct sb_mpi_report){ 0 };
}
