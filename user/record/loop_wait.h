/*
 * The recording loop's sleep. It ends when there is something to do: the
 * kernel's ring woke its reader (a full enough batch, a process event, a
 * sync), a source has work (wake_fd: the fast path's drainer handed records
 * over), a stop signal came, or the target exited (its pidfd); else at the
 * timeout, which the loop keeps long while nothing happens (issue 26 item 2).
 */
#ifndef SB_LOOP_WAIT_H
#define SB_LOOP_WAIT_H

#include <stdbool.h>
#include <stdint.h>

struct sb_loop_wait {
	int epfd;
	int wake_fd;	/* an eventfd: written by whoever has work for the next turn */
	int stop_fd;	/* sb_stop_signal_fd() */
	bool sees_exit;	/* a pidfd of the target is watched */
};

/* 0 or -errno; wake_fd is made here, usable (and -1 on failure) before the rest. */
int sb_loop_wait_init(struct sb_loop_wait *w);
/* Wake on fd readable too: the kernel's ring (map fd), a pidfd. 0 or -errno. */
int sb_loop_wait_watch(struct sb_loop_wait *w, int fd);
/* Watch the target's pidfd: its exit ends a wait. false when it could not be watched. */
bool sb_loop_wait_exit(struct sb_loop_wait *w, int pidfd);
/* Sleep up to ns (0: only look), then clear the eventfds that ended it. */
void sb_loop_wait(struct sb_loop_wait *w, int64_t ns);
void sb_loop_wait_free(struct sb_loop_wait *w);

#endif
