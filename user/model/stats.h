/* Streaming summary statistics of one region's calls (the summary_statistics compound). */
#ifndef SB_STATS_H
#define SB_STATS_H

#include <stdint.h>

/* Field order and meaning follow FORMAT.md; all times in ns. */
struct sb_stats {
	int64_t total;
	int64_t minimum;
	int64_t maximum;
	int64_t first;		/* duration of the call that started first */
	int64_t last;		/* duration of the call that started last */
	int64_t start_minimum;
	int64_t end_maximum;
	uint64_t gpu_count;
	int64_t gpu_total;
	double mean;
	double m2;		/* sum of squared deviations from the mean */
	/* Not on disk: the index row's event_counts, and the starts that pick first/last. */
	uint64_t count;
	int64_t first_start;
	int64_t last_start;
};

void sb_stats_init(struct sb_stats *s);
/* Add one call; calls may arrive in any order. gpu < 0 means no GPU work. */
void sb_stats_add(struct sb_stats *s, int64_t start, int64_t end, int64_t gpu);

#endif
