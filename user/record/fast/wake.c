/* Sleeping until a writer wakes us (wake.h). */
#include <errno.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include <bpf/libbpf.h>

#include "record/fast/wake.h"

#define WAKE_TAG 1
#define STOP_TAG 2
#define POKE_TAG 3
#define NO_WAKE_NS 1000000	/* what a sleep until woken is where nothing can wake it */

static int discard(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

static int watch(int epfd, int fd, uint64_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int sb_fast_wake_init(struct sb_fast_wake *w, int ring_fd)
{
	int ret;

	w->epfd = -1;
	w->poke_fd = -1;
	w->rb = NULL;
	w->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->stop_fd < 0)
		return -errno;
	if (ring_fd < 0)
		return 0;
	w->rb = ring_buffer__new(ring_fd, discard, NULL, NULL);
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	w->poke_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!w->rb || w->epfd < 0 || w->poke_fd < 0) {
		ret = -errno;
		goto fail;
	}
	ret = watch(w->epfd, ring_fd, WAKE_TAG);
	if (!ret)
		ret = watch(w->epfd, w->stop_fd, STOP_TAG);
	if (!ret)
		ret = watch(w->epfd, w->poke_fd, POKE_TAG);
	if (!ret)
		return 0;
fail:
	/* Plain sleeps still: stop_fd stays. */
	if (w->epfd >= 0)
		close(w->epfd);
	if (w->poke_fd >= 0)
		close(w->poke_fd);
	ring_buffer__free(w->rb);
	w->epfd = -1;
	w->poke_fd = -1;
	w->rb = NULL;
	return ret;
}

bool sb_fast_wake_ready(const struct sb_fast_wake *w)
{
	return w->epfd >= 0;
}

static void plain_sleep(int64_t ns)
{
	struct timespec ts = { ns / 1000000000LL, ns % 1000000000LL };

	nanosleep(&ts, NULL);
}

bool sb_fast_wake_wait(struct sb_fast_wake *w, int64_t ns)
{
	struct epoll_event ev[3];
	bool woken = false;
	uint64_t pokes;
	int n, i;

	if (w->epfd < 0) {
		plain_sleep(ns < 0 ? NO_WAKE_NS : ns);
		return false;
	}
	/* Below a millisecond (epoll's unit) a plain sleep: the caller looks that often anyway. */
	if (ns >= 0 && ns < 1000000) {
		plain_sleep(ns);
		return false;
	}
	n = epoll_wait(w->epfd, ev, 3, ns < 0 ? -1 : (int)(ns / 1000000));
	for (i = 0; i < n; i++) {
		if (ev[i].data.u64 == WAKE_TAG)
			ring_buffer__consume(w->rb);
		/* Emptied: a poke ends one wait, not every later one. */
		if (ev[i].data.u64 == POKE_TAG && read(w->poke_fd, &pokes, sizeof(pokes)) < 0)
			pokes = 0;
		woken |= ev[i].data.u64 != STOP_TAG;
	}
	return woken;
}

void sb_fast_wake_poke(struct sb_fast_wake *w)
{
	uint64_t one = 1;

	if (w->poke_fd >= 0 && write(w->poke_fd, &one, sizeof(one)) < 0)
		return;
}

void sb_fast_wake_stop(struct sb_fast_wake *w)
{
	uint64_t one = 1;

	if (w->stop_fd >= 0 && write(w->stop_fd, &one, sizeof(one)) < 0)
		return;
}

void sb_fast_wake_free(struct sb_fast_wake *w)
{
	if (w->epfd >= 0)
		close(w->epfd);
	if (w->stop_fd >= 0)
		close(w->stop_fd);
	if (w->poke_fd >= 0)
		close(w->poke_fd);
	ring_buffer__free(w->rb);
	w->epfd = -1;
	w->stop_fd = -1;
	w->poke_fd = -1;
	w->rb = NULL;
}
