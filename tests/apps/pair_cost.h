/*
 * The test apps' bench mode (nvtx_ranges, kokkos_tools, itt_tasks): what one
 * begin/end pair of an annotation API cost, printed beside what one marker
 * pair costs in the same process (docs/ANNOTATIONS.md, cost).
 */
#ifndef APPS_PAIR_COST_H
#define APPS_PAIR_COST_H

#include <stdio.h>

#include "busy.h"
#include "scope_bpf.h"

static inline void print_pair_cost(const char *api, uint64_t api_ns, long n)
{
	uint64_t t0 = now_ns();
	long i;

	for (i = 0; i < n; i++) {
		SCOPE_BPF_BEGIN("bench_marker");
		SCOPE_BPF_END("bench_marker");
	}
	printf("%s %.1f ns/pair, marker %.1f ns/pair\n", api, (double)api_ns / (double)n,
	       (double)(now_ns() - t0) / (double)n);
}

#endif
