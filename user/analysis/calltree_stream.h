/* Call trees of profiles whose events stay on disk: a few passes over them, 8 bytes a call. */
#ifndef SB_CALLTREE_STREAM_H
#define SB_CALLTREE_STREAM_H

#include "analysis/calltree.h"

/* sb_calltree_build_stream's answer when the profile does not suit it. */
#define SB_CT_FALLBACK 1

/*
 * Build what sb_calltree_build would from p with its events held, reading
 * them from src instead (p->events may be NULL). The tree needs call and
 * parent ids with each rank's calls numbered 0..n-1 and every parent
 * numbered before its children; the flat table needs neither. Returns 0,
 * SB_CT_FALLBACK (t empty) when the ids are absent or break those rules, or
 * a negative errno with err set.
 */
int sb_calltree_build_stream(struct sb_calltree *t, const struct sb_profile *p,
			     const struct sb_ct_opts *o, struct sb_event_source *src,
			     struct sb_error *err);

/*
 * What sb_calltree_build makes of p without call ids or thread ids (calls
 * nest by time within each rank), from calls delivered in that order: the
 * memory is the tree and a stack as deep as the deepest nesting. Returns 0
 * or a negative errno with err set.
 */
int sb_calltree_build_ordered(struct sb_calltree *t, const struct sb_profile *p,
			      const struct sb_ct_opts *o, struct sb_ordered_calls *src,
			      struct sb_error *err);

/*
 * A report's call tree (or flat table, as o says) of the .spt trace at path,
 * without holding its calls: p gets the regions, index rows and statistics
 * (p->events NULL), t what sb_calltree_build would make of the whole trace,
 * the calls merged by time from the file. Memory: the tree and 32 MiB of
 * buffers, plus 16 bytes a call of regions the file does not list by start.
 * Returns as sb_spt_read, or -ENOMEM with err set.
 */
int sb_spt_read_tree(const char *path, struct sb_profile *p, const struct sb_ct_opts *o,
		     struct sb_calltree *t, struct sb_error *err);

#endif
