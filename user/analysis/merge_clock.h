/*
 * A merge's clock refinement: the shifts of an input that its blocking
 * collectives allow, and the realtime-offset estimate moved into them.
 */
#ifndef SB_MERGE_CLOCK_H
#define SB_MERGE_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* One collective call instance as the ranks of one file saw it. */
struct sb_sync_call {
	const char *name;	/* the region's name, owned by the profile */
	bool last;		/* each rank's last call of the region, else its first */
	uint64_t count;		/* calls of the region on each rank; 0: the ranks differ */
	int64_t max_entry;	/* the latest entry of the file's ranks */
	int64_t min_exit;	/* the earliest exit */
};

/*
 * The witnesses of p (model/mpi_sync.h) from its index rows: for each region,
 * its first and (when it has more than one) its last call. *out is freed by
 * the caller; a handful per region, never per call. 0 or -ENOMEM.
 */
int sb_sync_calls(const struct sb_profile *p, struct sb_sync_call **out, size_t *n);

/* The shifts causality allows: lo <= shift <= hi. */
struct sb_shift_bounds {
	int64_t lo;		/* INT64_MIN: none */
	int64_t hi;		/* INT64_MAX: none */
	unsigned witnesses;	/* calls matched in both files */
};

/*
 * The bounds on the shift that puts q's times on ref's clock: for every call
 * both files saw (same region, same first or last, the same count on every
 * rank), q's ranks cannot leave before ref's have entered, nor ref's before
 * q's: ref.max_entry - q.min_exit <= shift <= ref.min_exit - q.max_entry.
 * -ERANGE when a bound overflows (times that are no clock's).
 */
int sb_shift_bounds(const struct sb_sync_call *ref, size_t n_ref, const struct sb_sync_call *q,
		    size_t n_q, struct sb_shift_bounds *b);

/*
 * The shift to apply, and how it was found, from the realtime-offset
 * estimate (known false: there was none) and the bounds: the estimate
 * within them; else the nearest bound (the smallest correction that obeys
 * causality); with no estimate, the middle of two bounds or the one bound.
 * Returns 1 when the bounds contradict each other (lo > hi: a collective
 * that did not synchronize, or files of different runs) and the estimate is
 * kept unrefined; 0 otherwise.
 */
int sb_shift_refine(int64_t estimate, bool known, const struct sb_shift_bounds *b,
		    int64_t *shift, const char **method);

#endif
