/* Benchmark: CUDA activity records through the CUPTI library's hand-off probe, as fast as they go. */

/*
 * Usage: cuda_handoff BATCHES [REPS]
 *
 * Fires scope_bpf_cuda:batch BATCHES times with full batches (64 records of
 * 80 bytes, as libscope_bpf_cupti.so hands CUPTI's buffers over), REPS
 * times, and prints the fastest run on one line:
 *	loop_ns=NS cpu_ns=NS records=N traced=0|1
 * Untraced, each batch costs a load of the probe's semaphore: the
 * difference is what the hand-off costs, per record.
 */
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_rec.h"
#include "probes.h"

unsigned short scope_bpf_cuda_batch_semaphore;
unsigned short scope_bpf_cuda_name_semaphore;

static long long now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* noinline: the traced and untraced runs time the same function. */
static __attribute__((noinline)) void hand_off(struct sb_cuda_rec *recs, long batches)
{
	long b;
	int i;

	for (b = 0; b < batches; b++) {
		for (i = 0; i < SB_CUDA_BATCH_MAX; i++) {
			recs[i].correlation = (__u32)(b * SB_CUDA_BATCH_MAX + i);
			recs[i].start = (__u64)b;
			recs[i].end = (__u64)b + 1;
		}
		if (__builtin_expect(scope_bpf_impl_sem(&scope_bpf_cuda_batch_semaphore), 0))
			SB_CUDA_PROBE(batch, recs, SB_CUDA_BATCH_MAX);
	}
}

int main(int argc, char **argv)
{
	static struct sb_cuda_rec recs[SB_CUDA_BATCH_MAX];
	long batches = argc > 1 ? atol(argv[1]) : 10000;
	int reps = argc > 2 ? atoi(argv[2]) : 1, r, i;
	long long best = -1, best_cpu = -1, t, cpu;

	if (batches < 1 || reps < 1) {
		fprintf(stderr, "usage: cuda_handoff BATCHES [REPS]\n");
		return 2;
	}
	for (i = 0; i < SB_CUDA_BATCH_MAX; i++) {
		memset(&recs[i], 0, sizeof(recs[i]));
		recs[i].kind = SB_CUDA_RUNTIME;
		recs[i].tid = 1;
	}
	for (r = 0; r < reps; r++) {
		cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);
		t = now_ns(CLOCK_MONOTONIC);
		hand_off(recs, batches);
		t = now_ns(CLOCK_MONOTONIC) - t;
		cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
		if (best < 0 || t < best)
			best = t;
		if (best_cpu < 0 || cpu < best_cpu)
			best_cpu = cpu;
	}
	printf("loop_ns=%lld cpu_ns=%lld records=%ld traced=%d\n", best, best_cpu,
	       batches * SB_CUDA_BATCH_MAX, scope_bpf_impl_sem(&scope_bpf_cuda_batch_semaphore) ? 1 : 0);
	return 0;
}
