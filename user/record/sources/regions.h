/* The regions source: what the recorder asks of it besides its hooks. */
#ifndef SB_REGIONS_H
#define SB_REGIONS_H

#include <stdint.h>

#include "record/source.h"

/* Calls lost so far: no room in the ring buffer or the thread table, or unusable records. */
uint64_t sb_regions_lost_events(const struct sb_source_env *env);
/* Objects with scope_bpf probes attached so far. */
int sb_regions_probe_files(const struct sb_sources *set);
/* The first attach the kernel refused (object, probe, cause), with *files how many; NULL if none. */
const char *sb_regions_attach_failure(const struct sb_sources *set, int *files);
/* Sites neither the kernel nor the recorder could read: their calls are dropped. */
uint64_t sb_regions_unresolved(const struct sb_sources *set);

#endif
