/*
 * GPU lanes: the (rank, device, stream) triples a profile's GPU work ran on,
 * sorted and unique. Every view that draws GPU work on a lane per stream
 * (Chrome trace, Perfetto, OTF2, the HTML timeline) finds its lanes here.
 */
#ifndef SB_GPU_LANES_H
#define SB_GPU_LANES_H

#include <stddef.h>
#include <stdint.h>

#include "model/cuda.h"

struct sb_gpu_lane {
	uint32_t rank;
	int64_t device;
	int64_t stream;
};

struct sb_gpu_lanes {
	struct sb_gpu_lane *at;		/* sorted by rank, device, stream; unique */
	size_t n;
	size_t cap;
};

/* Add a's lane unless it is there: 0 or -ENOMEM. Lanes are few, activities many. */
int sb_gpu_lanes_add(struct sb_gpu_lanes *l, const struct sb_cuda_activity *a);

/* The index of a's lane, or -1 when it has none in l. */
long sb_gpu_lane_of(const struct sb_gpu_lanes *l, const struct sb_cuda_activity *a);

void sb_gpu_lanes_free(struct sb_gpu_lanes *l);

#endif
