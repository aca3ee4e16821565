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
#include "render/html.h"

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

/*
 * The timeline's GPU layer (struct sb_html_kind_view): pick chooses what to
 * show into a struct sb_html_gpu of its own, 0 or -ENOMEM (memory: O(lanes),
 * and O(total) only while over cap); write is the timeline's "gpu" member,
 * its own lanes, nothing when nothing is shown.
 */
int sb_html_gpu_pick(struct sb_html_layer *l, const struct sb_profile *p, int64_t rank,
		     size_t cap);
int sb_html_gpu_write(FILE *j, const struct sb_html_layer *l, int64_t t0, const uint64_t *lanes,
		      size_t n_lanes);
void sb_html_gpu_release(struct sb_html_layer *l);

#endif
