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
	w->rb = NULL;
	w->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->stop_fd < 0)
		return -errno;
	if (ring_fd < 0)
		return 0;
	w->rb = ring_buffer__new(ring_fd, discard, NULL, NULL);
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!w->rb || w->epfd < 0) {
		ret = -errno;
		goto fail;
	}
	ret = watch(w->epfd, ring_fd, WAKE_TAG);
	if (!ret)
		ret = watch(w->epfd, w->stop_fd, STOP_TAG);
	if (!ret)
		return 0;
fail:
	/* Plain sleeps still: stop_fd stays. */
	if (w->epfd >= 0)
		close(w->epfd);
	ring_buffer__free(w->rb);
	w->epfd = -1;
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
	struct epoll_event ev[2];
	bool woken = false;
	int n, i;

	/* Below a millisecond (epoll's unit) a plain sleep: the caller looks that often anyway. */
	if (w->epfd < 0 || ns < 1000000) {
		plain_sleep(ns);
		return false;
	}
	n = epoll_wait(w->epfd, ev, 2, (int)(ns / 1000000));
	for (i = 0; i < n; i++)
		woken |= ev[i].data.u64 == WAKE_TAG;
	if (woken)
		ring_buffer__consume(w->rb);
	return woken;
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
	ring_buffer__free(w->rb);
	w->epfd = -1;
	w->stop_fd = -1;
	w->rb = NULL;
}
