/*
 * perf's msr PMU. Its type is dynamic (sysfs); its events are the kernel's
 * fixed indices (arch/x86/events/msr.c, published as events/<name>
 * "event=0xN"). A VM may list only tsc there though the PMU exists: the
 * indices below still encode the event, and sb_counter_event_check then
 * says whether this machine counts it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "counters/msr.h"

#define MSR_PMU_TYPE "/sys/bus/event_source/devices/msr/type"

static const char *const msr_events[] = { "tsc", "aperf", "mperf", "pperf" };

static int msr_index(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(msr_events) / sizeof(msr_events[0]); i++)
		if (strlen(msr_events[i]) == len && !strncmp(name, msr_events[i], len))
			return (int)i;
	return -1;
}

static int msr_pmu_type(uint32_t *type)
{
	FILE *f = fopen(MSR_PMU_TYPE, "r");
	int ok;

	if (!f)
		return -ENOENT;
	ok = fscanf(f, "%u", type) == 1;
	fclose(f);
	return ok ? 0 : -ENOENT;
}

bool sb_msr_resolve(const char *name, struct sb_counter_event *ev, int *ret, struct sb_error *err)
{
	size_t len = strlen(name);
	uint32_t type;
	int idx;

	if (strncmp(name, "msr/", 4) || len < 6 || name[len - 1] != '/')
		return false;
	idx = msr_index(name + 4, len - 5);
	if (idx < 0) {
		*ret = sb_fail(err, ENOENT, "%s: unknown msr event (known: tsc, aperf, mperf, pperf)",
			       name);
		return true;
	}
	if (msr_pmu_type(&type)) {
		*ret = sb_fail(err, ENOENT, "%s: this kernel has no msr PMU (%s is missing)", name,
			       MSR_PMU_TYPE);
		return true;
	}
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	ev->type = type;
	ev->config = (uint64_t)idx;
	ev->hardware = true;
	*ret = 0;
	return true;
}
