/*
 * A transport: one way a traced thread's records reach the recorder. Two
 * backends: the kernel's BPF ring buffer (kernel_ring.c) and the fast path's
 * shared-memory rings (fast_rings.c). Records of one thread may come by
 * either, so the consumer orders them by time, and needs to know when a time
 * is safe: merge.c releases what is held at T only once every backend's
 * watermark passed T (docs/DESIGN.md, "Transports and their order").
 */
#ifndef SB_RECORD_TRANSPORT_H
#define SB_RECORD_TRANSPORT_H

#include <stdint.h>

struct sb_transport {
	const char *name;
	/*
	 * Bring in what the backend holds now; its records go to their
	 * consumer (the sources' hooks, the fast path's nester). 0 or -errno.
	 */
	int (*deliver)(struct sb_transport *t);
	/*
	 * The profile's clock (CLOCK_MONOTONIC ns) before which every record
	 * this backend's writers finished has been delivered and consumed:
	 * a thread's record stamped at T was finished before its next record
	 * was stamped, so past T nothing of that thread before T is still to
	 * come. INT64_MIN while nothing is proven.
	 */
	int64_t (*watermark_ns)(const struct sb_transport *t);
};

/*
 * What a transport could not deliver as calls, beside the kernel's own
 * counters (the kernel ring's losses are counted in BPF): the regions source
 * writes the profile's loss keys from both, each key the sum of the two.
 */
struct sb_transport_losses {
	uint64_t calls;		/* lost_events: records lost, two of them one call */
	uint64_t bad_sites;	/* invalid_sites: calls at invalid descriptors */
	uint64_t overflow;	/* depth_overflow_calls: calls deeper than SB_MAX_DEPTH */
	uint64_t unmatched;	/* unmatched_region_ends: ends without a begin */
	uint64_t threads_full;	/* threads_dropped: calls of threads the nesting had no room for */
};

#endif
