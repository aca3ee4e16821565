/*
 * The HTML report's GPU data: the summary's GPU time per call path, and the
 * timeline's GPU lanes (which kernels, copies and memsets the page gets).
 */
#ifndef SB_HTML_GPU_H
#define SB_HTML_GPU_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/calltree.h"
#include "model/gpu_lanes.h"
#include "model/model.h"

/*
 * The "gpu_nodes" member: each call tree row's GPU time (data "nodes", same
 * order; null where unknown), as report's GPU columns show it; nothing when
 * no call has a GPU time.
 */
void sb_html_gpu_nodes(FILE *j, const struct sb_profile *p, const struct sb_calltree *t);

/*
 * The GPU work the timeline shows: all of it, or the longest cap pieces
 * (the rule the host calls follow), of one rank or all (rank -1).
 */
struct sb_html_gpu {
	const struct sb_profile *p;
	int64_t rank;
	size_t total;		/* GPU activities after the rank filter */
	size_t shown;
	int64_t shorter;	/* shorter ones are left out */
	size_t ties;		/* ones exactly this long to keep, in profile order */
	int64_t t0, t1;		/* first start and last end of the kept ones */
	struct sb_gpu_lanes lanes;	/* of the kept ones */
};

/* Choose what to show: 0 or -ENOMEM. Memory: O(lanes), and O(total) only while over cap. */
int sb_html_gpu_pick(struct sb_html_gpu *g, const struct sb_profile *p, int64_t rank,
		     size_t cap);
/* The timeline's "gpu" member (times after t0); nothing when nothing is shown. */
void sb_html_gpu_write(FILE *j, const struct sb_html_gpu *g, int64_t t0);
void sb_html_gpu_free(struct sb_html_gpu *g);

#endif
