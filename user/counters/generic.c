/* perf's generic event names (perf list's "Hardware event", "Software event", cache events). */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "counters/generic.h"

struct generic_name {
	const char *name;	/* what perf prints */
	const char *alias;	/* the other spelling perf accepts, or NULL */
	uint32_t type;
	uint64_t config;
};

static const struct generic_name generic_names[] = {
	{ "cycles", "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", "idle-cycles-frontend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", "idle-cycles-backend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
};

#define N_GENERIC (sizeof(generic_names) / sizeof(generic_names[0]))

/* perf's cache event names: <cache>-<op>s counts accesses, <cache>-<op>-misses misses. */
static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = "L1-dcache",
	[PERF_COUNT_HW_CACHE_L1I] = "L1-icache",
	[PERF_COUNT_HW_CACHE_LL] = "LLC",
	[PERF_COUNT_HW_CACHE_DTLB] = "dTLB",
	[PERF_COUNT_HW_CACHE_ITLB] = "iTLB",
	[PERF_COUNT_HW_CACHE_BPU] = "branch",
	[PERF_COUNT_HW_CACHE_NODE] = "node",
};

static const char *const cache_ops[PERF_COUNT_HW_CACHE_OP_MAX] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = "load",
	[PERF_COUNT_HW_CACHE_OP_WRITE] = "store",
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = "prefetch",
};

static void set_event(struct sb_counter_event *ev, const char *name, uint32_t type, uint64_t config)
{
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	ev->type = type;
	ev->config = config;
	ev->hardware = type != PERF_TYPE_SOFTWARE;
}

static void cache_event_name(char *buf, size_t len, unsigned int cache, unsigned int op, bool miss)
{
	/* perf spells the access count with the plural op: "prefetches", "loads" */
	if (miss)
		snprintf(buf, len, "%s-%s-misses", cache_names[cache], cache_ops[op]);
	else
		snprintf(buf, len, "%s-%s%s", cache_names[cache], cache_ops[op],
			 op == PERF_COUNT_HW_CACHE_OP_PREFETCH ? "es" : "s");
}

static bool resolve_cache(const char *name, struct sb_counter_event *ev)
{
	char buf[SB_EVENT_NAME_MAX];
	unsigned int c, op, miss;

	for (c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++) {
		for (op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++) {
			for (miss = 0; miss < 2; miss++) {
				cache_event_name(buf, sizeof(buf), c, op, miss);
				if (strcmp(buf, name))
					continue;
				set_event(ev, buf, PERF_TYPE_HW_CACHE,
					  c | (op << 8) |
					  ((miss ? PERF_COUNT_HW_CACHE_RESULT_MISS
						 : PERF_COUNT_HW_CACHE_RESULT_ACCESS) << 16));
				return true;
			}
		}
	}
	return false;
}

bool sb_generic_resolve(const char *name, struct sb_counter_event *ev)
{
	size_t i;

	for (i = 0; i < N_GENERIC; i++) {
		const struct generic_name *g = &generic_names[i];

		if (!strcmp(name, g->name) || (g->alias && !strcmp(name, g->alias))) {
			set_event(ev, g->name, g->type, g->config);
			return true;
		}
	}
	return resolve_cache(name, ev);
}

void sb_generic_list(FILE *f, bool hardware)
{
	char buf[SB_EVENT_NAME_MAX];
	unsigned int c, op, miss;
	size_t i;

	for (i = 0; i < N_GENERIC; i++) {
		const struct generic_name *g = &generic_names[i];

		if ((g->type != PERF_TYPE_SOFTWARE) != hardware)
			continue;
		fprintf(f, "  %s%s%s\n", g->name, g->alias ? " OR " : "", g->alias ? g->alias : "");
	}
	if (!hardware)
		return;
	for (c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++)
		for (op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++)
			for (miss = 0; miss < 2; miss++) {
				cache_event_name(buf, sizeof(buf), c, op, miss);
				fprintf(f, "  %s\n", buf);
			}
}
