/* Test app for following fork and exec. */

/*
 * A tracer following children must see, in the parent (pid P): region
 * "parent_work" once (~5 ms); in each of 2 forked children: region
 * "child_work" 10 times (~1 ms each); then, after the parent waited for
 * both, P exec's "count 7" from the same directory: "outer" once and
 * "tick" 7 times, still from pid P.
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "busy.h"
#include "scope_bpf.h"

#define NR_CHILDREN 2

static void child(void)
{
	int i;

	for (i = 0; i < 10; i++)
		SCOPE_BPF_REGION("child_work") {
			busy_ns(1000000);
		}
	_exit(0);
}

int main(int argc, char **argv)
{
	char self[4096], count[4096 + 8];
	char *args[] = { count, "7", NULL };
	pid_t pid[NR_CHILDREN];
	int i, status, failed = 0;

	(void)argc;
	SCOPE_BPF_REGION("parent_work") {
		busy_ns(5000000);
	}
	for (i = 0; i < NR_CHILDREN; i++) {
		pid[i] = fork();
		if (pid[i] < 0) {
			perror("fork");
			return 1;
		}
		if (!pid[i])
			child();
	}
	for (i = 0; i < NR_CHILDREN; i++)
		if (waitpid(pid[i], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	if (failed)
		return 1;

	snprintf(self, sizeof(self), "%s", argv[0]);
	snprintf(count, sizeof(count), "%s/count", dirname(self));
	execv(count, args);
	perror(count);
	return 1;
}
