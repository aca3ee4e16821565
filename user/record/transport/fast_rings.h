/*
 * The fast path's shared-memory rings as a transport (transport.h). The
 * drainer (record/fast/drainer.c) copies records out in passes and hands
 * each pass's chunks to the queue; delivering takes them, and the consumer
 * (sources/fast.c) nests them a chunk at a time, over as many turns as it
 * needs. The watermark is when the latest pass that left nothing in the
 * rings began, once every chunk taken with it is consumed: a record finished
 * (its ring's head published) before then was copied by that pass.
 */
#ifndef SB_RECORD_TRANSPORT_FAST_RINGS_H
#define SB_RECORD_TRANSPORT_FAST_RINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "record/fast/queue.h"
#include "record/transport/transport.h"

struct sb_fast_rings {
	struct sb_transport transport;	/* first: the interface's pointer is this one's */
	struct sb_fast_queue *queue;
	struct sb_fast_chunk *taken;	/* delivered, not consumed yet, oldest first */
	struct sb_fast_mark taken_mark;	/* how far they reach */
	struct sb_fast_mark consumed;	/* how far what was consumed reaches */
	int64_t adopted_ns;		/* when the latest memory joined the passes */
};

void sb_fast_rings_init(struct sb_fast_rings *r, struct sb_fast_queue *queue);
/*
 * A memory joins the passes now (CLOCK_MONOTONIC): a pass begun before it
 * did not look at its rings, so the watermark waits for one begun after.
 */
void sb_fast_rings_adopted(struct sb_fast_rings *r, int64_t now);
/* The oldest chunk delivered and not consumed; NULL: none. */
static inline struct sb_fast_chunk *sb_fast_rings_next(const struct sb_fast_rings *r)
{
	return r->taken;
}
/* The chunk sb_fast_rings_next gave is consumed: back to the queue for reuse. */
void sb_fast_rings_consumed(struct sb_fast_rings *r);
/* After a consumer's error: the chunks not consumed go back unread. */
void sb_fast_rings_drop(struct sb_fast_rings *r);

#endif
