/*
 * Test app: "raw_clone N" marks the region "parent" once, then makes a child
 * with a raw clone system call, which runs no fork handler, and both mark N
 * regions at the same time: "parent" in the parent, "child" in the child.
 * Prints "child PID" once the child exited 0.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scope_bpf.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000, i, pid;
	int status;

	/* The thread has its slot and view before the clone copies them. */
	SCOPE_BPF_REGION("parent")
		__asm__ __volatile__("" ::: "memory");
	pid = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
	if (pid < 0) {
		perror("clone");
		return 1;
	}
	if (!pid) {
		for (i = 0; i < n; i++)
			SCOPE_BPF_REGION("child")
				__asm__ __volatile__("" ::: "memory");
		_exit(0);
	}
	for (i = 0; i < n; i++)
		SCOPE_BPF_REGION("parent")
			__asm__ __volatile__("" ::: "memory");
	if (waitpid((pid_t)pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	printf("child %ld\n", pid);
	return 0;
}
