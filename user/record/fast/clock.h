/* The fast path's record times (hdr->clock's raw counter) on the profile's CLOCK_MONOTONIC. */
#ifndef SB_FAST_CLOCK_H
#define SB_FAST_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* Calibration points per ring: every sample (the last passes), one a second (the last minute). */
#define SB_FAST_CLOCK_POINTS 64

/* One (counter, CLOCK_MONOTONIC) pair and the rate from it to the next point of its ring. */
struct sb_fast_clock_point {
	uint64_t raw;
	int64_t ns;
	uint64_t mult;		/* ns per count << 32; unused at the newest point of a ring */
};

/* The newest points, oldest at start: later on both clocks one after another. */
struct sb_fast_clock_ring {
	uint32_t start;
	uint32_t n;
	struct sb_fast_clock_point p[SB_FAST_CLOCK_POINTS];
};

/*
 * The span of raw values the last conversion fell in, and its line: a
 * thread's records come in time order, so most conversions land in the span
 * the one before used, and skip the search (and, just before the fine ring,
 * a 128-bit division). Ends when a point is added.
 */
struct sb_fast_clock_memo {
	uint64_t gen;			/* the clock's gen when taken */
	uint64_t lo;			/* raw in [lo, hi): ns + (raw - lo) * mult */
	uint64_t hi;
	int64_t ns;
	uint64_t mult;
};

/* Caller-allocated, no heap, no descriptor: nothing to free. */
struct sb_fast_clock {
	uint32_t kind;			/* enum scope_bpf_impl_clock */
	uint64_t gen;			/* points added, from 1: a memo of another gen is stale */
	uint64_t kernel_mult;		/* the kernel's ns per count << 32, 0 when unknown */
	uint64_t mult;			/* the rate outside the points (ns per count << 32) */
	struct sb_fast_clock_ring fine;	/* every sample */
	struct sb_fast_clock_ring coarse;	/* samples at least a second apart */
	struct sb_fast_clock_memo memo;
};

/*
 * kind from hdr->clock. -EINVAL with err naming why when the counter cannot
 * be trusted (TSC: clocksource not tsc, or /proc/cpuinfo lacks constant_tsc
 * or nonstop_tsc; a counter of another architecture) or kind is unknown.
 * Takes the first calibration point, so sb_fast_clock_ns() works at once.
 */
int sb_fast_clock_init(struct sb_fast_clock *c, uint32_t kind, struct sb_error *err);

/*
 * Take a calibration point now (0.4 us in a VM: five counter and vDSO
 * clock_gettime reads); the drain calls it once per pass, before converting
 * that pass's records. A no-op for the monotonic kind.
 */
void sb_fast_clock_sample(struct sb_fast_clock *c);

/* sb_fast_clock_ns() where the span of the conversion before does not hold: searched. */
int64_t sb_fast_clock_convert(struct sb_fast_clock *c, uint64_t raw);

/* ns moved d counts on at rate mult, clamped to int64_t; < 2^96 ns, so no overflow. */
static inline int64_t sb_fast_clock_on(int64_t ns, uint64_t d, uint64_t mult)
{
	__int128 v = (__int128)ns + (__int128)(((unsigned __int128)d * mult) >> 32);

	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/*
 * Raw counter value -> CLOCK_MONOTONIC ns, for any raw (a hostile one gives a
 * wrong time, clamped to int64_t, never a fault); about 15 ns, a few in the
 * span of the conversion before. Between two samples the error is that of
 * the samples (tens of ns); past the newest or
 * before the oldest it grows with the rate's error times the distance: a
 * pass's worth past the newest stays far below 1 us, seconds before the first
 * need sb_fast_clock_settled(). Not const: it remembers the span it used.
 */
static inline int64_t sb_fast_clock_ns(struct sb_fast_clock *c, uint64_t raw)
{
	const struct sb_fast_clock_memo *m = &c->memo;

	if (m->gen == c->gen && raw - m->lo < m->hi - m->lo)
		return sb_fast_clock_on(m->ns, raw - m->lo, m->mult);
	return sb_fast_clock_convert(c, raw);
}

/*
 * Whether the rate is measured over a baseline long enough (a second) that
 * raw values seconds before the first sample convert within about 0.1 us per
 * second before it; until then they use the kernel's nominal rate, which may
 * be off CLOCK_MONOTONIC's by several ppm (a few us per second).
 */
int sb_fast_clock_settled(const struct sb_fast_clock *c);

/* "tsc", "cntvct", "monotonic" for the profile's metadata; "unknown" otherwise. */
const char *sb_fast_clock_name(uint32_t kind);

/*
 * The TSC check on the text of current_clocksource and /proc/cpuinfo: 0 when
 * the clocksource is tsc and the first flags line has constant_tsc and
 * nonstop_tsc, else -EINVAL with why[len] saying what is missing.
 */
int sb_fast_clock_check_tsc(const char *clocksource, const char *cpuinfo, char *why, size_t len);

/*
 * The conversion on given points, for tests: start c for kind with the
 * kernel's rate kernel_mult (ns per count << 32, 0 = unknown) and no point,
 * then add (raw, ns) pairs in time order. A pair not after the newest one is
 * ignored (a counter that went back, a clock step). sb_fast_clock_sample()
 * adds the measured pair through sb_fast_clock_add().
 */
void sb_fast_clock_start(struct sb_fast_clock *c, uint32_t kind, uint64_t kernel_mult);
void sb_fast_clock_add(struct sb_fast_clock *c, uint64_t raw, int64_t ns);

#endif
