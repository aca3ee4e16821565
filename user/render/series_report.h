/* `report --durations`: each region's call durations, their quantiles and their course over the run. */
#ifndef SB_RENDER_SERIES_REPORT_H
#define SB_RENDER_SERIES_REPORT_H

#include <stdio.h>

#include "analysis/call_series.h"
#include "render/report.h"

/* Windows the text and the other formats cut the run into. */
#define SB_SERIES_REPORT_WINDOWS 40

/*
 * Write set (built from p with SB_SERIES_REPORT_WINDOWS windows, none per
 * call) as o->format: text (the o->top regions with the most time, quantiles
 * and a line of the median per window), JSON (every region, every window), CSV
 * (one row per region and window). -EIO on a write error.
 */
int sb_series_report_render(FILE *f, const struct sb_profile *p, const struct sb_series_set *set,
			    const struct report_opts *o);

#endif
