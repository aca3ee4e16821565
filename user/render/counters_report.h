/* `report --counters` as text, JSON and CSV. */
#ifndef SB_RENDER_COUNTERS_REPORT_H
#define SB_RENDER_COUNTERS_REPORT_H

#include <stdio.h>

#include "analysis/counters.h"
#include "render/report.h"

/* Write r (built from p) as o->format. -EIO on a write error. */
int sb_counter_report_render(FILE *f, const struct sb_profile *p,
			     const struct sb_counter_report *r, const struct report_opts *o);

#endif
