/* Streaming summary statistics: Welford's mean/m2, so one pass over any number of calls. */
#include <math.h>

#include "model/stats.h"

void sb_stats_init(struct sb_stats *s)
{
	*s = (struct sb_stats){
		.minimum = INT64_MAX,
		.maximum = INT64_MIN,
		.start_minimum = INT64_MAX,
		.end_maximum = INT64_MIN,
		.first_start = INT64_MAX,
		.last_start = INT64_MIN,
	};
}

void sb_stats_add(struct sb_stats *s, int64_t start, int64_t end, int64_t gpu)
{
	int64_t d = end - start;
	double delta;

	s->count++;
	s->total += d;
	if (d < s->minimum)
		s->minimum = d;
	if (d > s->maximum)
		s->maximum = d;
	if (start < s->start_minimum)
		s->start_minimum = start;
	if (end > s->end_maximum)
		s->end_maximum = end;
	/* Ties keep the earlier-seen call first and the later-seen call last. */
	if (start < s->first_start) {
		s->first_start = start;
		s->first = d;
	}
	if (start >= s->last_start) {
		s->last_start = start;
		s->last = d;
	}
	if (gpu >= 0) {
		s->gpu_count++;
		s->gpu_total += gpu;
	}
	delta = (double)d - s->mean;
	s->mean += delta / (double)s->count;
	s->m2 += delta * ((double)d - s->mean);
}

void sb_stats_merge(struct sb_stats *a, const struct sb_stats *b)
{
	double n, delta;

	if (!b->count)
		return;
	if (!a->count) {
		*a = *b;
		return;
	}
	n = (double)a->count + (double)b->count;
	delta = b->mean - a->mean;
	a->mean += delta * (double)b->count / n;
	a->m2 += b->m2 + delta * delta * (double)a->count * (double)b->count / n;
	a->count += b->count;
	a->total += b->total;
	if (b->minimum < a->minimum)
		a->minimum = b->minimum;
	if (b->maximum > a->maximum)
		a->maximum = b->maximum;
	if (b->start_minimum < a->start_minimum)
		a->start_minimum = b->start_minimum;
	if (b->end_maximum > a->end_maximum)
		a->end_maximum = b->end_maximum;
	if (b->first_start < a->first_start) {
		a->first_start = b->first_start;
		a->first = b->first;
	}
	if (b->last_start >= a->last_start) {
		a->last_start = b->last_start;
		a->last = b->last;
	}
	a->gpu_count += b->gpu_count;
	a->gpu_total += b->gpu_total;
}

double sb_stats_stddev(const struct sb_stats *s)
{
	return s->count > 1 ? sqrt(s->m2 / (double)(s->count - 1)) : 0.0;
}
