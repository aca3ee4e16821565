/* The per-call metric columns: one row each. */
#include "model/columns.h"

/* A new per-call column: an id in enum sb_metric and its row here. */
static const struct sb_column_def columns[SB_N_METRICS] = {
	[SB_METRIC_GPU] = { .name = "gpu_durations", .json_name = "gpu_durations_ns",
			    .short_name = "gpu_ns", .unit = "ns", .missing = -1, .sparse = true },
	[SB_METRIC_OFFCPU] = { .name = "offcpu_ns", .json_name = "offcpu_ns",
			       .short_name = "offcpu_ns", .unit = "ns", .missing = -1 },
};

_Static_assert(SB_COL_METRIC(SB_N_METRICS - 1) < 1u << 8, "metric bits run into SB_COL_TIMES");

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
