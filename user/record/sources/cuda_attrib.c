/*
 * The recording's CUDA activity into the profile: GPU work to the API call
 * with its correlation id (the runtime's call where both the runtime and the
 * driver report one), that call to the innermost region call open on its
 * thread, then every activity into p->cuda by rank and start.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/cuda.h"
#include "record/sources/cuda_store.h"

static bool is_api(uint16_t kind)
{
	return kind == SB_CUDA_RUNTIME || kind == SB_CUDA_DRIVER;
}

/* (tgid, correlation id) -> the kept API record that has it. */
static int index_api_calls(const struct sb_cuda_store *s, struct sb_hashmap *api)
{
	const struct sb_cuda_kept *k;
	uint64_t *had;
	size_t i;

	for (i = 0; i < s->n; i++) {
		k = &s->kept[i];
		if (!is_api(k->r.kind))
			continue;
		had = sb_hashmap_get(api, k->tgid, k->r.correlation);
		if (had && !(k->r.kind == SB_CUDA_RUNTIME && s->kept[*had].r.kind == SB_CUDA_DRIVER))
			continue;
		if (sb_hashmap_put(api, k->tgid, k->r.correlation, i))
			return -ENOMEM;
	}
	return 0;
}

struct launches {
	struct sb_gpu_launch *l;
	size_t n;
	struct sb_hashmap of;	/* (tgid, correlation id) -> index in l */
};

/* Sum the GPU time each API call launched. */
static int collect_launches(const struct sb_cuda_store *s, const struct sb_hashmap *api,
			    struct launches *ls)
{
	const struct sb_cuda_kept *k, *call;
	uint64_t *a, *at;
	size_t i;

	ls->l = calloc(s->n ? s->n : 1, sizeof(*ls->l));
	if (!ls->l)
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		k = &s->kept[i];
		a = sb_cuda_on_gpu(k->r.kind) ? sb_hashmap_get(api, k->tgid, k->r.correlation) : NULL;
		if (!a)
			continue;
		at = sb_hashmap_get(&ls->of, k->tgid, k->r.correlation);
		if (!at) {
			call = &s->kept[*a];
			ls->l[ls->n] = (struct sb_gpu_launch){ .tgid = k->tgid, .tid = call->r.tid,
							       .time = (int64_t)call->r.start };
			if (sb_hashmap_put(&ls->of, k->tgid, k->r.correlation, ls->n++))
				return -ENOMEM;
			at = sb_hashmap_get(&ls->of, k->tgid, k->r.correlation);
		}
		ls->l[*at].gpu_ns += (int64_t)(k->r.end - k->r.start);
	}
	return 0;
}

static void fill_act(struct sb_cuda_activity *a, const struct sb_cuda_kept *k, uint32_t rank)
{
	const struct sb_cuda_rec *r = &k->r;

	*a = (struct sb_cuda_activity){
		.rank = rank, .kind = r->kind, .device = r->device, .context = r->context,
		.stream = r->stream, .correlation = r->correlation, .start = (int64_t)r->start,
		.end = (int64_t)r->end, .name = k->name, .bytes = -1, .copy_kind = -1,
		.detail = -1, .thread = -1, .launch_start = -1, .launch_end = -1,
		.call_id = -1, .pair = -1,
	};
	if (r->kind == SB_CUDA_KERNEL) {
		memcpy(a->grid, r->grid, sizeof(a->grid));
		memcpy(a->block, r->block, sizeof(a->block));
	}
	if (r->kind == SB_CUDA_MEMCPY || r->kind == SB_CUDA_MEMSET)
		a->bytes = (int64_t)r->bytes;
	if (r->kind == SB_CUDA_MEMCPY)
		a->copy_kind = r->copy_kind;
	if (r->kind != SB_CUDA_KERNEL && r->kind != SB_CUDA_MEMCPY)
		a->detail = r->detail;
}

/* The host side of an activity: its thread, and for GPU work its launch. */
static void link_act(struct sb_cuda_activity *a, const struct sb_cuda_kept *k,
		     const struct sb_cuda_store *s, const struct sb_hashmap *api,
		     const struct launches *ls, struct sb_collector *c)
{
	uint64_t *call = sb_hashmap_get(api, k->tgid, k->r.correlation), *at;
	const struct sb_gpu_launch *l;

	if (is_api(k->r.kind)) {
		a->thread = sb_collector_thread_row(c, k->tgid, k->r.tid);
		return;
	}
	if (!call)
		return;
	a->thread = sb_collector_thread_row(c, k->tgid, s->kept[*call].r.tid);
	at = sb_cuda_on_gpu(k->r.kind) ? sb_hashmap_get(&ls->of, k->tgid, k->r.correlation) : NULL;
	if (!at)
		return;
	l = &ls->l[*at];
	a->launch_start = (int64_t)s->kept[*call].r.start;
	a->launch_end = (int64_t)s->kept[*call].r.end;
	a->pair = l->pair;
	a->call_id = l->call_id;
}

static int act_cmp(const void *x, const void *y)
{
	const struct sb_cuda_activity *a = x, *b = y;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

/*
 * A process that made no region call has no rank; when no process has one,
 * the activity is all the recording has and goes under rank 0.
 */
static int64_t rank_of(struct sb_collector *c, uint32_t tgid)
{
	int64_t rank = sb_collector_rank(c, tgid);

	return rank < 0 && !c->n_ranks ? 0 : rank;
}

static int fill_profile(struct sb_cuda_store *s, const struct sb_hashmap *api,
			const struct launches *ls, struct sb_collector *c)
{
	struct sb_cuda_data *d = &c->prof.cuda;
	int64_t rank;
	size_t i;

	d->acts = calloc(s->n ? s->n : 1, sizeof(*d->acts));
	if (!d->acts)
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		rank = rank_of(c, s->kept[i].tgid);
		if (rank < 0) {
			s->unranked++;
			continue;
		}
		fill_act(&d->acts[d->n_acts], &s->kept[i], (uint32_t)rank);
		link_act(&d->acts[d->n_acts++], &s->kept[i], s, api, ls, c);
	}
	qsort(d->acts, d->n_acts, sizeof(*d->acts), act_cmp);
	d->names = s->names;
	d->n_names = s->n_names;
	s->names = NULL;
	s->n_names = 0;
	return 0;
}

int sb_cuda_store_contribute(struct sb_cuda_store *s, struct sb_collector *c)
{
	struct launches ls = { 0 };
	struct sb_hashmap api;
	size_t i;
	int ret;

	if (!s->n)
		return 0;
	sb_hashmap_init(&api);
	sb_hashmap_init(&ls.of);
	ret = index_api_calls(s, &api);
	if (!ret)
		ret = collect_launches(s, &api, &ls);
	if (!ret)
		ret = sb_collector_attribute_gpu(c, ls.l, ls.n);
	if (!ret)
		ret = fill_profile(s, &api, &ls, c);
	s->launches = ls.n;
	for (i = 0; i < ls.n; i++)
		s->attributed += ls.l[i].pair >= 0;
	free(ls.l);
	sb_hashmap_free(&ls.of);
	sb_hashmap_free(&api);
	return ret;
}
