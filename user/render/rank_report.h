/* `report --per-rank`: the rank x region heat map as text, JSON and CSV. */
#ifndef SB_RENDER_RANK_REPORT_H
#define SB_RENDER_RANK_REPORT_H

#include <stdio.h>

#include "analysis/rank_matrix.h"
#include "render/report.h"

/*
 * Write m (built from p) as o->format: text (inclusive time per rank, in blocks
 * of ranks that fit 80 columns unless o->wide), JSON (every figure), CSV (one
 * row per region and rank). -EIO on a write error.
 */
int sb_rank_report_render(FILE *f, const struct sb_profile *p, const struct sb_rank_matrix *m,
			  const struct report_opts *o);

/* A row's n cells v as the member key of a JSON object (", \"key\": [...]"); own: -1 is null. */
void sb_rank_json_cells(FILE *f, const char *key, const int64_t *v, uint32_t n, bool own);

#endif
