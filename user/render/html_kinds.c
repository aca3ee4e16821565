/* Each kind of data's view on the HTML page (render/html.h): one line a kind. */
#include "render/html.h"
#include "render/html_gpu.h"
#include "render/html_samples.h"

/* In the page's order: the GPU lanes, then the sample ticks. */
const struct sb_html_kind_view sb_html_kind_views[] = {
	{ &sb_cuda_kind, sb_html_gpu_nodes, sb_html_gpu_pick, NULL, sb_html_gpu_write,
	  sb_html_gpu_release, NULL },
	{ &sb_samples_kind, NULL, sb_html_ticks_pick, sb_html_ticks_lanes, sb_html_ticks_write,
	  sb_html_ticks_release, sb_html_samples_section },
};

const size_t sb_html_n_kind_views = sizeof(sb_html_kind_views) / sizeof(sb_html_kind_views[0]);
