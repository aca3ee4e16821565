/*
 * Reading the kernel's ring buffer up to a point. A read stops at a record
 * reserved on another CPU and not yet submitted, and the recorder's reads
 * yield after a budget (a sync storm never ends on its own); but a reader
 * that needs what was written before an instant (the fast path's sites,
 * named before their records; the last read of a recording, a thread's exit
 * record under emulation) must not stop short, or it loses them uncounted.
 */
#ifndef SB_RING_DRAIN_H
#define SB_RING_DRAIN_H

#include <stdint.h>

struct ring_buffer;

struct sb_ring_reader {
	struct ring_buffer *rb;
	void *read_at;		/* the ring's read position page, or NULL */
	void *write_at;		/* its write position page, or NULL */
	long page;
	unsigned long held_at;	/* the read position sb_ring_held_ns last saw held */
	int64_t held_since;	/* since when (0: not held) */
};

/* Map the positions of rb (the ring map map_fd); 0 or -errno (then reads are plain reads). */
int sb_ring_reader_init(struct sb_ring_reader *rr, struct ring_buffer *rb, int map_fd);
void sb_ring_reader_free(struct sb_ring_reader *rr);

/*
 * Read until every record written before this call is read, for at most
 * max_ns. 0 when it was, -ETIME when it was not by then (a record stayed
 * reserved that long, or the records took that long to handle), -ENOENT
 * when the positions are not mapped (one plain read was done).
 */
int sb_ring_read_written(struct sb_ring_reader *rr, int64_t max_ns);
/* The same in two steps: where the writing is now (0 when not mapped), and reading up to there. */
unsigned long sb_ring_written(struct sb_ring_reader *rr);
int sb_ring_read_to(struct sb_ring_reader *rr, unsigned long target, int64_t max_ns);

/*
 * How long the read position has stood at a record the kernel wrote past
 * (reserved, not yet committed), as of now; 0 when reads move on or the ring
 * is empty. A BPF program holds a record for microseconds: seconds mean one
 * never finished, and every record behind it waits (the recorder's loop
 * then stops spinning on a ring that polls ready, and lets held processes go).
 */
int64_t sb_ring_held_ns(struct sb_ring_reader *rr, int64_t now);

#endif
