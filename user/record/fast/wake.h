/*
 * Sleeping until a writer's ring passes half full, the recorder pokes, a
 * timeout or stop. The current header's writers fire fast_wake as their ring
 * passes half full (include/scope_bpf/slow.h); its BPF program writes to a ring of
 * its own for each sleeper, whose descriptor wakes it. So the drainer and its
 * standby sleep while nothing is written instead of looking thousands of
 * times a second.
 */
#ifndef SB_FAST_WAKE_H
#define SB_FAST_WAKE_H

#include <stdbool.h>
#include <stdint.h>

struct ring_buffer;

struct sb_fast_wake {
	int epfd;		/* the wake ring and stop_fd; -1: plain sleeps */
	int stop_fd;		/* an eventfd: stop */
	int poke_fd;		/* an eventfd: look again now (once) */
	struct ring_buffer *rb;	/* empties the ring: what is in it is never used */
};

/* ring_fd: the BPF ring map fast_wake writes to; < 0: plain sleeps only. 0 or -errno. */
int sb_fast_wake_init(struct sb_fast_wake *w, int ring_fd);
/* Whether a writer can end a wait (init had a ring). */
bool sb_fast_wake_ready(const struct sb_fast_wake *w);
/*
 * Sleep up to ns, or (ns < 0, where ready) until woken: true when a writer or
 * a poke woke it, false on a timeout or stop.
 */
bool sb_fast_wake_wait(struct sb_fast_wake *w, int64_t ns);
/* Ends the current wait, or the next one, once (where ready). */
void sb_fast_wake_poke(struct sb_fast_wake *w);
/* Ends the current wait and every later one at once. */
void sb_fast_wake_stop(struct sb_fast_wake *w);
void sb_fast_wake_free(struct sb_fast_wake *w);

#endif
