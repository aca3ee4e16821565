/* Each kind of data's view in the speedscope file (export/speedscope_kinds.h): one line a kind. */
#include "export/speedscope_kinds.h"

/* In the file's order. CUDA activity has none: speedscope draws one timeline a thread. */
const struct sb_ss_kind_view *const sb_ss_kind_views[] = {
	&sb_ss_samples_view,
};

const size_t sb_ss_n_kind_views = sizeof(sb_ss_kind_views) / sizeof(sb_ss_kind_views[0]);
