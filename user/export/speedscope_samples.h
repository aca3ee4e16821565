/* The speedscope export's sampled profiles: a profile's sampled stacks beside its evented calls. */
#ifndef SB_SPEEDSCOPE_SAMPLES_H
#define SB_SPEEDSCOPE_SAMPLES_H

#include "analysis/samples_report.h"
#include "export/export.h"

/*
 * Shared frames after the regions' (which keep their indices, so a region is
 * one frame in both kinds of profile): the region paths whose name is in no
 * region, then one per function name (demangled, marker helpers folded).
 */
struct sb_ss_samples {
	const struct sb_profile *p;
	struct sb_fnames fn;
	uint32_t *path_frame;	/* region path id -> frame */
	uint32_t fn_base;	/* function id k is frame fn_base + k */
	const char **files;	/* function id -> source file; NULL when unknown */
	size_t *rows;		/* rows with weight, by rank, thread, kind */
	size_t n_rows;
};

/* Nothing to do (n_rows 0) when the profile has no sample that weighs anything. 0 or -ENOMEM. */
int sb_ss_samples_init(struct sb_ss_samples *x, const struct sb_profile *p);
void sb_ss_samples_free(struct sb_ss_samples *x);
/* The frames past the regions', each preceded by ",\n". 0 or -ENOMEM. */
int sb_ss_samples_frames(const struct sb_ss_samples *x, struct sb_out *o);
/*
 * One sampled profile per (rank, thread, kind), after the evented ones:
 * stacks root first (region path, user frames, kernel frames suffixed
 * "_[k]"; "[no stack]" for a sample without frames), weighted by samples
 * (CPU, unit "none") or nanoseconds blocked (off-CPU). *first: no profile
 * written yet.
 */
int sb_ss_samples_profiles(const struct sb_ss_samples *x, struct sb_out *o,
			   const struct sb_xthreads *t, bool *first);

/* "rank R: NAME (tid N)", or what of it is known; malloc'd, NULL when out of memory. */
char *sb_ss_thread_name(const struct sb_xthread *x, uint32_t rank, int64_t thread);

#endif
