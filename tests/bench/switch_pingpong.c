/* Two threads on one CPU yield to each other: the cost of a context switch, for make bench. */

/*
 * Usage: switch_pingpong YIELDS [REPS]
 *
 * Both threads are pinned to CPU 0 and call sched_yield() YIELDS times each,
 * so each call hands the CPU to the other: a context switch between two tasks
 * no recorder traces, which is what a scheduler hook costs every task on the
 * machine. Prints "switch_ns=NS switches=N", the fastest of REPS runs' wall
 * time per switch (the yield call included).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long yields;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int pin_to_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *yield_all(void *arg)
{
	long i;

	(void)arg;
	pin_to_cpu0();
	for (i = 0; i < yields; i++)
		sched_yield();
	return NULL;
}

/* One run: the wall time of both threads' yields. */
static long long run(void)
{
	long long t = now_ns();
	pthread_t b;

	if (pthread_create(&b, NULL, yield_all, NULL))
		return -1;
	yield_all(NULL);
	pthread_join(b, NULL);
	return now_ns() - t;
}

int main(int argc, char **argv)
{
	int reps = argc > 2 ? atoi(argv[2]) : 3, r;
	long long best = -1, t;

	yields = argc > 1 ? atol(argv[1]) : 500000;
	if (yields < 1 || reps < 1) {
		fprintf(stderr, "usage: switch_pingpong YIELDS [REPS]\n");
		return 2;
	}
	if (pin_to_cpu0()) {
		fprintf(stderr, "switch_pingpong: cannot run on CPU 0\n");
		return 1;
	}
	for (r = 0; r < reps; r++) {
		t = run();
		if (t < 0) {
			fprintf(stderr, "switch_pingpong: cannot start a thread\n");
			return 1;
		}
		if (best < 0 || t < best)
			best = t;
	}
	printf("switch_ns=%lld switches=%ld\n", best / (2 * yields), 2 * yields);
	return 0;
}
