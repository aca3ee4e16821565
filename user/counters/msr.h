/* perf's msr PMU (`msr/aperf/`, `msr/mperf/`): per-thread APERF/MPERF where the CPU has them. */
#ifndef SB_COUNTERS_MSR_H
#define SB_COUNTERS_MSR_H

#include "counters/events.h"
#include "util/error.h"

/*
 * Fill ev for `msr/NAME/`; false when name is not of that form. An msr PMU
 * absent from sysfs or an unknown NAME is an error naming the event.
 */
bool sb_msr_resolve(const char *name, struct sb_counter_event *ev, int *ret, struct sb_error *err);

#endif
