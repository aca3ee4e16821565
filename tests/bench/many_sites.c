/*
 * make bench (g): a program with 40 marked regions (80 probes) that calls each
 * once and prints when it exits (exit_ns=, CLOCK_REALTIME), so the bench can
 * see how long record and the detaching of its probes outlast the target.
 */
#include <stdio.h>
#include <time.h>

#include "scope_bpf.h"

static volatile long sink;

#define R(n) SCOPE_BPF_REGION("site" #n) { sink++; }
#define R10(p) R(p##0) R(p##1) R(p##2) R(p##3) R(p##4) R(p##5) R(p##6) R(p##7) R(p##8) R(p##9)

int main(void)
{
	struct timespec ts;

	R10(1) R10(2) R10(3) R10(4)
	clock_gettime(CLOCK_REALTIME, &ts);
	printf("exit_ns=%lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	return sink == 40 ? 0 : 1;
}
