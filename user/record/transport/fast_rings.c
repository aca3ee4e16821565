/* The fast path's rings as a transport (fast_rings.h). */
#include "record/transport/fast_rings.h"

/* Taken once the chunks before are consumed: the watermark stays whole-pass. */
static int deliver(struct sb_transport *t)
{
	struct sb_fast_rings *r = (struct sb_fast_rings *)t;

	if (r->taken)
		return 0;
	r->taken = sb_fast_queue_take(r->queue, &r->taken_mark);
	/* Passes that copied nothing reach as far, with nothing to consume. */
	if (!r->taken)
		r->consumed = r->taken_mark;
	return 0;
}

/*
 * A complete pass begun at W read every ring up to its head then: a record
 * published before W was copied, and is consumed with its chunks. One begun
 * before the latest memory joined proves nothing for that memory.
 */
static int64_t watermark_ns(const struct sb_transport *t)
{
	const struct sb_fast_rings *r = (const struct sb_fast_rings *)t;

	if (!r->consumed.complete_ns || r->consumed.complete_ns <= r->adopted_ns)
		return INT64_MIN;
	return r->consumed.complete_ns;
}

void sb_fast_rings_init(struct sb_fast_rings *r, struct sb_fast_queue *queue)
{
	*r = (struct sb_fast_rings){
		.transport = { "fast", deliver, watermark_ns },
		.queue = queue,
	};
}

void sb_fast_rings_adopted(struct sb_fast_rings *r, int64_t now)
{
	if (now > r->adopted_ns)
		r->adopted_ns = now;
}

void sb_fast_rings_consumed(struct sb_fast_rings *r)
{
	struct sb_fast_chunk *c = r->taken;

	if (!c)
		return;
	r->taken = c->next;
	c->next = NULL;
	sb_fast_queue_recycle(r->queue, c);
	if (!r->taken)
		r->consumed = r->taken_mark;
}

void sb_fast_rings_drop(struct sb_fast_rings *r)
{
	sb_fast_queue_recycle(r->queue, r->taken);
	r->taken = NULL;
	r->consumed = r->taken_mark;
}
