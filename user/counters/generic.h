/* perf's generic event names: hardware, software and cache events, as `perf list` spells them. */
#ifndef SB_COUNTERS_GENERIC_H
#define SB_COUNTERS_GENERIC_H

#include <stdbool.h>
#include <stdio.h>

#include "counters/events.h"

/* Fill ev when name is one of perf's generic names or aliases (ev->name: perf's spelling). */
bool sb_generic_resolve(const char *name, struct sb_counter_event *ev);

/* Print the generic names, hardware ones (with cache events) or software ones, one a line. */
void sb_generic_list(FILE *f, bool hardware);

#endif
