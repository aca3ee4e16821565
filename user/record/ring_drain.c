/* The last read of the kernel's ring waits for records still being written (ring_drain.h). */
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

int sb_ring_drain(struct ring_buffer *rb, int map_fd, int64_t max_ns)
{
	long page = sysconf(_SC_PAGESIZE);
	struct timespec wait = { 0, WAIT_NS };
	int64_t until = mono_ns() + max_ns;
	void *read_at, *write_at;
	int ret = 0;

	ring_buffer__consume(rb);
	read_at = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, map_fd, 0);
	write_at = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, map_fd, page);
	if (read_at == MAP_FAILED || write_at == MAP_FAILED) {
		ret = -errno;
		goto out;
	}
	while (position(read_at) != position(write_at)) {
		if (mono_ns() >= until) {
			ret = -ETIME;
			break;
		}
		nanosleep(&wait, NULL);
		ring_buffer__consume(rb);
	}
out:
	if (read_at != MAP_FAILED)
		munmap(read_at, (size_t)page);
	if (write_at != MAP_FAILED)
		munmap(write_at, (size_t)page);
	return ret;
}
