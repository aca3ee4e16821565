/* libsbtest.so: markers in a shared library (own semaphores), called by the libuser test app. */
#include "sbtest_lib.h"
#include "../busy.h"
#include "scope_bpf.h"

static volatile unsigned long sink;	/* keeps the work from being optimized away */

void sbtest_lib_compute(int n)
{
	SCOPE_BPF_REGION("lib_compute") {
		sink += (unsigned long)n;
		SCOPE_BPF_REGION("lib_inner") {
			busy_ns(200000);
		}
	}
}

/* Real computation (not clock polling) for ns of wall time: CPU samples land here. */
__attribute__((noinline)) void sbtest_lib_spin(unsigned long long ns)
{
	unsigned long long end = now_ns() + ns, x = sink;
	int i;

	while (now_ns() < end)
		for (i = 0; i < 20000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = (unsigned long)x;
}
