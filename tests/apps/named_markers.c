/* Test app: regions named at run time through libscope_bpf_markers (scope_bpf_begin_named). */

/*
 * A tracer must see, all in one process:
 *  - "outer" twice on the main thread; in each, "phase_0", "phase_1" and
 *    "phase_2" once (names built with snprintf, so never literals), and in
 *    each phase "len" once: scope_bpf_begin_named_n("lenient", 3);
 *  - one region whose name is 'x' repeated SCOPE_BPF_NAME_MAX times: its begin
 *    and end were given 200 'x's and a longer name, cut to the same one;
 *  - "worker" 50 times on each of 4 threads, all started at once, at top
 *    level: concurrent first uses of one name must share one descriptor;
 *  - nothing from the NULL and empty names, which are ignored.
 * "named_markers N" instead calls N distinct names ("n0" ...) twice each, in
 * a burst: every name must be kept, none lost (60 000 once kept 34 000).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "busy.h"
#include "scope_bpf.h"

#define THREADS 4
#define WORKER_CALLS 50

static pthread_barrier_t start;

static void *worker(void *arg)
{
	char name[16];
	int i;

	(void)arg;
	snprintf(name, sizeof(name), "work%s", "er");
	pthread_barrier_wait(&start);
	for (i = 0; i < WORKER_CALLS; i++) {
		scope_bpf_begin_named(name);
		busy_ns(20000);
		scope_bpf_end_named(name);
	}
	return NULL;
}

static void phases(void)
{
	char name[16];
	int i;

	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "phase_%d", i);
		scope_bpf_begin_named(name);
		scope_bpf_begin_named_n("lenient", 3);
		busy_ns(100000);
		scope_bpf_end_named_n("len", 3);
		scope_bpf_end_named(name);
	}
}

static void long_name(void)
{
	char begin[201], end[301];

	memset(begin, 'x', sizeof(begin) - 1);
	begin[sizeof(begin) - 1] = 0;
	memset(end, 'x', sizeof(end) - 1);
	end[sizeof(end) - 1] = 0;
	scope_bpf_begin_named(begin);
	busy_ns(100000);
	scope_bpf_end_named(end);
}

static void many_names(int n)
{
	char name[16];
	int round, i;

	for (round = 0; round < 2; round++)
		for (i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "n%d", i);
			scope_bpf_begin_named(name);
			scope_bpf_end_named(name);
		}
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];
	int i;

	if (argc > 1) {
		many_names(atoi(argv[1]));
		return 0;
	}

	scope_bpf_begin_named(NULL);
	scope_bpf_begin_named("");
	for (i = 0; i < 2; i++) {
		scope_bpf_begin_named("outer");
		phases();
		scope_bpf_end_named("outer");
	}
	scope_bpf_end_named("");
	scope_bpf_end_named(NULL);
	long_name();
	pthread_barrier_init(&start, NULL, THREADS);
	for (i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
