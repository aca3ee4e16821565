/* LIKWID event names to perf encodings: a committed map where LIKWID and libpfm4 differ. */
#ifndef SB_COUNTERS_LIKWID_NAMES_H
#define SB_COUNTERS_LIKWID_NAMES_H

#include "counters/events.h"
#include "util/error.h"

/*
 * The map's spelling of a LIKWID event on arch: a perf generic name, msr/X/,
 * rNNNN, or a libpfm4 `EVENT:UMASK[:mod=N]` of the arch's PMU; "" when perf
 * does the event's work itself (AMD's MERGE); NULL when the map has no entry.
 */
const char *sb_likwid_name_map(const char *arch, const char *event);

/*
 * Resolve the EVENTSET line `counter event` of a group for arch (its PMU
 * named explicitly, so another CPU's groups resolve here too): the map's
 * spelling, else libpfm4 with LIKWID's EVENT_UMASK split as EVENT:UMASK.
 * Counter options: EDGEDETECT sets the edge bit; others are an error.
 */
int sb_likwid_event_resolve(const char *arch, const char *counter, const char *event,
			    struct sb_counter_event *ev, struct sb_error *err);

#endif
