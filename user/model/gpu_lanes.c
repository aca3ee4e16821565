/* GPU lanes: one sorted set of (rank, device, stream), grown by insertion. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/gpu_lanes.h"

static int cmp_lane(const struct sb_gpu_lane *x, const struct sb_gpu_lane *y)
{
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return (x->stream > y->stream) - (x->stream < y->stream);
}

/* Where key is, or would go, in the sorted lanes. */
static size_t lane_at(const struct sb_gpu_lanes *l, const struct sb_gpu_lane *key)
{
	size_t lo = 0, hi = l->n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (cmp_lane(&l->at[mid], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int sb_gpu_lanes_add(struct sb_gpu_lanes *l, const struct sb_cuda_activity *a)
{
	struct sb_gpu_lane key = { a->rank, a->device, a->stream }, *v;
	size_t at = lane_at(l, &key);

	if (at < l->n && !cmp_lane(&l->at[at], &key))
		return 0;
	if (l->n == l->cap) {
		v = realloc(l->at, (l->cap ? 2 * l->cap : 8) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->at = v;
		l->cap = l->cap ? 2 * l->cap : 8;
	}
	memmove(&l->at[at + 1], &l->at[at], (l->n - at) * sizeof(key));
	l->at[at] = key;
	l->n++;
	return 0;
}

long sb_gpu_lane_of(const struct sb_gpu_lanes *l, const struct sb_cuda_activity *a)
{
	struct sb_gpu_lane key = { a->rank, a->device, a->stream };
	size_t at = lane_at(l, &key);

	return at < l->n && !cmp_lane(&l->at[at], &key) ? (long)at : -1;
}

void sb_gpu_lanes_free(struct sb_gpu_lanes *l)
{
	free(l->at);
	*l = (struct sb_gpu_lanes){ 0 };
}
