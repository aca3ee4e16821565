/*
 * The speedscope export's sampled profiles, a profile's sampled stacks beside
 * its evented calls: sb_ss_samples_view (export/speedscope_kinds.h).
 */
#ifndef SB_SPEEDSCOPE_SAMPLES_H
#define SB_SPEEDSCOPE_SAMPLES_H

#include "export/export.h"

/* "rank R: NAME (tid N)", or what of it is known; malloc'd, NULL when out of memory. */
char *sb_ss_thread_name(const struct sb_xthread *x, uint32_t rank, int64_t thread);

#endif
