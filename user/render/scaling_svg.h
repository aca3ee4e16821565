/* The plots of the scaling page (render/scaling_html.c), as inline SVG. */
#ifndef SB_SCALING_SVG_H
#define SB_SCALING_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/scaling.h"

/* Text for an HTML element or attribute: & < > " ' escaped. */
void sb_html_escape(FILE *f, const char *s);

/* Speedup (or, efficiency, efficiency) of every run against n, with the ideal as a dashed line. */
void sb_scaling_svg_runs(FILE *f, const struct sb_scaling *s, bool efficiency);

/* Time against n of rows[0..n-1] on log-log axes, a line and a colour each. */
void sb_scaling_svg_times(FILE *f, const struct sb_scaling *s, const uint32_t *rows, size_t n);

#endif
