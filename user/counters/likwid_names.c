/*
 * LIKWID names events EVENT_UMASK in one word and has its own names for
 * some; libpfm4 spells EVENT:UMASK. Names the split cannot find are mapped
 * here, each checked against LIKWID's event tables (event code and umask)
 * and tested to resolve (tests/unit/counters/test_likwid_names.c).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "counters/likwid_arch.h"
#include "counters/likwid_names.h"
#include "counters/pfm.h"

#define EVSEL_EDGE (1ULL << 18)	/* the edge-detect bit of Intel's and AMD's event select */

struct name_map {
	const char *archs;	/* perfgroups directories, space separated; "intel" or "amd": all */
	const char *likwid;
	const char *spelling;
};

static const struct name_map name_map[] = {
	/* Intel's fixed counters are perf's generic events */
	{ "intel", "INSTR_RETIRED_ANY", "instructions" },
	{ "intel", "CPU_CLK_UNHALTED_CORE", "cycles" },
	{ "intel", "CPU_CLK_UNHALTED_REF", "ref-cycles" },
	{ "intel", "APERF", "msr/aperf/" },
	{ "intel", "MPERF", "msr/mperf/" },
	{ "intel", "PPERF", "msr/pperf/" },
	/* AMD's FIXC1/FIXC2 are the APERF/MPERF MSRs */
	{ "amd", "ACTUAL_CPU_CLOCK", "msr/aperf/" },
	{ "amd", "MAX_CPU_CLOCK", "msr/mperf/" },
	{ "amd", "APERF", "msr/aperf/" },
	{ "amd", "MPERF", "msr/mperf/" },
	/* the kernel pairs counters for large-increment FLOPS events itself */
	{ "amd", "MERGE", "" },

	{ "skylake skylakeX CLX", "ARITH_DIVIDER_COUNT", "ARITH:DIVIDER_ACTIVE:c=1:e=1" },
	{ "skylake skylakeX CLX", "CPU_CLOCK_UNHALTED_TOTAL_CYCLES",
	  "CPU_CLK_THREAD_UNHALTED:THREAD_P:c=2:i=1" },
	{ "skylake skylakeX CLX", "CYCLE_ACTIVITY_CYCLES_NO_EXECUTE", "CYCLE_ACTIVITY:STALLS_TOTAL" },
	{ "skylake skylakeX CLX", "CYCLE_ACTIVITY_STALLS_L1D_PENDING",
	  "CYCLE_ACTIVITY:STALLS_L1D_MISS" },
	{ "skylake skylakeX CLX", "CYCLE_ACTIVITY_STALLS_L2_PENDING",
	  "CYCLE_ACTIVITY:STALLS_L2_MISS" },
	{ "skylake skylakeX CLX", "CYCLE_ACTIVITY_STALLS_LDM_PENDING",
	  "CYCLE_ACTIVITY:STALLS_MEM_ANY" },
	{ "intel", "DTLB_LOAD_MISSES_CAUSES_A_WALK", "DTLB_LOAD_MISSES:MISS_CAUSES_A_WALK" },
	{ "intel", "DTLB_STORE_MISSES_CAUSES_A_WALK", "DTLB_STORE_MISSES:MISS_CAUSES_A_WALK" },
	{ "intel", "ITLB_MISSES_CAUSES_A_WALK", "ITLB_MISSES:MISS_CAUSES_A_WALK" },
	{ "skylake skylakeX CLX", "ICACHE_64B_IFTAG_ALL", "r383" },	/* 0x83 umask HIT|MISS */
	{ "skylake skylakeX CLX", "INT_MISC_RECOVERY_COUNT", "INT_MISC:RECOVERY_STALLS_COUNT" },
	{ "skylake skylakeX CLX", "L1D_M_EVICT", "r451" },		/* 0x51 umask 0x04 */
	{ "skylake skylakeX CLX", "L2_TRANS_ALL_REQUESTS", "r80f0" },	/* 0xF0 umask 0x80 */
	{ "skylake skylakeX CLX", "MEM_INST_RETIRED_ALL", "MEM_INST_RETIRED:ANY" },
	{ "skylake skylakeX CLX", "UOPS_EXECUTED_USED_CYCLES", "UOPS_EXECUTED:THREAD:c=1" },
	{ "skylake skylakeX CLX", "UOPS_ISSUED_USED_CYCLES", "UOPS_ISSUED:ANY:c=1" },
	{ "skylake skylakeX CLX", "UOPS_RETIRED_USED_CYCLES", "UOPS_RETIRED:ALL:c=1" },

	/* Intel raw configs: umask << 8 | event code, from Intel's event tables */
	{ "sandybridge sandybridgeEP ivybridge ivybridgeEP haswell haswellEP broadwell broadwellD "
	  "broadwellEP", "L1D_M_EVICT", "r451" },
	{ "sandybridge sandybridgeEP ivybridge ivybridgeEP haswell haswellEP broadwell broadwellD "
	  "broadwellEP ICL ICX TGL RKL", "L2_TRANS_ALL_REQUESTS", "r80f0" },
	{ "ICL ICX TGL RKL", "L2_TRANS_L1D_WB", "r10f0" },
	{ "sandybridge sandybridgeEP ivybridge ivybridgeEP", "FP_COMP_OPS_EXE_SSE_FP_SCALAR_DOUBLE",
	  "FP_COMP_OPS_EXE:SSE_SCALAR_DOUBLE" },
	{ "sandybridge sandybridgeEP ivybridge ivybridgeEP", "FP_COMP_OPS_EXE_SSE_FP_PACKED_SINGLE",
	  "FP_COMP_OPS_EXE:SSE_PACKED_SINGLE" },
	{ "sandybridge sandybridgeEP ivybridge ivybridgeEP haswell haswellEP",
	  "MEM_UOPS_RETIRED_LOADS", "MEM_UOPS_RETIRED:ALL_LOADS" },
	{ "sandybridge sandybridgeEP ivybridge ivybridgeEP haswell haswellEP",
	  "MEM_UOPS_RETIRED_STORES", "MEM_UOPS_RETIRED:ALL_STORES" },
	{ "broadwell broadwellD broadwellEP", "MEM_UOPS_RETIRED_LOADS_ALL",
	  "MEM_UOPS_RETIRED:ALL_LOADS" },
	{ "broadwell broadwellD broadwellEP", "MEM_UOPS_RETIRED_STORES_ALL",
	  "MEM_UOPS_RETIRED:ALL_STORES" },
	{ "sandybridge sandybridgeEP", "L2_LINES_IN_ALL", "L2_LINES_IN:ANY" },

	/* AMD raw configs: umask << 8 | event code (LIKWID's perfmon_zen*_events tables) */
	{ "zen zen2 zen3", "CPU_CLOCKS_UNHALTED", "CYCLES_NOT_IN_HALT" },
	{ "zen zen2 zen3", "RETIRED_BRANCH_INSTR", "RETIRED_BRANCH_INSTRUCTIONS" },
	{ "zen zen2 zen3", "RETIRED_MISP_BRANCH_INSTR", "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED" },
	{ "zen zen2 zen3", "DIV_BUSY_CYCLES", "DIV_CYCLES_BUSY_COUNT" },
	{ "zen zen2 zen3", "ICACHE_FETCHES", "r80" },
	{ "zen zen2 zen3", "ICACHE_L2_REFILLS", "INSTRUCTION_CACHE_REFILLS_FROM_L2" },
	{ "zen zen2 zen3", "ICACHE_SYSTEM_REFILLS", "INSTRUCTION_CACHE_REFILLS_FROM_SYSTEM" },
	{ "zen zen2 zen3", "LS_DISPATCH_LOADS", "LS_DISPATCH:LD_DISPATCH" },
	{ "zen zen2 zen3", "LS_DISPATCH_STORES", "LS_DISPATCH:STORE_DISPATCH" },
	{ "zen zen2 zen3", "LS_DISPATCH_LOAD_OP_STORES", "LS_DISPATCH:LD_ST_DISPATCH" },
	{ "zen zen2 zen3", "DATA_CACHE_ACCESSES", "r40" },
	{ "zen zen2", "DATA_CACHE_REFILLS_ALL", "r5b43" },
	{ "zen zen2", "DATA_CACHE_REFILLS_LOCAL_ALL", "r0b43" },
	{ "zen zen2", "DATA_CACHE_REFILLS_REMOTE_ALL", "r5043" },
	{ "zen zen2", "HWPREF_DATA_CACHE_FILLS_LOCAL_ALL", "r0b5a" },
	{ "zen zen2", "HWPREF_DATA_CACHE_FILLS_REMOTE_ALL", "r505a" },
	{ "zen zen2 zen3", "L1_DTLB_MISS_ANY_L2_HIT", "r0f45" },
	{ "zen zen2 zen3", "L1_DTLB_MISS_ANY_L2_MISS", "rf045" },
	{ "zen zen2 zen3", "REQUESTS_TO_L2_GRP1_ALL_NO_PF", "rf960" },
	{ "zen", "RETIRED_SSE_AVX_FLOPS_DOUBLE_ALL", "rf003" },
	{ "zen", "RETIRED_SSE_AVX_FLOPS_SINGLE_ALL", "r0f03" },
	{ "zen2 zen3", "RETIRED_SSE_AVX_FLOPS_ALL", "RETIRED_SSE_AVX_FLOPS:ANY" },
	{ "zen3", "RETIRED_UOPS", "RETIRED_OPS" },
	{ "zen3", "DATA_CACHE_REFILLS_ALL", "rff43" },
	{ "zen3", "DATA_CACHE_REFILLS_LOCAL_ALL", "r0f43" },
	{ "zen3", "DATA_CACHE_REFILLS_REMOTE_ALL", "r5043" },
	{ "zen3", "HWPREF_DATA_CACHE_FILLS_LOCAL_ALL", "r0f5a" },
	{ "zen3", "HWPREF_DATA_CACHE_FILLS_REMOTE_ALL", "r505a" },
	{ "zen3", "L1_ITLB_MISS_L2_ITLB_MISS_ANY", "r0f85" },
	{ "zen3", "L2_PF_HIT_IN_L2", "rff70" },
	{ "zen3", "L2_PF_HIT_IN_L3", "rff71" },
	{ "zen3", "L2_PF_MISS_IN_L3", "rff72" },
	{ "zen3", "CORE_TO_L2_CACHE_REQUESTS_HITS", "rf664" },
	{ "zen3", "L2_CACHE_MISS_AFTER_L1_MISS", "r964" },
};

static bool arch_is_amd(const char *arch)
{
	const char *pmu = sb_likwid_arch_pmu(arch);

	return pmu && !strncmp(pmu, "amd64", 5);
}

static bool archs_match(const char *archs, const char *arch)
{
	size_t len = strlen(arch);
	const char *p;

	if (!strcmp(archs, "intel") || !strcmp(archs, "amd"))
		return sb_likwid_arch_pmu(arch) && arch_is_amd(arch) == !strcmp(archs, "amd");
	for (p = strstr(archs, arch); p; p = strstr(p + 1, arch))
		if ((p == archs || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
			return true;
	return false;
}

const char *sb_likwid_name_map(const char *arch, const char *event)
{
	size_t i;

	for (i = 0; i < sizeof(name_map) / sizeof(name_map[0]); i++)
		if (!strcmp(name_map[i].likwid, event) && archs_match(name_map[i].archs, arch))
			return name_map[i].spelling;
	return NULL;
}

/*
 * The spelling as an event of the group's PMU first: a bare libpfm4 name
 * resolves only against the PMUs of the machine this runs on, and groups are
 * read for other machines too (an AMD group on an Intel host). Then as perf's
 * own syntax (generic, raw, msr), which needs no PMU prefix.
 */
static int resolve_spelling(const char *pmu, const char *spelling, struct sb_counter_event *ev,
			    struct sb_error *err)
{
	char name[2 * SB_EVENT_NAME_MAX];
	int ret;

	snprintf(name, sizeof(name), "%s::%s", pmu, spelling);
	ret = sb_pfm_resolve(name, ev, err);
	if (ret != -ENOENT || strchr(spelling, ':'))
		return ret;
	return sb_counter_event_resolve(spelling, ev, err);
}

/* Try libpfm4 on EVENT, then on EVENT:UMASK split at each '_' from the right. */
static int resolve_split(const char *pmu, const char *event, struct sb_counter_event *ev,
			 struct sb_error *err)
{
	char name[2 * SB_EVENT_NAME_MAX];
	int ret, cut;

	snprintf(name, sizeof(name), "%s::%s", pmu, event);
	ret = sb_pfm_resolve(name, ev, err);
	/* a split naming a real event with a foreign umask is not the answer either */
	for (cut = (int)strlen(event) - 1; ret && cut > 0; cut--) {
		if (event[cut] != '_')
			continue;
		snprintf(name, sizeof(name), "%s::%.*s:%s", pmu, cut, event, event + cut + 1);
		ret = sb_pfm_resolve(name, ev, err);
	}
	return ret ? -ENOENT : 0;
}

static int apply_options(const char *counter, struct sb_counter_event *ev, struct sb_error *err)
{
	const char *opt = strchr(counter, ':');

	while (opt) {
		const char *end = strchr(opt + 1, ':');
		size_t len = end ? (size_t)(end - opt - 1) : strlen(opt + 1);

		if (len == 10 && !strncmp(opt + 1, "EDGEDETECT", 10) && ev->type == PERF_TYPE_RAW)
			ev->config |= EVSEL_EDGE;
		else
			return sb_fail(err, EINVAL, "counter option %.*s is not supported (only "
				       "EDGEDETECT, on a core event)", (int)len, opt + 1);
		opt = end;
	}
	return 0;
}

int sb_likwid_event_resolve(const char *arch, const char *counter, const char *event,
			    struct sb_counter_event *ev, struct sb_error *err)
{
	const char *pmu = sb_likwid_arch_pmu(arch);
	const char *spelling = sb_likwid_name_map(arch, event);
	const char *opts = strchr(counter, ':');
	int ret;

	if (!pmu)
		return sb_fail(err, ENOENT, "%s: libpfm4 has no PMU for LIKWID's %s groups", event,
			       arch);
	if (spelling)
		ret = resolve_spelling(pmu, spelling, ev, err);
	else
		ret = resolve_split(pmu, event, ev, err);
	if (ret == -ENOENT)
		return sb_fail(err, ENOENT, "%s: no libpfm4 %s event of that name (as EVENT or "
			       "EVENT:UMASK) and no entry in scope-bpf's LIKWID name map", event,
			       pmu);
	if (ret)
		return ret;
	ret = apply_options(counter, ev, err);
	if (ret)
		return ret;
	snprintf(ev->name, sizeof(ev->name), "%s%s", event, opts ? opts : "");
	return 0;
}
