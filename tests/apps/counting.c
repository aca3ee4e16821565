/* Test app with known software counter values per region (record -e). */

/*
 * A tracer counting page-faults, context-switches and cpu-migrations per
 * call must see, on the main thread:
 *   "faults"   2000 fresh pages touched: 2000 page faults
 *   "sleeps"   20 sleeps of 1 ms: at least 20 context switches
 *   "empty"    nothing: about 0 of anything
 *   "outer"    100 pages itself, around "inner" (300 pages): outer counts 400
 *              inclusive and 100 exclusive
 *   "migrate"  3 x 500 pages, moved between CPUs 0 and 1 in between: 1500
 * and in two threads started after those, each calling once:
 *   "work_a"   1000 pages     "work_b"   3000 pages
 * Every thread waits 200 ms before its first region, so a tracer that opens
 * its counters when it first sees it runs is ready.
 * `counting loop SECS` instead runs two threads, each calling "tick" (100
 * pages) every 10 ms for SECS seconds or until SIGTERM (then it exits 0), for
 * tracers that attach with -p; it prints "ready" once both run.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "pages.h"
#include "scope_bpf.h"

#define SETTLE_US 200000

static long page;
/* Set by SIGTERM: the tickers of `loop` end early. */
static volatile sig_atomic_t stop;

static void on_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *work_a(void *arg)
{
	char *p = fresh_pages(1000);

	(void)arg;
	usleep(SETTLE_US);
	SCOPE_BPF_REGION("work_a")
		touch_pages(p, 1000);
	munmap(p, 1000 * page);
	return NULL;
}

static void *work_b(void *arg)
{
	char *p = fresh_pages(3000);

	(void)arg;
	usleep(SETTLE_US);
	SCOPE_BPF_REGION("work_b")
		touch_pages(p, 3000);
	munmap(p, 3000 * page);
	return NULL;
}

static void *ticker(void *arg)
{
	double secs = *(double *)arg;
	struct timespec t0, t;
	char *p;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		p = fresh_pages(100);
		SCOPE_BPF_REGION("tick")
			touch_pages(p, 100);
		munmap(p, 100 * page);
		usleep(10000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (!stop && t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return NULL;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int loop(double secs)
{
	pthread_t t[2];
	int i;

	signal(SIGTERM, on_term);
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, ticker, &secs))
			return 1;
	/* For a tracer that attaches: the threads run. */
	printf("ready\n");
	fflush(stdout);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static void main_thread_regions(void)
{
	char *p = fresh_pages(2000), *q = fresh_pages(100), *r = fresh_pages(300), *m = fresh_pages(1500);
	int i;

	SCOPE_BPF_REGION("faults")
		touch_pages(p, 2000);
	SCOPE_BPF_REGION("sleeps")
		for (i = 0; i < 20; i++)
			usleep(1000);
	SCOPE_BPF_REGION("empty") {
	}
	SCOPE_BPF_REGION("outer") {
		touch_pages(q, 100);
		SCOPE_BPF_REGION("inner")
			touch_pages(r, 300);
	}
	SCOPE_BPF_REGION("migrate") {
		on_cpu(0);
		touch_pages(m, 500);
		on_cpu(1);
		touch_pages(m + 500 * page, 500);
		on_cpu(0);
		touch_pages(m + 1000 * page, 500);
	}
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	page = sysconf(_SC_PAGESIZE);
	if (argc > 2 && !strcmp(argv[1], "loop"))
		return loop(atof(argv[2]));
	usleep(SETTLE_US);
	main_thread_regions();
	if (pthread_create(&a, NULL, work_a, NULL) || pthread_create(&b, NULL, work_b, NULL))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
