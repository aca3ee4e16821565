/* `report --samples`: the hottest functions per region path, rendered as the report command asks. */
#ifndef SB_RENDER_SAMPLES_REPORT_H
#define SB_RENDER_SAMPLES_REPORT_H

#include <stdio.h>

#include "analysis/samples_report.h"
#include "model/model.h"
#include "render/report.h"

/* `report --samples`: o->format rendering of the top o->top functions per path; 0 or -errno. */
int sb_samples_report_render(FILE *f, const struct sb_profile *p, const struct report_opts *o);

#endif
