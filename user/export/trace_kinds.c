/* Each kind of data's view in the Chrome trace (export/chrome_trace.h): one line a kind. */
#include "export/chrome_trace.h"

/* In the trace's order. Samples have none: the trace draws calls, not stacks. */
const struct sb_trace_kind_view *const sb_trace_kind_views[] = {
	&sb_cuda_trace_view,
};

const size_t sb_trace_n_kind_views = sizeof(sb_trace_kind_views) / sizeof(sb_trace_kind_views[0]);

int64_t sb_trace_origin(const struct sb_profile *p)
{
	int64_t origin = sb_export_origin(p);
	size_t i;

	for (i = 0; i < sb_trace_n_kind_views; i++)
		if (sb_trace_kind_views[i]->origin)
			origin = sb_trace_kind_views[i]->origin(p, origin);
	return origin;
}
