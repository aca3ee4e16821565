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
