/* Test app: short-lived marked children, forked without exec. */

/*
 * "fork_storm N ALIVE CALLS" forks N children, at most ALIVE alive at once;
 * each calls the empty region "kid" CALLS times and exits. A tracer must see
 * N * CALLS calls of "kid", one process each: every child makes its own
 * fast-path memory and exits a few microseconds later, so the recorder must
 * hold each until it has taken that memory, however far behind it is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scope_bpf.h"

static void child(int calls)
{
	int i;

	for (i = 0; i < calls; i++)
		SCOPE_BPF_REGION("kid") {
		}
	_exit(0);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 500, alive = argc > 2 ? atoi(argv[2]) : 50;
	int calls = argc > 3 ? atoi(argv[3]) : 1000, running = 0, failed = 0, st, i;
	pid_t pid;

	for (i = 0; i < n; i++) {
		if (running >= alive && wait(&st) > 0) {
			running--;
			failed += !WIFEXITED(st) || WEXITSTATUS(st);
		}
		pid = fork();
		if (pid < 0)
			return 1;
		if (!pid)
			child(calls);
		running++;
	}
	while (running-- > 0 && wait(&st) > 0)
		failed += !WIFEXITED(st) || WEXITSTATUS(st);
	return failed ? 1 : 0;
}
