/* What the parts of the scaling analysis share (scaling.c, scaling_runs.c, scaling_order.c). */
#ifndef SB_SCALING_IMPL_H
#define SB_SCALING_IMPL_H

#include "analysis/scaling.h"

/*
 * Fill s->runs from in[0..n-1], in ascending n, after checking that they make
 * one study. Returns 0, or -EINVAL / -ENOMEM with err set.
 */
int sb_scaling_runs(struct sb_scaling *s, const struct sb_scaling_input *in, size_t n,
		    struct sb_error *err);

/*
 * Put s->rows in tree pre-order, siblings by time (the first run's, else the
 * last's), largest first, and list the rows whose share grew in s->lost.
 * Returns 0 or -ENOMEM with err set.
 */
int sb_scaling_order(struct sb_scaling *s, struct sb_error *err);

#endif
