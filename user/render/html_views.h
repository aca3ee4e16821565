/*
 * The HTML report's per-rank and per-call views: the rank x region heat map
 * (analysis/rank_matrix.h) and each region's calls over the run, their
 * durations and their counters (analysis/call_series.h).
 */
#ifndef SB_HTML_VIEWS_H
#define SB_HTML_VIEWS_H

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
 * rank's). 0 or -ENOMEM.
 */
int sb_html_series(FILE *j, const struct sb_profile *p, int64_t rank);

#endif
