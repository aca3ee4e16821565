/*
 * The drainer: a thread that copies the fast path's records out of every
 * adopted process's rings into the queue, often enough that a ring (2 MiB a
 * thread) does not fill while the recorder's thread is busy nesting, and a
 * standby on another CPU that makes the passes the drainer does not when its
 * CPU stalls. They do nothing else: they never interpret a record.
 */
#ifndef SB_FAST_DRAINER_H
#define SB_FAST_DRAINER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "record/fast/queue.h"
#include "record/fast/wake.h"

struct sb_fast_mem;

struct sb_fast_drained {
	struct sb_fast_mem *mem;
	void *proc;		/* passed through to the queue's entries */
	bool closed;		/* no longer drained; the recorder unmaps it */
};

struct sb_fast_drainer {
	pthread_t thread;
	bool running;
	pthread_t standby;	/* passes the drainer does not make: its CPU may stall */
	bool standing_by;
	int drain_cpu;		/* where the drainer ran last; the standby keeps off it */
	int64_t last_begun;	/* when the latest pass began, CLOCK_MONOTONIC ns */
	bool filling;		/* a ring fills fast: the standby looks often */
	int64_t fill_ns;	/* the fullest ring's eighth, at the latest pass's rate */
	struct sb_fast_wake wake_drainer;	/* what ends the drainer's sleeps */
	struct sb_fast_wake wake_standby;	/* the standby's */
	const int *unwaking;	/* objects whose writers never wake us (older headers) */
	uint64_t stood_in;	/* passes the standby made */
	int notify_fd;		/* an eventfd the recorder's loop sleeps on (-1: none) */
	pthread_t warmer;	/* keeps warm_bytes of the queue's spares faulted in */
	bool warming;
	pthread_mutex_t warm_lock;	/* with warm_cond: the warming thread's idle sleep */
	pthread_cond_t warm_cond;
	bool warm_idle;		/* it sleeps until a pass copies records */
	uint64_t copied;	/* records copied by every pass so far */
	size_t warm_bytes;	/* once a burst used half of warm_now */
	size_t warm_now;	/* less before that; the warming thread sets it */
	uint64_t reserve_bytes;	/* the queue grows only while more memory than this is available */
	pthread_mutex_t lock;	/* the list of memories, and one pass at a time */
	struct sb_fast_drained *mems;
	size_t n_mems;
	struct sb_fast_queue queue;
	uint64_t pass;		/* passes begun */
	uint64_t refused;	/* passes that left records behind: the queue was full */
	volatile bool stop;
};

/*
 * max_bytes: how much memory the queue may take before records wait in the
 * rings (and may be dropped); warm_bytes of spare chunks are kept faulted in
 * by a thread of its own (from now on, part of it until a burst comes), which also stops the queue growing
 * while the machine has reserve_bytes available or less (0: no such check).
 */
int sb_fast_drainer_init(struct sb_fast_drainer *d, size_t max_bytes, size_t warm_bytes,
			 uint64_t reserve_bytes);
/*
 * Before the first memory: the rings fast_wake writes to, one each for the
 * drainer and the standby, and the count of objects whose writers never fire
 * it (read at each sleep). While that count is 0 they sleep until a writer's
 * ring passes half full instead of looking every 200 us. 0 or -errno.
 */
int sb_fast_drainer_wakes(struct sb_fast_drainer *d, int drainer_ring, int standby_ring,
			  const int *unwaking);
/* Starts the threads on the first memory. */
int sb_fast_drainer_add(struct sb_fast_drainer *d, struct sb_fast_mem *mem, void *proc);
/* After a pass that began once its writers were gone: stop draining it (the caller closes it). */
void sb_fast_drainer_remove(struct sb_fast_drainer *d, struct sb_fast_mem *mem);
/*
 * One pass now, from the caller's thread (the last ones, after stop: within
 * the queue's budget still, and the memory the machine can spare). Records copied.
 */
long sb_fast_drainer_pass(struct sb_fast_drainer *d);
/*
 * A pass from the caller's thread (the recorder's loop, at each turn) unless
 * one began within stale_ns or one is under way: the drainer sleeps until a
 * ring fills, and what fills none waits for these. Records copied.
 */
long sb_fast_drainer_catch_up(struct sb_fast_drainer *d, int64_t stale_ns);
/* The recording began: drops counted so far are not its (sb_fast_mem_begin). */
void sb_fast_drainer_begin(struct sb_fast_drainer *d);
/* The recording ended: passes take no record written from now on (sb_fast_mem_end). */
void sb_fast_drainer_end(struct sb_fast_drainer *d);
/*
 * Records in the rings of mem (NULL: of all), of thread tid (0: of all), that
 * no pass copied yet: sb_fast_mem_unread.
 */
uint64_t sb_fast_drainer_unread(struct sb_fast_drainer *d, const struct sb_fast_mem *mem,
				uint32_t tid);
void sb_fast_drainer_stop(struct sb_fast_drainer *d);
void sb_fast_drainer_free(struct sb_fast_drainer *d);

#endif
