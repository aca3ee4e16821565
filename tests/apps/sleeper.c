/* Test app with known on-CPU and off-CPU durations. */

/*
 * A tracer must see: region "sleep50" called 3 times, each ~50 ms long and
 * at least 80% off-CPU (nanosleep); region "spin" called 3 times, each
 * ~20 ms long and mostly on-CPU (busy loop). The calls alternate, sleep50
 * first. Takes ~210 ms.
 */
#include "busy.h"
#include "scope_bpf.h"

int main(void)
{
	int i;

	for (i = 0; i < 3; i++) {
		SCOPE_BPF_REGION("sleep50") {
			sleep_ns(50 * 1000000ull);
		}
		SCOPE_BPF_REGION("spin") {
			busy_ns(20 * 1000000ull);
		}
	}
	return 0;
}
