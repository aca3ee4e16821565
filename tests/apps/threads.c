/* Test app with known per-thread call counts and thread names. */

/*
 * A tracer must see: 8 threads named "worker-0" .. "worker-7", each calling
 * region "work" exactly 100 times (~100 us busy each; 800 calls in all);
 * the main thread calling region "main" once, around creating and joining
 * the workers. Each thread names itself before its first region.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "busy.h"
#include "scope_bpf.h"

#define NR_WORKERS 8
#define CALLS 100

static void *worker(void *arg)
{
	char name[16];
	int i;

	snprintf(name, sizeof(name), "worker-%d", (int)(intptr_t)arg);
	pthread_setname_np(pthread_self(), name);
	for (i = 0; i < CALLS; i++)
		SCOPE_BPF_REGION("work") {
			busy_ns(100000);
		}
	return NULL;
}

int main(void)
{
	pthread_t tid[NR_WORKERS];
	int i, err = 0;

	SCOPE_BPF_REGION("main") {
		for (i = 0; i < NR_WORKERS; i++)
			if (pthread_create(&tid[i], NULL, worker, (void *)(intptr_t)i))
				return 1;
		for (i = 0; i < NR_WORKERS; i++)
			err |= pthread_join(tid[i], NULL);
	}
	return err ? 1 : 0;
}
