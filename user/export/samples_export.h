/* Exports of sampled stacks: folded stacks (flamegraph.pl, speedscope, inferno), an interactive SVG flame graph, perf script's listing. */
#ifndef SB_SAMPLES_EXPORT_H
#define SB_SAMPLES_EXPORT_H

#include <stdio.h>

#include "util/error.h"
#include "model/model.h"

/*
 * Folded stacks of one kind, one line per distinct stack, sorted:
 * "[rank N];" (only when the profile has more than one rank), the region
 * path outermost first, the user frames outermost first, the kernel frames
 * (suffixed "_[k]"), then a space and the sample count (CPU) or the
 * nanoseconds blocked (off-CPU). In names ";" becomes ":" and control
 * characters become spaces. Returns 0, or -errno with the cause in err
 * (-EINVAL when p has no samples of the kind, as for the flame graph).
 */
int sb_export_folded(FILE *f, const struct sb_profile *p, enum sb_sample_kind kind,
		     struct sb_error *err);

/*
 * A self-contained interactive SVG flame graph (no network): hover for
 * name, weight and share, click to zoom, search, and a CPU / off-CPU toggle
 * when the profile has both kinds. Region path frames are drawn in their
 * own colour. sb_export_flamegraph draws every kind present (CPU shown
 * first); sb_export_flamegraph_kind only the given one.
 */
int sb_export_flamegraph(FILE *f, const struct sb_profile *p, struct sb_error *err);
int sb_export_flamegraph_kind(FILE *f, const struct sb_profile *p, enum sb_sample_kind kind,
			      struct sb_error *err);

/*
 * The timed CPU samples as `perf script -F +pid --ns` prints them, in time
 * order: "COMM PID/TID [CPU] SEC.NSEC: EVENT:", then a line per frame
 * innermost first ("\tOFFSET FUNCTION (MODULE)": kernel frames in
 * "[kernel.kallsyms]", then user frames, then the region path in
 * "[region]"), then an empty line. -EINVAL with the cause in err when p
 * kept no sample's time.
 */
int sb_export_perf_script(FILE *f, const struct sb_profile *p, struct sb_error *err);

#endif
