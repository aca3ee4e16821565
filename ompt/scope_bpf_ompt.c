/*
 * An OpenMP tools interface (OMPT) tool for LLVM's OpenMP runtime (libomp),
 * loaded into the traced program with OMP_TOOL_LIBRARIES: it turns the
 * runtime's parallel, implicit task and synchronization events into
 * scope_bpf markers, named as scope-bpf names gcc's libgomp constructs
 * (docs/OPENMP.md), so `scope-bpf record` traces them like any marked region.
 * With no recorder attached each event costs a marker's semaphore load.
 */
#include <omp-tools.h>

#include "scope_bpf.h"

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
			      unsigned int requested, int flags, const void *codeptr)
{
	(void)task;
	(void)frame;
	(void)parallel;
	(void)requested;
	(void)flags;
	(void)codeptr;
	SCOPE_BPF_BEGIN_TAGGED("omp:parallel", "omp,omp.kind:parallel");
}

static void on_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags,
			    const void *codeptr)
{
	(void)parallel;
	(void)task;
	(void)flags;
	(void)codeptr;
	SCOPE_BPF_END("omp:parallel");
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
			     ompt_data_t *task, unsigned int actual, unsigned int index, int flags)
{
	(void)parallel;
	(void)task;
	(void)actual;
	(void)index;
	/* The initial task is the whole program, not a share of a parallel region. */
	if (flags & ompt_task_initial)
		return;
	if (endpoint == ompt_scope_begin)
		SCOPE_BPF_BEGIN_TAGGED("omp:implicit_task", "omp,omp.kind:implicit_task");
	else
		SCOPE_BPF_END("omp:implicit_task");
}

/* The end-of-region barrier is the join; every other barrier kind is omp:barrier. */
static void barrier(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint)
{
	if (kind == ompt_sync_region_barrier_implicit_parallel) {
		if (endpoint == ompt_scope_begin)
			SCOPE_BPF_BEGIN_TAGGED("omp:join",
					       "omp,omp.kind:barrier_implicit_parallel");
		else
			SCOPE_BPF_END("omp:join");
	} else if (endpoint == ompt_scope_begin) {
		SCOPE_BPF_BEGIN_TAGGED("omp:barrier", "omp,omp.kind:barrier");
	} else {
		SCOPE_BPF_END("omp:barrier");
	}
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
			   ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
	(void)parallel;
	(void)task;
	(void)codeptr;
	switch (kind) {
	case ompt_sync_region_taskwait:
		if (endpoint == ompt_scope_begin)
			SCOPE_BPF_BEGIN_TAGGED("omp:taskwait", "omp,omp.kind:taskwait");
		else
			SCOPE_BPF_END("omp:taskwait");
		break;
	case ompt_sync_region_taskgroup:
	case ompt_sync_region_reduction:
		break;
	default:
		barrier(kind, endpoint);
		break;
	}
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");

	(void)device;
	(void)data;
	if (!set)
		return 0;
	set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
	set(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
	set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
	set(ompt_callback_sync_region, (ompt_callback_t)on_sync_region);
	return 1;	/* stay active */
}

static void finalize(ompt_data_t *data)
{
	(void)data;
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
	static ompt_start_tool_result_t tool = { initialize, finalize, { 0 } };

	(void)omp_version;
	(void)runtime_version;
	return &tool;
}
