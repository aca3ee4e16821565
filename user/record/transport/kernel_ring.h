/*
 * The kernel's BPF ring buffer as a transport (transport.h), read up to a
 * point. A read stops at a record reserved on another CPU and not yet
 * submitted, and the recorder's reads yield after a budget (a sync storm
 * never ends on its own); but a reader that needs what was written before an
 * instant (the fast path's sites, named before their records; the order of
 * a thread's records across the two transports; the last read of a
 * recording, a thread's exit record under emulation) must not stop short,
 * or it loses them uncounted.
 */
#ifndef SB_RECORD_TRANSPORT_KERNEL_RING_H
#define SB_RECORD_TRANSPORT_KERNEL_RING_H

#include <stdbool.h>
#include <stdint.h>

#include "record/transport/transport.h"

struct ring_buffer;

struct sb_ring_reader {
	/*
	 * deliver: sb_ring_read_written for up to 50 ms, to the target of
	 * the delivery before when that one timed out. Watermark: when the
	 * latest read that reached its target began (the first that aimed at it). Every record reserved
	 * before then is read, and a thread's record is reserved before the
	 * thread runs on (a probe's program runs in the thread that hit it).
	 * First: the interface's pointer is this one's.
	 */
	struct sb_transport transport;
	int64_t watermark_ns;	/* INT64_MIN: no such read yet */
	struct ring_buffer *rb;
	void *read_at;		/* the ring's read position page, or NULL */
	void *write_at;		/* its write position page, or NULL */
	long page;
	unsigned long held_at;	/* the read position sb_ring_held_ns last saw held */
	int64_t held_since;	/* since when (0: not held) */
	bool aiming;		/* a delivery timed out short of aim */
	unsigned long aim;	/* the write position it took, */
	int64_t aim_ns;		/* after this instant */
};

/* Map the positions of rb (the ring map map_fd); 0 or -errno (then reads are plain reads). */
int sb_ring_reader_init(struct sb_ring_reader *rr, struct ring_buffer *rb, int map_fd);
void sb_ring_reader_free(struct sb_ring_reader *rr);

/*
 * Read until every record written before this call is read, for at most
 * max_ns. 0 when it was (the watermark moves to when the call began), -ETIME
 * when a record stayed reserved that long, -ENOENT when the positions are not
 * mapped (one plain read was done, and taken as reaching the call's start:
 * unproven, but mapping a ring buffer map does not fail where it loaded).
 */
int sb_ring_read_written(struct sb_ring_reader *rr, int64_t max_ns);

/*
 * sb_ring_read_written however long the backlog takes to read (the last read
 * of a recording, behind a loaded machine's flood): -ETIME only when the
 * read stood at one record for held_ns.
 */
int sb_ring_read_all(struct sb_ring_reader *rr, int64_t held_ns);

/*
 * How long the read position has stood at a record the kernel wrote past
 * (reserved, not yet committed), as of now; 0 when reads move on or the ring
 * is empty. A BPF program holds a record for microseconds: seconds mean one
 * never finished, and every record behind it waits (the recorder's loop
 * then stops spinning on a ring that polls ready, and lets held processes go).
 */
int64_t sb_ring_held_ns(struct sb_ring_reader *rr, int64_t now);

#endif
