/* Call tree (or flat table) of a profile: calls per call path, summed over ranks and threads. */
#ifndef SB_CALLTREE_H
#define SB_CALLTREE_H

#include <stdbool.h>
#include <stdint.h>

#include "util/error.h"
#include "model/model.h"

#define SB_CT_NONE UINT32_MAX		/* no node: end of a list, or the root's parent */
#define SB_CT_UNKNOWN INT64_MIN		/* a time the profile cannot tell */

enum sb_ct_sort {
	SB_CT_SORT_TOTAL,	/* total time, largest first (default) */
	SB_CT_SORT_CALLS,	/* calls, most first */
	SB_CT_SORT_AVG,		/* average time, largest first */
	SB_CT_SORT_NAME,	/* region name, A to Z */
	SB_CT_SORT_START,	/* first start, earliest first */
	SB_CT_SORT_OWN,		/* own (exclusive) time, largest first; unknown last */
	SB_CT_SORT_OFFCPU,	/* off-CPU time, largest first; unknown last */
};

/*
 * One call path (tree) or one region (flat). Every call of the profile lands
 * in exactly one node, so a node's children hold exactly the direct children
 * of its calls and own = total - sum of the children's totals is exact.
 */
struct sb_ct_node {
	/* index into p->regions; SB_CT_NONE for the root; an MPI function's row: its first region */
	uint32_t region;
	uint32_t fn;		/* an MPI function's row (calltree_mpi.h): its function; else SB_CT_NONE */
	uint32_t parent;	/* SB_CT_NONE for the root */
	uint32_t first_child;	/* children in sort order, linked by next_sibling */
	uint32_t next_sibling;
	uint32_t depth;		/* root 0, top-level regions 1 */
	uint64_t calls;
	/*
	 * Inclusive time. Flat: a call nested in a call of its own region
	 * (recursion) is counted in calls but adds no time, so the total is the
	 * time spent in the region, never more than the threads ran.
	 */
	int64_t total;
	int64_t sum;		/* every call's duration added up: avg = sum / calls */
	int64_t min;
	int64_t max;
	int64_t own;		/* exclusive time; SB_CT_UNKNOWN when flat and not known */
	int64_t offcpu;		/* SB_CT_UNKNOWN when the profile has no off-CPU column */
	/*
	 * GPU time of the work the calls launched themselves (a launch belongs
	 * to the innermost open call, so children's work is theirs);
	 * SB_CT_UNKNOWN when the profile has no gpu_durations column.
	 */
	int64_t gpu;
	int64_t first_start;
};

struct sb_ct_opts {
	bool flat;		/* one node per region instead of one per call path */
	int64_t rank;		/* only this rank; -1 for all */
	enum sb_ct_sort sort;
};

struct sb_mpi_fns;

struct sb_calltree {
	const struct sb_profile *p;	/* names are read from here; must outlive the tree */
	struct sb_mpi_fns *mpi;		/* the MPI function rows' names; NULL when none */
	struct sb_ct_node *nodes;	/* nodes[0] is the root; its children are the top level */
	uint32_t n_nodes;
	uint32_t max_depth;
	bool flat;
	uint64_t calls;			/* calls counted, after the rank filter */
	int64_t min_start;		/* earliest start and latest end of those calls */
	int64_t max_end;
};

/*
 * Build the tree of p, which must hold its events (p->events) unless o->flat;
 * a flat table built without them cannot see recursion and sums every call.
 * Scratch beside the events: about 20 bytes a call with call/parent ids, 56
 * without (a sort by time); O(n) and O(n log n). Returns 0, or a negative
 * errno with err set ("object: cause").
 */
int sb_calltree_build(struct sb_calltree *t, const struct sb_profile *p,
		      const struct sb_ct_opts *o, struct sb_error *err);
void sb_calltree_free(struct sb_calltree *t);

/* Reorder every node's children by key; ties go by name, then by node index. */
int sb_calltree_sort(struct sb_calltree *t, enum sb_ct_sort key);

/* Pre-order walk: next(t, 0) is the first top-level node; SB_CT_NONE ends it. */
uint32_t sb_calltree_next(const struct sb_calltree *t, uint32_t i);

/* The region's name; an MPI function row's "mpi:recv". */
const char *sb_calltree_name(const struct sb_calltree *t, uint32_t i);
int64_t sb_ct_avg(const struct sb_ct_node *n);

/* "total", "calls", "avg", "name", "start", "own", "offcpu"; -EINVAL for anything else. */
int sb_ct_sort_parse(const char *s, enum sb_ct_sort *key);

#endif
