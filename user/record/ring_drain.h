/*
 * The kernel's ring buffer read to its end. A record reserved on another CPU
 * and not yet submitted stops a read at it; the records after it wait for the
 * next read. The last read of a recording must therefore wait for it, or it
 * loses them without a count (a thread's exit record, under emulation).
 */
#ifndef SB_RING_DRAIN_H
#define SB_RING_DRAIN_H

#include <stdint.h>

struct ring_buffer;

/*
 * Read rb (the ring map map_fd) until the kernel's write position is the
 * read position, for at most max_ns. 0 when it was, -ETIME when a record
 * stayed reserved that long, -errno when the positions cannot be mapped
 * (then one plain read was done).
 */
int sb_ring_drain(struct ring_buffer *rb, int map_fd, int64_t max_ns);

#endif
