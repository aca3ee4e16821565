/* Each kind of data's tracks in the Perfetto trace (export/perfetto.h): one line a kind. */
#include "export/perfetto.h"

/* In the trace's order: the GPU lanes, then the CPU samples. */
const struct pf_kind_view pf_kind_views[] = {
	{ &sb_cuda_kind, pf_gpu_export },
	{ &sb_samples_kind, pf_samples_export },
};

const size_t pf_n_kind_views = sizeof(pf_kind_views) / sizeof(pf_kind_views[0]);
