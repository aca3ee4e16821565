/*
 * The roofline of a LIKWID group's recording: per region, the FLOP rate and
 * the bandwidth of the group's own metrics, and their ratio, the arithmetic
 * intensity (docs/HTML.md "Roofline").
 */
#ifndef SB_ANALYSIS_ROOFLINE_H
#define SB_ANALYSIS_ROOFLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

struct sb_roofline_point {
	uint32_t region;
	double gflops;		/* the threads' FLOP rates summed, 1e9 FLOP/s */
	double gbs;		/* their bandwidths summed, 1e9 bytes/s */
	double intensity;	/* gflops / gbs: FLOP per byte */
};

struct sb_roofline {
	bool available;		/* the group has a FLOP rate and a bandwidth metric */
	char *flop_metric;	/* e.g. "DP [MFLOP/s]" */
	char *bw_metric;	/* e.g. "Memory bandwidth [MBytes/s]" */
	struct sb_roofline_point *points;	/* by region id; regions without both left out */
	size_t n_points;
};

/*
 * The points of p's regions (rank >= 0: of that rank only). Not available
 * (0, r->available false) without a LIKWID group, its group file, or a
 * metric of each kind in it. 0 or -ENOMEM.
 */
int sb_roofline_build(struct sb_roofline *r, const struct sb_profile *p, int64_t rank);

void sb_roofline_free(struct sb_roofline *r);

#endif
