/* CPU-specific event names through libpfm4 (the library PAPI uses for every PMU). */
#ifndef SB_COUNTERS_PFM_H
#define SB_COUNTERS_PFM_H

#include <stdio.h>

#include "counters/events.h"
#include "util/error.h"

/*
 * Encode a libpfm4 name (`INST_RETIRED:ANY_P`, `skl::FP_ARITH:SCALAR_DOUBLE`)
 * into ev. A `pmu::` prefix may name a PMU this CPU lacks (LIKWID groups of
 * another architecture resolve that way); without it, only this CPU's PMUs.
 * -ENOENT when libpfm4 knows no such event, -EINVAL for a bad modifier.
 */
int sb_pfm_resolve(const char *name, struct sb_counter_event *ev, struct sb_error *err);

/* The libpfm4 name of this CPU's core PMU ("amd64_fam19h_zen4"), or NULL if none is known. */
const char *sb_pfm_cpu_pmu(void);

/* Print the events of this CPU's core PMUs, `pmu::EVENT` with their unit masks. */
void sb_pfm_list(FILE *f);

#endif
