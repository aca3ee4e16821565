/* The recording loop's sleep (loop_wait.h). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "record/loop_wait.h"
#include "record/stop_signal.h"

#define MAX_EVENTS 8

int sb_loop_wait_init(struct sb_loop_wait *w)
{
	int ret;

	w->sees_exit = false;
	w->stop_fd = sb_stop_signal_fd();
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	w->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->epfd < 0 || w->wake_fd < 0) {
		ret = -errno;
		sb_loop_wait_free(w);
		return ret;
	}
	ret = sb_loop_wait_watch(w, w->wake_fd);
	if (!ret && w->stop_fd >= 0)
		ret = sb_loop_wait_watch(w, w->stop_fd);
	if (ret)
		sb_loop_wait_free(w);
	return ret;
}

int sb_loop_wait_watch(struct sb_loop_wait *w, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	if (w->epfd < 0)
		return -EBADF;
	return epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

bool sb_loop_wait_exit(struct sb_loop_wait *w, int pidfd)
{
	if (pidfd >= 0 && !sb_loop_wait_watch(w, pidfd))
		w->sees_exit = true;
	return w->sees_exit;
}

/* An eventfd that ended the wait is emptied: level-triggered, it would end every later one. */
static void clear(int fd)
{
	uint64_t n;

	if (read(fd, &n, sizeof(n)) < 0)
		return;
}

void sb_loop_wait(struct sb_loop_wait *w, int64_t ns)
{
	struct epoll_event ev[MAX_EVENTS];
	struct timespec ts;
	int64_t ms;
	int n, i;

	if (w->epfd < 0) {
		ts = (struct timespec){ ns / 1000000000LL, ns % 1000000000LL };
		nanosleep(&ts, NULL);
		return;
	}
	/* Rounded up: a wait for the status line or -d ends at it or after, not just before. */
	ms = (ns + 999999) / 1000000;
	n = epoll_wait(w->epfd, ev, MAX_EVENTS, ms > INT_MAX ? INT_MAX : (int)ms);
	for (i = 0; i < n; i++)
		if (ev[i].data.fd == w->wake_fd || ev[i].data.fd == w->stop_fd)
			clear(ev[i].data.fd);
}

void sb_loop_wait_free(struct sb_loop_wait *w)
{
	if (w->epfd >= 0)
		close(w->epfd);
	if (w->wake_fd >= 0)
		close(w->wake_fd);
	w->epfd = -1;
	w->wake_fd = -1;
	w->sees_exit = false;
}
