/* Long-running test app for attaching to a running process. */

/*
 * Prints "ready" once its markers are reachable, then runs region "iter"
 * (~1 ms busy, then ~1 ms asleep) in a loop: forever, or for SECONDS
 * seconds with "waiter SECONDS". On SIGTERM or SIGINT it finishes the
 * current iteration and exits 0. A tracer attached after "ready" must see
 * "iter" calls of ~2 ms, about half of each off-CPU, and no other region.
 * On SIGUSR1 it closes every descriptor above stderr, as a daemon does: the
 * fast path's memory stays mapped, its memfd is gone.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "busy.h"
#include "scope_bpf.h"

static volatile sig_atomic_t stop, close_fds;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		close_fds = 1;
	else
		stop = 1;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0;
	uint64_t end = seconds > 0 ? now_ns() + (uint64_t)(seconds * 1e9) : 0;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);

	printf("ready\n");
	fflush(stdout);
	while (!stop && (!end || now_ns() < end)) {
		if (close_fds) {
			close_range(3, ~0U, 0);
			close_fds = 0;
		}
		SCOPE_BPF_REGION("iter") {
			busy_ns(1000000);
			sleep_ns(1000000);
		}
	}
	return 0;
}
