/* `report --memory`: record --memory's values per call path (--flat: per region) as text, JSON and CSV. */
#ifndef SB_RENDER_MEMORY_REPORT_H
#define SB_RENDER_MEMORY_REPORT_H

#include <stdio.h>

#include "analysis/counters.h"
#include "analysis/memory_paths.h"
#include "render/report.h"

/* The counter slot of each memory value in r (-1: not recorded); how many it has. */
unsigned sb_memory_report_slots(const struct sb_counter_report *r, int slot[SB_MEMORY_SLOTS]);

/*
 * --flat: the memory values of r's rows as o->format, largest peak growth
 * first (r names its rows: keep its profile alive). -EINVAL when r has no
 * memory value, -ENOMEM, -EIO on a write error.
 */
int sb_memory_report_render(FILE *f, const struct sb_counter_report *r,
			    const struct report_opts *o);

/* The call paths of m (built from p) in pre-order, as o->format; -ENOMEM, -EIO. */
int sb_memory_paths_render(FILE *f, const struct sb_profile *p, const struct sb_mem_paths *m,
			   const struct report_opts *o);

#endif
