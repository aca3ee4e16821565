/*
 * Comparing two profiles region by region (by name, over all ranks), MPI call
 * regions by MPI function: `scope-bpf diff`.
 */
#ifndef SB_DIFF_H
#define SB_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/error.h"
#include "model/model.h"

#define SB_DIFF_UNKNOWN INT64_MIN	/* a value the profiles cannot tell (p95 without events) */
#define SB_DIFF_NO_GATE -1		/* max_regression when --max-regression was not given */
#define SB_DIFF_PCT_SCALE 1000000	/* --max-regression is held in millionths of a percent */

enum sb_diff_metric {
	SB_DIFF_TOTAL,		/* sum of call durations */
	SB_DIFF_AVG,		/* total / calls, rounded down */
	SB_DIFF_P95,		/* nearest-rank 95th percentile of call durations */
	SB_DIFF_CALLS,		/* number of completed calls */
	SB_DIFF_COUNTER,	/* an event's counts (record -e): the sum of the calls' counts */
};

/*
 * One region in one profile, summed over every rank, or averaged per rank
 * when the profiles have different rank counts (sb_diff.per_rank); all times
 * in ns. avg and p95 are per call either way.
 */
struct sb_diff_side {
	uint64_t calls;
	int64_t total;
	int64_t avg;
	int64_t p95;		/* SB_DIFF_UNKNOWN when the events were not loaded */
	int64_t counter;	/* SB_DIFF_COUNTER: the event's counts, unknown ones left out */
};

struct sb_diff_row {
	/* into a profile's regions or d's MPI functions: keep both profiles alive */
	const char *name;
	bool mpi_function;	/* an MPI function's row ("mpi:recv"): its call regions summed */
	struct sb_diff_side a;
	struct sb_diff_side b;
	int64_t delta;		/* b - a in the metric; SB_DIFF_UNKNOWN when either side is */
	double pct;		/* 100 * delta / a; meaningful only when has_pct */
	bool has_pct;		/* false when a is 0 and b is not ("new"), or unknown */
	bool regression;	/* slower than the gate allows */
};

struct sb_mpi_fns;

struct sb_diff {
	enum sb_diff_metric metric;
	const char *event;	/* SB_DIFF_COUNTER: the event's name */
	int64_t max_regression;	/* millionths of a percent, or SB_DIFF_NO_GATE */
	struct sb_diff_row *rows;	/* regions in both, by |delta| descending, then name */
	size_t n_rows;
	struct sb_diff_row *only_a;	/* regions only in A (their b side is zero), by metric */
	size_t n_only_a;
	struct sb_diff_row *only_b;	/* regions only in B (their a side is zero), by metric */
	size_t n_only_b;
	size_t n_regressions;
	uint32_t ranks_a;	/* sb_profile_rank_count() of each profile */
	uint32_t ranks_b;
	/*
	 * The rank counts differ: calls and total are per-rank averages (rounded
	 * to nearest), so 4 ranks against 2 do not read as twice the work.
	 */
	bool per_rank;
	/* Each profile's MPI functions the rows name; NULL with mpi_detail. */
	struct sb_mpi_fns *fns_a;
	struct sb_mpi_fns *fns_b;
};

/* What to compare by, and over how many ranks: `diff`'s options. */
struct sb_diff_opts {
	enum sb_diff_metric metric;
	const char *event;		/* SB_DIFF_COUNTER: the event's name */
	int64_t max_regression;		/* millionths of a percent, or SB_DIFF_NO_GATE */
	uint32_t ranks_a;		/* ranks shown of each profile (a --ranks list) */
	uint32_t ranks_b;
	/*
	 * Each MPI call region (one per operation, bytes, peer, tag, ...) a row
	 * of its own; else one row per MPI function, so that two runs whose peers
	 * or sizes differ still compare.
	 */
	bool mpi_detail;
};

/*
 * Compare a (the baseline) with b as o says. A region is in a profile when its
 * name is in that profile's region table; a region with no calls counts as 0
 * everywhere. SB_DIFF_COUNTER judges by o->event's counts: the sums of each
 * region's calls' counts, children included. Returns 0, -ENOMEM, or -EINVAL
 * with the profile ("A" or "B") and its events in err when one of them did not
 * count the event; d is freed with sb_diff_free either way.
 */
int sb_diff_build_opts(struct sb_diff *d, const struct sb_profile *a, const struct sb_profile *b,
		       const struct sb_diff_opts *o, struct sb_error *err);

/* The same by a time metric or calls, over the profiles' rank counts, MPI calls by function. */
int sb_diff_build(struct sb_diff *d, const struct sb_profile *a, const struct sb_profile *b,
		  enum sb_diff_metric metric, int64_t max_regression);
void sb_diff_free(struct sb_diff *d);

/* What d is judged by: the metric's name, or the event's. */
const char *sb_diff_label(const struct sb_diff *d);

/* The metric's value of one side. */
int64_t sb_diff_value(const struct sb_diff_side *s, enum sb_diff_metric metric);

/*
 * Whether going from a to b is slower by more than max_regression (millionths
 * of a percent): exactly the limit is not. Growing from 0 exceeds any limit.
 */
bool sb_diff_exceeds(int64_t a, int64_t b, int64_t max_regression);

/*
 * The nearest-rank 95th percentile of v[0..n-1]: the smallest value with at
 * least 95% of the values at or below it, i.e. the ceil(0.95 n)-th smallest.
 * Reorders v (quickselect, expected O(n)); 0 when n is 0.
 */
int64_t sb_diff_p95(int64_t *v, size_t n);

/* "total", "avg", "p95", "calls"; -EINVAL for anything else. */
int sb_diff_metric_parse(const char *s, enum sb_diff_metric *m);
const char *sb_diff_metric_name(enum sb_diff_metric m);

/* A non-negative decimal percentage ("5", "2.5") in millionths; -EINVAL when it is not one. */
int sb_diff_pct_parse(const char *s, int64_t *millionths);

#endif
