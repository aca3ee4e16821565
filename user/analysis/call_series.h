/*
 * Each region's calls over the run: one value per call (its duration, or one
 * of its counters) against its start, per call or binned in time windows with
 * min, median and max, and the values' quantiles. `report --durations` and the
 * HTML page's "Over the run" section.
 */
#ifndef SB_ANALYSIS_CALL_SERIES_H
#define SB_ANALYSIS_CALL_SERIES_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/mpi_fns.h"
#include "model/model.h"
#include "util/error.h"

/* What a series holds per call. */
#define SB_SERIES_DURATION UINT32_MAX	/* end - start; else a counter column id */

/* The quantiles of a series' values: 0, 25, 50, 75, 90, 99 and 100 %. */
#define SB_SERIES_QUANTILES 7

/* Calls that started in [start, start + width) after t0 (per call: one call, at its start). */
struct sb_series_window {
	uint64_t start;		/* ns after sb_series_set.t0 */
	uint64_t calls;
	int64_t min, median, max;	/* median: the upper one of an even count */
};

/* One region, or one MPI function (its call regions' calls together). */
struct sb_series {
	uint32_t region;	/* an MPI function's: its first region */
	int32_t fn;		/* the MPI function in sb_series_set.fns; -1: a region */
	uint64_t calls;		/* calls with a value */
	int64_t total;		/* their values summed, held at INT64_MAX */
	int64_t q[SB_SERIES_QUANTILES];
	bool per_call;		/* each window is one call */
	struct sb_series_window *windows;	/* those with a call, by start */
	size_t n_windows;
	uint64_t *hist;		/* an aggregate's calls per log2 duration bucket, else NULL */
};

struct sb_series_opts {
	int64_t rank;		/* only this rank's calls; -1: every rank */
	uint32_t metric;	/* SB_SERIES_DURATION or a counter column id */
	unsigned windows;	/* how many windows the run is cut into, at least 1 */
	uint64_t max_points;	/* a region with at most this many calls gets one window per call */
};

struct sb_series_set {
	int64_t t0;		/* the first call's start */
	uint64_t span;		/* the last call's start - t0 */
	uint64_t width;		/* ns per window: span / windows + 1 */
	struct sb_mpi_fns fns;
	struct sb_series *s;	/* every region with a value; the largest total first */
	size_t n;
	uint64_t dropped;	/* calls without a value: unknown counts, or ending before their start */
};

/* The series of p's calls (p must hold its events, or be an aggregate). 0, or -ENOMEM with err set. */
int sb_series_build(struct sb_series_set *set, const struct sb_profile *p,
		    const struct sb_series_opts *o, struct sb_error *err);
void sb_series_free(struct sb_series_set *set);

/*
 * The series of an aggregate (p->agg.on, record --aggregate=WINDOW), for
 * sb_series_build(): its recorded windows, at most o->windows of them shown
 * (neighbours merged); a window's mean stands for its median, and quantiles
 * are the upper bounds of the duration buckets they fall in. 0 or -ENOMEM.
 */
int sb_series_build_aggregate(struct sb_series_set *set, const struct sb_profile *p,
			      const struct sb_series_opts *o);

/* The series by total, the largest first; ties by MPI function, then region. */
void sb_series_sort(struct sb_series_set *set);

/* A series' name: its region's, or its MPI function's ("mpi:recv"). */
const char *sb_series_name(const struct sb_series_set *set, const struct sb_profile *p,
			   const struct sb_series *s);

#endif
