/* The OpenMP regions, and the libgomp functions and outlined bodies that open them. */
#include <ctype.h>
#include <string.h>

#include "record/sources/omp_names.h"

struct omp_region {
	const char *name;
	const char *tags;
};

/* In enum sb_omp_op's order; the OMPT names of the same events, where OMPT has one. */
static const struct omp_region regions[SB_OMP_N_REGIONS] = {
	[SB_OMP_PARALLEL] = { "omp:parallel", "omp,omp.kind:parallel" },
	[SB_OMP_TEAMS] = { "omp:teams", "omp,omp.kind:teams" },
	[SB_OMP_IMPLICIT_TASK] = { "omp:implicit_task", "omp,omp.kind:implicit_task" },
	[SB_OMP_TASK] = { "omp:task", "omp,omp.kind:task" },
	[SB_OMP_JOIN] = { "omp:join", "omp,omp.kind:barrier_implicit_parallel" },
	[SB_OMP_BARRIER] = { "omp:barrier", "omp,omp.kind:barrier" },
	[SB_OMP_TASKWAIT] = { "omp:taskwait", "omp,omp.kind:taskwait" },
	[SB_OMP_CRITICAL] = { "omp:critical_wait", "omp,omp.kind:critical_wait" },
};

const char *sb_omp_region_name(unsigned int op)
{
	return op < SB_OMP_N_REGIONS ? regions[op].name : NULL;
}

const char *sb_omp_region_tags(unsigned int op)
{
	return op < SB_OMP_N_REGIONS ? regions[op].tags : NULL;
}

struct entry_point {
	const char *function;
	unsigned int op;
};

/*
 * gcc 4.9 and later call these (older gcc's GOMP_parallel_start/_end pairs
 * are not probed). Each worksharing construct without nowait ends in one of
 * the barrier functions; the parallel constructs call their body on the
 * encountering thread and join the team before they return.
 */
static const struct entry_point entry_points[] = {
	{ "GOMP_parallel", SB_OMP_PARALLEL },
	{ "GOMP_parallel_reductions", SB_OMP_PARALLEL },
	{ "GOMP_parallel_sections", SB_OMP_PARALLEL },
	{ "GOMP_parallel_loop_static", SB_OMP_PARALLEL },
	{ "GOMP_parallel_loop_dynamic", SB_OMP_PARALLEL },
	{ "GOMP_parallel_loop_guided", SB_OMP_PARALLEL },
	{ "GOMP_parallel_loop_runtime", SB_OMP_PARALLEL },
	{ "GOMP_parallel_loop_nonmonotonic_dynamic", SB_OMP_PARALLEL },
	{ "GOMP_parallel_loop_nonmonotonic_guided", SB_OMP_PARALLEL },
	{ "GOMP_parallel_loop_nonmonotonic_runtime", SB_OMP_PARALLEL },
	{ "GOMP_parallel_loop_maybe_nonmonotonic_runtime", SB_OMP_PARALLEL },
	{ "GOMP_teams_reg", SB_OMP_TEAMS },
	{ "GOMP_task", SB_OMP_SPAWN },
	{ "GOMP_taskloop", SB_OMP_SPAWN },
	{ "GOMP_taskloop_ull", SB_OMP_SPAWN },
	{ "GOMP_barrier", SB_OMP_BARRIER },
	{ "GOMP_barrier_cancel", SB_OMP_BARRIER },
	{ "GOMP_loop_end", SB_OMP_BARRIER },
	{ "GOMP_loop_end_cancel", SB_OMP_BARRIER },
	{ "GOMP_sections_end", SB_OMP_BARRIER },
	{ "GOMP_sections_end_cancel", SB_OMP_BARRIER },
	{ "GOMP_single_copy_start", SB_OMP_BARRIER },
	{ "GOMP_single_copy_end", SB_OMP_BARRIER },
	{ "GOMP_taskwait", SB_OMP_TASKWAIT },
	{ "GOMP_taskwait_depend", SB_OMP_TASKWAIT },
	{ "GOMP_critical_start", SB_OMP_CRITICAL },
	{ "GOMP_critical_name_start", SB_OMP_CRITICAL },
};

int sb_omp_entry_point(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(entry_points) / sizeof(entry_points[0]); i++) {
		if (!strcmp(name, entry_points[i].function))
			return (int)entry_points[i].op;
	}
	return -1;
}

/* gcc's outlined bodies; not `._omp_cpyfn.N` (task copy functions), not `.cold` fragments. */
#define BODY_MARK "._omp_fn."

bool sb_omp_body_symbol(const char *name)
{
	const char *mark = strstr(name, BODY_MARK), *p;

	if (!mark || mark == name)
		return false;
	p = mark + strlen(BODY_MARK);
	if (!*p)
		return false;
	for (; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return false;
	}
	return true;
}
