/*
 * Counter events by name: perf's generic names, raw rNNNN, and CPU-specific
 * names through libpfm4, resolved to what perf_event_open takes. Pure: opens
 * no event. The recorder's counters source programs them (issue 10).
 */
#ifndef SB_COUNTERS_EVENTS_H
#define SB_COUNTERS_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/error.h"

#define SB_MAX_COUNTERS 8	/* events per recording, each read at every region boundary */
#define SB_EVENT_NAME_MAX 96

struct sb_counter_event {
	char name[SB_EVENT_NAME_MAX];	/* as the user or the group spelled it; perf's for generic ones */
	uint32_t type;			/* perf_event_attr.type */
	uint64_t config, config1, config2;
	bool hardware;			/* needs a hardware PMU (not a software event) */
	/*
	 * record --memory: no perf event but a value the kernel side reads from
	 * the task, config its model/memory.h slot; nothing to open or check.
	 */
	bool memory;
};

struct sb_counter_set {
	struct sb_counter_event ev[SB_MAX_COUNTERS];
	unsigned int n;
};

/*
 * Add the events of a comma-separated list (`-e cycles,r01c2,page-faults`) to
 * set; an unknown name, a duplicate or more than SB_MAX_COUNTERS is an error
 * naming the event (-EINVAL, -E2BIG).
 */
int sb_counter_set_parse(struct sb_counter_set *set, const char *list, struct sb_error *err);

/* Append ev to set; a name already there or more than SB_MAX_COUNTERS is an error naming it. */
int sb_counter_set_add(struct sb_counter_set *set, const struct sb_counter_event *ev,
		       struct sb_error *err);

/* Resolve one name into ev (generic, raw, msr/NAME/, or libpfm4); -ENOENT when unknown. */
int sb_counter_event_resolve(const char *name, struct sb_counter_event *ev, struct sb_error *err);

/*
 * Whether this machine can count ev for a thread: 0, or an error whose
 * message says why (no hardware PMU / virtualization, perf_event_paranoid,
 * ...) and that software events work. Opens and closes a probe event.
 */
int sb_counter_event_check(const struct sb_counter_event *ev, struct sb_error *err);

/* `record --list-events`: what this machine supports, generic then PMU-specific. */
int sb_counter_list_events(FILE *f);

#endif
