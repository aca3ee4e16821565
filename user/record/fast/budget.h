/* How much memory the fast path's queue may take (docs/DESIGN.md, "The fast path"). */
#ifndef SB_FAST_BUDGET_H
#define SB_FAST_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "util/meminfo.h"

struct sb_fast_budget {
	uint64_t max_bytes;	/* the queue's memory, before writers are left to drop */
	uint64_t warm_bytes;	/* faulted in ahead of a burst; 0: the fast path is off */
	uint64_t reserve_bytes;	/* the queue grows only while more than this is available */
};

/*
 * buffer_bytes: --buffer, 0 for the default; fast_wanted: whether markers may
 * use the fast path at all; m: the machine's memory, NULL when unknown.
 */
void sb_fast_budget(uint64_t buffer_bytes, bool fast_wanted, const struct sb_meminfo *m,
		    struct sb_fast_budget *b);

#endif
