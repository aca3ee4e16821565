/*
 * The ordered merge over the transports (transport.h): records that must
 * not be applied before every record of their time has come by every
 * backend (a thread's exit, which drops its open calls; an exec or a
 * process's exit, which closes its fast-path memory) are held here in time
 * order and released once the least of the backends' watermarks passed
 * their time, as perf releases its ordered events a round at a time. The
 * fast path's nester holds kernel calls itself (record/fast/nest.c, per
 * thread) and places them up to the same bound (sb_merge_watermark).
 */
#ifndef SB_RECORD_TRANSPORT_MERGE_H
#define SB_RECORD_TRANSPORT_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "record/transport/transport.h"

#define SB_MERGE_BACKENDS 4

struct sb_merge_rec;

struct sb_merge {
	struct sb_transport *backends[SB_MERGE_BACKENDS];
	size_t n_backends;
	struct sb_merge_rec *held;	/* by time, oldest first; equal times as they came */
	struct sb_merge_rec *last;
	size_t n_held;
};

/* Called with each record released, in time order; a negative return stops the release. */
typedef int (*sb_merge_fn)(void *ctx, const void *rec, size_t size);

void sb_merge_init(struct sb_merge *m);
/* Backends are delivered in the order added. 0 or -ENOSPC. */
int sb_merge_add(struct sb_merge *m, struct sb_transport *t);
/*
 * Every backend delivers, in the order added: one whose records depend on
 * another's (a fast-path record's site is named in the kernel's ring before
 * the record is written) is added before it, so the later delivery holds
 * what the earlier one's records depend on. The first error is returned.
 */
int sb_merge_deliver(struct sb_merge *m);
/* The least of the backends' watermarks: nothing before it is still to come. */
int64_t sb_merge_watermark(const struct sb_merge *m);
/* Hold a copy of rec (time: its time on the profile's clock). 0 or -ENOMEM. */
int sb_merge_hold(struct sb_merge *m, int64_t time, const void *rec, size_t size);
/*
 * Release the held records earlier than before, in time order (INT64_MAX:
 * every one, the final flush). A record given to fn is released whatever
 * fn returns; its first negative return stops the release and is returned.
 */
int sb_merge_release(struct sb_merge *m, int64_t before, sb_merge_fn fn, void *ctx);
void sb_merge_free(struct sb_merge *m);

#endif
