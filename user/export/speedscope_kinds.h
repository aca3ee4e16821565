/* Each kind of data's view in the speedscope file, beside the calls' evented profiles. */
#ifndef SB_SPEEDSCOPE_KINDS_H
#define SB_SPEEDSCOPE_KINDS_H

#include <stdbool.h>
#include <stdint.h>

#include "export/export.h"
#include "model/table.h"

/*
 * A kind of data's view; NULL: no such part. init: what it shows, into a
 * state of its own, its frames numbered from *next_frame on (the regions'
 * and the views' before it come first), *next_frame moved past them, 0 or
 * -ENOMEM; frames: those frames, each preceded by ",\n"; profiles: its
 * profiles after the evented ones (*first: none written yet), 0 or -ENOMEM;
 * release: the state, also after init failed.
 */
struct sb_ss_kind_view {
	const struct sb_kind *kind;
	int (*init)(void **state, const struct sb_profile *p, uint32_t *next_frame);
	int (*frames)(const void *state, struct sb_out *o);
	int (*profiles)(const void *state, struct sb_out *o, const struct sb_xthreads *t,
			bool *first);
	void (*release)(void *state);
};

/* The sampled stacks: one sampled profile per (rank, thread, kind of sample). */
extern const struct sb_ss_kind_view sb_ss_samples_view;

/* Every kind's view, in the file's order (export/speedscope_kinds.c). */
extern const struct sb_ss_kind_view *const sb_ss_kind_views[];
extern const size_t sb_ss_n_kind_views;

#endif
