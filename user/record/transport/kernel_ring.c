/* The kernel's ring buffer as a transport, read up to a point (kernel_ring.h). */
#include <errno.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include <bpf/libbpf.h>

#include "record/transport/kernel_ring.h"

#define WAIT_NS 200000L
/* How long a delivery waits for a record still being written. */
#define DELIVER_NS 50000000LL

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The ring's first page holds the read position, the second the write position. */
static unsigned long position(const void *page)
{
	return __atomic_load_n((const unsigned long *)page, __ATOMIC_ACQUIRE);
}

static void *map_page(int map_fd, long page, long nth)
{
	void *p = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, map_fd, nth * page);

	return p == MAP_FAILED ? NULL : p;
}

void sb_ring_reader_free(struct sb_ring_reader *rr)
{
	if (rr->read_at)
		munmap(rr->read_at, (size_t)rr->page);
	if (rr->write_at)
		munmap(rr->write_at, (size_t)rr->page);
	rr->read_at = NULL;
	rr->write_at = NULL;
}

/* Every record reserved before begun was read (or, unmapped, is taken as read). */
static void reached(struct sb_ring_reader *rr, int64_t begun)
{
	if (begun > rr->watermark_ns)
		rr->watermark_ns = begun;
}

/* Where the kernel's writing is now (0 when the positions are not mapped). */
static unsigned long sb_ring_written(struct sb_ring_reader *rr)
{
	return rr->write_at ? position(rr->write_at) : 0;
}

/*
 * Read up to target, taken after begun: a record reserved before begun lies
 * below it. moving: max_ns counts from the last read that moved on.
 */
static int read_to(struct sb_ring_reader *rr, unsigned long target, int64_t begun, int64_t max_ns,
		   bool moving)
{
	struct timespec wait = { 0, WAIT_NS };
	int64_t until = mono_ns() + max_ns;
	unsigned long was;

	/*
	 * Without the positions a plain read is all there is: it stops at the
	 * first record still being written, and is taken as the best bound known.
	 */
	if (!rr->read_at) {
		ring_buffer__consume(rr->rb);
		reached(rr, begun);
		return -ENOENT;
	}
	for (;;) {
		was = position(rr->read_at);
		ring_buffer__consume(rr->rb);
		if ((long)(position(rr->read_at) - target) >= 0) {
			reached(rr, begun);
			return 0;
		}
		if (moving && position(rr->read_at) != was)
			until = mono_ns() + max_ns;
		if (mono_ns() >= until)
			return -ETIME;
		/* Held by a record still being written: wait for it, not spin. */
		if (position(rr->read_at) == was)
			nanosleep(&wait, NULL);
	}
}

int sb_ring_read_written(struct sb_ring_reader *rr, int64_t max_ns)
{
	int64_t begun = mono_ns();

	return read_to(rr, sb_ring_written(rr), begun, max_ns, false);
}

int sb_ring_read_all(struct sb_ring_reader *rr, int64_t held_ns)
{
	int64_t begun = mono_ns();

	return read_to(rr, sb_ring_written(rr), begun, held_ns, true);
}

/*
 * A delivery that timed out leaves its target to the next: a fork storm
 * writes faster than 50 ms of reading handles, and a target taken afresh
 * each time would never be reached (nor the watermark move).
 */
static int deliver(struct sb_transport *t)
{
	struct sb_ring_reader *rr = (struct sb_ring_reader *)t;
	int ret;

	if (!rr->aiming) {
		rr->aim_ns = mono_ns();
		rr->aim = sb_ring_written(rr);
	}
	ret = read_to(rr, rr->aim, rr->aim_ns, DELIVER_NS, false);
	rr->aiming = ret == -ETIME;

	/* Records still being written are the next delivery's; a plain read is no error either. */
	return ret == -ETIME || ret == -ENOENT ? 0 : ret;
}

static int64_t watermark_ns(const struct sb_transport *t)
{
	return ((const struct sb_ring_reader *)t)->watermark_ns;
}

int sb_ring_reader_init(struct sb_ring_reader *rr, struct ring_buffer *rb, int map_fd)
{
	int ret = 0;

	rr->transport = (struct sb_transport){ "kernel", deliver, watermark_ns };
	rr->watermark_ns = INT64_MIN;
	rr->rb = rb;
	rr->page = sysconf(_SC_PAGESIZE);
	rr->held_at = 0;
	rr->held_since = 0;
	rr->aiming = false;
	rr->read_at = map_page(map_fd, rr->page, 0);
	rr->write_at = map_page(map_fd, rr->page, 1);
	if (!rr->read_at || !rr->write_at) {
		ret = -errno;
		sb_ring_reader_free(rr);
	}
	return ret;
}

int64_t sb_ring_held_ns(struct sb_ring_reader *rr, int64_t now)
{
	unsigned long read, write;

	if (!rr->read_at)
		return 0;
	read = position(rr->read_at);
	write = position(rr->write_at);
	if (read == write || !rr->held_since || read != rr->held_at) {
		rr->held_at = read;
		rr->held_since = read == write ? 0 : now;
		return 0;
	}
	return now - rr->held_since;
}
