/* The call tree (or flat table) of an aggregate recording, from its rows (record --aggregate). */
#ifndef SB_CALLTREE_AGG_H
#define SB_CALLTREE_AGG_H

#include "analysis/calltree.h"

/* As sb_calltree_build(), for a profile whose agg.on is set. 0 or -errno with err set. */
int sb_calltree_build_aggregate(struct sb_calltree *t, const struct sb_profile *p,
				const struct sb_ct_opts *o, struct sb_error *err);

#endif
