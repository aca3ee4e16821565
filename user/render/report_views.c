/* Each kind of data's view in `scope-bpf report` (render/report_views.h): one line a kind. */
#include "render/report_views.h"

/* In --help's order; of two asked together, the later is refused. */
const struct sb_report_view *const sb_report_views[] = {
	&sb_samples_report_view,
	&sb_mpi_report_view,
	&sb_counters_report_view,
	&sb_memory_report_view,
	&sb_gpu_report_view,
};

const size_t sb_report_n_views = sizeof(sb_report_views) / sizeof(sb_report_views[0]);

static uint32_t bit_of(const struct sb_report_view *v)
{
	size_t i;

	for (i = 0; i < sb_report_n_views; i++)
		if (sb_report_views[i] == v)
			return 1u << i;
	return 0;
}

bool sb_report_asks(const struct report_opts *o, const struct sb_report_view *v)
{
	return o->views & bit_of(v);
}

void sb_report_ask(struct report_opts *o, const struct sb_report_view *v)
{
	o->views |= bit_of(v);
}
