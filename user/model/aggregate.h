/*
 * Region calls summed instead of kept (record --aggregate, docs/FORMAT.md):
 * per rank, thread, region path and time window, what the calls added up to.
 */
#ifndef SB_AGGREGATE_H
#define SB_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/samples.h"
#include "model/table.h"

/* Bucket 0 holds durations of 0 and 1 ns, bucket b >= 1 those in [2^b, 2^(b+1)). */
#define SB_AGG_BUCKETS 64

struct sb_agg_row {
	uint32_t rank;
	int64_t thread;		/* row index within the rank's threads, -1 unknown */
	int64_t path;		/* id in sb_aggregate.paths */
	int64_t window;		/* window index from the origin; 0 without windows */
	uint64_t count;
	int64_t total;		/* inclusive ns, summed */
	int64_t own;		/* exclusive ns (total minus the direct children's), summed */
	int64_t min;
	int64_t max;
	uint64_t hist[SB_AGG_BUCKETS];	/* calls by log2 of their duration */
};

struct sb_aggregate {
	bool on;		/* the profile holds these rows instead of its calls */
	int64_t window_ns;	/* 0: one window for the whole recording */
	int64_t origin_ns;	/* window w starts at origin + w * window_ns (by call start) */
	struct sb_region_path *paths;	/* a forest: a parent's id is below its children's */
	size_t n_paths;
	struct sb_agg_row *rows;
	size_t n_rows;
	/* Per-call metric columns summed (model/columns.h ids): offcpu, counters, ... */
	unsigned n_values;
	unsigned *value_ids;
	int64_t *values;	/* n_rows x n_values; -1 when a call of the row had no value */
};

/* The bucket of a duration (ns); negative durations go to bucket 0. */
unsigned sb_agg_bucket(int64_t ns);

/* Whether the rows sum metric column id (with the profile's on: an aggregate). */
bool sb_aggregate_has(const struct sb_aggregate *a, unsigned id);

/* The counter slots the rows sum (record --aggregate -e or --memory): 0 without. */
unsigned sb_agg_counter_slots(const struct sb_aggregate *a);

/* Row r's value of metric column id, or -1 when the rows carry no such column. */
int64_t sb_agg_value(const struct sb_aggregate *a, size_t r, unsigned id);

/*
 * The rules every written and read aggregate obeys: paths a forest, rows
 * pointing at paths, counts > 0, min <= max, histogram sums equal counts.
 * 0, or -EINVAL with the broken rule in why.
 */
int sb_aggregate_check(const struct sb_aggregate *a, uint32_t rank_count, char *why, size_t len);

void sb_aggregate_free(struct sb_aggregate *a);

/* Its rows (table 0) and region paths (table 1) as tables (model/aggregate_table.c). */
extern const struct sb_kind sb_agg_kind;

#endif
