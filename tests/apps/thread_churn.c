/* Test app: more short-lived threads than the kernel side's thread table has slots. */

/*
 * A tracer must see region "short" called exactly 9000 times, once by each of
 * 9000 threads that run one after another (each joined before the next
 * starts), then region "busy" called 4 times, once by each of 4 workers that
 * run together and spin inside it until each has used 30 ms of CPU (so at
 * least 30 ms in each worker's CPU time, however few CPUs they share). Exited
 * threads must not hold on to tracer state: 9000 is more than SB_MAX_THREADS.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "scope_bpf.h"

#define SHORT_THREADS 9000
#define WORKERS 4

static void *short_lived(void *arg)
{
	SCOPE_BPF_REGION("short") {
		(void)arg;
	}
	return NULL;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *worker(void *arg)
{
	uint64_t end;

	SCOPE_BPF_REGION("busy") {
		end = thread_cpu_ns() + 30000000;
		while (thread_cpu_ns() < end)
			;
	}
	return arg;
}

static int run_threads(void *(*fn)(void *), int n)
{
	pthread_t tid[WORKERS];
	int i, err = 0;

	for (i = 0; i < n; i++)
		if (pthread_create(&tid[i], NULL, fn, NULL))
			return -1;
	for (i = 0; i < n; i++)
		err |= pthread_join(tid[i], NULL);
	return err;
}

int main(void)
{
	int i;

	for (i = 0; i < SHORT_THREADS; i++)
		if (run_threads(short_lived, 1))
			return 1;
	if (run_threads(worker, WORKERS)) {
		fprintf(stderr, "thread_churn: cannot start workers\n");
		return 1;
	}
	return 0;
}
