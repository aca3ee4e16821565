/* Counter events by name: the -e list, one name's resolution, and `--list-events`. */
#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "counters/events.h"
#include "counters/generic.h"
#include "counters/msr.h"
#include "counters/pfm.h"

/* perf's raw syntax: r followed by up to 16 hex digits, the PMU's own config. */
static bool resolve_raw(const char *name, struct sb_counter_event *ev)
{
	size_t len = strlen(name), i;

	if (name[0] != 'r' || len < 2 || len > 17)
		return false;
	for (i = 1; i < len; i++)
		if (!isxdigit((unsigned char)name[i]))
			return false;
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	ev->type = PERF_TYPE_RAW;
	ev->config = strtoull(name + 1, NULL, 16);
	ev->hardware = true;
	return true;
}

int sb_counter_event_resolve(const char *name, struct sb_counter_event *ev, struct sb_error *err)
{
	const char *pmu;
	int ret;

	if (!*name)
		return sb_fail(err, EINVAL, "empty event name");
	if (strlen(name) >= SB_EVENT_NAME_MAX)
		return sb_fail(err, EINVAL, "%.40s...: event name longer than %d characters", name,
			       SB_EVENT_NAME_MAX - 1);
	if (sb_generic_resolve(name, ev) || resolve_raw(name, ev))
		return 0;
	if (sb_msr_resolve(name, ev, &ret, err))
		return ret;
	ret = sb_pfm_resolve(name, ev, err);
	if (ret != -ENOENT)
		return ret;
	pmu = sb_pfm_cpu_pmu();
	return sb_fail(err, ENOENT,
		       "%s: unknown event (not one of perf's generic names, not rNNNN, and libpfm4 "
		       "knows no such event for %s%s; see record --list-events)",
		       name, pmu ? "this CPU's PMU " : "this CPU", pmu ? pmu : "");
}

int sb_counter_set_add(struct sb_counter_set *set, const struct sb_counter_event *ev,
		       struct sb_error *err)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (!strcmp(set->ev[i].name, ev->name))
			return sb_fail(err, EINVAL, "%s: event given twice", ev->name);
	if (set->n == SB_MAX_COUNTERS)
		return sb_fail(err, E2BIG, "%s: more than %d events (each is read at every region "
			       "boundary)", ev->name, SB_MAX_COUNTERS);
	set->ev[set->n++] = *ev;
	return 0;
}

int sb_counter_set_parse(struct sb_counter_set *set, const char *list, struct sb_error *err)
{
	char *copy = strdup(list), *rest = copy, *name;
	struct sb_counter_event ev;
	int ret = 0;

	if (!copy)
		return sb_fail(err, ENOMEM, "event list: out of memory");
	while (!ret && (name = strsep(&rest, ","))) {
		if (!*name)
			ret = sb_fail(err, EINVAL, "-e '%s': an empty event name", list);
		else
			ret = sb_counter_event_resolve(name, &ev, err);
		if (!ret)
			ret = sb_counter_set_add(set, &ev, err);
	}
	free(copy);
	return ret;
}

int sb_counter_list_events(FILE *f)
{
	struct sb_counter_event cycles;
	struct sb_error why;

	fprintf(f, "Software events (counted on every machine):\n");
	sb_generic_list(f, false);
	sb_generic_resolve("cycles", &cycles);
	if (sb_counter_event_check(&cycles, &why))
		fprintf(f, "\nHardware events: none countable here (%s)\n", why.msg);
	fprintf(f, "\nHardware events (perf's generic names):\n");
	sb_generic_list(f, true);
	fprintf(f, "  rNNNN (raw PMU config, hex)\n  msr/aperf/ msr/mperf/ msr/pperf/ msr/tsc/\n\n");
	sb_pfm_list(f);
	return ferror(f) ? -EIO : 0;
}
