/* `scope-bpf scaling` output: the study as text, JSON, CSV or a self-contained HTML page. */
#ifndef SB_RENDER_SCALING_H
#define SB_RENDER_SCALING_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/scaling.h"
#include "render/report.h"

/* Write s to f as fmt; wide: every run's column and whole names, else 80 columns. -EIO on a write error. */
int sb_scaling_render(FILE *f, const struct sb_scaling *s, enum sb_report_format fmt, bool wide);

/* The text tables (render/scaling.c). */
void sb_scaling_text(FILE *f, const struct sb_scaling *s, bool wide);

/* The JSON object and the CSV table (render/scaling_data.c). */
int sb_scaling_json(FILE *f, const struct sb_scaling *s);	/* 0 or -ENOMEM */
void sb_scaling_csv(FILE *f, const struct sb_scaling *s);

/* One HTML page with the plots and tables, nothing loaded from elsewhere; -EIO on a write error. */
int sb_scaling_html(FILE *f, const struct sb_scaling *s);

#endif
