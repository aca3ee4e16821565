/* A merge's clock refinement: collective calls bound the realtime-offset estimate. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/merge_clock.h"
#include "model/mpi_sync.h"

static struct sb_sync_call *find_call(struct sb_sync_call *v, size_t n, const char *name,
				      bool last)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].last == last && !strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* Rank p's call c into the file's view of it: the ranks must agree on the count. */
static void fold(struct sb_sync_call *s, const struct sb_pair *p, const struct sb_call_span *c)
{
	if (s->count != p->count)
		s->count = 0;
	if (c->entry > s->max_entry)
		s->max_entry = c->entry;
	if (c->exit < s->min_exit)
		s->min_exit = c->exit;
}

static int add_call(struct sb_sync_call **v, size_t *n, size_t *cap, const char *name,
		    bool last, const struct sb_pair *p, const struct sb_call_span *c)
{
	struct sb_sync_call *s = find_call(*v, *n, name, last), *grown;

	if (s) {
		fold(s, p, c);
		return 0;
	}
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		grown = realloc(*v, *cap * sizeof(**v));
		if (!grown)
			return -ENOMEM;
		*v = grown;
	}
	(*v)[(*n)++] = (struct sb_sync_call){ name, last, p->count, c->entry, c->exit };
	return 0;
}

int sb_sync_calls(const struct sb_profile *p, struct sb_sync_call **out, size_t *n)
{
	const struct sb_pair *q;
	struct sb_call_span c;
	const char *name;
	size_t i, cap = 0;
	int ret = 0;

	*out = NULL;
	*n = 0;
	for (i = 0; i < p->n_pairs && !ret; i++) {
		q = &p->pairs[i];
		name = p->regions[q->region].name;
		if (sb_mpi_sync_kind(name) == SB_SYNC_NONE)
			continue;
		if (sb_pair_first_call(q, &c))
			ret = add_call(out, n, &cap, name, false, q, &c);
		if (!ret && q->count > 1 && sb_pair_last_call(q, &c))
			ret = add_call(out, n, &cap, name, true, q, &c);
	}
	return ret;
}

int sb_shift_bounds(const struct sb_sync_call *ref, size_t n_ref, const struct sb_sync_call *q,
		    size_t n_q, struct sb_shift_bounds *b)
{
	const struct sb_sync_call *r;
	int64_t lo, hi;
	size_t i, k;

	*b = (struct sb_shift_bounds){ INT64_MIN, INT64_MAX, 0 };
	for (i = 0; i < n_q; i++) {
		for (r = NULL, k = 0; k < n_ref && !r; k++)
			if (ref[k].last == q[i].last && !strcmp(ref[k].name, q[i].name))
				r = &ref[k];
		if (!r || !r->count || r->count != q[i].count)
			continue;
		if (__builtin_sub_overflow(r->max_entry, q[i].min_exit, &lo) ||
		    __builtin_sub_overflow(r->min_exit, q[i].max_entry, &hi))
			return -ERANGE;
		if (lo > b->lo)
			b->lo = lo;
		if (hi < b->hi)
			b->hi = hi;
		b->witnesses++;
	}
	return 0;
}

/* (lo + hi) / 2 rounded toward lo, for any two int64 values with lo <= hi. */
static int64_t middle(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(((uint64_t)hi - (uint64_t)lo) / 2);
}

int sb_shift_refine(int64_t estimate, bool known, const struct sb_shift_bounds *b,
		    int64_t *shift, const char **method)
{
	bool has_lo = b->witnesses && b->lo != INT64_MIN, has_hi = b->witnesses && b->hi != INT64_MAX;

	*shift = known ? estimate : 0;
	*method = known ? "realtime offsets" : "unknown";
	if (!b->witnesses)
		return 0;
	if (b->lo > b->hi) {
		*method = known ? "realtime offsets; collective bounds contradict, not refined"
				: "unknown; collective bounds contradict";
		return 1;
	}
	if (!known) {
		*shift = has_lo && has_hi ? middle(b->lo, b->hi) : has_lo ? b->lo : has_hi ? b->hi : 0;
		*method = has_lo && has_hi ? "middle of the collective bounds"
			: has_lo || has_hi ? "the one collective bound" : "unknown";
	} else if (estimate < b->lo) {
		*shift = b->lo;
		*method = "realtime offsets, moved up to the lower collective bound";
	} else if (estimate > b->hi) {
		*shift = b->hi;
		*method = "realtime offsets, moved down to the upper collective bound";
	} else {
		*method = "realtime offsets, within the collective bounds";
	}
	return 0;
}
