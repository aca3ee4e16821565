/* `report --counters` as text, JSON and CSV. */
#ifndef SB_RENDER_COUNTERS_REPORT_H
#define SB_RENDER_COUNTERS_REPORT_H

#include <stdio.h>

#include "analysis/counters.h"
#include "render/report.h"

/* Write r as o->format (r names its rows: keep its profile alive). -EIO on a write error. */
int sb_counter_report_render(FILE *f, const struct sb_counter_report *r,
			     const struct report_opts *o);

#endif
