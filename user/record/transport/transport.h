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

#endif
