/* Aggregated region calls: buckets, lookups and the rules of the rows. */
#include <errno.h>
#include <stdlib.h>

#include "model/aggregate.h"
#include "model/columns.h"
#include "util/error.h"

unsigned sb_agg_bucket(int64_t ns)
{
	if (ns < 2)
		return 0;
	return 63u - (unsigned)__builtin_clzll((uint64_t)ns);
}

bool sb_aggregate_has(const struct sb_aggregate *a, unsigned id)
{
	unsigned k;

	for (k = 0; a->on && k < a->n_values; k++)
		if (a->value_ids[k] == id)
			return true;
	return false;
}

unsigned sb_agg_counter_slots(const struct sb_aggregate *a)
{
	unsigned n = 0;

	while (n < SB_COUNTER_SLOTS && sb_aggregate_has(a, SB_METRIC_COUNTER + n))
		n++;
	return n;
}

int64_t sb_agg_value(const struct sb_aggregate *a, size_t r, unsigned id)
{
	unsigned k;

	for (k = 0; k < a->n_values; k++)
		if (a->value_ids[k] == id)
			return a->values[r * a->n_values + k];
	return -1;
}

static int check_row(const struct sb_aggregate *a, size_t i, uint32_t ranks, char *why,
		     size_t len)
{
	const struct sb_agg_row *r = &a->rows[i];
	uint64_t sum = 0;
	unsigned b;

	if (r->rank >= ranks)
		return sb_bad(why, len, "aggregate row %zu: rank %u out of range", i, r->rank);
	if (r->path < 0 || (uint64_t)r->path >= a->n_paths)
		return sb_bad(why, len, "aggregate row %zu: region path %lld out of range", i,
			      (long long)r->path);
	if (r->window < 0 || r->thread < -1)
		return sb_bad(why, len, "aggregate row %zu: negative window or thread", i);
	if (!r->count || r->min < 0 || r->min > r->max || r->total < r->max)
		return sb_bad(why, len, "aggregate row %zu: count, min, max and total disagree", i);
	for (b = 0; b < SB_AGG_BUCKETS; b++) {
		if (r->hist[b] > r->count - sum)
			return sb_bad(why, len, "aggregate row %zu: histogram exceeds the count", i);
		sum += r->hist[b];
	}
	if (sum != r->count)
		return sb_bad(why, len, "aggregate row %zu: histogram sums to %llu of %llu calls",
			      i, (unsigned long long)sum, (unsigned long long)r->count);
	return 0;
}

int sb_aggregate_check(const struct sb_aggregate *a, uint32_t rank_count, char *why, size_t len)
{
	size_t i;
	int ret;

	for (i = 0; i < a->n_paths; i++)
		if (!a->paths[i].name || a->paths[i].parent < -1 ||
		    a->paths[i].parent >= (int64_t)i)
			return sb_bad(why, len, "aggregate path %zu: parent %lld not before it", i,
				      (long long)a->paths[i].parent);
	if (a->window_ns < 0)
		return sb_bad(why, len, "aggregate window of %lld ns", (long long)a->window_ns);
	for (i = 0; i < a->n_rows; i++) {
		ret = check_row(a, i, rank_count, why, len);
		if (ret)
			return ret;
	}
	return 0;
}

void sb_aggregate_free(struct sb_aggregate *a)
{
	size_t i;

	for (i = 0; i < a->n_paths; i++)
		free(a->paths[i].name);
	free(a->paths);
	free(a->rows);
	free(a->value_ids);
	free(a->values);
	*a = (struct sb_aggregate){ 0 };
}
