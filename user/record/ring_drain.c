/* Reading the kernel's ring up to a point (ring_drain.h). */
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include <bpf/libbpf.h>

#include "record/ring_drain.h"

#define WAIT_NS 200000L

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

int sb_ring_reader_init(struct sb_ring_reader *rr, struct ring_buffer *rb, int map_fd)
{
	int ret = 0;

	rr->rb = rb;
	rr->page = sysconf(_SC_PAGESIZE);
	rr->held_at = 0;
	rr->held_since = 0;
	rr->read_at = map_page(map_fd, rr->page, 0);
	rr->write_at = map_page(map_fd, rr->page, 1);
	if (!rr->read_at || !rr->write_at) {
		ret = -errno;
		sb_ring_reader_free(rr);
	}
	return ret;
}

unsigned long sb_ring_written(struct sb_ring_reader *rr)
{
	return rr->write_at ? position(rr->write_at) : 0;
}

int sb_ring_read_to(struct sb_ring_reader *rr, unsigned long target, int64_t max_ns)
{
	struct timespec wait = { 0, WAIT_NS };
	int64_t until = mono_ns() + max_ns;
	unsigned long was;

	if (!rr->read_at) {
		ring_buffer__consume(rr->rb);
		return -ENOENT;
	}
	for (;;) {
		was = position(rr->read_at);
		if ((long)(was - target) >= 0)
			return 0;
		ring_buffer__consume(rr->rb);
		if ((long)(position(rr->read_at) - target) >= 0)
			return 0;
		if (mono_ns() >= until)
			return -ETIME;
		/* Held by a record still being written: wait for it, not spin. */
		if (position(rr->read_at) == was)
			nanosleep(&wait, NULL);
	}
}

int sb_ring_read_written(struct sb_ring_reader *rr, int64_t max_ns)
{
	return sb_ring_read_to(rr, sb_ring_written(rr), max_ns);
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
