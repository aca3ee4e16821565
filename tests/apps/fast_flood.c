/*
 * Test and bench app: "fast_flood THREADS SECONDS" runs THREADS threads that
 * each call the empty region "flood" as fast as they can for SECONDS
 * seconds (or until SIGTERM), then prints "calls N" (all threads) and
 * "longest_gap_us G": the longest any thread took for 1024 calls, so a tracer
 * that makes the program wait shows as a gap as long as the wait. Prints
 * "ready" once the threads run.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "scope_bpf.h"

#define MAX_THREADS 64

static volatile sig_atomic_t stop;
static double seconds;
static long calls[MAX_THREADS];
static long long longest_gap[MAX_THREADS];

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *flood(void *arg)
{
	long id = (long)arg, n = 0, i;
	long long start = now_ns(), end = start + (long long)(seconds * 1e9), t, last = start;

	for (;;) {
		for (i = 0; i < 1024; i++)
			SCOPE_BPF_REGION("flood") {
				__asm__ __volatile__("" ::: "memory");
			}
		n += 1024;
		t = now_ns();
		if (t - last > longest_gap[id])
			longest_gap[id] = t - last;
		last = t;
		if (t >= end || stop)
			break;
	}
	calls[id] = n;
	return NULL;
}

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	long threads = argc > 1 ? atol(argv[1]) : 1, i, total = 0;
	long long gap = 0;
	pthread_t th[MAX_THREADS];

	seconds = argc > 2 ? atof(argv[2]) : 1;
	if (threads < 1 || threads > MAX_THREADS || seconds <= 0) {
		fprintf(stderr, "usage: fast_flood THREADS(1-%d) SECONDS\n", MAX_THREADS);
		return 2;
	}
	signal(SIGTERM, on_stop);
	for (i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, flood, (void *)i);
	printf("ready\n");
	fflush(stdout);
	for (i = 0; i < threads; i++) {
		pthread_join(th[i], NULL);
		total += calls[i];
		gap = longest_gap[i] > gap ? longest_gap[i] : gap;
	}
	printf("calls %ld\nlongest_gap_us %lld\n", total, gap / 1000);
	return 0;
}
