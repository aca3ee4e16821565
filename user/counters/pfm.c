/* libpfm4: CPU-specific event names to perf_event_attr encodings. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include <perfmon/pfmlib_perf_event.h>

#include "counters/pfm.h"

static int pfm_state = 1;	/* 1: not initialized yet; else pfm_initialize()'s result */

/*
 * libpfm4 encodes for a PMU it did not detect only when LIBPFM_ENCODE_INACTIVE
 * is set at initialization. Set it for pfm_initialize() alone so the traced
 * command does not inherit it; unprefixed names still search only this CPU's
 * PMUs.
 */
static int pfm_init_once(void)
{
	bool set = !getenv("LIBPFM_ENCODE_INACTIVE");

	if (pfm_state != 1)
		return pfm_state;
	if (set)
		setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	pfm_state = pfm_initialize();
	if (set)
		unsetenv("LIBPFM_ENCODE_INACTIVE");
	return pfm_state;
}

int sb_pfm_resolve(const char *name, struct sb_counter_event *ev, struct sb_error *err)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	int ret;

	ret = pfm_init_once();
	if (ret != PFM_SUCCESS)
		return sb_fail(err, ENOENT, "%s: libpfm4 cannot start (%s)", name, pfm_strerror(ret));
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	/* user and kernel, as perf counts by default; the recorder sets the exclude bits */
	ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret == PFM_ERR_NOTFOUND)
		return -ENOENT;
	if (ret != PFM_SUCCESS)
		return sb_fail(err, EINVAL, "%s: libpfm4: %s", name, pfm_strerror(ret));
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	ev->type = attr.type;
	ev->config = attr.config;
	ev->config1 = attr.config1;
	ev->config2 = attr.config2;
	ev->hardware = attr.type != PERF_TYPE_SOFTWARE && attr.type != PERF_TYPE_TRACEPOINT;
	return 0;
}

static bool core_pmu_info(pfm_pmu_t p, pfm_pmu_info_t *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	if (pfm_get_pmu_info(p, info) != PFM_SUCCESS)
		return false;
	return info->is_present && info->type == PFM_PMU_TYPE_CORE;
}

const char *sb_pfm_cpu_pmu(void)
{
	pfm_pmu_info_t info;
	pfm_pmu_t p;

	if (pfm_init_once() != PFM_SUCCESS)
		return NULL;
	pfm_for_all_pmus(p)
		if (core_pmu_info(p, &info))
			return info.name;
	return NULL;
}

static void list_event(FILE *f, const char *pmu, int idx)
{
	pfm_event_attr_info_t ai;
	pfm_event_info_t ei;
	int a, n = 0;

	memset(&ei, 0, sizeof(ei));
	ei.size = sizeof(ei);
	if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS)
		return;
	fprintf(f, "  %s::%s", pmu, ei.name);
	for (a = 0; a < ei.nattrs; a++) {
		memset(&ai, 0, sizeof(ai));
		ai.size = sizeof(ai);
		if (pfm_get_event_attr_info(idx, a, PFM_OS_PERF_EVENT_EXT, &ai) == PFM_SUCCESS &&
		    ai.type == PFM_ATTR_UMASK)
			fprintf(f, "%s%s", n++ ? "|" : " [:", ai.name);
	}
	fprintf(f, "%s\n", n ? "]" : "");
}

void sb_pfm_list(FILE *f)
{
	pfm_pmu_info_t info;
	pfm_pmu_t p;
	int i;

	if (pfm_init_once() != PFM_SUCCESS)
		return;
	pfm_for_all_pmus(p) {
		if (!core_pmu_info(p, &info))
			continue;
		fprintf(f, "CPU events (libpfm4 PMU %s: %s):\n", info.name, info.desc);
		for (i = info.first_event; i != -1; i = pfm_get_event_next(i))
			list_event(f, info.name, i);
	}
}
