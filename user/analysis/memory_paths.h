/*
 * `report --memory`: record --memory's values summed per call path (region
 * path, over threads and ranks), the tree a Memray user reads allocations by.
 */
#ifndef SB_ANALYSIS_MEMORY_PATHS_H
#define SB_ANALYSIS_MEMORY_PATHS_H

#include <stdint.h>

#include "model/memory.h"
#include "model/model.h"
#include "util/error.h"

#define SB_MEM_NONE UINT32_MAX	/* no node: the root's region and parent, a list's end */

struct sb_mem_node {
	uint32_t region;	/* index into p->regions; SB_MEM_NONE for the root */
	uint32_t parent;
	uint32_t depth;		/* root 0, top-level regions 1 */
	uint32_t first_child;	/* largest peak growth first, then RSS growth, then name */
	uint32_t next_sibling;
	uint64_t calls;
	uint64_t unknown;	/* calls whose values are unknown (begun before their thread was read) */
	uint64_t incl[SB_MEMORY_SLOTS];	/* by enum sb_memory_slot, the calls' values summed */
	uint64_t excl[SB_MEMORY_SLOTS];	/* their own values (less the regions called inside) */
};

struct sb_mem_paths {
	struct sb_mem_node *nodes;	/* nodes[0] is the root */
	uint32_t n;
	int slot[SB_MEMORY_SLOTS];	/* the counter slot of each value, -1: not recorded */
};

/*
 * The paths of p's calls (rank >= 0: of that rank only), a call's path from
 * its parent ids (a call without one is top level). -EINVAL with the cause
 * in err when p has no memory values, -ENOMEM.
 */
int sb_mem_paths_build(struct sb_mem_paths *m, const struct sb_profile *p, int64_t rank,
		       struct sb_error *err);

/* Pre-order walk: next(m, 0) is the first top-level node; SB_MEM_NONE ends it. */
uint32_t sb_mem_paths_next(const struct sb_mem_paths *m, uint32_t i);

void sb_mem_paths_free(struct sb_mem_paths *m);

#endif
