/*
 * Test and bench app: "fast_flood THREADS SECONDS [PROCESSES]" runs THREADS
 * threads that each call the empty region "flood" as fast as they can for
 * SECONDS seconds (or until SIGTERM), then prints "calls N" (all threads) and
 * "longest_gap_us G": the longest any thread took for 1024 calls, so a tracer
 * that makes the program wait shows as a gap as long as the wait. Prints
 * "ready" once the threads run. With PROCESSES, that many forked children
 * each run THREADS threads, and "calls N" is the sum over them all. With
 * IDLE_SECONDS, one call of "warmup" first, "warm" printed, then that long
 * idle: a flood that begins while the recorder sleeps.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scope_bpf.h"

#define MAX_THREADS 64

static volatile sig_atomic_t stop;
static double seconds;
static long calls[MAX_THREADS];
static long long longest_gap[MAX_THREADS];

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *flood(void *arg)
{
	long id = (long)arg, n = 0, i;
	long long start = now_ns(), end = start + (long long)(seconds * 1e9), t, last = start;

	for (;;) {
		for (i = 0; i < 1024; i++)
			SCOPE_BPF_REGION("flood") {
				__asm__ __volatile__("" ::: "memory");
			}
		n += 1024;
		t = now_ns();
		if (t - last > longest_gap[id])
			longest_gap[id] = t - last;
		last = t;
		if (t >= end || stop)
			break;
	}
	calls[id] = n;
	return NULL;
}

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* The threads' calls, once they are done; *gap: the longest gap of any. */
static long run_threads(long threads, long long *gap, int say_ready)
{
	pthread_t th[MAX_THREADS];
	long i, total = 0;

	for (i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, flood, (void *)i);
	if (say_ready) {
		printf("ready\n");
		fflush(stdout);
	}
	*gap = 0;
	for (i = 0; i < threads; i++) {
		pthread_join(th[i], NULL);
		total += calls[i];
		*gap = longest_gap[i] > *gap ? longest_gap[i] : *gap;
	}
	return total;
}

/* Each child floods and writes its calls and gap to the pipe; the sums, or -1. */
static long run_processes(long procs, long threads, long long *gap)
{
	long long sent[2];
	long i, total = 0;
	int fds[2], status, failed = 0;
	pid_t pid;

	if (pipe(fds))
		return -1;
	for (i = 0; i < procs; i++) {
		pid = fork();
		if (pid < 0)
			return -1;
		if (!pid) {
			sent[0] = run_threads(threads, &sent[1], 0);
			_exit(write(fds[1], sent, sizeof(sent)) == sizeof(sent) ? 0 : 1);
		}
	}
	close(fds[1]);
	printf("ready\n");
	fflush(stdout);
	*gap = 0;
	while (read(fds[0], sent, sizeof(sent)) == sizeof(sent)) {
		total += (long)sent[0];
		*gap = sent[1] > *gap ? sent[1] : *gap;
	}
	while (wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	return failed ? -1 : total;
}

int main(int argc, char **argv)
{
	long threads = argc > 1 ? atol(argv[1]) : 1, procs = argc > 3 ? atol(argv[3]) : 0;
	double idle = argc > 4 ? atof(argv[4]) : 0;
	struct timespec pause = { (time_t)idle, (long)((idle - (long)idle) * 1e9) };
	long total;
	long long gap;

	seconds = argc > 2 ? atof(argv[2]) : 1;
	if (threads < 1 || threads > MAX_THREADS || seconds <= 0 || procs < 0 || idle < 0) {
		fprintf(stderr, "usage: fast_flood THREADS(1-%d) SECONDS [PROCESSES [IDLE_SECONDS]]\n",
			MAX_THREADS);
		return 2;
	}
	signal(SIGTERM, on_stop);
	if (idle > 0) {
		SCOPE_BPF_REGION("warmup") {
			__asm__ __volatile__("" ::: "memory");
		}
		printf("warm\n");
		fflush(stdout);
		nanosleep(&pause, NULL);
	}
	total = procs ? run_processes(procs, threads, &gap) : run_threads(threads, &gap, 1);
	if (total < 0)
		return 1;
	printf("calls %ld\nlongest_gap_us %lld\n", total, gap / 1000);
	return 0;
}
