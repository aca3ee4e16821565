/*
 * Test app: "timed_calls SECONDS OUT" calls the region "timed" (a body of
 * about 2 us) for SECONDS seconds and writes each call's begin and end
 * (CLOCK_MONOTONIC ns, two int64 each, in call order) to OUT at the end. Prints
 * "ready" once calling. SIGUSR1 ends the calls early (a test whose recordings
 * are done need not wait out SECONDS, chosen long enough for a loaded host).
 * A test counts the calls made inside a recording's [start_time_ns,
 * end_time_ns] and compares them with the file's.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "scope_bpf.h"

#define MAX_CALLS (8L << 20)

static volatile sig_atomic_t stop;

static void on_usr1(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void body(void)
{
	int64_t until = now_ns() + 2000;

	while (now_ns() < until)
		;
}

int main(int argc, char **argv)
{
	int64_t *t, end;
	long n = 0;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: timed_calls SECONDS OUT\n");
		return 2;
	}
	t = malloc(2 * MAX_CALLS * sizeof(*t));
	if (!t)
		return 1;
	signal(SIGUSR1, on_usr1);
	end = now_ns() + (int64_t)(atof(argv[1]) * 1e9);
	printf("ready\n");
	fflush(stdout);
	while (n < MAX_CALLS && now_ns() < end && !stop) {
		SCOPE_BPF_REGION("timed") {
			t[2 * n] = now_ns();
			body();
			t[2 * n + 1] = now_ns();
		}
		n++;
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(t, 2 * sizeof(*t), (size_t)n, f) != (size_t)n || fclose(f))
		return 1;
	printf("calls %ld\n", n);
	free(t);
	return 0;
}
