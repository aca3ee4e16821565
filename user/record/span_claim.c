/* Points in time to the innermost span holding them (span_claim.h). */
#include <stdlib.h>

#include "record/span_claim.h"

static int point_cmp(const void *a, const void *b)
{
	const struct sb_span_point *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->time > y->time) - (x->time < y->time);
}

void sb_span_points_sort(struct sb_span_point *p, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		p[k].owner_id = -1;
	qsort(p, n, sizeof(*p), point_cmp);
}

/* The first point at or after (thread, time). */
static size_t first_at(const struct sb_span_point *p, size_t n, uint64_t thread, int64_t time)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p[mid].thread < thread || (p[mid].thread == thread && p[mid].time < time))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void sb_span_claim(struct sb_span_point *p, size_t n, uint64_t thread, int64_t start,
		   int64_t end, int64_t id, sb_span_take_fn take, void *ctx)
{
	size_t k = first_at(p, n, thread, start);
	struct sb_span_point *x;

	for (; k < n && p[k].thread == thread && p[k].time <= end; k++) {
		x = &p[k];
		if (x->owner_id >= 0 && (start < x->owner_start ||
					 (start == x->owner_start && id < x->owner_id)))
			continue;
		x->owner_start = start;
		x->owner_id = id;
		take(ctx, x);
	}
}
