/* Node building shared by the in-memory (calltree.c) and streaming (calltree_stream.c) call trees. */
#ifndef SB_CALLTREE_IMPL_H
#define SB_CALLTREE_IMPL_H

#include "analysis/calltree.h"
#include "util/hashmap.h"

/* A tree being grown: its nodes, and the (parent node, region) -> child node map. */
struct sb_ct_grow {
	struct sb_calltree *t;
	uint32_t cap;
	bool offcpu;			/* the profile has an off-CPU column */
	bool gpu;			/* the profile has a gpu_durations column */
	struct sb_hashmap children;
};

/* Empty t with its root node; 0 or -ENOMEM. */
int sb_ct_grow_init(struct sb_ct_grow *g, struct sb_calltree *t, const struct sb_profile *p,
		    bool flat);
/* Free the scratch; on r == 0 sort t by key, else free t. Returns r, or the sort's error. */
int sb_ct_grow_end(struct sb_ct_grow *g, int r, enum sb_ct_sort key);

/* A new node below parent, or the node for region below parent made on first use; SB_CT_NONE: out of memory. */
uint32_t sb_ct_add_node(struct sb_ct_grow *g, uint32_t parent, uint32_t region);
uint32_t sb_ct_child(struct sb_ct_grow *g, uint32_t parent, uint32_t region);

/* Count one call in node n; then, once all are in, own = total - the children's totals. */
void sb_ct_add_call(struct sb_calltree *t, struct sb_ct_node *n, const struct sb_event *ev);
void sb_ct_finish_own(struct sb_calltree *t);

/*
 * The flat table, grown in g: per region from the index rows' summaries.
 * Off-CPU per index row comes from pair_offcpu, else from p->events, else is
 * unknown; exclusive times the file lacks, and inclusive totals that count
 * a call nested in its own region once, come from tree, else from a tree
 * built from p->events, else are unknown (totals then sum every call).
 */
int sb_ct_build_flat(struct sb_ct_grow *g, const struct sb_profile *p, const struct sb_ct_opts *o,
		     const int64_t *pair_offcpu, const struct sb_calltree *tree,
		     struct sb_error *err);

/* The index rows must lie inside the events; need_events: and those be in memory. */
int sb_ct_check_pairs(const struct sb_profile *p, bool need_events, struct sb_error *err);

#endif
