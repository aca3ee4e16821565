/* Test app: more threads alive at once than the kernel side's thread table has slots. */

/*
 * "thread_crowd [N]": starts N threads (default 8300, more than SB_MAX_THREADS)
 * that are all alive together; each calls region "crowd" once while all are
 * alive, then all end. A tracer that cannot keep every thread must count
 * each call it drops: recorded calls plus dropped calls equal N.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "scope_bpf.h"

#define DEFAULT_THREADS 8300
#define STACK_BYTES (64 << 10)

static pthread_barrier_t all_alive, all_called;

static void *crowd(void *arg)
{
	pthread_barrier_wait(&all_alive);
	SCOPE_BPF_REGION("crowd") {
		__asm__ __volatile__("" ::: "memory");
	}
	pthread_barrier_wait(&all_called);
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : DEFAULT_THREADS, i, err = 0;
	pthread_attr_t attr;
	pthread_t *tid;

	tid = calloc(n > 0 ? (size_t)n : 1, sizeof(*tid));
	if (n <= 0 || !tid || pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, STACK_BYTES) ||
	    pthread_barrier_init(&all_alive, NULL, (unsigned)n) ||
	    pthread_barrier_init(&all_called, NULL, (unsigned)n))
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&tid[i], &attr, crowd, NULL)) {
			fprintf(stderr, "thread_crowd: cannot start thread %d\n", i);
			return 1;
		}
	for (i = 0; i < n; i++)
		err |= pthread_join(tid[i], NULL);
	free(tid);
	return err ? 1 : 0;
}
