/* Test app: a region that is already open when a tracer attaches. */

/*
 * "open_at_attach SECONDS": enters region "outer", prints "inside" and sleeps
 * SECONDS (default 2) inside it, or until SIGUSR1 (a test sends it once its
 * tracer has attached, however long that took), then calls region "inner" 4
 * times and leaves "outer". A tracer attached during the sleep must record
 * the 4 "inner" calls and report "outer" as a call that was open when it
 * attached.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "busy.h"
#include "scope_bpf.h"

#define INNER_CALLS 4

static volatile sig_atomic_t woken;

static void wake(int sig)
{
	(void)sig;
	woken = 1;
}

/* Sleep ns, or less if SIGUSR1 comes first. */
static void sleep_or_wake(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };

	while (!woken && nanosleep(&ts, &ts))
		;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2;
	int i;

	signal(SIGUSR1, wake);
	SCOPE_BPF_REGION("outer") {
		printf("inside\n");
		fflush(stdout);
		sleep_or_wake((uint64_t)(seconds * 1e9));
		for (i = 0; i < INNER_CALLS; i++)
			SCOPE_BPF_REGION("inner") {
				busy_ns(1000000);
			}
	}
	return 0;
}
