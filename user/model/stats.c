/* Streaming summary statistics: Welford's mean/m2, so one pass over any number of calls. */
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
