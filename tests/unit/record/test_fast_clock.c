/* Tests for the fast path's clock: conversion on given points, the TSC check on given text. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record/fast/clock.h"
#include "record/fast/layout.h"

#define TSC SCOPE_BPF_IMPL_CLOCK_TSC
#define SEC 1000000000LL
#define MS 1000000LL
/* ns per count << 32 */
#define RATE(ns_per_count) ((uint64_t)((ns_per_count) * 4294967296.0))

static struct sb_fast_clock c;

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(sb_fast_clock_name(SCOPE_BPF_IMPL_CLOCK_TSC), "tsc");
	assert_string_equal(sb_fast_clock_name(SCOPE_BPF_IMPL_CLOCK_CNTVCT), "cntvct");
	assert_string_equal(sb_fast_clock_name(SCOPE_BPF_IMPL_CLOCK_MONO), "monotonic");
	assert_string_equal(sb_fast_clock_name(0), "unknown");
	assert_string_equal(sb_fast_clock_name(99), "unknown");
}

static void test_monotonic_is_identity(void **state)
{
	struct sb_error err = { { 0 } };

	(void)state;
	assert_int_equal(sb_fast_clock_init(&c, SCOPE_BPF_IMPL_CLOCK_MONO, &err), 0);
	sb_fast_clock_sample(&c);
	assert_int_equal(sb_fast_clock_ns(&c, 0), 0);
	assert_int_equal(sb_fast_clock_ns(&c, 123456789012345ULL), 123456789012345LL);
	/* A hostile time past int64_t is clamped, not wrapped negative. */
	assert_int_equal(sb_fast_clock_ns(&c, UINT64_MAX), INT64_MAX);
	assert_true(sb_fast_clock_settled(&c));
}

static void test_unknown_or_foreign_kind_is_refused(void **state)
{
	struct sb_error err = { { 0 } };

	(void)state;
	assert_int_equal(sb_fast_clock_init(&c, 7, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "unknown kind 7"));
#if defined(__x86_64__)
	memset(&err, 0, sizeof(err));
	assert_int_equal(sb_fast_clock_init(&c, SCOPE_BPF_IMPL_CLOCK_CNTVCT, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "cntvct"));
	assert_non_null(strstr(err.msg, "arm64"));
#elif defined(__aarch64__)
	memset(&err, 0, sizeof(err));
	assert_int_equal(sb_fast_clock_init(&c, SCOPE_BPF_IMPL_CLOCK_TSC, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "tsc"));
#endif
}

static void test_rate_change_between_samples_is_followed(void **state)
{
	(void)state;
	sb_fast_clock_start(&c, TSC, RATE(1.0));
	sb_fast_clock_add(&c, 1000, 1000000);
	sb_fast_clock_add(&c, 2000, 1000500);	/* 0.5 ns per count */
	sb_fast_clock_add(&c, 3000, 1002500);	/* then 2 ns per count */
	assert_int_equal(sb_fast_clock_ns(&c, 1000), 1000000);
	assert_int_equal(sb_fast_clock_ns(&c, 1500), 1000250);
	assert_int_equal(sb_fast_clock_ns(&c, 2000), 1000500);
	assert_int_equal(sb_fast_clock_ns(&c, 2500), 1001500);
	assert_int_equal(sb_fast_clock_ns(&c, 3000), 1002500);
	/* Past the newest: the kernel's rate while the baseline is under 50 ms. */
	assert_int_equal(sb_fast_clock_ns(&c, 3100), 1002600);
	assert_false(sb_fast_clock_settled(&c));
}

static void test_before_first_sample_uses_best_rate(void **state)
{
	uint64_t raw = 10000000000ULL;
	int64_t ns = 5 * SEC;
	int i;

	(void)state;
	sb_fast_clock_start(&c, TSC, RATE(3.0));
	sb_fast_clock_add(&c, raw, ns);
	/* One point: the kernel's scale reaches back. */
	assert_int_equal(sb_fast_clock_ns(&c, raw - 1000), ns - 3000);
	/* 2 s of samples at a measured 2 ns per count replace it, forward and back. */
	for (i = 1; i <= 200; i++)
		sb_fast_clock_add(&c, raw + (uint64_t)i * 5000000, ns + i * 10 * MS);
	assert_int_equal(sb_fast_clock_ns(&c, raw - 1000), ns - 2000);
	assert_int_equal(sb_fast_clock_ns(&c, raw - 500000000), ns - SEC);
	assert_int_equal(sb_fast_clock_ns(&c, raw + 1000 * 5000000ULL), ns + 10 * SEC);
	assert_true(sb_fast_clock_settled(&c));
}

static void test_no_kernel_scale_uses_measured_rate_at_once(void **state)
{
	(void)state;
	sb_fast_clock_start(&c, TSC, 0);
	sb_fast_clock_add(&c, 1000000, SEC);
	assert_int_equal(sb_fast_clock_ns(&c, 1000000), SEC);
	sb_fast_clock_add(&c, 1000000 + 4000000, SEC + 2 * MS);	/* 0.5 ns per count over 2 ms */
	assert_int_equal(sb_fast_clock_ns(&c, 1000000 - 2000), SEC - 1000);
	assert_int_equal(sb_fast_clock_ns(&c, 5000000 + 2000), SEC + 2 * MS + 1000);
}

static void test_extrapolation_uses_long_baseline_not_last_interval(void **state)
{
	uint64_t raw = 1ULL << 40;
	int64_t ns = 100 * SEC;
	int i;

	(void)state;
	sb_fast_clock_start(&c, TSC, RATE(1.0));
	for (i = 0; i <= 300; i++)	/* 3 s at 0.5 ns per count */
		sb_fast_clock_add(&c, raw + (uint64_t)i * 20 * MS, ns + i * 10 * MS);
	raw += 300 * 20 * MS;
	ns += 300 * 10 * MS;
	/* A last interval 1 ns off over 1 ms: 1000 ppm it does not carry into the future. */
	sb_fast_clock_add(&c, raw + 2 * MS, ns + MS + 1);
	assert_int_equal(sb_fast_clock_ns(&c, raw + MS), ns + MS / 2);
	assert_int_equal(sb_fast_clock_ns(&c, raw + 2 * MS), ns + MS + 1);
	/* 10 ms on: the 2 s baseline's rate, so within a ns of 0.5 per count. */
	assert_true(llabs(sb_fast_clock_ns(&c, raw + 22 * MS) - (ns + MS + 1 + 10 * MS)) <= 1);
}

static void test_history_older_than_fine_ring_is_interpolated(void **state)
{
	int64_t ns0 = SEC;
	int i;

	(void)state;
	sb_fast_clock_start(&c, TSC, RATE(1.0));
	/* 1 s at 1 ns per count, then 2 s at 0.25: the first second has left the fine ring. */
	for (i = 0; i <= 100; i++)
		sb_fast_clock_add(&c, (uint64_t)i * 10 * MS, ns0 + i * 10 * MS);
	for (i = 1; i <= 200; i++)
		sb_fast_clock_add(&c, SEC + (uint64_t)i * 40 * MS, ns0 + SEC + i * 10 * MS);
	assert_int_equal(sb_fast_clock_ns(&c, 500 * MS), ns0 + 500 * MS);
	assert_int_equal(sb_fast_clock_ns(&c, 1 * SEC + 400 * MS), ns0 + SEC + 100 * MS);
	/* Between the last coarse point before the fine ring (t = 2 s) and its oldest (2.37 s). */
	assert_int_equal(sb_fast_clock_ns(&c, SEC + 5 * SEC + 200 * MS), ns0 + 2 * SEC + 300 * MS);
	/* And the fine ring itself. */
	assert_int_equal(sb_fast_clock_ns(&c, SEC + 7 * SEC + 2), ns0 + 2 * SEC + 750 * MS);
}

/* ref takes the points c takes and converts nothing: its copies remember no span. */
static struct sb_fast_clock ref;

static void add_both(uint64_t raw, int64_t ns)
{
	sb_fast_clock_add(&c, raw, ns);
	sb_fast_clock_add(&ref, raw, ns);
}

static int64_t fresh_ns(uint64_t raw)
{
	static struct sb_fast_clock tmp;

	tmp = ref;
	return sb_fast_clock_ns(&tmp, raw);
}

/*
 * Conversions in a row reuse the span the one before used: at every point's
 * edges, in and out of order, across the coarse ring, the oldest fine point
 * and the newest, and after points were added, each is what a clock that
 * converted nothing before gives.
 */
static void test_remembered_span_gives_the_same_time(void **state)
{
	uint64_t raws[4096], r;
	size_t n = 0, i, k;
	int j;

	(void)state;
	sb_fast_clock_start(&c, TSC, RATE(1.0));
	sb_fast_clock_start(&ref, TSC, RATE(1.0));
	for (j = 0; j <= 100; j++)
		add_both((uint64_t)j * 10 * MS, SEC + j * 10 * MS);
	for (j = 1; j <= 200; j++)
		add_both(SEC + (uint64_t)j * 40 * MS + (uint64_t)j * j, 2 * SEC + j * 10 * MS + j % 7);
	for (r = 0; r < 10 * (uint64_t)SEC && n + 3 <= 4096; r += 7 * MS + 12345) {
		raws[n++] = r;
		raws[n++] = r + 1;
		raws[n++] = r ? r - 1 : 0;
	}
	for (i = 0; i < n; i++)
		assert_int_equal(sb_fast_clock_ns(&c, raws[i]), fresh_ns(raws[i]));
	for (i = n; i-- > 0;)
		assert_int_equal(sb_fast_clock_ns(&c, raws[i]), fresh_ns(raws[i]));
	for (i = 0; i < n; i++) {
		k = (i * 2654435761u) % n;
		assert_int_equal(sb_fast_clock_ns(&c, raws[k]), fresh_ns(raws[k]));
	}
	/* Past the newest point, then a point beyond it: the raw is between points now. */
	r = 20 * (uint64_t)SEC;
	assert_int_equal(sb_fast_clock_ns(&c, r), fresh_ns(r));
	add_both(r + 1000 * MS, 5 * SEC);
	assert_int_equal(sb_fast_clock_ns(&c, r), fresh_ns(r));
	assert_int_equal(sb_fast_clock_ns(&c, r + 1000 * MS + 5), fresh_ns(r + 1000 * MS + 5));
}

static void test_zero_and_huge_raw_do_not_wrap(void **state)
{
	uint64_t big = (1ULL << 63) + 12345;
	int64_t ns = 50 * SEC;

	(void)state;
	sb_fast_clock_start(&c, TSC, 0);
	sb_fast_clock_add(&c, big, ns);
	sb_fast_clock_add(&c, big + 3000, ns + 1000);	/* 1/3 ns per count, a 3 GHz TSC */
	/* 1/3 in 32.32 fixed point rounds down: within a ns. */
	assert_true(llabs(sb_fast_clock_ns(&c, big + 1500) - (ns + 500)) <= 1);
	assert_true(llabs(sb_fast_clock_ns(&c, big + 3000 + 3000000) - (ns + 1000 + 1000000)) <= 1);
	/* 2^63 counts back at 1/3 ns: about -3.07e18 ns, far below 0 but no wrap. */
	assert_true(sb_fast_clock_ns(&c, 0) < -3000000000000000000LL);
	assert_true(sb_fast_clock_ns(&c, 0) > -3100000000000000000LL);
	/* At 1 ns per count the end of the counter is past int64_t: clamped. */
	sb_fast_clock_start(&c, TSC, RATE(1.0));
	sb_fast_clock_add(&c, 1000, SEC);
	assert_int_equal(sb_fast_clock_ns(&c, UINT64_MAX), INT64_MAX);
	sb_fast_clock_start(&c, TSC, RATE(4.0));
	sb_fast_clock_add(&c, UINT64_MAX - 10, SEC);
	assert_int_equal(sb_fast_clock_ns(&c, 0), INT64_MIN);
}

static void test_pairs_not_later_are_ignored(void **state)
{
	(void)state;
	sb_fast_clock_start(&c, TSC, RATE(1.0));
	assert_int_equal(sb_fast_clock_ns(&c, 5000), 0);	/* no point yet */
	sb_fast_clock_add(&c, 1000, SEC);
	sb_fast_clock_add(&c, 2000, SEC + 500);
	sb_fast_clock_add(&c, 1500, SEC + 900);		/* counter went back */
	sb_fast_clock_add(&c, 3000, SEC + 400);		/* CLOCK_MONOTONIC went back */
	sb_fast_clock_add(&c, 2000, SEC + 600);		/* same counter */
	assert_int_equal(sb_fast_clock_ns(&c, 1500), SEC + 250);
	assert_int_equal(sb_fast_clock_ns(&c, 2000), SEC + 500);
	assert_int_equal(sb_fast_clock_ns(&c, 2100), SEC + 600);
}

static const char flags_ok[] =
	"processor\t: 0\nvendor_id\t: GenuineIntel\n"
	"flags\t\t: fpu vme tsc msr constant_tsc rep_good nopl nonstop_tsc cpuid\n"
	"vmx flags\t: vnmi\n";

static void test_tsc_check_accepts_stable_tsc(void **state)
{
	char why[128] = "";

	(void)state;
	assert_int_equal(sb_fast_clock_check_tsc("tsc\n", flags_ok, why, sizeof(why)), 0);
	assert_int_equal(sb_fast_clock_check_tsc("tsc", "flags: nonstop_tsc constant_tsc",
						 why, sizeof(why)), 0);
}

static void test_tsc_check_names_what_is_missing(void **state)
{
	char why[128];

	(void)state;
	assert_int_equal(sb_fast_clock_check_tsc("hpet\n", flags_ok, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "'hpet'"));
	assert_int_equal(sb_fast_clock_check_tsc("tsc_early\n", flags_ok, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "tsc_early"));
	assert_int_equal(sb_fast_clock_check_tsc("tsc\n", "flags\t: fpu constant_tsc tsc\n", why,
						 sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "nonstop_tsc"));
	/* A word that only starts like the flag, or the flag on another line, is not it. */
	assert_int_equal(sb_fast_clock_check_tsc("tsc\n", "flags\t: constant_tsc_x nonstop_tsc\n"
						 "vmx flags\t: constant_tsc\n", why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "constant_tsc"));
	assert_int_equal(sb_fast_clock_check_tsc("tsc\n", "vmx flags\t: constant_tsc nonstop_tsc\n",
						 why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "no flags line"));
	assert_int_equal(sb_fast_clock_check_tsc("tsc\n", "", why, sizeof(why)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_monotonic_is_identity),
		cmocka_unit_test(test_unknown_or_foreign_kind_is_refused),
		cmocka_unit_test(test_rate_change_between_samples_is_followed),
		cmocka_unit_test(test_before_first_sample_uses_best_rate),
		cmocka_unit_test(test_no_kernel_scale_uses_measured_rate_at_once),
		cmocka_unit_test(test_extrapolation_uses_long_baseline_not_last_interval),
		cmocka_unit_test(test_history_older_than_fine_ring_is_interpolated),
		cmocka_unit_test(test_zero_and_huge_raw_do_not_wrap),
		cmocka_unit_test(test_remembered_span_gives_the_same_time),
		cmocka_unit_test(test_pairs_not_later_are_ignored),
		cmocka_unit_test(test_tsc_check_accepts_stable_tsc),
		cmocka_unit_test(test_tsc_check_names_what_is_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
