/* Busy-wait and sleep helpers for the test apps, so region durations are known. */
#ifndef APPS_BUSY_H
#define APPS_BUSY_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Spins on the CPU for ns nanoseconds of wall time: on-CPU time for the profile. */
static inline void busy_ns(uint64_t ns)
{
	uint64_t end = now_ns() + ns;

	while (now_ns() < end)
		;
}

/* Sleeps ns nanoseconds, resuming after signals: off-CPU time for the profile. */
static inline void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts))
		;
}

#endif /* APPS_BUSY_H */
