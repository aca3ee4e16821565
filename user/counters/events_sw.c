/*
 * Perf's generic event names only (software and generic hardware), so the
 * counters source builds and is tested on its own branch. The full resolver
 * (raw rNNNN, libpfm4 names, the check's reasons) is branch h10-ctrnames:
 * when it merges, this file is deleted (it defines the same functions).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters/events.h"

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} generic[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
};

int sb_counter_event_resolve(const char *name, struct sb_counter_event *ev, struct sb_error *err)
{
	size_t i;

	for (i = 0; i < sizeof(generic) / sizeof(generic[0]); i++) {
		if (strcmp(name, generic[i].name))
			continue;
		memset(ev, 0, sizeof(*ev));
		snprintf(ev->name, sizeof(ev->name), "%s", name);
		ev->type = generic[i].type;
		ev->config = generic[i].config;
		ev->hardware = generic[i].type != PERF_TYPE_SOFTWARE;
		return 0;
	}
	return sb_fail(err, ENOENT, "event '%s': unknown", name);
}

int sb_counter_set_parse(struct sb_counter_set *set, const char *list, struct sb_error *err)
{
	char name[SB_EVENT_NAME_MAX];
	const char *p = list, *comma;
	unsigned int i;
	size_t len;
	int ret;

	while (*p) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (!len || len >= sizeof(name))
			return sb_fail(err, EINVAL, "event list '%s': an empty or too long name", list);
		memcpy(name, p, len);
		name[len] = 0;
		for (i = 0; i < set->n; i++)
			if (!strcmp(set->ev[i].name, name))
				return sb_fail(err, EINVAL, "event '%s': given twice", name);
		if (set->n == SB_MAX_COUNTERS)
			return sb_fail(err, E2BIG, "event '%s': more than %d events", name,
				       SB_MAX_COUNTERS);
		ret = sb_counter_event_resolve(name, &set->ev[set->n], err);
		if (ret)
			return ret;
		set->n++;
		p += len + (comma ? 1 : 0);
	}
	return 0;
}

int sb_counter_event_check(const struct sb_counter_event *ev, struct sb_error *err)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = ev->type, .config = ev->config,
		.config1 = ev->config1, .config2 = ev->config2, .disabled = 1,
	};
	int fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (ev->hardware && (errno == ENOENT || errno == ENODEV || errno == EOPNOTSUPP))
		return sb_fail(err, ENODEV, "event '%s': this machine has no hardware PMU that "
			       "counts it (a virtual machine often has none); software events "
			       "(task-clock, page-faults, context-switches, ...) work", ev->name);
	return sb_fail(err, errno, "event '%s': cannot be counted: %s", ev->name, strerror(errno));
}

int sb_counter_list_events(FILE *f)
{
	size_t i;

	for (i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		fprintf(f, "%s\n", generic[i].name);
	return 0;
}
