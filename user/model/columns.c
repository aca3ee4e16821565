/* The per-call metric columns: one row each. */
#include "model/columns.h"

/*
 * Counter slot i, inclusive and exclusive: the event it counts is the
 * recording's (metadata counter_events), so the names are the slot's. A call
 * whose thread had no counter lacks a value, hence sparse.
 */
#define COUNTER(i)								\
	[SB_METRIC_COUNTER + (i)] = { .name = "counter_" #i, .json_name = "counter_" #i,	\
				      .short_name = "ctr" #i, .unit = "", .missing = -1,	\
				      .sparse = true, .listed_when_recorded = true },	\
	[SB_METRIC_COUNTER_EXCL + (i)] = { .name = "counter_excl_" #i,		\
					   .json_name = "counter_excl_" #i,		\
					   .short_name = "ctr" #i "_excl", .unit = "",	\
					   .missing = -1, .sparse = true,		\
					   .listed_when_recorded = true }

/* A new per-call column: an id in enum sb_metric and its row here. */
static const struct sb_column_def columns[SB_N_METRICS] = {
	[SB_METRIC_GPU] = { .name = "gpu_durations", .json_name = "gpu_durations_ns",
			    .short_name = "gpu_ns", .unit = "ns", .missing = -1, .sparse = true },
	[SB_METRIC_OFFCPU] = { .name = "offcpu_ns", .json_name = "offcpu_ns",
			       .short_name = "offcpu_ns", .unit = "ns", .missing = -1 },
	COUNTER(0), COUNTER(1), COUNTER(2), COUNTER(3),
	COUNTER(4), COUNTER(5), COUNTER(6), COUNTER(7),
};

_Static_assert(SB_COUNTER_SLOTS == 8, "one COUNTER(i) row per slot");
_Static_assert(SB_COL_METRIC(SB_N_METRICS - 1) < 1u << 30, "metric bits run into SB_COL_TIMES");

const struct sb_column_def *sb_column(unsigned id)
{
	return &columns[id];
}

void sb_metrics_blank(int64_t *metric)
{
	unsigned id;

	for (id = 0; id < SB_N_METRICS; id++)
		metric[id] = columns[id].missing;
}

unsigned sb_column_export_id(unsigned k)
{
	static const unsigned first[] = { SB_METRIC_OFFCPU, SB_METRIC_GPU };

	return k < sizeof(first) / sizeof(first[0]) ? first[k] : k;
}
