/*
 * Test app: a CPU-only program annotated with NVTX v3 (header-only, from the
 * CUDA toolkit), recorded by tests/integration/test_annotations.c. Under
 * `scope-bpf record` NVTX loads libscope_bpf_nvtx.so from NVTX_INJECTION64_PATH.
 *
 * A tracer must see, on the main thread unless said:
 *  - "outer" (a marker) once, holding STEPS "step" (nvtxRangePushA), each
 *    holding one "inner" (a marker);
 *  - "wide \u00e9" (nvtxRangePushW) once, at top level;
 *  - "categorized" (nvtxRangePushEx, category 7 named "io") once, tagged
 *    nvtx.category:io; "solve" (nvtxDomainRangePushEx in domain "solver",
 *    a registered string) once, tagged nvtx.domain:solver;
 *  - "started" (nvtxRangeStartA/End, same thread) once;
 *  - "first" and "second" started in that order and ended in that order:
 *    "second" inside "first", both once;
 *  - "guard" (a marker) once, complete, around a pop with no push open;
 *  - "handed_off" started here and ended by another thread, once, then
 *    "after" (a push) once at top level, not inside "handed_off";
 *  - "worker_range" (a push) WORKER_CALLS times on a second thread;
 *  - "omp_body" (a push) once in each of OMP_THREADS threads of a gcc OpenMP
 *    team, inside each thread's "omp:implicit_task" (libgomp, traced by
 *    uprobes: the two paths' records nest in one stream).
 * "nvtx_ranges bench N": N nvtxRangePushA/Pop pairs and N marker pairs, and
 * the nanoseconds a pair each took, on stdout (docs/ANNOTATIONS.md, cost).
 */
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "busy.h"
#include "pair_cost.h"
#include "scope_bpf.h"

#define STEPS 5
#define WORKER_CALLS 20
#define OMP_THREADS 3

static nvtxRangeId_t handed;

static void *end_handed(void *arg)
{
	(void)arg;
	nvtxRangeEnd(handed);
	return NULL;
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < WORKER_CALLS; i++) {
		nvtxRangePushA("worker_range");
		busy_ns(20000);
		nvtxRangePop();
	}
	return NULL;
}

static void attributed(void)
{
	nvtxEventAttributes_t a;
	nvtxDomainHandle_t solver = nvtxDomainCreateA("solver");

	memset(&a, 0, sizeof(a));
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.category = 7;
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "categorized";
	nvtxRangePushEx(&a);
	busy_ns(20000);
	nvtxRangePop();

	a.category = 0;
	a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	a.message.registered = nvtxDomainRegisterStringA(solver, "solve");
	nvtxDomainRangePushEx(solver, &a);
	busy_ns(20000);
	nvtxDomainRangePop(solver);
}

static void out_of_order(void)
{
	nvtxRangeId_t first, second, started = nvtxRangeStartA("started");

	busy_ns(20000);
	nvtxRangeEnd(started);
	first = nvtxRangeStartA("first");
	second = nvtxRangeStartA("second");
	busy_ns(20000);
	nvtxRangeEnd(first);
	busy_ns(20000);
	nvtxRangeEnd(second);
}

static void across_threads(void)
{
	pthread_t t;

	handed = nvtxRangeStartA("handed_off");
	busy_ns(20000);
	pthread_create(&t, NULL, end_handed, NULL);
	pthread_join(t, NULL);
	nvtxRangePushA("after");
	busy_ns(20000);
	nvtxRangePop();
}

static void in_parallel(void)
{
#pragma omp parallel num_threads(OMP_THREADS)
	{
		nvtxRangePushA("omp_body");
		busy_ns(200000);
		nvtxRangePop();
	}
}

static int bench(long n)
{
	uint64_t t0;
	long i;

	nvtxRangePushA("warm");
	nvtxRangePop();
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		nvtxRangePushA("bench_nvtx");
		nvtxRangePop();
	}
	print_pair_cost("nvtx", now_ns() - t0, n);
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int i;

	if (argc == 3 && !strcmp(argv[1], "bench"))
		return bench(atol(argv[2]));
	nvtxNameCategoryA(7, "io");
	SCOPE_BPF_REGION("outer") {
		for (i = 0; i < STEPS; i++) {
			nvtxRangePushA("step");
			SCOPE_BPF_REGION("inner")
				busy_ns(20000);
			nvtxRangePop();
		}
	}
	nvtxRangePushW(L"wide \u00e9");
	nvtxRangePop();
	attributed();
	out_of_order();
	SCOPE_BPF_REGION("guard") {
		if (nvtxRangePop() >= 0)
			return 1;	/* no push is open: NVTX's answer is negative */
	}
	across_threads();
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	in_parallel();
	return 0;
}
