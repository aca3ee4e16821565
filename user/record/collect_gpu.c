/*
 * GPU time to region calls. CUPTI tells which host API call launched each
 * piece of GPU work (the correlation id), and when, on which thread; the
 * calls of that thread say which region was innermost then (span_claim.h).
 * The calls are on disk (spill.c), so this is one pass over them, looking
 * each call's span up in the launches sorted by thread and time, and the
 * stream then reads them again with their GPU time.
 */
#include <errno.h>
#include <stdlib.h>

#include "record/collect.h"
#include "record/span_claim.h"

/* Launches on threads the collector knows, sorted; *n_refs of them. */
static struct sb_span_point *index_launches(struct sb_collector *c, struct sb_gpu_launch *l,
					    size_t n, size_t *n_refs)
{
	struct sb_span_point *r = calloc(n ? n : 1, sizeof(*r));
	uint64_t *t;
	size_t i;

	if (!r)
		return NULL;
	*n_refs = 0;
	for (i = 0; i < n; i++) {
		l[i].pair = -1;
		l[i].call_id = -1;
		l[i].thread_row = sb_collector_thread_row(c, l[i].tgid, l[i].tid);
		t = sb_hashmap_get(&c->thread_of, l[i].tgid, l[i].tid);
		if (t)
			r[(*n_refs)++] = (struct sb_span_point){ .thread = *t, .time = l[i].time,
								 .i = i };
	}
	sb_span_points_sort(r, *n_refs);
	return r;
}

/* The call a span belongs to, and the launches it may take. */
struct claim_ctx {
	struct sb_gpu_launch *l;
	const struct sb_spill_rec *call;
};

static void take_launch(void *ctx, const struct sb_span_point *p)
{
	struct claim_ctx *x = ctx;

	x->l[p->i].pair = x->call->pair;
	x->l[p->i].call_id = x->call->call_id;
}

static int find_owners(struct sb_collector *c, struct sb_span_point *r, size_t n_refs,
		       struct sb_gpu_launch *l)
{
	struct sb_spill_rec recs[256];
	struct claim_ctx x = { .l = l };
	ssize_t got, i;

	while ((got = sb_spill_read(c->spill, recs, 256)) > 0)
		for (i = 0; i < got; i++) {
			x.call = &recs[i];
			sb_span_claim(r, n_refs, recs[i].thread, recs[i].start, recs[i].end,
				      recs[i].call_id, take_launch, &x);
		}
	if (got < 0)
		return (int)got;
	return sb_spill_rewind(c->spill);
}

static int add_gpu_time(struct sb_collector *c, const struct sb_gpu_launch *g)
{
	uint64_t *v = sb_hashmap_get(&c->gpu_of, (uint64_t)g->pair, (uint64_t)g->call_id);
	struct sb_stats *s = &c->prof.pairs[g->pair].stats;

	if (!c->gpu_pair[g->pair]) {
		c->gpu_pair[g->pair] = true;
		s->gpu_count = s->count;
		s->gpu_total = 0;
	}
	s->gpu_total += g->gpu_ns;
	if (v) {
		*v += (uint64_t)g->gpu_ns;
		return 0;
	}
	return sb_hashmap_put(&c->gpu_of, (uint64_t)g->pair, (uint64_t)g->call_id,
			      (uint64_t)g->gpu_ns);
}

int sb_collector_attribute_gpu(struct sb_collector *c, struct sb_gpu_launch *l, size_t n)
{
	struct sb_span_point *r;
	size_t n_refs, i;
	int ret;

	/* An aggregate kept no call to give GPU time to: the launches stay unattributed. */
	if (!n || c->aggregate)
		return 0;
	r = index_launches(c, l, n, &n_refs);
	if (!r)
		return -ENOMEM;
	ret = find_owners(c, r, n_refs, l);
	free(r);
	if (ret)
		return ret;
	if (!c->gpu_pair) {
		c->gpu_pair = calloc(c->prof.n_pairs ? c->prof.n_pairs : 1, sizeof(*c->gpu_pair));
		if (!c->gpu_pair)
			return -ENOMEM;
	}
	for (i = 0; i < n && !ret; i++)
		if (l[i].pair >= 0 && (size_t)l[i].pair < c->prof.n_pairs && l[i].gpu_ns >= 0)
			ret = add_gpu_time(c, &l[i]);
	if (!ret && c->gpu_of.len)
		c->prof.columns |= SB_COL_METRIC(SB_METRIC_GPU);
	return ret;
}

int64_t sb_collector_gpu_ns(const struct sb_collector *c, uint32_t pair, int64_t call_id)
{
	uint64_t *v;

	if (!c->gpu_pair || pair >= c->prof.n_pairs || !c->gpu_pair[pair])
		return -1;
	v = sb_hashmap_get(&c->gpu_of, pair, (uint64_t)call_id);
	return v ? (int64_t)*v : 0;
}
