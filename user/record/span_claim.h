/*
 * Points in time on threads (CUDA launches, timed samples), each given to
 * the innermost span of its thread that holds it: among the calls whose
 * span holds its time, the one that began last (calls on one thread nest;
 * of two begun at once, the later call id was entered inside the other).
 * The spans come in any order.
 */
#ifndef SB_RECORD_SPAN_CLAIM_H
#define SB_RECORD_SPAN_CLAIM_H

#include <stddef.h>
#include <stdint.h>

struct sb_span_point {
	uint64_t thread;	/* the collector's thread entry (a reused tid is another thread) */
	int64_t time;
	size_t i;		/* the caller's own index */
	int64_t owner_start;	/* the span that holds it so far: its start and id (-1: none) */
	int64_t owner_id;
};

/* Sort by thread, then time, and own none of them. */
void sb_span_points_sort(struct sb_span_point *p, size_t n);

/* Told of each point a span takes, with the span's id. */
typedef void (*sb_span_take_fn)(void *ctx, const struct sb_span_point *p);

/* The span [start, end] of thread, call id id, takes the points it is innermost for so far. */
void sb_span_claim(struct sb_span_point *p, size_t n, uint64_t thread, int64_t start,
		   int64_t end, int64_t id, sb_span_take_fn take, void *ctx);

#endif
