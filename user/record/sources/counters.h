/* Counters per region call (record -e): what other parts share with the counters source. */
#ifndef SB_SOURCES_COUNTERS_H
#define SB_SOURCES_COUNTERS_H

#include <stddef.h>

#include "counters/events.h"

/* The events' names, comma-separated, as metadata counter_events lists them. */
void sb_counter_names(const struct sb_counter_set *set, char *buf, size_t size);

#endif
