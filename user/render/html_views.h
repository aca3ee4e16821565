/*
 * The HTML report's per-rank and per-call views: the rank x region heat map
 * (analysis/rank_matrix.h) and each region's calls over the run, their
 * durations and their counters (analysis/call_series.h).
 */
#ifndef SB_HTML_VIEWS_H
#define SB_HTML_VIEWS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/model.h"

/* Heat map rows the page gets, the most time first: more would not be read. */
#define SB_HTML_MAX_RANK_ROWS 100
/* Regions plotted over the run per value (duration, each counter), the largest totals first. */
#define SB_HTML_MAX_SERIES 20
/* Windows the run is cut into; a region with at most SB_HTML_SERIES_POINTS calls gets a point each. */
#define SB_HTML_SERIES_WINDOWS 100
#define SB_HTML_SERIES_POINTS 200

/*
 * The data object's "rank_matrix" member: only for a page of every rank
 * (rank -1) of a profile with two ranks or more. 0, or a negative errno.
 */
int sb_html_rank_matrix(FILE *j, const struct sb_profile *p, int64_t rank);

/*
 * The "series" member: for profiles holding their calls, the duration and
 * each recorded counter of each region's calls over the run (rank -1: every
 * rank's); for an aggregate with windows (record --aggregate=WINDOW), the
 * durations per recorded window. 0 or -ENOMEM.
 */
int sb_html_series(FILE *j, const struct sb_profile *p, int64_t rank);

/*
 * One member of the "durations" array: a region's (or, with fn, an MPI
 * function's) n calls, their SB_SERIES_QUANTILES quantiles q, and the non-zero
 * of the n_bins histogram bins as [bin, calls] pairs.
 */
void sb_html_durations_row(FILE *j, uint32_t region, const char *fn, size_t n, const int64_t *q,
			   const uint64_t *bins, int n_bins, bool first);

/*
 * The "durations" member of an aggregate (record --aggregate): per region or
 * MPI function its calls' quantiles (report --durations' estimates) and its
 * log2 duration histogram ("hist_log2": bin b holds [2^b, 2^(b+1)) ns). 0 or -ENOMEM.
 */
int sb_html_agg_durations(FILE *j, const struct sb_profile *p, int64_t rank);

#endif
