/*
 * record --aggregate: completed calls summed per (thread, region path, time
 * window) as they arrive, so memory grows with the paths and windows a
 * recording sees, never with its calls.
 */
#ifndef SB_RECORD_AGGREGATE_H
#define SB_RECORD_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>

#include "model/aggregate.h"
#include "util/hashmap.h"

#define SB_AGG_MAX_VALUES 24	/* metric columns a call may carry (model/columns.h) */

/* One completed call, as the collector knows it. */
struct sb_agg_call {
	uint32_t thread;	/* the collector's thread entry */
	uint32_t pair;		/* its index row: names the row when its path cannot be resolved */
	uint64_t path;		/* the region path's hash */
	int64_t start;
	int64_t end;
	int64_t own;		/* exclusive ns */
	const int64_t *values;	/* n_values metric values, -1 = none */
};

/* A row being summed: a model row whose rank, thread row and path id come at the end. */
struct sb_agg_entry {
	uint32_t thread;
	uint32_t pair;
	uint64_t path;
	struct sb_agg_row row;
};

/* Rows found lately: a thread's calls come back to a few paths, most to the last one. */
#define SB_AGG_MEMO 64

struct sb_agg_memo {
	uint64_t key;		/* as the map's: thread << 32 | window */
	uint64_t path;
	size_t entry;		/* its index + 1; 0: empty */
};

struct sb_aggregator {
	struct sb_hashmap at;	/* (thread << 32 | window, path hash) -> entry */
	struct sb_agg_memo memo[SB_AGG_MEMO];	/* rows never go: an index stays right */
	struct sb_agg_entry *entries;
	int64_t *values;	/* n_entries x n_values */
	size_t n_entries;
	size_t cap;
	unsigned n_values;
	int64_t window_ns;	/* 0: one window */
	int64_t origin_ns;
};

/* window_ns 0 sums the whole recording into one window. 0 or -EINVAL (too many values). */
int sb_aggregator_init(struct sb_aggregator *a, unsigned n_values, int64_t window_ns,
		       int64_t origin_ns);
void sb_aggregator_free(struct sb_aggregator *a);

/* Add one call; 0 or -ENOMEM (the call is then not counted). */
int sb_aggregator_add(struct sb_aggregator *a, const struct sb_agg_call *c);

#endif
